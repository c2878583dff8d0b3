# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 51 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# Enforcement never depends on a process of ours staying alive; agentcage's
# own processes are apart from the agent (sourced by e2e.sh with lib.sh's
# helpers; alone: tests/vm/vm.sh run tests/vm/e2e-one.sh REPO tests/vm/e2e-baseline-alive.sh).
echo "# baseline: agentcage and its guard"
mkdir -p /srv/ro-alive /srv/rw-alive; echo fine > /srv/ro-alive/ok; rm -f /srv/rw-alive/*
cat > $T/alive.yaml <<Y
user: root
name: alive
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /proc, /dev/null, /srv/ro-alive]
  write: [/srv/rw-alive, $T, /dev/null]
  deny: [/etc/shadow]
exec:
  allow: [/usr/bin, /usr/lib, /bin]
Y
# the agent's loop, backgrounded so that it outlives the command agentcage started:
# each round tries a denied read and an allowed one and logs both results
cat > $T/alive-loop.sh <<'S'
while [ ! -e /srv/rw-alive/stop ]; do
	s=denied; cat /etc/shadow > /dev/null 2>&1 && s=READ
	o=denied; cat /srv/ro-alive/ok > /dev/null 2>&1 && o=allowed
	echo "shadow=$s ok=$o" >> /srv/rw-alive/log
	sleep 0.2
done
S
$AC run --policy $T/alive.yaml --events $T/alive.json -- /bin/sh -c \
	"sh $T/alive-loop.sh & echo \$! > /srv/rw-alive/loop.pid; sleep 600" 2>/dev/null & acpid=$!
started /srv/rw-alive/log || no "the caged loop started"
loop=$(cat /srv/rw-alive/loop.pid)
guard=
for p in $(pgrep -P $acpid); do grep -q "/agentcage/" /proc/$p/cgroup || guard=$p; done
[ -n "$guard" ] && ok "a guard process runs beside agentcage" || no "the guard was found" "$(pgrep -P $acpid)"
sid() { awk '{print $6}' /proc/$1/stat; }
[ "$(sid $loop)" != "$(sid $acpid)" ] && [ "$(sid $loop)" != "$(sid ${guard:-$acpid})" ] \
	&& [ "$(sid ${guard:-$acpid})" != "$(sid $acpid)" ] \
	&& ok "the agent, agentcage and the guard are in three sessions" \
	|| no "sessions apart" "agent $(sid $loop) agentcage $(sid $acpid) guard $(sid ${guard:-$acpid})"
[ "$(cat /proc/$acpid/oom_score_adj)" = -1000 ] && [ "$(cat /proc/${guard:-$acpid}/oom_score_adj)" = -1000 ] \
	&& [ "$(cat /proc/$loop/oom_score_adj)" = 0 ] \
	&& ok "agentcage and its guard are the OOM killer's last choice, the agent an ordinary one" \
	|| no "oom_score_adj" "$(cat /proc/$acpid/oom_score_adj) $(cat /proc/${guard:-$acpid}/oom_score_adj) $(cat /proc/$loop/oom_score_adj)"
pins=/sys/fs/bpf/agentcage/run-$acpid
ls $pins | grep -q '^link-ac_file_open$' && ls $pins | grep -q '^link-egress$' \
	&& ok "the run's links are pinned in bpffs" || no "pins" "$(ls $pins 2>&1 | head)"
[ "$(stat -c %a /sys/fs/bpf/agentcage)" = 700 ] && [ "$(stat -c %a $pins)" = 700 ] \
	&& ok "  ... in directories only root may enter" || no "pin dirs 0700" "$(stat -c %a /sys/fs/bpf/agentcage $pins)"
# both of ours die at once; nothing of agentcage's is left to hold the programs
kill -9 ${guard:-} $acpid; wait $acpid 2>/dev/null
for _ in $(seq 50); do kill -0 ${guard:-$acpid} 2>/dev/null || break; sleep 0.1; done
n0=$(wc -l < /srv/rw-alive/log)
sleep 3
if kill -0 ${guard:-$acpid} 2>/dev/null || kill -0 $acpid 2>/dev/null; then
	no "agentcage and its guard are dead"
else
	ok "agentcage and its guard are dead"
fi
kill -0 $loop 2>/dev/null && ok "  ... and the caged loop still runs" || no "the caged loop still runs"
after=$(tail -n +$((n0 + 1)) /srv/rw-alive/log)
rounds=$(echo "$after" | grep -c .)
[ "$rounds" -ge 3 ] && ! echo "$after" | grep -qv '^shadow=denied ok=allowed$' \
	&& ok "  ... still denied /etc/shadow and still allowed its own file, $rounds rounds" \
	|| no "enforcement without agentcage" "$rounds rounds: $(echo "$after" | sort | uniq -c)"
cat /etc/shadow > /dev/null && ok "  ... while /etc/shadow is readable outside the cage" || no "shadow readable outside"
# the next run sweeps: the dead run's cage is emptied first, then its pins go
expect "a later run succeeds" 0 $AC run --policy $T/alive.yaml -- /bin/true
for _ in $(seq 50); do kill -0 $loop 2>/dev/null || break; sleep 0.1; done
kill -0 $loop 2>/dev/null && no "  ... and kills the dead run's agent" || ok "  ... and kills the dead run's agent"
[ ! -e $pins ] && ok "  ... and removes its pins" || no "  ... pins removed" "$(ls $pins 2>&1 | head -3)"
[ -z "$(ls /sys/fs/bpf/agentcage 2>/dev/null)" ] && ok "  ... leaving no pins at all" || no "no pins left" "$(ls /sys/fs/bpf/agentcage)"
touch /srv/rw-alive/stop

echo "# baseline: no descriptor of agentcage's reaches the agent"
out=$($AC run --policy $T/alive.yaml --events $T/alive.json -- /usr/bin/python3 -c \
	'import os; print(" ".join(sorted(os.listdir("/proc/self/fd"))))' 2>/dev/null)
[ "$out" = "0 1 2 3" ] && ok "a caged program sees only 0-2 (and its own listing's), with --events" \
	|| no "descriptors in the cage" "$out"
out=$(/usr/bin/python3 -c 'import os; print(" ".join(sorted(os.listdir("/proc/self/fd"))))' 7</dev/null)
[ "$out" = "0 1 2 3 7" ] && ok "  ... where the same listing outside shows an inherited one" || no "listing control" "$out"
