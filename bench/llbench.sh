#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench, on the host: the Landlock enforcer's per-op cost, beside the
# BPF LSM figures of bench/bench.sh (the test VM's 6.1 has Landlock ABI 2,
# which the Landlock enforcer refuses, so this one runs on the host's kernel).
# The same loops as bench.sh (build/bench-loops: open/close, create/unlink,
# fork+exec of a static busybox "true", ioctl, setuid; the program times
# each loop itself, so a cage's startup is not in the figures), on a tmpfs:
#   baseline  uncaged, as root
#   (b)       agentcage run --enforcer landlock, bench.sh's 1,000-entry policy
#             (its 996 /srv/bench entries do not exist, and Landlock grants
#             only what exists: a handful of Landlock rules)
#   (b1k)     the same policy with those 996 entries present (beside the work
#             directory): about 1,000 Landlock rules and as many bind mounts
#   (e)       a plain Landlock ruleset of the loops' own (loops --landlock),
#             no agentcage: bench.sh's Landlock yardstick
# The configurations take turns: each round measures the baseline and every
# configuration, each ratio is taken against its own round's baseline, and
# the median over the rounds is printed. Wall-clock time on
# the host (no instruction counting), so the baseline's spread between
# rounds is printed too. It is not a test: nothing asserts on time; it fails
# only if a run fails.
# Environment: ROUNDS (7), REPS (3, passes a round, below), N_OPEN (40000),
# N_CREATE (20000), N_EXEC (200), N_SYS (40000): bench.sh's names (make bench
# passes them to both), twice its counts but on exec. About 105 s by default.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
AC=$repo/build/agentcage LOOPS=$repo/build/bench-loops
ROUNDS=${ROUNDS:-7} REPS=${REPS:-3}
N_OPEN=${N_OPEN:-40000} N_CREATE=${N_CREATE:-20000} N_EXEC=${N_EXEC:-200} N_SYS=${N_SYS:-40000}
die() { echo "llbench: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (agentcage run)"
[ -x "$AC" ] && [ -x "$LOOPS" ] || die "build first: make all build/bench-loops"
BUSYBOX=$(command -v busybox) || die "busybox (static) is needed for the exec loop"

# a tmpfs: /dev/shm, else /run
for base in /dev/shm /run; do [ "$(stat -f -c %T "$base" 2>/dev/null)" = tmpfs ] && break; base=; done
[ -n "$base" ] || die "no tmpfs at /dev/shm or /run"
W=$(mktemp -d "$base/llbench.XXXXXX") || die "mktemp in $base failed"
trap 'rm -rf "$W"' EXIT
D=$W/work
chmod 755 "$W"; mkdir "$D" "$W/tree"
# A caged agent of a root caller runs as nobody: the directory is its own.
chown 65534:65534 "$D"
cp "$BUSYBOX" "$D/true" || die "cannot copy $BUSYBOX"

# bench.sh's 1,000-entry policy, with its other 996 entries at $1
policy() {
	echo "name: bench"; echo "files:"; echo "  read: [/usr, /lib, /lib64, /etc, /dev/null, $LOOPS]"
	echo "  write:"; echo "    - $D"
	for i in $(seq 1 996); do echo "    - $1/project-$i/src"; done
	echo "exec:"; echo "  allow: [/usr/bin, /usr/lib, $LOOPS, $D/true]"
}
policy /srv/bench > "$W/policy.yaml"
for i in $(seq 1 996); do echo "$W/tree/project-$i/src"; done | xargs mkdir -p
policy "$W/tree" > "$W/policy1k.yaml"

abi=$("$AC" check --json --enforcer landlock "$W/policy.yaml" 2>/dev/null |
	python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["landlock"]["abi"])' 2>/dev/null)
if [ -z "$abi" ] || [ "$abi" -lt 3 ]; then
	echo "llbench: skipped: the Landlock enforcer needs Landlock ABI 3 or newer (here: ${abi:-none})"
	exit 0
fi

loops() { "$@" "$LOOPS" --exec "$D/true" "${LOOPS_OPT[@]}" all $N_OPEN $N_CREATE $N_EXEC $N_SYS "$D"; }
caged() { loops "$AC" run --enforcer landlock --accept-weaker --no-limits --no-pty --policy "$1" -- 2>"$W/err"; }
# run CONFIG: one line "open create exec ioctl cap" (ns per op)
run() {
	local out rc
	LOOPS_OPT=()
	case $1 in
	base) out=$(loops 2>"$W/err") ;;
	b) out=$(caged "$W/policy.yaml") ;;
	b1k) out=$(caged "$W/policy1k.yaml") ;;
	ll) LOOPS_OPT=(--landlock "$D"); out=$(loops 2>"$W/err") ;;
	esac
	rc=$?
	[ $rc = 0 ] || { echo "llbench: $(label "$1") exited $rc:" >&2; sed 's/^/  /' "$W/err" >&2; return 1; }
	[[ $out =~ ^[0-9]+(\ [0-9]+){4}$ ]] || { echo "llbench: $(label "$1") printed '$out':" >&2; sed 's/^/  /' "$W/err" >&2; return 1; }
	# agentcage's start line says what the kernel was given
	[ "$1" = b ] || [ "$1" = b1k ] && sed -n 's/.*enforcer: landlock (\([^)]*\)).*/\1/p' "$W/err" > "$W/what.$1"
	echo "$out"
}
CONFIGS="base b b1k ll"
label() { case $1 in
	base) echo "baseline (uncaged, root)" ;;
	b) echo "(b) caged, 1,000 entries, 996 absent" ;;
	b1k) echo "(b1k) caged, 1,000 entries present" ;;
	ll) echo "(e) plain Landlock ruleset, no agentcage" ;;
	esac; }

: > "$W/results.txt"
# warm up (page cache, the first mount namespace) before anything counts
run base >/dev/null && run b >/dev/null || die "the warm-up failed"
# A round is REPS passes over the configurations (their order turned by one
# each round), and takes each loop's fastest of its passes: the host's noise
# is bursts of a second or two that only ever slow a loop down, and a burst
# would have to hit every pass of a configuration to move its figure.
set -- $CONFIGS; nconf=$#
for r in $(seq 1 "$ROUNDS"); do
	for p in $(seq 1 "$REPS"); do
		for k in $(seq 0 $((nconf - 1))); do
			c=$(echo $CONFIGS | cut -d' ' -f$(( (k + r) % nconf + 1 )))
			v=$(run $c) || die "$(label $c) failed"
			echo "$r $c $v" >> "$W/results.txt"
		done
	done
	echo "llbench: round $r of $ROUNDS done" >&2
done
# fastest pass of each configuration in each round: "round config open create exec ioctl cap"
awk '{k = $1 " " $2; if (!(k in m)) {m[k] = 1; order[++n] = k}
	for (i = 3; i <= NF; i++) if (!((k, i) in v) || $i < v[k, i]) v[k, i] = $i; nf = NF}
	END {for (j = 1; j <= n; j++) {k = order[j]; printf "%s", k; for (i = 3; i <= nf; i++) printf " %d", v[k, i]; print ""}}' \
	"$W/results.txt" > "$W/rounds.txt"

MED='function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }'
COLS="open create exec ioctl cap"
echo "# Landlock enforcer, on the host: $(uname -r), Landlock ABI $abi, $(nproc) CPUs; wall-clock time"
echo "# (b): $(cat "$W/what.b"); (b1k): $(cat "$W/what.b1k")"
echo "# loops: open/close $N_OPEN, create/unlink $N_CREATE, fork+exec $N_EXEC, ioctl and setuid $N_SYS;"
echo "# $ROUNDS rounds of $REPS passes, each round's figure the fastest of its passes"
echo "ns per op, median of $ROUNDS rounds:"
printf '%-42s'; printf ' %8s' $COLS; echo
for c in $CONFIGS; do
	awk -v c=$c -v l="$(label $c)" "$MED"'
	$2 == c {n++; for (i = 3; i <= NF; i++) v[i, n] = $i; nf = NF}
	END {printf "%-42s", l; for (i = 3; i <= nf; i++) {for (j = 1; j <= n; j++) a[j] = v[i, j]; printf " %8d", med(a, n)}; print ""}' "$W/rounds.txt"
done
echo
echo "ratios against the baseline of the same round (1.00 = no cost), median of $ROUNDS rounds [lowest-highest]:"
printf '%-42s'; printf ' %17s' $COLS; echo
for c in $CONFIGS; do
	[ $c = base ] && continue
	awk -v c=$c -v l="$(label $c)" "$MED"'
	NR == FNR {if ($2 == "base") for (i = 3; i <= NF; i++) b[$1, i] = $i; next}
	$2 == c {n++; for (i = 3; i <= NF; i++) v[i, n] = $i / b[$1, i]; nf = NF}
	END {printf "%-42s", l; for (i = 3; i <= nf; i++) {for (j = 1; j <= n; j++) a[j] = v[i, j]; m = med(a, n)
		printf " %5.3f %-11s", m, sprintf("[%.2f-%.2f]", a[1], a[n])}; print ""}' "$W/rounds.txt" "$W/rounds.txt"
done
spread() { awk -v cols="$COLS" -v what="$2" '$2 == "base" {nf = NF; for (i = 3; i <= NF; i++) {if (!((i) in lo) || $i < lo[i]) lo[i] = $i; if ($i > hi[i]) hi[i] = $i}}
	END {split(cols, name, " "); printf "%s", what
		for (i = 3; i <= nf; i++) printf " %.2fx (%s)%s", hi[i]/lo[i], name[i-2], i < nf ? "," : "\n"}' "$1"; }
echo
spread "$W/rounds.txt" "noise: the baseline's round figures (fastest pass) varied between rounds by"
spread "$W/results.txt" "       its single runs, all passes of all rounds, by"
echo "(the caged loops run as nobody under agentcage's seccomp filter and in its mount namespace; their"
echo " setuid(own uid) is refused CAP_SETUID and allowed as a no-op, root's is granted it)"
