# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 114 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, reach: a root agent in a cage tries to share what its
# policy does not name with processes outside it: abstract unix names in
# both directions, /proc/<pid> files of outside tasks that no ptrace check
# guards (cmdline, stat, status, ...), setns into an outside process's
# namespaces. Each attack is refused with its event, the target is shown
# untouched, and the same action is shown to work where it is allowed (the
# listed name, outside the cage, the cage's own processes). One caged run
# does every inside attack; it serves sockets meanwhile for the outside
# ones. Sourced by e2e.sh and e2e-one.sh.
R=$H/reach
fail0=$fail
cat > $T/reach.yaml <<Y
user: root
name: reach
files:
  read: [/usr, /lib, /lib64, /etc, /proc, /dev, $H]
  write: [$T, /dev/null]
  deny: [/etc/shadow]
exec:
  allow: [/usr/bin, /bin, /usr/lib, $H]
network:
  unix: ['@reach-ok', '@reach-srv']
Y
# the targets, outside every cage: a plain process, one with its own uts and
# mount namespaces (a tmpfs there holds a mark), one with its own user and
# uts namespaces
mkdir -p $T/nsd
sleep 1001 & opid=$!
unshare -um /bin/sh -c "hostname reach-t1 && mount -t tmpfs none $T/nsd && touch $T/nsd/mark && touch $T/t1.ready && exec sleep 1002" & t1=$!
unshare -U -r -u /bin/sh -c "hostname reach-t2 && touch $T/t2.ready && exec sleep 1003" & t2=$!
started $T/t1.ready; started $T/t2.ready
host=$(hostname)

echo "# reach: outside a cage (controls)"
out=$(tr '\0' ' ' < /proc/$opid/cmdline; grep -c '^Pid:' /proc/$opid/status)
[ "$out" = "sleep 1001 1" ] && ok "outside a cage, /proc/PID/cmdline and status of another process read" \
	|| no "outside a cage, /proc/PID/cmdline and status of another process read" "$out"
expect "outside a cage, binding an unlisted abstract name works" 0 $R bind reach-bad
out=$($R setns $t1 $t2 $T/nsd/mark 2>&1 | tr '\n' ';')
case $out in "pidfd-uts ok host=reach-t1;pidfd-mnt ok host=$host mark=yes;nsfile-uts ok host=reach-t1;pidfd-user ok host=reach-t2;unshare-user EPERM host=$host;")
	ok "outside a cage, root joins another process's namespaces by pidfd and /proc/PID/ns (but not after unshare -U)";;
	*) no "outside a cage, root joins another process's namespaces by pidfd and /proc/PID/ns" "$out";; esac
$R serve reach-out $T/onames $T/odone > $T/oserve.out 2>&1 & ospid=$!
started $T/onames; read oa od < $T/onames
out=$($R connect $oa 2>&1)
[ "$out" = hi ] && ok "outside a cage, a process connects to another's autobound abstract socket" || no "outside-to-outside connect" "$out"
expect "  ... and sends it a datagram" 0 $R send $od
touch $T/odone; wait $ospid
out=$(cat $T/oserve.out)
[ "$out" = "named=0 autobound=1 dgram=1" ] && ok "  ... which both arrive" || no "  ... which both arrive" "$out"

echo "# reach: inside a cage"
cat > $T/in.sh <<'SH'
R=$1 O=$2 T1=$3 T2=$4 T=$5
# r LABEL CMD...: one line, "LABEL st=STATUS OUTPUT"
r() { l=$1; shift; o=$("$@" 2>&1); s=$?; echo "$l st=$s $(printf '%s' "$o" | tr '\n' ' ' | cut -c1-120)"; }
r bind-bad $R bind reach-bad
r bind-ok $R bind reach-ok
r self-status grep -c '^Pid:' /proc/self/status
sleep 1004 & sib=$!
sleep 0.2
r sib-cmdline sh -c "tr '\\0' ' ' < /proc/$sib/cmdline"
r sib-status grep -c '^Pid:' /proc/$sib/status
r out-cmdline cat /proc/$O/cmdline
r out-status cat /proc/$O/status
r out-stat cat /proc/$O/stat
r out-task cat /proc/$O/task/$O/comm
r out-dir ls /proc/$O
r out-net cat /proc/$O/net/unix
r init-cmdline cat /proc/1/cmdline
p=$(ps -e -o pid= | tr -d ' ')
echo "ps own=$(echo "$p" | grep -cx -e $$ -e $sib) out=$(echo "$p" | grep -cx $O)"
$R setns $T1 $T2 $T/nsd/mark
echo "host-after $(hostname)"
kill $sib
r serve $R serve reach-srv $T/names $T/done
SH
$AC run --policy $T/reach.yaml --events $T/reach.json -- /bin/sh $T/in.sh $R $opid $t1 $t2 $T > $T/in.out 2> $T/in.err & rpid=$!
started $T/names || started $T/names   # a slow start under load: up to 60 s
read sa sd < $T/names
out=$($R connect reach-srv 2>&1)
[ "$out" = hi ] && ok "outside a cage, a process connects to the cage's listed abstract socket (@reach-srv)" \
	|| no "outside connect to the cage's listed abstract socket" "$out"
out=$($R connect $sa 2>&1); st=$?
case "$st $out" in "1 connect: Operation not permitted") ok "but not to its unlisted (autobound) one";;
	*) no "but not to its unlisted (autobound) one" "$st $out";; esac
event "  ... reported in the cage as unix_connect, with the outside client" $T/reach.json \
	op=unix_connect path=@$sa comm=reach action=denied cage=reach
expect "nor send a datagram to its unlisted (autobound) datagram socket" 1 $R send $sd
event "  ... reported as unix_connect" $T/reach.json op=unix_connect path=@$sd action=denied
touch $T/done; wait $rpid
line() { grep "^$1 " $T/in.out; }
yes_() { if [ "$(line "$1")" = "$2" ]; then ok "$3"; else no "$3" "$(line "$1") (want: $2)"; fi; }
yes_ serve "serve st=0 named=1 autobound=0 dgram=0" "  ... the cage's socket got the listed connection only"
yes_ bind-bad "bind-bad st=1 bind: Operation not permitted" "a caged bind of an unlisted abstract name is refused"
event "  ... reported as bind, family unix, @reach-bad" $T/reach.json op=bind family=unix path=@reach-bad action=denied
yes_ bind-ok "bind-ok st=0 " "a caged bind of a listed abstract name (@reach-ok) works"
yes_ self-status "self-status st=0 1" "a caged task reads its own /proc/self/status"
yes_ sib-cmdline "sib-cmdline st=0 sleep 1004 " "  ... and a cage sibling's /proc/PID/cmdline"
yes_ sib-status "sib-status st=0 1" "  ... and status"
for f in cmdline status stat task dir net; do
	case $(line out-$f) in "out-$f st=1 "*"Operation not permitted"*|"out-$f st=2 "*"Operation not permitted"*)
		ok "a caged task cannot open /proc/PID/$f of an outside task";;
	*) no "a caged task cannot open /proc/PID/$f of an outside task" "$(line out-$f)";; esac
done
case $(line init-cmdline) in "init-cmdline st=1 "*) ok "  ... nor of init";; *) no "  ... nor of init" "$(line init-cmdline)";; esac
event "  ... reported as ptrace with the target's pid" $T/reach.json op=ptrace target=$opid comm=cat action=denied
event "  ... also for the directory (ls)" $T/reach.json op=ptrace target=$opid comm=ls action=denied
yes_ ps "ps own=2 out=0" "ps in a cage lists the cage's processes, not those outside"
yes_ pidfd-uts "pidfd-uts EPERM host=$host" "a caged setns(pidfd, CLONE_NEWUTS) into an outside process is refused"
yes_ pidfd-mnt "pidfd-mnt EPERM host=$host mark=no" "  ... and setns(pidfd, CLONE_NEWNS): its mounts stay unseen"
case $(line nsfile-uts) in "nsfile-uts EPERM host=$host"|"nsfile-uts EACCES host=$host")
	ok "  ... and through /proc/PID/ns/uts";; *) no "  ... and through /proc/PID/ns/uts" "$(line nsfile-uts)";; esac
yes_ pidfd-user "pidfd-user EPERM host=$host" "  ... and into its user namespace (setns CLONE_NEWUSER)"
yes_ unshare-user "unshare-user EPERM host=$host" "  ... also after unshare(CLONE_NEWUSER)"
yes_ host-after "host-after $host" "  ... the cage's hostname stays its own"
# setns by pidfd checks ptrace read access to the target first (validate_nsset),
# /proc/PID/ns/* too (proc_ns_get_link): CAP_SYS_ADMIN, refused in a cage as
# well, comes second
event "  ... reported as ptrace with the target's pid" $T/reach.json op=ptrace target=$t1 comm=reach action=denied
# (into a user namespace the target made, the kernel's own ptrace check asks
# for CAP_SYS_PTRACE first, refused in a cage with its event)
if python3 "$EV" $T/reach.json op=ptrace target=$t2 comm=reach action=denied >/dev/null 2>&1 ||
   python3 "$EV" $T/reach.json op=capability capability=CAP_SYS_PTRACE comm=reach action=denied >/dev/null 2>&1; then
	ok "  ... also for the target in its own user namespace (ptrace, or its CAP_SYS_PTRACE check)"
else
	no "  ... also for the target in its own user namespace (ptrace, or its CAP_SYS_PTRACE check)"
fi
out=$(nsenter -t $t1 -u hostname; nsenter -t $t1 -m ls $T/nsd)
[ "$out" = "reach-t1
mark" ] && ok "the target's namespaces are untouched" || no "the target's namespaces are untouched" "$out"
kill -0 $opid $t1 $t2 && ok "  ... and the targets live" || no "  ... and the targets live"
kill $opid $t1 $t2 2>/dev/null; wait $opid $t1 $t2 2>/dev/null
if [ $fail != $fail0 ]; then   # what the caged run saw, for the failures above
	sed 's/^/       in: /' $T/in.out; tail -n 5 $T/in.err | sed 's/^/       err: /'
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l); "op" in e and print("       ev:", e["pid"], e["comm"], e["op"], e.get("target", ""), e.get("path", ""))' $T/reach.json | tail -n 40
fi
