# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 349 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# End-to-end network tests in the VM (sourced by e2e.sh: uses its ok/no/
# expect/event helpers, $AC, $T, $repo). The LSM socket hooks and the packet
# programs together, with real sockets on the guest's loopback.
suite_daemon
PEER="/usr/bin/python3 $repo/tests/net/peer.py"
echo "# network"
net_pids=()
serve() { # serve NAME CMD...: start a server outside any cage, wait until it listens
	local r=$T/ready.$1; shift
	"$@" "$r" & net_pids+=($!)
	for _ in $(seq 200); do [ -e "$r" ] && return 0; sleep 0.05; done
	no "server $1 started"
}
netpol() { # netpol FILE LINES...: a policy that runs python3, plus the network lines
	local f=$1; shift
	{ echo "user: root"
	  echo "files:"
	  echo "  read: [/usr, /lib, /lib64, /etc, /proc, /dev, $repo/tests]"
	  echo "  write: [$T, /dev/null, '\${CAGE_TMP}']"
	  echo "exec:"
	  echo "  allow: [/usr/bin, /usr/sbin, /usr/lib, /bin, /sbin]"
	  printf '%s\n' "$@"; } > "$f"
}
# cage_net FILE CMD...: run CMD caged; status $st, stdout $out, events in $T/net.json
# (CN_OPTS=--standalone cage_net ...: a check of what the standalone run itself prints)
cage_net() { local f=$1; shift; rm -f $T/net.json; out=$($AC run ${CN_OPTS:-} --policy "$f" --events $T/net.json -- "$@" 2>$T/net.err); st=$?; }
fast() { # the client's own report: "EPERM after 0.00Ns"
	case "$out" in "EPERM after 0."[0-4]*) return 0;; esac; return 1; }

serve t1 $PEER serve-tcp 127.0.0.1 9101
serve t2 $PEER serve-tcp 127.0.0.1 9102
serve t6 $PEER serve-tcp ::1 9101
serve u1 $PEER serve-udp 127.0.0.1 9103
serve h2 $PEER serve-tcp 127.0.0.2 9104
serve h3 $PEER serve-tcp 127.0.0.3 9104
/usr/bin/python3 -m http.server -b 127.0.0.1 9180 -d $T >/dev/null 2>&1 & net_pids+=($!)
for _ in $(seq 100); do $PEER tcp 127.0.0.1 9180 0.2 >/dev/null 2>&1; [ $? = 1 ] || break; sleep 0.1; done

netpol $T/n1.yaml "network:" "  allow: [127.0.0.1:9101/tcp, '[::1]:9101', 127.0.0.1:9103/udp]"
cage_net $T/n1.yaml $PEER tcp 127.0.0.1 9101
[ $st = 0 ] && ok "connect to an allowed peer (127.0.0.1:9101) works" || no "allowed connect" "$st $out"
cage_net $T/n1.yaml $PEER tcp 127.0.0.1 9102
[ $st = 2 ] && fast && ok "connect to a peer not allowed fails at once with EPERM ($out)" || no "fast EPERM on connect" "$st $out"
event "  ... reported as connect with addr, port, proto, family" $T/net.json op=connect addr=127.0.0.1 port=9102 proto=tcp family=inet action=denied comm=python3
cage_net $T/n1.yaml $PEER tcp ::1 9101
[ $st = 0 ] && ok "tcp6 to [::1]:9101 (allowed) works" || no "tcp6 allowed" "$st $out"
cage_net $T/n1.yaml $PEER tcp ::1 9102
[ $st = 2 ] && ok "tcp6 to [::1]:9102 fails with EPERM" || no "tcp6 denied" "$st $out"
cage_net $T/n1.yaml $PEER tcp ::ffff:127.0.0.1 9101
[ $st = 0 ] && ok "an IPv6 socket to ::ffff:127.0.0.1 is matched as 127.0.0.1" || no "v4-mapped connect" "$st $out"
cage_net $T/n1.yaml $PEER tcp ::ffff:127.0.0.1 9102
[ $st = 2 ] && ok "  ... also when denied" || no "v4-mapped denied" "$st $out"
cage_net $T/n1.yaml $PEER udp 127.0.0.1 9103
[ $st = 0 ] && ok "udp to an allowed peer works" || no "udp allowed" "$st $out"
cage_net $T/n1.yaml $PEER udp 127.0.0.1 9102
[ $st = 2 ] && fast && ok "udp sendto a peer not allowed fails at once with EPERM" || no "udp sendto refused" "$st $out"
event "  ... reported as send" $T/net.json op=send addr=127.0.0.1 port=9102 proto=udp
cage_net $T/n1.yaml $PEER tcp-fastopen 127.0.0.1 9102
[ $st = 2 ] && ok "TCP Fast Open sendto a peer not allowed fails with EPERM" || no "fastopen refused" "$st $out"
cage_net $T/n1.yaml /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 9199))'
[ $st = 1 ] && grep -q PermissionError $T/net.err && ok "bind to an address:port not allowed fails with EPERM" || no "bind refused" "$st $(cat $T/net.err)"
event "  ... reported as bind" $T/net.json op=bind addr=127.0.0.1 port=9199
netpol $T/n2.yaml "network:" "  allow: [127.0.0.1:9199]"
cage_net $T/n2.yaml /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 9199)); s.listen()'
[ $st = 0 ] && ok "  ... and works when allowed" || no "bind allowed" "$st $(cat $T/net.err)"
cage_net $T/n1.yaml /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"a", ("127.0.0.1", 9103))
try:
    s.sendto(b"b", ("127.0.0.1", 9102))
except PermissionError:
    print("second refused")'
[ "$out" = "second refused" ] && ok "one unconnected udp socket: allowed peer yes, the next no" || no "sendto per destination" "$st $out"
cage_net $T/n1.yaml /usr/bin/python3 -c '
import socket
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    s.sendto(b"\x9c\x40\x23\x8e\x00\x0c\x00\x00ping", ("127.0.0.1", 0))
except PermissionError:
    print("refused")'
[ "$out" = refused ] && ok "a raw socket datagram to a peer not allowed is refused" || no "raw refused" "$st $out"

echo "# socket families and netlink"
cage_net $T/n1.yaml /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)'
[ $st = 1 ] && grep -q PermissionError $T/net.err && ok "packet sockets are refused" || no "AF_PACKET refused" "$st $(cat $T/net.err)"
event "  ... reported as socket, family packet" $T/net.json op=socket family=packet
cage_net $T/n1.yaml /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)'
[ $st = 1 ] && grep -q PermissionError $T/net.err && ok "vsock sockets are refused" || no "AF_VSOCK refused" "$st $(cat $T/net.err)"
cage_net $T/n1.yaml /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 15)'
[ $st = 1 ] && grep -q PermissionError $T/net.err && ok "netlink other than route (uevent) is refused" || no "netlink 15 refused" "$st $(cat $T/net.err)"
cage_net $T/n1.yaml /usr/sbin/ip -4 addr show dev lo
case "$out" in *127.0.0.1*) ok "route netlink queries work (ip addr show)";; *) no "ip addr show" "$st $out $(cat $T/net.err)";; esac
cage_net $T/n1.yaml /usr/sbin/ip link add acdummy0 type dummy
[ $st != 0 ] && ! ip link show acdummy0 >/dev/null 2>&1 && ok "route netlink changes are refused (ip link add)" || no "ip link add refused" "$st $out"
event "  ... reported as send, family netlink, nlmsg_type 16" $T/net.json op=send family=netlink nlmsg_type=16
ip link del acdummy0 2>/dev/null

echo "# unix sockets"
/usr/bin/python3 - $T <<'PY' & net_pids+=($!)
import os, socket, sys, threading
t = sys.argv[1]
def serve(addr, ready):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr); s.listen(8)
    open(ready, "w").close()
    while True:
        c, _ = s.accept(); c.sendall(b"hi"); c.close()
for a, r in (("/run/ac-tools.sock", "u1"), ("/run/ac-other.sock", "u2"), ("\0ac-ok", "u3"), ("\0ac-bad", "u4")):
    threading.Thread(target=serve, args=(a, t + "/ready." + r), daemon=True).start()
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); d.bind("/run/ac-other.dgram")
open(t + "/ready.u5", "w").close()
threading.Event().wait()
PY
for r in u1 u2 u3 u4 u5; do for _ in $(seq 100); do [ -e $T/ready.$r ] && break; sleep 0.05; done; done
ln -sf /run/ac-other.sock /run/ac-link.sock
netpol $T/u.yaml "network:" "  unix: [/run/ac-tools.sock, '@ac-ok']"
uc='import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1].replace("@", "\0", 1)); print(s.recv(2).decode())'
cage_net $T/u.yaml /usr/bin/python3 -c "$uc" /run/ac-tools.sock
[ "$out" = hi ] && ok "a unix socket listed under network.unix is reachable" || no "listed unix socket" "$st $out $(cat $T/net.err)"
cage_net $T/u.yaml /usr/bin/python3 -c "$uc" /run/ac-other.sock
[ $st = 1 ] && grep -q PermissionError $T/net.err && ok "an unlisted unix socket is refused" || no "unlisted unix socket" "$st $(cat $T/net.err)"
event "  ... reported as unix_connect with its path" $T/net.json op=unix_connect family=unix path=/run/ac-other.sock
cage_net $T/u.yaml /usr/bin/python3 -c "$uc" /run/ac-link.sock
[ $st = 1 ] && ok "  ... also through a symlink (the socket's own path decides)" || no "unix via symlink" "$st $out"
cage_net $T/u.yaml /usr/bin/python3 -c "$uc" @ac-ok
[ "$out" = hi ] && ok "a listed abstract socket (@ac-ok) is reachable" || no "listed abstract" "$st $out $(cat $T/net.err)"
cage_net $T/u.yaml /usr/bin/python3 -c "$uc" @ac-bad
[ $st = 1 ] && ok "an unlisted abstract socket is refused" || no "unlisted abstract" "$st $out"
event "  ... reported as unix_connect @ac-bad" $T/net.json op=unix_connect path=@ac-bad
cage_net $T/u.yaml /usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"x", "/run/ac-other.dgram")'
[ $st = 1 ] && grep -q PermissionError $T/net.err && ok "a datagram to an unlisted unix socket is refused" || no "unix dgram" "$st $(cat $T/net.err)"
cage_net $T/u.yaml /usr/bin/python3 -c 'import socket
a, b = socket.socketpair(); a.send(b"ok"); print(b.recv(2).decode())'
[ "$out" = ok ] && ok "socketpair works (no name anyone could reach)" || no "socketpair" "$st $out"
cage_net $T/u.yaml /usr/bin/python3 -c 'import socket, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(os.environ["TMPDIR"] + "/own.sock"); s.listen()
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(os.environ["TMPDIR"] + "/own.sock"); print("own")'
[ $st = 1 ] && ok "a policy without \${CAGE_TMP} under unix cannot reach its own tmp sockets" || no "own tmp socket refused" "$st $out"
expect "the default policy reaches sockets in its own \${CAGE_TMP}" 0 /bin/sh -c "cd $T && $AC run --user root -- /usr/bin/python3 -c '
import socket, os
p = os.environ[\"TMPDIR\"] + \"/own.sock\"
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen()
c = socket.socket(socket.AF_UNIX); c.connect(p)'"

echo "# the default policy and python's urllib"
expect "the default policy: urllib.request fails at once" 1 /bin/sh -c "cd $T && $AC run --user root -- /usr/bin/python3 -c '
import time, urllib.request
t = time.monotonic()
try:
    urllib.request.urlopen(\"http://127.0.0.1:9180/\", timeout=10)
except Exception as e:
    print(type(e).__name__, e)
    raise SystemExit(1 if time.monotonic() - t < 1 else 3)'"
sed 's/^network:/network:\n  allow: [127.0.0.1:9180\/tcp]/' $repo/policies/default.yaml > $T/web.yaml; echo 'user: root' >> $T/web.yaml
expect "  ... and succeeds when its peer is allowed" 0 /bin/sh -c "cd $T && $AC run --policy $T/web.yaml -- /usr/bin/python3 -c '
import urllib.request
assert urllib.request.urlopen(\"http://127.0.0.1:9180/\", timeout=10).status == 200'"

echo "# audit, hostnames, reload"
netpol $T/na.yaml "mode: audit"
cage_net $T/na.yaml $PEER tcp 127.0.0.1 9102
[ $st = 0 ] && ok "audit mode: a connection not allowed works" || no "audit connect" "$st $out"
event "  ... and is reported as audited" $T/net.json op=connect port=9102 action=audited
echo "127.0.0.2 ac-peer.test" >> /etc/hosts
netpol $T/nh.yaml "network:" "  allow: [ac-peer.test:9104, no-such-host.invalid:80]"
out=$($AC check $T/nh.yaml 2>&1)
case "$out" in *"ac-peer.test port 9104"*"-> 127.0.0.2"*"no-such-host.invalid"*unresolved*) ok "check prints hostnames with their addresses";; *) no "check hostnames" "$out";; esac
cage_net $T/nh.yaml $PEER tcp 127.0.0.2 9104
[ $st = 0 ] && ok "a hostname rule allows its address (127.0.0.2)" || no "hostname allowed" "$st $out $(cat $T/net.err)"
grep -q "warning: cannot resolve no-such-host.invalid" $T/net.err && ok "  ... an unresolvable name is reported (through the daemon), the cage still runs" || no "unresolvable reported" "$(cat $T/net.err)"
CN_OPTS=--standalone cage_net $T/nh.yaml $PEER tcp 127.0.0.2 9104
[ $st = 0 ] && grep -q "warning: cannot resolve no-such-host.invalid" $T/net.err && ok "  ... and by a standalone run" || no "unresolvable reported (standalone)" "$st $(cat $T/net.err)"
cage_net $T/nh.yaml $PEER tcp 127.0.0.3 9104
[ $st = 2 ] && ok "  ... not another address" || no "hostname other address" "$st $out"
cat > $T/hloop.sh <<S
for i in \$(seq 1 60); do
	$PEER tcp 127.0.0.3 9104 0.5 >/dev/null 2>&1 && echo allowed || echo denied
	sleep 0.2
done
S
$AC run --policy $T/nh.yaml --dns-refresh 2 -- /bin/sh $T/hloop.sh > $T/hloop.out 2> $T/hloop.err & cage=$!
started $T/hloop.out; sleep 1
sed -i 's/^127.0.0.2 ac-peer.test$/127.0.0.3 ac-peer.test/' /etc/hosts
sleep 6
kill -TERM $cage; wait $cage
seq=$(uniq $T/hloop.out | tr '\n' ' ')
[ "$seq" = "denied allowed " ] && ok "a hostname re-resolved in the background opens its new address (--dns-refresh 2)" || no "dns refresh" "$seq $(tail -3 $T/hloop.err)"
netpol $T/live-net.yaml "network:" "  allow: [127.0.0.1:9101]"
cat > $T/nloop.sh <<S
for i in \$(seq 1 200); do
	$PEER tcp 127.0.0.1 9102 0.5 >/dev/null 2>&1 && echo allowed || echo denied
	sleep 0.1
done
S
$AC run --policy $T/live-net.yaml -- /bin/sh $T/nloop.sh > $T/nloop.out 2> $T/nloop.err & cage=$!
started $T/nloop.out; sleep 1
netpol $T/live-net.yaml "network:" "  allow: [127.0.0.1:9102]"
kill -HUP $cage; sleep 4
netpol $T/live-net.yaml "network:" "  allow: [127.0.0.1:99999]"
kill -HUP $cage; sleep 3
kill -TERM $cage; wait $cage
seq=$(uniq $T/nloop.out | tr '\n' ' ')
[ "$seq" = "denied allowed " ] && ok "SIGHUP switches the network rules once, during a connection loop" || no "network reload" "$seq $(cat $T/nloop.err)"
grep -q "reload failed, keeping the old policy" $T/nloop.err && ok "  ... a bad network entry is refused and the old rules stay" || no "bad network reload" "$(cat $T/nloop.err)"
for p in "${net_pids[@]}"; do kill $p 2>/dev/null; done
rm -f /run/ac-*.sock /run/ac-other.dgram
