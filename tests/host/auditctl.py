#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Kernel audit on or off without auditctl (no auditd on our hosts):
# "auditctl.py" prints whether it is enabled (0, 1, or 2 for locked);
# "auditctl.py N" sets it to N and prints the old value.
import errno
import socket
import struct
import sys

AUDIT_GET, AUDIT_SET, NLMSG_ERROR = 1000, 1001, 2
NETLINK_AUDIT = 9
AUDIT_STATUS_ENABLED = 1


def request(s, kind, payload=b""):
    s.send(struct.pack("=IHHII", 16 + len(payload), kind, 5, 1, 0) + payload)
    while True:
        d = s.recv(8192)
        _, ty = struct.unpack("=IH", d[:6])
        if ty == AUDIT_GET:
            return struct.unpack("=IIII", d[16:32])[1]
        if ty == NLMSG_ERROR:
            err = struct.unpack("=i", d[16:20])[0]
            if err:
                sys.exit("auditctl.py: %s" % (errno.errorcode.get(-err, -err),))
            if kind != AUDIT_GET:
                return None


s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
s.bind((0, 0))
print(request(s, AUDIT_GET))
if len(sys.argv) > 1:
    status = struct.pack("=9I", AUDIT_STATUS_ENABLED, int(sys.argv[1]), *([0] * 7))
    request(s, AUDIT_SET, status + b"\0" * 16)
