# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 53 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, host surface: a root agent with every capability may
# not reach host configuration or kernel surface, whatever its policy grants
# (bpf/surface.bpf.h). Each attack runs in a cage whose policy grants it,
# and once outside a cage (or where the policy grants it) as the control.
# Sourced by e2e.sh and e2e-one.sh (lib.sh's helpers).
suite_daemon
echo "# kernel baseline: host surface"
S=$T/surface; mkdir -p $S
# a policy that grants everything: read, write and exec of /, loopback
cat > $S/all.yaml <<Y
user: root
name: surface
files:
  read: [/]
  write: [/]
exec:
  allow: [/]
network:
  allow: [127.0.0.1]
Y
SA="$AC run --policy $S/all.yaml --events $S/all.json --"
sed 's/^name: surface/name: surface\nmode: audit/' $S/all.yaml > $S/audit.yaml
SU="$AC run --policy $S/audit.yaml --events $S/audit.json --"

echo "## capabilities that reach the host"
h=$(hostname)
expect "hostname (CAP_SYS_ADMIN) is refused in a cage" 1 $SA /bin/hostname surface-x
[ "$(hostname)" = "$h" ] && ok "  ... the hostname is unchanged" || no "  ... the hostname is unchanged" "$(hostname)"
event "  ... reported as capability CAP_SYS_ADMIN" $S/all.json op=capability capability=CAP_SYS_ADMIN action=denied comm=hostname
SETH='import socket; socket.sethostname(socket.gethostname())'
expect "  ... and so is sethostname (to its own value) from python" 1 $SA /usr/bin/python3 -c "$SETH"
expect "  ... outside a cage, sethostname (to its own value) works" 0 /usr/bin/python3 -c "$SETH"
expect "date -s (CAP_SYS_TIME) is refused in a cage" 1 $SA /bin/date -s "@$(date +%s)"
event "  ... reported as capability CAP_SYS_TIME" $S/all.json op=capability capability=CAP_SYS_TIME comm=date
expect "  ... outside a cage, date -s works" 0 /bin/date -s "@$(date +%s)"
expect "dmesg (CAP_SYSLOG) is refused in a cage" 1 $SA /bin/dmesg
expect "  ... outside a cage, dmesg works" 0 /bin/dmesg
expect "chroot (CAP_SYS_CHROOT) is refused in a cage" 125 $SA /usr/sbin/chroot / /bin/true
event "  ... reported as capability CAP_SYS_CHROOT" $S/all.json op=capability capability=CAP_SYS_CHROOT
expect "  ... outside a cage, chroot works" 0 /usr/sbin/chroot / /bin/true
echo x > $S/own
expect "chown to another uid works in a cage (CAP_CHOWN kept)" 0 $SA /bin/chown 1000:1000 $S/own
[ "$(stat -c %u:%g $S/own)" = 1000:1000 ] && ok "  ... the file belongs to 1000:1000" || no "  ... the file belongs to 1000:1000" "$(stat -c %u:%g $S/own)"
chmod 600 $S/own
expect "root reads a 0600 file of uid 1000 (CAP_DAC_OVERRIDE kept)" 0 $SA /bin/cat $S/own
expect "binding port 80 works where the network policy allows it (CAP_NET_BIND_SERVICE kept)" 0 \
	$SA /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 80)); s.listen()'
expect "setuid(1000) works in a cage (CAP_SETUID kept)" 0 $SA /usr/bin/python3 -c \
	'import os; os.setgid(1000); os.setuid(1000); assert os.getuid() == 1000 and os.geteuid() == 1000'
# a probe without intent (CAP_OPT_NOAUDIT): kallsyms shows addresses only to CAP_SYSLOG
rm -f $S/probe.json
out=$($AC run --policy $S/all.yaml --events $S/probe.json -- /usr/bin/grep -m 1 ' T ' /proc/kallsyms)
case "$out" in 0000000000000000*) ok "a probe without intent (kallsyms addresses) is refused in a cage";;
	*) no "a probe without intent (kallsyms addresses) is refused in a cage" "$out";; esac
case "$(grep -m 1 ' T ' /proc/kallsyms)" in 0000000000000000*) no "  ... outside a cage the addresses show" "$(grep -m 1 ' T ' /proc/kallsyms)";;
	*) ok "  ... outside a cage the addresses show";; esac
event "  ... and sends no event" $S/probe.json --none op=capability

echo "## kernel modules"
mod_loaded() { grep -q "^$1 " /proc/modules; }
if mod_loaded sctp; then no "sctp is not loaded before the test" "$(grep sctp /proc/modules)"; fi
expect "an SCTP socket in a cage does not autoload a module" 1 $SA /usr/bin/python3 -c \
	'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP)'
! mod_loaded sctp && ok "  ... sctp is still not loaded" || no "  ... sctp is still not loaded"
event "  ... reported as module with the module's name" $S/all.json op=module path=net-pf-2-proto-132-type-1 action=denied
expect "  ... outside a cage, the same socket loads sctp" 0 /usr/bin/python3 -c \
	'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP)'
mod_loaded sctp && ok "  ... sctp is loaded" || no "  ... sctp is loaded"
expect "a DCCP socket in a cage does not autoload a module" 1 $SA /usr/bin/python3 -c \
	'import socket; socket.socket(socket.AF_INET, 6, 33)'
! mod_loaded dccp && ok "  ... dccp is still not loaded" || no "  ... dccp is still not loaded"
event "  ... reported as module" $S/all.json op=module path=net-pf-2-proto-33-type-6
expect "modprobe in a cage is refused" 1 $SA /usr/sbin/modprobe dummy
! mod_loaded dummy && ok "  ... dummy is not loaded" || no "  ... dummy is not loaded"
event "  ... reported as capability CAP_SYS_MODULE" $S/all.json op=capability capability=CAP_SYS_MODULE comm=modprobe
expect "in audit mode, modprobe in a cage loads the module" 0 $SU /usr/sbin/modprobe dummy
mod_loaded dummy && ok "  ... dummy is loaded" || no "  ... dummy is loaded"
event "  ... and the load is reported as module (audited)" $S/audit.json op=module action=audited comm=modprobe
rmmod dummy 2>/dev/null

echo "## device nodes"
expect "mknod of a character device in a cage is refused, even of /dev/null's 1:3" 1 $SA /bin/mknod $S/null2 c 1 3
[ ! -e $S/null2 ] && ok "  ... no node was made" || no "  ... no node was made"
event "  ... reported as device 1:3 with its path" $S/all.json op=device device=1:3 path=$S/null2 action=denied
expect "mknod of a block device in a cage is refused" 1 $SA /bin/mknod $S/blk b 7 0
event "  ... reported as device 7:0" $S/all.json op=device device=7:0 path=$S/blk
expect "  ... outside a cage, mknod works" 0 /bin/mknod $S/null2 c 1 3
rm -f $S/null2
modprobe loop 2>/dev/null; modprobe ext4 2>/dev/null
truncate -s 16M /run/surface.img && mkfs.ext4 -q -F /run/surface.img && loopdev=$(losetup -f --show /run/surface.img)
if [ -b "${loopdev:-}" ]; then
	majmin=$(printf '%d:%d' 0x$(stat -c %t $loopdev) 0x$(stat -c %T $loopdev))
	mknod /tmp/surface-disk b ${majmin%:*} ${majmin#*:}   # made outside the cage
	sb=$(od -An -tx1 -j 1080 -N 2 /tmp/surface-disk | tr -d ' ')
	[ "$sb" = 53ef ] && ok "outside a cage, a node of the disk reads its ext4 superblock" || no "outside a cage, the disk reads" "$sb"
	expect "in a cage, the same node is refused (a policy granting it)" 1 $SA /usr/bin/od -N 2 -j 1080 /tmp/surface-disk
	event "  ... reported as device $majmin" $S/all.json op=device device=$majmin action=denied comm=od
	expect "in a cage, $loopdev itself is refused" 1 $SA /usr/bin/od -N 2 /dev/${loopdev#/dev/}
	expect "in a cage, writing the node is refused" 1 $SA /bin/sh -c 'printf xx | dd of=/tmp/surface-disk bs=1 seek=1080 conv=notrunc'
	[ "$(od -An -tx1 -j 1080 -N 2 /tmp/surface-disk | tr -d ' ')" = 53ef ] && ok "  ... the disk is unchanged" || no "  ... the disk is unchanged"
	rm -f /tmp/surface-disk
else
	no "a loop device for the device tests" "$loopdev"
fi
expect "in a cage, writing /dev/kmsg (1:11) is refused" 2 $SA /bin/sh -c 'echo surface-kmsg-cage > /dev/kmsg'
event "  ... reported as device 1:11" $S/all.json op=device device=1:11
expect "  ... outside a cage, it works" 0 /bin/sh -c 'echo surface-kmsg-host > /dev/kmsg'
dmesg | grep -q surface-kmsg-host && ! dmesg | grep -q surface-kmsg-cage && ok "  ... the kernel log has the host's line only" || no "  ... the kernel log has the host's line only"
expect "in a cage, the pseudo devices work (null, zero, full, random, urandom, ptmx)" 0 $SA /bin/sh -c '
	echo x > /dev/null && head -c 1 /dev/zero >/dev/null && head -c 1 /dev/random >/dev/null &&
	head -c 1 /dev/urandom >/dev/null && ! echo x 2>/dev/null > /dev/full &&
	python3 -c "import os; os.openpty()"'

echo "## kernel tunables"
kh=$(cat /proc/sys/kernel/hostname)
expect "in a cage, writing /proc/sys is refused (a policy granting write to /)" 2 $SA /bin/sh -c 'echo surface-y > /proc/sys/kernel/hostname'
[ "$(cat /proc/sys/kernel/hostname)" = "$kh" ] && ok "  ... the value is unchanged" || no "  ... the value is unchanged"
event "  ... reported as open_write of its path" $S/all.json op=open_write path=/proc/sys/kernel/hostname action=denied
expect "  ... reading it works" 0 $SA /bin/cat /proc/sys/kernel/hostname
expect "  ... outside a cage, writing it (its own value) works" 0 /bin/sh -c 'printf "%s\n" "$1" > /proc/sys/kernel/hostname' sh "$kh"
expect "in a cage, writing /proc/sysrq-trigger is refused" 2 $SA /bin/sh -c 'echo h > /proc/sysrq-trigger'
event "  ... reported as open_write" $S/all.json op=open_write path=/proc/sysrq-trigger
expect "in a cage, writing its own /proc/self/oom_score_adj works" 0 $SA /bin/sh -c 'echo 500 > /proc/self/oom_score_adj'
mtu=$(cat /sys/class/net/lo/mtu)
expect "in a cage, writing /sys is refused" 2 $SA /bin/sh -c 'echo 1280 > /sys/class/net/lo/mtu'
[ "$(cat /sys/class/net/lo/mtu)" = "$mtu" ] && ok "  ... lo's MTU is unchanged" || no "  ... lo's MTU is unchanged"
event "  ... reported as open_write" $S/all.json op=open_write path=/sys/devices/virtual/net/lo/mtu
expect "  ... reading it works" 0 $SA /bin/cat /sys/class/net/lo/mtu
expect "  ... outside a cage, writing it (its own value) works" 0 /bin/sh -c "echo $mtu > /sys/class/net/lo/mtu"
expect "in a cage, writing securityfs is refused" 2 $SA /bin/sh -c 'echo x >> /sys/kernel/security/lsm'
echo "## ioctls"
cat > $S/ifr.py <<'P'
import fcntl, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH14x", b"lo", 0))[:18])[1]
if sys.argv[1] == "set":      # SIOCSIFFLAGS, to the same flags
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", flags))
if sys.argv[1] == "mtu":      # SIOCSIFMTU, to the same MTU
    mtu = struct.unpack("16si", fcntl.ioctl(s, 0x8921, struct.pack("16si12x", b"lo", 0))[:20])[1]
    fcntl.ioctl(s, 0x8922, struct.pack("16si12x", b"lo", mtu))
P
expect "in a cage, SIOCGIFFLAGS works" 0 $SA /usr/bin/python3 $S/ifr.py get
expect "in a cage, SIOCSIFFLAGS is refused" 1 $SA /usr/bin/python3 $S/ifr.py set
event "  ... reported as ioctl 0x8914" $S/all.json op=ioctl ioctl=0x8914 action=denied
expect "in a cage, SIOCSIFMTU is refused" 1 $SA /usr/bin/python3 $S/ifr.py mtu
event "  ... reported as ioctl 0x8922" $S/all.json op=ioctl ioctl=0x8922
expect "  ... outside a cage, SIOCSIFFLAGS and SIOCSIFMTU work" 0 /bin/sh -c "python3 $S/ifr.py set && python3 $S/ifr.py mtu"
if [ -n "${loopdev:-}" ] && mkdir -p /run/surface-ext4 && mount $loopdev /run/surface-ext4; then
	E=/run/surface-ext4; mkdir -p $E/ro $E/rw; echo x > $E/ro/f; echo x > $E/rw/f
	cat > $S/io.yaml <<Y
user: root
name: surface-io
files:
  read: [/]
  write: [$T, $E/rw]
exec:
  allow: [/]
Y
	SI="$AC run --policy $S/io.yaml --events $S/io.json --"
	expect "in a cage, chattr +d of a writable file on ext4 works" 0 $SI /usr/bin/chattr +d $E/rw/f
	lsattr $E/rw/f | grep -q '^[^ ]*d' && ok "  ... the flag is set" || no "  ... the flag is set" "$(lsattr $E/rw/f)"
	expect "in a cage, chattr +d of a read-only file is refused" 1 $SI /usr/bin/chattr +d $E/ro/f
	! lsattr $E/ro/f | grep -q '^[^ ]*d' && ok "  ... the flag is not set" || no "  ... the flag is not set" "$(lsattr $E/ro/f)"
	event "  ... reported as ioctl FS_IOC_SETFLAGS with the path" $S/io.json op=ioctl 'ioctl~=0x400[48]6602' path=$E/ro/f action=denied
	expect "in a cage, chattr +i even of a writable file is refused (CAP_LINUX_IMMUTABLE)" 1 $SI /usr/bin/chattr +i $E/rw/f
	! lsattr $E/rw/f | grep -q '^[^ ]*i' && ok "  ... the file is not immutable" || no "  ... the file is not immutable"
	event "  ... reported as capability CAP_LINUX_IMMUTABLE" $S/io.json op=capability capability=CAP_LINUX_IMMUTABLE
	expect "  ... outside a cage, chattr +d and +i of the read-only file work" 0 /bin/sh -c "chattr +d $E/ro/f && chattr +i $E/ro/f && chattr -i $E/ro/f"
	umount $E
else
	no "an ext4 filesystem for the inode flag tests"
fi
[ -n "${loopdev:-}" ] && losetup -d $loopdev; rm -f /run/surface.img

echo "## readlink"
mkdir -p /run/surface-rl/hidden /run/surface-rl/open
ln -sf /some/target /run/surface-rl/hidden/link; ln -sf /other/target /run/surface-rl/open/link
cat > $S/rl.yaml <<Y
user: root
name: surface-rl
files:
  read: [/usr, /lib, /lib64, /etc/ld.so.cache, /run/surface-rl/open]
  write: [$T]
exec:
  allow: [/usr/bin, /usr/lib, /bin]
Y
out=$($AC run --policy $S/rl.yaml --events $S/rl.json -- /usr/bin/readlink /run/surface-rl/hidden/link 2>&1); st=$?
[ $st = 1 ] && [ "${out#/some}" = "$out" ] && ok "in a cage, readlink of a symlink in a denied tree is refused" || no "readlink in a denied tree" "$st $out"
event "  ... reported as readlink with its path" $S/rl.json op=readlink path=/run/surface-rl/hidden/link action=denied
out=$($AC run --policy $S/rl.yaml -- /usr/bin/readlink /run/surface-rl/open/link 2>&1)
[ "$out" = /other/target ] && ok "in a cage, readlink of a symlink in a readable tree works" || no "readlink in a readable tree" "$out"
[ "$(readlink /run/surface-rl/hidden/link)" = /some/target ] && ok "  ... outside a cage, the hidden one reads" || no "  ... outside a cage, the hidden one reads"

echo "## inotify and fanotify watches"
# watch KIND PATH: an inotify (or fanotify, FID mode, which needs no
# CAP_SYS_ADMIN) watch for names created in PATH; prints ok or the error
cat > $S/watch.py <<'P'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
kind, path = sys.argv[1], sys.argv[2].encode()
if kind == "inotify":
    fd = libc.inotify_init1(0)
    r = fd if fd < 0 else libc.inotify_add_watch(fd, path, 0x100)            # IN_CREATE
else:
    fd = libc.fanotify_init(0x200, os.O_RDONLY)                                # FAN_REPORT_FID
    r = fd if fd < 0 else libc.fanotify_mark(fd, 1, ctypes.c_uint64(0x40000100), -100, path)
print("ok" if r >= 0 else os.strerror(ctypes.get_errno()))
P
for k in inotify fanotify; do
	out=$($AC run --policy $S/rl.yaml --events $S/w-$k.json -- /usr/bin/python3 $S/watch.py $k /run/surface-rl/hidden 2>/dev/null)
	[ "$out" = "Operation not permitted" ] && ok "in a cage, an $k watch on a denied directory is refused" || no "$k watch on a denied directory" "$out"
	event "  ... reported as watch with its path" $S/w-$k.json op=watch path=/run/surface-rl/hidden action=denied
	out=$($AC run --policy $S/rl.yaml -- /usr/bin/python3 $S/watch.py $k /run/surface-rl/open 2>/dev/null)
	[ "$out" = ok ] && ok "  ... on a readable one it works" || no "  ... $k on a readable one it works" "$out"
	out=$(python3 $S/watch.py $k /run/surface-rl/hidden 2>&1)
	[ "$out" = ok ] && ok "  ... outside a cage, on the denied one too" || no "  ... $k outside a cage, on the denied one too" "$out"
done
rm -rf /run/surface-rl
