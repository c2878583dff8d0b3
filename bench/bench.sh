#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench (in the VM): per-op cost of open/close, create/unlink,
# fork+exec, ioctl and setuid (the capable hook) loops, as ratios against the same loops with no security program
# of ours loaded, all measured in this one run on a tmpfs.
# Emulation drifts over minutes, so the configurations take turns: each round
# measures the baseline and then every configuration once, each ratio is
# taken against its own round's baseline, and the median over the rounds is
# printed.
# With a second argument "icount" the guest's clock counts instructions
# (tests/vm/vm.sh, VM_ICOUNT=1): the figures are instruction counts, steady
# from run to run; "wall" is emulated wall-clock time, which drifts.
set -u
# Later arguments NAME=VALUE set ROUNDS, N_OPEN, N_CREATE, N_EXEC or N_SYS (an empty
# VALUE keeps the default): the environment does not reach the VM's guest.
repo=${1:-/work/main} clock=${2:-wall}
shift 2 2>/dev/null || shift $#
for a in "$@"; do
	case $a in
	ROUNDS=?*|N_OPEN=?*|N_CREATE=?*|N_EXEC=?*|N_SYS=?*) export "${a%%=*}=${a#*=}" ;;
	ROUNDS=|N_OPEN=|N_CREATE=|N_EXEC=|N_SYS=) ;;
	*) echo "bench: unknown argument $a" >&2; exit 2 ;;
	esac
done
AC=$repo/build/agentcage LOOPS=$repo/build/bench-loops FLOOR=$repo/build/bench-floor
D=$(mktemp -d /run/bench.XXXXXX); cd "$D"   # /run is a tmpfs in the VM
# A caged agent of a root caller runs as nobody, with the built-in seccomp
# filter: the directory is its own. (Its setuid calls are then refused by
# the capability module before any BPF program runs; the cap column of (b)
# and (c) measures that path. (a) is root, whose calls reach ours.)
chown 65534:65534 "$D"
N_OPEN=${N_OPEN:-20000} N_CREATE=${N_CREATE:-10000} N_EXEC=${N_EXEC:-200} N_SYS=${N_SYS:-20000} ROUNDS=${ROUNDS:-7}

# a 1,000-entry policy that still grants what the loops need
{
	echo "name: bench"; echo "files:"; echo "  read: [/usr, /lib, /lib64, /etc, /dev/null, $LOOPS]"
	echo "  write:"; echo "    - $D"
	for i in $(seq 1 996); do echo "    - /srv/bench/project-$i/src"; done
	echo "exec:"; echo "  allow: [/usr/bin, /usr/lib, $LOOPS, $D/true]"
} > policy.yaml
sed 's/^name: bench/name: bench\nmode: audit/' policy.yaml > audit.yaml

# The exec loop runs a static busybox (as "true") from this tmpfs: a program
# read through the host's 9p share would measure the host's disk, and under
# icount the time the guest spends idle, waiting for it.
cp /bin/busybox "$D/true" || { echo "bench: busybox-static is needed" >&2; exit 1; }
# (an argument: agentcage run passes no such variable into the cage, and
# the caged loops once ran /usr/bin/true from the share instead)

loops() { "$@" $LOOPS --exec "$D/true" "${LOOPS_OPT[@]}" all $N_OPEN $N_CREATE $N_EXEC $N_SYS "$D"; }
# settled: no agentcage process is left (a guard detaches the programs
# after its run has returned; zombies have already detached)
settled() { local f comm st busy
	for _ in $(seq 600); do
		busy=
		for f in /proc/[0-9]*/stat; do
			read -r _ comm st _ 2>/dev/null < "$f" || continue
			if [ "$comm" = "(agentcage)" ] && [ "$st" != Z ]; then busy=1; break; fi
		done
		[ -z "$busy" ] && return 0
		sleep 0.1
	done
	return 1; }
in_cage() { for _ in $(seq 600); do cat /sys/fs/cgroup/agentcage/*/cgroup.procs 2>/dev/null | grep -q . && return 0; sleep 0.1; done; return 1; }
AA=
if command -v apparmor_parser >/dev/null && grep -q apparmor /sys/kernel/security/lsm; then
	cat > aa.profile <<P
profile agentcage-bench flags=(attach_disconnected) {
  /usr/** rmix, /lib/** rm, /lib64/** rm, /etc/** r, /dev/null rw,
  $D/ rw, $D/** rwl, $D/true rix, $LOOPS rix,
  capability,
}
P
	apparmor_parser -r aa.profile 2>/dev/null && AA=1
fi
# run CONFIG: one line "open create exec ioctl cap" (ns per op) for that configuration
run() {
	LOOPS_OPT=()
	case $1 in
	base) loops ;;
	a) $AC run --policy policy.yaml -- /bin/sleep 100000 >/dev/null 2>&1 & local cage=$!
	   in_cage || { echo "bench: the cage did not start" >&2; exit 1; }
	   loops; kill $cage; wait $cage 2>/dev/null; settled ;;
	b) loops $AC run --policy policy.yaml --; settled ;;
	c) loops $AC run --policy audit.yaml --; settled ;;
	d) coproc FL { $FLOOR; }; read -r _ <&"${FL[0]}"
	   loops; eval "exec ${FL[1]}>&-"; wait $FL_PID 2>/dev/null ;;
	ll) LOOPS_OPT=(--landlock "$D"); loops ;;
	cg) loops /bin/sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" ;;
	aa) loops aa-exec -p agentcage-bench -- ;;
	esac
}
# A cgroup as deep as a cage's (<cgroup2>/agentcage/NAME-PID), with no program
# attached: what being in a cgroup of one's own costs, without agentcage
mkdir -p /sys/fs/cgroup/bench-plain/cage && CG=/sys/fs/cgroup/bench-plain/cage
CONFIGS="base a b c d ll"; [ -n "$AA" ] && CONFIGS="$CONFIGS aa"; CONFIGS="$CONFIGS cg"
label() { case $1 in
	base) echo "baseline (no agentcage programs)" ;;
	a) echo "(a) uncaged, while a cage is active" ;;
	b) echo "(b) caged, allowed accesses, 1000 rules" ;;
	c) echo "(c) caged, audit mode, 1000 rules" ;;
	d) echo "(d) floor: empty BPF LSM programs" ;;
	ll) echo "(e) Landlock" ;;
	aa) echo "(e) AppArmor" ;;
	cg) echo "(f) a cgroup of a cage's depth, no programs" ;;
	esac; }

: > results.txt
# warm up (page cache, the emulator's translation cache) before anything counts
run base >/dev/null; run b >/dev/null
for r in $(seq 1 $ROUNDS); do
	for c in $CONFIGS; do
		v=$(run $c) || { echo "bench: $(label $c) failed" >&2; exit 1; }
		echo "$r $c $v" >> results.txt
	done
	echo "round $r of $ROUNDS done" >&2
done

# the median of a[1..n], for the awk reports below
MED='function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }'
if [ "$clock" = icount ]; then
	echo "guest clock: instructions (-icount shift=0: 1 ns = 1 instruction); ns below = instructions"
else
	echo "guest clock: emulated wall-clock time"
fi
echo "ns per op, median of $ROUNDS rounds:"
COLS="open create exec ioctl cap"
printf '%-44s'; printf ' %8s' $COLS; echo
for c in $CONFIGS; do
	awk -v c=$c -v l="$(label $c)" "$MED"'
	$2 == c {n++; for (i = 3; i <= NF; i++) v[i, n] = $i; nf = NF}
	END {printf "%-44s", l; for (i = 3; i <= nf; i++) {for (j = 1; j <= n; j++) a[j] = v[i, j]; printf " %8d", med(a, n)}; print ""}' results.txt
done
[ -z "$AA" ] && echo "(e) AppArmor: not measured (apparmor_parser missing, AppArmor inactive or the profile did not load)"
echo
echo "ratios against the baseline of the same round (1.00 = no cost), median of $ROUNDS rounds:"
printf '%-44s'; printf ' %8s' $COLS; echo
for c in $CONFIGS; do
	[ $c = base ] && continue
	awk -v c=$c -v l="$(label $c)" "$MED"'
	$2 == "base" {for (i = 3; i <= NF; i++) b[$1, i] = $i}
	$2 == c {n++; for (i = 3; i <= NF; i++) v[i, n] = $i / b[$1, i]; nf = NF}
	END {printf "%-44s", l; for (i = 3; i <= nf; i++) {for (j = 1; j <= n; j++) a[j] = v[i, j]; printf " %8.3f", med(a, n)}; print ""}' results.txt
done
awk -v cols="$COLS" '$2 == "base" {nf = NF; for (i = 3; i <= NF; i++) {if (!((i) in lo) || $i < lo[i]) lo[i] = $i; if ($i > hi[i]) hi[i] = $i}}
	END {split(cols, name, " "); printf "\nnoise: the baseline varied between rounds by"
		for (i = 3; i <= nf; i++) printf " %.2fx (%s)%s", hi[i]/lo[i], name[i-2], i < nf ? "," : "\n"}' results.txt
awk -v cols="$COLS" "$MED"'
	$2 == "a" {for (i = 3; i <= NF; i++) av[$1, i] = $i}
	$2 == "d" {n++; nf = NF; for (i = 3; i <= NF; i++) v[i, n] = av[$1, i] / $i}
	END {if (!n) exit; split(cols, name, " "); printf "(a) against the floor (d) of the same round:"
		for (i = 3; i <= nf; i++) {for (j = 1; j <= n; j++) a[j] = v[i, j]; printf " %s %.3f%s", name[i-2], med(a, n), i < nf ? "," : ""}
		print " (target: within 1.02)"}' results.txt

# Where the caged cost goes: the kernel's own count of the time spent in each
# program (bpf_stats), over one more caged run of the loops. Timing every
# call has a cost of its own, so this run is not one of the rounds above.
if command -v bpftool >/dev/null; then
	sysctl -q kernel.bpf_stats_enabled=1
	rm -f "$D/stats-done"
	$AC run --policy policy.yaml -- /bin/sh -c \
		"$LOOPS all $N_OPEN $N_CREATE $N_EXEC $N_SYS $D > $D/stats-out; touch $D/stats-done; exec sleep 1000" & cage=$!
	while [ ! -e "$D/stats-done" ] && kill -0 $cage 2>/dev/null; do sleep 0.2; done
	echo
	echo "(b) time in each program per call, from bpf_stats (ns; includes the timing itself):"
	bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("name", "").startswith("ac_") and p.get("run_cnt"):
        print("  %-24s %9d calls %8.0f ns" % (p["name"], p["run_cnt"], p["run_time_ns"] / p["run_cnt"]))'
	kill $cage; wait $cage 2>/dev/null; settled
	sysctl -q kernel.bpf_stats_enabled=0
fi
