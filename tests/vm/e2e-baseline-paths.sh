# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 47 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, path naming (sourced by e2e.sh, or alone by e2e-one.sh):
# a path is named in the task's own mount namespace only; a file reached
# through a detached mount or another namespace's mount is unresolved.
suite_daemon
echo "# paths: names come from the task's own mount namespace"
D=$H/detached
rel=${T#/}
mkdir -p /var/lib/ac-paths /srv/pp$T /srv/pp-ro /srv/pp-rw /srv/pp-bind $T/bind $T/w
echo varsecret > /var/lib/ac-paths/x
echo protected > /srv/pp$T/f; echo control > /srv/pp$T/g
echo orig > /srv/pp-ro/f
cat > $T/paths.yaml <<Y
user: root
name: paths
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /dev/null, /proc, /srv/pp, /srv/pp-ro, $H]
  write: [$T, /srv/pp-rw]
exec:
  allow: [/usr/bin, /usr/lib, /bin, $H]
network:
  unix: [/srv/pp-rw]
Y
PP="$AC run --policy $T/paths.yaml --events $T/paths.json --"
# event_either NAME FILE "K=V ..." "K=V ...": an event matching the first set or the second.
# The in-cage attacks below may be refused before the walk by the baseline
# (open_tree/fsopen need CAP_SYS_ADMIN, /proc/PID/root a ptrace read, both
# refused in a cage); either refusal must come with its event.
event_either() { local name=$1 f=$2 a=$3 b=$4
	if python3 "$EV" "$f" $a >/dev/null 2>&1 || python3 "$EV" "$f" $b >/dev/null 2>&1; then ok "$name"
	else no "$name" "neither {$a} nor {$b} in $f: $(tail -c 600 "$f" 2>&1)"; fi; }
# unread_st NAME SECRET "STATUSES" CMD...: CMD exits with one of STATUSES and never prints SECRET
unread_st() { local name=$1 secret=$2 want=$3; shift 3; local out; out=$("$@" 2>&1); local st=$?
	if [[ " $want " == *" $st "* ]] && [[ "$out" != *"$secret"* ]]; then ok "$name"; else no "$name" "status $st, want one of $want: $out"; fi; }
CAPADM="op=capability capability=CAP_SYS_ADMIN action=denied"
# unread NAME SECRET STATUS CMD...: CMD exits STATUS and never prints SECRET
unread() { local name=$1 secret=$2 want=$3; shift 3; local out; out=$("$@" 2>&1); local st=$?
	if [ "$st" = "$want" ] && [[ "$out" != *"$secret"* ]]; then ok "$name"; else no "$name" "status $st, want $want: $out"; fi; }

expect "outside a cage, a detached clone of /var reads lib/ac-paths/x (control)" 0 $D read /var lib/ac-paths/x
unread "in a cage, /var/lib/ac-paths/x is denied" varsecret 1 $PP /bin/cat /var/lib/ac-paths/x
event "  ... under its name" $T/paths.json op=open_read path=/var/lib/ac-paths/x action=denied
unread_st "in a cage, a clone of /var does not name it /lib/ac-paths/x (readable)" varsecret "1 3" $PP $D read /var lib/ac-paths/x
event_either "  ... reported as unresolved, or the clone refused" $T/paths.json \
	"op=open_read comm=detached unresolved=True path=None action=denied" "$CAPADM comm=detached"
unread_st "in a cage, fchdir into a clone of /var, then open lib/ac-paths/x, is denied" varsecret "1 3" $PP $D fchdir /var lib/ac-paths/x
# (the launch closes every descriptor but 0-2: the clone comes in as standard input)
unread "a clone made outside and inherited (stdin) is unresolved in the cage too" varsecret 1 \
	$D hold-stdin /var $AC run --policy $T/paths.yaml --events $T/paths-fd.json -- $D fd 0 read lib/ac-paths/x
event "  ... reported as unresolved" $T/paths-fd.json op=open_read comm=detached unresolved=True
expect "  ... the same inherited clone reads it outside a cage (control)" 0 $D hold-stdin /var $D fd 0 read lib/ac-paths/x

expect "outside a cage, a clone of /srv/pp appends to $rel/g (control)" 0 $D append /srv/pp $rel/g more
[ "$(cat /srv/pp$T/g)" = "$(printf 'control\nmore')" ] && ok "  ... and the file changed" || no "  ... and the file changed" "$(cat /srv/pp$T/g)"
expect "in a cage, $T/f (the name a clone of /srv/pp would give) is writable" 0 $PP /bin/sh -c "echo mine > $T/f"
unread_st "in a cage, a clone of /srv/pp does not make /srv/pp$T/f writable" pwned "1 3" $PP $D append /srv/pp $rel/f pwned
event_either "  ... reported as unresolved, or the clone refused" $T/paths.json \
	"op=open_write comm=detached unresolved=True" "$CAPADM comm=detached"
[ "$(cat /srv/pp$T/f)" = protected ] && ok "  ... the file is unchanged" || no "  ... the file is unchanged" "$(cat /srv/pp$T/f)"
expect "outside a cage, utimes after fchdir into a clone (control)" 0 $D touch /srv/pp $rel/g
[ "$(stat -c %Y /srv/pp$T/g)" = 978307200 ] && ok "  ... changes its time" || no "  ... changes its time"
mtime=$(stat -c %Y /srv/pp$T/f)
unread_st "in a cage, utimes after fchdir into a clone of /srv/pp is denied" none-expected "1 3" $PP $D touch /srv/pp $rel/f
event_either "  ... under the name of the namespace, /srv/pp$T/f, or the clone refused" $T/paths.json \
	"op=utimes path=/srv/pp$T/f action=denied" "$CAPADM comm=detached"
[ "$(stat -c %Y /srv/pp$T/f)" = "$mtime" ] && ok "  ... its time is unchanged" || no "  ... its time is unchanged"

expect "in a cage, the agent writes a binary in its own directory" 0 $PP /bin/sh -c \
	"mkdir -p $T/w/usr/bin && cp /bin/true $T/w/usr/bin/mytrue"
expect "outside a cage, execveat through a clone of that directory runs it (control)" 0 $D exec $T/w usr/bin/mytrue
expect "in a cage, it is not exec-allowed under its name" 126 $PP $T/w/usr/bin/mytrue
unread_st "in a cage, a clone of the directory does not run it as /usr/bin/mytrue" none-expected "1 3" \
	$AC run --policy $T/paths.yaml --events $T/paths-exec.json -- $D exec $T/w usr/bin/mytrue
event_either "  ... refused at the exec's open, as unresolved, or the clone refused" $T/paths-exec.json \
	"op=open_read comm=detached unresolved=True action=denied" "$CAPADM comm=detached"

expect "outside a cage, a file in a new tmpfs from fsmount (control)" 0 $D fsmount f
unread_st "in a cage, a file in a new tmpfs from fsmount is refused" none-expected "1 3" $PP $D fsmount f
event_either "  ... reported as an unresolved create, or fsopen refused" $T/paths.json \
	"op=create comm=detached unresolved=True" "$CAPADM comm=detached"

# another mount namespace (made outside any cage) where /srv/pp-ro is bound
# on /srv/pp-rw, the writable name in the cage's own namespace
rm -f $T/ns.ready
unshare -m --propagation private /bin/sh -c "mount --bind /srv/pp-ro /srv/pp-rw &&
	python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(\"/srv/pp-rw/ns.sock\"); s.listen(); open(\"$T/ns.ready\", \"w\").write(\"1\"); import time; time.sleep(120)'" &
nsq=$!
started $T/ns.ready
nsp=$(pgrep -P $nsq python3 || echo $nsq)
expect "outside the cage, /proc/Q/root/srv/pp-rw/f is /srv/pp-ro/f there (control)" 0 grep -q orig /proc/$nsp/root/srv/pp-rw/f
expect "in a cage, writing it through /proc/Q/root is refused" 2 $PP /bin/sh -c "echo pwned >> /proc/$nsp/root/srv/pp-rw/f"
event_either "  ... reported as unresolved, or the /proc/Q/root read refused (ptrace)" $T/paths.json \
	"op=open_write comm=sh unresolved=True" "op=ptrace comm=sh action=denied"
[ "$(cat /srv/pp-ro/f)" = orig ] && ok "  ... the file is unchanged" || no "  ... the file is unchanged" "$(cat /srv/pp-ro/f)"
expect "in a cage, /srv/pp-rw/f of its own namespace is writable" 0 $PP /bin/sh -c "echo mine >> /srv/pp-rw/f"
conn='import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])'
expect "outside the cage, that namespace's socket accepts a connection (control)" 0 python3 -c "$conn" /proc/$nsp/root/srv/pp-rw/ns.sock
expect "in a cage, a unix socket bound in another namespace is unresolved" 1 $PP python3 -c "$conn" /proc/$nsp/root/srv/pp-rw/ns.sock
event_either "  ... reported as an unresolved unix_connect, or the /proc/Q/root read refused" $T/paths.json \
	"op=unix_connect unresolved=True" "op=ptrace comm=python3 action=denied"
kill $nsp $nsq 2>/dev/null; wait $nsq 2>/dev/null
rm -f /srv/pp-rw/f; echo orig > /srv/pp-ro/f

# a chroot cannot rename paths: names come from the namespace's root, and
# in a cage chroot itself is refused (CAP_SYS_CHROOT, the baseline)
expect "a caged process may not chroot (so no root of its own renames paths)" 1 $PP /usr/bin/python3 -c \
	'import os; os.chroot("/srv"); os.chdir("/"); open("/pp-ro/f", "a")'
event "  ... reported as capability CAP_SYS_CHROOT" $T/paths.json op=capability capability=CAP_SYS_CHROOT comm=python3
expect "  ... while outside the cage the same chroot works (control)" 0 /usr/bin/python3 -c \
	'import os; os.chroot("/srv"); os.chdir("/"); assert open("/pp-ro/f").read() == "orig\n"'

mount --bind /srv/pp-ro $T/bind; mount --bind /srv/pp-ro /srv/pp-bind
expect "a bind mount in the namespace is named by its mount point (writable under $T)" 0 $PP /bin/sh -c "echo b >> $T/bind/f"
expect "  ... and (not readable) under /srv/pp-bind" 1 $PP /bin/cat /srv/pp-bind/f
event "  ... reported under /srv/pp-bind/f" $T/paths.json op=open_read path=/srv/pp-bind/f
umount $T/bind /srv/pp-bind
echo orig > /srv/pp-ro/f

echo "# paths: overlayfs copy-up"
# an overlay of tmpfs layers, mounted outside the cage: f and g exist in the
# lower layer only, so a write must copy them up
O=/run/ac-ov
mkdir -p $O/lower/d $O/upper $O/work $O/m
echo lower > $O/lower/f; echo lower > $O/lower/g; echo lower > $O/lower/d/h
mount -t overlay acov -o lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work $O/m
sed -e "s|write: \[|write: [$O/m, /usr/share/common-licenses, |" $T/paths.yaml > $T/ov.yaml
sed -e "s|read: \[|read: [$O/m, |" -e 's/^name: paths/name: ov\nmode: audit/' $T/paths.yaml > $T/ov-audit.yaml
sed -e "s|read: \[|read: [$O/m, |" $T/paths.yaml > $T/ov-ro.yaml
PO="$AC run --policy $T/ov.yaml --events $T/ov.json --"
expect "in a cage, appending to a lower-only file of an overlay where write is granted" 0 $PO /bin/sh -c "echo x >> $O/m/f"
[ "$(cat $O/m/f)" = "$(printf 'lower\nx')" ] && [ "$(cat $O/lower/f)" = lower ] && ok "  ... the copy in the upper layer has it, the lower is unchanged" ||
	no "  ... copied up" "$(cat $O/m/f; cat $O/lower/f)"
expect "  ... and opening one for write in a lower-only directory (O_TRUNC)" 0 $PO /bin/sh -c "echo y > $O/m/d/h"
[ "$(cat $O/m/d/h)" = y ] && ok "  ... written" || no "  ... written" "$(cat $O/m/d/h)"
python3 $EV $T/ov.json --none && ok "  ... with no event" || no "  ... with no event" "$(cat $T/ov.json)"
expect "in a cage, the VM's own root overlay: appending to a file only in its 9p lower layer" 0 $PO /bin/sh -c \
	'echo x >> /usr/share/common-licenses/GPL-2 && tail -n 1 /usr/share/common-licenses/GPL-2 | grep -qx x'
expect "  ... listing a merged directory of the overlay" 0 $PO /bin/ls $O/m $O/m/d
stat $O/m/g > /dev/null   # its dentry cached: see the report on O_CREAT of uncached names
expect "audit: appending to a lower-only file of a read-only overlay is allowed" 0 $AC run --policy $T/ov-audit.yaml \
	--events $T/ov-audit.json -- /bin/sh -c "echo x >> $O/m/g"
event "  ... reported as open_write of the overlay path" $T/ov-audit.json op=open_write path=$O/m/g action=audited
event "  ... and no unresolved event of the copy-up" $T/ov-audit.json --none unresolved=True
n=$(grep -c '"op":' $T/ov-audit.json)
[ "$n" = 1 ] && ok "  ... one event in all" || no "  ... one event in all" "$(cat $T/ov-audit.json)"
echo lower > $O/lower/g2
expect "enforce: appending to a lower-only file of a read-only overlay is denied" 2 $AC run --policy $T/ov-ro.yaml \
	--events $T/ov-ro.json -- /bin/sh -c "echo x >> $O/m/g2"
event "  ... reported as open_write of the overlay path" $T/ov-ro.json op=open_write path=$O/m/g2 action=denied
[ ! -e $O/upper/g2 ] && ok "  ... and nothing was copied up" || no "  ... nothing copied up"
umount $O/m; rm -rf $O

echo "# paths: a path of 4096 bytes"
# built with relative mkdir/chdir (a single path argument stops at PATH_MAX)
cat > $T/long.py <<'PY'
import os, sys
base, total, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.chdir(base)
cur = base
while total - len(cur) > 256:
    c = "d" * 200
    if mode == "make":
        os.makedirs(c, exist_ok=True)
    os.chdir(c)
    cur += "/" + c
name = "f" * (total - len(cur) - 1)
if mode == "make":
    open(name, "w").close()
    print(cur + "/" + name)
else:
    open(name, "a")
PY
p4096=$(python3 $T/long.py /srv/pp-ro 4096 make)
p4097=$(python3 $T/long.py /srv/pp-ro 4097 make)
[ ${#p4096} = 4096 ] && [ ${#p4097} = 4097 ] && ok "paths of 4096 and 4097 bytes made outside the cage" || no "long paths made" "${#p4096} ${#p4097}"
expect "in a cage, writing a file of a 4096-byte path in a read-only tree is denied" 1 $PP /usr/bin/python3 $T/long.py /srv/pp-ro 4096 open
event "  ... and the event carries its whole path" $T/paths.json op=open_write "path=$p4096"
expect "in a cage, the same 4097 bytes long is denied" 1 $PP /usr/bin/python3 $T/long.py /srv/pp-ro 4097 open
event "  ... as unresolved (longer than the walk's buffer)" $T/paths.json op=open_write unresolved=True comm=python3
expect "  ... and allowed where write is granted (4096 bytes under $T)" 0 /bin/sh -c \
	"python3 $T/long.py $T 4096 make >/dev/null && $PP /usr/bin/python3 $T/long.py $T 4096 open"
rm -rf /srv/pp-ro/dd*
