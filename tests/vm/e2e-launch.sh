# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 157 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The least-privilege launch (issue 12): what the agent is left with, read
# from inside the cage, each against the same probe outside a cage or in a
# policy that allows it. Three caged runs: the default user (nobody), a
# policy naming root with every isolate, and the limits.
# Sourced by e2e.sh and e2e-one.sh (lib.sh's helpers).
echo "# the launch"
# nobody cannot enter $T (0700): the probes and the agent's directory live in $D
D=$(mktemp -d /tmp/launch.XXXXXX); chmod 755 $D
cp $H/harden-probe $H/launch-probe $D/
cp /usr/bin/id $D/suid-id && chmod 4755 $D/suid-id
policy() { # policy FILE LINES...: the probes may run, $D may be written
	local f=$1; shift
	{ echo "files:"
	  echo "  read: [/usr, /lib, /lib64, /etc, /proc, /dev, /sys/fs/cgroup, $D]"
	  echo "  write: [$D, /dev/null, '\${CAGE_TMP}']"
	  echo "exec:"
	  echo "  allow: [/usr/bin, /usr/sbin, /usr/lib, /bin, /sbin, $D]"
	  printf '%s\n' "$@"; } > "$f"
}
line() { grep -m 1 "^$1" <<< "$2"; }
shmid=$(ipcmk -M 4096 2>/dev/null | grep -o '[0-9]*$')
shmkey=$(ipcs -m | awk -v id="$shmid" '$2 == id {print $1}')
out_ipc=$(stat -L -c %i /proc/self/ns/ipc)
out_probe=$($D/launch-probe $shmkey)
out_keyring=$(line keyctl "$out_probe"); out_keyring=${out_keyring#keyctl }
PROBE="$D/harden-probe; $D/launch-probe $shmkey; echo tmp \$(stat -c %u \$TMPDIR);
	echo w > \$TMPDIR/w && echo tmp-write ok; echo suid \$($D/suid-id -u); echo sh \$\$;
	grep ' _ses' /proc/keys | sed 's/^/key /'; ip -o link | sed 's/^/link /'"

echo "## the default user (nobody), seccomp, descriptors, environment"
policy $D/l.yaml "syscalls:" "  deny: [getpriority]" "env: [OK_VAR]"
out=$(cd $D && env FOO_SECRET=s OK_VAR=y LANG=C.UTF-8 TERM=xterm PATH=/nowhere:$PATH \
	$AC run --policy $D/l.yaml --events $D/l.json -- /bin/sh -c "$PROBE" 7>$D/leak 2>$D/l.err); st=$?
[ $st = 0 ] && ok "a probe runs as the default user" || no "the default-user run" "$st $out $(cat $D/l.err)"
[ "$(line Uid: "$out")" = "$(printf 'Uid:\t65534\t65534\t65534\t65534')" ] && [ "$(line Gid: "$out")" = "$(printf 'Gid:\t65534\t65534\t65534\t65534')" ] \
	&& ok "  ... as nobody (real, effective, saved, fs uid and gid 65534)" || no "  ... as nobody" "$(line Uid: "$out") $(line Gid: "$out")"
[ "$(line Groups: "$out" | tr -d ' \t')" = Groups: ] && ok "  ... without supplementary groups" || no "  ... without supplementary groups" "$(line Groups: "$out")"
caps=$(grep '^Cap' <<< "$out" | awk '{print $1 $2}' | tr '\n' ' ')
[ "$caps" = "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapBnd:0000000000000000 CapAmb:0000000000000000 " ] \
	&& ok "  ... with all five capability sets empty, bounding included" || no "  ... capability sets" "$caps"
grep -q "^CapBnd:.*0000003fffffffff\|^CapBnd:.*000001ffffffffff" /proc/self/status && ok "  ... (agentcage itself has the full bounding set)" || no "  ... outside, full bounding set" "$(grep CapBnd /proc/self/status)"
[ "$(line NoNewPrivs: "$out" | awk '{print $2}')" = 1 ] && [ "$(line Seccomp: "$out" | awk '{print $2}')" = 2 ] \
	&& ok "  ... with no_new_privs and a seccomp filter" || no "  ... no_new_privs, seccomp" "$(line NoNewPrivs: "$out") $(line Seccomp: "$out")"
[ "$(line suid "$out")" = "suid 65534" ] && ok "  ... a setuid-root binary gives it nothing (id -u: 65534)" || no "  ... setuid binary" "$(line suid "$out")"
[ "$(setpriv --reuid 65534 --regid 65534 --clear-groups $D/suid-id -u)" = 0 ] && ok "  ... outside a cage the same binary run by nobody is root" || no "  ... setuid outside"
[ "$(line "tmp " "$out")" = "tmp 65534" ] && [ "$(line tmp-write "$out")" = "tmp-write ok" ] \
	&& ok "  ... \${CAGE_TMP} belongs to it and it writes there" || no "  ... CAGE_TMP" "$(line "tmp" "$out")"
fds=$(grep '^fd ' <<< "$out" | awk '{print $2}' | tr '\n' ' ')
[ "$fds" = "0 1 2 " ] && ok "  ... only descriptors 0-2 reach it (fd 7 of the caller does not)" || no "  ... descriptors" "$fds"
$D/harden-probe 7>$D/leak | grep -q "^fd 7 -> $D/leak" && ok "  ... outside a cage, the probe does see fd 7" || no "  ... fd 7 outside"
envs=$(grep '^env ' <<< "$out" | cut -d' ' -f2- | grep -v '^PWD=' | sort | tr '\n' ' ')   # PWD: sh's own
case "$envs" in "HOME=/tmp/agentcage-"*" LANG=C.UTF-8 OK_VAR=y PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm TMPDIR=/tmp/agentcage-"*" ") ok "  ... its environment: PATH, HOME, LANG, TERM, TMPDIR and env: [OK_VAR] only";;
	*) no "  ... environment" "$envs";; esac
env FOO_SECRET=s $D/harden-probe | grep -q "^env FOO_SECRET=s" && ok "  ... outside a cage, FOO_SECRET is there" || no "  ... FOO_SECRET outside"
[ "$(line 'ns ipc' "$out")" != "ns ipc $out_ipc" ] && [ -n "$(line 'ns ipc' "$out")" ] && ok "  ... in a new IPC namespace" || no "  ... IPC namespace" "$(line 'ns ipc' "$out") vs $out_ipc"
[ -n "$shmkey" ] && [ "$(line "shm $shmkey" "$out_probe")" = "shm $shmkey $shmid" ] && ok "  ... outside, the host's SysV segment $shmkey is found" || no "  ... shm outside" "$shmkey $shmid $out_probe"
[ "$(line "shm $shmkey" "$out")" = "shm $shmkey -2" ] && ok "  ... in the cage it does not exist (ENOENT)" || no "  ... shm in the cage" "$(line shm "$out")"
[ "$(line int80 "$out")" = "int80 -1" ] && ok "  ... a 32-bit int \$0x80 call is refused (EPERM)" || no "  ... int 0x80" "$(line int80 "$out")"
case "$(line int80 "$out_probe")" in "int80 "[1-9]*) ok "  ... outside a cage it returns the pid";; *) no "  ... int80 outside" "$out_probe";; esac
[ "$(line keyctl "$out")" = "keyctl -1" ] && ok "  ... keyctl is refused (EPERM)" || no "  ... keyctl" "$(line keyctl "$out")"
[ "$(line unshare-user "$out")" = "unshare-user -1" ] && ok "  ... unshare(CLONE_NEWUSER) is refused (EPERM)" || no "  ... unshare" "$(line unshare-user "$out")"
[ "$(line unshare-user "$(setpriv --reuid 65534 --regid 65534 --clear-groups $D/launch-probe)")" = "unshare-user 0" ] \
	&& ok "  ... outside a cage nobody may unshare a user namespace" || no "  ... unshare outside"
[ "$(line getpriority "$out")" = "getpriority -1" ] && ok "  ... syscalls.deny: getpriority is refused (EPERM)" || no "  ... getpriority" "$(line getpriority "$out")"
key=$(line "key " "$out" | awk '{print $2}')
[ -n "$key" ] && [ "$((16#$key))" != "$out_keyring" ] && ok "  ... it possesses a session keyring of its own ($((16#${key:-0})), not $out_keyring)" || no "  ... keyring" "$key vs $out_keyring"
[ "$(line "sh " "$out")" != "sh 1" ] && ok "  ... without isolate it is not PID 1" || no "  ... pid" "$(line sh "$out")"
python3 $EV $D/l.json --none && ok "  ... and no event (nothing reached the kernel's refusals)" || no "  ... events" "$(head -c 300 $D/l.json)"

echo "## a policy naming root keeps root's capabilities; isolate: every namespace"
policy $D/r.yaml "user: root" "isolate: [pid, uts, mount, network]"
out=$(cd $D && $AC run --policy $D/r.yaml -- /bin/sh -c "$PROBE" 2>$D/r.err); st=$?
[ $st = 0 ] && ok "a probe runs as root" || no "the root run" "$st $out $(cat $D/r.err)"
[ "$(line CapEff: "$out" | awk '{print $2}')" = "$(line CapEff: "$(cat /proc/self/status)" | awk '{print $2}')" ] && [ "$(line Uid: "$out" | awk '{print $2}')" = 0 ] \
	&& ok "  ... uid 0 with agentcage's capabilities" || no "  ... root capabilities" "$(line CapEff: "$out")"
[ "$(line NoNewPrivs: "$out" | awk '{print $2}')" = 1 ] && ok "  ... still with no_new_privs" || no "  ... no_new_privs" "$(line NoNewPrivs: "$out")"
case "$(line keyctl "$out")" in "keyctl "[1-9]*) ok "  ... keyctl works (no built-in filter)";; *) no "  ... keyctl as root" "$(line keyctl "$out")";; esac
[ "$(line keyctl "$out")" != "keyctl $out_keyring" ] && ok "  ... and names a session keyring that is not the caller's ($out_keyring)" || no "  ... fresh keyring" "$(line keyctl "$out")"
case "$(line int80 "$out")" in "int80 "[1-9]*) ok "  ... the 32-bit entry works";; *) no "  ... int80 as root" "$(line int80 "$out")";; esac
[ "$(line getpriority "$out")" != "getpriority -1" ] && ok "  ... getpriority works (not in this policy's syscalls.deny)" || no "  ... getpriority" "$(line getpriority "$out")"
[ "$(line "sh " "$out")" = "sh 1" ] && ok "  ... isolate pid: the agent is PID 1" || no "  ... PID 1" "$(line sh "$out")"
links=$(grep '^link ' <<< "$out" | awk '{print $3}' | tr '\n' ' ')
[ "$links" = "lo: " ] && grep '^link ' <<< "$out" | grep -q 'UP' && ok "  ... isolate network: loopback only, up" || no "  ... network" "$links"
for ns in uts mnt net pid; do
	[ "$(line "ns $ns" "$out")" != "ns $ns $(stat -L -c %i /proc/self/ns/$ns)" ] || { no "  ... a new $ns namespace"; continue; }
	ok "  ... a new $ns namespace"
done
ipcrm -m "$shmid" 2>/dev/null

echo "## limits and the time limit"
# the agent: a small allocation, a memory hog, ten forks and a fork bomb,
# then a sleep for the time limit
cat > $D/limits.sh <<'S'
cg=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
echo cg $(cat $cg/memory.max $cg/memory.swap.max $cg/cpu.max $cg/pids.max)
python3 -c 'b = b"x" * (24 << 20); print("small ok")'
python3 -c 'b = b"x" * (256 << 20)'
echo "hog $?"
python3 -c '
import os, time
kids, refused = [], 0
for i in range(60):
    try:
        p = os.fork()
    except BlockingIOError:
        refused += 1
        continue
    if p == 0:
        time.sleep(30); os._exit(0)
    kids.append(p)
print("forks", len(kids), "refused", refused)
for p in kids:
    os.kill(p, 9); os.waitpid(p, 0)'
sleep 1234 & sleep 1235
S
policy $D/m.yaml "limits:" "  memory: 64M" "  pids: 24" "  cpu: 4" "  time: 90s"
t0=$(date +%s)
out=$(cd $D && $AC run --policy $D/m.yaml --timeout 1h --events $D/m.json -- /bin/sh $D/limits.sh 2>$D/m.err); st=$?
t1=$(date +%s)
[ "$(line "cg " "$out")" = "cg 67108864 0 400000 100000 24" ] && ok "the cage's memory.max, memory.swap.max, cpu.max and pids.max" || no "cgroup limits" "$(line "cg " "$out") $(cat $D/m.err)"
[ "$(line small "$out")" = "small ok" ] && ok "under memory: 64M a 24 MiB allocation works" || no "small allocation" "$out $(cat $D/m.err)"
[ "$(line hog "$out")" = "hog 137" ] && ok "  ... a memory hog is OOM-killed (SIGKILL)" || no "  ... memory hog" "$(line hog "$out")"
event "  ... reported as op=limit memory" $D/m.json op=limit path=memory action=denied
forks=$(line forks "$out")
case "$forks" in "forks "[0-9]*" refused "[1-9]*) n=$(echo $forks | awk '{print $2}')
	[ "$n" -ge 10 ] && [ "$n" -lt 24 ] && ok "under pids: 24, ten forks work and a fork bomb is stopped ($forks)" || no "fork bomb" "$forks";;
	*) no "fork bomb stopped" "$forks";; esac
event "  ... reported as op=limit pids" $D/m.json op=limit path=pids action=denied
[ $st = 124 ] && ok "limits.time (90s; --timeout 1h is longer): the run exits 124" || no "time limit: 124" "status $st: $(tail -n 3 $D/m.err)"
[ $((t1 - t0)) -lt 200 ] && ok "  ... after $((t1 - t0)) s, not 1234" || no "  ... it took $((t1 - t0)) s"
event "  ... reported as op=limit time" $D/m.json op=limit path=time
python3 -c 'import json, sys; ev = [json.loads(l) for l in open(sys.argv[1])]; p = [e["path"] for e in ev if "op" in e]
assert p.index("memory") < p.index("time") and p.index("pids") < p.index("time"), p' $D/m.json 2>/dev/null \
	&& ok "  ... the memory and pids events came as they happened, before the time ran out" || no "  ... events as they happen" "$(cat $D/m.json)"
pgrep -f "sleep 123[45]" >/dev/null && no "  ... everything in the cage was killed" "$(pgrep -af 'sleep 123')" || ok "  ... everything in the cage was killed"
# cpu: 0.1 and four seconds of a busy loop: throttled (cpu.stat nr_throttled)
policy $D/c.yaml "limits:" "  cpu: 0.1"
out=$(cd $D && $AC run --policy $D/c.yaml --events $D/c.json -- /bin/sh -c 'end=$(($(date +%s) + 4)); while [ $(date +%s) -lt $end ]; do :; done; echo burnt' 2>$D/c.err); st=$?
[ $st = 0 ] && [ "$out" = burnt ] && ok "under cpu: 0.1 a busy loop runs (and is throttled)" || no "cpu burn" "$st $out $(cat $D/c.err)"
event "  ... reported as op=limit cpu, with the periods throttled" $D/c.json op=limit path=cpu action=denied
python3 -c 'import json,sys; c=[json.loads(l)["count"] for l in open(sys.argv[1]) if json.loads(l).get("path")=="cpu"]; assert c and sum(c) >= 5, c' $D/c.json \
	&& ok "  ... at least 5 throttled periods counted" || no "  ... throttled count" "$(cat $D/c.json)"
! grep -q '"path":"cpu"' $D/m.json && ok "  ... and none under cpu: 4 above (one CPU here: never throttled, even when the emulated timer runs late)" || no "  ... cpu 4" "$(grep cpu $D/m.json)"
# the Landlock enforcer on this kernel: 6.1's Landlock is ABI 2, below the
# ABI 3 it needs (a read-only file could be truncated): refused, never run
# weaker; auto (BPF LSM loads here) takes BPF LSM, as every suite shows
out=$(cd $D && $AC run --enforcer landlock --accept-weaker --policy $D/c.yaml -- /bin/sh -c "touch $D/ll-ran" 2>&1); st=$?
[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"Landlock is ABI 2"*"needs ABI 3"*) true;; *) false;; esac \
	&& [ ! -e $D/ll-ran ] && ok "--enforcer landlock on 6.1 (Landlock ABI 2): 125, one line naming the ABI, never run" \
	|| no "--enforcer landlock on ABI 2" "$st $out"
rm -rf $D
