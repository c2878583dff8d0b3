# SPDX-License-Identifier: GPL-2.0-only
# vm-cost: 40 (s in a one-CPU guest, two guests on a 2-core host; vm.sh balances by it)
# The kernel baseline, shared objects: a caged task reaches no SysV IPC
# object, POSIX message queue, key or keyring made outside its cage, and the
# cage's own objects work. The kernel must hold whatever the launch did, so
# the attacker is one process that shares everything with the outside (IPC
# namespace, session keyring, root with every capability): $H/ipc makes the
# objects and uses them outside the cage, the test moves it into a running
# cage, and it tries the same uses again, then the cage's own objects, one
# line each. Sourced by e2e.sh and e2e-one.sh.
X=$H/ipc
cat > $T/ipc.yaml <<Y
user: root
name: ipc
files:
  read: [/usr, /lib, /lib64, /etc, /bin, $H]
  write: [$T]
exec:
  allow: [/usr/bin, /bin, /usr/lib, /lib, /lib64, $H]
Y
K=$((0x4a430000 + $$ % 4096 * 16))   # SysV keys K..K+2 (and K+10 in the cage)
MQ=/ac-ipc-$$
SES=ac-ipc-session-$$

echo "# shared objects: SysV IPC, POSIX queues and keys made outside a cage"
$AC run --policy $T/ipc.yaml --events $T/ipc.json -- /bin/sh -c \
	"while [ ! -e $T/stop ]; do sleep 0.2; done" > $T/run.out 2>&1 &
apid=$!
$X attack $K $MQ $SES > $T/att.out 2>&1 &
xpid=$!
started $T/att.out; for _ in $(seq 100); do grep -q '^ready' $T/att.out && break; sleep 0.1; done
cg=
for _ in $(seq 600); do   # the cage's first task (the load takes ~10 s under TCG)
	cg=$(grep -l . /sys/fs/cgroup/agentcage/ipc-*/cgroup.procs 2>/dev/null | head -n 1)
	[ -n "$cg" ] && break; sleep 0.1
done
cg=${cg%/cgroup.procs}
if [ -n "$cg" ] && grep -q '^ready' $T/att.out && echo $xpid > $cg/cgroup.procs; then
	ok "the attacker, made outside, is moved into the cage ($(cut -d: -f3 /proc/$xpid/cgroup))"
else
	no "the attacker, made outside, is moved into the cage" "cg=$cg $(cat $T/att.out $T/run.out)"
fi
kill -USR1 $xpid
for _ in $(seq 300); do grep -q '^done' $T/att.out && break; sleep 0.1; done
wait $xpid
out=$(cat $T/att.out)
# v NAME: the result of line NAME
v() { sed -n "s/^$1: //p" $T/att.out; }
ids=$(sed -n 's/^ids: //p' $T/att.out)
for kv in $ids; do eval "id_${kv%%=*}=${kv#*=}"; done
[ -n "${id_shm:-}" ] && [ -n "${id_ukey:-}" ] && ok "outside, the objects are made ($ids)" \
	|| no "outside, the objects are made" "$out"

# same NAME...: each use works outside and is refused inside (EACCES or EPERM;
# keyctl turns some refused lookups into ENOKEY: the events show the refusal)
same() { local n bad=; for n; do case "$(v out-$n) / $(v in-$n)" in
	"ok"*" / EACCES"|"ok"*" / EPERM"|"ok"*" / ENOKEY") ;; *) bad="$bad $n=[$(v out-$n) / $(v in-$n)]";; esac; done
	[ -z "$bad" ] && return 0; echo "$bad"; return 1; }
r=$(same shmget shmat-read shmctl-stat) && ok "shm: shmget of its key, shmat and IPC_STAT work outside, refused in the cage" \
	|| no "shm: shmget of its key, shmat and IPC_STAT work outside, refused in the cage" "$r"
[ "$(v out-shmat-read)" = "ok outside-shm" ] && ok "  ... outside, shmat reads the segment" || no "  ... outside, shmat reads the segment" "$(v out-shmat-read)"
r=$(same msgget msgctl-stat) && ok "msg: msgget of its key and IPC_STAT work outside, refused in the cage" \
	|| no "msg: msgget of its key and IPC_STAT work outside, refused in the cage" "$r"
r=$(same semget semctl-getval) && ok "sem: semget of its key and GETVAL work outside, refused in the cage" \
	|| no "sem: semget of its key and GETVAL work outside, refused in the cage" "$r"
refused() { local n bad=; for n; do case "$(v in-$n)" in EACCES|EPERM|ENOKEY) ;; *) bad="$bad $n=[$(v in-$n)]";; esac; done
	[ -z "$bad" ] && return 0; echo "$bad"; return 1; }
r=$(refused msgsnd msgrcv semop semctl-setval shmctl-lock shmctl-rmid msgctl-rmid semctl-rmid) &&
	ok "in the cage, msgsnd, msgrcv, semop, SETVAL, SHM_LOCK and IPC_RMID of each are refused" ||
	no "in the cage, msgsnd, msgrcv, semop, SETVAL, SHM_LOCK and IPC_RMID of each are refused" "$r"
event "  ... reported as ipc with the shm id" $T/ipc.json op=ipc arg=$id_shm comm=ipc action=denied
event "  ... the message queue's id" $T/ipc.json op=ipc arg=$id_msg comm=ipc action=denied
event "  ... the semaphore set's id" $T/ipc.json op=ipc arg=$id_sem comm=ipc action=denied
r=$(same mq-open) && ok "POSIX queue: mq_open works outside, refused in the cage" \
	|| no "POSIX queue: mq_open works outside, refused in the cage" "$r"
event "  ... reported as an unresolved open" $T/ipc.json "op~=open_read|open_write" unresolved=True comm=ipc action=denied
r=$(refused mq-unlink) && ok "  ... and mq_unlink of it is refused in the cage" || no "  ... and mq_unlink of it is refused in the cage" "$r"
event "  ... reported as ipc" $T/ipc.json op=ipc arg=None comm=ipc action=denied
out=$($X check $K $MQ 2>&1)
[ "$out" = "shm=outside-shm msg=outside-msg sem=5 mq=outside-mq" ] &&
	ok "outside again, every object is untouched: the segment's text, the message still queued, the value, the queue" ||
	no "outside again, every object is untouched" "$out"

r=$(same key-describe-session key-read-session-key key-get-@s) &&
	ok "keys: the inherited session keyring and its key work outside, refused in the cage" ||
	no "keys: the inherited session keyring and its key work outside, refused in the cage" "$r"
r=$(same key-read-user-key key-get-@u key-get-@us) &&
	ok "keys: root's user keyring (@u, @us) and its key work outside, refused in the cage" ||
	no "keys: root's user keyring (@u, @us) and its key work outside, refused in the cage" "$r"
[ "$(v out-key-read-user-key)" = "ok user-secret" ] && [ "$(v out-key-read-session-key)" = "ok session-secret" ] &&
	ok "  ... outside, the keys read their secrets" || no "  ... outside, the keys read their secrets" "$out"
r=$(refused key-add-@u key-add-session) && ok "in the cage, add_key to either keyring is refused" \
	|| no "in the cage, add_key to either keyring is refused" "$r"
case "$(v out-join-by-name) / $(v in-join-by-name)" in
	"same / new") ok "joining the session keyring by name finds it outside, makes a new one in the cage";;
	*) no "joining the session keyring by name finds it outside, makes a new one in the cage" "$(v out-join-by-name) / $(v in-join-by-name)";; esac
event "  ... reported as keyring with the key's serial" $T/ipc.json op=keyring arg=$id_ukey comm=ipc action=denied
event "  ... and the session keyring's" $T/ipc.json op=keyring arg=$id_ses comm=ipc action=denied
out=$($X read $id_ukey 2>&1)
[ "$out" = user-secret ] && ok "outside again, the user key is unchanged" || no "outside again, the user key is unchanged" "$out"
out=$($X uring 2>&1)
[ "$out" = "$id_uring" ] && ok "  ... and root's user keyring is still the one made outside ($out)" \
	|| no "  ... and root's user keyring is still the one made outside" "$out, was $id_uring"

[ "$(v own-shm)" = "ok own-shm" ] && [ "$(v own-shm-rmid)" = ok ] &&
	ok "the cage's own shm segment works: created by key, found again, attached, removed" ||
	no "the cage's own shm segment works" "$(v own-shm) / $(v own-shm-rmid)"
[ "$(v own-msg)" = "ok own-msg" ] && [ "$(v own-msg-rmid)" = ok ] && ok "its own message queue: sent, received, removed" \
	|| no "its own message queue: sent, received, removed" "$(v own-msg) / $(v own-msg-rmid)"
[ "$(v own-sem)" = "ok 3" ] && [ "$(v own-sem-rmid)" = ok ] && ok "its own semaphore set: set, semop, read, removed" \
	|| no "its own semaphore set: set, semop, read, removed" "$(v own-sem) / $(v own-sem-rmid)"
[ "$(v own-join)" = "ok new" ] && [ "$(v own-key-add)" = ok ] && [ "$(v own-key-read)" = "ok own-secret" ] &&
	[ "$(v own-key-get-@s)" = ok ] && ok "its own session keyring and a key it adds there work" ||
	no "its own session keyring and a key it adds there work" "$(v own-join) / $(v own-key-add) / $(v own-key-read) / $(v own-key-get-@s)"
case "$(v own-mq-open)" in EACCES|EPERM) ok "a POSIX queue of its own cannot be opened either (no path in its namespace)";;
	*) no "a POSIX queue of its own cannot be opened either" "$(v own-mq-open)";; esac

touch $T/stop; wait $apid
$X clean $K $MQ
