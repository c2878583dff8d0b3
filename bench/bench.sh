#!/bin/bash
# make bench (in the VM): per-op cost of open/close, create/unlink and
# fork+exec loops, as ratios against the same loop with no security program
# of ours loaded, all measured in this one run on a tmpfs.
set -u
repo=${1:-/work/main}
AC=$repo/build/agentcage LOOPS=$repo/build/bench-loops FLOOR=$repo/build/bench-floor
D=$(mktemp -d /run/bench.XXXXXX); cd "$D"   # /run is a tmpfs in the VM
N_OPEN=${N_OPEN:-20000} N_CREATE=${N_CREATE:-10000} N_EXEC=${N_EXEC:-30} REPS=${REPS:-5}

# a 1,000-entry policy that still grants what the loops need
{
	echo "name: bench"; echo "files:"; echo "  read: [/usr, /lib, /lib64, /etc, /dev/null, $LOOPS]"
	echo "  write:"; echo "    - $D"
	for i in $(seq 1 996); do echo "    - /srv/bench/project-$i/src"; done
	echo "exec:"; echo "  allow: [/usr/bin, /usr/lib, $LOOPS]"
} > policy.yaml
sed 's/^name: bench/name: bench\nmode: audit/' policy.yaml > audit.yaml

# median of REPS runs of: CMD... op N
median() { for i in $(seq 1 $REPS); do "$@"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # label [prefix...]: runs prefix... $LOOPS ${LOOPS_OPT[@]} op N DIR
	local label=$1; shift
	o=$(median "$@" $LOOPS "${LOOPS_OPT[@]}" open $N_OPEN "$D")
	c=$(median "$@" $LOOPS "${LOOPS_OPT[@]}" create $N_CREATE "$D")
	e=$(median "$@" $LOOPS "${LOOPS_OPT[@]}" exec $N_EXEC "$D")
	printf '%-44s %8s %8s %8s\n' "$label" "$o" "$c" "$e"
	echo "$label|$o|$c|$e" >> results.txt
}
: > results.txt
LOOPS_OPT=()
# warm up (page cache, the emulator's translation cache) before anything counts
$LOOPS open $N_OPEN "$D" >/dev/null; $LOOPS create $N_CREATE "$D" >/dev/null; $LOOPS exec $N_EXEC "$D" >/dev/null
printf '%-44s %8s %8s %8s   (ns per op, median of %d)\n' "" open create exec $REPS
measure "baseline (no agentcage programs)"
$AC run --policy policy.yaml -- /bin/sleep 100000 & cage=$!; sleep 3
measure "(a) uncaged, while a cage is active"
kill $cage; wait $cage 2>/dev/null
measure "(b) caged, allowed accesses, 1000 rules" $AC run --policy policy.yaml --
measure "(c) caged, audit mode, 1000 rules" $AC run --policy audit.yaml --
coproc FL { $FLOOR; }; read -r _ <&"${FL[0]}"
measure "(d) floor: empty BPF LSM programs"
eval "exec ${FL[1]}>&-"; wait $FL_PID 2>/dev/null
LOOPS_OPT=(--landlock "$D"); measure "(e) Landlock"; LOOPS_OPT=()
if command -v apparmor_parser >/dev/null && grep -q apparmor /sys/kernel/security/lsm; then
	cat > aa.profile <<P
profile agentcage-bench flags=(attach_disconnected) {
  /usr/** rmix, /lib/** rm, /lib64/** rm, /etc/** r, /dev/null rw,
  $D/ rw, $D/** rwl, $LOOPS rix,
  capability,
}
P
	if apparmor_parser -r aa.profile 2>/dev/null; then
		measure "(e) AppArmor" aa-exec -p agentcage-bench --
	else echo "(e) AppArmor: apparmor_parser could not load the profile"; fi
else echo "(e) AppArmor: not measured (apparmor_parser missing or AppArmor inactive)"; fi

measure "baseline, again at the end (drift check)"
echo
echo "ratios against the baseline (1.00 = no cost):"
awk -F'|' 'NR==1 {bo=$2; bc=$3; be=$4; next}
	{printf "%-44s %8.2f %8.2f %8.2f\n", $1, $2/bo, $3/bc, $4/be}' results.txt
awk -F'|' '$1 ~ /^\(d\)/ {fo=$2; fc=$3} $1 ~ /^\(a\)/ {ao=$2; ac=$3}
	END {if (fo) printf "\n(a) against the floor (d): open %.2f, create %.2f (target: within 1.02)\n", ao/fo, ac/fc}' results.txt
