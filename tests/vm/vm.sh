#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Boot Debian's 6.1 kernel (BPF LSM active) under QEMU software emulation with
# the host's / shared read-only, run one guest script, and return its status.
#   tests/vm/vm.sh run SCRIPT [ARGS...]   run SCRIPT (a host path) as root in the guest
#   tests/vm/vm.sh test                   the end-to-end suites, over VM_PAR one-CPU guests
#   tests/vm/vm.sh bench                  the benchmarks (bench/bench.sh)
# Guest output goes to the console; the guest's /results is $VM_OUT on the host.
# VM_ICOUNT=1 runs the guest with one virtual CPU whose clock counts
# instructions (-icount shift=0: 1 ns of guest time per instruction executed,
# idle time skipped): a time measured inside such a guest is an instruction
# count, the same from run to run whatever else the host is doing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${VM_WORK:-$repo/build/vm}
mkdir -p "$work"

kver=$(ls /boot | sed -n 's/^vmlinuz-\(6\.1\.[0-9.-]*-amd64\)$/\1/p' | sort -V | tail -n1)
if [ -z "$kver" ]; then
	echo "vm.sh: no Debian 6.1 kernel in /boot; run 'make deps' (package linux-image-amd64)" >&2
	exit 125
fi
kernel=/boot/vmlinuz-$kver
initrd=$work/initrd-$kver.cpio.gz

build_initrd() {
	local d=$work/initrd
	rm -rf "$d"; mkdir -p "$d"/{bin,lib/modules,proc,sys,dev,lower,upper,newroot,results}
	cp /bin/busybox "$d/bin/busybox"
	for m in virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
		netfs fscache 9pnet 9pnet_virtio 9p overlay; do
		f=$(modinfo -k "$kver" -n "$m" 2>/dev/null || true)
		case "$f" in
		""|"(builtin)"|builtin*) continue ;;
		*.xz) xz -dc "$f" > "$d/lib/modules/$m.ko" ;;
		*.zst) zstd -dqc "$f" > "$d/lib/modules/$m.ko" ;;
		*) cp "$f" "$d/lib/modules/$m.ko" ;;
		esac
	done
	cp "$here/init" "$d/init"; chmod +x "$d/init"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
}
if [ ! -s "$initrd" ] || [ "$here/init" -nt "$initrd" ]; then build_initrd; fi

run_guest() {
	local script=$1; shift
	local out=${VM_OUT:-$work/out}
	rm -rf "$out"; mkdir -p "$out"
	printf '%q ' "$script" "$@" > "$out/cmd"
	local log=${VM_LOG:-$work/console.log} accel=(-accel tcg -cpu max -smp "${VM_SMP:-2}")
	[ "${VM_ICOUNT:-0}" = 1 ] && accel=(-accel tcg -cpu max -smp 1 -icount shift=0,sleep=off)
	timeout "${VM_TIMEOUT:-3600}" qemu-system-x86_64 "${accel[@]}" -m "${VM_MEM:-2048}" \
		-nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 oops=panic" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$out",mount_tag=results,security_model=none \
		-nic none < /dev/null | tee "$log" | grep --line-buffered -av '^AGENTCAGE-VM-STATUS' || true
	local st
	st=$(sed -n 's/^AGENTCAGE-VM-STATUS \([0-9]*\).*/\1/p' "$log" | tail -n1)
	if [ -z "$st" ]; then
		echo "vm.sh: the guest did not report a status (see $log)" >&2
		return 125
	fi
	return "$st"
}

# The suites, spread over VM_PAR one-CPU guests (default: one per host CPU)
# run side by side: each suite goes to the guest with the least work so far,
# the largest first. A suite's work is its "# vm-cost: SECONDS" line (what
# it took in a one-CPU guest on a 2-core machine running two guests), else
# its size (1 s for 50 bytes).
test_split() {
	local n=${VM_PAR:-$(nproc)} i f st=0 pids=() sizes=() groups=()
	[ "$n" -ge 1 ] || n=1
	rm -f "$work"/console-*.log
	for ((i = 0; i < n; i++)); do sizes[i]=0; groups[i]=; done
	for f in $(cd "$repo/tests/vm" && for f in e2e-*.sh; do
			case $f in e2e-one.sh|e2e.sh) continue ;; esac
			c=$(sed -n 's/^# vm-cost: \([0-9]*\).*/\1/p' "$f" | head -n1)
			echo "${c:-$(($(stat -c %s "$f") / 50))} $f"
		done | sort -rn | cut -d' ' -f2); do
		local best=0 c
		for ((i = 1; i < n; i++)); do [ "${sizes[i]}" -lt "${sizes[best]}" ] && best=$i; done
		c=$(sed -n 's/^# vm-cost: \([0-9]*\).*/\1/p' "$repo/tests/vm/$f" | head -n1)
		groups[best]="${groups[best]} $f"
		sizes[best]=$((sizes[best] + ${c:-$(($(stat -c %s "$repo/tests/vm/$f") / 50))}))
	done
	for ((i = 0; i < n; i++)); do
		[ -n "${groups[i]}" ] || continue
		echo "vm.sh: guest $i runs${groups[i]}"
		( VM_SMP=1 VM_OUT=$work/out-$i VM_LOG=$work/console-$i.log \
			run_guest "$repo/tests/vm/e2e.sh" "$repo" ${groups[i]} ) > >(sed -u "s/^/[vm$i] /") &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || st=$?; done
	grep -ah "^vm-e2e: " "$work"/console-*.log | awk '{p += $2; f += $4} END {printf "vm-e2e, all guests: %d passed, %d failed\n", p, f}'
	# the failed checks again, last, where a CI log's tail shows them
	awk '{ sub(/\r$/, "") }
		/# e2e-[a-z0-9-]*\.sh: started/ { s = $0; sub(/.*# /, "", s); sub(/: started.*/, "", s) }
		/^FAIL - / { print "vm-e2e, failed in " s ": " substr($0, 8); f = 1; next }
		f && /^       / { print "vm-e2e,   " substr($0, 8) }
		{ f = 0 }' "$work"/console-*.log
	return $st
}

case "${1:-}" in
run) shift; run_guest "$@" ;;
test) test_split ;;
bench) run_guest "$repo/bench/bench.sh" "$repo" "$([ "${VM_ICOUNT:-0}" = 1 ] && echo icount || echo wall)" \
	ROUNDS="${ROUNDS:-}" N_OPEN="${N_OPEN:-}" N_CREATE="${N_CREATE:-}" N_EXEC="${N_EXEC:-}" N_SYS="${N_SYS:-}" ;;
*) echo "usage: $0 run SCRIPT [ARGS...] | test | bench" >&2; exit 125 ;;
esac
