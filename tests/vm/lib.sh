# SPDX-License-Identifier: GPL-2.0-only
# The end-to-end suites' shared helpers (sourced by e2e.sh and e2e-one.sh):
# $AC, $EV, $T (the current directory), $H (test helper programs, built from
# tests/vm/helpers/*.c), ok/no/expect/started/caged/event.
repo=${repo:-/work/main}
AC=$repo/build/agentcage
EV=$repo/tests/vm/events.py
H=$repo/build/vmtest
T=$(mktemp -d /tmp/e2e.XXXXXX)
cd "$T"   # the default policy grants write to the current directory
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && echo "       ${2:0:400}"; }
# expect NAME WANT_STATUS CMD...: run CMD, compare its exit status
expect() { local name=$1 want=$2; shift 2; local out; out=$("$@" 2>&1); local st=$?
	if [ "$st" = "$want" ]; then ok "$name"; else no "$name" "status $st, want $want: $(echo "$out" | tail -n 3)"; fi; }
# started FILE: wait (up to 30 s) until a caged loop has written its first line to FILE
started() { for _ in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
# caged [GLOB]: wait until a cage (whose cgroup name matches GLOB, NAME-PID) has a task in it
# (or in a run's cgroup under it: a daemon's cage)
caged() { for _ in $(seq 300); do cat /sys/fs/cgroup/agentcage/${1:-*}/cgroup.procs \
	/sys/fs/cgroup/agentcage/${1:-*}/*/cgroup.procs 2>/dev/null | grep -q . && return 0; sleep 0.1; done; return 1; }
# event NAME FILE K=V...: an event matching K=V is in FILE
event() { local name=$1; shift; local out; if out=$(python3 "$EV" "$@" 2>&1); then ok "$name"; else no "$name" "$out"; fi; }

# suite_daemon: from here on, this suite's `agentcage run --policy` goes
# through a daemon of the suite's own ($AGENTCAGE_SOCKET), into an ephemeral
# cage NAME-PID in the daemon's one set of programs. Under TCG a standalone
# run spends about 5 s loading its programs and 9 s detaching them (an RCU
# tasks grace period a hook, serialised with the next run's attach); this
# way the suite loads them once. The same programs decide, so what a check
# proves about a policy holds; a check about the standalone run itself
# (its pins, sweep, guard, -v counts) says --standalone. e2e-one.sh stops the
# daemon and removes its pins when the suite ends.
suite_daemon() {
	SD=/run/ac-suite-$$
	mkdir -p $SD/pol
	export AGENTCAGE_SOCKET=$SD/ac.sock
	$AC daemon --policy-dir $SD/pol --socket $AGENTCAGE_SOCKET > $SD/d.out 2>&1 & SD_PID=$!
	for _ in $(seq 600); do [ -S $AGENTCAGE_SOCKET ] && return 0; sleep 0.1; done
	no "the suite's daemon answers at $AGENTCAGE_SOCKET" "$(cat $SD/d.out)"
}
suite_daemon_stop() {
	[ -n "${SD_PID:-}" ] || return 0
	kill $SD_PID; wait $SD_PID
	rm -rf /sys/fs/bpf/agentcage/daemon $SD
	unset AGENTCAGE_SOCKET SD_PID
}
