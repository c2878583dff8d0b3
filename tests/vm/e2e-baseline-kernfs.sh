# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 49 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, kernel filesystems and other tasks: a root agent with
# every capability, whose policy grants write to /, may change nothing on
# the kernel's own filesystems (bpffs, sysfs, tracefs, procfs outside
# /proc/<pid>) by any write operation, not only by an open for writing
# (bpf/surface.bpf.h), nor the priority, scheduling, affinity, limits or
# memory placement of a task outside its cage (bpf/isolate.bpf.h). Each
# refusal is shown with its event and the target untouched; the same action
# outside the cage, or by the caged task on itself or its own cage's tasks,
# works. Sourced by e2e.sh and e2e-one.sh (lib.sh's helpers).
suite_daemon
echo "# kernel baseline: kernel filesystems, other tasks' scheduling and limits"
K=$T/kernfs; mkdir -p $K
cat > $K/all.yaml <<Y
user: root
name: kernfs
files:
  read: [/]
  write: [/]
exec:
  allow: [/]
Y
KA="$AC run --policy $K/all.yaml --events $K/all.json --"

echo "## bpffs: no change of a pin or directory (a bpffs instance of the test's own)"
B=/run/kernfs-bpf; mkdir -p $B
if mount -t bpf bpf $B && mkdir $B/empty $B/full &&
	bpftool map create $B/pin type array key 4 value 4 entries 1 name kfs_pin &&
	bpftool map create $B/full/pin type array key 4 value 4 entries 1 name kfs_pin2 && [ -e $B/pin ]; then
	ok "outside a cage, maps are pinned in a bpffs of the test's own"
else
	no "outside a cage, maps are pinned in a bpffs of the test's own"
fi
ino=$(stat -c %i $B/pin); mode=$(stat -c %a:%u:%Y $B/pin)
expect "in a cage, rm of a pin is refused (a policy granting write to /)" 1 $KA /bin/rm -f $B/pin
[ "$(stat -c %i $B/pin 2>&1)" = "$ino" ] && ok "  ... the pin is still there" || no "  ... the pin is still there"
event "  ... reported as unlink with its path" $K/all.json op=unlink path=$B/pin action=denied comm=rm "cage~=kernfs-[0-9]+"
expect "in a cage, rm -r of a directory of pins is refused" 1 $KA /bin/rm -rf $B/full
[ -e $B/full/pin ] && ok "  ... its pin is still there" || no "  ... its pin is still there"
expect "in a cage, rmdir of an empty bpffs directory is refused" 1 $KA /bin/rmdir $B/empty
[ -d $B/empty ] && ok "  ... it is still there" || no "  ... it is still there"
event "  ... reported as rmdir" $K/all.json op=rmdir path=$B/empty action=denied
expect "in a cage, mkdir in bpffs is refused" 1 $KA /bin/mkdir $B/new
[ ! -e $B/new ] && ok "  ... nothing was made" || no "  ... nothing was made"
event "  ... reported as mkdir" $K/all.json op=mkdir path=$B/new action=denied
expect "in a cage, renaming a pin is refused" 1 $KA /bin/mv $B/pin $B/moved
[ -e $B/pin ] && [ ! -e $B/moved ] && ok "  ... it keeps its name" || no "  ... it keeps its name"
event "  ... reported as rename" $K/all.json op=rename path=$B/pin action=denied comm=mv
expect "in a cage, a hard link to a pin is refused" 1 $KA /bin/ln $B/pin $B/hard
event "  ... reported as link" $K/all.json op=link path=$B/hard action=denied
expect "in a cage, a symlink in bpffs is refused" 1 $KA /bin/ln -s /x $B/sym
event "  ... reported as symlink" $K/all.json op=symlink path=$B/sym action=denied
expect "in a cage, creating a file in bpffs is refused" 2 $KA /bin/sh -c ": > $B/file"
event "  ... reported as create" $K/all.json op=create path=$B/file action=denied
expect "in a cage, chmod of a pin is refused" 1 $KA /bin/chmod 666 $B/pin
event "  ... reported as chmod" $K/all.json op=chmod path=$B/pin action=denied
expect "in a cage, chown of a pin is refused" 1 $KA /bin/chown 1000:1000 $B/pin
event "  ... reported as chown" $K/all.json op=chown path=$B/pin action=denied
expect "in a cage, touch (utimes) of a pin is refused" 1 $KA /usr/bin/touch -c -d @1000 $B/pin
event "  ... reported as utimes" $K/all.json op=utimes path=$B/pin action=denied
[ "$(stat -c %a:%u:%Y $B/pin)" = "$mode" ] && ok "  ... its mode, owner and time are unchanged" \
	|| no "  ... its mode, owner and time are unchanged" "$(stat -c %a:%u:%Y $B/pin), was $mode"
expect "in a cage, truncate(2) of a pin is refused" 1 $KA /usr/bin/python3 -c "import os; os.truncate('$B/pin', 0)"
event "  ... reported as truncate" $K/all.json op=truncate path=$B/pin action=denied
out=$($KA /usr/bin/python3 -c "import os; os.setxattr('$B/pin', 'user.kfs', b'1')" 2>&1)
case "$out" in *"Operation not permitted"*) ok "in a cage, setxattr of a pin is refused";;
	*) no "in a cage, setxattr of a pin is refused" "$out";; esac
event "  ... reported as setxattr" $K/all.json op=setxattr path=$B/pin action=denied
out=$($KA /bin/sh -c "ls $B; bpftool map show pinned $B/pin >/dev/null 2>&1; echo bpf=\$?" 2>&1)
case "$out" in *empty*full*pin*bpf=[1-9]*) ok "in a cage, bpffs stays readable (ls), the bpf() call refused";;
	*) no "in a cage, bpffs stays readable (ls), the bpf() call refused" "$out";; esac
expect "in a cage, the same changes in a tmpfs directory work" 0 $KA /bin/sh -c "
	cd $K && mkdir d && : > d/f && ln d/f d/h && ln -s f d/s && mv d/f d/g && chmod 600 d/g &&
	chown 1000:1000 d/g && touch -d @1000 d/g && rm d/g d/h d/s && rmdir d"
expect "outside a cage, the same changes in bpffs work" 0 /bin/sh -c "
	chmod 644 $B/pin && chown 1000:1000 $B/pin && touch -c -d @1000 $B/pin && ln -s /x $B/sym &&
	mv $B/pin $B/moved && ln $B/moved $B/hard && rm $B/moved $B/hard $B/sym && rm -r $B/full &&
	rmdir $B/empty && mkdir $B/new && rmdir $B/new && [ -z \"\$(ls $B)\" ]"
umount $B; rmdir $B

echo "## sysfs, tracefs, procfs"
M=/sys/class/net/lo/mtu
out=$($KA /usr/bin/python3 -c "import os; os.setxattr('$M', 'user.kfs', b'1')" 2>&1)
case "$out" in *"Operation not permitted"*) ok "in a cage, setxattr on sysfs is refused";;
	*) no "in a cage, setxattr on sysfs is refused" "$out";; esac
event "  ... reported as setxattr with the sysfs path" $K/all.json op=setxattr path=/sys/devices/virtual/net/lo/mtu action=denied
expect "  ... outside a cage, a (trusted) xattr on the same file is set and removed" 0 /usr/bin/python3 -c "
import os; os.setxattr('$M', 'trusted.kfs', b'1'); assert os.getxattr('$M', 'trusted.kfs') == b'1'
os.removexattr('$M', 'trusted.kfs')"
m0=$(stat -L -c %a $M)
expect "in a cage, chmod on sysfs is refused" 1 $KA /bin/chmod 666 $M
[ "$(stat -L -c %a $M)" = "$m0" ] && ok "  ... the mode is unchanged" || no "  ... the mode is unchanged" "$(stat -L -c %a $M)"
event "  ... reported as chmod" $K/all.json op=chmod path=/sys/devices/virtual/net/lo/mtu action=denied
expect "  ... outside a cage, chmod (to its own mode) works" 0 /bin/chmod $m0 $M
expect "in a cage, sysfs stays readable (cat, readlink)" 0 $KA /bin/sh -c "cat $M >/dev/null && readlink /sys/class/net/lo >/dev/null"
TR=/run/kernfs-tracefs; mkdir -p $TR
if mount -t tracefs nodev $TR && [ -d $TR/instances ]; then
	expect "in a cage, mkdir of a tracefs instance is refused" 1 $KA /bin/mkdir $TR/instances/kfs
	[ ! -e $TR/instances/kfs ] && ok "  ... no instance was made" || no "  ... no instance was made"
	event "  ... reported as mkdir" $K/all.json op=mkdir path=$TR/instances/kfs action=denied
	expect "  ... outside a cage, it works" 0 /bin/mkdir $TR/instances/kfs
	expect "in a cage, rmdir of the instance is refused" 1 $KA /bin/rmdir $TR/instances/kfs
	[ -d $TR/instances/kfs ] && ok "  ... it is still there" || no "  ... it is still there"
	event "  ... reported as rmdir" $K/all.json op=rmdir path=$TR/instances/kfs action=denied
	expect "  ... outside a cage, it works" 0 /bin/rmdir $TR/instances/kfs
	umount $TR
else
	no "a tracefs mount for the tracefs tests"
fi
rmdir $TR
H0=/proc/sys/kernel/hostname
t0=$(stat -c %Y $H0)
expect "in a cage, utimes of a /proc/sys file is refused" 1 $KA /usr/bin/python3 -c "import os; os.utime('$H0', (1000, 1000))"
[ "$(stat -c %Y $H0)" = "$t0" ] && ok "  ... its time is unchanged" || no "  ... its time is unchanged"
event "  ... reported as utimes" $K/all.json op=utimes path=$H0 action=denied
expect "  ... outside a cage, it works" 0 /usr/bin/python3 -c "import os; os.utime('$H0', (1000, 1000))"

echo "## no change of another task's scheduling, limits or memory placement"
sleep 1000 & spid=$!
for _ in $(seq 300); do [ "$(cat /proc/$spid/comm 2>/dev/null)" = sleep ] && break; sleep 0.1; done
nice_of() { cut -d' ' -f19 /proc/$1/stat; }
nofile_of() { sed -n 's/^Max open files  *\([0-9a-z]*\)  *\([0-9a-z]*\).*/\1:\2/p' /proc/$1/limits; }
n0=$(nice_of $spid) io0=$(ionice -p $spid) pol0=$(chrt -p $spid) lim0=$(nofile_of $spid)
expect "in a cage, renice of a process outside is refused" 1 $KA /usr/bin/renice -n 10 -p $spid
event "  ... reported as sched with the target's pid" $K/all.json op=sched target=$spid action=denied comm=renice
expect "  ... and so is setpriority from python" 1 $KA /usr/bin/python3 -c "import os; os.setpriority(os.PRIO_PROCESS, $spid, 5)"
[ "$(nice_of $spid)" = "$n0" ] && ok "  ... its nice value is unchanged" || no "  ... its nice value is unchanged" "$(nice_of $spid)"
expect "in a cage, ionice (ioprio_set) of it is refused" 1 $KA /usr/bin/ionice -c 3 -p $spid
[ "$(ionice -p $spid)" = "$io0" ] && ok "  ... its I/O priority is unchanged" || no "  ... its I/O priority is unchanged" "$(ionice -p $spid)"
event "  ... reported as sched" $K/all.json op=sched target=$spid comm=ionice
expect "in a cage, chrt (sched_setscheduler) of it is refused" 1 $KA /usr/bin/chrt -b -p 0 $spid
[ "$(chrt -p $spid)" = "$pol0" ] && ok "  ... its policy is unchanged" || no "  ... its policy is unchanged" "$(chrt -p $spid)"
event "  ... reported as sched" $K/all.json op=sched target=$spid comm=chrt
expect "in a cage, taskset (sched_setaffinity) of it is refused" 1 $KA /usr/bin/taskset -p 1 $spid
event "  ... reported as sched" $K/all.json op=sched target=$spid comm=taskset
expect "in a cage, prlimit RLIMIT_NOFILE of it is refused" 1 $KA /usr/bin/prlimit --pid $spid --nofile=0:0
[ "$(nofile_of $spid)" = "$lim0" ] && ok "  ... its limit is unchanged" || no "  ... its limit is unchanged" "$(nofile_of $spid)"
event "  ... reported as sched" $K/all.json op=sched target=$spid comm=prlimit
out=$($KA /bin/sh -c 'echo agentcage=$PPID; prlimit --pid $PPID --nofile=0:0 --cpu=1:1; echo st=$?' 2>&1); st=$?
apid=$(echo "$out" | sed -n 's/^agentcage=//p')
case "$st $out" in "0 "*st=1*) ok "in a cage, prlimit of agentcage itself (the agent's parent) is refused, and agentcage ends well";;
	*) no "in a cage, prlimit of agentcage itself is refused" "$st $out";; esac
event "  ... reported as sched with agentcage's pid" $K/all.json op=sched target=$apid comm=prlimit
for how in migrate move; do
	expect "in a cage, $how of its pages is refused" 1 $KA $H/movemem $how $spid
	event "  ... reported as sched with the target's pid (not ptrace, the check the kernel makes first)" $K/all.json op=sched target=$spid comm=movemem
done
rm -f $K/own.json
expect "in a cage, all of it works on its own child and on itself" 0 $AC run --policy $K/all.yaml --events $K/own.json -- /bin/sh -c "
	sleep 100 & c=\$!
	renice -n 5 -p \$c >/dev/null && ionice -c 3 -p \$c && chrt -b -p 0 \$c && taskset -p 1 \$c >/dev/null &&
	prlimit --pid \$c --nofile=64:64 && python3 -c 'import os, sys; os.setpriority(os.PRIO_PROCESS, int(sys.argv[1]), 6)' \$c &&
	$H/movemem migrate \$c && $H/movemem move \$c &&
	[ \$(cut -d' ' -f19 /proc/\$c/stat) = 6 ] && ionice -p \$c | grep -q idle && chrt -p \$c | grep -q SCHED_BATCH &&
	grep -Eq 'Max open files +64 +64' /proc/\$c/limits &&
	renice -n 3 -p \$\$ >/dev/null && ionice -c 2 -n 7 -p \$\$ && prlimit --pid \$\$ --nofile=128:128 && taskset -p 1 \$\$ >/dev/null
	st=\$?; kill \$c; exit \$st"
event "  ... without an event" $K/own.json --none op=sched
expect "outside a cage, renice, ionice, chrt, taskset and prlimit of the process work" 0 /bin/sh -c "
	renice -n 10 -p $spid >/dev/null && ionice -c 3 -p $spid && chrt -b -p 0 $spid && taskset -p 1 $spid >/dev/null &&
	prlimit --pid $spid --nofile=32:32 && $H/movemem migrate $spid && $H/movemem move $spid"
[ "$(nice_of $spid)" = 10 ] && [ "$(nofile_of $spid)" = 32:32 ] && chrt -p $spid | grep -q SCHED_BATCH &&
	ionice -p $spid | grep -q idle && ok "  ... and change it" || no "  ... and change it" "$(nice_of $spid) $(nofile_of $spid)"
kill $spid 2>/dev/null; wait $spid 2>/dev/null
