// SPDX-License-Identifier: GPL-2.0-only
/* Shared objects across a cage's edge, for tests/vm/e2e-baseline-ipc.sh:
 * SysV shared memory, message queues and semaphores, a POSIX message queue,
 * keys and keyrings. Each attempt prints one line "NAME: ok" or
 * "NAME: ERRNO-NAME" (strerrorname_np), so one process can try many.
 *
 *   ipc attack KEY MQ SESSION
 *     outside (before): make a shm segment (SysV key KEY, "outside-shm"), a
 *     message queue (KEY+1, one message "outside-msg"), a semaphore set
 *     (KEY+2, value 5) and POSIX queue MQ (one message "outside-mq"), all
 *     mode 0666; join a new session keyring named SESSION, add a user key to
 *     it and one to the user keyring (@u), every permission to everyone
 *     (so only an LSM can refuse); use all of them (out-* lines); print the
 *     ids and serials ("ids: ..."), then "ready", and wait for SIGUSR1.
 *     The test moves the process into a cage meanwhile.
 *     inside (after SIGUSR1): the same uses again (in-* lines), then the
 *     cage's own objects (own-* lines), then "done".
 *   ipc check KEY MQ
 *     from outside: print what the objects hold: the shm text, the queued
 *     message (received), the semaphore value, the POSIX queue's message.
 *   ipc read SERIAL      print a key's payload (keyctl read)
 *   ipc uring            print the serial of the user keyring (@u)
 *   ipc clean KEY MQ     remove the objects */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEYCTL_GET_KEYRING_ID_ 0
#define KEYCTL_JOIN_SESSION_KEYRING_ 1
#define KEYCTL_DESCRIBE_ 6
#define KEYCTL_SETPERM_ 5
#define KEYCTL_READ_ 11
#define KEY_SPEC_SESSION_KEYRING_ -3
#define KEY_SPEC_USER_KEYRING_ -4
#define KEY_SPEC_USER_SESSION_KEYRING_ -5
#define KEY_ALL_PERM_ 0x3f3f3f3f

struct msgb {
	long type;
	char text[64];
};

union semun_ {
	int val;
	struct semid_ds *buf;
};

static long keyctl(int cmd, long a, long b, long c)
{
	return syscall(SYS_keyctl, cmd, a, b, c, 0);
}

static long add_key(const char *desc, const char *data, long ring)
{
	return syscall(SYS_add_key, "user", desc, data, strlen(data), ring);
}

/* one result line; r < 0: the errno's name */
static long line(const char *name, long r)
{
	if (r < 0)
		printf("%s: %s\n", name, strerrorname_np(errno));
	else
		printf("%s: ok\n", name);
	fflush(stdout);
	return r;
}

static long line_text(const char *name, long r, const char *text)
{
	if (r < 0)
		return line(name, r);
	printf("%s: ok %s\n", name, text);
	fflush(stdout);
	return r;
}

static long shm_read(int id, char *out, size_t len)
{
	char *p = shmat(id, NULL, SHM_RDONLY);

	if (p == (void *)-1)
		return -1;
	snprintf(out, len, "%s", p);
	shmdt(p);
	return 0;
}

static long key_read(long serial, char *out, size_t len)
{
	long n = keyctl(KEYCTL_READ_, serial, (long)out, len - 1);

	if (n >= 0)
		out[n < (long)len - 1 ? n : (long)len - 1] = 0;
	return n;
}

static struct {
	int shm, msg, sem;
	long ses, skey, ukey, uring;
} o;

static int make(key_t key, const char *mq, const char *session)
{
	struct msgb m = { 1, "outside-msg" };
	struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 64 };
	mqd_t q;
	char *p;

	o.shm = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0666);
	o.msg = msgget(key + 1, IPC_CREAT | IPC_EXCL | 0666);
	o.sem = semget(key + 2, 1, IPC_CREAT | IPC_EXCL | 0666);
	if (o.shm < 0 || o.msg < 0 || o.sem < 0)
		return line("make-sysv", -1), -1;
	if ((p = shmat(o.shm, NULL, 0)) == (void *)-1)
		return line("make-shmat", -1), -1;
	strcpy(p, "outside-shm");
	shmdt(p);
	if (msgsnd(o.msg, &m, strlen(m.text) + 1, IPC_NOWAIT) ||
	    semctl(o.sem, 0, SETVAL, (union semun_){ .val = 5 }))
		return line("make-msg-sem", -1), -1;
	q = mq_open(mq, O_CREAT | O_EXCL | O_WRONLY, 0666, &a);
	if (q == (mqd_t)-1 || mq_send(q, "outside-mq", 11, 0))
		return line("make-mq", -1), -1;
	mq_close(q);
	/* the user key first: possessed (through @us, the session keyring of a
	 * process without one) until the join, so its permissions can be set */
	o.ukey = add_key("ac-user", "user-secret", KEY_SPEC_USER_KEYRING_);
	o.uring = keyctl(KEYCTL_GET_KEYRING_ID_, KEY_SPEC_USER_KEYRING_, 0, 0);
	if (o.ukey < 0 || o.uring < 0 || keyctl(KEYCTL_SETPERM_, o.ukey, KEY_ALL_PERM_, 0))
		return line("make-user-key", -1), -1;
	o.ses = keyctl(KEYCTL_JOIN_SESSION_KEYRING_, (long)session, 0, 0);
	o.skey = add_key("ac-session", "session-secret", KEY_SPEC_SESSION_KEYRING_);
	if (o.ses < 0 || o.skey < 0 ||
	    keyctl(KEYCTL_SETPERM_, o.ses, KEY_ALL_PERM_, 0) ||
	    keyctl(KEYCTL_SETPERM_, o.skey, KEY_ALL_PERM_, 0))
		return line("make-session-keys", -1), -1;
	return 0;
}

/* Another process of this session joins SESSION by name: the keyring
 * found, or a new one? 0: the same, 1: another, -1 failed. */
static int join_by_name(const char *session)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		long s;

		/* first a keyring of its own: joining the one it has returns 0 */
		if (keyctl(KEYCTL_JOIN_SESSION_KEYRING_, 0, 0, 0) < 0)
			_exit(2);
		s = keyctl(KEYCTL_JOIN_SESSION_KEYRING_, (long)session, 0, 0);

		_exit(s < 0 ? 2 : s == o.ses ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 2)
		return -1;
	return WEXITSTATUS(st);
}

/* Every use of the outside objects; prefix "out" or "in" */
static void use(const char *pre, key_t key, const char *mq, const char *session)
{
	struct msgb m = { 2, "cage-msg" };
	struct sembuf up = { 0, 1, IPC_NOWAIT };
	struct shmid_ds sd;
	struct msqid_ds md;
	char n[64], buf[128];
	int j;

#define L(what, call) (snprintf(n, sizeof(n), "%s-%s", pre, what), line(n, call))
#define LT(what, call, text) (snprintf(n, sizeof(n), "%s-%s", pre, what), line_text(n, call, text))
	L("shmget", shmget(key, 0, 0));
	LT("shmat-read", shm_read(o.shm, buf, sizeof(buf)), buf);
	L("shmctl-stat", shmctl(o.shm, IPC_STAT, &sd));
	L("msgget", msgget(key + 1, 0));
	L("msgctl-stat", msgctl(o.msg, IPC_STAT, &md));
	L("semget", semget(key + 2, 0, 0));
	L("semctl-getval", semctl(o.sem, 0, GETVAL));
	L("mq-open", (long)mq_open(mq, O_RDONLY));
	L("key-describe-session", keyctl(KEYCTL_DESCRIBE_, o.ses, (long)buf, sizeof(buf)));
	LT("key-read-session-key", key_read(o.skey, buf, sizeof(buf)), buf);
	LT("key-read-user-key", key_read(o.ukey, buf, sizeof(buf)), buf);
	L("key-get-@s", keyctl(KEYCTL_GET_KEYRING_ID_, KEY_SPEC_SESSION_KEYRING_, 0, 0));
	L("key-get-@u", keyctl(KEYCTL_GET_KEYRING_ID_, KEY_SPEC_USER_KEYRING_, 0, 0));
	L("key-get-@us", keyctl(KEYCTL_GET_KEYRING_ID_, KEY_SPEC_USER_SESSION_KEYRING_, 0, 0));
	j = join_by_name(session);
	snprintf(n, sizeof(n), "%s-join-by-name", pre);
	printf("%s: %s\n", n, j == 0 ? "same" : j == 1 ? "new" : "failed");
	fflush(stdout);
	if (strcmp(pre, "in"))
		return;
	/* what changes the objects: only tried inside, where it must fail */
	L("msgsnd", msgsnd(o.msg, &m, strlen(m.text) + 1, IPC_NOWAIT));
	L("msgrcv", msgrcv(o.msg, &m, sizeof(m.text), 0, IPC_NOWAIT));
	L("semop", semop(o.sem, &up, 1));
	L("semctl-setval", semctl(o.sem, 0, SETVAL, (union semun_){ .val = 0 }));
	L("shmctl-lock", shmctl(o.shm, SHM_LOCK, NULL));
	L("shmctl-rmid", shmctl(o.shm, IPC_RMID, NULL));
	L("msgctl-rmid", msgctl(o.msg, IPC_RMID, NULL));
	L("semctl-rmid", semctl(o.sem, 0, IPC_RMID));
	L("mq-unlink", mq_unlink(mq));
	L("key-add-@u", add_key("ac-cage", "planted", KEY_SPEC_USER_KEYRING_));
	L("key-add-session", add_key("ac-cage", "planted", o.ses));
#undef L
#undef LT
}

/* The cage's own objects, made and used inside it */
static void own(key_t key, const char *session)
{
	struct msgb m = { 1, "own-msg" }, r;
	struct sembuf up = { 0, 2, IPC_NOWAIT };
	struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 64 };
	char buf[128], *p;
	long s, k;
	int id;

	id = shmget(key + 10, 4096, IPC_CREAT | IPC_EXCL | 0600);
	if (id >= 0 && (p = shmat(id, NULL, 0)) != (void *)-1) {
		strcpy(p, "own-shm");
		shmdt(p);
	}
	if (id >= 0 && shmget(key + 10, 0, 0) != id)
		id = -1;
	line_text("own-shm", id < 0 ? -1 : shm_read(id, buf, sizeof(buf)), buf);
	line("own-shm-rmid", id < 0 ? -1 : shmctl(id, IPC_RMID, NULL));
	id = msgget(IPC_PRIVATE, 0600);
	memset(&r, 0, sizeof(r));
	if (id >= 0 && (msgsnd(id, &m, strlen(m.text) + 1, 0) ||
			msgrcv(id, &r, sizeof(r.text), 0, IPC_NOWAIT) < 0))
		id = -1;
	line_text("own-msg", id, r.text);
	line("own-msg-rmid", id < 0 ? -1 : msgctl(id, IPC_RMID, NULL));
	id = semget(IPC_PRIVATE, 1, 0600);
	if (id >= 0 && (semctl(id, 0, SETVAL, (union semun_){ .val = 1 }) || semop(id, &up, 1)))
		id = -1;
	snprintf(buf, sizeof(buf), "%d", id < 0 ? -1 : semctl(id, 0, GETVAL));
	line_text("own-sem", id, buf);
	line("own-sem-rmid", id < 0 ? -1 : semctl(id, 0, IPC_RMID));
	/* a POSIX queue: the cage opens none, its own included (no path) */
	line("own-mq-open", (long)mq_open("/ac-ipc-own", O_CREAT | O_RDWR, 0600, &a));
	/* a session keyring of its own, by the outside one's name */
	s = keyctl(KEYCTL_JOIN_SESSION_KEYRING_, (long)session, 0, 0);
	line_text("own-join", s, s < 0 ? "" : s == o.ses ? "outside" : "new");
	k = add_key("ac-own", "own-secret", KEY_SPEC_SESSION_KEYRING_);
	line("own-key-add", k);
	line_text("own-key-read", k < 0 ? -1 : key_read(k, buf, sizeof(buf)), buf);
	line("own-key-get-@s", keyctl(KEYCTL_GET_KEYRING_ID_, KEY_SPEC_SESSION_KEYRING_, 0, 0));
}

static int attack(key_t key, const char *mq, const char *session)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (make(key, mq, session))
		return 1;
	use("out", key, mq, session);
	printf("ids: shm=%d msg=%d sem=%d ses=%ld skey=%ld ukey=%ld uring=%ld\nready\n",
	       o.shm, o.msg, o.sem, o.ses, o.skey, o.ukey, o.uring);
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;
	use("in", key, mq, session);
	own(key, session);
	printf("done\n");
	return 0;
}

static int check(key_t key, const char *mq)
{
	struct mq_attr a;
	struct msgb m;
	char buf[128];
	int shm = shmget(key, 0, 0), msg = msgget(key + 1, 0), sem = semget(key + 2, 0, 0);
	mqd_t q = mq_open(mq, O_RDONLY | O_NONBLOCK);

	if (shm < 0 || shm_read(shm, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "-");
	printf("shm=%s", buf);
	memset(&m, 0, sizeof(m));
	if (msg < 0 || msgrcv(msg, &m, sizeof(m.text), 0, IPC_NOWAIT) < 0)
		snprintf(m.text, sizeof(m.text), "-");
	printf(" msg=%s", m.text);
	printf(" sem=%d", sem < 0 ? -1 : semctl(sem, 0, GETVAL));
	memset(buf, 0, sizeof(buf));
	if (q == (mqd_t)-1 || mq_getattr(q, &a) || mq_receive(q, buf, 64, NULL) < 0)
		snprintf(buf, sizeof(buf), "-");
	printf(" mq=%s\n", buf);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[128];

	if (argc == 5 && !strcmp(argv[1], "attack"))
		return attack(strtol(argv[2], NULL, 0), argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(strtol(argv[2], NULL, 0), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "read")) {
		if (key_read(strtol(argv[2], NULL, 0), buf, sizeof(buf)) < 0)
			return line("read", -1), 1;
		printf("%s\n", buf);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "uring")) {
		long r = keyctl(KEYCTL_GET_KEYRING_ID_, KEY_SPEC_USER_KEYRING_, 0, 0);

		if (r < 0)
			return line("uring", -1), 1;
		printf("%ld\n", r);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "clean")) {
		key_t key = strtol(argv[2], NULL, 0);

		shmctl(shmget(key, 0, 0), IPC_RMID, NULL);
		msgctl(msgget(key + 1, 0), IPC_RMID, NULL);
		semctl(semget(key + 2, 0, 0), 0, IPC_RMID);
		mq_unlink(argv[3]);
		mq_unlink("/ac-ipc-own");
		return 0;
	}
	fprintf(stderr, "usage: ipc attack KEY MQ SESSION | check KEY MQ | read SERIAL | "
		"clean KEY MQ\n");
	return 2;
}
