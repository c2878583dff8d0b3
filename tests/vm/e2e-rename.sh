# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 139 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# A rename moves every name beneath a directory: a root agent may not
# rename a directory with a rule below it (a denied file read, a read-only
# file written, its own program run under an exec.allow name), nor move a
# directory or socket under a unix rule (a socket bound outside the cage
# reached under a listed name). Each refusal is shown next to the same
# rename working where no rule is moved, and outside a cage. Sourced by
# e2e.sh and e2e-one.sh (lib.sh's helpers).
suite_daemon
echo "# renames that would move the rules' names"
D=$T/rename; mkdir -p $D
W=/run/rename/w; rm -rf /run/rename
mkdir -p $W/keep $W/proj/ro $W/evil/tools $W/priv $W/pub $W/plain/sub
echo TOPSECRET > $W/keep/secret; echo orig > $W/proj/ro/f; echo x > $W/plain/sub/f
cp /usr/bin/id $W/evil/tools/build
cat > $D/p.yaml <<Y
user: root
name: rename
files:
  read: [/usr, /lib, /lib64, /bin, /etc, /proc, /dev/null, $W/proj/ro, $W/new/tools]
  write: [$W, $T]
  deny: [$W/keep/secret]
exec:
  allow: [/usr/bin, /bin, /usr/lib, $W/new/tools]
network:
  unix: [$W/pub]
Y
inc() { local ev=$1; shift; $AC run --policy $D/p.yaml --events $D/$ev -- "$@"; }

echo "## a denied file, a read-only file and an exec rule below a directory"
expect "in a cage, the denied file is refused" 1 inc f1.json /bin/cat $W/keep/secret
expect "  ... and renaming its directory is refused" 1 inc f1.json /bin/mv $W/keep $W/k2
event "  ... reported as rename with the directory's path" $D/f1.json op=rename path=$W/keep action=denied
[ -f $W/keep/secret ] && [ ! -e $W/k2 ] && ok "  ... the directory keeps its name" || no "  ... the directory keeps its name" "$(ls $W)"
expect "in a cage, renaming the directory of a read-only rule is refused" 1 inc f2.json /bin/mv $W/proj $W/p2
expect "  ... and so is exchanging it with another (RENAME_EXCHANGE)" 1 inc f2.json /usr/bin/python3 -c "
import ctypes, os, sys
os.mkdir('$W/empty')
libc = ctypes.CDLL(None, use_errno=True)
r = libc.renameat2(-100, b'$W/proj', -100, b'$W/empty', 2)
sys.exit(0 if r == 0 else 1)"
[ "$(cat $W/proj/ro/f)" = orig ] && [ -d $W/proj/ro ] && ok "  ... the read-only file stays where its rule is" || no "  ... the read-only file stays" "$(ls $W)"
expect "in a cage, moving its own directory to a name with an exec rule below is refused" 1 inc f3.json /bin/mv $W/evil $W/new
event "  ... reported as rename" $D/f3.json op=rename path=$W/evil action=denied
expect "  ... so its program is not run under the exec.allow name" 127 inc f3.json $W/new/tools/build
expect "in a cage, renaming a directory with no rule below works" 0 inc ok.json /bin/sh -c "mv $W/plain $W/plain2 && mv $W/plain2 $W/plain"
[ -f $W/plain/sub/f ] && ok "  ... (and back)" || no "  ... (and back)" "$(ls $W)"
expect "outside a cage, renaming the directory of the denied file works" 0 /bin/sh -c "mv $W/keep $W/k2 && mv $W/k2 $W/keep"

echo "## sockets and unix rules"
cat > $D/srv.py <<'P'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(8); open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); c.sendall(b"served\n"); c.close()
P
cat > $D/cli.py <<'P'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1]); print(s.recv(64).decode().strip())
except OSError as e:
    print(type(e).__name__)
P
python3 $D/srv.py $W/priv/svc.sock $D/priv.up & s1=$!
python3 $D/srv.py $W/pub/listed.sock $D/pub.up & s2=$!
started $D/priv.up; started $D/pub.up
out=$(inc u.json python3 $D/cli.py $W/pub/listed.sock 2>/dev/null)
[ "$out" = served ] && ok "in a cage, a socket under the unix rule is reached" || no "in a cage, a socket under the unix rule is reached" "$out"
out=$(inc u.json python3 $D/cli.py $W/priv/svc.sock 2>/dev/null)
[ "$out" = PermissionError ] && ok "  ... one outside it is not" || no "  ... one outside it is not" "$out"
expect "in a cage, moving the outside socket's directory under the unix rule is refused" 1 inc u1.json /bin/mv $W/priv $W/pub/priv
event "  ... reported as rename" $D/u1.json op=rename path=$W/priv action=denied
expect "in a cage, moving the socket itself under the unix rule is refused" 1 inc u2.json /bin/mv $W/priv/svc.sock $W/pub/ok.sock
event "  ... reported as rename with the socket's path" $D/u2.json op=rename path=$W/priv/svc.sock action=denied
out=$(inc u.json python3 $D/cli.py $W/pub/ok.sock 2>/dev/null)
[ "$out" = FileNotFoundError ] && [ -S $W/priv/svc.sock ] && ok "  ... it stays where it was, unreachable" || no "  ... it stays where it was" "$out"
expect "in a cage, a directory moves within the unix rule" 0 inc ok.json /bin/sh -c "mkdir $W/pub/a && mv $W/pub/a $W/pub/b"
expect "  ... and out of it" 0 inc ok.json /bin/mv $W/pub/b $W/b
expect "outside a cage, moving the socket under the unix rule works" 0 /bin/mv $W/priv/svc.sock $W/pub/ok.sock
kill $s1 $s2 2>/dev/null; wait $s1 $s2 2>/dev/null
rm -rf /run/rename
