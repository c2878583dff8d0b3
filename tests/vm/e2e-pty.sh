# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 168 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The agent's own terminal (issue 12): with a terminal on standard input the
# agent gets a pseudo-terminal of its own that agentcage relays; without
# one (or with --no-pty) it has no controlling terminal. ptydrive.py plays
# the user at "the caller's terminal". Four caged runs: enforce, audit
# (a TIOCSTI that gets through), stdin not a terminal, --no-pty. Then the
# signals a terminal ioctl makes the kernel send (issue 11): TIOCSWINSZ and
# TIOCSIG refused on terminals of a session outside the cage (the caller's,
# a pty master passed in; enforce, audit, kallsyms hidden), allowed on the
# cage's own (a pty it opens, its own pty, with and without isolate: [pid]).
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
# agent_out RES: what the terminal showed, without CRs and without agentcage's
# event lines, which it writes to the same terminal and which can land
# inside one of the agent's lines (once: "sti:errno 1" + an event + "\n")
agent_out() { field "$1" out | tr -d '\r' | perl -0pe 's/agentcage: \d{4}-\d\d-\d\dT[\d:.]+Z [^\n]*\n//g'; }
step() { python3 -c 'import json, sys; print(all(ok for _, ok in json.loads(sys.argv[1])["steps"]))' "$1"; }
STEPS='[["expect","ready"],["send","hello\r"],["expect","got:hello"],["expect","waiting"],
	["resize",40,120],["expect","winch:40 120"],["expect","done"]]'
echo "$STEPS" > $D/steps.json

echo "## a terminal on stdin: the agent's own pty (enforce)"
res=$(cd $D && python3 $DRIVE $D/steps.json -- $AC run --policy $D/p.yaml --events $D/e1.json -- bash $D/agent.sh)
out=$(agent_out "$res"); outer=$(field "$res" tty)
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
out=$(agent_out "$res")
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
out=$(agent_out "$res"); outer=$(field "$res" tty)
grep -qx "$outer" <<< "$out" && grep -qx 'devtty:errno 6' <<< "$out" \
	&& ok "--no-pty: the agent's tty is the caller's $outer, and /dev/tty is ENXIO" || no "--no-pty" "$out"

echo "## a terminal's signals stay in the cage (issue 11)"
# a resize (TIOCSWINSZ: SIGWINCH) or a pty master's TIOCSIG makes the kernel
# signal a foreground group itself; refused where that group is of a
# session from outside the cage, allowed on the cage's own terminals
cat > $D/p2.yaml <<EOP
files:
  read: [/usr, /lib, /lib64, /etc, /proc, $D]
  write: [$D, /dev/null, /dev/ptmx, /dev/pts, '\${CAGE_TMP}']
exec:
  allow: [/usr/bin, /bin]
EOP
sed 's/^exec:/isolate: [pid]\nexec:/' $D/p.yaml > $D/p3.yaml
# the agent: fd 0 is a terminal held from outside; then a pty of its own
# whose session (a child's, setsid + TIOCSCTTY) is the cage's
cat > $D/sig.py <<'EOA'
import fcntl, os, select, signal, struct, sys, termios
TIOCSIG = 0x40045436
def setsz(fd, r, c): fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
def getsz(fd): return "%d %d" % struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]
def tryit(name, f):
    try:
        f(); print(name + ":ok", flush=True)
    except OSError as e:
        print(name + ":errno", e.errno, flush=True)
tryit("winsz", lambda: setsz(0, 50, 150))
tryit("sig", lambda: fcntl.ioctl(0, TIOCSIG, signal.SIGINT))
print("size:" + getsz(0), flush=True)
SIGS = {signal.SIGWINCH, signal.SIGINT}
def wait():   # the session's process: each signal it gets, on the pipe
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGS)
    os.write(w, b"ready\n")
    while True:
        sig = signal.sigwaitinfo(SIGS).si_signo
        os.write(w, (b"winch " + getsz(s).encode() if sig == signal.SIGWINCH else b"int") + b"\n")
if sys.argv[1:] == ["own"]:
    m, s = os.openpty()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(s, termios.TIOCSCTTY, 0)
        wait()
    buf = b""
    def child():   # the child's next line
        global buf
        while b"\n" not in buf:
            if not select.select([r], [], [], 60)[0]:
                return "none"
            buf += os.read(r, 100)
        line, buf = buf.split(b"\n", 1)
        return line.decode()
    print("child:" + child(), flush=True)
    tryit("own-winsz-master", lambda: setsz(m, 40, 120)); print("child:" + child(), flush=True)
    tryit("own-winsz-slave", lambda: setsz(s, 41, 121)); print("child:" + child(), flush=True)
    tryit("own-sig", lambda: fcntl.ioctl(m, TIOCSIG, signal.SIGINT)); print("child:" + child(), flush=True)
    os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)
EOA
# outside the cage: a pty whose slave is the controlling terminal of a
# session here (a process catching SIGWINCH and SIGINT); the command gets
# its master as stdin. Then this process itself resizes and signals, to
# show the route works from outside.
cat > $D/outer.py <<'EOA'
import fcntl, json, os, select, signal, struct, subprocess, sys, termios, time
TIOCSIG = 0x40045436
def getsz(fd): return "%d %d" % struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]
m, s = os.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 101, 0, 0))
r, w = os.pipe()
SIGS = {signal.SIGWINCH, signal.SIGINT}
def wait():   # the session's process: each signal it gets, on the pipe
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGS)
    os.write(w, b"ready\n")
    while True:
        sig = signal.sigwaitinfo(SIGS).si_signo
        os.write(w, (b"winch " + getsz(s).encode() if sig == signal.SIGWINCH else b"int") + b"\n")
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    wait()
def drain(t):
    out = b""
    while select.select([r], [], [], t)[0]:
        out += os.read(r, 1000)
    return sorted(out.decode().splitlines())   # SIGINT and SIGWINCH pending at once: either first
res = {"ready": drain(5)}
p = subprocess.run(sys.argv[1:], stdin=m, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
res["status"], res["out"] = p.returncode, p.stdout.decode(errors="replace")
res["during"], res["size"] = drain(2), getsz(s)
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 44, 144, 0, 0))
fcntl.ioctl(m, TIOCSIG, signal.SIGINT)
res["after"] = drain(2)
os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)
print(json.dumps(res))
EOA
chmod 644 $D/sig.py $D/outer.py
echo "# tty_ioctl in kallsyms: $(grep -cw tty_ioctl /proc/kallsyms)"

# --no-pty: the agent holds the caller's terminal (a session outside); the
# caller (bash, the session's leader, in its foreground group) traps SIGWINCH
echo '[["expect","caller:ready"],["resize",40,120],["send","x\r"],["expect","caller:end"]]' > $D/steps3.json
res=$(cd $D && python3 $DRIVE $D/steps3.json -- bash -c "trap 'echo caller:winch' WINCH
$AC run --no-pty --policy $D/p2.yaml --events $D/e5.json -- python3 $D/sig.py own
echo caller:size:\$(stty size); echo caller:ready; read -r x; echo caller:end")
out=$(agent_out "$res"); before=$(sed '/^caller:ready$/q' <<< "$out")
grep -qx 'winsz:errno 1' <<< "$out" && ok "--no-pty: TIOCSWINSZ on the caller's terminal is refused (EPERM)" \
	|| no "--no-pty: TIOCSWINSZ on the caller's terminal is refused" "$out"
event "  ... reported as ioctl 0x5414" $D/e5.json op=ioctl ioctl=0x5414 action=denied comm=python3
grep -qx 'size:33 101' <<< "$out" && grep -qx 'caller:size:33 101' <<< "$out" \
	&& ok "  ... the caller's window size is unchanged (33 101)" || no "  ... window size unchanged" "$out"
grep -q 'caller:winch' <<< "$before" && no "  ... no SIGWINCH reached the caller's foreground group" "$out" \
	|| ok "  ... no SIGWINCH reached the caller's foreground group"
grep -qx 'caller:winch' <<< "${out#"$before"}" && ok "  ... while a resize from outside, later, does reach it" \
	|| no "  ... a resize from outside reaches the caller" "$out"
grep -qx 'sig:errno 25' <<< "$out" && ok "  ... TIOCSIG on it (a pty slave: signals nothing) is not refused, ENOTTY" \
	|| no "  ... TIOCSIG on a slave is ENOTTY" "$out"
[ "$(grep -cx 'child:ready' <<< "$out")" = 1 ] && grep -qx 'own-winsz-master:ok' <<< "$out" && grep -qx 'child:winch 40 120' <<< "$out" \
	&& ok "  ... a pty the cage opened: resizing its master works, its session's child gets SIGWINCH" \
	|| no "  ... the cage's own pty, resize on the master" "$(grep -E '^(own|child)' <<< "$out" | tr '\n' ' ')"
grep -qx 'own-winsz-slave:ok' <<< "$out" && grep -qx 'child:winch 41 121' <<< "$out" \
	&& ok "  ... and on its slave (from outside its session, inside the cage)" \
	|| no "  ... resize on the slave" "$(grep -E '^(own|child)' <<< "$out" | tr '\n' ' ')"
grep -qx 'own-sig:ok' <<< "$out" && grep -qx 'child:int' <<< "$out" \
	&& ok "  ... TIOCSIG SIGINT on its master reaches the child" \
	|| no "  ... TIOCSIG on the cage's own master" "$(grep -E '^(own|child)' <<< "$out" | tr '\n' ' ')"
[ "$(grep -c '"0x5414"' $D/e5.json)" = 1 ] && ok "  ... one ioctl event: the own pty's resizes are not reported" \
	|| no "  ... one ioctl event" "$(cat $D/e5.json)"

# the agent holds the master of a pty whose session is outside
res=$(cd $D && python3 $D/outer.py $AC run --no-pty --policy $D/p2.yaml --events $D/e6.json -- python3 $D/sig.py)
out=$(field "$res" out)
if [ "$(field "$res" ready)" = "['ready']" ] && grep -qx 'winsz:errno 1' <<< "$out" && grep -qx 'sig:errno 1' <<< "$out"; then
	ok "a pty master from outside: TIOCSWINSZ and TIOCSIG on it are refused (EPERM)"
else no "a pty master from outside: TIOCSWINSZ and TIOCSIG refused" "$res"; fi
event "  ... TIOCSWINSZ reported" $D/e6.json op=ioctl ioctl=0x5414 action=denied comm=python3
event "  ... TIOCSIG reported as ioctl 0x40045436" $D/e6.json op=ioctl ioctl=0x40045436 action=denied comm=python3
[ "$(field "$res" during)" = "[]" ] && [ "$(field "$res" size)" = "33 101" ] \
	&& ok "  ... its session got no signal, its size is unchanged" || no "  ... no signal, size unchanged" "$res"
[ "$(field "$res" after)" = "['int', 'winch 44 144']" ] \
	&& ok "  ... the same ioctls from outside the cage signal it (SIGWINCH 44 144, SIGINT)" \
	|| no "  ... the same from outside signal it" "$res"
res=$(cd $D && python3 $D/outer.py $AC run --no-pty --mode audit --policy $D/p2.yaml --events $D/e7.json -- python3 $D/sig.py)
out=$(field "$res" out)
grep -qx 'winsz:ok' <<< "$out" && grep -qx 'sig:ok' <<< "$out" && [ "$(field "$res" during)" = "['int', 'winch 50 150']" ] \
	&& ok "  ... audit: both go through and reach the session outside (the route is real)" || no "  ... audit goes through" "$res"
event "  ... reported as audited" $D/e7.json op=ioctl ioctl=0x5414 action=audited

# kallsyms' addresses hidden (kptr_restrict 2): libbpf finds tty_ioctl at 0,
# and a terminal is recognised by its tty_file_private
kr=$(cat /proc/sys/kernel/kptr_restrict); echo 2 > /proc/sys/kernel/kptr_restrict
res=$(cd $D && python3 $D/outer.py $AC run --no-pty --policy $D/p2.yaml --events $D/e9.json -- python3 $D/sig.py own)
echo $kr > /proc/sys/kernel/kptr_restrict
out=$(field "$res" out)
grep -qx 'winsz:errno 1' <<< "$out" && grep -qx 'sig:errno 1' <<< "$out" && [ "$(field "$res" during)" = "[]" ] \
	&& ok "kptr_restrict 2 (tty_ioctl unknown): the outside pty's master is still refused" || no "kptr_restrict 2: refused" "$res"
grep -qx 'child:winch 40 120' <<< "$out" && grep -qx 'child:winch 41 121' <<< "$out" && grep -qx 'child:int' <<< "$out" \
	&& ok "  ... and the cage's own pty still resizes and signals" || no "kptr_restrict 2: own pty" "$out"
event "  ... reported" $D/e9.json op=ioctl ioctl=0x40045436 action=denied

# the agent's own pty: stty resizes it; with isolate: [pid] the session's
# leader is agentcage's process outside the cage (PID 1's parent)
echo '[["expect","agent:size:"],["expect","caller:size:"]]' > $D/steps4.json
for pol in p p3; do
	res=$(cd $D && python3 $DRIVE $D/steps4.json -- bash -c "$AC run --policy $D/$pol.yaml --events $D/e8$pol.json -- \
		bash -c 'trap \"echo agent:winch\" WINCH; stty cols 100 rows 30 && echo stty:ok; echo agent:size:\$(stty size)'
		echo caller:size:\$(stty size)")
	out=$(agent_out "$res")
	grep -qx 'stty:ok' <<< "$out" && grep -qx 'agent:size:30 100' <<< "$out" && grep -qx 'agent:winch' <<< "$out" \
		&& ok "own pty ($pol.yaml): stty cols 100 rows 30 works, the agent gets its SIGWINCH" \
		|| no "own pty ($pol.yaml): stty resizes it" "$out"
	grep -qx 'caller:size:33 101' <<< "$out" && ok "  ... the caller's window stays 33 101" || no "  ... the caller's window" "$out"
	python3 $EV $D/e8$pol.json --none op=ioctl 2>/dev/null || [ ! -s $D/e8$pol.json ] \
		&& ok "  ... and nothing is reported" || no "  ... nothing reported" "$(cat $D/e8$pol.json)"
done
rm -rf $D
