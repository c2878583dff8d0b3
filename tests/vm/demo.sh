#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make demo: run the demo here under BPF LSM if this kernel loads its
# programs; else here under the Landlock enforcer if both demo policies can
# start under it, with what differs printed first; else in the test VM.
set -u
AC=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
if lsm=$(cd /tmp && "$AC" run --enforcer bpf-lsm -- /bin/true 2>&1); then
	exec "$repo/tests/demo/demo-guest.sh" "$repo"
fi
lsm=${lsm#agentcage: error: }
echo "agentcage: BPF LSM cannot run cages here: $lsm"
# Landlock: each demo policy must start (python-runner's work directory
# must exist first: Landlock grants paths as they are at start)
mkdir -p /tmp/agent-work
why=""
for p in python-runner image-agent; do
	if ! out=$(cd /tmp && "$AC" run --enforcer landlock --accept-weaker \
			--policy "$repo/policies/$p.yaml" -- /usr/bin/python3 -c pass 2>&1 > /dev/null); then
		why="$p.yaml: $(echo "$out" | grep -m1 'error:' | sed 's/^agentcage: error: //')"
		break
	fi
done
if [ -z "$why" ]; then
	echo "agentcage: running the demo here under the Landlock enforcer; what it holds weaker than BPF LSM:"
	for p in python-runner image-agent; do
		echo "== agentcage check --enforcer landlock policies/$p.yaml (weaker and cannot rows)"
		"$AC" check --enforcer landlock "$repo/policies/$p.yaml" | grep -E '^  (weaker|cannot) '
	done
	echo "== (file refusals are EACCES under Landlock, with a DENY line only when kernel audit is on)"
	DEMO_RUN_OPTS="--enforcer landlock --accept-weaker" exec "$repo/tests/demo/demo-guest.sh" "$repo"
fi
echo "agentcage: nor can the Landlock enforcer: $why"
echo "agentcage: running the demo inside the test VM (Debian 6.1 kernel with BPF LSM, QEMU)"
exec "$repo/tests/vm/vm.sh" run "$repo/tests/demo/demo-guest.sh" "$repo"
