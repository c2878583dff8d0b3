#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Landlock enforcer on this host's own kernel, which refuses BPF LSM
# programs: real agents (tests/host/probe.py) under real policies, each
# refusal beside a control that works in the same run (or, where the
# control cannot be in the cage, the same action outside it).
set -u
AC=$(realpath "${1:-build/agentcage}")
repo=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/ac-landlock.XXXXXX)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && echo "       $2"; }
pids=()
audit_old=""   # kernel audit as it was, once the events part has changed it
cleanup() {
	for p in "${pids[@]}" $(cat "$T"/pid.* 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	[ -n "$audit_old" ] && python3 "$repo/tests/host/auditctl.py" "$audit_old" > /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# (the background helpers are killed at the end: no job notices)
set +m
cg2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
if [ "$abi" -lt 3 ]; then
	# a missing kernel feature is a failure, never a skip: this suite is for our host
	no "this kernel has Landlock ABI 3 or newer (it has $abi)"
	echo "landlock: $pass passed, $fail failed"; exit 1
fi
echo "# Landlock ABI $abi"

# listeners outside the cage: A is allowed by the policy, B is not
listen() {
	python3 -c 'import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1",0)); s.listen(64); print(s.getsockname()[1], flush=True)
while True:
    c,_=s.accept(); c.close()' > "$T/port.$1" 2> /dev/null &
	echo $! > "$T/pid.$1"   # (a command substitution runs this: pids+= would not stay)
	for _ in $(seq 100); do [ -s "$T/port.$1" ] && break; sleep 0.05; done
	cat "$T/port.$1"
}
PA=$(listen a) PB=$(listen b)
# ports no one listens on: a UDP peer the policy allows (P_UDP) and one it does
# not (P_UDP2), a port the policy lets the agent bind (P_BIND) and one not (P_BIND2)
read -r P_UDP P_UDP2 P_BIND P_BIND2 < <(python3 -c 'import socket
ss=[socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1",0))
print(*[s.getsockname()[1] for s in ss])')
# a process outside the cage, of the agent's own uid: only the cage keeps it out
setpriv --reuid 65534 --regid 65534 --clear-groups sleep 600 & OUT=$!; pids+=($OUT)

# the workspace: ${CWD} of the runs, the agent's (nobody's)
W=$T/w
mkdir -p "$W/sub" "$W/ro"
echo secret > "$W/secret"; echo public > "$W/public"
echo plain > "$W/ro/plain"; chmod 0666 "$W/ro/plain"
echo own > "$W/ro/own"
cp "$repo/tests/host/probe.py" "$W/probe.py"
chown -R 65534:65534 "$W/sub" "$W/ro/own"
chown 65534:65534 "$W"
chmod 0755 "$T"
libc=$(python3 -c 'import ctypes.util,sys; print("/usr/lib/x86_64-linux-gnu/" + ctypes.util.find_library("c"))')
[ -e "$libc" ] || libc=$(ldd /bin/true | awk '/libc.so/ {print $3}')
cat > "$T/p.yaml" <<EOF
files:
  read: [/usr, /lib, /lib64, /bin, /etc, /proc, "\${CWD}/ro"]
  write: ["\${CWD}", "\${CAGE_TMP}", /dev/null]
  deny: ["\${CWD}/secret", /etc/shadow]
exec:
  allow: [/usr/bin, /bin]
network:
  allow: [127.0.0.1:$PA/tcp, 127.0.0.1:$P_UDP/udp, 127.0.0.1:$P_BIND/tcp]
EOF

# cage [OPTIONS] -- ARGS: agentcage run in $W, stdout in $out, stderr in $err
cage() {
	out=$(cd "$W" && timeout 120 "$AC" run "$@" 2> "$T/err"); st=$?
	err=$(cat "$T/err")
}
# has NAME RESULT: the probe's line for NAME is RESULT ("ok", "errno EACCES", ...)
has() {
	local line
	line=$(echo "$out" | grep "^$1:" | head -n 1)
	case " $2 " in *" ${line#*:} "*) return 0;; esac
	echo "       $1 gave '${line#*:}', not '$2'"
	return 1
}
check() { # check WHAT NAME RESULT...
	local what=$1 name=$2; shift 2
	has "$name" "$*" && ok "$what" || no "$what"
}
refused="errno EACCES errno EPERM errno EROFS"

# --- the choice of enforcer ------------------------------------------------
marker=$W/sub/ran
cage --policy "$T/p.yaml" -- /bin/sh -c "touch $marker"
[ $st = 125 ] && ok "auto, a policy weaker under Landlock: 125 without --accept-weaker" \
	|| no "auto without --accept-weaker: 125" "$st $err"
echo "$err" | head -n 1 | grep -q "would hold weaker under the Landlock enforcer (BPF LSM: .*--accept-weaker" \
	&& ok "  ... its first line names the enforcer, why BPF LSM is not used, and the fix" \
	|| no "  ... first line names cause and fix" "$err"
echo "$err" | grep -q "^  weaker   unix path sockets: " && ok "  ... and the table's weaker rows follow" \
	|| no "  ... the table follows" "$err"
[ ! -e "$marker" ] && ok "  ... and the command never ran" || no "  ... the command never ran"
# file patterns: Landlock cannot match names; the table says so, row by row
printf "files:\n  read: [/usr]\n  deny: ['**/.env']\n  write: ['/tmp/*/x']\n" > "$T/pat.yaml"
printf "files:\n  read: [/usr]\n" > "$T/nopat.yaml"
out=$("$AC" check --enforcer landlock "$T/pat.yaml" 2>&1)
echo "$out" | grep -q "^  weaker   files.deny patterns: Landlock cannot match names" \
	&& echo "$out" | grep -q "^  differs  read, write and exec patterns: not granted" \
	&& ok "check --enforcer landlock: a deny pattern is a weaker row, a grant pattern not granted" \
	|| no "pattern rows under Landlock" "$out"
"$AC" check --enforcer landlock "$T/nopat.yaml" 2>&1 | grep -q "patterns:" \
	&& no "  ... and no such row without patterns" || ok "  ... and no such row without patterns"
cage --enforcer landlock --accept-weaker --mode audit --policy "$T/p.yaml" -- /bin/sh -c "touch $marker"
[ $st = 125 ] && echo "$err" | grep -q "cannot be held" && echo "$err" | grep -q "^  cannot   mode: audit" \
	&& [ ! -e "$marker" ] && ok "audit mode under Landlock: 125 even with --accept-weaker, never enforced instead" \
	|| no "audit mode refused" "$st $err"
sed 's/^files:/user: root\nfiles:/' "$T/p.yaml" > "$T/root.yaml"
cage --enforcer landlock --accept-weaker --policy "$T/root.yaml" -- /bin/sh -c "touch $marker"
[ $st = 125 ] && echo "$err" | grep -q "^  cannot   user: root" && [ ! -e "$marker" ] \
	&& ok "a root agent under Landlock: 125, never run" || no "root refused" "$st $err"
cage --accept-weaker --policy "$T/p.yaml" -- /bin/sh -c "touch $marker"
[ $st = 0 ] && [ -e "$marker" ] && ok "with --accept-weaker the agent runs" || no "accept-weaker runs" "$st $err"
[ "$(echo "$err" | grep -c 'enforcer: landlock (ABI')" = 1 ] && echo "$err" | grep -q "BPF LSM: " \
	&& ok "  ... and auto says once on stderr that Landlock holds it, and why" || no "  ... auto says which" "$err"
rm -f "$marker"
cage --enforcer bpf-lsm --policy "$T/p.yaml" -- /bin/sh -c "touch $marker"
[ $st = 125 ] && [ ! -e "$marker" ] && ok "--enforcer bpf-lsm never falls back: 125" || no "bpf-lsm 125" "$st $err"
cage --enforcer lsm -- /bin/true
[ $st = 125 ] && echo "$err" | grep -q "auto, bpf-lsm or landlock" && ok "a bad --enforcer: 125 naming the choices" \
	|| no "bad --enforcer" "$st $err"

# --- files, exec, network, the baseline: one agent ------------------------
cage --accept-weaker --policy "$T/p.yaml" --events "$T/ev.json" -- python3 "$W/probe.py" \
	read_public=read:$W/public read_secret=read:$W/secret \
	create_sub=create:$W/sub/new create_vartmp=create:/var/tmp/ac-ll-$$ create_shm=create:/dev/shm/ac-ll-$$ \
	create_top=create:$W/newtop \
	link_secret=link:$W/secret,$W/sub/l rename_secret=rename:$W/secret,$W/sub/s \
	symlink_secret=symlink_read:$W/secret,$W/sub/sl rename_sub=rename:$W/sub/new,$W/sub/new2 \
	read_ro=read:$W/ro/plain write_ro=write:$W/ro/plain \
	truncate_ro=truncate:$W/ro/plain truncate_sub=truncate:$W/sub/new2 \
	chmod_ro=chmod:$W/ro/own chmod_sub=chmod:$W/sub/new2 utime_ro=utime:$W/ro/own \
	copy=copy:/usr/bin/true,$W/sub/t exec_copy=exec:$W/sub/t exec_true=exec:/usr/bin/true \
	mapx_copy=mapx:$W/sub/t mapx_libc=mapx:$libc \
	connect_a=connect:127.0.0.1,$PA connect_b=connect:127.0.0.1,$PB \
	connect6_a=connect:::ffff:127.0.0.1,$PA connect6_b=connect:::ffff:127.0.0.1,$PB \
	sendto_a=sendto:127.0.0.1,$P_UDP sendto_b=sendto:127.0.0.1,$P_UDP2 \
	udp_b=udp:127.0.0.1,$P_UDP2 bind_a=bind:127.0.0.1,$P_BIND bind_b=bind:127.0.0.1,$P_BIND2 \
	inet=socket:2,1,0 mptcp=socket:2,1,262 packet=socket:17,3,0 \
	nl_route=socket:16,3,0 nl_audit=socket:16,3,9 uring=uring: \
	kill_out=kill:$OUT environ_out=read:/proc/$OUT/environ environ_self=read:/proc/self/environ \
	mount=mount:$W/sub
[ $st = 0 ] && ok "the probe ran under Landlock (status 0)" || no "probe ran" "$st $err"
# check --explain (in $W, as the run's ${CWD}) against what the kernel did
# with the same path a moment ago: allowed where the probe got through
explain_is() { # explain_is OP PATH PROBE-NAME
	local xs line
	line=$(cd "$W" && "$AC" check --explain "$T/p.yaml" "$2" --op "$1"); xs=$?
	if has "$3" ok > /dev/null; then [ $xs = 0 ]; else [ $xs = 2 ]; fi \
		&& ok "check --explain $1 ${2#$W/}: $(echo "$line" | sed 's/^[^:]*: \([a-z]*\).*/\1/'), as the kernel did ($3)" \
		|| no "check --explain $1 $2 ($3: exit $xs)" "$line"
}
explain_is read "$W/secret" read_secret
explain_is read "$W/public" read_public
explain_is write "$W/ro/plain" write_ro
explain_is read "$W/ro/plain" read_ro
explain_is exec "$W/sub/t" exec_copy
explain_is exec /usr/bin/true exec_true
check "a denied file inside a write grant is refused, its sibling read" read_secret $refused
check "  ... (control: the sibling)" read_public ok
check "a new file in a writable directory is created" create_sub ok
check "  ... and one in /var/tmp (mode 1777) refused" create_vartmp $refused
check "  ... and one in /dev/shm refused" create_shm $refused
check "  ... and one directly in \${CWD}, beside the denied entry (stricter, as the table says)" create_top $refused
check "the denied file cannot be hard-linked into a writable directory" link_secret $refused errno EXDEV
check "  ... nor renamed there" rename_secret $refused errno EXDEV
check "  ... nor read through a symlink made there" symlink_secret $refused
check "  ... (control: a rename inside the writable directory)" rename_sub ok
check "a read-only directory inside a write grant: written, refused" write_ro $refused
check "  ... (control: read)" read_ro ok
check "  ... truncated, refused" truncate_ro $refused
check "  ... (control: truncate in the writable directory)" truncate_sub ok
check "chmod of a file the agent owns in a read-only place: refused" chmod_ro $refused
check "  ... (control: chmod in the writable directory)" chmod_sub ok
check "utime of a file the agent owns in a read-only place: refused" utime_ro $refused
check "a program the agent copied into its workspace: written" copy ok
check "  ... but not executed" exec_copy $refused
check "  ... (control: /usr/bin/true, in exec.allow, executes)" exec_true ok
check "  ... nor mapped as code" mapx_copy $refused
check "  ... (control: libc, in exec.libraries, is mapped as code)" mapx_libc ok
check "a connection to the allowed peer works" connect_a ok
check "  ... and to a peer the policy does not allow is refused at once" connect_b "errno EPERM"
grep -q "\"pid\":[1-9][0-9]*,.*\"op\":\"connect\",\"family\":\"inet\",\"addr\":\"127.0.0.1\",\"port\":$PB,\"proto\":\"tcp\",\"action\":\"denied\"" "$T/ev.json" 2>/dev/null && ok "  ... and reported as a connect event with the agent's pid" \
	|| no "  ... reported as an event" "$(grep -m1 '"port":'$PB "$T/ev.json" 2>/dev/null || head -c 400 "$T/ev.json" 2>/dev/null)"
check "the same two peers through an IPv6 socket (v4-mapped): the allowed one works" connect6_a ok
check "  ... the other refused" connect6_b "errno EPERM"
check "a UDP datagram to a peer the policy allows is sent" sendto_a ok
check "  ... and to one it does not, refused" sendto_b "errno EPERM"
check "  ... and a UDP connect to that one too" udp_b "errno EPERM"
check "a bind to an address the policy allows works" bind_a ok
check "  ... and to another refused" bind_b "errno EPERM"
check "an inet socket is created" inet ok
check "  ... an MPTCP one refused" mptcp "errno EPERM"
check "  ... and a packet socket" packet "errno EAFNOSUPPORT"
check "a routing netlink socket is created" nl_route ok
check "  ... an audit netlink one refused" nl_audit "errno EAFNOSUPPORT"
check "io_uring is refused" uring "errno EPERM"
check "a signal to a process of the agent's uid outside the cage is refused" kill_out "errno EPERM"
setpriv --reuid 65534 --regid 65534 --clear-groups kill -0 $OUT 2>/dev/null \
	&& ok "  ... (control: the same uid outside the cage may signal it)" || no "  ... control kill outside"
check "/proc/PID/environ of that process is refused" environ_out $refused
check "  ... (control: its own /proc/self/environ)" environ_self ok
check "mount is refused" mount $refused
[ "$(cat "$W/secret")" = secret ] && [ ! -e /var/tmp/ac-ll-$$ ] && [ ! -e "$W/newtop" ] \
	&& ok "nothing outside the grants changed" || no "nothing outside the grants changed"
rm -f /var/tmp/ac-ll-$$ /dev/shm/ac-ll-$$

# --- file denials as events, from the kernel's Landlock audit records ------
# (the records exist only while kernel audit is on: on for this part, then
# off, then as it was)
events_of() { # events_of FILE PATH: the JSON events in FILE about PATH, one a line
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e=json.loads(l)
    if e.get("path")==sys.argv[2]:
        print(e["op"], e["action"], e.get("enforcer"), type(e["pid"]).__name__, e["comm"])' "$1" "$2"
}
audit_old=$(python3 "$repo/tests/host/auditctl.py" 1) || no "kernel audit turned on for the events part"
sed 's/^files:/isolate: [pid]\nfiles:/' "$T/p.yaml" > "$T/iso.yaml"
for pol in p iso; do
	rm -f "$T/ll.json"
	cage --accept-weaker --policy "$T/$pol.yaml" --events "$T/ll.json" -- python3 "$W/probe.py" \
		read_secret=read:$W/secret read_public=read:$W/public
	check "$pol.yaml, kernel audit on: the denied file is refused" read_secret $refused
	check "  ... (control: its sibling is read)" read_public ok
	[ "$(events_of "$T/ll.json" "$W/secret")" = "open_read denied landlock int python3" ] \
		&& ok "  ... and its refusal is one event: open_read, denied, by landlock, with pid and comm" \
		|| no "  ... one event for the refusal" "$(cat "$T/ll.json" 2>&1 | tail -n 5)"
	[ -z "$(events_of "$T/ll.json" "$W/public")" ] && ok "  ... (control: no event for the sibling)" \
		|| no "  ... no event for the sibling" "$(events_of "$T/ll.json" "$W/public")"
	echo "$err" | grep -q "file denials reported from kernel audit records" \
		&& ok "  ... and the start line says denials are reported" || no "  ... start line" "$err"
done
python3 "$repo/tests/host/auditctl.py" 0 > /dev/null
rm -f "$T/ll.json"
cage --accept-weaker --policy "$T/p.yaml" --events "$T/ll.json" -- python3 "$W/probe.py" \
	read_secret=read:$W/secret read_public=read:$W/public
check "kernel audit off: the denied file is refused all the same" read_secret $refused
check "  ... (control: its sibling is read)" read_public ok
echo "$err" | grep -q "file denials not reported: kernel audit is off; auditctl -e 1 turns it on" \
	&& [ -z "$(events_of "$T/ll.json" "$W/secret")" ] \
	&& ok "  ... no event, and the start line says why and how to turn them on" || no "  ... audit off said" "$err"
out=$(cd "$W" && "$AC" check --enforcer landlock "$T/p.yaml" 2>&1)
echo "$out" | grep -q "^  weaker   file and exec events: .*kernel audit is off" \
	&& ok "  ... and check's table has the events row weaker, saying why" || no "  ... check's events row" "$out"
python3 "$repo/tests/host/auditctl.py" "$audit_old" > /dev/null && audit_old=""

# --- check --enforcer landlock --------------------------------------------
out=$(cd "$W" && "$AC" check --enforcer landlock "$T/p.yaml" 2>&1); st=$?
[ $st = 0 ] && echo "$out" | grep -q "under the Landlock enforcer (Landlock ABI $abi here; run needs --accept-weaker)" \
	&& echo "$out" | grep -q "^  differs  $W: has a narrower entry beneath it" \
	&& echo "$out" | grep -q "^  weaker   /proc/PID of tasks outside the cage" \
	&& ok "check --enforcer landlock: the table, the deny-inside-allow and /proc rows" || no "check table" "$st $out"
out=$(cd "$W" && "$AC" check --json --enforcer landlock "$T/p.yaml" 2>&1)
echo "$out" | python3 -c 'import json,sys
d=json.loads(sys.stdin.read()); l=d["landlock"]
assert l["run"]=="accept-weaker" and any(r["level"]=="weaker" for r in l["rows"]), l' \
	&& ok "  ... and as JSON" || no "  ... as JSON" "$out"
printf 'files:\n  read: [/usr]\n' > "$T/plain.yaml"
out=$("$AC" check "$T/plain.yaml" 2>&1)
echo "$out" | grep -q "Landlock" && no "check without --enforcer prints no Landlock table" "$out" \
	|| ok "check without --enforcer prints no Landlock table"

# --- nothing depends on agentcage staying alive ----------------------------
cat > "$W/sub/wait.sh" <<'EOF'
d=$1 p=$2; shift 2
touch "$d/ready"
while [ ! -e "$d/go" ]; do sleep 0.1; done
exec python3 "$p" "$@" > "$d/out" 2>&1
EOF
chown 65534 "$W/sub/wait.sh"
(cd "$W" && exec "$AC" run --accept-weaker --policy "$T/p.yaml" -- /bin/sh "$W/sub/wait.sh" "$W/sub" "$W/probe.py" \
	read_secret=read:$W/secret read_public=read:$W/public connect_a=connect:127.0.0.1,$PA \
	connect_b=connect:127.0.0.1,$PB) > /dev/null 2> "$T/err.kill" &
acpid=$!
for _ in $(seq 300); do [ -e "$W/sub/ready" ] && break; sleep 0.1; done
rm -f "$W/sub/ready"
cage_dir=$(ls -d "$cg2"/agentcage/*-$acpid 2>/dev/null | head -n 1)
# this run's agentcage and its guard (a child of it, in a session of its own)
ours="$acpid $(ps -eo pid=,ppid=,comm= | awk -v p=$acpid '$2 == p && $3 == "agentcage" {print $1}')"
kill -9 $ours 2>/dev/null
sleep 0.5
alive=""   # (a zombie, not yet reaped by its new parent, is dead)
for p in $ours; do case "$(ps -o stat= -p "$p")" in ""|Z*) ;; *) alive="$alive $p";; esac; done
[ -z "$alive" ] && [ "$(echo $ours | wc -w)" = 2 ] && ok "the run's agentcage and its guard are SIGKILLed" \
	|| no "agentcage and guard killed" "ours: $ours alive:$alive"
touch "$W/sub/go"
for _ in $(seq 300); do grep -q connect_b "$W/sub/out" 2>/dev/null && break; sleep 0.1; done
out=$(cat "$W/sub/out" 2>/dev/null)
check "the agent, agentcage gone: the denied file stays refused" read_secret $refused
check "  ... (control: its sibling is read)" read_public ok
check "  ... the disallowed peer stays refused" connect_b "errno EPERM"
check "  ... (control: the allowed peer is reached)" connect_a ok
if [ -n "$cage_dir" ]; then
	echo 1 > "$cage_dir/cgroup.kill" 2>/dev/null
	for _ in $(seq 50); do rmdir "$cage_dir" 2>/dev/null && break; sleep 0.1; done
fi
rm -rf "$(awk '$9 == "bpf" {print $5; exit}' /proc/self/mountinfo)/agentcage/run-$acpid"

# --- reload: the network part live, the file part at the next start --------
# records FILE: the start and reload records of an events file, one a line
records() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e=json.loads(l)
    if "record" in e:
        print(e["record"], e["enforcer"], e["mode"], e.get("landlock_abi", 0) >= 3,
              e["file_events"] in (True, False), e.get("needs_restart"), e.get("pid", 0) > 0)' "$1"
}
# hup N: SIGHUP the run, wait for its Nth record or a failed reload
hup() {
	local failed
	failed=$(grep -c "reload failed" "$T/err.reload")
	kill -HUP $acpid
	for _ in $(seq 100); do
		[ "$(records "$T/rl.json" | wc -l)" -ge "$1" ] && return
		[ "$(grep -c "reload failed" "$T/err.reload")" -gt "$failed" ] && return
		sleep 0.1
	done
}
rm -f "$W/sub/go" "$W/sub/out" "$T/rl.json"
cp "$T/p.yaml" "$T/r.yaml"
(cd "$W" && exec "$AC" run --accept-weaker --policy "$T/r.yaml" --events "$T/rl.json" -- \
	/bin/sh "$W/sub/wait.sh" "$W/sub" "$W/probe.py" read_public=read:$W/public \
	read_passwd=read:/etc/passwd connect_a=connect:127.0.0.1,$PA connect_b=connect:127.0.0.1,$PB) \
	> /dev/null 2> "$T/err.reload" &
acpid=$!; pids+=($acpid)
for _ in $(seq 100); do [ -e "$W/sub/ready" ] && break; sleep 0.1; done
rm -f "$W/sub/ready"
[ "$(records "$T/rl.json")" = "start landlock enforce True True None True" ] \
	&& ok "the events file starts with a start record: enforcer landlock, its ABI, the agent's pid" \
	|| no "start record" "$(cat "$T/rl.json")"
printf 'mode: audit\n' >> "$T/r.yaml"
hup 2
grep -q "reload failed, keeping the old policy: the mode changed, .*Landlock domain cannot change" \
	"$T/err.reload" && [ "$(records "$T/rl.json" | wc -l)" = 1 ] \
	&& ok "a reload that changes the mode is refused under Landlock, the old policy kept" \
	|| no "mode reload refused" "$(cat "$T/err.reload")"
sed -i '/^mode: audit$/d; s|/etc/shadow\]|/etc/shadow, /etc/passwd]|' "$T/r.yaml"
hup 2
[ "$(records "$T/rl.json" | sed -n 2p)" = "reload landlock enforce True True True False" ] \
	&& grep -q "warning: the file and exec rules changed, .*keeps the ones it started with" "$T/err.reload" \
	&& ok "a reload that changes file rules: needs_restart in its record, and a warning" \
	|| no "file reload: needs restart" "$(cat "$T/err.reload" "$T/rl.json")"
sed -i "s|127.0.0.1:$PA/tcp|127.0.0.1:$PB/tcp|; s|, /etc/passwd\]|]|" "$T/r.yaml"
hup 3
[ "$(records "$T/rl.json" | sed -n 3p)" = "reload landlock enforce True True False False" ] \
	&& grep -q "the file and exec rules are the agent's own again" "$T/err.reload" \
	&& ok "  ... a reload back to the agent's file rules clears it" \
	|| no "  ... reload back" "$(cat "$T/err.reload" "$T/rl.json")"
sed -i 's|/etc/shadow\]|/etc/shadow, /etc/passwd]|' "$T/r.yaml"
hup 4
touch "$W/sub/go"
wait $acpid; st=$?
out=$(cat "$W/sub/out" 2>/dev/null)
[ $st = 0 ] && [ "$(records "$T/rl.json" | sed -n 4p)" = "reload landlock enforce True True True False" ] \
	&& ok "a reload of the network part is taken live (the file part changed again: needs restart)" \
	|| no "network reload" "$st $(cat "$T/err.reload" "$T/rl.json")"
check "  ... the newly allowed peer is reached" connect_b ok
check "  ... and the one allowed before is refused now" connect_a "errno EPERM"
check "  ... (the file rules as before: a read)" read_public ok
check "  ... the newly denied file is still read, as the warning and the record said" read_passwd ok

[ -z "$(find "$cg2/agentcage" -mindepth 1 -maxdepth 1 -type d -name '*-*' 2>/dev/null)" ] \
	&& ok "no cage left behind" || no "no cage left behind" "$(ls "$cg2/agentcage")"
echo "landlock: $pass passed, $fail failed"
[ $fail = 0 ]
