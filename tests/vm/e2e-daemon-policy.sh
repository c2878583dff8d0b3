# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 113 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# agentcage run --policy FILE through a running daemon (run by e2e.sh, or
# alone with e2e-one.sh): the policy becomes an ephemeral cage NAME-PID of
# the daemon that lives as long as the run (denied and allowed in the same
# run, its events on the caller's stderr and in the daemon's sinks, audit
# mode, launch settings, its own pty), goes when the run ends or its client
# is SIGKILLed, a SIGHUP reload that swaps it (and a failed one that keeps
# it), an invalid file refused with 125, a member of the group agentcage
# without root, a daemon SIGKILLed mid-run (adopted, removed once empty),
# the standalone runs (--standalone, and no daemon at the socket), and the
# daemon's capacities (--max-cages, --max-rules, --ring-buffer; adopted
# sizes kept) and its re-resolution of a cage's hostnames (--dns-refresh).
echo "# run --policy through a daemon: ephemeral cages"
R=/run/acpol-$$ D=/run/acpol-$$/pol SOCK=/run/acpol-$$/ac.sock DEV=$T/dpol.json
S=/srv/dpol-$$ n=ep$$
mkdir -p $D $S && chmod 755 $R $S
echo a > $S/a; echo b > $S/b; chmod 644 $S/a $S/b
groupadd -f agentcage && useradd -M -N -g nogroup -G agentcage -s /bin/sh acpol$$ \
	&& ok "a user acpol$$ in the group agentcage" || no "useradd"
pol() { cat > $1 <<Y
name: $n
$2
files:
  read: [/usr, /lib, /lib64, /etc, /proc, $S/a $3]
  write: [/dev/null]
exec:
  allow: [/usr/bin, /bin]
Y
chmod 644 $1; }
P=$S/p.yaml; pol $P "" ""
$AC daemon --policy-dir $D --socket $SOCK --events $DEV > $T/dp.out 2> $T/dp.err &
dpid=$!
for _ in $(seq 1800); do [ -S $SOCK ] && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
[ -S $SOCK ] && ok "the daemon listens (an empty policy directory)" || no "daemon" "$(cat $T/dp.err)"
CG=/sys/fs/cgroup/agentcage
export AGENTCAGE_SOCKET=$SOCK
# cages NAME: the daemon's cage names, one a line
cages() { $AC --json ls --socket $SOCK | python3 -c 'import json,sys; [print(c["name"], c["ephemeral"], c["file"]) for c in json.load(sys.stdin)["cages"]]'; }
# nocage: no cage of this policy is left, in the daemon or as a cgroup (10 s)
nocage() { for _ in $(seq 100); do [ -z "$(cages | grep "^$n-")" ] && [ -z "$(ls -d $CG/$n-* 2>/dev/null)" ] && return 0; sleep 0.1; done; return 1; }

out=$($AC run --policy $P -- sh -c "cat $S/a; cat /proc/self/cgroup" 2>&1); st=$?
[ $st = 0 ] && echo "$out" | grep -qx a && echo "$out" | grep -Eq "^0::/agentcage/$n-[0-9]+/run-[0-9]+$" \
	&& ok "run --policy with a daemon: cat a allowed, in the daemon's cage $n-PID, a run cgroup of it" || no "via daemon" "$st $out"
out=$($AC run --policy $P -- cat $S/b 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "Operation not permitted" && ok "  ... cat b: denied (EPERM, cat's status 1)" || no "denied b" "$st $out"
echo "$out" | grep -Eq " $n-[0-9]+ DENY .*op=open_read.*path=\"$S/b\"" && ok "  ... the denial printed on the caller's stderr (plain)" || no "  ... plain event" "$out"
cat $S/b > /dev/null && ok "  ... the same cat b outside the cage succeeds" || no "outside"
event "  ... and in the daemon's --events file, named by the ephemeral cage" $DEV op=open_read path=$S/b "cage~=^$n-[0-9]+$" action=denied comm=cat
nocage && ok "  ... the cage is gone once the run is (daemon and cgroup)" || no "cage left" "$(cages; ls -d $CG/$n-*)"
out=$($AC run --json --events $T/pe.json --policy $P -- cat $S/b 2>$T/pe.err); st=$?
grep -q "\"op\":\"open_read\"" $T/pe.err && python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]' $T/pe.err \
	&& ok "  ... --json: the event as a JSON line on stderr" || no "  ... --json" "$(cat $T/pe.err)"
event "  ... --events FILE: the event there too" $T/pe.json op=open_read path=$S/b action=denied comm=cat
out=$($AC run --mode audit --policy $P -- cat $S/b 2>&1); st=$?
[ $st = 0 ] && echo "$out" | grep -qx b && echo "$out" | grep -q " AUDIT .*path=\"$S/b\"" && ok "--mode audit: cat b succeeds, reported AUDIT" || no "audit" "$st $out"
expect "exit status: the command's own (7)" 7 $AC run --policy $P -- sh -c 'exit 7'
$AC run --policy $P --events $T/to.json --timeout 2 -- sleep 60 2> $T/to.err; st=$?
[ $st = 124 ] && ok "  ... 124: --timeout ran out" || no "  ... 124" "$st $(cat $T/to.err)"
event "  ... reported as op=limit time (2 s), to the client (--events)" $T/to.json op=limit path=time count=2
event "  ... and in the daemon's sink, named by the cage" $DEV op=limit path=time "cage~=^$n-[0-9]+$"
nocage && ok "  ... and no cage is left after them" || no "cages left" "$(cages)"

echo "# the launch of the policy, and the agent's own terminal"
pol $S/u.yaml "user: nobody" ""
out=$($AC run --policy $S/u.yaml -- sh -c 'id -u; grep ^CapEff /proc/self/status' 2>&1)
echo "$out" | grep -qx 65534 && echo "$out" | grep -q "CapEff:.*0000000000000000" && ok "user: nobody applies (uid 65534, no capability)" || no "user" "$out"
echo '[["expect","done"]]' > $T/steps.json
res=$(python3 $repo/tests/vm/ptydrive.py $T/steps.json -- $AC run --policy $P -- sh -c 'echo "tty:$(tty)"; echo done')
python3 - "$res" <<'PY' && ok "  ... a terminal on stdin: the agent gets a pty of its own, not the caller's" || no "  ... pty" "$res"
import json, re, sys
r = json.loads(sys.argv[1]); out = r["out"].replace("\r", "")
m = re.search(r"^tty:(/dev/pts/\d+)$", out, re.M)
sys.exit(0 if m and m.group(1) != r["tty"] and r["status"] == 0 else 1)
PY

echo "# limits: a run's OOM kill and refused forks are events of its cage"
pol $S/l.yaml "limits:
  memory: 32M
  pids: 8" ""
hog='import os, time
try:
    x = bytearray(256 << 20)
except MemoryError:
    pass'
forks='import os, time
n = 0
for i in range(12):
    try:
        p = os.fork()
    except OSError:
        n += 1
        continue
    if p == 0:
        time.sleep(3); os._exit(0)
print("refused", n)'
out=$($AC run --events $T/l.json --policy $S/l.yaml -- sh -c "python3 -c '$hog'; echo \"hog \$?\"; python3 -c '$forks'" 2>$T/l.err)
echo "$out" | grep -qx "hog 137" && ok "memory: 32M: a memory hog in the run is OOM-killed (SIGKILL)" || no "hog" "$out $(cat $T/l.err)"
echo "$out" | grep -Eq "^refused [1-9]" && ok "  ... pids: 8: forks past the limit are refused ($(echo "$out" | grep ^refused))" || no "forks" "$out"
event "  ... op=limit memory, to the client (--events)" $T/l.json op=limit path=memory action=denied
event "  ... op=limit pids, to the client" $T/l.json op=limit path=pids action=denied
grep -q 'op=limit' $T/l.err && ok "  ... and on its stderr" || no "  ... limit on stderr" "$(cat $T/l.err)"
event "  ... and in the daemon's sink, named by the cage" $DEV op=limit path=pids "cage~=^$n-[0-9]+$"

echo "# refusals"
printf 'name: %s\nfiles:\n  read: [/usr\n' $n > $S/bad.yaml; chmod 644 $S/bad.yaml
out=$($AC run --policy $S/bad.yaml -- true 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "$S/bad.yaml:[0-9]*:[0-9]*:" \
	&& $AC --json run --policy $S/bad.yaml -- true 2>&1 | grep -q '"code":"policy.invalid"' \
	&& ok "an invalid file: 125, the daemon's error names FILE:LINE:COL" || no "invalid" "$st $out"
nocage && ok "  ... and no cage is made" || no "  ... cage after invalid" "$(cages)"
expect "--socket naming no daemon: 125 (daemon.unreachable), not a silent standalone run" 125 $AC run --socket $R/none.sock --policy $P -- true
expect "--standalone with --socket: 125 (usage)" 125 $AC run --standalone --socket $SOCK --policy $P -- true

echo "# standalone runs"
out=$($AC run --standalone --policy $P -- sh -c "cat /proc/self/cgroup; cat $S/b" 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -Eq "^0::/agentcage/$n-[0-9]+$" && echo "$out" | grep -q "Operation not permitted" \
	&& [ -z "$(cages | grep "^$n-")" ] && ok "--standalone with a daemon running: its own cage (no run cgroup, not the daemon's), b denied" || no "standalone" "$st $out"
out=$(AGENTCAGE_SOCKET=$R/none.sock $AC run -v --policy $P -- sh -c "cat /proc/self/cgroup; cat $S/a" 2>&1); st=$?
[ $st = 0 ] && echo "$out" | grep -Eq "^0::/agentcage/$n-[0-9]+$" && echo "$out" | grep -q "no daemon answers" \
	&& ok "no daemon at the socket: the run loads its own programs (and -v says so)" || no "fallback" "$st $out"

echo "# a member of the group agentcage, without root"
out=$(runuser -u acpol$$ -- $AC run --socket $SOCK --policy $P -- sh -c "id -u; cat $S/a; cat $S/b" 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -qx a && echo "$out" | grep -q "Operation not permitted" && echo "$out" | grep -qx "$(id -u acpol$$)" \
	&& ok "member: run --policy through the daemon as itself, a allowed, b denied" || no "member" "$st $out"
out=$(AGENTCAGE_SOCKET=$R/none.sock setpriv --reuid 65534 --regid 65534 --clear-groups $AC run --policy $P -- true 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "needs root" && echo "$out" | grep -q "agentcage daemon" \
	&& ok "a non-root caller with no daemon: 125, naming both fixes" || no "no root, no daemon" "$st $out"

echo "# connections: more than 64 at once; at most 256 of one user other than root"
cat > $S/conns.py <<'P'
import json, socket, subprocess, sys
socks = []
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(60); socks.append(s)
served = 0
for s in socks[:5] + socks[-5:]:
    s.sendall(b'{"v":1,"method":"ls"}\n')
    served += json.loads(s.makefile().readline())["ok"]
print("served", served, flush=True)
if sys.argv[3] == "extra":   # one more: refused at once, with no request
    x = socket.socket(socket.AF_UNIX); x.connect(sys.argv[1]); x.settimeout(60)
    print("extra", json.loads(x.makefile().readline())["error"]["code"], flush=True)
else:
    print("cmd", subprocess.run(sys.argv[3:], capture_output=True).returncode, flush=True)
P
chmod 644 $S/conns.py
out=$(runuser -u acpol$$ -- python3 $S/conns.py $SOCK 256 extra 2>&1)
[ "$(echo $out)" = "served 10 extra permission.denied" ] && ok "a member's 256 connections at once are served; its 257th is refused (permission.denied)" || no "per-uid connections" "$out"
out=$(python3 $S/conns.py $SOCK 300 $AC ls --socket $SOCK 2>&1)
[ "$(echo $out)" = "served 10 cmd 0" ] && ok "  ... root's 300 are all served, and ls answers meanwhile" || no "root connections" "$out"

echo "# SIGHUP reloads the ephemeral cage; a bad file keeps the old policy"
cp $P $S/r.yaml
# (the agent may not write $T: it reads b once each of go1, go2, go3 appears)
loop="echo started; i=1
while [ \$i -le 3 ]; do if [ -e $T/go\$i ]; then cat $S/b > /dev/null 2>&1; echo \"b \$?\"; i=\$((i + 1)); fi; sleep 0.1; done"
chmod 755 $T
( $AC run --policy $S/r.yaml -- sh -c "$loop" > $T/r.out 2> $T/r.err; echo "status $?" >> $T/r.out ) &
for _ in $(seq 300); do grep -q started $T/r.out 2>/dev/null && break; sleep 0.1; done
cpid=$(pgrep -f "run --policy $S/r.yaml" | head -1)
nb() { for _ in $(seq 100); do [ "$(grep -c '^b ' $T/r.out)" = $1 ] && return; sleep 0.1; done; }
touch $T/go1; nb 1
pol $S/r.yaml "" ", $S/b"; kill -HUP $cpid
for _ in $(seq 100); do grep -q "policy reloaded" $T/r.err && break; sleep 0.1; done
touch $T/go2; nb 2
echo "files: [" > $S/r.yaml; kill -HUP $cpid
for _ in $(seq 100); do grep -q "reload failed" $T/r.err && break; sleep 0.1; done
touch $T/go3; nb 3
for _ in $(seq 100); do grep -q '^status' $T/r.out && break; sleep 0.1; done
[ "$(grep '^b ' $T/r.out | tr '\n' ' ')" = "b 1 b 0 b 0 " ] && grep -q "^status 0$" $T/r.out \
	&& ok "b denied, SIGHUP with b granted: allowed; a bad file then: still allowed" || no "reload" "$(cat $T/r.out $T/r.err)"
grep -q "policy reloaded from $S/r.yaml" $T/r.err && grep -q "reload failed, keeping the old policy: .*$S/r.yaml:" $T/r.err \
	&& ok "  ... each reload's outcome on stderr (the error with FILE:LINE:COL)" || no "  ... reload messages" "$(cat $T/r.err)"

echo "# the client SIGKILLed, the daemon SIGKILLed"
( $AC run --policy $P -- sleep 600 > /dev/null 2>&1 & echo $! > $T/k.pid; wait ) 2>/dev/null &
for _ in $(seq 300); do cat $CG/$n-*/run-*/cgroup.procs 2>/dev/null | grep -q . && break; sleep 0.1; done
cages | grep -q "^$n-[0-9]* True $P$" && ok "ls lists the run's cage: ephemeral, its file" || no "ls ephemeral" "$(cages)"
kill -9 "$(cat $T/k.pid)"
nocage && ! pgrep -f "^sleep 600$" > /dev/null && ok "client SIGKILLed: the daemon kills its command and removes the cage" || no "client killed" "$(cages; pgrep -af 'sleep 600')"
long="echo started
while [ ! -e $T/long.go ]; do sleep 0.1; done
cat $S/a > /dev/null 2>&1; echo \"a \$?\"
cat $S/b > /dev/null 2>&1; echo \"b \$?\""
( $AC run --policy $P -- sh -c "$long" > $T/long.out 2>&1; echo "status $?" >> $T/long.out ) &
for _ in $(seq 300); do grep -q started $T/long.out 2>/dev/null && break; sleep 0.1; done
kill -9 $dpid; wait $dpid 2>/dev/null
touch $T/long.go
for _ in $(seq 300); do grep -q '^status' $T/long.out && break; sleep 0.1; done
grep -q "^a 0$" $T/long.out && grep -q "^b 1$" $T/long.out && grep -q "^status 0$" $T/long.out \
	&& ok "daemon SIGKILLed mid-run: the command goes on, a allowed, b still denied" || no "daemon killed" "$(cat $T/long.out)"
$AC daemon --policy-dir $D --socket $SOCK --events $DEV > $T/dp2.out 2> $T/dp2.err &
dpid=$!
for _ in $(seq 600); do $AC ls --socket $SOCK > /dev/null 2>&1 && break; kill -0 $dpid 2>/dev/null || break; sleep 0.2; done
for _ in $(seq 150); do [ -z "$(ls -d $CG/$n-* 2>/dev/null)" ] && break; sleep 0.2; done
nocage && grep -q "adopted cage $n-" $T/dp2.err && ok "  ... the restarted daemon adopts its cage and removes it once empty" || no "  ... adopt and sweep" "$(cages; tail -5 $T/dp2.err)"
expect "  ... and run --policy goes on through it" 0 $AC run --policy $P -- cat $S/a

echo "# capacities: the kernel maps sized from the daemon's options"
kill $dpid; wait $dpid 2>/dev/null
rm -rf /sys/fs/bpf/agentcage/daemon
C=$R/cap; mkdir -p $C
for i in $(seq 17); do printf 'name: cap%s-%s\nfiles:\n  read: [/usr]\n' $$ x$i > $C/c$i.yaml; done
$AC daemon --policy-dir $C --socket $SOCK --max-cages 16 --max-rules 1024 --ring-buffer 1 > $T/dc.out 2> $T/dc.err &
dpid=$!
for _ in $(seq 1800); do $AC ls --socket $SOCK > /dev/null 2>&1 && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
cap() { $AC --json ls --socket $SOCK | python3 -c 'import json,sys; r=json.load(sys.stdin); c=r["capacity"]; print(len(r["cages"]), c["cages"], c["file_rules"], c["ring_buffer_bytes"])'; }
[ "$(cap)" = "16 16 1024 1048576" ] && grep -q "more than 16 cages (.*--max-cages)" $T/dc.err \
	&& ok "--max-cages 16: 16 of 17 files are cages, the 17th refused naming the option; ls: the capacities" || no "capacities" "$(cap) $(grep -m2 'cages' $T/dc.err)"
rm -f $C/c17.yaml $C/c16.yaml
for _ in $(seq 100); do [ "$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["cages"]))')" = 15 ] && break; sleep 0.1; done
{ printf 'name: %s\nfiles:\n  read: [/usr, /lib, /lib64, /etc, /proc, %s/a' $n $S; for i in $(seq 1100); do printf ', /srv/none-%s/f%s' $$ $i; done; printf ']\nexec:\n  allow: [/usr/bin, /bin]\n'; } > $S/big.yaml
chmod 644 $S/big.yaml
out=$($AC run --policy $S/big.yaml -- cat $S/a 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q "rule maps are full.*--max-rules" && nocage \
	&& ok "--max-rules 1024: a policy of 1,100 file rules is refused (125, naming the option), nothing made" || no "max-rules" "$st $out"
out=$($AC run --policy $P -- cat $S/a 2>&1); st=$?
[ $st = 0 ] && [ "$out" = a ] && ok "  ... while a small one runs in the same daemon" || no "  ... small" "$st $out"
kill $dpid; wait $dpid 2>/dev/null
$AC daemon --policy-dir $C --socket $SOCK --max-cages 64 --dns-refresh 2 > $T/dc2.out 2> $T/dc2.err &
dpid=$!
for _ in $(seq 1800); do $AC ls --socket $SOCK > /dev/null 2>&1 && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
[ "$(cap)" = "15 16 1024 1048576" ] && grep -q "keeps the capacities it was loaded with" $T/dc2.err \
	&& ok "  ... a daemon restarted with other capacities adopts the set with its own, and says so" || no "  ... adopt capacities" "$(cap) $(tail -3 $T/dc2.err)"

echo "# hostnames in a daemon's cage are re-resolved (--dns-refresh 2)"
host=ac-dpol$$.test
echo "127.0.0.2 $host" >> /etc/hosts
python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.3", 9155)); s.listen(64)
while True: s.accept()[0].close()' & lpid=$!
cat > $S/h.yaml <<Y
name: $n
files:
  read: [/usr, /lib, /lib64, /etc, /proc]
  write: [/dev/null]
exec:
  allow: [/usr/bin, /bin]
network:
  allow: [$host:9155]
Y
chmod 644 $S/h.yaml
hloop='import socket, time
for i in range(40):
    try:
        socket.create_connection(("127.0.0.3", 9155), 0.5).close(); print("allowed", flush=True)
    except OSError:
        print("denied", flush=True)
    time.sleep(0.2)'
( $AC run --policy $S/h.yaml -- python3 -c "$hloop" > $T/h.out 2> $T/h.err ) & hpid=$!
for _ in $(seq 300); do grep -q . $T/h.out 2>/dev/null && break; sleep 0.1; done
sleep 1
sed -i "s/^127.0.0.2 $host\$/127.0.0.3 $host/" /etc/hosts
wait $hpid
kill $lpid 2>/dev/null; wait $lpid 2>/dev/null
sed -i "/ $host\$/d" /etc/hosts
seq=$(uniq $T/h.out | tr '\n' ' ')
[ "$seq" = "denied allowed " ] && grep -q "hostnames re-resolved" $T/dc2.err \
	&& ok "a run's cage: 127.0.0.3 denied, then allowed once $host moved there (no reload)" || no "dns refresh" "$seq $(grep -i host $T/dc2.err | tail -3)"

for c in $CG/cap$$-*; do echo 1 > $c/cgroup.kill; done 2>/dev/null

# cleanup: the daemon, its cages, pins, files, the user and group
unset AGENTCAGE_SOCKET
kill $dpid; wait $dpid 2>/dev/null
for c in $CG/$n-*; do [ -d "$c" ] && echo 1 > $c/cgroup.kill; done 2>/dev/null
sleep 0.5
rmdir $CG/$n-*/run-* $CG/$n-* 2>/dev/null
for c in $CG/cap$$-*; do rmdir $c; done 2>/dev/null
rm -rf /sys/fs/bpf/agentcage/daemon $R $S
userdel acpol$$ 2>/dev/null; groupdel agentcage 2>/dev/null
chmod 700 $T
[ -z "$(ls -d $CG/$n-* $CG/cap$$-* 2>/dev/null)" ] && [ ! -e /sys/fs/bpf/agentcage/daemon ] && ok "cleanup: this suite's cgroups and pins are gone" || no "cleanup"
