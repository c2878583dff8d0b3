#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check an agentcage events file: every line must be a JSON object with the
required fields; exit 0 if some event matches all KEY=VALUE arguments
(`--none` first: exit 0 if none does). KEY~=REGEX matches a value by a
regular expression (re.fullmatch). A run's start and reload records
("record") are checked for their fields and are no events."""
import json, re, sys

REQUIRED = {"time", "cage", "pid", "uid", "comm", "op", "action"}
RECORD = {"time", "cage", "record", "enforcer", "mode", "policy", "file_events"}
NET_OPS = {"connect", "bind", "send", "recv", "socket", "unix_connect"}
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")

def main():
    path, conds = sys.argv[1], sys.argv[2:]
    neg = conds and conds[0] == "--none"
    if neg:
        conds = conds[1:]
    want = dict(c.split("=", 1) for c in conds)
    rx = {k[:-1]: re.compile(v) for k, v in want.items() if k.endswith("~")}
    want = {k: v for k, v in want.items() if not k.endswith("~")}
    events = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            e = json.loads(line)
            if "record" in e:
                if RECORD - e.keys() or e["record"] not in ("start", "reload"):
                    sys.exit(f"{path}:{n}: bad record {e}")
                continue
            missing = REQUIRED - e.keys()
            if missing:
                sys.exit(f"{path}:{n}: missing fields {sorted(missing)}")
            if not TIME.match(e["time"]):
                sys.exit(f"{path}:{n}: bad time {e['time']!r}")
            need = {"family"} if e["op"] in NET_OPS else {"path"}
            if e.get("family") in ("inet", "inet6"):
                need |= {"addr", "port", "proto"}
                if not isinstance(e["port"], int):
                    sys.exit(f"{path}:{n}: port is not a number")
            if e.get("family") == "unix":
                need.add("path")
            if need - e.keys():
                sys.exit(f"{path}:{n}: missing fields {sorted(need - e.keys())}")
            if e["action"] not in ("denied", "audited"):
                sys.exit(f"{path}:{n}: bad action {e['action']!r}")
            events.append(e)
    hit = [e for e in events if all(str(e.get(k)) == v for k, v in want.items())
           and all(r.fullmatch(str(e.get(k))) for k, r in rx.items())]
    if neg:
        if hit:
            sys.exit(f"unexpected event: {hit[0]}")
        return
    if not hit:
        sys.exit(f"no event with {want} {rx} among {len(events)}: {events[-5:]}")

main()
