#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Give a command a terminal of its own and talk to it, as a user would:
  ptydrive.py STEPS.json -- CMD [ARG...]
The command runs in a new session whose controlling terminal is a fresh
pty ("the caller's terminal", 33x101). STEPS is a JSON list of
["expect", REGEX] (wait up to 90 s for it in the output), ["send", TEXT],
["resize", ROWS, COLS] (TIOCSWINSZ: the kernel sends SIGWINCH). Prints
one JSON object: status, the output, the terminal's name, whether its
modes are the same after the command as before, and how many input bytes were left unread on it (typed into it
by someone, for the next program, the shell, to read)."""
import fcntl, json, os, re, select, struct, subprocess, sys, termios, time

def main():
    steps = json.load(open(sys.argv[1]))
    cmd = sys.argv[sys.argv.index("--") + 1:]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 101, 0, 0))
    before = termios.tcgetattr(slave)
    def child():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, preexec_fn=child)
    out, res = b"", {"steps": []}
    def pump(t):
        nonlocal out
        r, _, _ = select.select([master], [], [], t)
        if r:
            try:
                out += os.read(master, 65536)
                return True
            except OSError:
                pass
        return False
    for st in steps:
        if st[0] == "expect":
            end = time.time() + 90
            while not re.search(st[1].encode(), out) and time.time() < end and p.poll() is None:
                pump(0.2)
            pump(0.1)
            res["steps"].append([st[1], bool(re.search(st[1].encode(), out))])
        elif st[0] == "send":
            os.write(master, st[1].encode())
        elif st[0] == "resize":
            fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", st[1], st[2], 0, 0))
    end = time.time() + 120
    while p.poll() is None and time.time() < end:
        pump(0.2)
    if p.poll() is None:
        p.kill()
    while pump(0.2):
        pass
    res["status"] = p.wait()
    res["out"] = out.decode(errors="replace")
    res["tty"] = os.ttyname(slave)
    res["modes_same"] = termios.tcgetattr(slave) == before
    res["pending"] = struct.unpack("i", fcntl.ioctl(slave, termios.FIONREAD, b"\0" * 4))[0]
    print(json.dumps(res))

main()
