# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 39 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# File patterns decided in the kernel at each access, on the resolved
# path: for each form, a file created after the cage started and a file
# renamed into a matching place are refused, and a near-miss name beside
# it is allowed, in enforce and in audit mode; a directory rename that
# would carry names out of a pattern is refused beside one that would not;
# hard links, symlinks and O_PATH reopens reach no matching file; an
# exec pattern lets a program run and not its neighbour; a reload that
# adds a pattern holds at the next open. Sourced by e2e.sh and e2e-one.sh.
suite_daemon
echo "# file patterns"
D=$T/pat; mkdir -p $D
W=/run/pat/w; rm -rf /run/pat; mkdir -p $W/proj/src $W/home/u
cat > $D/p.yaml <<Y
user: root
name: patterns
files:
  read: [/usr, /lib, /lib64, /bin, /etc, /proc, '$W/proj/a/secrets/public']
  write: [$W, $T, /dev/null]
  deny: ['**/.env', '**/*.pem', '**/.git/hooks/', '$W/proj/**/secrets/', '$W/home/*/.ssh/', '$W/proj/**/vault/*.key']
exec:
  allow: [/usr/bin, /bin, /usr/lib, '$W/proj/**/node_modules/.bin/*']
Y
pc() { local ev=$1; shift; $AC run --policy $D/p.yaml --events $D/$ev -- "$@"; }
# one agent: creates each name after its cage started and reads it back;
# prints "NAME ok" or "NAME refused" per name, in order
cat > $D/touch.sh <<'S'
for f in "$@"; do
	mkdir -p "$(dirname "$f")" 2>/dev/null
	if echo x > "$f" 2>/dev/null && cat "$f" >/dev/null 2>&1; then echo "$f ok"; else echo "$f refused"; fi
done
S
names="$W/proj/.env $W/proj/.envrc $W/proj/src/deep/.env $W/proj/src/x.env
$W/proj/key.pem $W/proj/key.pem.txt $W/proj/r/.git/hooks/pre-commit $W/proj/r/.git/config
$W/proj/a/b/secrets/t $W/proj/a/b/secret/t $W/home/u/.ssh/id $W/home/u/ssh/id
$W/proj/vault/a.key $W/proj/vault/a.txt"
want="refused ok refused ok refused ok refused ok refused ok refused ok refused ok"
out=$(pc c.json /bin/sh $D/touch.sh $names 2>/dev/null | awk '{print $2}' | tr '\n' ' ')
[ "$out" = "$want " ] && ok "in a cage, files created after start: each pattern form refused, its near miss allowed" \
	|| no "each pattern form refused, its near miss allowed" "got: $out"
event "  ... reported with the created path, naming the pattern" $D/c.json op=create path=$W/proj/src/deep/.env action=denied 'rule=files.deny: **/.env'
event "  ... the .pem one too" $D/c.json path=$W/proj/key.pem action=denied 'rule=files.deny: **/*.pem'
event "  ... a ~/.ssh one names its pattern as written" $D/c.json "path~=$W/home/u/\.ssh(/id)?" action=denied "rule=files.deny: $W/home/*/.ssh/"
for f in $names; do rm -rf "$f"; done

echo "## renamed into a matching place"
mkdir -p $W/proj/src $W/proj/a/b/secrets; echo v > $W/proj/src/plain
expect "in a cage, renaming a file to a .env name is refused" 1 pc r.json /bin/mv $W/proj/src/plain $W/proj/src/.env
event "  ... reported as rename" $D/r.json op=rename path=$W/proj/src/.env action=denied
expect "  ... renaming it into a secrets directory is refused" 1 pc r.json /bin/mv $W/proj/src/plain $W/proj/a/b/secrets/plain
expect "  ... renaming it to a near-miss name works" 0 pc r.json /bin/mv $W/proj/src/plain $W/proj/src/.env.example
[ -f $W/proj/src/.env.example ] && ok "  ... (it moved)" || no "  ... (it moved)" "$(ls -a $W/proj/src)"
echo K > $W/proj/vault/k.key 2>/dev/null || { mkdir -p $W/proj/vault; echo K > $W/proj/vault/k.key; }
expect "outside a cage, the key exists and reads" 0 cat $W/proj/vault/k.key
expect "in a cage, the key in a vault directory is refused" 1 pc v.json /bin/cat $W/proj/vault/k.key
expect "  ... and renaming the vault directory (the key would leave the pattern) is refused" 1 pc v.json /bin/mv $W/proj/vault $W/proj/open
[ -f $W/proj/vault/k.key ] && ok "  ... the key stays where the pattern is" || no "  ... the key stays" "$(ls $W/proj)"
mkdir -p $W/proj/d1/sub; echo x > $W/proj/d1/sub/.env
expect "  ... renaming a directory holding a .env works (the pattern holds at any depth)" 0 pc v.json /bin/mv $W/proj/d1 $W/proj/d2
expect "  ... and the moved .env is still refused" 1 pc v.json /bin/cat $W/proj/d2/sub/.env

echo "## other routes to a matching file"
mkdir -p $W/proj/o; echo S > $W/proj/o/.env; echo P > $W/proj/o/plain
expect "in a cage, a hard link to the .env under a plain name is refused" 1 pc o.json /bin/ln $W/proj/o/.env $W/proj/o/alias
expect "  ... a hard link to the plain file works" 0 pc o.json /bin/ln $W/proj/o/plain $W/proj/o/alias2
expect "in a cage, a symlink to the .env opens nothing (the kernel checks the resolved path)" 1 pc o.json /bin/sh -c "ln -s $W/proj/o/.env $W/proj/o/sl && cat $W/proj/o/sl"
expect "  ... a symlink to the plain file reads" 0 pc o.json /bin/sh -c "ln -s $W/proj/o/plain $W/proj/o/sl2 && cat $W/proj/o/sl2"
cat > $D/opath.py <<'P'
import os, sys
fd = os.open(sys.argv[1], os.O_PATH)
try:
    os.close(os.open("/proc/self/fd/%d" % fd, os.O_RDONLY)); print("read")
except OSError as e:
    print(type(e).__name__)
P
out=$(pc o.json python3 $D/opath.py $W/proj/o/.env 2>/dev/null)
[ "$out" = PermissionError ] && ok "in a cage, reopening an O_PATH descriptor of the .env is refused" || no "O_PATH reopen of the .env refused" "$out"
out=$(pc o.json python3 $D/opath.py $W/proj/o/plain 2>/dev/null)
[ "$out" = read ] && ok "  ... the same reopen of the plain file works" || no "  ... O_PATH reopen of the plain file works" "$out"

echo "## exec patterns"
mkdir -p $W/proj/app/node_modules/.bin; cp /usr/bin/id $W/proj/app/node_modules/.bin/tool; cp /usr/bin/id $W/proj/app/node_modules/tool
expect "in a cage, a program matching the exec pattern runs" 0 pc x.json /bin/sh -c $W/proj/app/node_modules/.bin/tool
expect "  ... its neighbour outside the pattern does not" 126 pc x.json /bin/sh -c $W/proj/app/node_modules/tool
event "  ... reported as exec, refused by the default deny" $D/x.json op=exec path=$W/proj/app/node_modules/tool action=denied rule=default-deny

echo "## audit mode"
out=$($AC run --policy $D/p.yaml --mode audit --events $D/a.json -- /bin/sh $D/touch.sh $W/proj/q/.env $W/proj/q/.envx 2>/dev/null | awk '{print $2}' | tr '\n' ' ')
[ "$out" = "ok ok " ] && ok "in audit mode, a .env created after start is let through" || no "audit lets it through" "$out"
event "  ... and reported as audited, naming the pattern" $D/a.json op=create path=$W/proj/q/.env action=audited 'rule=files.deny: **/.env'
python3 "$EV" $D/a.json path=$W/proj/q/.envx >/dev/null 2>&1 && no "  ... the near miss is not reported" "reported" || ok "  ... the near miss is not reported"

echo "## a reload that adds a pattern"
sed "s|deny: \['\*\*/.env',|deny: [|" $D/p.yaml > $D/live.yaml
echo data > $W/proj/src/cred.json
cat > $D/loop.sh <<S
for i in \$(seq 1 200); do
	if cat $W/proj/src/cred.json >/dev/null 2>&1; then echo allowed; else echo denied; fi
	sleep 0.1
done
S
$AC run --policy $D/live.yaml -- /bin/sh $D/loop.sh > $D/loop.out 2> $D/loop.err & cage=$!
started $D/loop.out; sleep 1
sed "s|deny: \[|deny: ['**/cred.json', |" $D/live.yaml > $D/live2.yaml; cp $D/live2.yaml $D/live.yaml
kill -HUP $cage; sleep 3
kill -TERM $cage; wait $cage
seq=$(uniq $D/loop.out | tr '\n' ' ')
[ "$seq" = "allowed denied " ] && ok "a reload adding **/cred.json refuses the next open, with no gap" || no "a reload adding a pattern" "$seq $(tail -n3 $D/loop.err)"

echo "## explain agrees with the kernel"
for p in $W/proj/src/deep/.env $W/proj/src/x.env $W/proj/vault/a.key $W/proj/a/secrets/public/f $W/proj/a/secrets/f; do
	mkdir -p $(dirname $p); echo x > $p
	$AC check --explain $D/p.yaml $p --op read >/dev/null 2>&1; e=$?
	pc e.json /bin/cat $p >/dev/null 2>&1; k=$?
	if { [ $e = 0 ] && [ $k = 0 ]; } || { [ $e = 2 ] && [ $k != 0 ]; }; then ok "check --explain and the kernel agree on $p"
	else no "check --explain and the kernel agree on $p" "explain $e, kernel $k"; fi
done
rm -rf /run/pat
