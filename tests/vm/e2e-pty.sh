# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 63 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The agent's own terminal (issue 12): with a terminal on standard input the
# agent gets a pseudo-terminal of its own that agentcage relays; without
# one (or with --no-pty) it has no controlling terminal. ptydrive.py plays
# the user at "the caller's terminal". Four caged runs: enforce, audit
# (a TIOCSTI that gets through), stdin not a terminal, --no-pty.
# Sourced by e2e.sh and e2e-one.sh (lib.sh's helpers).
echo "# the agent's terminal"
# nobody cannot enter $T (0700): the agent's script and directory live in $D
D=$(mktemp -d /tmp/pty.XXXXXX); chmod 755 $D
DRIVE=$repo/tests/vm/ptydrive.py
cat > $D/p.yaml <<EOP
files:
  read: [/usr, /lib, /lib64, /etc, /proc, $D]
  write: [$D, /dev/null, /dev/tty, '\${CAGE_TMP}']
exec:
  allow: [/usr/bin, /bin]
EOP
# the agent: its terminal, window size, descriptors, a reopen by name, the
# other terminals by name, TIOCSTI on stdin, typed input, a resize
cat > $D/agent.sh <<'EOA'
trap 'echo "winch:$(stty size)"; touch $TMPDIR/w' WINCH
me=$(tty); echo "tty:$me"; echo "size:$(stty size)"
echo "fds:$(readlink /proc/$$/fd/0 /proc/$$/fd/1 /proc/$$/fd/2 | tr '\n' ' ')"
python3 -c 'import os
for f in (os.ttyname(0), "/proc/self/fd/1"):
    os.write(os.open(f, os.O_WRONLY), b"reopen:ok\n")'
for n in 0 1 2 3 4 5 6 7 8 9; do f=/dev/pts/$n; [ "$f" = "$me" ] || [ ! -e $f ] && continue
	(echo x > $f) 2>/dev/null && echo "opened:$f" || echo "refused:$f"; done
python3 -c 'import fcntl, termios
try:
    for c in b"echo INJECTED\n": fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
    print("sti:ok")
except OSError as e:
    print("sti:errno", e.errno)'
# audit: the injected line is read before the user is asked to type, so
# that what the user types never races the injected bytes still queued
[ "$1" = audit ] && { read -r line; echo "got:$line"; }
echo ready
read -r line; echo "got:$line"
echo waiting
while [ ! -e $TMPDIR/w ]; do sleep 0.1; done
echo done
[ "$1" = audit ] && exit 3
kill -9 $$
EOA
chmod 644 $D/agent.sh
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
step() { python3 -c 'import json, sys; print(all(ok for _, ok in json.loads(sys.argv[1])["steps"]))' "$1"; }
STEPS='[["expect","ready"],["send","hello\r"],["expect","got:hello"],["expect","waiting"],
	["resize",40,120],["expect","winch:40 120"],["expect","done"]]'
echo "$STEPS" > $D/steps.json

echo "## a terminal on stdin: the agent's own pty (enforce)"
res=$(cd $D && python3 $DRIVE $D/steps.json -- $AC run --policy $D/p.yaml --events $D/e1.json -- bash $D/agent.sh)
out=$(field "$res" out | tr -d '\r'); outer=$(field "$res" tty)
agent_tty=$(grep -m1 '^tty:' <<< "$out"); agent_tty=${agent_tty#tty:}
[ "$(step "$res")" = True ] && [ "$(field "$res" status)" = 137 ] && ok "the dialogue runs; the agent killed by SIGKILL is 137" \
	|| no "the dialogue runs; the agent killed by SIGKILL is 137" "$res"
case "$agent_tty" in /dev/pts/*) [ "$agent_tty" != "$outer" ] && ok "  ... its tty is $agent_tty, not the caller's $outer" \
	|| no "  ... its tty is not the caller's" "$agent_tty $outer";; *) no "  ... its tty is a pts" "$out";; esac
fds=$(grep -m1 '^fds:' <<< "$out")
[ "$fds" = "fds:$agent_tty $agent_tty $agent_tty " ] && ok "  ... its stdin, stdout and stderr are its own pty, none the caller's" \
	|| no "  ... its standard streams are its own pty" "$fds ($outer)"
grep -qx 'size:33 101' <<< "$out" && ok "  ... stty size is the caller's window (33 101)" || no "  ... stty size" "$out"
grep -qx 'winch:40 120' <<< "$out" && ok "  ... a resize of the caller's terminal reaches it (SIGWINCH, 40 120)" || no "  ... a resize" "$out"
grep -qx 'got:hello' <<< "$out" && ok "  ... what the user types reaches it" || no "  ... typed input" "$out"
[ "$(grep -cx 'reopen:ok' <<< "$out")" = 2 ] && ok "  ... it reopens its own pty by name, and as /proc/self/fd/1 (the implicit grant; its uid's)" \
	|| no "  ... a reopen by name" "$out"
grep -q '^opened:' <<< "$out" && no "  ... another terminal opened by name" "$out" \
	|| { grep -q "^refused:$outer\$" <<< "$out" && ok "  ... the caller's terminal by name ($outer) is refused" \
	|| no "  ... the caller's terminal by name is refused" "$out"; }
grep -qx 'sti:errno 1' <<< "$out" && ok "  ... TIOCSTI on its stdin is refused (EPERM)" || no "  ... TIOCSTI refused" "$out"
event "  ... reported as ioctl 0x5412" $D/e1.json op=ioctl ioctl=0x5412 action=denied comm=python3
grep -q INJECTED <<< "$out" && no "  ... nothing was typed" "$out" || ok "  ... nothing was typed into its terminal"
[ "$(field "$res" pending)" = 0 ] && ok "  ... nothing is left typed in the caller's terminal" || no "  ... nothing pending" "$res"
[ "$(field "$res" modes_same)" = True ] && ok "  ... the caller's terminal modes are restored after a SIGKILLed agent" \
	|| no "  ... modes restored" "$res"

echo "## audit: a TIOCSTI that gets through types into the agent's own pty only"
# agentcage's stderr (a line per audited TIOCSTI) to a file, not between the agent's lines;
# the agent's stderr stays that file too (only the streams that were terminals get the pty)
res=$(cd $D && python3 $DRIVE $D/steps.json -- sh -c "exec $AC run --policy $D/p.yaml --mode audit --events $D/e2.json -- bash $D/agent.sh audit 2>$D/e2.err")
out=$(field "$res" out | tr -d '\r')
[ "$(step "$res")" = True ] && [ "$(field "$res" status)" = 3 ] && ok "the audit dialogue runs (exit status 3 passed on)" \
	|| no "the audit dialogue runs" "$res"
grep -qx 'sti:ok' <<< "$out" && grep -qx 'got:echo INJECTED' <<< "$out" && grep -qx 'got:hello' <<< "$out" \
	&& ok "  ... TIOCSTI went through, and the agent read it back from its own pty" || no "  ... TIOCSTI into its own pty" "$(tail -c 400 <<< "$out")"
event "  ... reported as audited" $D/e2.json op=ioctl ioctl=0x5412 action=audited
[ "$(field "$res" pending)" = 0 ] && ok "  ... the caller's terminal has nothing typed into it" || no "  ... nothing pending" "$res"
[ "$(field "$res" modes_same)" = True ] && ok "  ... and its modes are restored after a normal exit" || no "  ... modes restored" "$res"

CTTY='tty; python3 -c "import os
try: os.open(\"/dev/tty\", os.O_RDWR); print(\"devtty:opened\")
except OSError as e: print(\"devtty:errno\", e.errno)"'
echo "## stdin not a terminal: no controlling terminal"
out=$(cd $D && $AC run --policy $D/p.yaml -- sh -c "$CTTY" < /dev/null 2>&1)
grep -qx 'not a tty' <<< "$out" && ok "the agent's tty says 'not a tty'" || no "the agent's tty says 'not a tty'" "$out"
grep -qx 'devtty:errno 6' <<< "$out" && ok "  ... and /dev/tty fails with ENXIO" || no "  ... /dev/tty ENXIO" "$out"
echo '[["expect","devtty:"]]' > $D/steps2.json
res=$(python3 $DRIVE $D/steps2.json -- sh -c "$CTTY")
grep -q 'devtty:opened' <<< "$(field "$res" out)" && ok "  ... where outside a cage, with a terminal, /dev/tty opens" \
	|| no "  ... /dev/tty opens outside" "$res"
echo "## --no-pty: the caller's terminal as it is, no controlling terminal"
res=$(cd $D && python3 $DRIVE $D/steps2.json -- $AC run --no-pty --policy $D/p.yaml -- sh -c "$CTTY")
out=$(field "$res" out | tr -d '\r'); outer=$(field "$res" tty)
grep -qx "$outer" <<< "$out" && grep -qx 'devtty:errno 6' <<< "$out" \
	&& ok "--no-pty: the agent's tty is the caller's $outer, and /dev/tty is ENXIO" || no "--no-pty" "$out"
rm -rf $D
