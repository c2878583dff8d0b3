# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 45 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, isolation: a root agent in a cage tries to reach what
# lies outside it by routes no file, exec or network rule sees (cgroupfs,
# clone3, ptrace modes and /proc, perf, terminals, signals through a file's
# owner). Each attack is refused with its event, the target is shown
# untouched, and the same attack from outside the cage (or inside it, on the
# cage's own tasks) is shown to work. Sourced by e2e.sh and e2e-one.sh.
suite_daemon
X=$H/isolate
cat > $T/iso.yaml <<Y
user: root
name: iso
files:
  read: [/usr, /lib, /lib64, /etc, /proc, /sys/fs/cgroup, /dev, $H]
  write: [/sys/fs/cgroup, $T, /dev/null]
  deny: [/etc/shadow]
exec:
  allow: [/usr/bin, /bin, /usr/lib, $H]
Y
I="$AC run --policy $T/iso.yaml --events $T/iso.json --"
# whose: the cgroup of pid $1
whose() { cut -d: -f3 /proc/$1/cgroup; }

echo "# isolation: cgroupfs is read-only, even where the policy grants write"
V=/sys/fs/cgroup/isolate-victim
mkdir -p $V/sub
sleep 1000 & vpid=$!
echo $vpid > $V/cgroup.procs
[ "$(whose $vpid)" = /isolate-victim ] && ok "outside a cage, writing cgroup.procs moves a task" \
	|| no "outside a cage, writing cgroup.procs moves a task" "$(whose $vpid)"
out=$($I /bin/sh -c 'echo $$ > /sys/fs/cgroup/cgroup.procs; echo st=$?; cut -d: -f3 /proc/self/cgroup' 2>&1)
case $out in *st=2*/agentcage/*) ok "a caged task cannot move itself to the root cgroup";;
	*) no "a caged task cannot move itself to the root cgroup" "$out";; esac
event "  ... reported as cgroup_write" $T/iso.json op=cgroup_write action=denied "cage~=iso-[0-9]+"
out=$($I /bin/sh -c 'cg=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
	echo $$ > $cg/cgroup.procs; echo own=$?; echo $$ > $cg/cgroup.threads; echo thr=$?' 2>&1)
case $out in *own=2*thr=2*) ok "nor write its own cgroup.procs or cgroup.threads";;
	*) no "nor write its own cgroup.procs or cgroup.threads" "$out";; esac
out=$($I /bin/sh -c 'cg=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
	echo '$vpid' > $cg/cgroup.procs; echo st=$?' 2>&1)
case $out in *st=2*) ok "a caged task cannot pull an outside process into its cage";;
	*) no "a caged task cannot pull an outside process into its cage" "$out";; esac
[ "$(whose $vpid)" = /isolate-victim ] && ok "  ... which stays where it was" || no "  ... which stays where it was" "$(whose $vpid)"
out=$($I /bin/sh -c 'cg=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
	mkdir $cg/child; echo st=$?; [ -e $cg/child ] && echo exists' 2>&1)
case $out in *st=1*exists*) no "a caged task cannot create a child cgroup" "$out";;
	*st=1*) ok "a caged task cannot create a child cgroup";;
	*) no "a caged task cannot create a child cgroup" "$out";; esac
event "  ... reported as cgroup_write" $T/iso.json op=cgroup_write comm=mkdir action=denied
depth=$(cat $V/cgroup.max.depth)
expect "nor write a limit of an outside cgroup (cgroup.max.depth)" 2 $I /bin/sh -c "echo 3 > $V/cgroup.max.depth"
[ "$(cat $V/cgroup.max.depth)" = "$depth" ] && ok "  ... which is unchanged" || no "  ... which is unchanged"
sc=$(cat $V/cgroup.subtree_control)
expect "nor its cgroup.subtree_control" 2 $I /bin/sh -c "echo +pids > $V/cgroup.subtree_control"
[ "$(cat $V/cgroup.subtree_control)" = "$sc" ] && ok "  ... which is unchanged" || no "  ... which is unchanged"
expect "nor its cgroup.kill" 2 $I /bin/sh -c "echo 1 > $V/cgroup.kill"
kill -0 $vpid 2>/dev/null && ok "  ... and the task in it lives" || no "  ... and the task in it lives"
expect "nor rmdir an outside cgroup" 1 $I /bin/rmdir $V/sub
expect "nor rename it" 1 $I /bin/mv $V/sub $V/sub2
[ -d $V/sub ] && [ ! -e $V/sub2 ] && ok "  ... which is still there" || no "  ... which is still there"
event "  ... reported as cgroup_write" $T/iso.json op=cgroup_write comm=mv action=denied
echo 3 > $V/cgroup.max.depth && [ "$(cat $V/cgroup.max.depth)" = 3 ] && rmdir $V/sub &&
	mkdir $V/sub && ok "outside a cage, the same writes, rmdir and mkdir work" || no "outside a cage, the same writes work"
out=$($X clone3-cgroup $V 2>&1)
[ "$out" = 0::/isolate-victim ] && ok "outside a cage, clone3(CLONE_INTO_CGROUP) starts a child in the cgroup" \
	|| no "outside a cage, clone3(CLONE_INTO_CGROUP) starts a child in the cgroup" "$out"
out=$($I $X clone3-cgroup $V 2>&1); st=$?
case "$st $out" in 1*"clone3: Operation not permitted"*) ok "a caged clone3(CLONE_INTO_CGROUP) through an O_PATH descriptor is refused";;
	*) no "a caged clone3(CLONE_INTO_CGROUP) through an O_PATH descriptor is refused" "$st $out";; esac
event "  ... reported as clone" $T/iso.json op=clone comm=isolate action=denied
expect "clone(CLONE_PARENT) of the cage's first task (its parent is agentcage) is refused" 1 $I $X clone-parent
expect "clone(CLONE_PARENT) of a task whose parent is in the cage works" 0 $I /bin/sh -c "$X clone-parent; exit \$?"

echo "# isolation: no ptrace access of any mode to a task outside the cage"
env ISOLATE_SECRET=s3cr3t sleep 1000 & opid=$!
for _ in $(seq 300); do [ "$(cat /proc/$opid/comm 2>/dev/null)" = sleep ] && break; sleep 0.1; done
tr '\0' '\n' < /proc/$opid/environ | grep -q ISOLATE_SECRET=s3cr3t && ok "outside a cage, /proc/PID/environ shows the secret" \
	|| no "outside a cage, /proc/PID/environ shows the secret"
out=$($I /bin/cat /proc/$opid/environ 2>&1); st=$?
case "$st $out" in 1*s3cr3t*) no "a caged task cannot read an outside task's environ" "$out";;
	1*) ok "a caged task cannot read an outside task's environ";;
	*) no "a caged task cannot read an outside task's environ" "$st $out";; esac
event "  ... reported as ptrace" $T/iso.json op=ptrace comm=cat action=denied
expect "nor its maps" 1 $I /bin/cat /proc/$opid/maps
expect "nor its mem" 1 $I /usr/bin/python3 -c "open('/proc/$opid/mem', 'rb')"
expect "nor open its fds through /proc/PID/fd" 1 $I /bin/cat /proc/$opid/fd/0
expect "nor read their links" 1 $I /bin/readlink /proc/$opid/fd/0
expect "nor read its cwd link" 1 $I /bin/readlink /proc/$opid/cwd
expect "nor its root link" 1 $I /bin/readlink /proc/$opid/root
addr=$(head -n 1 /proc/$opid/maps | cut -d- -f1)
expect "outside a cage, process_vm_readv of it works" 0 $X vmread $opid $addr
expect "a caged process_vm_readv of it is refused" 1 $I $X vmread $opid $addr
expect "outside a cage, pidfd_getfd of its fd 0 works" 0 $X getfd $opid 0
expect "a caged pidfd_getfd of it is refused" 1 $I $X getfd $opid 0
expect "outside a cage, kcmp with it works" 0 $X kcmp $opid
expect "a caged kcmp with it is refused" 1 $I $X kcmp $opid
expect "inside the cage, the same reads of a caged task work" 0 $I /bin/sh -c \
	"env ISOLATE_SECRET=in sleep 5 & p=\$!; sleep 0.2; grep -q ISOLATE_SECRET=in /proc/\$p/environ && cat /proc/\$p/maps >/dev/null &&
	readlink /proc/\$p/fd/0 >/dev/null && readlink /proc/\$p/cwd >/dev/null && $X kcmp \$p && $X getfd \$p 0 &&
	$X vmread \$p \$(head -n 1 /proc/\$p/maps | cut -d- -f1)"
expect "ps in a cage lists its own processes, not those outside (/proc/PID of outside tasks)" 0 $I /bin/sh -c \
	"ps -e -o pid= | tr -d ' ' | grep -qx \$\$ && ! ps -e -o pid= | tr -d ' ' | grep -qx $opid"
expect "outside a cage, perf_event_open works" 0 $X perf 0
expect "perf_event_open is refused in a cage, on itself too" 1 $I $X perf 0
# the perf_event_open hook, or (Debian's perf_event_paranoid) the CAP_PERFMON check
# the kernel makes first for a counter that includes the kernel: both refused with an event
if python3 "$EV" $T/iso.json op=perf_event action=denied >/dev/null 2>&1 ||
   python3 "$EV" $T/iso.json op=capability "capability~=CAP_PERFMON|CAP_SYS_ADMIN" action=denied >/dev/null 2>&1; then
	ok "  ... reported as perf_event (or as its CAP_PERFMON check)"
else
	no "  ... reported as perf_event (or as its CAP_PERFMON check)" "$(grep -c . $T/iso.json) events"
fi

echo "# isolation: no typing into a terminal (TIOCSTI)"
cat > $T/sti.py <<'PY'
import fcntl, os, pty, subprocess, sys, tty
m, s = pty.openpty()
tty.setraw(s)
# the injector opens the terminal by its name: agentcage's launch closes
# every inherited descriptor but 0-2 (an inherited one would fail with
# EBADF, refused for the wrong reason)
inj = ['/usr/bin/python3', '-c', 'import fcntl, os, sys, termios; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY); fcntl.ioctl(fd, termios.TIOCSTI, b"X")', os.ttyname(s)]
r = subprocess.run(sys.argv[1:] + inj)
os.set_blocking(s, False)
try:
    got = os.read(s, 100)
except BlockingIOError:
    got = b''
print(r.returncode, got.decode() or '-')
PY
out=$(python3 $T/sti.py 2>&1)
[ "$out" = "0 X" ] && ok "outside a cage, TIOCSTI types into a terminal" || no "outside a cage, TIOCSTI types into a terminal" "$out"
out=$(python3 $T/sti.py $I 2>/dev/null)
[ "$out" = "1 -" ] && ok "a caged TIOCSTI on a terminal it opened is refused, nothing typed" \
	|| no "a caged TIOCSTI on a terminal it opened is refused, nothing typed" "$out"
event "  ... reported as ioctl 0x5412" $T/iso.json op=ioctl ioctl=0x5412 action=denied

echo "# isolation: no signal through a file's owner to a task outside the cage"
cat > $T/recv.py <<'PY'
import signal, sys, time
def h(n, f):
    with open(sys.argv[1], 'a') as o:
        o.write(f'{n}\n')
for s in (signal.SIGIO, signal.SIGURG, signal.SIGUSR1):
    signal.signal(s, h)
open(sys.argv[2], 'w').write('ready')
time.sleep(60)
PY
# owner.py TARGET-PID|self [FIFO READY]: set the owner of a pipe (or of the
# FIFO) to the target, O_ASYNC, signal SIGUSR1 (F_SETSIG), then write to the
# pipe itself (or let the outside write to the FIFO)
cat > $T/owner.py <<'PY'
import fcntl, os, signal, sys, time
got = []
signal.signal(signal.SIGUSR1, lambda n, f: got.append(n))
pid = os.getpid() if sys.argv[1] == 'self' else int(sys.argv[1])
if len(sys.argv) > 2:
    r = os.open(sys.argv[2], os.O_RDWR | os.O_NONBLOCK)
else:
    r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETOWN, pid)
fcntl.fcntl(r, 10, signal.SIGUSR1)   # F_SETSIG
fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
if len(sys.argv) > 2:
    open(sys.argv[3], 'w').write('ready')
    time.sleep(3)
else:
    os.write(w, b'x')
    time.sleep(0.5)
print('got' if got else 'none')
PY
recv() { rm -f $T/got $T/ready; python3 $T/recv.py $T/got $T/ready & rpid=$!; started $T/ready; }
recv
python3 $T/owner.py $rpid >/dev/null; sleep 0.5
grep -qx 10 $T/got 2>/dev/null && ok "outside a cage, F_SETOWN + O_ASYNC signals another process" \
	|| no "outside a cage, F_SETOWN + O_ASYNC signals another process" "$(cat $T/got 2>&1)"
rm -f $T/got
out=$($I /usr/bin/python3 $T/owner.py $rpid 2>&1); sleep 0.5
[ ! -e $T/got ] && ok "a caged F_SETOWN to an outside process signals nothing ($out)" || no "a caged F_SETOWN to an outside process signals nothing" "$(cat $T/got)"
event "  ... reported as signal 10" $T/iso.json op=signal arg=10 comm=python3 action=denied
rm -f $T/fifo $T/ready2; mkfifo $T/fifo
$I /usr/bin/python3 $T/owner.py $rpid $T/fifo $T/ready2 >/dev/null 2>&1 & cpid=$!
started $T/ready2 || started $T/ready2   # a slow start under load: up to 60 s
timeout 30 /bin/sh -c "echo y > $T/fifo"; wait $cpid; sleep 0.5
[ ! -e $T/got ] && ok "  ... also when the I/O comes from outside the cage" || no "  ... also when the I/O comes from outside the cage" "$(cat $T/got)"
kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
out=$($I /usr/bin/python3 $T/owner.py self 2>&1)
[ "$out" = got ] && ok "inside the cage, F_SETOWN to itself delivers the signal" || no "inside the cage, F_SETOWN to itself delivers the signal" "$out"
kill $opid $vpid 2>/dev/null; wait $opid $vpid 2>/dev/null
rmdir $V/sub $V
