#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo scenario, run where BPF LSM works (the test VM or a real host).
repo=${1:-/work/main}
mkdir -p -m 700 /root/.ssh   # the attacker's target exists, as on most hosts
mkdir -p /tmp/agent-work && cd /tmp/agent-work
cp "$repo/tests/demo/agent.py" .        # the agent's code lives in its work directory
rm -f events.json
echo "== agentcage run --policy policies/python-runner.yaml -- python3 agent.py"
"$repo/build/agentcage" run --policy "$repo/policies/python-runner.yaml" --events /tmp/agent-work/events.json \
	-- /usr/bin/python3 agent.py
echo "== exit status: $?"
echo "== the same events as JSON lines (--events):"
cat /tmp/agent-work/events.json
