// SPDX-License-Identifier: GPL-2.0-only
/* Attacks for tests/vm/e2e-baseline-holes.sh, each a real system call; exit
 * 0 when the call succeeded, 1 when it failed (its errno on stderr), 2 on a
 * usage error.
 *   holes victim DIR            a target: its own process group; writes
 *                               DIR/addr (the address of a 16-byte buffer
 *                               holding "untouched"), then every 50 ms
 *                               DIR/mem (the buffer), and appends
 *                               "SIG CODE" to DIR/sig for each SIGUSR1,
 *                               SIGUSR2, SIGURG or SIGIO it gets; DIR/ready
 *                               when set up
 *   holes signal HOW PID SIG    HOW: kill, tgkill (PID's main thread),
 *                               sigqueue (rt_sigqueueinfo, SI_QUEUE),
 *                               tgsigqueue (rt_tgsigqueueinfo), pidfd
 *                               (pidfd_send_signal)
 *   holes urg PID|-PGRP|self    a TCP connection over 127.0.0.1 to itself;
 *                               F_SETOWN of the receiving socket to the
 *                               target, then one byte of urgent data
 *                               (SIGURG to the owner); prints got/none
 *                               (for self: whether SIGURG came)
 *   holes urg-hold PID DIR      the same connection, F_SETOWN to PID, but
 *                               no urgent data: the sending socket is left
 *                               at fd 100 for urg-poke, DIR/hold written,
 *                               and it waits for DIR/done (10 s at most)
 *   holes urg-poke PID FD       named "poker": take fd FD of process PID
 *                               (pidfd_getfd) and send one byte of urgent
 *                               data on it
 *   holes rtprio                raise RLIMIT_RTPRIO to 99, then SCHED_FIFO 1;
 *                               prints both results ("0 0", "EPERM EPERM")
 *   holes fown-fill PID N       F_SETOWN to itself on N descriptors, then of
 *                               a socket to PID: "refused=some|none owner=E"
 *   holes vmwrite PID ADDR TEXT process_vm_writev of TEXT (16 bytes, NUL
 *                               padded) to ADDR (hex) in PID
 *   holes pty CMD...            run CMD with each argument "PTS" replaced
 *                               by the name of a new pty's terminal
 *   holes tioclinux PATH SUB    open PATH (O_RDONLY|O_NOCTTY), TIOCLINUX SUB
 *   holes vt TTY TEXT CMD...    on the virtual console TTY (raw mode, input
 *                               flushed): clear it and write TEXT, run CMD
 *                               in a session of its own with TTY as its
 *                               standard input, then print what TTY's
 *                               input holds ("exit=N left=TEXT|-")
 *   holes vt-paste N            on fd 0: make it the controlling terminal
 *                               (TIOCSCTTY), select the first N characters
 *                               of the screen (TIOCLINUX 2, TIOCL_SETSEL)
 *                               and paste them as input (TIOCLINUX 3,
 *                               TIOCL_PASTESEL); print "typed=TEXT|-" (what
 *                               the terminal's input then holds); release
 *                               the terminal (TIOCNOTTY)
 *   holes fkey N [TEXT]         on fd 0, a virtual console: print the string
 *                               of function key N+1 (KDGKBSENT), or set it
 *                               to TEXT (KDSKBSENT)
 *   holes fsx PATH +|-FLAGS     FS_IOC_FSSETXATTR: set or clear FLAGS
 *                               (i immutable, a append, d nodump, A noatime)
 *   holes caps DIR              each capability the cage refuses, used by a
 *                               system call that needs it, in a child named
 *                               capN (N: its number); prints "N ERRNO"
 *                               (0: it worked) for each; DIR: a directory
 *                               the caller may write, on a filesystem with
 *                               inode flags and file handles (tmpfs)
 *   holes perfmon               a task-clock counter of itself that counts
 *                               in the kernel too (perf_event_paranoid 2
 *                               then asks for CAP_PERFMON); prints its ERRNO
 *   holes aa-remove NAME        write NAME to AppArmor's .remove (which
 *                               asks for CAP_MAC_ADMIN before it looks the
 *                               profile up); prints "open ERRNO" or
 *                               "write ERRNO" */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/kd.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/tiocl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int result(long r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- the target ---- */

static char victim_buf[16] = "untouched";
static int sig_fd = -1;

static void victim_handler(int sig, siginfo_t *si, void *ctx)
{
	char b[32];
	int n = 0, v[2] = { sig, si->si_code };

	(void)ctx;
	for (int k = 0; k < 2; k++) {
		char t[12];
		int m = 0;
		unsigned u = v[k] < 0 ? -v[k] : v[k];

		do
			t[m++] = '0' + u % 10;
		while ((u /= 10));
		if (v[k] < 0)
			b[n++] = '-';
		while (m)
			b[n++] = t[--m];
		b[n++] = k ? '\n' : ' ';
	}
	if (write(sig_fd, b, n) < 0)
		return;
}

static int victim(const char *dir)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGURG, SIGIO };
	struct sigaction sa;
	char p[4096];
	FILE *f;
	int mem;

	setpgid(0, 0);
	snprintf(p, sizeof(p), "%s/sig", dir);
	sig_fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(p, sizeof(p), "%s/mem", dir);
	mem = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (sig_fd < 0 || mem < 0)
		return result(-1, "open");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = victim_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	snprintf(p, sizeof(p), "%s/addr", dir);
	if (!(f = fopen(p, "w")))
		return result(-1, p);
	fprintf(f, "%lx\n", (unsigned long)victim_buf);
	fclose(f);
	snprintf(p, sizeof(p), "%s/ready", dir);
	if (!(f = fopen(p, "w")))
		return result(-1, p);
	fclose(f);
	for (;;) {
		char copy[17] = { 0 };

		memcpy(copy, (const void *)victim_buf, 16);
		if (pwrite(mem, copy, strlen(copy), 0) < 0 || ftruncate(mem, strlen(copy)))
			return result(-1, "mem");
		usleep(50000);
	}
}

/* ---- signals ---- */

static int send_signal(const char *how, int pid, int sig)
{
	siginfo_t si;
	long r;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	if (!strcmp(how, "kill"))
		r = kill(pid, sig);
	else if (!strcmp(how, "tgkill"))
		r = syscall(SYS_tgkill, pid, pid, sig);
	else if (!strcmp(how, "sigqueue"))
		r = syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
	else if (!strcmp(how, "tgsigqueue"))
		r = syscall(SYS_rt_tgsigqueueinfo, pid, pid, sig, &si);
	else if (!strcmp(how, "pidfd")) {
		int fd = syscall(SYS_pidfd_open, pid, 0);

		if (fd < 0)
			return result(-1, "pidfd_open");
		r = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	} else
		return 2;
	return result(r, how);
}

static volatile sig_atomic_t got_urg;

static void on_urg(int sig)
{
	(void)sig;
	got_urg = 1;
}

/* the connection of urg(), the receiving socket owned by owner: the sending
 * socket, or -1 */
static int urg_pair(int owner)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l, c, s;

	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || c < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &len) || connect(c, (void *)&a, sizeof(a)))
		return result(-1, "tcp"), -1;
	if ((s = accept(l, NULL, NULL)) < 0)
		return result(-1, "accept"), -1;
	if (fcntl(s, F_SETOWN, owner))
		return result(-1, "F_SETOWN"), -1;
	return c;
}

static int urg(const char *target)
{
	int c;

	signal(SIGURG, on_urg);
	c = urg_pair(strcmp(target, "self") ? atoi(target) : getpid());
	if (c < 0)
		return 1;
	if (send(c, "!", 1, MSG_OOB) != 1)
		return result(-1, "send(MSG_OOB)");
	usleep(300000);
	printf("%s\n", got_urg ? "got" : "none");
	return 0;
}

/* The delivery of urgent data set up in a cage but sent from outside it:
 * whoever runs the delivery, the setter is the author. */
static int urg_hold(int owner, const char *dir)
{
	char path[256];
	int c = urg_pair(owner), f;

	if (c < 0 || dup2(c, 100) != 100)
		return 1;
	snprintf(path, sizeof(path), "%s/hold", dir);
	if ((f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || write(f, "ready\n", 6) != 6)
		return result(-1, path);
	close(f);
	snprintf(path, sizeof(path), "%s/done", dir);
	for (int i = 0; i < 200 && access(path, F_OK); i++)
		usleep(50000);
	return 0;
}

static int urg_poke(int pid, int fd)
{
	int p, c;

	prctl(PR_SET_NAME, "poker");
	if ((p = syscall(SYS_pidfd_open, pid, 0)) < 0)
		return result(-1, "pidfd_open");
	if ((c = syscall(SYS_pidfd_getfd, p, fd, 0)) < 0)
		return result(-1, "pidfd_getfd");
	return result(send(c, "!", 1, MSG_OOB) == 1 ? 0 : -1, "send(MSG_OOB)");
}

/* Real-time scheduling without CAP_SYS_NICE: raise RLIMIT_RTPRIO (root has
 * CAP_SYS_RESOURCE), then SCHED_FIFO; prints both results, and goes back to
 * SCHED_OTHER */
static int rtprio(void)
{
	struct rlimit r = { 99, 99 };
	struct sched_param sp = { .sched_priority = 1 }, zero = { 0 };
	int a = setrlimit(RLIMIT_RTPRIO, &r) ? errno : 0, b;

	b = sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0;
	sched_setscheduler(0, SCHED_OTHER, &zero);
	printf("%s %s\n", a ? strerrorname_np(a) : "0", b ? strerrorname_np(b) : "0");
	return 0;
}

/* Fill the map of file owners: F_SETOWN to itself on N descriptors of
 * /dev/null, then F_SETOWN of a socket to PID; prints whether any of the N
 * was refused and the result of the last ("refused=some|none owner=ERR|0") */
static int fown_fill(int owner, int n)
{
	struct rlimit r = { n + 64, n + 64 };
	int fd, refused = 0, e;

	if (setrlimit(RLIMIT_NOFILE, &r))
		return result(-1, "setrlimit");
	for (int i = 0; i < n; i++) {
		if ((fd = open("/dev/null", O_RDONLY)) < 0)
			return result(-1, "open");
		if (fcntl(fd, F_SETOWN, getpid()))
			refused++;
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		return result(-1, "socket");
	e = fcntl(fd, F_SETOWN, owner) ? errno : 0;
	printf("refused=%s owner=%s\n", refused ? "some" : "none", e ? strerrorname_np(e) : "0");
	return 0;
}

/* ---- another process's memory ---- */

static int vmwrite(int pid, const char *addr, const char *text)
{
	char buf[16] = { 0 };
	struct iovec l = { buf, sizeof(buf) }, r = { (void *)strtoul(addr, NULL, 16), sizeof(buf) };

	strncpy(buf, text, sizeof(buf) - 1);
	return result(syscall(SYS_process_vm_writev, pid, &l, 1, &r, 1, 0), "process_vm_writev");
}

/* ---- terminals ---- */

static int run(char **argv, int in)
{
	int st;
	pid_t p = fork();

	if (p < 0)
		return result(-1, "fork");
	if (p == 0) {
		if (in >= 0) {
			setsid();
			dup2(in, 0);
			close(in);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) < 0)
		return result(-1, "waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int pty(char **argv)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	const char *name;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(name = ptsname(m)))
		return result(-1, "pty");
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "PTS"))
			argv[i] = strdup(name);
	return run(argv, -1);
}

static int tioclinux(const char *path, int sub)
{
	char b[8] = { (char)sub };
	int fd = open(path, O_RDONLY | O_NOCTTY);

	if (fd < 0)
		return result(-1, path);
	return result(ioctl(fd, TIOCLINUX, b), "TIOCLINUX");
}

/* what the terminal's input holds now (non-blocking), "-" for nothing */
static void input_of(int fd, const char *key)
{
	char b[256];
	int fl = fcntl(fd, F_GETFL);
	ssize_t n;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	usleep(100000);
	n = read(fd, b, sizeof(b) - 1);
	fcntl(fd, F_SETFL, fl);
	if (n < 0)
		n = 0;
	b[n] = 0;
	for (ssize_t i = 0; i < n; i++)
		if (b[i] == '\r' || b[i] == '\n')
			b[i] = ' ';
	printf("%s=%s\n", key, n ? b : "-");
	fflush(stdout);
}

static int vt(const char *tty, const char *text, char **argv)
{
	int fd = open(tty, O_RDWR | O_NOCTTY), st;
	struct termios t;

	if (fd < 0 || tcgetattr(fd, &t))
		return result(-1, tty);
	cfmakeraw(&t);
	if (tcsetattr(fd, TCSANOW, &t) || tcflush(fd, TCIFLUSH))
		return result(-1, "raw mode");
	if (dprintf(fd, "\033[H\033[2J%s", text) < 0)
		return result(-1, "write");
	st = run(argv, fd);
	printf("exit=%d\n", st);
	input_of(fd, "left");
	return 0;
}

static int vt_paste(int n)
{
	char set[1 + sizeof(struct tiocl_selection)] = { TIOCL_SETSEL };
	struct tiocl_selection sel = { 1, 1, (unsigned short)n, 1, TIOCL_SELCHAR };
	char paste[8] = { TIOCL_PASTESEL };
	int r = 0;

	signal(SIGHUP, SIG_IGN);   /* TIOCNOTTY's, to the terminal's foreground group */
	memcpy(set + 1, &sel, sizeof(sel));
	if (ioctl(0, TIOCSCTTY, 0))
		r = result(-1, "TIOCSCTTY");
	else if (ioctl(0, TIOCLINUX, set))
		r = result(-1, "TIOCLINUX TIOCL_SETSEL");
	else if (ioctl(0, TIOCLINUX, paste))
		r = result(-1, "TIOCLINUX TIOCL_PASTESEL");
	input_of(0, "typed");
	ioctl(0, TIOCNOTTY);
	return r;
}

static int fkey(int n, const char *text)
{
	struct kbsentry k;

	memset(&k, 0, sizeof(k));
	k.kb_func = n;
	if (!text) {
		if (ioctl(0, KDGKBSENT, &k))
			return result(-1, "KDGKBSENT");
		printf("%s\n", (char *)k.kb_string);
		return 0;
	}
	strncpy((char *)k.kb_string, text, sizeof(k.kb_string) - 1);
	return result(ioctl(0, KDSKBSENT, &k), "KDSKBSENT");
}

/* ---- inode flags ---- */

static int fsx(const char *path, const char *spec)
{
	struct fsxattr x;
	unsigned flags = 0;
	int fd = open(path, O_RDONLY);

	for (const char *p = spec + 1; *p; p++)
		flags |= *p == 'i' ? FS_XFLAG_IMMUTABLE : *p == 'a' ? FS_XFLAG_APPEND :
			 *p == 'd' ? FS_XFLAG_NODUMP : *p == 'A' ? FS_XFLAG_NOATIME : 0;
	if (fd < 0)
		return result(-1, path);
	if (ioctl(fd, FS_IOC_FSGETXATTR, &x))
		return result(-1, "FS_IOC_FSGETXATTR");
	if (*spec == '+')
		x.fsx_xflags |= flags;
	else
		x.fsx_xflags &= ~flags;
	return result(ioctl(fd, FS_IOC_FSSETXATTR, &x), "FS_IOC_FSSETXATTR");
}

/* ---- capabilities ---- */

static int cap_dac_read_search(const char *dir)
{
	struct { struct file_handle h; unsigned char b[MAX_HANDLE_SZ]; } fh;
	char p[4096];
	int mnt, fd, d = open(dir, O_RDONLY | O_DIRECTORY);

	snprintf(p, sizeof(p), "%s/handle", dir);
	if ((fd = open(p, O_WRONLY | O_CREAT, 0600)) < 0)
		return -1;
	close(fd);
	fh.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, p, &fh.h, &mnt, 0))
		return -1;
	fd = open_by_handle_at(d, &fh.h, O_RDONLY);
	return fd < 0 ? -1 : 0;
}

static int cap_linux_immutable(const char *dir)
{
	char p[4096];
	int fd, fl;

	snprintf(p, sizeof(p), "%s/append", dir);
	if ((fd = open(p, O_RDONLY | O_CREAT, 0600)) < 0 || ioctl(fd, FS_IOC_GETFLAGS, &fl))
		return -1;
	fl |= FS_APPEND_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &fl))
		return -1;
	fl &= ~FS_APPEND_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &fl);
}

static int cap_net_admin(void)
{
	int s = socket(AF_UNIX, SOCK_DGRAM, 0), v = 65536;

	return s < 0 ? -1 : setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v));
}

static int cap_ipc_owner(void)
{
	/* a segment of its own with mode 0: attaching it needs CAP_IPC_OWNER */
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0), e;
	void *p;

	if (id < 0)
		return -1;
	p = shmat(id, NULL, 0);
	e = errno;
	shmctl(id, IPC_RMID, NULL);
	errno = e;
	return p == (void *)-1 ? -1 : 0;
}

static int cap_sys_ptrace(void)
{
	/* kcmp with a child that runs as another uid */
	int pfd[2], r;
	char c;
	pid_t p;

	if (pipe(pfd))
		return -1;
	if ((p = fork()) == 0) {
		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(1);
		if (write(pfd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (p < 0 || read(pfd[0], &c, 1) != 1)
		return -1;
	r = syscall(SYS_kcmp, getpid(), p, 1 /* KCMP_VM */, 0, 0);
	/* 0, 1 or 2 is an answer (the order of the two mm), not a refusal */
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	return r < 0 ? -1 : 0;
}

static int cap_sys_admin(void)
{
	char h[256];

	if (gethostname(h, sizeof(h)))
		return -1;
	return sethostname(h, strlen(h));
}

static int cap_audit_control(void)
{
	/* the first write of loginuid needs nothing, a change needs the capability */
	for (int i = 0; i < 2; i++) {
		int fd = open("/proc/self/loginuid", O_WRONLY);

		if (fd < 0 || write(fd, "0", 1) != 1)
			return -1;
		close(fd);
	}
	return 0;
}

/* a task-clock counter of itself; kernel: it counts in the kernel too */
static int task_clock(int kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = !kernel;
	a.exclude_hv = !kernel;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0 ? -1 : 0;
}

static int cap_perfmon(void)
{
	return task_clock(0);
}

static int perfmon(void)
{
	printf("%s\n", task_clock(1) ? strerrorname_np(errno) : "0");
	return 0;
}

static int aa_remove(const char *name)
{
	int fd = open("/sys/kernel/security/apparmor/.remove", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("open %s\n", strerrorname_np(errno));
		return 0;
	}
	printf("write %s\n", write(fd, name, strlen(name)) < 0 ? strerrorname_np(errno) : "0");
	close(fd);
	return 0;
}

static int cap_bpf(void)
{
	union { struct { uint32_t type, key, value, max; } m; char pad[128]; } attr;

	memset(&attr, 0, sizeof(attr));
	attr.m.type = 2;   /* BPF_MAP_TYPE_ARRAY */
	attr.m.key = 4;
	attr.m.value = 4;
	attr.m.max = 1;
	return syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, &attr, sizeof(attr)) < 0 ? -1 : 0;
}

static int cap_try(int cap, const char *dir)
{
	char p[4096];

	switch (cap) {
	case 2: return cap_dac_read_search(dir);
	case 9: return cap_linux_immutable(dir);
	case 12: return cap_net_admin();
	case 13: return socket(AF_INET, SOCK_RAW, IPPROTO_UDP) < 0 ? -1 : 0;
	case 15: return cap_ipc_owner();
	case 16: return syscall(SYS_delete_module, "agentcage_no_such_module", O_NONBLOCK);
	case 17: return syscall(SYS_iopl, 3) ? -1 : syscall(SYS_iopl, 0);
	case 18: return chroot("/");
	case 19: return cap_sys_ptrace();
	case 20:   /* the host's process accounting into a file of the cage's */
		snprintf(p, sizeof(p), "%s/acct", dir);
		close(open(p, O_WRONLY | O_CREAT, 0600));
		return syscall(SYS_acct, p) ? -1 : syscall(SYS_acct, NULL);
	case 21: return cap_sys_admin();
	case 22: return syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
				LINUX_REBOOT_CMD_CAD_ON, NULL);
	case 23: return setpriority(PRIO_PROCESS, 0, -1);
	case 25: return syscall(SYS_settimeofday, NULL, NULL);
	case 27:
		snprintf(p, sizeof(p), "%s/null", dir);
		unlink(p);
		return mknod(p, S_IFCHR | 0600, makedev(1, 3));
	case 30: return cap_audit_control();
	case 34: return syscall(SYS_syslog, 9 /* SYSLOG_ACTION_SIZE_UNREAD */, NULL, 0) < 0 ? -1 : 0;
	case 35: return timerfd_create(CLOCK_BOOTTIME_ALARM, 0) < 0 ? -1 : 0;
	case 38: return cap_perfmon();
	case 39: return cap_bpf();
	}
	errno = ENOSYS;
	return -1;
}

static int caps(const char *dir)
{
	static const int list[] = { 2, 9, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27, 30, 34,
				    35, 38, 39 };

	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		int pfd[2], e = 0, st;
		pid_t p;

		if (pipe(pfd))
			return result(-1, "pipe");
		if ((p = fork()) == 0) {
			char comm[16];

			snprintf(comm, sizeof(comm), "cap%d", list[i]);
			prctl(PR_SET_NAME, comm);
			e = cap_try(list[i], dir) ? errno : 0;
			_exit(write(pfd[1], &e, sizeof(e)) == sizeof(e) ? 0 : 1);
		}
		close(pfd[1]);
		if (p < 0 || read(pfd[0], &e, sizeof(e)) != sizeof(e))
			e = -1;
		close(pfd[0]);
		waitpid(p, &st, 0);
		printf("%d %s\n", list[i], e < 0 ? "?" : e ? strerrorname_np(e) : "0");
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "victim") && argc == 3)
		return victim(argv[2]);
	if (!strcmp(cmd, "signal") && argc == 5)
		return send_signal(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(cmd, "urg") && argc == 3)
		return urg(argv[2]);
	if (!strcmp(cmd, "urg-hold") && argc == 4)
		return urg_hold(atoi(argv[2]), argv[3]);
	if (!strcmp(cmd, "urg-poke") && argc == 4)
		return urg_poke(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(cmd, "rtprio") && argc == 2)
		return rtprio();
	if (!strcmp(cmd, "fown-fill") && argc == 4)
		return fown_fill(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(cmd, "vmwrite") && argc == 5)
		return vmwrite(atoi(argv[2]), argv[3], argv[4]);
	if (!strcmp(cmd, "pty") && argc > 2)
		return pty(argv + 2);
	if (!strcmp(cmd, "tioclinux") && argc == 4)
		return tioclinux(argv[2], atoi(argv[3]));
	if (!strcmp(cmd, "vt") && argc > 4)
		return vt(argv[2], argv[3], argv + 4);
	if (!strcmp(cmd, "vt-paste") && argc == 3)
		return vt_paste(atoi(argv[2]));
	if (!strcmp(cmd, "fkey") && (argc == 3 || argc == 4))
		return fkey(atoi(argv[2]), argc == 4 ? argv[3] : NULL);
	if (!strcmp(cmd, "fsx") && argc == 4 && (argv[3][0] == '+' || argv[3][0] == '-'))
		return fsx(argv[2], argv[3]);
	if (!strcmp(cmd, "caps") && argc == 3)
		return caps(argv[2]);
	if (!strcmp(cmd, "perfmon") && argc == 2)
		return perfmon();
	if (!strcmp(cmd, "aa-remove") && argc == 3)
		return aa_remove(argv[2]);
	fprintf(stderr, "usage: see tests/vm/helpers/holes.c\n");
	return 2;
}
