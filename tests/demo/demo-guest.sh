#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo's two scenarios, run where BPF LSM works (the test VM or a real
# host), as root: agentcage starts each agent as nobody. A refusal with an
# agentcage DENY line (EPERM) is the cage's; an EACCES without one is file
# permissions, which nobody's own uid already meets.
repo=${1:-/work/main}
AC=("$repo/build/agentcage")
PY=/usr/bin/python3            # Debian's, with python3-pil
EV=/tmp/agentcage-demo; rm -rf $EV; mkdir -p $EV
# agentcage's event lines go to an unbuffered stderr in pieces; line-buffered,
# each is one write, so the agent's own output cannot land inside one
AC=(stdbuf -eL "${AC[@]}")
# options of each run: DEMO_RUN_OPTS="--enforcer landlock --accept-weaker" (tests/vm/demo.sh)
read -r -a RUN_OPTS <<< "${DEMO_RUN_OPTS:-}"

echo "== 1. a code runner: policies/python-runner.yaml"
W=/tmp/agent-work
rm -rf $W /tmp/payload.sh; mkdir -p $W && chown nobody: $W    # its work directory is nobody's
install -m 644 "$repo/tests/demo/agent.py" $W/      # the agent's code lives there too
echo "== cd $W && agentcage run --policy policies/python-runner.yaml -- python3 agent.py"
(cd $W && "${AC[@]}" run "${RUN_OPTS[@]}" --policy "$repo/policies/python-runner.yaml" --events $EV/code-runner.json -- $PY agent.py)
st=$?
echo "== exit status: $st; /tmp/payload.sh $([ -e /tmp/payload.sh ] && echo exists || echo "does not exist")"

echo
echo "== 2. an image agent: policies/image-agent.yaml (Pillow; memory 100M, cpu 0.5, no network)"
J=/tmp/image-job
rm -rf $J /tmp/exfil.png; mkdir -p $J/out && chown nobody: $J/out   # the output directory is nobody's
install -m 644 "$repo/tests/demo/image-agent.py" $J/
# the input, made outside the cage: a 640x480 gradient, and a second photo the agent may not read
$PY -c 'from PIL import Image
im = Image.new("RGB", (640, 480))
im.putdata([(x * 255 // 639, y * 255 // 479, 160) for y in range(480) for x in range(640)])
im.save("'$J'/input.png"); im.transpose(Image.FLIP_LEFT_RIGHT).save("'$J'/private.png")'
echo "== cd $J && agentcage run --policy policies/image-agent.yaml -- python3 -I image-agent.py $J/input.png $J/out"
(cd $J && "${AC[@]}" run "${RUN_OPTS[@]}" --policy "$repo/policies/image-agent.yaml" --events $EV/image-agent.json -- \
	$PY -I image-agent.py $J/input.png $J/out)
st=$?
echo "== exit status: $st$([ $st = 137 ] && echo ' (SIGKILL: the memory limit'"'"'s OOM kill)')"
echo "== its output directory, checked outside the cage:"
(cd $J/out && ls -ln && $PY -c 'from PIL import Image; im = Image.open("thumbnail.png"); print("thumbnail.png:", im.format, "%dx%d" % im.size)')
echo "== /tmp/exfil.png $([ -e /tmp/exfil.png ] && echo exists || echo "does not exist")"

echo
echo "== the same events as JSON lines (--events):"
cat $EV/code-runner.json $EV/image-agent.json
