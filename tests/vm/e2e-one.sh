#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run one end-to-end suite file alone in the VM, with e2e.sh's helpers:
#   tests/vm/vm.sh run tests/vm/e2e-one.sh REPO tests/vm/e2e-baseline-X.sh
set -u
repo=$1
. $repo/tests/vm/lib.sh
. "$repo/$2"
suite_daemon_stop
echo "vm-e2e ($2): $pass passed, $fail failed"
[ $fail = 0 ]
