# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 91 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# One load of the programs for many cages (run by e2e.sh, or alone with
# e2e-one.sh): tests/vm/multicage.c, 200 cages each with a policy of its own
# (odd ones in audit mode) all reading at once, then 50 with the task's own
# scratch space. A suite of its own (it was part of e2e-files.sh) so that
# vm.sh can put it in another guest than the file suite.
echo "# one set of programs for many cages"
# 200 cages of one load, each with a policy of its own (odd ones in audit
# mode), all reading at once: tests/vm/multicage.c says what it checks
for i in $(seq 0 199); do mkdir -p /srv/mc/$i; echo $i > /srv/mc/$i/f; done
out=$($repo/build/multicage 200 /srv/mc 2>&1); st=$?
last=$(echo "$out" | tail -n 1)
[ $st = 0 ] && ok "one load serves 200 cages at once, each under its own policy ($last)" ||
	no "one load serves 200 cages at once, each under its own policy" "$(echo "$out" | head -n 5)"
# the same with every check on its task's own scratch (taken when the CPU's is in use)
out=$($repo/build/multicage --task-scratch 50 /srv/mc 2>&1); st=$?
last=$(echo "$out" | tail -n 1)
[ $st = 0 ] && ok "  ... and 50 cages with the task's own scratch space ($last)" ||
	no "  ... and 50 cages with the task's own scratch space" "$(echo "$out" | head -n 5)"
rm -rf /srv/mc
