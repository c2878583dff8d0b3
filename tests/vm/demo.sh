#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make demo: run the demo here if this kernel loads BPF LSM programs, else in the test VM.
set -u
AC=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
if out=$(cd /tmp && "$AC" run -- /bin/true 2>&1); then
	exec "$repo/tests/demo/demo-guest.sh" "$repo"
fi
echo "agentcage: this kernel cannot run cages here: ${out#agentcage: error: }"
echo "agentcage: running the demo inside the test VM (Debian 6.1 kernel with BPF LSM, QEMU)"
exec "$repo/tests/vm/vm.sh" run "$repo/tests/demo/demo-guest.sh" "$repo"
