#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Network peers and clients for the network tests (host and VM).

  peer.py serve-tcp ADDR PORT READYFILE [ONCE]   echo server; touches READYFILE when listening
  peer.py serve-udp ADDR PORT READYFILE          echo server for datagrams
  peer.py tcp ADDR PORT [TIMEOUT]                connect, send, expect the echo
  peer.py udp ADDR PORT [TIMEOUT]                sendto, expect the echo
  peer.py tcp-fastopen ADDR PORT [TIMEOUT]       sendto(MSG_FASTOPEN) with data
  peer.py raw-udp ADDR PORT                      a UDP datagram through a raw socket
  peer.py udp-flood ADDR PORT N                  N sendto()s, errors ignored
Exit status: 0 worked, 1 no answer (timeout or refused), 2 EPERM/EACCES at once,
3 another error. One line on stdout says what happened.
"""
import errno, os, socket, struct, sys, time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def result(code, msg):
    print(msg, flush=True)
    sys.exit(code)


def classify(e, t0):
    dt = time.monotonic() - t0
    if isinstance(e, PermissionError) or getattr(e, "errno", None) in (errno.EPERM, errno.EACCES):
        result(2, "EPERM after %.3fs: %s" % (dt, e))
    if isinstance(e, (socket.timeout, TimeoutError, ConnectionRefusedError, ConnectionResetError)):
        result(1, "no answer after %.3fs: %r" % (dt, e))
    result(3, "error after %.3fs: %r" % (dt, e))


def serve_tcp(addr, port, ready, once=False):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    open(ready, "w").close()
    while True:
        c, _ = s.accept()
        c.settimeout(5)
        try:
            data = c.recv(4096)
            if data:
                c.sendall(data)
        except OSError:
            pass
        c.close()
        if once:
            return


def serve_udp(addr, port, ready):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.bind((addr, port))
    open(ready, "w").close()
    while True:
        data, peer = s.recvfrom(4096)
        s.sendto(data, peer)


def tcp(addr, port, timeout, fastopen=False):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.settimeout(timeout)
    t0 = time.monotonic()
    try:
        if fastopen:
            s.sendto(b"ping", socket.MSG_FASTOPEN, (addr, port))
        else:
            s.connect((addr, port))
            s.sendall(b"ping")
        data = s.recv(4096)
    except OSError as e:
        classify(e, t0)
    if data != b"ping":
        result(1, "no echo (%r)" % data)
    result(0, "echo after %.3fs" % (time.monotonic() - t0))


def udp(addr, port, timeout):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.settimeout(timeout)
    t0 = time.monotonic()
    try:
        s.sendto(b"ping", (addr, port))
        data, _ = s.recvfrom(4096)
    except OSError as e:
        classify(e, t0)
    result(0 if data == b"ping" else 1, "udp echo %r" % data)


def raw_udp(addr, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    pkt = struct.pack("!HHHH", 40000, port, 8 + 4, 0) + b"ping"
    t0 = time.monotonic()
    try:
        s.sendto(pkt, (addr, 0))
    except OSError as e:
        classify(e, t0)
    result(0, "raw datagram sent")


def udp_flood(addr, port, n):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    refused = 0
    for _ in range(n):
        try:
            s.sendto(b"x", (addr, port))
        except OSError:
            refused += 1
    result(0, "%d of %d refused" % (refused, n))


def main(a):
    cmd = a[0]
    if cmd == "serve-tcp":
        serve_tcp(a[1], int(a[2]), a[3], len(a) > 4)
    elif cmd == "serve-udp":
        serve_udp(a[1], int(a[2]), a[3])
    elif cmd in ("tcp", "tcp-fastopen"):
        tcp(a[1], int(a[2]), float(a[3]) if len(a) > 3 else 2.0, cmd == "tcp-fastopen")
    elif cmd == "udp":
        udp(a[1], int(a[2]), float(a[3]) if len(a) > 3 else 1.0)
    elif cmd == "raw-udp":
        raw_udp(a[1], int(a[2]))
    elif cmd == "udp-flood":
        udp_flood(a[1], int(a[2]), int(a[3]))
    else:
        result(3, "unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
