#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host network tests: the cage's cgroup_skb programs on this kernel, with real
# traffic. Peers are loopback listeners and listeners in a network namespace
# this test builds (a veth pair; nothing else on the machine is touched).
# The cage is made by build/nettest (packet programs only: this kernel
# refuses BPF LSM; the VM suite covers the LSM socket hooks).
set -u
NT=$(realpath "${1:-build/nettest}")
repo=$(cd "$(dirname "$0")/../.." && pwd)
PEER="python3 $repo/tests/net/peer.py"
T=$(mktemp -d)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && echo "       $2"; }
NS=acnet$$ VH=acv0$$ VP=acv1$$
H4=10.251.77.1 P4=10.251.77.2 H6=fd00:ac:77::1 P6=fd00:ac:77::2
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	ip netns pids "$NS" 2>/dev/null | xargs -r kill 2>/dev/null
	ip link del "$VH" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# every check needs these; a missing one is a failure, never a skip
for t in ip python3 ping; do
	command -v $t >/dev/null || { no "tool $t is installed (make deps)"; echo "net: $pass passed, $fail failed"; exit 1; }
done

serve() { # serve NAME CMD...: start a server, wait until it listens
	local r=$T/ready.$1; shift
	"$@" "$r" & pids+=($!)
	for _ in $(seq 100); do [ -e "$r" ] && return 0; sleep 0.05; done
	no "server $* started"; return 1
}
policy() { printf '%s\n' "$@" > "$T/p.yaml"; }
# cage CMD...: run CMD in a cage with $T/p.yaml; status in $st, stdout in $out, events in $T/ev
cage() { out=$("$NT" run "$T/p.yaml" -- "$@" 2>"$T/ev"); st=$?; }
cage_audit() { out=$("$NT" run --audit "$T/p.yaml" -- "$@" 2>"$T/ev"); st=$?; }
# has_event PY-EXPR: some JSON event e in $T/ev satisfies it
has_event() {
	python3 - "$T/ev" "$1" <<'EOF'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
sys.exit(0 if any(eval(sys.argv[2], {}, {"e": e}) for e in evs) else 1)
EOF
}

TP=47311 TP2=47312 UP=47313
serve tcp4 $PEER serve-tcp 127.0.0.1 $TP
serve tcp4b $PEER serve-tcp 127.0.0.1 $TP2
serve udp4 $PEER serve-udp 127.0.0.1 $UP
serve tcp6 $PEER serve-tcp ::1 $TP

# --- loopback, IPv4 ---
policy "name: net"
cage $PEER tcp 127.0.0.1 $TP 1.5
[ $st = 1 ] && ok "no network section: tcp to 127.0.0.1:$TP gets no answer" || no "no network: tcp blocked" "$st $out"
has_event 'e["op"]=="send" and e["addr"]=="127.0.0.1" and e["port"]=='$TP' and e["proto"]=="tcp" and e["action"]=="denied" and e["family"]=="inet"' \
	&& ok "  ... and a send event names addr, port, proto, family" || no "  ... send event" "$(cat "$T/ev")"
policy "network:" "  allow: [127.0.0.1:$TP]"
cage $PEER tcp 127.0.0.1 $TP
[ $st = 0 ] && ok "allow 127.0.0.1:$TP: tcp echo works" || no "allowed tcp" "$st $out"
[ ! -s "$T/ev" ] && ok "  ... without events" || no "  ... without events" "$(cat "$T/ev")"
cage $PEER tcp 127.0.0.1 $TP2 1.5
[ $st = 1 ] && ok "  ... another port of the same address stays closed" || no "other port" "$st $out"
cage $PEER udp 127.0.0.1 $UP
[ $st = 2 ] && ok "  ... udp to the port not allowed: sendto fails with EPERM" || no "udp refused" "$st $out"
policy "network:" "  allow: [127.0.0.1:$UP/udp]"
cage $PEER udp 127.0.0.1 $UP
[ $st = 0 ] && ok "allow 127.0.0.1:$UP/udp: udp echo works" || no "allowed udp" "$st $out"
cage $PEER tcp 127.0.0.1 $UP 1.5
[ $st != 0 ] && ok "  ... tcp to it does not (udp only)" || no "udp-only rule allowed tcp" "$st $out"
policy "network:" "  allow: [127.0.0.0/8]" "  deny: [127.0.0.1:$TP2]"
cage $PEER tcp 127.0.0.1 $TP
[ $st = 0 ] && ok "allow 127.0.0.0/8: tcp to 127.0.0.1:$TP works" || no "/8 allow" "$st $out"
cage $PEER tcp 127.0.0.1 $TP2 1.5
[ $st = 1 ] && ok "  ... deny 127.0.0.1:$TP2 beats it" || no "deny beats allow" "$st $out"

# --- loopback, IPv6 ---
policy "network:" "  allow: [127.0.0.1:$TP]"
cage $PEER tcp ::1 $TP 1.5
[ $st = 1 ] && ok "an IPv4 rule does not open ::1" || no "::1 blocked" "$st $out"
policy "network:" "  allow: ['[::1]:$TP']"
cage $PEER tcp ::1 $TP
[ $st = 0 ] && ok "allow [::1]:$TP: tcp6 echo works" || no "tcp6 allowed" "$st $out"
has_event 'True' && no "  ... without events" "$(cat "$T/ev")" || ok "  ... without events"

# --- a peer in a network namespace, over veth ---
ip netns add "$NS" && ip link add "$VH" type veth peer name "$VP" && ip link set "$VP" netns "$NS" &&
ip addr add $H4/24 dev "$VH" && ip -6 addr add $H6/64 dev "$VH" nodad && ip link set "$VH" up &&
ip -n "$NS" addr add $P4/24 dev "$VP" && ip -n "$NS" -6 addr add $P6/64 dev "$VP" nodad &&
ip -n "$NS" link set "$VP" up && ip -n "$NS" link set lo up \
	&& ok "test peer namespace $NS with veth $VH" || no "netns setup"
serve ns4 ip netns exec "$NS" $PEER serve-tcp $P4 80
serve ns6 ip netns exec "$NS" $PEER serve-tcp $P6 80
serve nsu ip netns exec "$NS" $PEER serve-udp $P4 53
policy "network:" "  allow: [$P4:80/tcp, '[$P6]:80']"
cage $PEER tcp $P4 80
[ $st = 0 ] && ok "allow $P4:80/tcp: tcp over veth works" || no "veth tcp4" "$st $out"
cage $PEER tcp $P6 80
[ $st = 0 ] && ok "allow [$P6]:80: tcp6 over veth works" || no "veth tcp6" "$st $out"
cage $PEER tcp ::ffff:$P4 80
[ $st = 0 ] && ok "  ... an IPv6 socket to ::ffff:$P4 is matched as $P4" || no "v4-mapped" "$st $out"
cage $PEER udp $P4 53
[ $st = 2 ] && ok "  ... udp to $P4:53 is refused" || no "veth udp refused" "$st $out"
cage ping -c 1 -W 1 $P4
[ $st != 0 ] && ok "  ... and so is ping (ICMP has no port; port rules do not cover it)" || no "ping refused" "$st"
has_event 'e["op"]=="send" and e["proto"] in ("icmp",) and e["addr"]=="'$P4'"' \
	&& ok "  ... reported as proto icmp" || no "  ... icmp event" "$(cat "$T/ev")"
policy "network:" "  allow: [10.251.77.0/24]" "  deny: [$P4]"
cage $PEER tcp $P4 80 1.5
[ $st = 1 ] && ok "deny $P4 inside allow 10.251.77.0/24 wins" || no "deny in /24" "$st $out"
policy "network:" "  allow: [$P4]"
cage ping -c 1 -W 2 $P4
[ $st = 0 ] && ok "allow $P4 (no port): ping works" || no "ping allowed" "$st"
cage $PEER udp $P4 53
[ $st = 0 ] && ok "  ... and udp" || no "udp to portless allow" "$st $out"
policy "network:" "  allow: [$P4:53/udp]"
cage $PEER raw-udp $P4 53
has_event 'e["op"]=="send" and e["addr"]=="'$P4'" and e["proto"]=="udp" and e["port"]==53' \
	&& no "a raw-socket datagram to an allowed peer is dropped" "$(cat "$T/ev")" \
	|| ok "a raw-socket datagram to an allowed peer passes"
policy "name: net"
cage $PEER raw-udp $P4 53
has_event 'e["op"]=="send" and e["addr"]=="'$P4'" and e["proto"]=="udp"' \
	&& ok "a raw-socket datagram to a peer not allowed is dropped and reported" || no "raw socket" "$st $out $(cat "$T/ev")"

# --- inbound: replies yes, unsolicited no ---
IP=47320
policy "network:" "  allow: [127.0.0.1:$TP]"
"$NT" run "$T/p.yaml" -- $PEER serve-tcp 127.0.0.1 $IP "$T/ready.in" once 2>"$T/ev.in" & cp=$!
for _ in $(seq 100); do [ -e "$T/ready.in" ] && break; sleep 0.05; done
out=$($PEER tcp 127.0.0.1 $IP 1.5); st=$?
[ $st = 1 ] && ok "unsolicited inbound tcp to a caged listener gets no answer" || no "inbound blocked" "$st $out"
kill $cp 2>/dev/null; wait $cp 2>/dev/null
grep -q '"op":"recv"' "$T/ev.in" && ok "  ... reported as recv" || no "  ... recv event" "$(cat "$T/ev.in")"
out=$($PEER tcp 127.0.0.1 $TP); st=$?
[ $st = 0 ] && ok "an uncaged process is unaffected while a cage runs" || no "uncaged" "$st $out"
rm -f "$T/ready.in"
policy "network:" "  allow: [127.0.0.1]"
"$NT" run "$T/p.yaml" -- $PEER serve-tcp 127.0.0.1 $IP "$T/ready.in" once 2>"$T/ev.in" & cp=$!
for _ in $(seq 100); do [ -e "$T/ready.in" ] && break; sleep 0.05; done
out=$($PEER tcp 127.0.0.1 $IP 2); st=$?
[ $st = 0 ] && ok "  ... inbound from a peer an allow entry covers works" || no "inbound allowed" "$st $out"
wait $cp 2>/dev/null

# --- audit, TCP Fast Open, rate limit ---
policy "name: net"
cage_audit $PEER tcp 127.0.0.1 $TP
[ $st = 0 ] && ok "audit mode: the connection works" || no "audit works" "$st $out"
has_event 'e["op"]=="send" and e["action"]=="audited" and e["port"]=='$TP && ok "  ... and is reported as audited" || no "  ... audited event" "$(cat "$T/ev")"
cage $PEER tcp-fastopen 127.0.0.1 $TP 1.5
[ $st != 0 ] && ok "TCP Fast Open sendto to a peer not allowed gets nowhere" || no "fastopen" "$st $out"
cage $PEER udp-flood 127.0.0.1 $UP 2000
n=$(grep -c '"op":"send"' "$T/ev")
supp=$(sed -n 's/^nettest: suppressed //p' "$T/ev")
[ "$out" = "2000 of 2000 refused" ] && ok "a flood of 2000 datagrams: all refused" || no "flood refused" "$out"
[ "$n" -ge 1 ] && [ "$n" -le 60 ] && [ "${supp:-0}" -ge 1900 ] && [ $((n + supp)) -ge 2000 ] \
	&& ok "  ... $n events shown, $supp counted as suppressed (rate limit), none unaccounted" \
	|| no "  ... rate limit" "events $n suppressed ${supp:-none}"

# --- crafted packets ---
out=$("$NT" packets 2>/dev/null); st=$?
echo "$out" | sed 's/^/       /'
[ $st = 0 ] && ok "BPF_PROG_TEST_RUN: crafted IPv4/IPv6 packets" || no "crafted packets"

cg2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
[ -z "$(find "$cg2/agentcage" -mindepth 1 -type d 2>/dev/null)" ] && ok "no cgroup left behind" || no "cgroups left" "$(find "$cg2/agentcage" -mindepth 1)"
echo "net: $pass passed, $fail failed"
[ $fail = 0 ]
