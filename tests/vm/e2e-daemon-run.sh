# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 91 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# agentcage run --cage NAME through the daemon (run by e2e.sh, or alone
# with e2e-one.sh): the cage's policy holds for the run's command (denied
# and allowed in the same run), its exit status and signals, the run's own
# cgroup under the cage and what it leaves killed at the end (also when the
# client is SIGKILLed), the launch of the cage's policy (user, capabilities,
# no_new_privs, limits), a member of the group agentcage running without
# root, refusals (no such cage, no daemon, bad options, an outsider, a wrong
# token or uid on join), and a run that outlives a SIGKILLed daemon, still
# confined. Everything it makes is removed at the end.
echo "# run --cage: commands in the daemon's cages"
R=/run/acrun-$$ D=/run/acrun-$$/pol SOCK=/run/acrun-$$/ac.sock DEV=$T/drun.json
ca=rca$$ cu=rcu$$                 # cage names of this run only
S=/srv/drun-$$
mkdir -p $D $S && chmod 755 $R $S
echo a > $S/a; echo b > $S/b; chmod 644 $S/a $S/b
# the group agentcage and a member of it, before the daemon makes its socket
groupadd -f agentcage && useradd -M -N -g nogroup -G agentcage -s /bin/sh acrun$$ \
	&& ok "a user acrun$$ in the group agentcage" || no "useradd"
cat > $D/a.yaml <<Y
name: $ca
files:
  read: [/usr, /lib, /lib64, /etc, /proc, $S/a]
  write: [/dev/null]
exec:
  allow: [/usr/bin, /bin]
Y
cat > $D/u.yaml <<Y
name: $cu
user: nobody
limits:
  pids: 24
files:
  read: [/usr, /lib, /lib64, /etc, /proc, $S/a]
  write: [/dev/null]
exec:
  allow: [/usr/bin, /bin]
Y
# (a budget of 200 events a cage and second: the reload test's loop goes over it)
$AC daemon --policy-dir $D --socket $SOCK --events $DEV --cage-events 200 > $T/dr.out 2> $T/dr.err &
dpid=$!
for _ in $(seq 1800); do [ -S $SOCK ] && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
[ -S $SOCK ] && [ "$(stat -c %G $SOCK)" = agentcage ] && ok "the daemon listens, its socket in the group agentcage" \
	|| no "daemon" "$(cat $T/dr.err; ls -l $SOCK)"
read -r _ _ _ soft hard _ <<< "$(grep '^Max open files' /proc/$dpid/limits)"
[ "$soft" = "$hard" ] && [ "$soft" -gt "$(ulimit -Sn)" ] && ok "  ... its open-file limit raised to the hard one ($soft; a cage holds descriptors)" \
	|| no "  ... nofile" "$soft $hard $(ulimit -Sn)"
CG=$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(json.load(sys.stdin)["cages"][0]["cgroup"].rsplit("/", 1)[0])')
run() { $AC run --cage "$@"; }
# gone CAGE: the cage has no run cgroup left (the daemon removes one when
# the connection of the run's client closes; wait up to 10 s for it)
gone() { for _ in $(seq 100); do [ -z "$(ls -d $CG/$1/run-* 2>/dev/null)" ] && return 0; sleep 0.1; done; return 1; }

out=$(run $ca --socket $SOCK -- cat $S/a 2>&1); st=$?
[ $st = 0 ] && [ "$out" = a ] && ok "run --cage A -- cat a: allowed by A's policy (exit 0, its output)" || no "run a" "$st $out"
out=$(run $ca --socket $SOCK -- cat $S/b 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "Operation not permitted" && ok "  ... cat b: denied (EPERM, cat's status 1)" || no "run b" "$st $out"
cat $S/b > /dev/null && ok "  ... the same cat b outside the cage succeeds" || no "outside"
event "  ... the denial is the daemon's event, named by the cage" $DEV op=open_read path=$S/b cage=$ca action=denied comm=cat
out=$(AGENTCAGE_SOCKET=$SOCK run $ca -- cat /proc/self/cgroup 2>&1); st=$?
echo "$out" | grep -q "^0::/agentcage/$ca/run-[0-9]*$" && ok "  ... in a cgroup of its own under the cage: ${out#0::} (socket from \$AGENTCAGE_SOCKET)" \
	|| no "cgroup" "$st $out"
gone $ca && ok "  ... which is gone once the run is" || no "run cgroup left" "$(ls $CG/$ca)"

expect "exit status: the command's own (7)" 7 run $ca --socket $SOCK -- sh -c 'exit 7'
expect "  ... 128+N when it dies of signal N (SIGKILL: 137)" 137 run $ca --socket $SOCK -- sh -c 'kill -9 $$'
expect "  ... 126: exec denied by the policy (/usr/sbin is not in exec.allow)" 126 run $ca --socket $SOCK -- /usr/sbin/nologin
expect "  ... (which runs outside the cage: its own status, 1)" 1 /usr/sbin/nologin
expect "  ... 127: no such command" 127 run $ca --socket $SOCK -- no-such-command-$$
expect "  ... 124: --timeout ran out" 124 run $ca --socket $SOCK --timeout 2 -- sleep 60
# a terminal on stdin: a pty of its own, as for a standalone run; --no-pty: the caller's
echo '[["expect","done"]]' > $T/rsteps.json
ttyof() { python3 -c 'import json, re, sys
r = json.loads(sys.argv[1]); m = re.search(r"^tty:(\S+)", r["out"].replace("\r", ""), re.M)
print(r["status"], m.group(1) if m else "-", r["tty"], r["modes_same"])' "$1"; }
res=$(python3 $repo/tests/vm/ptydrive.py $T/rsteps.json -- $AC run --cage $ca --socket $SOCK -- sh -c 'echo "tty:$(tty)"; echo done')
read -r st1 agent outer same <<< "$(ttyof "$res")"
[ "$st1" = 0 ] && case "$agent" in /dev/pts/*) [ "$agent" != "$outer" ];; *) false;; esac && [ "$same" = True ] \
	&& ok "a terminal on stdin: the command gets a pty of its own ($agent, not the caller's $outer), modes restored" || no "run --cage pty" "$res"
res=$(python3 $repo/tests/vm/ptydrive.py $T/rsteps.json -- $AC run --cage $ca --socket $SOCK --no-pty -- sh -c 'echo "tty:$(tty)"; echo done')
read -r st1 agent outer same <<< "$(ttyof "$res")"
[ "$st1" = 0 ] && [ "$agent" = "$outer" ] && ok "  ... --no-pty: the caller's terminal itself" || no "run --cage --no-pty" "$res"

# (agentcage itself in the background, not a subshell around it)
$AC run --cage $ca --socket $SOCK -- sleep 60 & c=$!
for _ in $(seq 300); do cat $CG/$ca/run-*/cgroup.procs 2>/dev/null | grep -q . && break; sleep 0.1; done
kill -TERM $c; wait $c; st=$?
[ $st = 143 ] && ok "  ... SIGTERM to agentcage is forwarded: the command dies of it (143)" || no "sigterm" "$st"

echo "# what a run leaves is killed"
out=$(run $ca --socket $SOCK -- sh -c 'sleep 300 > /dev/null 2>&1 & echo $!' 2>&1); st=$?
for _ in $(seq 100); do kill -0 "$out" 2>/dev/null || break; sleep 0.1; done
[ $st = 0 ] && [ -n "$out" ] && ! kill -0 "$out" 2>/dev/null && ok "a background sleep left by the command is killed when the run ends" \
	|| no "leftover" "$st $out"
gone $ca || no "a run cgroup left before the SIGKILL test" "$(ls -d $CG/$ca/run-*)"
$AC run --cage $ca --socket $SOCK -- sleep 300 & c=$!
for _ in $(seq 300); do a=$(cat $CG/$ca/run-*/cgroup.procs 2>/dev/null) && [ -n "$a" ] && break; sleep 0.1; done
kill -9 $c; wait $c 2>/dev/null
for _ in $(seq 100); do kill -0 $a 2>/dev/null || break; sleep 0.1; done
[ -n "$a" ] && ! kill -0 $a 2>/dev/null && gone $ca \
	&& ok "agentcage run SIGKILLed: the daemon kills its command ($a) and removes the run's cgroup" || no "client killed" "$a $(ls $CG/$ca)"

echo "# the launch of the cage's policy (user: nobody, limits: pids 24)"
out=$(run $cu --socket $SOCK -- sh -c 'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs):" /proc/self/status' 2>&1); st=$?
echo "$out" | grep -qx 65534 && echo "$out" | grep -q "^CapEff:.*0000000000000000$" && echo "$out" | grep -q "^CapBnd:.*0000000000000000$" \
	&& echo "$out" | grep -q "^NoNewPrivs:.*1$" && ok "a root caller's command runs as nobody, no capability, no_new_privs" || no "launch" "$st $out"
$AC run --cage $cu --socket $SOCK -- sleep 5 & c=$!
for _ in $(seq 300); do p=$(ls -d $CG/$cu/run-* 2>/dev/null) && [ -n "$p" ] && grep -q . $p/cgroup.procs && break; sleep 0.1; done
[ "$(cat $p/pids.max 2>/dev/null)" = 24 ] && ok "  ... the policy's pids limit is on the run's cgroup (pids.max 24)" || no "pids.max" "$p $(cat $p/pids.max 2>&1)"
wait $c

echo "# without root: a member of the group agentcage"
out=$(runuser -u acrun$$ -- $AC run --cage $ca --socket $SOCK -- sh -c 'id -un; cat '$S/a 2>&1); st=$?
[ $st = 0 ] && [ "$out" = "acrun$$
a" ] && ok "runs a command in cage A as itself (no root needed)" || no "member" "$st $out"
out=$(runuser -u acrun$$ -- $AC run --cage $ca --socket $SOCK -- cat $S/b 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "Operation not permitted" && ok "  ... and A's policy holds for it (cat b denied)" || no "member b" "$st $out"
runuser -u acrun$$ -- cat $S/b > /dev/null && ok "  ... which that user reads outside the cage" || no "member outside"
out=$(setpriv --reuid 65534 --regid 65534 --clear-groups $AC run --cage $ca --socket $SOCK -- true 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "cannot reach the daemon" && ok "an outsider (nobody) cannot: exit 125, socket refused" || no "outsider" "$st $out"

echo "# refusals"
out=$(run nosuch$$ --socket $SOCK -- true 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "no cage of that name" && ok "no such cage: exit 125 naming the cause" || no "nosuch" "$st $out"
out=$(run $ca --socket $R/none.sock -- true 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "cannot reach the daemon at $R/none.sock" && ok "no daemon: exit 125, 'cannot reach the daemon'" || no "no daemon" "$st $out"
out=$(run $ca --socket $SOCK --policy /dev/null -- true 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "drop --policy" && ok "--cage with --policy: exit 125, one line" || no "--policy" "$st $out"
# the protocol: a join needs the run's token and the run's user; a join
# moves the joiner alone (here a python process that then reads a and b)
python3 - $SOCK $ca acrun$$ $S > $T/join.out 2>&1 <<'P'
import grp, json, os, pwd, socket, sys
def conn():
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(20); return s
def ask(s, o):
    s.sendall((json.dumps(o) + "\n").encode()); buf = b""
    while not buf.endswith(b"\n"):
        d = s.recv(65536)
        if not d: break
        buf += d
    return json.loads(buf)
own = conn()
r = ask(own, {"v": 1, "method": "run", "cage": sys.argv[2]})
print("run", r["ok"], r["run"], r["launch"]["user"] == "", r["cgroup"])
bad = ask(conn(), {"v": 1, "method": "join", "run": r["run"], "token": "0" * 32})
print("wrongtoken", bad["ok"], bad["error"]["code"])
pid = os.fork()
if pid == 0:
    # a member of the group (the socket lets it in), not the run's user (root)
    os.setgroups([grp.getgrnam("agentcage").gr_gid]); os.setgid(65534)
    os.setuid(pwd.getpwnam(sys.argv[3]).pw_uid)
    o = ask(conn(), {"v": 1, "method": "join", "run": r["run"], "token": r["token"]})
    print("otheruid", o["ok"], o["error"]["code"], o["error"]["message"], flush=True); os._exit(0)
os.waitpid(pid, 0)
print("cgroup-before", open("/proc/self/cgroup").read().strip())
j = ask(conn(), {"v": 1, "method": "join", "run": r["run"], "token": r["token"]})
print("join", j["ok"], open("/proc/self/cgroup").read().strip())
for f in ("a", "b"):
    try: open(sys.argv[4] + "/" + f).read(); print("read", f, "ok")
    except OSError as e: print("read", f, "errno", e.errno)
sys.stdout.flush()
P
grep -q "^run True run-" $T/join.out && ok "protocol: run replies with a run, a token and the launch settings" || no "proto run" "$(cat $T/join.out)"
grep -q "^wrongtoken False cage.not_found" $T/join.out && ok "  ... a join with a wrong token is refused (cage.not_found)" || no "wrong token" "$(cat $T/join.out)"
grep -q "^otheruid False permission.denied only a process of the run's own user" $T/join.out && ok "  ... a join from another uid than the run's is refused (permission.denied)" || no "other uid" "$(cat $T/join.out)"
grep -q "^cgroup-before 0::/$" $T/join.out && grep -q "^join True 0::/agentcage/$ca/run-" $T/join.out \
	&& ok "  ... a join moves the joiner itself into the run's cgroup" || no "join" "$(cat $T/join.out)"
grep -q "^read a ok" $T/join.out && grep -q "^read b errno 1$" $T/join.out && ok "  ... where A's policy holds for it at once (a read, b EPERM)" || no "joined policy" "$(cat $T/join.out)"
gone $ca && ok "  ... and the run's cgroup went with the connection that asked for it" || no "proto run left" "$(ls $CG/$ca)"

echo "# 1000 reloads alternating two policies under a running agent: no gap"
cr=rcr$$
echo ok > $S/ok; echo never > $S/never; chmod 644 $S/ok $S/never
# P1 and P2 differ (x1 or x2), both read ok, neither reads never; both run
# the open loop (a C helper: an open, not a fork+exec, per try, so that
# thousands of tries fall across the swaps)
relpol() { printf 'name: %s\nfiles:\n  read: [/usr, /lib, /lib64, /etc, %s/ok, %s/x%s, %s/openloop]\n  write: [/dev/null]\nexec:\n  allow: [/usr/bin, /bin, %s/openloop]\n' $cr $S $S $1 $H $H; }
relpol 1 > $D/r.yaml
$AC reload --socket $SOCK > /dev/null 2>&1
chmod 755 $T
$AC run --cage $cr --socket $SOCK -- $H/openloop $S/never $S/ok $T/rel.stop > $T/rel.out 2>&1 & rl=$!
for _ in $(seq 300); do grep -q '^started' $T/rel.out 2>/dev/null && break; sleep 0.1; done
echo mark > $S/flood-mark; chmod 644 $S/flood-mark
expect "  ... (while that cage floods denials: one in cage A)" 1 run $ca --socket $SOCK -- cat $S/flood-mark
python3 - $SOCK $D $cr $S $H > $T/rel.py.out 2>&1 <<'P'
import json, os, socket, sys
sock, d, cage, s, h = sys.argv[1:6]
c = socket.socket(socket.AF_UNIX); c.connect(sock); c.settimeout(60)
f = c.makefile("rwb")
bad = 0
for i in range(1000):
    x = 2 if i % 2 == 0 else 1
    with open(d + "/.r.tmp", "w") as t:
        t.write("name: %s\nfiles:\n  read: [/usr, /lib, /lib64, /etc, %s/ok, %s/x%d, %s/openloop]\n  write: [/dev/null]\nexec:\n  allow: [/usr/bin, /bin, %s/openloop]\n" % (cage, s, s, x, h, h))
    os.rename(d + "/.r.tmp", d + "/r.yaml")
    f.write(b'{"v":1,"method":"reload","cage":"%s"}\n' % cage.encode()); f.flush()
    r = json.loads(f.readline())
    res = [x["result"] for x in r.get("results", [])]
    if not r["ok"] or not set(res) <= {"reloaded", "unchanged"}: bad += 1; print("bad reply", r)
f.write(b'{"v":1,"method":"ls","cage":"%s"}\n' % cage.encode()); f.flush()
print("bad", bad, "generation", json.loads(f.readline())["cages"][0]["generation"])
P
touch $T/rel.stop; wait $rl; st=$?
read -r _ nbad _ gen < $T/rel.py.out
[ "$nbad" = 0 ] && [ "${gen:-0}" -ge 1001 ] && ok "1000 reloads acknowledged (generation $gen)" || no "1000 reloads" "$(tail -3 $T/rel.py.out)"
read -r _ rounds _ forb _ fail <<< "$(grep '^rounds' $T/rel.out)"
[ $st = 0 ] && [ "$forb" = 0 ] && [ "$fail" = 0 ] && [ "${rounds:-0}" -ge 1000 ] \
	&& ok "  ... meanwhile the agent's $rounds rounds: 0 forbidden opens succeeded, 0 allowed opens failed" \
	|| no "  ... no gap" "status $st: $(cat $T/rel.out)"
out=$($AC --json ls --socket $SOCK 2>&1)
echo "$out" | python3 -c 'import json,sys; c={x["name"]:x for x in json.load(sys.stdin)["cages"]}; assert c[sys.argv[1]]["events_over_budget"] > 0 and c[sys.argv[2]]["events_over_budget"] == 0, c' $cr $ca \
	&& ok "  ... its denials over the cage's budget (200 a second) are counted, not sent; A has none over (ls: events_over_budget)" \
	|| no "  ... over budget" "$out"
event "  ... while cage A's one denial during the flood was delivered" $DEV op=open_read path=$S/flood-mark cage=$ca action=denied
printf 'name: %s\nfiles:\n  read: [/usr]\n  read: [/lib]\n' $cr > $D/.r.tmp && mv $D/.r.tmp $D/r.yaml
out=$($AC reload --socket $SOCK $cr 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "r.yaml:4:3: duplicate key 'read'" && ok "an invalid edit: reload exits 1 with file:line:col" || no "invalid" "$st $out"
$AC --json events --cage $cr --socket $SOCK > $T/rel.ev 2>&1
grep -q '"level":"error","code":"policy.invalid","file":"'$D/r.yaml'","message":"'$D'/r.yaml:4:3: duplicate key' $T/rel.ev \
	&& ! grep -q '"level":"error"' $DEV && ok "  ... and the error is in the event stream (not in the --events file: events only)" || no "  ... error event" "$(tail -2 $T/rel.ev)"
relpol 1 > $D/.r.tmp && mv $D/.r.tmp $D/r.yaml
expect "  ... a valid file again: reloaded (exit 0)" 0 $AC reload --socket $SOCK $cr
out=$(run $cr --socket $SOCK -- cat $S/never 2>&1); st=$?
[ $st = 1 ] && run $cr --socket $SOCK -- cat $S/ok > /dev/null && ok "  ... (the loop's test is live: never denied, ok read, in the same cage now)" \
	|| no "  ... live" "$st $out"

echo "# a policy id that comes back brings back no cached decision"
# A reload writes into the cage's spare, the rules of the policy before
# last under their id, only what differs; the programs' directory cache
# (tmpfs, ext4, xfs, btrfs) is tagged with the generation, which is new
# with every switch. P1 reads M; P2 and P3 do not; P3 goes into P1's id.
# A rename or mount anywhere ends every cache entry (and a lookup on the
# 9p share may rename a dentry): between the cache's fill and the test,
# the agent (a shell in the cage) opens with builtins alone, the policy is
# a file on a tmpfs written in place, and the client runs from a tmpfs.
cs=rcs$$ M=/run/acdc-$$ ST=/run/acdc-$$.yaml ACT=/run/acdc-$$.ac
mkdir -p $M && mount -t tmpfs -o mode=755 acdc $M && mkdir -m 755 $M/d $M/ctl && echo x > $M/d/f && chmod 644 $M/d/f
mkfifo -m 666 $M/ctl/in $M/ctl/out && cp $AC $ACT
spolw() { printf 'name: %s\nfiles:\n  read: [/usr, /lib, /lib64, /etc, %s]\n  write: [/dev/null, %s/ctl]\nexec:\n  allow: [/usr/bin, /bin]\n' $cs "$1" $M > $ST; }
spol() { spolw "$1"; $ACT reload --socket $SOCK $cs > /dev/null 2>&1; $ACT --json ls --socket $SOCK > $T/ids-$2.json; }
ids() { python3 -c 'import json,sys; c=[x for x in json.load(open(sys.argv[2]))["cages"] if x["name"]==sys.argv[1]][0]; print(c["policy_id"], c["policy_gen"])' $cs $T/ids-$1.json; }
# decisions the directory cache took (stats[AC_STAT_DIR_HIT], all CPUs)
dirhits() { bpftool -j map lookup pinned /sys/fs/bpf/agentcage/daemon/map-stats key 2 0 0 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
if "formatted" in d: print(sum(int(x["value"]) for x in d["formatted"]["values"]))
else: print(sum(int.from_bytes(bytes(int(b, 16) for b in x["value"]), "little") for x in d["values"]))'; }
# try N: the agent opens M/d/f (a builtin read) and says allowed or denied
try() { echo "$1" >&7; read -r -t 30 ans <&8; echo "$ans"; }
spolw $M; ln -s $ST $D/s.yaml; $AC reload --socket $SOCK > /dev/null 2>&1; $AC --json ls --socket $SOCK > $T/ids-1.json
run $cs --socket $SOCK --no-pty -- bash -c "exec 3<$M/ctl/in 4>$M/ctl/out
	while read -r n <&3; do if read -r x < $M/d/f 2>/dev/null; then echo \"\$n allowed\" >&4; else echo \"\$n denied\" >&4; fi; done" \
	> $T/dcl.out 2>&1 & dcl=$!
exec 7>$M/ctl/in 8<$M/ctl/out
h0=$(dirhits)
r1=$(try 1); r1b=$(try 1b)
spol /srv/none-2 2; r2=$(try 2)
spol /srv/none-3 3; r3=$(try 3)
spol $M 4; r4=$(try 4)
h1=$(dirhits)
exec 7>&- 8<&-; wait $dcl
read -r id1 g1 <<< "$(ids 1)"; read -r id2 g2 <<< "$(ids 2)"; read -r id3 g3 <<< "$(ids 3)"; read -r id4 g4 <<< "$(ids 4)"
[ "$r1 $r1b" = "1 allowed 1b allowed" ] && [ "$h1" -gt "$h0" ] && ok "P1 reads $M/d/f, the second time from the directory cache (hits $h0 -> $h1)" \
	|| no "P1" "$r1 / $r1b, hits $h0 $h1: $(cat $T/dcl.out)"
[ "$r2" = "2 denied" ] && [ "$id2" != "$id1" ] && ok "  ... P2 does not (another policy id: $id1 -> $id2)" || no "  ... P2" "$r2 $id1 $id2"
[ "$id3" = "$id1" ] && [ "$g3" != "$g1" ] && [ "$g3" != "$g2" ] \
	&& ok "  ... P3 is written into P1's id again (by difference), generation $g1 -> $g3" || no "  ... P3 ids" "$id1/$g1 $id2/$g2 $id3/$g3"
[ "$r3" = "3 denied" ] && ok "  ... and P3 denies it: P1's cached class does not come back with its id" || no "  ... P3 stale" "$r3"
[ "$r4" = "4 allowed" ] && [ "$id4" = "$id2" ] && ok "  ... P4 reads it again, in P2's id" || no "  ... P4" "$r4 $id4 $id2"
out=$($AC status --socket $SOCK $cs 2>&1); st=$?
[ $st = 0 ] && ok "  ... status: the cages map holds the ids and generation the daemon expects" || no "  ... status" "$st $out"
rm -f $D/s.yaml $ST $ACT; $AC reload --socket $SOCK > /dev/null 2>&1; umount $M; rmdir $M

echo "# a run outlives a SIGKILLed daemon, still confined"
# (the script as an argument: A's policy does not read $T; a stat is not checked)
long="echo started
while [ ! -e $T/long.go ]; do sleep 0.1; done
cat $S/a > /dev/null 2>&1; echo \"a \$?\"
cat $S/b > /dev/null 2>&1; echo \"b \$?\""
chmod 755 $T
out=$T/long.out
( run $ca --socket $SOCK -- sh -c "$long" > $out 2>&1; echo "status $?" >> $out ) &
for _ in $(seq 300); do grep -q started $out 2>/dev/null && break; sleep 0.1; done
kill -9 $dpid; wait $dpid 2>/dev/null
touch $T/long.go
for _ in $(seq 300); do grep -q '^status' $out && break; sleep 0.1; done
grep -q "^a 0$" $out && grep -q "^b 1$" $out && grep -q "^status 0$" $out \
	&& ok "daemon SIGKILLed mid-run: the command goes on, a still allowed, b still denied, its status returned" || no "daemon killed" "$(cat $out)"
$AC daemon --policy-dir $D --socket $SOCK --events $DEV --metrics 127.0.0.1:19464 > $T/dr2.out 2> $T/dr2.err &
dpid=$!
for _ in $(seq 600); do $AC ls --socket $SOCK > /dev/null 2>&1 && break; kill -0 $dpid 2>/dev/null || break; sleep 0.2; done
gone $ca && ok "  ... the restarted daemon removes the run's empty cgroup" || no "sweep" "$(ls $CG/$ca; tail -3 $T/dr2.err)"
expect "  ... and runs go on through it" 0 run $ca --socket $SOCK -- cat $S/a

echo "# --metrics: a Prometheus text endpoint"
expect "  ... (a denial to count: cat b in A)" 1 run $ca --socket $SOCK -- cat $S/b
python3 - > $T/metrics.out 2>&1 <<'P'
import socket, urllib.request
m = urllib.request.urlopen("http://127.0.0.1:19464/metrics", timeout=30)
print("status", m.status, m.headers["Content-Type"])
print(m.read().decode())
s = socket.create_connection(("127.0.0.1", 19464), timeout=30)
s.sendall(b"POST /metrics HTTP/1.0\r\n\r\n")
print("post", s.recv(100).split(b"\r\n")[0].decode())
P
grep -q "^status 200 text/plain; version=0.0.4" $T/metrics.out && ok "GET /metrics: 200, Prometheus text format" || no "metrics" "$(head -3 $T/metrics.out)"
grep -q "^agentcage_cages 3$" $T/metrics.out && grep -q '^agentcage_enforcer{enforcer="bpf-lsm"} 1$' $T/metrics.out && grep -Eq "^agentcage_decisions_total\{cage=\"$ca\",op=\"open_read\",action=\"denied\"\} [1-9]" $T/metrics.out \
	&& grep -Eq "^agentcage_cage_rules\{cage=\"$ca\",kind=\"file\"\} [1-9]" $T/metrics.out && grep -Eq "^agentcage_reloads_total\{result=\"failed\"\} [0-9]+$" $T/metrics.out \
	&& grep -Eq "^agentcage_cage_generation\{cage=\"$cr\"\} [0-9]+$" $T/metrics.out \
	&& grep -Eq "^agentcage_events_over_budget_total\{cage=\"$cr\"\} [1-9]" $T/metrics.out \
	&& grep -Eq "^agentcage_events_lost_total [0-9]+$" $T/metrics.out \
	&& ok "  ... cages, the enforcer, A's denials by op and action, rules, reloads, events lost" || no "  ... metrics content" "$(grep -v '^#' $T/metrics.out | head -20)"
grep -q "^post HTTP/1.0 405" $T/metrics.out && ok "  ... anything but GET: 405" || no "  ... 405" "$(tail -2 $T/metrics.out)"
python3 -c 'import socket,time; s=socket.create_connection(("127.0.0.1",19464)); time.sleep(20)' & idle=$!
sleep 1
expect "  ... a scraper that says nothing does not stall the daemon" 0 timeout 15 $AC ls --socket $SOCK
kill $idle 2>/dev/null; wait $idle 2>/dev/null

# cleanup: the daemon, its cages, pins, files, the user and group
kill $dpid; wait $dpid 2>/dev/null
for c in $ca $cu $cr; do echo 1 > $CG/$c/cgroup.kill 2>/dev/null; done
sleep 0.5
for c in $ca $cu $cr; do rmdir $CG/$c/run-* $CG/$c 2>/dev/null; done
rm -rf /sys/fs/bpf/agentcage/daemon $R $S
userdel acrun$$ 2>/dev/null; groupdel agentcage 2>/dev/null
chmod 700 $T
[ ! -e $CG/$ca ] && [ ! -e $CG/$cu ] && [ ! -e $CG/$cr ] && [ ! -e /sys/fs/bpf/agentcage/daemon ] && ok "cleanup: this suite's cgroups and pins are gone" || no "cleanup"
