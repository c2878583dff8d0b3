#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host-side tests: this kernel refuses BPF LSM programs, so agentcage run must
# fail closed (exit 125, a clear message, the command never started).
set -u
AC=$(realpath "${1:-build/agentcage}")
repo=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && echo "       $2"; }

probe_lsm_load() {
	# can this kernel load BPF LSM programs at all? (the VM can, our host cannot)
	# (--enforcer bpf-lsm: auto would fall back to Landlock, tests/host/landlock.sh)
	out=$(cd "$T" && "$AC" run --enforcer bpf-lsm -- /bin/true 2>&1); st=$?; probe_st=$st
}
probe_lsm_load
if [ $st = 0 ]; then
	echo "# this kernel loads BPF LSM programs: the fail-closed checks below need one that refuses"
	ok "agentcage run works here (the end-to-end suite covers enforcement)"
else
	marker=$T/ran
	out=$(cd "$T" && "$AC" run --enforcer bpf-lsm -- /bin/sh -c "touch $marker" 2>&1); st=$?
	[ $st = 125 ] && ok "run exits 125 where BPF LSM cannot be loaded" || no "run exits 125" "status $st: $out"
	[ "$(echo "$out" | wc -l)" = 1 ] && ok "  ... with a one-line error" || no "  ... with a one-line error" "$out"
	case "$out" in *"BPF LSM"*"lsm="*) ok "  ... naming the cause and the fix";; *) no "  ... naming the cause and the fix" "$out";; esac
	[ ! -e "$marker" ] && ok "  ... and the command never ran" || no "  ... and the command never ran"
	out=$(cd "$T" && "$AC" run --enforcer bpf-lsm --json -- /bin/true 2>&1); st=$?
	echo "$out" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); assert e["level"]=="error" and "BPF LSM" in e["message"]' \
		&& [ $st = 125 ] && ok "  ... and as JSON with --json" || no "  ... and as JSON with --json" "$out"
	cg2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
	[ -z "$(find "$cg2/agentcage" -mindepth 1 -type d 2>/dev/null)" ] && ok "  ... leaving no cgroup behind" || no "  ... leaving no cgroup behind"
fi
# the launch: checked before any program loads, so the host refuses them first
printf 'limits:\n  memory: 100M\n  pids: 64\n' > "$T/lim.yaml"
cg2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
if ! grep -qw memory "$cg2/cgroup.controllers" 2>/dev/null; then
	marker=$T/ran-lim
	out=$(cd "$T" && "$AC" run --policy "$T/lim.yaml" -- /bin/sh -c "touch $marker" 2>&1); st=$?
	[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"limits.memory needs the cgroup v2 'memory' controller"*"--no-limits"*) true;; *) false;; esac \
		&& ok "limits on a host without the v2 controllers: 125, one line with cause and fix" || no "limits unavailable" "$st $out"
	[ ! -e "$marker" ] && ok "  ... and the command never ran" || no "  ... and the command never ran"
	out=$(cd "$T" && "$AC" run --enforcer bpf-lsm --no-limits --policy "$T/lim.yaml" -- /bin/true 2>&1); st=$?
	case "$out" in *"limits.memory"*) false;; *"--no-limits: the policy's memory, cpu and pids limits are not applied"*) true;; *) false;; esac \
		&& ok "  ... --no-limits gets past the limits (warning; then $st: $(echo "$out" | tail -n 1 | cut -c1-60))" || no "--no-limits" "$st $out"
	[ -z "$(find "$cg2/agentcage" -mindepth 1 -type d 2>/dev/null)" ] && ok "  ... leaving no cgroup behind" || no "  ... leaving no cgroup behind"
else
	echo "# this host has the v2 memory controller: the 125 for unavailable limits is not testable here"
fi
printf 'user: agentcage-no-such-user\n' > "$T/user.yaml"
out=$(cd "$T" && "$AC" run --policy "$T/user.yaml" -- /bin/true 2>&1); st=$?
[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"user 'agentcage-no-such-user' does not exist"*) true;; *) false;; esac \
	&& ok "a user that does not exist: 125, one line naming it" || no "bad user" "$st $out"
printf 'user: "12x"\n' > "$T/user2.yaml"
out=$("$AC" run --policy "$T/user2.yaml" -- /bin/true 2>&1); st=$?
[ $st = 125 ] && case "$out" in *user2.yaml:1:*"'user'"*) true;; *) false;; esac && ok "a malformed user: 125 naming file and line" || no "malformed user" "$st $out"
bad=""
for d in 0 10x -5 ""; do
	out=$("$AC" run --timeout "$d" -- /bin/true 2>&1); st=$?
	[ $st = 125 ] && case "$out" in *"--timeout takes a duration"*) true;; *) false;; esac || bad="$bad '$d': $st $out"
done
[ -z "$bad" ] && ok "a bad --timeout (0, 10x, -5, empty) exits 125" || no "a bad --timeout exits 125" "$bad"
out=$(cd "$T" && setpriv --reuid 65534 --regid 65534 --clear-groups "$AC" run -- /bin/true 2>&1); st=$?
[ $st = 125 ] && case "$out" in *root*) true;; *) false;; esac && ok "run as non-root exits 125 naming root" || no "non-root" "$st $out"
out=$("$AC" run --policy "$T/none.yaml" -- /bin/true 2>&1); st=$?
[ $st = 125 ] && case "$out" in *none.yaml*) true;; *) false;; esac && ok "a missing policy file exits 125 naming it" || no "missing policy" "$st $out"
out=$("$AC" run 2>&1); [ $? = 125 ] && ok "run without a command exits 125" || no "run without a command" "$out"
out=$("$AC" frobnicate 2>&1); [ $? = 125 ] && ok "an unknown verb exits 125" || no "unknown verb" "$out"
printf 'files:\n  read: [/usr]\n  read: [/lib]\n' > "$T/dup.yaml"
out=$("$AC" check "$T/dup.yaml" 2>&1); st=$?
[ $st = 1 ] && [ "$out" = "$T/dup.yaml:3:3: duplicate key 'read'" ] && ok "check names file, line, column (exit 1)" || no "check error" "$st $out"
out=$("$AC" check "$repo/policies/python-runner.yaml" 2>&1); st=$?
[ $st = 0 ] && case "$out" in *"valid: cage 'python-runner'"*) true;; *) false;; esac && ok "check summarises a valid policy" || no "check valid" "$st $out"
# from a job directory whose out/ is nobody's, as the policy's comment says
mkdir -p "$T/job/out" && chown 65534:65534 "$T/job/out"
out=$(cd "$T/job" && "$AC" check "$repo/policies/image-agent.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && [ -z "$out" ] && ok "check: the image agent's policy is valid, with no warning" || no "check image-agent" "$st $out"
chown 0:0 "$T/job/out"
out=$(cd "$T/job" && "$AC" check "$repo/policies/image-agent.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && case "$out" in *"files.write '\${CWD}/out': the default user 'nobody' (uid 65534) cannot write $T/job/out"*) true;; *) false;; esac \
	&& ok "  ... and a warning where out/ is root's (the agent runs as nobody)" || no "check image-agent warning" "$st $out"
out=$("$AC" check "$repo/policies/web-agent.yaml" 2>&1); st=$?
[ $st = 0 ] && case "$out" in *"allow  127.0.0.53 port 53, tcp+udp"*"deny   169.254.169.254 any port"*) true;; *) false;; esac \
	&& ok "check prints the compiled network rules" || no "check network" "$st $out"
printf 'network:\n  allow:\n    - 10.0.0.0/8\n    - 10.0.0.1:70000\n' > "$T/badnet.yaml"
out=$("$AC" check "$T/badnet.yaml" 2>&1); st=$?
[ $st = 1 ] && case "$out" in "$T/badnet.yaml:4:7: network.allow: '10.0.0.1:70000': "*port*) true;; *) false;; esac \
	&& ok "check names file, line, column of a bad network entry" || no "check bad network entry" "$st $out"
# --json for every verb: results and errors as JSON objects
out=$("$AC" --json check "$T/dup.yaml" 2>/dev/null); st=$?
echo "$out" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); assert e["valid"] is False and e["code"]=="policy.invalid" and (e["line"],e["column"])==(3,3) and e["message"]=="duplicate key '"'"'read'"'"'", e' \
	&& [ $st = 1 ] && ok "--json check: one error object with file, line, column and code (exit 1)" || no "--json check error" "$st $out"
out=$("$AC" check --json "$repo/policies/web-agent.yaml" 2>/dev/null); st=$?
echo "$out" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); assert e["valid"] and e["cage"]=="web-agent" and e["network"]["deny"][0]["prefix"]=="169.254.169.254" and "/etc/shadow" in e["deny"], e' \
	&& [ $st = 0 ] && ok "check --json: a summary object for a valid file" || no "check --json valid" "$st $out"
out=$("$AC" --json check "$T/none.yaml" 2>/dev/null); st=$?
echo "$out" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); assert e["code"]=="policy.unreadable", e' \
	&& [ $st = 1 ] && ok "--json check: an unreadable file has its own code" || no "--json check unreadable" "$st $out"
# check warns (exit 0) about what would break at run time or give up W^X
printf 'files:\n  read: [/usr]\nexec:\n  allow: [/usr/bin/cat]\n' > "$T/w-ok.yaml"
err=$("$AC" check "$T/w-ok.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && [ -z "$err" ] && ok "check: cat with the default libraries, no warning" || no "check no warning" "$st $err"
printf 'files:\n  read: [/usr]\nexec:\n  allow: [/usr/bin/cat]\n  libraries: [/usr/lib/python3]\n' > "$T/w-interp.yaml"
err=$("$AC" check "$T/w-interp.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && case "$err" in "$T/w-interp.yaml: warning: exec.allow '/usr/bin/cat': "*"interpreter /lib64/ld-linux-x86-64.so.2"*"exec.libraries does not cover"*) true;; *) false;; esac \
	&& ok "check warns: a program's ELF interpreter outside exec.libraries (exit 0)" || no "check interp warning" "$st $err"
printf 'files:\n  read: [/usr/bin, /usr/lib/x86_64-linux-gnu/libc.so.6]\nexec:\n  allow: [/usr/bin/cat]\n' > "$T/w-read.yaml"
err=$("$AC" check "$T/w-read.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && case "$err" in *"files.read does not cover"*) true;; *) false;; esac \
	&& ok "check warns: a program's interpreter the policy cannot read" || no "check interp read warning" "$st $err"
# a generated policy with a warning per rule: 20 lines and a count, --json all
{ printf 'files:\n  write:\n'; for i in $(seq 25); do echo "    - /root/w$i"; done; } > "$T/w-many.yaml"
err=$("$AC" check "$T/w-many.yaml" 2>&1 >/dev/null); st=$?
js=$("$AC" check --json "$T/w-many.yaml" 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["warnings"]))')
[ $st = 0 ] && [ "$(echo "$err" | grep -c "cannot write")" = 20 ] && [ "$js" = 25 ] &&
	[ "$(echo "$err" | tail -1)" = "$T/w-many.yaml: warning: ... and 5 more (agentcage check --json lists them all)" ] &&
	ok "check prints 20 warnings and counts the rest; --json lists all 25" || no "check many warnings" "$st $js $err"
mkdir -p "$T/proj"; printf '#!/bin/sh\necho hi\n' > "$T/proj/run.sh"; chmod 755 "$T/proj/run.sh"
printf "files:\n  read: [/usr, $T/proj]\nexec:\n  allow: [$T/proj/run.sh]\n" > "$T/w-script.yaml"
err=$("$AC" check "$T/w-script.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && case "$err" in *"the script $T/proj/run.sh names the interpreter /bin/sh"*"exec.allow does not cover"*) true;; *) false;; esac \
	&& ok "check warns: a script whose #! interpreter is not an allowed program" || no "check script warning" "$st $err"
printf "files:\n  read: [/usr, $T/proj/run.sh, /bin]\nexec:\n  allow: [$T/proj/run.sh, /usr/bin, /bin]\n" > "$T/w-script2.yaml"
err=$("$AC" check "$T/w-script2.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && [ -z "$err" ] && ok "  ... none when the interpreter is allowed" || no "check script ok" "$st $err"
printf 'files:\n  read: [/usr]\n  write: ["${CWD}"]\nexec:\n  allow: [/usr/bin]\n  libraries: [/usr/lib, "${CWD}/venv"]\n' > "$T/w-wx.yaml"
err=$(cd "$T/proj" && "$AC" check "$T/w-wx.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && case "$err" in *"exec.libraries '\${CWD}/venv' lies inside a write grant"*"gives up write-xor-execute"*) true;; *) false;; esac \
	&& ok "check warns: libraries inside a write grant give up write-xor-execute" || no "check W^X warning" "$st $err"
chmod 755 "$T/proj"
printf 'user: "65534:65534"\nfiles:\n  read: [/usr]\n  write: ["${CWD}", "${CAGE_TMP}"]\nexec:\n  allow: [/usr/bin]\n' > "$T/w-user.yaml"
err=$(cd "$T/proj" && "$AC" check "$T/w-user.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] && case "$err" in *"files.write '\${CWD}': user '65534:65534' (uid 65534) cannot write $T/proj by its permissions (owner 0:0, mode 0755)"*) true;; *) false;; esac \
	&& ok "check warns: a write grant the agent's uid cannot write (root's 0755 \${CWD})" || no "check user warning" "$st $err"
printf 'files:\n  read: [/usr]\n  write: ["${CWD}"]\nexec:\n  allow: [/usr/bin]\n' > "$T/w-nouser.yaml"
err=$(cd "$T/proj" && "$AC" check "$T/w-nouser.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && case "$err" in *"files.write '\${CWD}': the default user 'nobody' (uid 65534) cannot write $T/proj by its permissions"*) true;; *) false;; esac \
	&& ok "  ... also without user: (root's agent is nobody by default)" || no "check default user warning" "$st $err"
chmod 777 "$T/proj"
err=$(cd "$T/proj" && "$AC" check "$T/w-user.yaml" 2>&1 >/dev/null); st=$?
[ $st = 0 ] && [ -z "$err" ] && ok "  ... none once it may" || no "check user ok" "$st $err"
chmod 755 "$T/proj"
out=$(cd "$T/proj" && "$AC" check --json "$T/w-wx.yaml" "$T/w-ok.yaml" 2>/dev/null); st=$?
echo "$out" | python3 -c 'import json,sys; a,b=[json.loads(l) for l in sys.stdin]; assert a["valid"] and len(a["warnings"])==2 and "write-xor-execute" in a["warnings"][0] and "the default user '"'"'nobody'"'"' (uid 65534) cannot write" in a["warnings"][1] and b["warnings"]==[] and b["libraries"]==["/usr/lib","/lib","/lib64"], (a,b)' \
	&& [ $st = 0 ] && ok "check --json: warnings in the summary object" || no "check --json warnings" "$st $out"
out=$("$AC" --json frobnicate 2>&1); st=$?
echo "$out" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); assert e["level"]=="error" and e["code"]=="usage.invalid", e' \
	&& [ $st = 125 ] && ok "--json before the verb: an unknown verb is a JSON error (125)" || no "--json unknown verb" "$st $out"
out=$("$AC" --bogus check 2>&1); [ $? = 125 ] && case "$out" in *"--bogus"*) true;; *) false;; esac \
	&& ok "an unknown global option exits 125 naming it" || no "unknown global option" "$out"
"$AC" --help | grep -q "agentcage run" && ok "--help" || no "--help"
# the daemon: this kernel refuses BPF LSM, so it fails closed, leaving nothing
mkdir -p "$T/pol"; printf 'name: hosttest\nfiles:\n  read: [/usr]\n' > "$T/pol/a.yaml"
if [ "${probe_st:-1}" != 0 ]; then
	out=$("$AC" daemon --policy-dir "$T/pol" --socket "$T/d.sock" 2>&1); st=$?
	[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"BPF LSM"*"start each agent with 'agentcage run', which falls back to the Landlock enforcer") true;; *) false;; esac \
		&& ok "daemon exits 125 with a one-line error where BPF LSM cannot be loaded, naming what still works" || no "daemon fails closed" "$st $out"
	[ ! -e "$T/d.sock" ] && [ ! -e /sys/fs/cgroup/agentcage/hosttest ] && ok "  ... leaving no socket nor cgroup" || no "  ... leftovers"
fi
out=$("$AC" daemon --enforcer landlock --policy-dir "$T/pol" --socket "$T/d.sock" 2>&1); st=$?
[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"BPF LSM only"*"agentcage run --enforcer landlock"*) true;; *) false;; esac \
	&& [ ! -e "$T/d.sock" ] && ok "daemon --enforcer landlock: 125, one line naming BPF LSM only and the fix" || no "daemon --enforcer landlock" "$st $out"
out=$("$AC" daemon --enforcer lsm --policy-dir "$T/pol" --socket "$T/d.sock" 2>&1); st=$?
[ $st = 125 ] && case "$out" in *"auto, bpf-lsm or landlock"*) true;; *) false;; esac \
	&& ok "daemon --enforcer with a bad word: 125 naming the choices" || no "daemon bad --enforcer" "$st $out"
out=$("$AC" daemon --enforcer bpf-lsm --policy-dir "$T/none" --socket "$T/d.sock" 2>&1); st=$?
[ $st = 125 ] && case "$out" in *"$T/none"*) true;; *) false;; esac && ok "  ... bpf-lsm is taken (then the missing directory)" || no "daemon --enforcer bpf-lsm" "$st $out"
out=$("$AC" daemon --policy-dir "$T/none" --socket "$T/d.sock" 2>&1); st=$?
[ $st = 125 ] && case "$out" in *"$T/none"*) true;; *) false;; esac && ok "daemon with a missing policy dir exits 125 naming it" || no "daemon missing dir" "$st $out"
# capacities: a bad one is refused before anything is read or loaded (a good
# one passes parsing and fails on the missing directory instead)
for a in "--max-cages 15" "--max-rules x" "--max-net-rules 99999999" "--ring-buffer 3" "--ring-buffer 0" "--dns-refresh 1"; do
	out=$("$AC" daemon $a --policy-dir "$T/none" --socket "$T/d.sock" 2>&1); st=$?
	[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"${a%% *} takes"*) true;; *) false;; esac \
		&& ok "daemon $a: one-line usage error naming the range, exit 125" || no "daemon $a" "$st $out"
done
out=$("$AC" daemon --max-cages 16 --max-rules 1024 --max-net-rules 256 --ring-buffer 8 --policy-dir "$T/none" --socket "$T/d.sock" 2>&1); st=$?
[ $st = 125 ] && case "$out" in *"$T/none"*) true;; *) false;; esac && ok "  ... while capacities in range are taken (then the missing directory)" || no "daemon capacities ok" "$st $out"
for v in ls status "reload x"; do
	out=$("$AC" $v --socket "$T/none.sock" 2>&1); st=$?
	[ $st = 125 ] && [ "$(echo "$out" | wc -l)" = 1 ] && case "$out" in *"cannot reach the daemon at $T/none.sock"*) true;; *) false;; esac \
		&& ok "$v with no daemon: one-line error, exit 125" || no "$v with no daemon" "$st $out"
done
out=$(AGENTCAGE_SOCKET="$T/env.sock" "$AC" --json status 2>&1); st=$?
echo "$out" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); assert e["code"]=="daemon.unreachable" and "env.sock" in e["message"], e' \
	&& [ $st = 125 ] && ok "  ... \$AGENTCAGE_SOCKET is used, and --json gives the error as JSON" || no "status env/json" "$st $out"
python3 "$repo/tests/host/refuser.py" "$T/refuse.sock" 20 & rpid=$!
for _ in $(seq 100); do [ -e "$T/refuse.sock.ready" ] && break; sleep 0.05; done
outs=$(for _ in $(seq 20); do "$AC" ls --socket "$T/refuse.sock" 2>&1; echo "st=$?"; done | sort | uniq -c)
wait $rpid
[ "$(echo "$outs" | wc -l)" = 2 ] && case "$outs" in *"20 agentcage: error: refused by the stand-in"*"20 st=1"*) true;; *) false;; esac \
	&& ok "a daemon that replies and closes before the request is sent: its refusal is read (20 of 20)" \
	|| no "refusal before the request" "$outs"
"$AC" run --help | grep -q -- "--events FILE" && ok "run --help" || no "run --help"
man -l "$repo/man/agentcage.1" 2>/dev/null | grep -q "SIGHUP" || grep -q SIGHUP "$repo/man/agentcage.1" && ok "man page" || no "man page"
rm -rf "$T"
echo "host: $pass passed, $fail failed"
[ $fail = 0 ]
