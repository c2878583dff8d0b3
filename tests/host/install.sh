#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make install: the tree it makes under DESTDIR, example policies never
# overwritten, and the systemd unit checked by systemd-analyze verify.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && echo "       $2"; }
inst() { make -s -C "$repo" install "$@" > "$T/make.out" 2>&1; }

D=$T/root
inst DESTDIR=$D && ok "make install DESTDIR=... succeeds" || no "make install" "$(cat "$T/make.out")"
want="etc/agentcage/policies/python-runner.yaml.example 644
etc/agentcage/policies/web-agent.yaml.example 644
usr/local/bin/agentcage 755
usr/local/lib/systemd/system/agentcage.service 644
usr/local/share/man/man1/agentcage.1 644
usr/local/share/man/man5/agentcage-policy.5 644
usr/local/share/man/man8/agentcage-daemon.8 644"
got=$(cd "$D" && find . -type f -printf '%P %m\n' | sort)
[ "$got" = "$want" ] && ok "  ... the binary, the unit, three man pages, two example policies (PREFIX /usr/local), modes" \
	|| no "  ... tree" "$got"
u=$D/usr/local/lib/systemd/system/agentcage.service
grep -qx 'ExecStart=/usr/local/bin/agentcage daemon --policy-dir /etc/agentcage/policies --socket /run/agentcage/agentcage.sock' "$u" \
	&& grep -qx 'Type=notify' "$u" && grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$u" && ! grep -q '@' "$u" \
	&& ok "  ... the unit: Type=notify, ExecStart in BINDIR, ExecReload sends SIGHUP" || no "  ... unit" "$(grep Exec "$u")"
"$D/usr/local/bin/agentcage" check "$D"/etc/agentcage/policies/*.example > /dev/null 2>&1 \
	&& ok "  ... the installed binary runs and the example policies are valid" || no "  ... examples valid"
ldd "$D/usr/local/bin/agentcage" | grep -q libsystemd && ok "  ... linked with libsystemd (sd_notify)" || no "  ... libsystemd"
for p in agentcage.1 agentcage-policy.5 agentcage-daemon.8; do
	f=$(find "$D/usr/local/share/man" -name "$p")
	out=$(MANWIDTH=80 man -l "$f" 2>&1 > /dev/null)
	[ -z "$out" ] && MANWIDTH=80 man -l "$f" 2>/dev/null | grep -q NAME && ok "  ... man page $p renders without warnings" \
		|| no "  ... man $p" "$out"
done

# an operator's edited example is kept; a missing one is installed
echo "# mine" > "$D/etc/agentcage/policies/web-agent.yaml.example"
rm "$D/etc/agentcage/policies/python-runner.yaml.example"
inst DESTDIR=$D && [ "$(cat "$D/etc/agentcage/policies/web-agent.yaml.example")" = "# mine" ] \
	&& grep -q "kept .*web-agent.yaml.example (it exists)" "$T/make.out" \
	&& ok "make install again: an existing policy file is not overwritten (and says so)" || no "  ... overwrite" "$(cat "$T/make.out")"
cmp -s "$D/etc/agentcage/policies/python-runner.yaml.example" "$repo/policies/python-runner.yaml" \
	&& ok "  ... while a missing one is installed" || no "  ... missing one"
P=$T/prefix
inst PREFIX=$P/usr POLICYDIR=$P/etc/agentcage/policies && grep -qx "ExecStart=$P/usr/bin/agentcage daemon .*" "$P/usr/lib/systemd/system/agentcage.service" \
	&& [ -x "$P/usr/bin/agentcage" ] && ok "PREFIX=... puts the binary there and the unit names it" || no "PREFIX" "$(cat "$T/make.out")"

# systemd-analyze verify: on the unit of the PREFIX install (its ExecStart and
# man pages exist), and on a copy whose ExecStart does not (it must fail)
if ! command -v systemd-analyze > /dev/null; then
	echo "# SKIP systemd-analyze verify: systemd-analyze is not installed here"
else
	out=$(MANPATH=$P/usr/share/man systemd-analyze verify "$P/usr/lib/systemd/system/agentcage.service" 2>&1); st=$?
	[ $st = 0 ] && [ -z "$out" ] && ok "systemd-analyze verify passes on the unit (man pages of Documentation= found)" \
		|| no "systemd-analyze verify" "status $st: $out"
	mkdir -p "$T/bad"
	sed "s|^ExecStart=[^ ]*|ExecStart=$T/none/agentcage|" "$P/usr/lib/systemd/system/agentcage.service" > "$T/bad/agentcage.service"
	out=$(MANPATH=$P/usr/share/man systemd-analyze verify "$T/bad/agentcage.service" 2>&1); st=$?
	[ $st != 0 ] && echo "$out" | grep -q "$T/none/agentcage" && ok "  ... and fails on a copy whose ExecStart does not exist" \
		|| no "  ... verify can fail" "status $st: $out"
fi
echo "install: $pass passed, $fail failed"
[ $fail = 0 ]
