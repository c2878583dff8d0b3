# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 26 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The seed's container scenario (issue 12): policies/image-agent.yaml as
# shipped, with the demo's agent (tests/demo/image-agent.py) in one caged run.
# It makes a thumbnail, tries a photo next to its input, /etc/passwd, a copy
# in /tmp and an upload, then allocates memory until the limit kills it.
# Each refused step is first shown to work for the same uid (nobody) outside
# the cage: file permissions allow it, so EPERM and the event are the cage's.
# Sourced by e2e.sh and e2e-one.sh (lib.sh's helpers).
echo "# the image agent (policies/image-agent.yaml)"
PY=/usr/bin/python3      # Debian's, with python3-pil
NOBODY="setpriv --reuid 65534 --regid 65534 --clear-groups"
J=$(mktemp -d /tmp/image.XXXXXX); chmod 755 $J    # the job directory, root's
mkdir $J/out && chown 65534:65534 $J/out          # the output directory, nobody's
install -m 644 $repo/tests/demo/image-agent.py $J/
$PY -c 'import sys; from PIL import Image
im = Image.new("RGB", (640, 480))
im.putdata([(x * 255 // 639, y * 255 // 479, 160) for y in range(480) for x in range(640)])
im.save(sys.argv[1] + "/input.png"); im.save(sys.argv[1] + "/private.png")' $J
sum_in=$(sha256sum < $J/input.png)
rm -f /tmp/exfil.png

echo "## outside the cage, nobody may do what the agent will be refused"
x=/tmp/exfil-outside.$$
out=$(cd / && $NOBODY $PY -c 'import sys, socket
print(len(open(sys.argv[1] + "/private.png", "rb").read()) > 0, len(open("/etc/passwd").read()) > 0)
open(sys.argv[2], "wb").write(b"x"); print("written")
try:
    socket.create_connection(("203.0.113.7", 443), timeout=5)
except OSError as e:
    print("connect", "EPERM" if e.errno == 1 else "not EPERM", e.errno)
b = b"\x01" * (160 << 20); print("160 MiB ok")' $J $x 2>&1)
case "$out" in "True True
written
connect not EPERM "*"
160 MiB ok") true;; *) false;; esac && [ "$(stat -c %u $x)" = 65534 ] \
	&& ok "  ... reads private.png and /etc/passwd, writes /tmp, holds 160 MiB (its connect fails otherwise: the VM has no route)" \
	|| no "  ... nobody outside the cage" "$out"
rm -f $x

echo "## the agent in the cage"
out=$(cd $J && $AC run --policy $repo/policies/image-agent.yaml --events $T/img.json -- \
	$PY -I image-agent.py $J/input.png $J/out 2>$T/img.err); st=$?
istep() { grep -m 1 "^\[image-agent\] $1" <<< "$out"; }
[ "$(istep "make a thumbnail")" = "[image-agent] make a thumbnail of $J/input.png: 640x480 -> $J/out/thumbnail.png 128x96" ] \
	&& ok "the agent makes its thumbnail" || no "the thumbnail step" "$out $(tail -n 5 $T/img.err)"
size=$($PY -c 'import sys; from PIL import Image; im = Image.open(sys.argv[1]); print(im.format, "%dx%d" % im.size)' $J/out/thumbnail.png 2>&1)
[ "$size" = "PNG 128x96" ] && ok "  ... out/thumbnail.png is a 128x96 PNG (read outside the cage)" || no "  ... thumbnail size" "$size"
[ "$(stat -c %u $J/out/thumbnail.png)" = 65534 ] && ok "  ... written by nobody (uid 65534), the default user for a root caller" \
	|| no "  ... thumbnail owner" "$(stat -c %u:%g $J/out/thumbnail.png)"
for s in "read another photo" "read /etc/passwd" "write a copy to /tmp/exfil.png" "upload the photo"; do
	case "$(istep "$s")" in *": refused, EPERM (Operation not permitted)") ok "$s: refused with EPERM";;
		*) no "$s: refused with EPERM" "$(istep "$s")";; esac
done
event "  ... open_read $J/private.png denied, uid 65534" $T/img.json op=open_read path=$J/private.png action=denied cage=image-agent uid=65534 comm=python3
event "  ... open_read /etc/passwd denied" $T/img.json op=open_read path=/etc/passwd action=denied
event "  ... create /tmp/exfil.png denied" $T/img.json op=create path=/tmp/exfil.png action=denied
event "  ... connect 203.0.113.7:443/tcp denied" $T/img.json op=connect addr=203.0.113.7 port=443 proto=tcp action=denied
held=$(grep -o 'holding [0-9]* MiB' <<< "$out" | tail -n 1 | awk '{print $2}')
[ $st = 137 ] && [ -n "$held" ] && [ "$held" -ge 32 ] && [ "$held" -lt 100 ] \
	&& ok "the memory hog is OOM-killed under memory: 100M (status 137, last held $held MiB)" \
	|| no "memory hog killed" "status $st, held '$held': $(tail -n 3 <<< "$out") $(tail -n 3 $T/img.err)"
event "  ... reported as op=limit memory" $T/img.json op=limit path=memory action=denied cage=image-agent
# (cpu: 0.5 throttles the busy agent under emulation: its op=limit cpu
# events, if any, are the limit at work, not an access Pillow was denied)
python3 -c 'import json, sys
ev = sorted((e["op"], e.get("path") or "%s:%s" % (e.get("addr"), e.get("port"))) for e in map(json.loads, open(sys.argv[1])) if "op" in e)
ev = [e for e in ev if e != ("limit", "cpu")]
want = sorted([("open_read", sys.argv[2] + "/private.png"), ("open_read", "/etc/passwd"), ("create", "/tmp/exfil.png"),
               ("connect", "203.0.113.7:443"), ("limit", "memory")])
assert ev == want, ev' $T/img.json $J 2>$T/img.py \
	&& ok "  ... and no other event: what Pillow needs is granted" || no "  ... exactly the five events" "$(tail -n 1 $T/img.py)"
[ ! -e /tmp/exfil.png ] && ok "nothing was written to /tmp/exfil.png" || no "/tmp/exfil.png exists"
files=$(cd $J && find . | sort | tr '\n' ' ')
[ "$files" = ". ./image-agent.py ./input.png ./out ./out/thumbnail.png ./private.png " ] && [ "$(sha256sum < $J/input.png)" = "$sum_in" ] \
	&& ok "  ... nor anywhere in the job directory but out/thumbnail.png; input.png is unchanged" || no "  ... job directory" "$files"
rm -rf $J
