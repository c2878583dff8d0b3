#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench (in the VM, after bench.sh): the daemon's measurements.
#  1. Reload latency of a RULES-rule policy. A probe (bench-loops probe) in
#     the cage polls, every POLL_US us, a file the new policy grants and the
#     old one denies, and prints the time it first opens. "rename": from the
#     rename of the new file over the old one in the policy directory (the
#     way editors save; inotify starts the reload) to that first open.
#     "reload": `agentcage reload NAME` of a cage whose file (a symlink to a
#     file outside the watched directory, so that inotify does not start the
#     reload first) was replaced: the client's time to its acknowledgement,
#     and the probe's first open, both from the client's start; and the same
#     client when nothing changed (the client's own cost). RELOADS
#     alternations of two policies; medians.
#  2. CAGES cages at once (small policies, one file each), ROUNDS times: the
#     daemon's startup time (its start to its socket, which it opens once
#     every cage is installed), the memlock of its pinned maps (bpftool), the
#     kernel memory grown meanwhile (/proc/meminfo), its VmRSS and VmHWM, and
#     the acknowledgement of `agentcage reload` (all files, none changed).
#  3. In the same rounds, bench.sh's method: open/close and create/unlink
#     loops of an uncaged process with no program of ours (the baseline), with
#     the empty LSM programs (the floor) and with the daemon's CAGES cages;
#     ratios against the round's baseline, medians.
# The second argument "icount": the guest's clock counts instructions
# (1 us = 1,000 instructions); "wall": emulated wall-clock time.
set -u
# Later arguments NAME=VALUE set ROUNDS, RELOADS, RULES, CAGES, POLL_US, NOFILE, N_OPEN,
# N_CREATE or N_SYS (an empty VALUE keeps the default): the environment does not
# reach the VM's guest.
repo=${1:-/work/main} clock=${2:-wall}
shift 2 2>/dev/null || shift $#
for a in "$@"; do
	case $a in
	ROUNDS=?*|RELOADS=?*|RULES=?*|CAGES=?*|POLL_US=?*|NOFILE=?*|N_OPEN=?*|N_CREATE=?*|N_SYS=?*) export "${a%%=*}=${a#*=}" ;;
	ROUNDS=|RELOADS=|RULES=|CAGES=|POLL_US=|NOFILE=|N_OPEN=|N_CREATE=|N_SYS=) ;;
	*) echo "daemon-bench: unknown argument $a" >&2; exit 2 ;;
	esac
done
ROUNDS=${ROUNDS:-5} RELOADS=${RELOADS:-9} RULES=${RULES:-10000} CAGES=${CAGES:-1000}
POLL_US=${POLL_US:-1000} NOFILE=${NOFILE:-8192} N_OPEN=${N_OPEN:-20000} N_CREATE=${N_CREATE:-10000}
N_SYS=${N_SYS:-20000}
D=$(mktemp -d /run/dbench.XXXXXX); cd "$D"   # /run is a tmpfs in the VM
# The programs timed run from this tmpfs: a page read through the host's 9p
# share leaves the guest idle, and an idle guest's clock under icount jumps
# to its next timer (the daemon's 5 s epoll timeout), seconds at a time.
cp "$repo/build/agentcage" "$repo/build/bench-loops" "$D/" || exit 1
AC=$D/agentcage LOOPS=$D/bench-loops FLOOR=$repo/build/bench-floor
# Their libraries and the files they read at start come from the 9p share
# too: touching them copies them up into the guest's tmpfs overlay, from
# where they are read ever after.
touch -c $(ldd "$AC" "$LOOPS" | grep -o '/[^ ]*' | sort -u) /etc/ld.so.cache /etc/group \
	/etc/passwd /etc/nsswitch.conf 2>/dev/null
SOCK=$D/ac.sock CGROOT=/sys/fs/cgroup/agentcage
fail() { echo "daemon-bench: $*" >&2; [ -s "$D/daemon.err" ] && tail -n 5 "$D/daemon.err" >&2
	cp "$D/results.txt" /results/daemon-bench-results.txt 2>/dev/null; exit 1; }
# a sleep with no fork (a fork costs the single vCPU what it measures)
mkfifo nap.fifo; exec {NAP}<> nap.fifo
nap() { read -t "$1" -u $NAP; }
# The guest's idle time so far, in 10 ms ticks (/proc/stat idle + iowait).
# An idle guest's clock under icount jumps to its next timer: the time a
# span spent idle (waiting: for RCU grace periods, or for the host's 9p
# share) is not instructions, and is printed beside it.
idle() { local _c u n s i w; read -r _c u n s i w _ < /proc/stat; IDLE=$((i + w)); }
MED='function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }'
# median, min and max of field F of the lines of results.txt whose first
# field is K; with I, the median of the idle time (last field, ticks) too
stat3() { awk -v k="$1" -v f="$2" -v i="${3:-}" "$MED"'$1 == k {n++; a[n] = $f; d[n] = $NF * 10000; if (n == 1 || $f < lo) lo = $f; if ($f > hi) hi = $f}
	END {if (n) printf "%.0f (%.0f-%.0f)", med(a, n), lo, hi; else printf "-"; if (n && i) printf ", of which idle %.0f", med(d, n)}' results.txt; }

[ -e /sys/fs/bpf/agentcage/daemon ] && fail "a daemon's pins exist already (/sys/fs/bpf/agentcage/daemon)"
DPID= PINS=
# start_daemon DIR: starts it; STARTUP = us from its start to its socket
start_daemon() {
	local t0 t1
	rm -f "$SOCK"
	idle; I0=$IDLE
	t0=${EPOCHREALTIME/./}
	# The daemon holds about 3.6 descriptors per cage and does not raise its
	# limit: under the usual soft limit of 1,024 (systemd's default too) it
	# stops at 284 cages with EMFILE. It runs as under LimitNOFILE=NOFILE.
	( ulimit -n $NOFILE && exec $AC daemon --policy-dir "$1" --socket "$SOCK" > /dev/null 2> "$D/daemon.err" ) &
	DPID=$!
	until [ -S "$SOCK" ]; do kill -0 $DPID 2>/dev/null || fail "the daemon did not start"; nap 0.01; done
	t1=${EPOCHREALTIME/./}
	idle; STARTUP="$((t1 - t0)) $((IDLE - I0))"   # us, idle ticks
	$AC --json ls --socket "$SOCK" > ls.json || fail "ls failed"
	# the daemon's "pins" (each cage has its own too, .../cage-NAME); json-c writes \/
	PINS=$(grep -o '"pins": *"[^"]*"' ls.json | sed 's/.*: *"//; s/"$//; s/\\\//\//g' | grep -v '/cage-[^/]*$' | head -n1)
	[ -d "$PINS" ] || fail "no pins directory in ls: $PINS"
}
# stop_daemon: the daemon, its pins and its cages' cgroups go (as e2e-daemon.sh cleans up)
stop_daemon() {
	local c
	kill $DPID; wait $DPID 2>/dev/null
	rm -rf "$PINS" || fail "cannot remove $PINS"
	[ -e "$PINS" ] && fail "$PINS is still there: $(ls "$PINS" | head)"
	for c in "$CGROOT"/db*; do
		[ -d "$c" ] || continue
		echo 1 > "$c/cgroup.kill" 2>/dev/null; rmdir "$c" 2>/dev/null || { nap 0.2; rmdir "$c"; }
	done
	nap 1   # the kernel frees the programs and maps after an RCU grace period
}
us_line() { [ "$clock" = icount ] && echo "us (instructions / 1,000)" || echo "us (emulated wall clock)"; }

: > results.txt
echo a > a; echo b > b
# ---- 1. reload latency --------------------------------------------------------
# big NAME FILE: a RULES-entry policy that reads FILE (and what a probe needs)
big() {
	echo "name: $1"; echo "files:"; echo "  read: [/usr, /lib, /lib64, /etc, $2]"
	echo "  write:"; seq -f '    - /srv/bench/project-%g/src' 1 $((RULES - 5))
}
mkdir -p pol ackdir
for x in a b; do big dbrl "$D/$x" > rl-$x.yaml; big dback "$D/$x" > ack-$x.yaml; done
cp rl-a.yaml pol/rl.yaml; cp ack-a.yaml ackdir/ack.yaml; ln -s "$D/ackdir/ack.yaml" pol/ack.yaml
start_daemon pol
echo "startup $STARTUP" >> results.txt
nrules=$(grep -o '"file_rules": *[0-9]*' ls.json | head -n1 | grep -o '[0-9]*$')
# probe NAME: a probe, loaded outside, then moved into cage NAME
probe() {
	coproc PR { exec $LOOPS probe $POLL_US 2>/dev/null; }
	read -r -t 120 -u ${PR[0]} l && [ "$l" = ready ] || fail "the probe did not start"
	echo $PR_PID > "$CGROOT/$1/cgroup.procs" || fail "cannot move the probe into $1"
}
# first FILE: the probe's first open of FILE; T (us), FAILS
first() {
	echo "$1" >&${PR[1]}
	read -r -t 300 -u ${PR[0]} T FAILS || fail "the probe never opened $1"
}
probe dbrl
first "$D/a"   # policy a is in force
cur=a
for r in $(seq 1 $RELOADS); do
	nxt=$([ $cur = a ] && echo b || echo a)
	cp rl-$nxt.yaml pol/.rl.yaml.tmp         # not *.yaml: no reload yet
	echo "$D/$nxt" >&${PR[1]}                 # the probe polls it: denied until the switch
	nap 0.05
	idle; i0=$IDLE
	$LOOPS rename pol/.rl.yaml.tmp pol/rl.yaml > t0 || fail "rename"
	read -r -t 300 -u ${PR[0]} T FAILS || fail "the probe never saw policy $nxt"
	read -r t0 < t0; idle
	[ "$T" -ge "$t0" ] || fail "the probe opened $D/$nxt before the rename (policy $cur still in force)"
	echo "rename $((T - t0)) $FAILS $((IDLE - i0))" >> results.txt
	$AC ls --socket "$SOCK" > /dev/null || fail "ls"   # the daemon is idle again
	cur=$nxt
done
eval "exec ${PR[1]}>&-"; wait $PR_PID 2>/dev/null
probe dback
first "$D/a"
cur=a
for r in $(seq 1 $RELOADS); do
	nxt=$([ $cur = a ] && echo b || echo a)
	cp ack-$nxt.yaml ackdir/.tmp && mv ackdir/.tmp ackdir/ack.yaml   # outside the watched directory
	echo "$D/$nxt" >&${PR[1]}
	nap 0.05
	idle; i0=$IDLE
	t0=${EPOCHREALTIME/./}
	$AC reload --socket "$SOCK" dback > ack.out 2>&1 || fail "reload: $(cat ack.out)"
	t1=${EPOCHREALTIME/./}
	read -r -t 300 -u ${PR[0]} T FAILS || fail "the probe never saw policy $nxt"
	grep -q reloaded ack.out || fail "reload did not reload: $(cat ack.out)"
	idle; i1=$IDLE
	t2=${EPOCHREALTIME/./}
	$AC reload --socket "$SOCK" dback > ack.out 2>&1 || fail "reload: $(cat ack.out)"
	t3=${EPOCHREALTIME/./}
	idle
	echo "ack $((t1 - t0)) $((T - t0)) $FAILS $((i1 - i0))" >> results.txt
	echo "noop $((t3 - t2)) $((IDLE - i1))" >> results.txt
	cur=$nxt
done
eval "exec ${PR[1]}>&-"; wait $PR_PID 2>/dev/null
stop_daemon
echo "reloads done" >&2

# ---- 2 and 3. CAGES cages ------------------------------------------------------
# Each file of the directory is a symlink to one in many-src, which inotify
# does not watch: `agentcage reload` then meets all of them changed at once.
mkdir -p many many-src
for i in $(seq -f %04g 1 $CAGES); do
	printf 'name: dbc%s\nfiles:\n  read: [/usr, /lib, /lib64, /etc, /srv/db/%s]\n  write: [/tmp/db/%s]\nexec:\n  allow: [/usr/bin]\n' \
		$i $i $i > many-src/c$i.yaml
	ln -s "$D/many-src/c$i.yaml" many/c$i.yaml
done
# The loops run on a tmpfs of their own. The daemon's inotify watch on its
# policy directory (here on $D's tmpfs) makes every open and close on that
# file system call fsnotify (__fsnotify_parent; the last ratio shows it),
# which is the kernel's cost of any watch there, not the programs'; on a
# real root file system some watch is always there, in the baseline too.
# Two more loops per round run beside the policy directory, one with no
# daemon ("basefs") and one with it ("samefs"): the watch's cost apart.
mkdir -p loopfs && mount -t tmpfs -o size=64m bench-loops loopfs || fail "cannot mount a tmpfs"
L=$D/loopfs
loops() { echo "$($LOOPS open $N_OPEN "${1:-$L}") $($LOOPS create $N_CREATE "${1:-$L}")"; }
# kernel memory in kB: unreclaimable slab, per-CPU and vmalloc (not the
# reclaimable slab, dentries and inodes, nor drop_caches, which would send
# the next exec through 9p again)
kmem() { awk '/^(SUnreclaim|Percpu|VmallocUsed):/ {s += $2} END {print s}' /proc/meminfo; }
loops > /dev/null   # warm up
for r in $(seq 1 $ROUNDS); do
	echo "loop $r base $(loops)" >> results.txt
	echo "loop $r basefs $(loops "$D")" >> results.txt
	coproc FL { exec $FLOOR; }; read -r fl <&"${FL[0]}"
	[ "${fl%% *}" = attached ] || fail "the floor did not load"
	[ $r = 1 ] && echo "floorinfo $fl" >> results.txt
	echo "loop $r floor $(loops)" >> results.txt
	eval "exec ${FL[1]}>&-"; wait $FL_PID 2>/dev/null
	k0=$(kmem)
	start_daemon many
	n=$(grep -o '"name": *"dbc' ls.json | wc -l)
	[ "$n" = "$CAGES" ] || fail "$n cages of $CAGES"
	echo "loop $r daemon $(loops)" >> results.txt
	echo "loop $r samefs $(loops "$D")" >> results.txt
	k1=$(kmem)
	ml=0
	for m in "$PINS"/map-*; do
		b=$(bpftool -j map show pinned "$m" | grep -o '"bytes_memlock": *[0-9]*' | grep -o '[0-9]*$')
		ml=$((ml + ${b:-0}))
		[ $r = 1 ] && echo "map ${m##*/} $b" >> results.txt
	done
	idle; i0=$IDLE
	t0=${EPOCHREALTIME/./}
	$AC reload --socket "$SOCK" > ack.out 2>&1 || fail "reload: $(tail -n 3 ack.out)"
	t1=${EPOCHREALTIME/./}
	idle; echo "reloadall $((t1 - t0)) $((IDLE - i0))" >> results.txt
	# every file changed (one path more, then one less, by turns): each
	# cage switches; one grace period for them all before the old rules go
	for f in many-src/*.yaml; do
		if [ $((r % 2)) = 1 ]; then sed -i 's|^  write: \[\(/tmp/db/[0-9]*\)\]$|  write: [\1, \1-b]|' $f
		else sed -i 's|, /tmp/db/[0-9]*-b\]$|]|' $f; fi
	done
	idle; i0=$IDLE
	t0=${EPOCHREALTIME/./}
	$AC reload --socket "$SOCK" > ack.out 2>&1 || fail "reload: $(tail -n 3 ack.out)"
	t1=${EPOCHREALTIME/./}
	idle
	[ "$(grep -c reloaded ack.out)" = "$CAGES" ] || fail "not every cage reloaded: $(grep -v reloaded ack.out | head -n 3)"
	echo "reloadchanged $((t1 - t0)) $((IDLE - i0))" >> results.txt
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$DPID/status) hwm=$(awk '/^VmHWM/ {print $2}' /proc/$DPID/status)
	echo "many $ml $((k1 - k0)) $rss $hwm $(ls "$PINS" | grep -c '^map-') 0" >> results.txt
	echo "manystart $STARTUP" >> results.txt
	stop_daemon
	echo "round $r of $ROUNDS done" >&2
done

# Where the uncaged open/close's cost goes: the kernel's count of the time in
# each program (bpf_stats) over one more uncaged loop with the CAGES cages.
# Timing every call has a cost of its own: not one of the rounds above.
# The same for the ioctl loop (FIONREAD on a pipe: file_ioctl) and the setuid
# loop (CAP_SETUID: capable), N_SYS calls each, counted apart: the
# programs' counts are read before and after each loop.
start_daemon many
sysctl -q kernel.bpf_stats_enabled=1
for l in open ioctl cap; do
	bpftool prog show -j > progs-$l-0.json
	n=$N_SYS; [ $l = open ] && n=$N_OPEN
	$LOOPS $l $n "$L" > /dev/null || fail "the $l loop failed"
	bpftool prog show -j > progs-$l.json
done
sysctl -q kernel.bpf_stats_enabled=0
stop_daemon

# ---- report ---------------------------------------------------------------------
[ "$clock" = icount ] && echo "guest clock: instructions (-icount shift=0): 1 us below = 1,000 instructions" \
	|| echo "guest clock: emulated wall-clock time"
echo "reload latency, $nrules file rules in the policy (ls: file_rules), $RELOADS alternations, probe every $POLL_US us;"
echo "median (min-max) in $(us_line):"
echo "  rename over the file -> the probe's first open:    $(stat3 rename 2 i)  (failed tries: $(stat3 rename 3))"
echo "  agentcage reload NAME, start -> acknowledgement:    $(stat3 ack 2 i)"
echo "  agentcage reload NAME, start -> the probe's open:   $(stat3 ack 3 i)"
echo "  agentcage reload NAME, nothing changed (client):   $(stat3 noop 2 i)"
echo "  daemon startup with these two cages:                $(stat3 startup 2 i)"
echo
echo "$CAGES cages (small policies), $ROUNDS rounds, the daemon's descriptor limit $NOFILE, median (min-max):"
echo "  daemon startup, $(us_line):  $(stat3 manystart 2 i)"
echo "  memlock of its $(awk '$1 == "many" {print $6; exit}' results.txt) pinned maps (bpftool), bytes:  $(stat3 many 2)"
echo "  kernel memory grown, SUnreclaim+Percpu+VmallocUsed, kB: $(stat3 many 3)"
echo "  daemon VmRSS, kB:  $(stat3 many 4)   VmHWM, kB: $(stat3 many 5)"
echo "  agentcage reload (all $CAGES files, none changed), start -> acknowledgement, $(us_line): $(stat3 reloadall 2 i)"
echo "  agentcage reload (all $CAGES files changed), start -> acknowledgement, $(us_line): $(stat3 reloadchanged 2 i)"
echo "  the largest pinned maps (memlock, bytes):"
sort -k3 -rn results.txt | awk '$1 == "map" {printf "    %-28s %12d\n", $2, $3}' | head -n 8
echo
echo "uncaged loops, ns per op, median of $ROUNDS rounds (open/close, create/unlink):"
for c in base floor daemon basefs samefs; do
	awk -v c=$c "$MED"'$1 == "loop" && $3 == c {n++; o[n] = $4; k[n] = $5}
	END {printf "  %-44s %8d %8d\n", c, med(o, n), med(k, n)}' results.txt
done
echo "(the floor: empty programs, $(awk '$1 == "floorinfo" {print $3, $4, $5; exit}' results.txt) hooks of agentcage's objects)"
echo "ratios against the same round's baseline, median of $ROUNDS rounds:"
for c in floor daemon; do
	awk -v c=$c "$MED"'$1 == "loop" && $3 == "base" {bo[$2] = $4; bk[$2] = $5}
	$1 == "loop" && $3 == c {n++; o[n] = $4 / bo[$2]; k[n] = $5 / bk[$2]}
	END {printf "  %-44s %8.3f %8.3f\n", c, med(o, n), med(k, n)}' results.txt
done
awk "$MED"'$1 == "loop" && $3 == "floor" {fo[$2] = $4; fk[$2] = $5}
	$1 == "loop" && $3 == "daemon" {n++; o[n] = $4 / fo[$2]; k[n] = $5 / fk[$2]}
	END {printf "  daemon against the floor of the same round:  %8.3f %8.3f  (target: within 1.02)\n", med(o, n), med(k, n)}' results.txt
awk "$MED"'$1 == "loop" && $3 == "basefs" {fo[$2] = $4; fk[$2] = $5}
	$1 == "loop" && $3 == "samefs" {n++; o[n] = $4 / fo[$2]; k[n] = $5 / fk[$2]}
	END {printf "  beside its watched policy directory, against no daemon there:  %8.3f %8.3f\n", med(o, n), med(k, n)}' results.txt
awk '$1 == "loop" && $3 == "base" {if (!lo || $4 < lo) lo = $4; if ($4 > hi) hi = $4}
	END {printf "noise: the baseline open/close varied between rounds by %.3fx\n", hi / lo}' results.txt
echo
echo "uncaged loops with the $CAGES cages, time in each program per call, from bpf_stats"
echo "(ns; includes the timing itself; the calls of the whole guest during each loop):"
for l in open ioctl cap; do
	n=$N_SYS; [ $l = open ] && n=$N_OPEN
	echo " $l, $n calls:"
	python3 -c '
import json, sys
before = {p["id"]: p for p in json.load(open(sys.argv[1]))}
for p in json.load(open(sys.argv[2])):
    b = before.get(p["id"], {})
    n = p.get("run_cnt", 0) - b.get("run_cnt", 0)
    t = p.get("run_time_ns", 0) - b.get("run_time_ns", 0)
    if n > 0:
        print("  %-24s %9d calls %8.0f ns" % (p.get("name", "?"), n, t / n))' progs-$l-0.json progs-$l.json
done
cp results.txt /results/daemon-bench-results.txt 2>/dev/null
umount "$L" 2>/dev/null
exit 0
