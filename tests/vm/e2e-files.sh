# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 340 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The file, exec and process suite (run by e2e.sh in a lane of its own, or
# alone with e2e-one.sh): sources lib.sh helpers, uses $AC, $T, $repo.
# a read-only tree and a writable one, made outside any cage
mkdir -p /srv/ro/d /srv/rw /tmp/agent-work
echo original > /srv/ro/f; echo secret > /srv/ro/secret
ln -s /etc/shadow /srv/rw/shadow-link
cat > $T/fs.yaml <<Y
user: root
name: fs
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /etc/locale.alias, /dev/null, /srv/ro, /proc]
  write: [/srv/rw, $T, /dev/null]
  deny: [/etc/shadow, /srv/ro/secret]
exec:
  allow: [/usr/bin, /usr/lib, /bin]
Y
P="$AC run --policy $T/fs.yaml --events $T/ev.json --"
suite_daemon

echo "# the python code-runner scenario"
out=$(cd /tmp/agent-work && $AC run --user root --policy $repo/policies/python-runner.yaml --events $T/py.json -- \
	/usr/bin/python3 -c 'print(sum(i * i for i in range(10)))' 2>&1)
[ "$out" = 285 ] && ok "safe python code prints its result" || no "safe python code prints its result" "$out"
expect "python reading /etc/shadow is denied" 1 $AC run --user root --policy $repo/policies/python-runner.yaml \
	--events $T/py.json -- /usr/bin/python3 -c 'open("/etc/shadow").read()'
event "  ... reported as open_read of /etc/shadow" $T/py.json op=open_read path=/etc/shadow action=denied 'cage~=python-runner-[0-9]+' comm=python3
expect "python writing /root/x is denied" 1 $AC run --user root --policy $repo/policies/python-runner.yaml \
	--events $T/py.json -- /usr/bin/python3 -c 'open("/root/x", "w").write("x")'
event "  ... reported as create of /root/x" $T/py.json op=create path=/root/x action=denied rule=default-deny
[ ! -e /root/x ] && ok "  ... and /root/x does not exist" || no "  ... and /root/x does not exist"
expect "python may write /tmp/agent-work" 0 $AC run --user root --policy $repo/policies/python-runner.yaml -- \
	/usr/bin/python3 -c 'open("/tmp/agent-work/out", "w").write("x")'
expect "python may not run a shell (exec.allow)" 1 $AC run --user root --policy $repo/policies/python-runner.yaml \
	--events $T/py.json -- /usr/bin/python3 -c 'import subprocess; subprocess.run(["/bin/sh", "-c", "true"])'
event "  ... reported as exec of /usr/bin/dash" $T/py.json op=exec path=/usr/bin/dash

expect "a standalone run: /etc/shadow denied" 1 $AC run --standalone --policy $T/fs.yaml --events $T/sa.json -- /bin/cat /etc/shadow
event "  ... its event names the deciding entry" $T/sa.json op=open_read path=/etc/shadow action=denied "rule=files.deny: /etc/shadow"
expect "  ... and /srv/ro/f read in the same policy" 0 $AC run --standalone --policy $T/fs.yaml -- /bin/cat /srv/ro/f

echo "# path resolution"
expect "a symlink to /etc/shadow is denied" 1 $P /bin/cat /srv/rw/shadow-link
event "  ... reported with the resolved path, and the entry that decided" $T/ev.json op=open_read path=/etc/shadow "rule=files.deny: /etc/shadow"
expect "'..' to /etc/shadow is denied" 1 $P /bin/cat /srv/rw/../../etc/shadow
expect "a relative path is denied" 1 $P /bin/sh -c 'cd /etc && cat ./shadow'
expect "/proc/self/root/etc/shadow is denied" 1 $P /bin/cat /proc/self/root/etc/shadow
expect "/proc/self/fd of an inherited fd is denied" 1 $P /bin/sh -c 'cat /proc/self/fd/3' 3</etc/shadow
expect "reading /srv/ro/f is allowed" 0 $P /bin/cat /srv/ro/f
expect "a denied file beneath a read tree stays denied" 1 $P /bin/cat /srv/ro/secret
deep=$T/deep; d=$deep
while [ ${#d} -lt 3900 ]; do d=$d/node_modules_pkg_0123456789; done
expect "a 3900-byte deep tree is writable and readable where granted" 0 $P /bin/sh -c \
	"mkdir -p $d && echo deep > $d/f && cat $d/f"
mkdir -p /srv/ro/deep; d2=/srv/ro/deep
while [ ${#d2} -lt 3000 ]; do d2=$d2/dir_0123456789; done
mkdir -p $d2
expect "a file created 3000 bytes deep in a read-only tree is denied" 2 $P /bin/sh -c "echo x > $d2/f"
event "  ... reported with its full path" $T/ev.json op=create path=$d2/f

echo "# every modification on a read-only tree is denied"
(cd /srv/ro && ls -laR --time-style=+ .) > $T/ro.before
expect "open for write" 2 $P /bin/sh -c 'echo x >> /srv/ro/f'
expect "create" 1 $P /usr/bin/touch /srv/ro/new
expect "mkdir" 1 $P /bin/mkdir /srv/ro/nd
expect "rmdir" 1 $P /bin/rmdir /srv/ro/d
expect "unlink" 1 $P /bin/rm -f /srv/ro/f
expect "rename out of the tree" 1 $P /bin/mv /srv/ro/f /srv/rw/f
expect "rename into the tree" 1 $P /bin/sh -c 'echo y > /srv/rw/g && mv /srv/rw/g /srv/ro/g'
expect "hard link of a read-only file" 1 $P /bin/ln /srv/ro/f /srv/rw/hard
expect "symlink" 1 $P /bin/ln -s /tmp /srv/ro/sym
expect "truncate" 1 $P /usr/bin/python3 -c 'import os; os.truncate("/srv/ro/f", 0)'
expect "chmod" 1 $P /bin/chmod 777 /srv/ro/f
expect "chown" 1 $P /bin/chown 65534 /srv/ro/f
expect "setxattr" 1 $P /usr/bin/python3 -c 'import os; ACL = bytes.fromhex("0200000001000600ffffffff04000400ffffffff20000400ffffffff"); os.setxattr("/srv/ro/f", "system.posix_acl_access", ACL)'
expect "mkfifo (mknod)" 1 $P /usr/bin/mkfifo /srv/ro/fifo
mtime=$(stat -c %Y /srv/ro/f)
expect "utimes (touch of an existing file)" 1 $P /usr/bin/touch -d 2001-01-01 /srv/ro/f
[ "$(stat -c %Y /srv/ro/f)" = "$mtime" ] && ok "  ... its time is unchanged" || no "  ... its time is unchanged"
(cd /srv/ro && ls -laR --time-style=+ .) > $T/ro.after
diff $T/ro.before $T/ro.after > $T/ro.diff && ok "the read-only tree is unchanged" || no "the read-only tree is unchanged" "$(cat $T/ro.diff)"
[ "$(cat /srv/ro/f)" = original ] && ok "its file content is unchanged" || no "its file content is unchanged"
for op in open_write create mkdir rmdir unlink rename link symlink truncate chmod chown setxattr mknod utimes; do
	event "  ... $op reported" $T/ev.json op=$op action=denied
done
echo "# files that open creates"
mkdir -p /run/e2e-ro /run/e2e-rw   # a tmpfs: O_TMPFILE works there
sed -e 's|read: \[|read: [/run/e2e-ro, |' -e 's|write: \[|write: [/run/e2e-rw, |' $T/fs.yaml > $T/create.yaml
sed 's/^name: fs/name: fs\nmode: audit/' $T/create.yaml > $T/create-audit.yaml
PC="$AC run --policy $T/create.yaml --events $T/create.json --"
expect "O_TMPFILE in a read-only directory is denied" 1 $PC /usr/bin/python3 -c \
	'import os; os.open("/run/e2e-ro", os.O_TMPFILE | os.O_WRONLY, 0o600)'
event "  ... reported as open_write beneath it" $T/create.json op=open_write 'path~=/run/e2e-ro/#[0-9]+' 
expect "O_TMPFILE where write is granted" 0 $PC /usr/bin/python3 -c \
	'import os; os.write(os.open("/run/e2e-rw", os.O_TMPFILE | os.O_WRONLY, 0o600), b"x")'
expect "open(O_CREAT) where write is granted, then writing and reading it" 0 $PC /bin/sh -c \
	'echo made > /run/e2e-rw/new && [ "$(cat /run/e2e-rw/new)" = made ]'
expect "audit: open(O_CREAT) in a read-only directory succeeds" 0 $AC run --policy $T/create-audit.yaml \
	--events $T/create-audit.json -- /bin/sh -c 'echo a > /run/e2e-ro/audit-made'
event "  ... reported once as create" $T/create-audit.json op=create path=/run/e2e-ro/audit-made action=audited
event "  ... and not again by the open that created it" $T/create-audit.json --none op=open_write path=/run/e2e-ro/audit-made
expect "audit: opening the existing file for write is reported" 0 $AC run --policy $T/create-audit.yaml \
	--events $T/create-audit.json -- /bin/sh -c 'echo a >> /run/e2e-ro/audit-made'
event "  ... as open_write" $T/create-audit.json op=open_write path=/run/e2e-ro/audit-made action=audited
echo "# time and xattr changes on another filesystem than the working directory's"
echo x > /run/e2e-rw/t; echo x > /run/e2e-ro/t; cd /srv/rw   # the overlay; /run is a tmpfs
expect "touch of a writable file on the tmpfs" 0 $PC /usr/bin/touch -d 2001-01-01 /run/e2e-rw/t
[ "$(stat -c %Y /run/e2e-rw/t)" = "$(date -d 2001-01-01 +%s)" ] && ok "  ... changes its time" || no "  ... changes its time" "$(stat -c %y /run/e2e-rw/t)"
expect "touch of a read-only file on the tmpfs is denied" 1 $PC /usr/bin/touch -d 2001-01-01 /run/e2e-ro/t
event "  ... reported with its path" $T/create.json op=utimes path=/run/e2e-ro/t action=denied
expect "setxattr on a writable file on the tmpfs" 0 $PC /usr/bin/python3 -c \
	'import os; ACL = bytes.fromhex("0200000001000600ffffffff04000400ffffffff20000400ffffffff"); os.setxattr("/run/e2e-rw/t", "system.posix_acl_access", ACL)'
expect "setxattr on a read-only file on the tmpfs is denied" 1 $PC /usr/bin/python3 -c \
	'import os; ACL = bytes.fromhex("0200000001000600ffffffff04000400ffffffff20000400ffffffff"); os.setxattr("/run/e2e-ro/t", "system.posix_acl_access", ACL)'
event "  ... reported with its path" $T/create.json op=setxattr path=/run/e2e-ro/t action=denied
cd "$T"
rm -rf /run/e2e-ro /run/e2e-rw
expect "the same operations succeed where write is granted" 0 $P /bin/sh -c '
	cd /srv/rw && echo x >> f && touch n && mkdir d && rmdir d && mv n m && ln m l && ln -s m s &&
	truncate -s 0 m && chmod 600 m && chown 65534 m && touch -d 2001-01-01 m && mkfifo p && rm m l s p &&
	python3 -c "import os; os.setxattr(\"/srv/rw/f\", \"system.posix_acl_access\", bytes.fromhex(\"0200000001000600ffffffff04000400ffffffff20000400ffffffff\"))"'

echo "# exec"
cp /bin/true $T/mytrue
expect "exec of an allowed binary" 0 $P /bin/true
expect "exec of a copy outside exec.allow is denied (126)" 126 $P $T/mytrue
event "  ... reported as exec" $T/ev.json op=exec path=$T/mytrue
expect "exec through a symlink decides on the real file" 126 $P /bin/sh -c "ln -sf $T/mytrue $T/link && exec $T/link"
expect "mapping a writable copy of a library as code is denied" 1 $P /usr/bin/python3 -c \
	"import shutil, ctypes; shutil.copy('/usr/lib/x86_64-linux-gnu/libm.so.6', '$T/libm.so'); ctypes.CDLL('$T/libm.so')"
event "  ... reported as mmap_exec" $T/ev.json op=mmap_exec path=$T/libm.so

echo "# containment"
cat > $T/cg.yaml <<Y
user: root
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /dev/null, /proc, /sys/fs/cgroup]
  write: [/sys/fs/cgroup/agentcage]
  deny: [/etc/shadow]
exec:
  allow: [/usr/bin, /bin, /usr/lib]
Y
expect "a caged process cannot create a child cgroup (cgroupfs is read-only)" 1 $AC run --policy $T/cg.yaml -- /bin/sh -c '
	cg=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup); mkdir $cg/child'
expect "a caged process cannot move itself out of the cage" 2 $AC run --policy $T/cg.yaml --events $T/cg.json -- \
	/bin/sh -c 'echo $$ > /sys/fs/cgroup/agentcage/cgroup.procs'
event "  ... reported as cgroup_write" $T/cg.json op=cgroup_write
expect "mount is refused in a cage" 1 $P /usr/bin/unshare -m /bin/sh -c 'mount -t tmpfs none /mnt'
expect "a user namespace does not lift the cage" 1 $P /usr/bin/unshare -Urm /bin/sh -c 'mount -t tmpfs none /mnt || exit 1'
expect "bpf() is refused in a cage" 1 $P /usr/bin/python3 -c '
import ctypes, sys; l = ctypes.CDLL(None); r = l.syscall(321, 0, None, 0); sys.exit(1 if r < 0 else 0)'
event "  ... reported as the capability it needs (CAP_BPF)" $T/ev.json op=capability capability=CAP_BPF
expect "signals to agentcage itself are refused" 1 $P /bin/sh -c 'kill -TERM $PPID'
event "  ... reported as signal" $T/ev.json op=signal

echo "# io_uring"
U=$repo/build/uring-test
cat > $T/uring.yaml <<Y
user: root
name: uring
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /srv/ro, $U]
  deny: [/etc/shadow, /srv/ro/secret]
exec:
  allow: [$U, /usr/lib]
Y
UR="$AC run --policy $T/uring.yaml --events $T/uring.json --"
expect "outside a cage, an SQPOLL ring can be set up (control)" 0 $U sqpoll
expect "outside a cage, a personality opens a file (control)" 0 $U personality /srv/ro/f
expect "in a cage, a plain ring opens an allowed file" 0 $UR $U open /srv/ro/f
expect "in a cage, a plain ring cannot open a denied file" 1 $UR $U open /srv/ro/secret
event "  ... reported as open_read" $T/uring.json op=open_read path=/srv/ro/secret action=denied
expect "in a cage, a request under a registered personality is refused" 1 $UR $U personality /srv/ro/f
event "  ... reported as io_uring" $T/uring.json op=io_uring action=denied
expect "in a cage, an SQPOLL ring is refused" 1 $UR $U sqpoll

echo "# an uncaged process while a cage runs"
$AC run --policy $T/fs.yaml -- /bin/sleep 30 & cage=$!
caged "fs-$cage"
expect "an uncaged process reads /etc/shadow while a cage runs" 0 /bin/cat /etc/shadow
expect "an uncaged process writes /srv/ro while a cage runs" 0 /bin/sh -c 'echo z > /srv/ro/uncaged && rm /srv/ro/uncaged'
kill -INT $cage; wait $cage; st=$?
[ $st = 130 ] && ok "SIGINT is forwarded (the agent dies of it: 130)" || no "SIGINT is forwarded" "status $st"

echo "# audit mode"
expect "audit mode allows /etc/shadow" 0 $AC run --policy $T/fs.yaml --mode audit --events $T/audit.json -- /bin/cat /etc/shadow
event "  ... and reports it as audited" $T/audit.json op=open_read path=/etc/shadow action=audited
sed 's/^name: fs/name: fs\nmode: audit/' $T/fs.yaml > $T/audit.yaml
expect "mode: audit in the file" 0 $AC run --policy $T/audit.yaml -- /bin/sh -c 'echo a > /srv/ro/audit-made'
rm -f /srv/ro/audit-made

echo "# SIGHUP reload"
cp $T/fs.yaml $T/live.yaml
cat > $T/loop.sh <<'S'
for i in $(seq 1 300); do
	if cat /srv/ro/secret >/dev/null 2>&1; then echo allowed; else echo denied; fi
	sleep 0.1
done
S
$AC run --policy $T/live.yaml -- /bin/sh $T/loop.sh > $T/loop.out 2> $T/loop.err & cage=$!
started $T/loop.out; sleep 1
sed 's|deny: \[/etc/shadow, /srv/ro/secret\]|deny: [/etc/shadow]|' $T/fs.yaml > $T/live.yaml
kill -HUP $cage; sleep 3
echo "files: [oops" > $T/live.yaml
kill -HUP $cage; sleep 2
kill -TERM $cage; wait $cage
seq=$(uniq $T/loop.out | tr '\n' ' ')
[ "$seq" = "denied allowed " ] && ok "a valid reload switches the policy once, with no gap" || no "a valid reload switches the policy" "$seq $(cat $T/loop.err)"
grep -q "reload failed, keeping the old policy" $T/loop.err && ok "an invalid reload is reported" || no "an invalid reload is reported" "$(cat $T/loop.err)"
[ "$(tail -n1 $T/loop.out)" = allowed ] && ok "an invalid reload keeps the old policy" || no "an invalid reload keeps the old policy"

echo "# exit status"
expect "the command's own status" 7 $P /bin/sh -c 'exit 7'
expect "128+N when killed by signal N" 137 $P /bin/sh -c 'kill -9 $$'
expect "127 when the command does not exist" 127 $P /nonexistent
expect "125 for a bad policy" 125 $AC run --policy /nonexistent.yaml -- /bin/true
echo "mode: strict" > $T/bad.yaml
out=$($AC run --policy $T/bad.yaml -- /bin/true 2>&1)
case "$out" in *"$T/bad.yaml:1:7:"*) ok "  ... naming file, line and column";; *) no "  ... naming file, line and column" "$out";; esac
expect "125 for a bad option" 125 $AC run --mode strict -- /bin/true
expect "check accepts the shipped policies" 0 $AC check $repo/policies/default.yaml $repo/policies/python-runner.yaml $repo/policies/web-agent.yaml $repo/policies/image-agent.yaml
expect "check rejects a bad file (1)" 1 $AC check $T/bad.yaml

echo "# agentcage killed with SIGKILL"
rm -f /srv/rw/orphan /srv/rw/orphan-ran /srv/rw/orphan-started
$AC run --standalone --policy $T/fs.yaml -- /bin/sh -c 'touch /srv/rw/orphan-started; (sleep 4; cat /etc/shadow > /srv/rw/orphan; echo ran > /srv/rw/orphan-ran) & sleep 60' 2>/dev/null & acpid=$!
for _ in $(seq 300); do [ -e /srv/rw/orphan-started ] && break; sleep 0.1; done
kill -9 $acpid; wait $acpid 2>/dev/null
sleep 6
[ -e /srv/rw/orphan-started ] && [ ! -e /srv/rw/orphan-ran ] && [ ! -s /srv/rw/orphan ] \
	&& ok "a grandchild outliving a SIGKILLed agentcage is killed, never left unconfined" \
	|| no "SIGKILL of agentcage" "$(ls -l /srv/rw/orphan* 2>&1)"
left=$(find /sys/fs/cgroup/agentcage -mindepth 1 -type d -name "*-$acpid")
[ -z "$left" ] && ok "  ... and its cgroup is removed" || no "  ... cgroup removed after SIGKILL" "$left"
[ -z "$(ls -d /tmp/agentcage-$acpid-* 2>/dev/null)" ] && ok "  ... and its private tmp directory" || no "  ... tmp dir removed after SIGKILL" "$(ls -d /tmp/agentcage-$acpid-*)"
rm -f /srv/rw/orphan /srv/rw/orphan-ran /srv/rw/orphan-started
/bin/sh -c 'exit 0' & dead=$!; wait $dead
mkdir -p /sys/fs/cgroup/agentcage/stale-$dead /tmp/agentcage-$dead-AbCdEf/sub
expect "a run after one killed while loading" 0 $AC run --standalone --policy $T/fs.yaml -- /bin/true
[ ! -e /sys/fs/cgroup/agentcage/stale-$dead ] && [ ! -e /tmp/agentcage-$dead-AbCdEf ] \
	&& ok "  ... removes the dead run's cgroup and tmp directory" || no "  ... stale cgroup and tmp swept" "$(ls -d /sys/fs/cgroup/agentcage/stale-* /tmp/agentcage-$dead-* 2>&1)"

echo "# the directory cache"
# A directory caches the class of its names only while nothing moved it and
# the policy is the same: each case makes the cache answer (the -v count
# shows it did), then changes that from outside the cage, and the same kind
# of create must be refused at once.
mkdir -p /run/dc/w/sub /run/dc/w/keep /run/dc/w/m /run/dc/w/sub3/inner /run/dc/w/sub4 /run/dc/ro/m
sed -e 's|read: \[|read: [/run/dc, |' -e 's|write: \[|write: [/run/dc/w, |' \
	-e 's|deny: \[|deny: [/run/dc/w/keep/secret, |' $T/fs.yaml > $T/dc.yaml
cat > $T/dc-loop.sh <<'S'
# DIR NEXT: make and remove files in DIR until /run/dc/w/go appears, then try NEXT/after
dir=$1 next=$2
for i in $(seq 50); do { true > $dir/f$i && rm $dir/f$i; } 2>/dev/null || echo "early failure at $i"; done
echo ready > /run/dc/w/ready
while [ ! -e /run/dc/w/go ]; do sleep 0.05; done
if { true > $next/after; } 2>/dev/null; then echo allowed; else echo denied; fi
S
# dc_case NAME DIR NEXT CHANGE...: fill DIR's cache in a cage, run CHANGE outside, create in NEXT
dc_case() { local name=$1 dir=$2 next=$3; shift 3; rm -f /run/dc/w/ready /run/dc/w/go
	cp $T/dc.yaml $T/dc-live.yaml
	$AC run --standalone -v --policy $T/dc-live.yaml --events $T/dc.json -- /bin/sh $T/dc-loop.sh $dir $next \
		> $T/dc.out 2> $T/dc.err & dc_pid=$!
	started /run/dc/w/ready; "$@"; touch /run/dc/w/go; wait $dc_pid
	local hits=$(sed -n 's/.* \([0-9]*\) file decisions taken from the directory cache.*/\1/p' $T/dc.err)
	[ "${hits:-0}" -ge 50 ] && ok "$name: the cache answered ($hits times)" || no "$name: the cache answered" "$(cat $T/dc.err)"
	[ "$(cat $T/dc.out)" = denied ] && ok "$name: then the create is refused at once" || no "$name: then the create is refused" "$(cat $T/dc.out)"
	event "  ... reported with its path" $T/dc.json op=create path=$next/after action=denied; }
dc_case "a rename" /run/dc/w/sub /run/dc/ro/sub mv /run/dc/w/sub /run/dc/ro/sub
mount -t tmpfs dc /run/dc/w/m
dc_case "a moved mount" /run/dc/w/m /run/dc/ro/m mount --move /run/dc/w/m /run/dc/ro/m
umount /run/dc/ro/m
dc_case "a rename of an ancestor" /run/dc/w/sub3/inner /run/dc/ro/sub3/inner mv /run/dc/w/sub3 /run/dc/ro/sub3
dc_reload() { sed 's|write: \[/run/dc/w, |write: [|' $T/dc.yaml > $T/dc-live.yaml; kill -HUP $dc_pid; sleep 3; }
dc_case "a reload" /run/dc/w/sub4 /run/dc/w/sub4 dc_reload
cat > $T/dc-keep.sh <<'S'
for i in $(seq 50); do { true > /run/dc/w/keep/f$i && rm /run/dc/w/keep/f$i; } 2>/dev/null || echo "early failure at $i"; done
if { true > /run/dc/w/keep/secret; } 2>/dev/null; then echo allowed; else echo denied; fi
S
out=$($AC run --policy $T/dc.yaml -- /bin/sh $T/dc-keep.sh 2>/dev/null)
[ "$out" = denied ] && ok "a directory with a rule below it is not cached: its denied name stays denied" || no "a directory with a rule below it" "$out"
[ ! -e /run/dc/w/keep/secret ] && ok "  ... and the file does not exist" || no "  ... and the file does not exist"

echo "# events"
python3 -c 'import os; d = b"/srv/ro/we\"ird\nname"; os.makedirs(d); open(d + b"/bad\xff", "w").close()'
$P /usr/bin/python3 -c 'open(b"/srv/ro/we\"ird\nname/bad\xff", "ab")' > $T/weird.out 2>&1
event "a path with a quote, a newline and invalid UTF-8 gives valid JSON" $T/ev.json "op=open_write" "path=/srv/ro/we\"ird
name/bad"$'\xef\xbf\xbd'
# the agent's own complaint goes elsewhere: cat writes it in pieces, which may
# share a line with an event written between them
$AC run --policy $T/fs.yaml --json -- /bin/sh -c 'exec /bin/cat /etc/shadow 2>/dev/null' 2>&1 >/dev/null | grep '^{' > $T/stderr.json
event "--json prints JSON events on stderr" $T/stderr.json op=open_read path=/etc/shadow
out=$($AC run --policy $T/fs.yaml -- /bin/cat /etc/shadow 2>&1 >/dev/null)
case "$out" in *"DENY"*'op=open_read path="/etc/shadow"'*) ok "plain events are one readable line";; *) no "plain events" "$out";; esac
expect "the default policy denies /etc/shadow" 1 /bin/sh -c "cd $T && $AC run --user root -- /bin/cat /etc/shadow"
expect "the default policy allows writing the current directory" 0 /bin/sh -c "cd $T && $AC run --user root -- /bin/sh -c 'echo x > in-cwd'"
expect "the default policy denies writing elsewhere" 2 /bin/sh -c "cd $T && $AC run --user root -- /bin/sh -c 'echo x > /srv/rw/x'"
expect "the default policy refuses to run from / (it would grant write to /)" 125 /bin/sh -c "cd / && $AC run -- /bin/true"
