# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 97 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, the routes the other baseline suites left untested:
# TIOCLINUX (on a pty, and a selection pasted into a virtual console), a
# console's function-key strings (KDSKBSENT), the signal system calls and
# SIGURG, process_vm_writev, FS_IOC_FSSETXATTR, each capability the capable
# program refuses, and migrate_pages/move_pages reported as the placement
# change they are. A root agent in a cage tries each with
# tests/vm/helpers/holes.c; the refusal, its event and the target left
# untouched are asserted next to the same call working outside the cage,
# or inside it on its own tasks and files. Sourced by e2e.sh and e2e-one.sh
# (lib.sh's helpers).
suite_daemon
X=$H/holes
D=$T/holes; mkdir -p $D
R=/run/holes; rm -rf $R; mkdir -p $R/ro $R/rw   # tmpfs: inode flags and file handles
cat > $D/p.yaml <<Y
user: root
name: holes
files:
  read: [/]
  write: [$T, $R/rw]
exec:
  allow: [/]
network:
  allow: [127.0.0.1]
Y
# inc FILE CMD...: run CMD in a cage of that policy, its events into $D/FILE
inc() { local ev=$1; shift; $AC run --policy $D/p.yaml --events $D/$ev -- "$@"; }
# victim DIR: start the target (holes victim) in the background: $vpid, $vaddr
victim() { rm -rf $1; mkdir -p $1; $X victim $1 & vpid=$!; started $1/addr; vaddr=$(cat $1/addr); }
lines() { grep -c . $1/sig; }

echo "# terminals: TIOCLINUX"
out=$($X pty $X tioclinux PTS 6 2>&1); st=$?
[ "$st $out" = "1 TIOCLINUX: Inappropriate ioctl for device" ] &&
	ok "outside a cage, TIOCLINUX on a pty it opens reaches the tty driver (ENOTTY)" ||
	no "outside a cage, TIOCLINUX on a pty it opens reaches the tty driver (ENOTTY)" "$st $out"
out=$($X pty $AC run --policy $D/p.yaml --events $D/tty.json -- $X tioclinux PTS 6 2>&1); st=$?
case "$st $out" in "1 "*"TIOCLINUX: Operation not permitted"*) true;; *) false;; esac &&
	ok "a caged TIOCLINUX on a pty it opens is refused (EPERM, before the driver)" ||
	no "a caged TIOCLINUX on a pty it opens is refused (EPERM, before the driver)" "$st $out"
event "  ... reported as ioctl 0x541c" $D/tty.json op=ioctl ioctl=0x541c comm=holes action=denied
expect "a caged task cannot open a virtual console (/dev/tty1) itself" 1 inc tty.json $X tioclinux /dev/tty1 6
event "  ... reported as device 4:1" $D/tty.json op=device device=4:1 comm=holes action=denied
expect "outside a cage, TIOCLINUX 6 (shift state) on /dev/tty1 works" 0 $X tioclinux /dev/tty1 6
# a console that is the caller's terminal (agentcage --no-pty on a VT) is
# inherited, no open: the agent makes it its controlling terminal, so the
# kernel asks for no capability, selects the text on the screen and pastes
# it into the console's input, which a shell there would read
out=$($X vt /dev/tty1 XPASTEX $X vt-paste 7 2>&1)
[ "$out" = "typed=XPASTEX
exit=0
left=-" ] && ok "outside a cage, TIOCLINUX select + paste types the screen's text into a console" ||
	no "outside a cage, TIOCLINUX select + paste types the screen's text into a console" "$out"
out=$($X vt /dev/tty1 XPASTEY $AC run --no-pty --policy $D/p.yaml --events $D/vt.json -- $X vt-paste 7 2>&1)
case $out in *"TIOCLINUX TIOCL_SETSEL: Operation not permitted"*"typed=-"*"exit=1"*"left=-") true;; *) false;; esac && ok "a caged TIOCLINUX select + paste on its controlling console is refused, nothing typed" ||
	no "a caged TIOCLINUX select + paste on its controlling console is refused, nothing typed" "$out"
event "  ... reported as ioctl 0x541c" $D/vt.json op=ioctl ioctl=0x541c comm=holes action=denied
event "  ... by the ioctl check, not the kernel's CAP_SYS_ADMIN (it is the task's own terminal)" $D/vt.json --none op=capability

# the console's function-key strings are the machine's: F1 bound to a
# command types it into whichever console the user is on when F1 is pressed
f1=$($X fkey 0 < /dev/tty1)
expect "outside a cage, KDSKBSENT binds a command to F1 on a console" 0 /bin/sh -c "$X fkey 0 'echo typed-by-f1
' < /dev/tty1 && [ \"\$($X fkey 0 < /dev/tty1)\" = 'echo typed-by-f1' ]"
$X fkey 0 "$f1" < /dev/tty1
out=$($AC run --no-pty --policy $D/p.yaml --events $D/kd.json -- /bin/sh -c "$X fkey 0; $X fkey 0 'echo from-cage
'; echo st=\$?" < /dev/tty1 2>&1)
case $out in *"KDSKBSENT: Operation not permitted"*st=1*) ok "a caged KDSKBSENT on the console it inherited (--no-pty) is refused";;
	*) no "a caged KDSKBSENT on the console it inherited (--no-pty) is refused" "$out";; esac
[ "$($X fkey 0 < /dev/tty1)" = "$f1" ] && ok "  ... F1 is unchanged" || no "  ... F1 is unchanged" "$($X fkey 0 < /dev/tty1 | od -c | head -n 2)"
[ "${out%%
*}" = "$f1" ] && ok "  ... reading it (KDGKBSENT) works" || no "  ... reading it (KDGKBSENT) works" "$out"
event "  ... reported as ioctl 0x4b49" $D/kd.json op=ioctl ioctl=0x4b49 comm=holes action=denied
sed 's/^name: holes/name: holes\nmode: audit/' $D/p.yaml > $D/audit.yaml
$AC run --no-pty --policy $D/audit.yaml --events $D/kd-audit.json -- $X fkey 0 'echo from-audit
' < /dev/tty1 >/dev/null 2>&1
[ "$($X fkey 0 < /dev/tty1)" = "echo from-audit" ] && ok "  ... in audit mode the same call binds F1: the ioctl check is what refuses it" ||
	no "  ... in audit mode the same call binds F1: the ioctl check is what refuses it" "$($X fkey 0 < /dev/tty1 | od -c | head -n 2)"
event "  ... reported as ioctl 0x4b49, audited" $D/kd-audit.json op=ioctl ioctl=0x4b49 action=audited
$X fkey 0 "$f1" < /dev/tty1

echo "# signals to a task outside the cage"
victim $D/out
for how in kill tgkill sigqueue tgsigqueue pidfd; do
	n0=$(lines $D/out)
	expect "a caged $how of SIGUSR2 to an outside process is refused" 1 inc sig-$how.json $X signal $how $vpid 12
	event "  ... reported as signal 12" $D/sig-$how.json op=signal arg=12 comm=holes action=denied
	expect "  ... outside a cage, it works" 0 $X signal $how $vpid 12
	sleep 0.3
	[ "$(lines $D/out)" = $((n0 + 1)) ] && ok "  ... the target got the outside one only" || no "  ... the target got the outside one only" "$(cat $D/out/sig)"
done
mkdir -p $D/in
out=$(inc sig-in.json /bin/sh -c "$X victim $D/in & v=\$!; while [ ! -s $D/in/addr ]; do sleep 0.1; done
	for h in kill tgkill sigqueue tgsigqueue pidfd; do $X signal \$h \$v 12 || echo failed \$h; done
	sleep 0.5; kill \$v" 2>&1)
sigs=$(tr '\n' ' ' < $D/in/sig)
[ -z "$out" ] && [ "$sigs" = "12 0 12 -6 12 -1 12 -1 12 0 " ] &&
	ok "inside the cage, kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and pidfd_send_signal reach a caged process" ||
	no "inside the cage, the signal calls reach a caged process" "$out / $sigs"
event "  ... without an event" $D/sig-in.json --none op=signal
echo "## SIGURG through a socket's owner"
n0=$(lines $D/out)
out=$(inc urg.json $X urg $vpid 2>/dev/null); sleep 0.3
[ "$out" = none ] && [ "$(lines $D/out)" = $n0 ] && ok "a caged F_SETOWN of a TCP socket to an outside process: urgent data signals nothing" ||
	no "a caged F_SETOWN of a TCP socket to an outside process: urgent data signals nothing" "$out $(cat $D/out/sig)"
event "  ... reported as signal 23" $D/urg.json op=signal arg=23 comm=holes action=denied
out=$(inc urg-pg.json $X urg -$vpid 2>/dev/null); sleep 0.3
[ "$out" = none ] && [ "$(lines $D/out)" = $n0 ] && ok "  ... nor to its process group (F_SETOWN -PGID)" ||
	no "  ... nor to its process group (F_SETOWN -PGID)" "$out $(cat $D/out/sig)"
event "  ... reported as signal 23" $D/urg-pg.json op=signal arg=23 comm=holes action=denied
# urgpoke DIR CAGE...: a holder (in CAGE..., or none) sets the owner to the
# victim, an outside process named poker sends the urgent data: $pst, $hpid
urgpoke() {
	local d=$1; shift; rm -rf $d; mkdir -p $d
	"$@" $X urg-hold $vpid $d & local bg=$!
	started $d/hold; hpid=$(pgrep -f "^$X urg-hold $vpid $d")
	$X urg-poke $hpid 100; pst=$?; sleep 0.3; touch $d/done; wait $bg
}
urgpoke $D/uh inc urg-poke.json
[ "$pst" = 0 ] && [ "$(lines $D/out)" = $n0 ] && ok "  ... nor when an outside process sends the urgent data (its send works)" ||
	no "  ... nor when an outside process sends the urgent data (its send works)" "$pst $(cat $D/out/sig)"
event "  ... reported as signal 23 by the caged task that set the owner" $D/urg-poke.json op=signal arg=23 comm=holes pid=$hpid action=denied
event "  ... not by whoever ran the delivery" $D/urg-poke.json --none comm=poker
$X urg $vpid >/dev/null; $X urg -$vpid >/dev/null; urgpoke $D/uh-out; sleep 0.3
[ "$pst $(grep -c '^23 ' $D/out/sig)" = "0 3" ] && ok "  ... outside a cage, all three deliver SIGURG" || no "  ... outside a cage, all three deliver SIGURG" "$pst $(cat $D/out/sig)"
out=$(inc urg-self.json $X urg self 2>&1)
[ "$out" = got ] && ok "inside the cage, SIGURG to its own process is delivered" || no "inside the cage, SIGURG to its own process is delivered" "$out"

echo "# process_vm_writev"
expect "a caged process_vm_writev into an outside process is refused" 1 inc vm.json $X vmwrite $vpid $vaddr caged
sleep 0.3
[ "$(cat $D/out/mem)" = untouched ] && ok "  ... its memory is unchanged" || no "  ... its memory is unchanged" "$(cat $D/out/mem)"
event "  ... reported as ptrace with the target's pid" $D/vm.json op=ptrace target=$vpid comm=holes action=denied
expect "  ... outside a cage, it works" 0 $X vmwrite $vpid $vaddr outside
sleep 0.3
[ "$(cat $D/out/mem)" = outside ] && ok "  ... and writes the memory" || no "  ... and writes the memory" "$(cat $D/out/mem)"
mkdir -p $D/in2
out=$(inc vm-in.json /bin/sh -c "$X victim $D/in2 & v=\$!; while [ ! -s $D/in2/addr ]; do sleep 0.1; done
	$X vmwrite \$v \$(cat $D/in2/addr) sibling; sleep 0.3; cat $D/in2/mem; kill \$v" 2>&1)
[ "$out" = sibling ] && ok "inside the cage, process_vm_writev into a caged sibling works" || no "inside the cage, process_vm_writev into a caged sibling works" "$out"

echo "# memory placement of an outside task: sched, not ptrace"
for how in migrate move; do
	expect "a caged ${how}_pages of an outside process is refused" 1 inc mm-$how.json $H/movemem $how $vpid
	event "  ... reported as sched with the target's pid" $D/mm-$how.json op=sched target=$vpid comm=movemem action=denied
	event "  ... and not as ptrace" $D/mm-$how.json --none op=ptrace
	expect "  ... outside a cage, it works" 0 $H/movemem $how $vpid
done
expect "inside the cage, both work on a caged process" 0 inc mm-in.json /bin/sh -c \
	"sleep 100 & c=\$!; $H/movemem migrate \$c && $H/movemem move \$c; st=\$?; kill \$c; exit \$st"
kill $vpid 2>/dev/null; wait $vpid 2>/dev/null

echo "# inode flags by FS_IOC_FSSETXATTR (tmpfs)"
echo x > $R/ro/f; echo x > $R/rw/f
flags() { lsattr $1 2>&1 | cut -d' ' -f1; }
expect "a caged FS_IOC_FSSETXATTR (nodump) of a file it may not write is refused" 1 inc fsx.json $X fsx $R/ro/f +d
event "  ... reported as ioctl 0x401c5820 with the path" $D/fsx.json op=ioctl ioctl=0x401c5820 path=$R/ro/f action=denied
expect "  ... and so is immutable" 1 inc fsx-i.json $X fsx $R/ro/f +i
expect "  ... and append-only" 1 inc fsx-i.json $X fsx $R/ro/f +a
case $(flags $R/ro/f) in *[ida]*) no "  ... the file's flags are unchanged" "$(flags $R/ro/f)";; *) ok "  ... the file's flags are unchanged";; esac
event "  ... reported as ioctl (before the kernel's CAP_LINUX_IMMUTABLE)" $D/fsx-i.json op=ioctl ioctl=0x401c5820 path=$R/ro/f
event "  ... which is never asked" $D/fsx-i.json --none op=capability
expect "a caged FS_IOC_SETFLAGS append-only (chattr +a) of it is refused" 1 inc fsx-a.json /usr/bin/chattr +a $R/ro/f
event "  ... reported as ioctl 0x40086602" $D/fsx-a.json op=ioctl ioctl=0x40086602 path=$R/ro/f comm=chattr
expect "a caged FS_IOC_FSSETXATTR (nodump) of a file it may write works" 0 inc fsx-rw.json $X fsx $R/rw/f +d
case $(flags $R/rw/f) in *d*) ok "  ... the flag is set";; *) no "  ... the flag is set" "$(flags $R/rw/f)";; esac
event "  ... without an event" $D/fsx-rw.json --none op=ioctl
expect "  ... immutable even there is refused (CAP_LINUX_IMMUTABLE)" 1 inc fsx-rwi.json $X fsx $R/rw/f +i
case $(flags $R/rw/f) in *i*) no "  ... the file is not immutable" "$(flags $R/rw/f)";; *) ok "  ... the file is not immutable";; esac
event "  ... reported as capability CAP_LINUX_IMMUTABLE" $D/fsx-rwi.json op=capability capability=CAP_LINUX_IMMUTABLE comm=holes
expect "outside a cage, FS_IOC_FSSETXATTR immutable and append of the read-only file work" 0 \
	/bin/sh -c "$X fsx $R/ro/f +i && lsattr $R/ro/f | grep -q '^[^ ]*i' && $X fsx $R/ro/f -i &&
		$X fsx $R/ro/f +a && lsattr $R/ro/f | grep -q '^[^ ]*a' && $X fsx $R/ro/f -a && chattr +a $R/ro/f && chattr -a $R/ro/f"

echo "# capabilities: each one the capable program refuses, by a system call that needs it"
mkdir -p $R/rw/caps
# (a policy that also grants write on /proc: its own loginuid)
sed "s|^  write: \[|  write: [/proc, |" $D/p.yaml > $D/caps.yaml
$X caps $R/rw/caps > $D/caps-out 2>&1
$AC run --policy $D/caps.yaml --events $D/caps.json -- $X caps $R/rw/caps > $D/caps-in 2>/dev/null
for c in 2:DAC_READ_SEARCH:open_by_handle_at 9:LINUX_IMMUTABLE:FS_IOC_SETFLAGS_append 12:NET_ADMIN:SO_SNDBUFFORCE \
	13:NET_RAW:a_raw_UDP_socket 15:IPC_OWNER:shmat_of_a_mode-0_segment 16:SYS_MODULE:delete_module \
	17:SYS_RAWIO:iopl 18:SYS_CHROOT:chroot 19:SYS_PTRACE:kcmp_of_a_child_of_another_uid \
	20:SYS_PACCT:acct_into_a_file_of_its_own 21:SYS_ADMIN:sethostname \
	22:SYS_BOOT:reboot_CAD_ON 23:SYS_NICE:setpriority_-1 25:SYS_TIME:settimeofday 30:AUDIT_CONTROL:a_second_loginuid_write \
	34:SYSLOG:syslog_SIZE_UNREAD 35:WAKE_ALARM:timerfd_CLOCK_BOOTTIME_ALARM 39:BPF:bpf_MAP_CREATE; do
	n=${c%%:*} cap=CAP_${c#*:}; how=${cap#*:} cap=${cap%%:*}; how=${how//_/ }
	o=$(sed -n "s/^$n //p" $D/caps-out) i=$(sed -n "s/^$n //p" $D/caps-in)
	case "$o $i" in "0 EPERM"|"0 EACCES"|"ENOENT EPERM") ok "$cap ($how): works outside a cage ($o), refused in one ($i)";;
		*) no "$cap ($how): works outside a cage, refused in one" "outside: $o, in the cage: $i";; esac
	event "  ... reported as capability $cap" $D/caps.json op=capability capability=$cap comm=cap$n action=denied
done
# CAP_PERFMON: Debian's perf_event_paranoid 3 asks for CAP_SYS_ADMIN first
# (EACCES), and bpf's checks of it come after CAP_BPF's
o=$(sed -n "s/^38 //p" $D/caps-out) i=$(sed -n "s/^38 //p" $D/caps-in)
[ "$o $i" = "0 EACCES" ] && ok "perf_event_open works outside a cage, refused in one" || no "perf_event_open works outside a cage, refused in one" "$o $i"
event "  ... reported as capability CAP_SYS_ADMIN (Debian's perf_event_paranoid check)" $D/caps.json op=capability capability=CAP_SYS_ADMIN comm=cap38
o=$(sed -n "s/^27 //p" $D/caps-out) i=$(sed -n "s/^27 //p" $D/caps-in)
[ "$o $i" = "0 EPERM" ] && ok "mknod of 1:3 works outside a cage, refused in one" || no "mknod of 1:3 works outside a cage, refused in one" "$o $i"
event "  ... by the mknod check (op device), before the kernel's CAP_MKNOD" $D/caps.json op=device device=1:3 comm=cap27
event "  ... which is never asked" $D/caps.json --none capability=CAP_MKNOD
# The capabilities above that no call reaches first in enforce mode are
# shown refused by the capable program itself in audit mode, where the
# checks before them let the call through: CAP_PERFMON (perf_event_paranoid
# 2, a counter that counts the kernel: the perf_event_open hook comes first)
# and CAP_MKNOD. CAP_MAC_ADMIN: AppArmor asks it of the capability module
# and of itself directly (policy_ns_capable), never through the LSM hook,
# so no BPF program sees it; the refused securityfs write holds it.
# (CAP_MAC_OVERRIDE is asked by Smack only, which the guest does not run.)
par=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 > /proc/sys/kernel/perf_event_paranoid   # Debian's 3 asks for CAP_SYS_ADMIN before
o=$($X perfmon) i=$(inc perfmon.json $X perfmon)
a=$($AC run --policy $D/audit.yaml --events $D/perfmon-audit.json -- $X perfmon)
echo $par > /proc/sys/kernel/perf_event_paranoid
[ "$o $i $a" = "0 EPERM 0" ] && ok "a counter of itself that counts the kernel: works outside a cage, refused in one (the perf_event hook), works in audit mode" ||
	no "a counter of itself that counts the kernel: works outside a cage, refused in one, works in audit mode" "outside: $o, in the cage: $i, audit: $a"
event "  ... in audit mode the kernel's CAP_PERFMON is reported as capability CAP_PERFMON" $D/perfmon-audit.json \
	op=capability capability=CAP_PERFMON comm=holes action=audited
rm -f $R/rw/caps/null-audit
$AC run --policy $D/audit.yaml --events $D/mknod-audit.json -- mknod $R/rw/caps/null-audit c 1 3 2>/dev/null
[ -c $R/rw/caps/null-audit ] && ok "in audit mode a caged mknod of 1:3 goes through" || no "in audit mode a caged mknod of 1:3 goes through" "$(ls -l $R/rw/caps)"
event "  ... with the device check audited" $D/mknod-audit.json op=device device=1:3 comm=mknod action=audited
event "  ... and the kernel's CAP_MKNOD, which enforce mode never reaches, reported as capability CAP_MKNOD" \
	$D/mknod-audit.json op=capability capability=CAP_MKNOD comm=mknod action=audited
o=$($X aa-remove agentcage-no-such-profile) i=$(inc aa.json $X aa-remove agentcage-no-such-profile)
a=$($AC run --policy $D/audit.yaml --events $D/aa-audit.json -- $X aa-remove agentcage-no-such-profile)
case "$o|$i|$a" in "write ENOENT|open EACCES|write ENOENT"|"write ENOENT|open EPERM|write ENOENT")
	ok "AppArmor's .remove: outside a cage the write reaches the profile lookup (ENOENT), in one the open is refused ($i), in audit mode it goes through";;
	*) no "AppArmor's .remove: outside a cage the write reaches the profile lookup (ENOENT), in one the open is refused, in audit mode it goes through" "outside: $o, in the cage: $i, audit: $a";; esac
event "  ... reported as open_write" $D/aa.json op=open_write path=/sys/kernel/security/apparmor/.remove comm=holes action=denied
event "  ... AppArmor's CAP_MAC_ADMIN check bypasses the LSM hook: no capability event even in audit mode" \
	$D/aa-audit.json --none op=capability
echo "# leases and locks on files shared with the outside"
cat > $D/lock.py <<'P'
import errno, fcntl, os, sys
kind, path = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDONLY)
try:
    if kind == "lease":
        fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)                       # F_SETLEASE
    else:
        fcntl.flock(fd, (fcntl.LOCK_EX if kind == "ex" else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
P
echo shared > $R/ro/lk; echo own > $R/rw/lk
for k in ex lease; do
	out=$(inc lock-$k.json python3 $D/lock.py $k $R/ro/lk 2>/dev/null)
	[ "$out" = EPERM ] && ok "in a cage, a read-only file's $k lock is refused" || no "in a cage, a read-only file's $k lock is refused" "$out"
	event "  ... reported as lock with its path" $D/lock-$k.json op=lock path=$R/ro/lk comm=python3 action=denied
	out=$(inc lock-$k-rw.json python3 $D/lock.py $k $R/rw/lk 2>/dev/null)
	[ "$out" = ok ] && ok "  ... on a file it may write, it is taken" || no "  ... $k on a file it may write, it is taken" "$out"
	out=$(python3 $D/lock.py $k $R/ro/lk 2>&1)
	[ "$out" = ok ] && ok "  ... outside a cage, on the read-only one too" || no "  ... $k outside a cage, on the read-only one too" "$out"
done
out=$(inc lock-sh.json python3 $D/lock.py sh $R/ro/lk 2>/dev/null)
[ "$out" = ok ] && ok "in a cage, a shared lock of a read-only file stays (a read-only database)" || no "in a cage, a shared lock of a read-only file" "$out"

# real-time scheduling through RLIMIT_RTPRIO, which root may raise without
# CAP_SYS_NICE (the kernel then needs no capability for SCHED_FIFO)
out=$($X rtprio)
[ "$out" = "0 0" ] && ok "outside a cage, root raises RLIMIT_RTPRIO and takes SCHED_FIFO" || no "outside a cage, RLIMIT_RTPRIO and SCHED_FIFO" "$out"
out=$(inc rt.json $X rtprio 2>/dev/null)
[ "$out" = "EPERM EPERM" ] && ok "in a cage, both are refused" || no "in a cage, RLIMIT_RTPRIO and SCHED_FIFO are refused" "$out"
event "  ... the limit reported as sched" $D/rt.json op=sched comm=holes action=denied
event "  ... the policy as capability CAP_SYS_NICE" $D/rt.json op=capability capability=CAP_SYS_NICE comm=holes
# a full map of file owners: the owner is refused, not left unrecorded
# (whose signals a delivery triggered outside would let through)
victim $D/fv
out=$($X fown-fill $vpid 66000)
[ "$out" = "refused=none owner=0" ] && ok "outside a cage, F_SETOWN on 66,000 files, then to another process" ||
	no "outside a cage, F_SETOWN on 66,000 files" "$out"
out=$(inc fown.json $X fown-fill $vpid 66000 2>/dev/null)
[ "$out" = "refused=some owner=ENOSPC" ] && ok "in a cage, once the map of file owners is full, F_SETOWN is refused (ENOSPC)" ||
	no "in a cage, a full map of file owners refuses F_SETOWN" "$out"
event "  ... reported as signal" $D/fown.json op=signal comm=holes action=denied
kill $vpid 2>/dev/null; wait $vpid 2>/dev/null
rm -rf $R
