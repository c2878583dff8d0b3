# SPDX-License-Identifier: GPL-2.0-only
# The agent of tests/host/landlock.sh: tries one action per argument and
# prints NAME:ok or NAME:errno N (its errno's name), one line each, so the
# suite can hold each refusal beside its control from the same run.
# An argument is NAME=ACTION:ARG[:ARG2].
import ctypes
import errno
import mmap
import os
import signal
import socket
import sys


def connect(arg, kind=socket.SOCK_STREAM):
    host, port = arg.rsplit(",", 1)
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, kind)
    s.settimeout(2)
    s.connect((host, int(port)))
    if kind == socket.SOCK_STREAM:
        s.sendall(b"x")
    s.close()


def sendto(arg):
    host, port = arg.rsplit(",", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"x", (host, int(port)))
    s.close()


def bind(arg):
    host, port = arg.rsplit(",", 1)
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    s.bind((host, int(port)))
    s.close()


def mapx(path):
    with open(path, "rb") as f:
        mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)


def uring(_):
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 4, params)  # io_uring_setup
    if fd < 0:
        raise OSError(ctypes.get_errno(), "io_uring_setup")
    os.close(fd)


def sock(arg):
    fam, typ, proto = (int(x) for x in arg.split(","))
    socket.socket(fam, typ, proto).close()


def run(path):
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(path, [path])
        except OSError as e:
            os._exit(200 + e.errno % 50)
    _, st = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(st)
    if code >= 200:
        raise OSError(code - 200, "execv")


def mount(target):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b"none", target.encode(), b"tmpfs", 0, None):
        raise OSError(ctypes.get_errno(), "mount")


def copy(arg):
    src, dst = arg.split(",")
    with open(src, "rb") as f, open(dst, "wb") as g:
        g.write(f.read())
    os.chmod(dst, 0o755)


ACTIONS = {
    "read": lambda a: open(a, "rb").read(1),
    "write": lambda a: open(a, "ab").write(b"x"),
    "create": lambda a: os.close(os.open(a, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)),
    "mkdir": lambda a: os.mkdir(a),
    "unlink": lambda a: os.unlink(a),
    "rename": lambda a: os.rename(*a.split(",")),
    "link": lambda a: os.link(*a.split(",")),
    "symlink_read": lambda a: (os.symlink(*a.split(",")), open(a.split(",")[1]).read(1)),
    "truncate": lambda a: os.truncate(a, 0),
    "chmod": lambda a: os.chmod(a, 0o600),
    "utime": lambda a: os.utime(a, None),
    "exec": run,
    "mapx": mapx,
    "connect": connect,
    "udp": lambda a: connect(a, socket.SOCK_DGRAM),
    "sendto": sendto,
    "bind": bind,
    "socket": sock,
    "uring": uring,
    "kill": lambda a: os.kill(int(a), signal.SIGTERM),
    "listdir": lambda a: os.listdir(a),
    "mount": mount,
    "copy": copy,
}


def main():
    for spec in sys.argv[1:]:
        name, rest = spec.split("=", 1)
        act, _, arg = rest.partition(":")
        try:
            ACTIONS[act](arg)
            print(f"{name}:ok", flush=True)
        except TimeoutError:
            print(f"{name}:timeout", flush=True)
        except OSError as e:
            print(f"{name}:errno {errno.errorcode.get(e.errno, e.errno)}", flush=True)
        except Exception as e:  # a timeout, a bug of the probe
            print(f"{name}:{type(e).__name__}", flush=True)


main()
