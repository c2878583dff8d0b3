# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 69 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# Programs apart from libraries: exec.allow names what may run, exec.libraries
# what may only be mapped as code (sourced with lib.sh's helpers; alone:
# tests/vm/vm.sh run tests/vm/e2e-one.sh REPO tests/vm/e2e-libs.sh).
echo "# programs apart from libraries"
LD=/lib64/ld-linux-x86-64.so.2
LDR=$(readlink -f $LD)
echo hello > $T/hello
mkdir -p $T/w
# the agent's own code: built here, outside the cage, copied in by the agent
printf 'int evil(void) { return 42; }\n' > $T/evil.c
gcc -shared -fPIC -o $T/evil.so $T/evil.c || no "gcc builds the test .so"
READ="[/usr, /lib, /lib64, /etc/ld.so.cache, /dev/null, $T]"

# a program alone: its loader and libc come from the default libraries
cat > $T/cat.yaml <<Y
name: libs-cat
files:
  read: $READ
exec:
  allow: [/usr/bin/cat]
Y
out=$($AC run --user root --policy $T/cat.yaml --events $T/cat.json -- /usr/bin/cat $T/hello 2>&1); st=$?
[ $st = 0 ] && [ "$out" = hello ] && ok "exec.allow [/usr/bin/cat] alone: cat runs (the default libraries)" \
	|| no "cat with the default libraries" "status $st: $out"
# the same with no libraries at all: the kernel cannot map the loader
sed 's|allow: \[/usr/bin/cat\]|allow: [/usr/bin/cat]\n  libraries: []|' $T/cat.yaml > $T/nolib.yaml
out=$($AC run --user root --policy $T/nolib.yaml --events $T/nolib.json -- /usr/bin/cat $T/hello 2>&1); st=$?
[ $st != 0 ] && [ "${out#*hello}" = "$out" ] && ok "  ... and with libraries: [] it cannot start" \
	|| no "cat without libraries" "status $st: $out"
event "  ... the loader's mapping refused (mmap_exec)" $T/nolib.json op=mmap_exec path=$LDR action=denied
case "$out" in *"op=mmap_exec path=\"$LDR\" (add its directory to exec.libraries)"*) ok "  ... and the plain line says to add it to exec.libraries";;
	*) no "the plain line's hint" "$out";; esac

# one python driver tries each in turn and prints one line each
cat > $T/drive.py <<'PY'
import ctypes, shutil, subprocess, sys
T = sys.argv[1]
def run(name, argv):
    try:
        r = subprocess.run(argv, capture_output=True, timeout=120)
        print(name, "status", r.returncode, r.stdout.decode().strip()[:20])
    except OSError as e:
        print(name, "refused", e.errno)
def load(name, path):
    try:
        lib = ctypes.CDLL(path)
        print(name, "loaded", lib.evil() if name == "own-so" else "")
    except OSError as e:
        print(name, "refused")
run("cat", ["/usr/bin/cat", T + "/hello"])
run("ld-id", ["/lib64/ld-linux-x86-64.so.2", "/usr/bin/id"])
run("ld-cat", ["/lib64/ld-linux-x86-64.so.2", "/usr/bin/cat", T + "/hello"])
run("id", ["/usr/bin/id"])
shutil.copy(T + "/evil.so", T + "/w/evil.so")
load("libm", "libm.so.6")
load("own-so", T + "/w/evil.so")
PY
line() { echo "$out" | grep "^$1 " | head -1; }

# libraries by default; the loader is a library, never a program
cat > $T/py.yaml <<Y
name: libs-py
files:
  read: $READ
  write: [$T/w]
exec:
  allow: [/usr/bin/python3, /usr/bin/cat]
Y
out=$($AC run --user root --policy $T/py.yaml --events $T/py.json -- /usr/bin/python3 $T/drive.py $T 2>/dev/null)
[ "$(line cat)" = "cat status 0 hello" ] && ok "python3 runs cat (both programs)" || no "cat from python" "$out"
[ "$(line ld-id)" = "ld-id refused 1" ] && ok "the loader run on a denied program is refused (EPERM)" \
	|| no "ld.so /usr/bin/id" "$out"
event "  ... as exec of the loader: a library is no program" $T/py.json op=exec path=$LDR action=denied comm=python3
[ "$(line ld-cat)" = "ld-cat refused 1" ] && ok "  ... even on an allowed program" || no "ld.so /usr/bin/cat" "$out"
[ "$(line id)" = "id refused 1" ] && ok "  ... and id itself is refused" || no "id" "$out"
[ "$(line libm)" = "libm loaded " ] && ok "ctypes loads a system library (libm)" || no "libm" "$out"
[ "$(line own-so)" = "own-so refused" ] && ok "ctypes cannot load a .so the agent wrote" || no "own .so" "$out"
event "  ... reported as mmap_exec of it" $T/py.json op=mmap_exec path=$T/w/evil.so action=denied
cmp -s $T/evil.so $T/w/evil.so && ok "  ... which the agent did write" || no "the agent's copy of the .so"

# the loader as a program, and the agent's directory as libraries: the
# loader still cannot map a program that is neither, and the .so loads
cat > $T/py2.yaml <<Y
name: libs-py2
files:
  read: $READ
  write: [$T/w]
exec:
  allow: [/usr/bin/python3, /usr/bin/cat, $LD]
  libraries: [/usr/lib, /lib, /lib64, $T/w]
Y
rm -f $T/w/evil.so
out=$($AC run --user root --policy $T/py2.yaml --events $T/py2.json -- /usr/bin/python3 $T/drive.py $T 2>/dev/null)
case "$(line ld-id)" in "ld-id status 0"*|"ld-id refused"*) no "ld.so maps /usr/bin/id" "$out";;
	"ld-id status "*) ok "the loader as a program cannot map a denied program";; *) no "ld.so /usr/bin/id" "$out";; esac
event "  ... reported as mmap_exec of /usr/bin/id" $T/py2.json op=mmap_exec path=/usr/bin/id action=denied
[ "$(line ld-cat)" = "ld-cat status 0 hello" ] && ok "  ... while it runs an allowed one (cat)" || no "ld.so cat" "$out"
[ "$(line own-so)" = "own-so loaded 42" ] && ok "the agent's .so loads where exec.libraries grants its directory" \
	|| no "own .so with libraries" "$out"
python3 $EV $T/py2.json --none path=$T/w/evil.so && ok "  ... without an event" || no "no event for the granted .so"

# python-runner: python3 and nothing else
mkdir -p /tmp/agent-work
out=$(cd /tmp/agent-work && $AC run --user root --policy $repo/policies/python-runner.yaml --events $T/pr.json -- \
	/usr/bin/python3 -c '
import ctypes, subprocess, sys
print(sum(i * i for i in range(10)), ctypes.CDLL("libc.so.6").abs(-3))
for argv in (["/bin/sh", "-c", "true"], [sys.executable, "-c", "print(7)"], ["/lib64/ld-linux-x86-64.so.2", "/bin/sh"]):
    try:
        print(argv[0], subprocess.run(argv, capture_output=True).stdout.decode().strip())
    except OSError as e:
        print(argv[0], "refused", e.errno)
' 2>/dev/null)
echo "$out" | grep -qx "285 3" && ok "python-runner: python3 runs, with its C libraries" || no "python-runner python3" "$out"
echo "$out" | grep -qx "/bin/sh refused 1" && ok "  ... a shell does not" || no "python-runner sh" "$out"
event "  ... reported as exec of /usr/bin/dash" $T/pr.json op=exec path=/usr/bin/dash action=denied
echo "$out" | grep -qx "/usr/bin/python3 7" && ok "  ... python3 runs python3" || no "python-runner python3 child" "$out"
echo "$out" | grep -qx "/lib64/ld-linux-x86-64.so.2 refused 1" && ok "  ... nor the loader on the shell" \
	|| no "python-runner ld.so" "$out"
