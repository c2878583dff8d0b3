#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# End-to-end tests of agentcage against a real BPF LSM kernel. Runs as root
# inside the test VM (tests/vm/vm.sh test); every case runs real programs.
#
# Every tests/vm/e2e-*.sh file is a suite (e2e-one.sh runs one alone);
# e2e.sh REPO [SUITE...] runs the ones named (default: all), one after the
# other, each printed whole when it ends. vm.sh test spreads the suites over
# several one-CPU VMs instead of running them in parallel in one: under TCG a
# trampoline patch on one virtual CPU while another runs the patched hook
# has locked both up (bpf_lsm_mmap_file, seen twice with two lanes).
# Suites that assert about global state (no pin or cage left anywhere) are
# listed in $ALONE and run after the others, alone.
set -u
repo=${1:-/work/main}
shift 2>/dev/null
LANES=${LANES:-1}
ALONE="e2e-baseline-alive.sh"
# the logs go to the host's results directory when there is one (vm.sh's
# VM_OUT, build/vm/out): a suite's progress can be read there while it runs
if [ -d /results ] && [ -w /results ]; then logs=/results/e2e-logs; rm -rf "$logs"; mkdir -p "$logs"
else logs=$(mktemp -d /tmp/e2e-logs.XXXXXX); fi
# a kernel that locks up fails the run at once, with its stack on the console
echo 5 > /proc/sys/kernel/printk
sysctl -q kernel.softlockup_panic=1 kernel.hung_task_panic=1 kernel.hung_task_timeout_secs=300
export repo logs

# one SUITE: run it, then print its log whole (under a lock: lanes end at once)
suite() {
	local f=$1 t0=$SECONDS
	echo "# $f: started" >&2
	bash "$repo/tests/vm/e2e-one.sh" "$repo" "tests/vm/$f" > "$logs/$f.log" 2>&1
	echo "# $f: exit $?, $((SECONDS - t0)) s" >> "$logs/$f.log"
	flock "$logs/.lock" cat "$logs/$f.log"
}
export -f suite

if [ $# -gt 0 ]; then all="$*"; else all=$(cd "$repo/tests/vm" && ls e2e-*.sh | grep -vx e2e-one.sh); fi
order= alone=
for f in $all; do case " $ALONE " in *" $f "*) alone="$alone $f";; *) order="$order $f";; esac; done
printf '%s\n' $order | xargs -r -P "$LANES" -I{} bash -c 'suite {}'
for f in $alone; do suite "$f"; done

pass=0 fail=0
for f in $order $alone; do
	line=$(grep -a "^vm-e2e (tests/vm/$f): " "$logs/$f.log" | tail -n 1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		pass=$((pass + BASH_REMATCH[1])); fail=$((fail + BASH_REMATCH[2]))
	else
		fail=$((fail + 1)); echo "FAIL - $f ended without its summary line"
	fi
done
left=$(find /sys/fs/cgroup/agentcage -mindepth 1 -type d)
if [ -z "$left" ]; then pass=$((pass + 1)); echo "ok   - no cage cgroup is left behind"
else fail=$((fail + 1)); echo "FAIL - no cage cgroup is left behind: $left"; fi
grep -ah "^# e2e-.*: exit" "$logs"/*.log
echo "vm-e2e: $pass passed, $fail failed"
[ $fail = 0 ]
