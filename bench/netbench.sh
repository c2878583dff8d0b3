#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Network benchmark (make bench), on the host: the cost of a cage's packet
# programs (cgroup_skb) with a 1,000-entry network policy, as ratios against
# the same loopback traffic from an uncaged process, in one run.
#   throughput: iperf3 TCP, 127.0.0.1, one stream
#   connection rate: connect/close loop (bench/connrate.c)
#   per packet: BPF_PROG_TEST_RUN of the egress program, 1,000 vs 10 entries
# Rows alternate uncaged/caged (ABAB...) and report medians, so that drift of
# the machine hits both sides alike; "uncaged, cage active" runs while a cage
# with the same policy holds a live socket.
# This host refuses BPF LSM, so the cage here is build/nettest's (packet
# programs only); the LSM socket hooks run once per connect/bind/sendmsg, not
# per packet, and are not part of these numbers.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
B=$repo/build
NT=$B/nettest
ROUNDS=${ROUNDS:-5} SECS=${SECS:-3}
T=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
IPORT=47401 CPORT=47402

# 1,000 entries: 998 others (hosts and /24s spread over 10.0.0.0/8, some
# with ports) and the two the traffic uses
{
	echo "name: bench"; echo "network:"; echo "  allow:"
	echo "    - 127.0.0.1:$IPORT/tcp"; echo "    - 127.0.0.1:$CPORT/tcp"
	for i in $(seq 1 998); do
		a=$((i % 250 + 1)) b=$(((i * 7) % 250)) c=$(((i * 13) % 250))
		case $((i % 3)) in
		0) echo "    - 10.$a.$b.$c";;
		1) echo "    - 10.$a.$b.0/24:$((1000 + i))";;
		2) echo "    - 10.$a.$b.$c:443/tcp";;
		esac
	done
} > "$T/bench.yaml"
n=$(grep -c '^    - ' "$T/bench.yaml")

iperf3 -s -p $IPORT >/dev/null 2>&1 & pids+=($!)
"$B/bench-connrate" serve $CPORT & pids+=($!)
sleep 1

tput() { # tput [CAGE...]: Gbit/s of one iperf3 client run
	"$@" iperf3 -c 127.0.0.1 -p $IPORT -t "$SECS" -J 2>/dev/null |
		python3 -c 'import json,sys; print("%.3f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))'
}
crate() { "$@" "$B/bench-connrate" client $CPORT "$SECS"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
cage() { "$NT" run "$T/bench.yaml" -- "$@" 2>>"$T/cage.err"; }

echo "# network benchmark: $n-entry policy, $ROUNDS rounds of ${SECS}s, medians"
for what in tput crate; do
	: > "$T/$what.base"; : > "$T/$what.cage"; : > "$T/$what.busy"
	for r in $(seq "$ROUNDS"); do
		$what >> "$T/$what.base"
		$what cage >> "$T/$what.cage"
		# uncaged while a cage is active (its programs attached, its socket open)
		cage python3 -c 'import socket, time; s = socket.create_connection(("127.0.0.1", '$CPORT')); time.sleep('$((SECS + 2))')' & cp=$!
		sleep 1
		$what >> "$T/$what.busy"
		wait $cp || true
	done
done
if [ -s "$T/cage.err" ]; then echo "netbench: the cage reported:"; sed 's/^/  /' "$T/cage.err"; fi

p10=$("$NT" pktbench 10) p1000=$("$NT" pktbench 1000) p10000=$("$NT" pktbench 10000)
# packets of one caged throughput run: each passes one of the cage's programs
# (egress for its data, ingress for the ACKs it gets); their cost bounds the
# programs' share of the run, independent of the machine's noise
lo_pkts() { sed 's/:/ /' /proc/net/dev | awk '$1 == "lo" {print $3}'; }
a=$(lo_pkts); tput cage > /dev/null; pk=$(( $(lo_pkts) - a ))

row() { # row NAME BASE VALUE UNIT TARGET
	python3 - "$@" <<'EOF'
import sys
name, base, val, unit, target = sys.argv[1:6]
r = float(val) / float(base)
print("%-42s %12s %12s %-8s %6.3fx  %s" % (name, base, val, unit, r, target))
EOF
}
tb=$(median < "$T/tput.base") tc=$(median < "$T/tput.cage") tbz=$(median < "$T/tput.busy")
cb=$(median < "$T/crate.base") cc=$(median < "$T/crate.cage") cbz=$(median < "$T/crate.busy")
printf "%-42s %12s %12s %-8s %7s  %s\n" "" "uncaged" "measured" "unit" "ratio" "target"
row "TCP throughput, caged" "$tb" "$tc" "Gbit/s" ">= 0.97x"
row "TCP throughput, uncaged, a cage active" "$tb" "$tbz" "Gbit/s" "within noise"
row "connection rate, caged" "$cb" "$cc" "conn/s" ">= 0.9x"
row "connection rate, uncaged, a cage active" "$cb" "$cbz" "conn/s" "within noise"
row "egress program, 1,000 vs 10 entries" "$p10" "$p1000" "ns/pkt" "~1x"
row "egress program, 10,000 vs 10 entries" "$p10" "$p10000" "ns/pkt" "~1x"
python3 - "$pk" "$SECS" "$p1000" <<'EOF'
import sys
pk, secs, ns = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
share = pk * ns * 1e-9 / secs
print("TCP throughput, caged, program cost: %d packets in %gs x %g ns = %.3f%% of a core (ratio >= %.4fx)"
      % (pk, secs, ns, share * 100, 1 - share))
EOF
spread() { sort -g "$1" | awk '{v[NR]=$1} END {printf "%.3f", v[NR] / v[1]}'; }
echo "noise: max/min of the uncaged rounds: throughput $(spread "$T/tput.base")x, connection rate $(spread "$T/crate.base")x"
