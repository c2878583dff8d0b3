# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 130 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The daemon suite (run by e2e.sh in a lane, or alone with e2e-one.sh):
# agentcage daemon with a policy directory of two cages; processes placed in
# each cage's cgroup from outside; reloads by rename and their
# acknowledgement; an invalid edit; the control socket's refusals; SIGKILL
# of the daemon and its restart over the pinned set (adoption); a pinned
# set of another build refused; the event stream (events --follow, a stuck
# subscriber). Everything it makes is removed at the end.
echo "# the daemon"
D=$T/pol SOCK=$T/ac.sock DEV=$T/dev.json
na=dmna$$ nb=dmnb$$        # cage names of this run only
mkdir -p $D /srv/dmn-$$
echo a > /srv/dmn-$$/a; echo b > /srv/dmn-$$/b
# pol NAME READABLE [UNIX]: a policy that reads only /srv/dmn-PID/READABLE
pol() { cat <<Y
name: $1
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /srv/dmn-$$/$2]
  write: [/dev/null]
exec:
  allow: [/usr/bin, /usr/lib, /bin]
${3:+network:
  unix: [$3]}
Y
}
pol $na a > $D/a.yaml
pol $nb b $SOCK > $D/b.yaml
printf 'not a policy' > $D/notes.txt   # not *.yaml: never read
$AC daemon --policy-dir $D --socket $SOCK --events $DEV > $T/d.out 2> $T/d.err &
dpid=$!
for _ in $(seq 1800); do [ -S $SOCK ] && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
[ -S $SOCK ] && ok "the daemon starts and listens on its socket" || no "the daemon starts" "$(cat $T/d.err)"
# where the daemon says its pins and cgroups are (checked below and by status)
PINS=$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(json.load(sys.stdin)["pins"])')
CG=$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(json.load(sys.stdin)["cages"][0]["cgroup"].rsplit("/", 1)[0])')
echo "# pins $PINS, cgroups $CG"
stat -c '%a %U' $SOCK | grep -qx '660 root' && ok "  ... mode 0660, root's" || no "  ... mode 0660" "$(stat -c '%a %U %G' $SOCK)"
[ -d $PINS ] && [ "$(stat -c %a $PINS)" = 700 ] && ls $PINS | grep -q '^link-' && ls $PINS | grep -q '^map-cages$' \
	&& ok "  ... its links and maps pinned under $PINS (0700)" || no "  ... pinned" "$(ls -la $PINS 2>&1)"
[ -d $CG/$na ] && [ -d $CG/$nb ] && ok "  ... one cgroup per cage: $CG/NAME" || no "  ... cgroups" "$(ls $CG)"

out=$($AC ls --socket $SOCK 2>&1); st=$?
[ $st = 0 ] && echo "$out" | grep -q "^$na .*$D/a.yaml" && echo "$out" | grep -q "^$nb .*$D/b.yaml" \
	&& ok "ls shows both cages with their files" || no "ls" "$st $out"
out=$($AC --json ls --socket $SOCK 2>&1)
echo "$out" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); c={x["name"]:x for x in r["cages"]}; assert r["v"]==1 and r["ok"]; assert c[sys.argv[1]]["generation"]==1 and c[sys.argv[2]]["mode"]=="enforce", r; assert all(x["enforcer"]=="bpf-lsm" for x in c.values()), r' $na $nb \
	&& ok "ls --json: v 1, ok, both cages at generation 1, enforcer bpf-lsm" || no "ls --json" "$out"
out=$($AC status --socket $SOCK 2>&1); st=$?
[ $st = 0 ] && [ "$(echo "$out" | grep -c ': enforced (enforce)')" -ge 2 ] && echo "$out" | grep -q "^$na: enforced" \
	&& ok "status proves both cages from the pinned map and links (exit 0)" || no "status" "$st $out"
echo "$out" | head -n 1 | grep -q "BPF LSM active; enforcer bpf-lsm$" && ok "  ... its first line names the enforcer" || no "  ... status enforcer" "$out"
out=$($AC daemon --enforcer landlock --policy-dir $D --socket $T/ll.sock 2>&1); st=$?
[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "agentcage run --enforcer landlock" && [ ! -e $T/ll.sock ] \
	&& ok "a second daemon with --enforcer landlock: 125, one line, nothing made" || no "daemon --enforcer landlock" "$st $out"

echo "# file owners: each cage holds at most its share of the one map"
# owners CAGE OUT CHURN HOLD: in cage CAGE (moved there before it starts;
# "-": outside), F_SETOWN to 0 and to a pid that does not exist on CHURN
# descriptors each, closing each, then to itself on up to HOLD descriptors
# kept open, then O_ASYNC on two pipes (F_SETFL, FIOASYNC); prints
# "churn=ok held=K err=ERRNO|0 async=ERRNO|0,ERRNO|0" to OUT (read it with
# said OUT), then waits for SIGTERM: its pid is $opid
SHARE=$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(json.load(sys.stdin)["capacity"]["file_owners_per_cage"])')
[ "$SHARE" -ge 1 ] && [ "$SHARE" -lt 65536 ] 2>/dev/null && ok "ls --json: each cage's share of the file owners' map ($SHARE)" \
	|| no "ls --json: file_owners_per_cage" "$SHARE"
cat > $T/own.py <<'P'
import errno, fcntl, os, signal, struct, sys, termios
churn, hold, bad = int(sys.argv[1]), int(sys.argv[2]), set()
for who, want in ((0, 0), (4000000, errno.ESRCH)):
    for _ in range(churn):
        fd = os.open("/dev/null", os.O_WRONLY)
        try:
            fcntl.fcntl(fd, fcntl.F_SETOWN, who); e = 0
        except OSError as x:
            e = x.errno
        os.close(fd)
        if e != want: bad.add(errno.errorcode.get(e, str(e)))
held, err = 0, "0"
for _ in range(hold):
    fd = os.open("/dev/null", os.O_WRONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid()); held += 1
    except OSError as x:
        err = errno.errorcode.get(x.errno, str(x.errno)); break
# O_ASYNC, whose owner a terminal makes its foreground group: F_SETFL, FIOASYNC
asy = []
for how in ("setfl", "ioctl"):
    fd = os.pipe()[0]
    try:
        if how == "setfl": fcntl.fcntl(fd, fcntl.F_SETFL, os.O_WRONLY | os.O_ASYNC)
        else: fcntl.ioctl(fd, termios.FIOASYNC, struct.pack("i", 1))
        asy.append("0")
    except OSError as x:
        asy.append(errno.errorcode.get(x.errno, str(x.errno)))
print("churn=%s held=%d err=%s async=%s" % (",".join(sorted(bad)) or "ok", held, err, ",".join(asy)), flush=True)
signal.pause()
P
owners() {
	local code; code=$(cat $T/own.py)
	printf 'echo ready\nwhile [ ! -e $1.go ]; do sleep 0.05; done\nshift; exec python3 -c "$@"\n' > $T/own.sh
	exec 7> $2
	sh $T/own.sh $2 "$code" $3 $4 >&7 2>&1 & opid=$!
	exec 7>&-
	ready $2
	[ "$1" = - ] || echo $opid > $CG/$1/cgroup.procs
	touch $2.go
}
# said OUT: what owners printed to OUT
said() { for _ in $(seq 600); do grep -q '^churn=' $1 && break; sleep 0.1; done; grep '^churn=' $1 || echo "nothing: $(cat $1)"; }
ready() { for _ in $(seq 600); do grep -q ready $1 && return 0; sleep 0.1; done; return 1; }
owners - $T/own0 50 $((SHARE + 20)); out=$(said $T/own0); kill $opid; wait $opid 2>/dev/null
[ "$out" = "churn=ok held=$((SHARE + 20)) err=0 async=0,0" ] && ok "outside a cage: F_SETOWN on $((SHARE + 20)) files, O_ASYNC on two more" \
	|| no "outside a cage: F_SETOWN" "$out"
owners $na $T/own1 $((SHARE * 2)) $((SHARE + 20)); out=$(said $T/own1); a1=$opid
[ "$out" = "churn=ok held=$SHARE err=ENOSPC async=ENOSPC,ENOSPC" ] \
	&& ok "in cage A: F_SETOWN on $SHARE files, then ENOSPC (after $((SHARE * 4)) cleared or failed ones, closed)" \
	&& ok "  ... and O_ASYNC (F_SETFL, FIOASYNC: a terminal's owner is its foreground group) ENOSPC too" \
	|| no "in cage A: F_SETOWN and O_ASYNC up to the share" "$out"
for _ in $(seq 100); do grep -q '"op":"signal"' $DEV && break; sleep 0.1; done
python3 -c 'import json,sys; ev=[json.loads(l) for l in open(sys.argv[1]) if "\"signal\"" in l]; assert any(o["cage"]==sys.argv[2] and o["action"]=="denied" and o["comm"]=="python3" for o in ev), ev' $DEV $na \
	&& ok "  ... reported as signal, denied, in A" || no "  ... reported" "$(grep signal $DEV | tail -3)"
owners $nb $T/own2 0 $SHARE; out=$(said $T/own2); b1=$opid
[ "$out" = "churn=ok held=$SHARE err=0 async=ENOSPC,ENOSPC" ] && ok "  ... while A holds its share, cage B sets owners on $SHARE files" \
	|| no "  ... cage B while A holds its share" "$out"
kill $a1 $b1; wait $a1 $b1 2>/dev/null
owners $na $T/own3 0 $((SHARE - 2)); out=$(said $T/own3); kill $opid; wait $opid 2>/dev/null
[ "$out" = "churn=ok held=$((SHARE - 2)) err=0 async=0,0" ] && ok "  ... and A its share again once its files are closed (O_ASYNC within it)" \
	|| no "  ... A again after closing" "$out"

# probe FILE: a loop (started outside any cage, moved in by the test) that
# tries to read a and b and prints one line per round: "10" = a yes, b no
# (its output goes to a descriptor opened outside: a caged open would be denied;
# it says "ready" once the shell has read its script, before it is moved)
cat > $T/probe.sh <<S
echo ready
while [ ! -e \$1.go ]; do sleep 0.05; done
while [ ! -e $T/stop ]; do
	if cat /srv/dmn-$$/a > /dev/null 2>&1; then a=1; else a=0; fi
	if cat /srv/dmn-$$/b > /dev/null 2>&1; then b=1; else b=0; fi
	echo \$a\$b
	sleep 0.02
done
S
exec 7> $T/pa 8> $T/pb
sh $T/probe.sh $T/pa >&7 2>&1 & pa=$!
sh $T/probe.sh $T/pb >&8 2>&1 & pb=$!
exec 7>&- 8>&-
ready $T/pa; ready $T/pb
echo $pa > $CG/$na/cgroup.procs && echo $pb > $CG/$nb/cgroup.procs && ok "the test moves a process into each cage" \
	|| no "move into the cages"
touch $T/pa.go $T/pb.go
lines() { wc -l < $1; }
waitlines() { local n=$(( $(lines $1) + $2 )); for _ in $(seq 600); do [ $(lines $1) -ge $n ] && return 0; sleep 0.1; done; return 1; }
waitlines $T/pa 5; waitlines $T/pb 5
[ "$(grep -v ready $T/pa | sort -u)" = 10 ] && ok "in cage A: a readable, b denied (A's policy)" || no "cage A's policy" "$(sort $T/pa | uniq -c)"
[ "$(grep -v ready $T/pb | sort -u)" = 01 ] && ok "in cage B: b readable, a denied (B's policy)" || no "cage B's policy" "$(sort $T/pb | uniq -c)"
event "  ... A's denial is in the daemon's --events file, named by the cage" $DEV op=open_read path=/srv/dmn-$$/b cage=$na action=denied comm=cat
grep -q "$na DENY .*op=open_read path=\"/srv/dmn-$$/b\"" $T/d.out && ok "  ... and a plain line on its standard output" \
	|| no "  ... plain event on stdout" "$(head -3 $T/d.out)"
cat /srv/dmn-$$/a /srv/dmn-$$/b > /dev/null && ok "outside the cages both files are readable" || no "outside"

echo "# reload by rename: A now reads b and not a"
pol $na b > $D/.a.tmp && mv $D/.a.tmp $D/a.yaml
out=$($AC reload --socket $SOCK $na 2>&1); st=$?
n=$(lines $T/pa)
[ $st = 0 ] && ok "reload A is acknowledged (exit 0)" || no "reload A" "$st $out"
waitlines $T/pa 10
# line n+1 may have begun before the acknowledgement; every later one after it
bad=$(tail -n +$((n + 2)) $T/pa | grep -cv '^01$')
[ "$bad" = 0 ] && [ $(tail -n +$((n + 2)) $T/pa | wc -l) -ge 8 ] && ok "  ... every round after it sees A's new policy (no forbidden read of a)" \
	|| no "  ... after the reload" "$bad bad: $(tail -n +$((n + 2)) $T/pa | sort | uniq -c)"
# a round that read a before the switch and b after it reads both (11): at most that one
seq=$(tail -n +$((n + 1)) $T/pa | uniq | tr '\n' ' ')
case "$seq" in "10 01 "|"01 "|"11 01 ") ok "  ... never a mixed state beyond the one round across the switch ($seq)";;
	*) no "  ... mixed state" "$seq";; esac
[ "$(tail -n 3 $T/pb | sort -u)" = 01 ] && ok "  ... cage B is unchanged" || no "  ... cage B unchanged"
out=$($AC --json ls --socket $SOCK)
echo "$out" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); c={x["name"]:x for x in r["cages"]}; assert c[sys.argv[1]]["generation"]==2 and c[sys.argv[2]]["generation"]==1, r' $na $nb \
	&& ok "  ... ls: A at generation 2, B still 1" || no "  ... generations" "$out"
expect "  ... status still proves both (the new policy id in the map)" 0 $AC status --socket $SOCK

echo "# an invalid edit keeps the old policy"
printf 'name: %s\nfiles:\n  read: [/usr]\n  read: [/lib]\n' $na > $D/.a.tmp && mv $D/.a.tmp $D/a.yaml
out=$($AC reload --socket $SOCK $na 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "$D/a.yaml:4:3: duplicate key 'read'" && ok "reload reports the error with file:line:col (exit 1)" \
	|| no "invalid reload" "$st $out"
n=$(lines $T/pa); waitlines $T/pa 5
[ "$(tail -n +$((n + 1)) $T/pa | sort -u)" = 01 ] && ok "  ... and cage A keeps its previous policy" || no "  ... keeps" "$(tail -n 5 $T/pa)"
grep -q "a.yaml:4:3" $T/d.err && ok "  ... the daemon's log names it too" || no "  ... log" "$(tail -3 $T/d.err)"
out=$($AC --json reload --socket $SOCK)
echo "$out" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); assert r["v"]==1 and r["ok"] is False and r["error"]["code"]=="policy.invalid", r' \
	&& ok "  ... reload --json: ok false, code policy.invalid" || no "  ... reload --json" "$out"

echo "# the control socket"
cat > $T/req.py <<'P'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(20)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
buf = b""
while b"\n" not in buf:
    d = s.recv(65536)
    if not d: break
    buf += d
print(buf.decode(errors="replace").strip())
P
# one python for all of them (each python start costs seconds under TCG)
python3 - $SOCK > $T/proto.out 2>&1 <<'P'
import json, socket, sys
def ask(data):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(20)
    try: s.sendall(data)
    except OSError: pass
    buf = b""
    while b"\n" not in buf:
        d = s.recv(65536)
        if not d: break
        buf += d
    return buf.decode(errors="replace").strip()
for req in ['{"v":1', '[1,2]', '{"method":"ls"}', '{"v":2,"method":"ls"}', '{"v":1,"method":"frob"}',
            '{"v":1,"method":"ls","cage":7}', '{"v":1,"method":"ls"} {}', '{"v":1,"method":"ls","x":"' + "y" * 200000]:
    r = json.loads(ask(req.encode() + b"\n"))
    ok = r["v"] == 1 and r["ok"] is False and r["error"]["code"] == "protocol.invalid"
    print("OK" if ok else "BAD", req[:40], r["error"]["message"][:60] if "error" in r else r)
r = json.loads(ask(b'{"v":1,"method":"ls","cage":"nosuch"}\n'))
print("OK" if r["error"]["code"] == "cage.not_found" else "BAD", "unknown cage", r)
P
[ "$(grep -c '^OK' $T/proto.out)" = 9 ] && ok "malformed, unversioned, unknown-method, wrong-type, oversized requests: error replies" \
	|| no "malformed requests" "$(grep -v '^OK' $T/proto.out)"
grep -q "^OK .*yyyy.*longer than" $T/proto.out && ok "  ... the oversized line (200 KB) refused as too long" || no "  ... oversized" "$(tail -2 $T/proto.out)"
# a client that connects and says nothing must not stall the others
python3 -c 'import socket,time,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(30)' $SOCK & idle=$!
expect "  ... and the daemon still answers (with an idle client connected)" 0 timeout 20 $AC ls --socket $SOCK
kill $idle 2>/dev/null
out=$(setpriv --reuid 65534 --regid 65534 --clear-groups $AC ls --socket $SOCK 2>&1); st=$?
[ $st = 125 ] && echo "$out" | grep -q 'Permission denied' && ok "an unprivileged user cannot connect (socket 0660 root)" || no "unprivileged" "$st $out"
chmod 755 $T; chmod 666 $SOCK
out=$(setpriv --reuid 65534 --regid 65534 --clear-groups $AC ls --socket $SOCK 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q 'only root' && ok "  ... and with the socket opened to all by hand, SO_PEERCRED refuses it" || no "peercred" "$st $out"
chmod 660 $SOCK; chmod 700 $T
# a caged root process: A's policy does not list the socket, B's does; the
# kernel refuses both (guarded_socks), while root outside uses it (above)
cat > $T/caged.py <<P
import os, socket, sys, time
print("ready", flush=True)
while not os.path.exists(sys.argv[1] + ".go"): time.sleep(0.05)
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("$SOCK")
except OSError as e:
    print("connect errno", e.errno); sys.exit(0)
try:
    s.sendall(b'{"v":1,"method":"reload"}\n')
except BrokenPipeError:
    pass   # the daemon refused at accept and closed: its reply is still there to read
s.settimeout(20)
print("reply", s.recv(65536).decode().strip())
P
for c in a b; do
	eval cg=\$n$c
	exec 7> $T/c$c
	python3 $T/caged.py $T/c$c >&7 2>&1 & p=$!
	exec 7>&-
	ready $T/c$c; echo $p > $CG/$cg/cgroup.procs; touch $T/c$c.go; wait $p
done
grep -q "connect errno 1$" $T/ca && ok "a caged root process whose policy does not list the socket: connect() refused by the kernel (EPERM)" \
	|| no "caged connect A" "$(cat $T/ca)"
grep -q "connect errno 1$" $T/cb && ok "a caged root process whose policy lists the socket: connect() refused by the kernel all the same" \
	|| no "caged B" "$(cat $T/cb)"
event "  ... reported as unix_connect in B, with the socket's path" $DEV op=unix_connect path=$SOCK cage=$nb action=denied

echo "# restart without a gap: SIGKILL, a denial and an edit while down, adoption"
echo down > /srv/dmn-$$/down
n0=$(lines $T/pa)
kill -9 $dpid; wait $dpid 2>/dev/null
# a one-shot caged read of a file A's policy does not list, while no daemon runs
cat > $T/once.sh <<S
echo ready
while [ ! -e \$1.go ]; do sleep 0.05; done
cat /srv/dmn-$$/down > /dev/null 2>&1; echo "status \$?"
S
exec 7> $T/once
sh $T/once.sh $T/once >&7 2>&1 & p=$!
exec 7>&-
ready $T/once; echo $p > $CG/$na/cgroup.procs; touch $T/once.go; wait $p
grep -q "^status 1$" $T/once && ok "daemon down: a caged read of a file A does not list is denied" || no "denied while down" "$(cat $T/once)"
cat /srv/dmn-$$/down > /dev/null && ok "  ... the same read outside the cage succeeds" || no "  ... outside"
! grep -q "dmn-$$/down" $DEV && ok "  ... and no one has written its event yet" || no "  ... event before restart"
# an edit while down: A reads a again, not b
pol $na a > $D/.a.tmp && mv $D/.a.tmp $D/a.yaml
waitlines $T/pa 5
[ "$(tail -n +$((n0 + 1)) $T/pa | sort -u)" = 01 ] && ok "  ... A keeps its generation-2 policy while down (b yes, a no)" \
	|| no "  ... A while down" "$(tail -n +$((n0 + 1)) $T/pa | sort | uniq -c)"
$AC daemon --policy-dir $D --socket $SOCK --events $DEV > $T/d2.out 2> $T/d2.err &
dpid=$!
# (the killed daemon's socket file is still there: wait for an answer)
for _ in $(seq 600); do $AC ls --socket $SOCK > /dev/null 2>&1 && break; kill -0 $dpid 2>/dev/null || break; sleep 0.2; done
n1=$(lines $T/pa)
$AC ls --socket $SOCK > /dev/null 2>&1 && ok "the daemon starts again over the pinned set" || no "restart" "$(cat $T/d2.err)"
grep -q "adopted the pinned set $PINS" $T/d2.err && grep -q "adopted cage $na: cgroup $CG/$na .*generation 2" $T/d2.err \
	&& grep -q "adopted cage $nb: cgroup $CG/$nb .*generation 1" $T/d2.err \
	&& ok "  ... and reports what it adopted: both cages with their generations (2, 1)" || no "  ... adopted" "$(cat $T/d2.err)"
out=$($AC --json ls --socket $SOCK)
echo "$out" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); c={x["name"]:x for x in r["cages"]}; assert c[sys.argv[1]]["generation"]==3 and c[sys.argv[2]]["generation"]==1 and c[sys.argv[2]]["file"].endswith("/b.yaml") and c[sys.argv[2]]["file_rules"]>0, r' $na $nb \
	&& ok "  ... ls: B unchanged at generation 1 (with its file and rules), A edited while down at 3" || no "  ... ls after restart" "$out"
expect "  ... status proves both cages after the restart" 0 $AC status --socket $SOCK
# A's previous policy stayed in the maps as its spare, known to the killed
# daemon alone: the new one purges every rule whose id no cage names
python3 - $PINS > $T/ids.out 2>&1 <<'P' && ok "  ... the killed daemon's spares are purged: every id in the rule maps is a cage's ($(cat $T/ids.out))" || no "  ... spares left" "$(cat $T/ids.out)"
import json, subprocess, sys
pins = sys.argv[1]
def dump(m): return json.loads(subprocess.check_output(["bpftool", "-j", "map", "dump", "pinned", pins + "/map-" + m]))
def u32(b, o): return int.from_bytes(bytes(int(x, 16) for x in b[o:o + 4]), "little")
live = set()
for e in dump("cages"): live |= {u32(e["value"], 0), u32(e["value"], 8)}
ids = {u32(e["key"], 4) for m in ("file_rules", "exec_rules") for e in dump(m)}
print("ids", sorted(ids), "cages", sorted(live))
sys.exit(0 if ids and ids <= live else 1)
P
waitlines $T/pa 8
[ "$(tail -n +$((n1 + 2)) $T/pa | sort -u)" = 10 ] && ok "  ... the edit made while down is in force: A reads a, not b" \
	|| no "  ... edit after restart" "$(tail -n +$((n1 + 2)) $T/pa | sort | uniq -c)"
# from the SIGKILL on: generation 2's rounds (01), then generation 3's (10),
# with at most one round that began before the swap and ended after it (00)
seq=$(tail -n +$((n0 + 1)) $T/pa | uniq | tr '\n' ' ')
case "$seq" in "01 10 "|"01 00 10 ") ok "  ... A's loop, from the SIGKILL on: never a forbidden read, never an allowed one failed ($seq)";;
	*) no "  ... A's loop" "$seq";; esac
[ "$(grep -v ready $T/pb | sort -u)" = 01 ] && ok "  ... B's loop: b always readable, a always denied, throughout" \
	|| no "  ... B's loop" "$(grep -v ready $T/pb | sort | uniq -c)"
event "  ... the denial made while down is delivered from the pinned ring buffer" $DEV op=open_read path=/srv/dmn-$$/down cage=$na action=denied comm=cat

echo "# the event stream: agentcage events"
# a subscriber that asks for cage A's events and then reads nothing until told
cat > $T/stuck.py <<'P'
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
s.sendall(b'{"v":1,"method":"events","follow":true,"cage":"%s"}\n' % sys.argv[2].encode())
open(sys.argv[3] + ".up", "w").close()
while not os.path.exists(sys.argv[3] + ".read"): time.sleep(0.1)
s.settimeout(30); buf = b""; end = time.time() + 60; n = d = bad = 0
while time.time() < end and not d:
    buf += s.recv(1 << 20)
    *lines, buf = buf.split(b"\n")
    for l in lines:
        o = json.loads(l)
        bad += o.get("v") != 1
        if "dropped" in o: d += o["dropped"]
        elif "op" in o: n += 1; bad += o["cage"] != sys.argv[2]
print("events", n, "dropped", d, "bad", bad, flush=True)
P
python3 $T/stuck.py $SOCK $na $T/stuck > $T/stuck.out 2>&1 & stuck=$!
$AC --json events --follow --cage $na --socket $SOCK > $T/ev.a 2> $T/ev.a.err & eva=$!
$AC --json events --follow --cage $nb --socket $SOCK > $T/ev.b 2> $T/ev.b.err & evb=$!
for _ in $(seq 600); do [ -e $T/stuck.up ] && break; sleep 0.1; done
sleep 2
# a flood of denials in A (a shell's own redirections: no fork per open; on a
# regular builtin, as a failed one on ':' would end the shell), then a marker
cat > $T/flood.sh <<S
echo ready
while [ ! -e \$1.go ]; do sleep 0.05; done
i=0; while [ \$i -lt 8000 ]; do true < /srv/dmn-$$/b; i=\$((i + 1)); done 2> /dev/null
sleep 1.1   # the marker in a second of its own: the flood may have spent its cage's event budget
cat /srv/dmn-$$/mark > /dev/null 2>&1; echo "status \$?"
S
echo mark > /srv/dmn-$$/mark
exec 7> $T/flood
sh $T/flood.sh $T/flood >&7 2>&1 & p=$!
exec 7>&-
ready $T/flood; echo $p > $CG/$na/cgroup.procs; touch $T/flood.go; wait $p
grep -q "^status 1$" $T/flood && cat /srv/dmn-$$/mark > /dev/null && ok "a flood of 8000 denials in A, then a marker read denied in A (allowed outside)" \
	|| no "flood" "$(cat $T/flood)"
for _ in $(seq 300); do grep -q "dmn-$$/mark" $T/ev.a && break; sleep 0.2; done
kill -0 $stuck && [ ! -e $T/stuck.read ] && ok "  ... while a subscriber of A's events reads nothing" || no "  ... stuck subscriber" "$(cat $T/stuck.out)"
grep -v '"dropped"' $T/ev.a > $T/ev.a.ev
event "  ... another subscriber of A (events --follow --cage A --json) gets the marker's denial" $T/ev.a.ev op=open_read path=/srv/dmn-$$/mark cage=$na action=denied comm=cat
python3 -c 'import json,sys; L=[json.loads(l) for l in open(sys.argv[1])]; ev=[o for o in L if "op" in o]; assert L and all(o["v"]==1 for o in L) and all(o["cage"]==sys.argv[2] for o in ev) and len(ev)>100, (len(L), L[:2])' $T/ev.a $na \
	&& ok "  ... every line with \"v\":1, every event of cage A (and the flood's)" || no "  ... ev.a lines" "$(head -c 600 $T/ev.a)"
grep -v '"dropped"' $T/ev.b > $T/ev.b.ev
event "  ... a subscriber of B's events gets B's denials" $T/ev.b.ev op=open_read path=/srv/dmn-$$/a cage=$nb action=denied
event "  ... and none of A's" $T/ev.b.ev --none cage=$na
expect "  ... the daemon answers meanwhile" 0 timeout 20 $AC ls --socket $SOCK
touch $T/stuck.read
for _ in $(seq 900); do grep -q '^events' $T/stuck.out && break; kill -0 $stuck 2>/dev/null || break; sleep 0.1; done
read -r _ sn _ sd _ sbad < $T/stuck.out
[ "${sd:-0}" -gt 0 ] && [ "$sbad" = 0 ] && ok "  ... the stuck subscriber, reading at last, is told what it missed ($sn events, then {\"v\":1,\"dropped\":$sd})" \
	|| no "  ... dropped report" "$(cat $T/stuck.out)"
out=$($AC events --cage $na --socket $SOCK 2>&1); st=$?
[ $st = 0 ] && echo "$out" | grep -q " $na DENY .*op=open_read" && ! echo "$out" | grep -q " $nb DENY" \
	&& ok "events without --follow: A's latest events as plain lines, then exit 0" || no "events backlog" "$st $(echo "$out" | tail -3)"
out=$($AC events --cage nosuch$$ --socket $SOCK 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "no cage of that name" && ok "  ... an unknown cage: exit 1 naming it" || no "  ... unknown cage" "$st $out"
kill $stuck $eva $evb 2>/dev/null; wait $stuck $eva $evb 2>/dev/null

echo "# status proves, it does not believe"
rm -f $PINS/cage-$nb/link-egress
out=$($AC status --socket $SOCK 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "MISSING: link egress is not pinned" && ok "a link pin removed by hand: status exits 1 naming it" || no "status missing" "$st $out"

echo "# SIGKILL of the daemon"
kill -9 $dpid; wait $dpid 2>/dev/null
n=$(lines $T/pa); waitlines $T/pa 5
[ "$(tail -n +$((n + 1)) $T/pa | sort -u)" = 10 ] && ok "the process in A is still confined by A's policy" || no "after SIGKILL" "$(tail -n 5 $T/pa)"
kill -0 $pa && ok "  ... and still running" || no "  ... running"
expect "  ... clients say the daemon is unreachable (exit 125)" 125 $AC status --socket $SOCK
out=$($AC ls --socket $SOCK 2>&1); [ "$(echo "$out" | wc -l)" = 1 ] && ok "  ... in one line" || no "  ... one line" "$out"

echo "# a pinned set of another build is refused, and stays enforced"
n=$(lines $T/pa)
rm $PINS/map-cages && bpftool map create $PINS/map-cages type hash key 8 value 8 entries 16 name accompat
$AC daemon --policy-dir $D --socket $SOCK > $T/d3.out 2> $T/d3.err; st=$?
[ $st = 125 ] && [ "$(wc -l < $T/d3.err)" = 1 ] && grep -q "incompatible build: .*map cages .*rm -r $PINS" $T/d3.err \
	&& ok "a daemon started over it refuses with one line naming the map and the fix (exit 125)" || no "incompatible" "$st $(cat $T/d3.err)"
[ -d $PINS/cage-$na ] && ls $PINS | grep -q '^link-' && ok "  ... and leaves the pins in place" || no "  ... pins" "$(ls $PINS)"
waitlines $T/pa 5
[ "$(tail -n +$((n + 1)) $T/pa | sort -u)" = 10 ] && ok "  ... A's process is still confined by A's policy" || no "  ... after refusal" "$(tail -n 5 $T/pa)"

# cleanup: the probes, the cages, the pins, the files
touch $T/stop; kill $pa $pb 2>/dev/null; wait $pa $pb 2>/dev/null
for c in $na $nb; do echo 1 > $CG/$c/cgroup.kill 2>/dev/null; done
sleep 0.5
rmdir $CG/$na $CG/$nb 2>/dev/null
rm -rf $PINS /srv/dmn-$$
[ ! -e $CG/$na ] && [ ! -e $CG/$nb ] && [ ! -e $PINS ] && ok "cleanup: this suite's cgroups and pins are gone" || no "cleanup"
