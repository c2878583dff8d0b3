# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 24 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The daemon's policy directory edited with no `agentcage reload`: inotify
# alone starts the reloads. A Kubernetes ConfigMap mount's update (every
# *.yaml a symlink through ..data, whose own symlink is swapped to a new
# directory: both cages change in one scan, and their old rules retire after
# one grace period for both), and an editor's save (a temporary file renamed
# over the policy). Each cage is probed with `run --cage` before and after,
# a read its new policy allows next to one it no longer does.
echo "# the policy directory edited: inotify alone"
D=/run/cm-$$/pol SOCK=/run/cm-$$/ac.sock S=/srv/cm-$$
na=cma$$ nb=cmb$$ nc=cmc$$          # cage names of this run only
mkdir -p $D $S && echo a > $S/a && echo b > $S/b
# pol NAME READABLE: a policy that reads only $S/READABLE of $S
pol() { printf 'name: %s\nfiles:\n  read: [/usr, /lib, /lib64, /etc, %s]\n  write: [/dev/null]\nexec:\n  allow: [/usr/bin, /bin]\n' \
	$1 $S/$2; }
# as a ConfigMap volume is laid out: ..v1/{a,b}.yaml, ..data -> ..v1,
# a.yaml -> ..data/a.yaml; and c.yaml a file of its own
mkdir $D/..v1 && pol $na a > $D/..v1/a.yaml && pol $nb a > $D/..v1/b.yaml
ln -s ..v1 $D/..data && ln -s ..data/a.yaml $D/a.yaml && ln -s ..data/b.yaml $D/b.yaml
pol $nc a > $D/c.yaml
$AC daemon --policy-dir $D --socket $SOCK > $T/cm.out 2> $T/cm.err & dpid=$!
for _ in $(seq 1800); do [ -S $SOCK ] && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
[ -S $SOCK ] && ok "a daemon over a ConfigMap-style directory starts" || no "the daemon starts" "$(cat $T/cm.err)"
PINS=$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(json.load(sys.stdin)["pins"])')
CG=$($AC --json ls --socket $SOCK | python3 -c 'import json,sys; print(json.load(sys.stdin)["cages"][0]["cgroup"].rsplit("/", 1)[0])')
# reads CAGE: which of $S/a and $S/b a command in CAGE reads ("10": a only)
reads() { local a=0 b=0
	$AC run --cage $1 --socket $SOCK -- cat $S/a > /dev/null 2>&1 && a=1
	$AC run --cage $1 --socket $SOCK -- cat $S/b > /dev/null 2>&1 && b=1
	echo $a$b; }
# gens: each cage's generation, "NAME=N ..." in name order
gens() { $AC --json ls --socket $SOCK | python3 -c 'import json,sys
print(" ".join("%s=%d" % (c["name"], c["generation"]) for c in sorted(json.load(sys.stdin)["cages"], key=lambda c: c["name"])))'; }
# await WANT: until gens says WANT (up to 60 s)
await() { for _ in $(seq 600); do [ "$(gens)" = "$1" ] && return 0; sleep 0.1; done; return 1; }
[ "$(reads $na) $(reads $nb) $(reads $nc)" = "10 10 10" ] && ok "  ... each of its three cages reads a, not b" \
	|| no "  ... each cage reads a, not b" "$(reads $na) $(reads $nb) $(reads $nc)"

echo "# a ConfigMap update: ..data swapped to a new directory"
mkdir $D/..v2 && pol $na b > $D/..v2/a.yaml && pol $nb b > $D/..v2/b.yaml
ln -s ..v2 $D/..data_tmp && mv -T $D/..data_tmp $D/..data
await "$na=2 $nb=2 $nc=1" && ok "with no reload asked, both cages of the ConfigMap reload (generation 2), the third does not" \
	|| no "both cages of the ConfigMap reload by themselves" "$(gens)"
[ "$(reads $na) $(reads $nb)" = "01 01" ] && ok "  ... each reads b now, and no longer a" \
	|| no "  ... each reads b now, and no longer a" "$(reads $na) $(reads $nb)"
[ "$(reads $nc)" = 10 ] && ok "  ... the third cage still reads a, not b" || no "  ... the third cage unchanged" "$(reads $nc)"
expect "  ... status proves every cage (the maps hold the new policies' ids)" 0 $AC status --socket $SOCK
[ "$(grep -c "reloaded from $D/[ab].yaml" $T/cm.err)" = 2 ] && ok "  ... the daemon's log says each once" \
	|| no "  ... the daemon's log says each once" "$(grep reloaded $T/cm.err)"
rm -rf $D/..v1
out=$($AC reload --socket $SOCK 2>&1)
[ "$(echo "$out" | grep -c ': unchanged')" = 3 ] && ok "  ... a reload asked after it finds nothing more to change" \
	|| no "  ... a reload asked after it finds nothing more to change" "$out"

echo "# an editor's save: a temporary file renamed over the policy"
pol $nc b > $D/.c.yaml.swp && mv $D/.c.yaml.swp $D/c.yaml
await "$na=2 $nb=2 $nc=2" && ok "with no reload asked, the renamed file's cage reloads (generation 2)" \
	|| no "the renamed file's cage reloads by itself" "$(gens)"
[ "$(reads $nc)" = 01 ] && ok "  ... it reads b now, and no longer a" || no "  ... it reads b now, and no longer a" "$(reads $nc)"
[ "$(reads $na)" = 01 ] && ok "  ... the ConfigMap's cages are as they were" || no "  ... the other cages unchanged" "$(reads $na)"
grep -q "cage $nc reloaded from $D/c.yaml" $T/cm.err && ! grep -q "c.yaml.swp" $T/cm.err && ok "  ... the daemon's log names the file, not the temporary one" \
	|| no "  ... the daemon's log names the file" "$(tail -n 5 $T/cm.err)"

# cleanup: the daemon, its cages, its pins, the files
kill $dpid; wait $dpid 2>/dev/null
for c in $na $nb $nc; do echo 1 > $CG/$c/cgroup.kill 2>/dev/null; done
sleep 0.5
rmdir $CG/$na $CG/$nb $CG/$nc 2>/dev/null
rm -rf $PINS /run/cm-$$ $S
[ ! -e $CG/$na ] && [ ! -e $CG/$nc ] && [ ! -e $PINS ] && ok "cleanup: this suite's cgroups and pins are gone" || no "cleanup"
