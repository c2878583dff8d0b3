// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "diag.h"
#include "pty.h"

#define DRAIN_MS 200   /* at the end: quiet this long, a leftover holder is ignored */

/* the one pty whose caller's modes atexit and a fatal signal restore */
static struct pty *restore_me;

static void restore_modes(void)
{
	if (restore_me && restore_me->raw) {
		tcsetattr(0, TCSADRAIN, &restore_me->saved);
		restore_me->raw = 0;
	}
}

/* a fatal signal (SA_RESETHAND): the modes back, then its default action */
static void on_fatal(int sig)
{
	if (restore_me && restore_me->raw)
		tcsetattr(0, TCSANOW, &restore_me->saved);
	raise(sig);
}

static void catch_fatal(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
				    SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
				    SIGVTALRM, SIGPROF };
	struct sigaction sa = { .sa_handler = on_fatal, .sa_flags = SA_RESETHAND }, old;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);   /* an inherited SIG_IGN stays */
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int pty_open(struct pty *p, int disabled)
{
	static int registered;
	struct winsize ws;
	char *name;

	memset(p, 0, sizeof(*p));
	p->master = p->slave = p->term_out = p->err_r = p->err_saved = -1;
	p->stop[0] = p->stop[1] = -1;
	if (disabled || !isatty(0))
		return 0;
	for (int i = 0; i < 3; i++)
		if (isatty(i))
			p->streams |= 1u << i;
	if (tcgetattr(0, &p->saved)) {
		diag_error("cannot read the terminal's modes: %s", strerror(errno));
		return -1;
	}
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master) ||
	    !(name = ptsname(p->master)) || strlen(name) >= sizeof(p->name))
		goto fail;
	strcpy(p->name, name);
	p->slave = open(p->name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0 || tcsetattr(p->slave, TCSANOW, &p->saved))
		goto fail;
	if (!ioctl(0, TIOCGWINSZ, &ws))
		ioctl(p->slave, TIOCSWINSZ, &ws);
	/* the caller's terminal for writing: stdout, stderr, or stdin itself */
	p->term_out = fcntl(p->streams & 2 ? 1 : p->streams & 4 ? 2 : 0, F_DUPFD_CLOEXEC, 3);
	if (p->term_out < 0)
		goto fail;
	restore_me = p;
	if (!registered++)
		atexit(restore_modes);
	return 0;
fail:
	diag_error("cannot make the agent's terminal (--no-pty runs without one): %s",
		   strerror(errno));
	close_fd(&p->master);
	close_fd(&p->slave);
	return -1;
}

const char *pty_name(const struct pty *p)
{
	return p->master >= 0 ? p->name : NULL;
}

int pty_give(const struct pty *p, uid_t uid, struct ac_error *e)
{
	if (p->slave >= 0 && fchown(p->slave, uid, (gid_t)-1))
		return ac_error_set(e, AC_E_SYSTEM, "cannot give %s to uid %u: %s", p->name,
				    (unsigned)uid, strerror(errno));
	return 0;
}

int pty_child(const struct pty *p, struct ac_child_fail *f)
{
	if (p->slave < 0)
		return 0;
	if (ioctl(p->slave, TIOCSCTTY, 0))
		return ac_child_fail_set(f, "TIOCSCTTY", errno);
	for (int i = 0; i < 3; i++)
		if ((p->streams & (1u << i)) && dup2(p->slave, i) < 0)
			return ac_child_fail_set(f, "dup2 pty", errno);
	close(p->master);
	close(p->slave);
	return 0;
}

void pty_forget(struct pty *p)
{
	close_fd(&p->master);
	close_fd(&p->slave);
	close_fd(&p->term_out);
	restore_me = NULL;
}

/* all of buf to the caller's terminal; a dead terminal drops it (-1) */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EAGAIN) {
			struct pollfd w = { fd, POLLOUT, 0 };

			poll(&w, 1, -1);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* agentcage's own lines, on a raw terminal: each \n as \r\n */
static int write_lines(int fd, const char *buf, size_t len)
{
	for (const char *nl; len && (nl = memchr(buf, '\n', len)); ) {
		if (write_all(fd, buf, (size_t)(nl - buf)) || write_all(fd, "\r\n", 2))
			return -1;
		len -= (size_t)(nl - buf) + 1;
		buf = nl + 1;
	}
	return write_all(fd, buf, len);
}

struct relay {
	char in[4096];          /* typed by the caller, not yet taken by the master */
	size_t in_len, in_off;
	char err[4096];         /* agentcage's own output, up to a whole line */
	size_t err_len;
	int in_open, master_open, err_open, term_ok, stopping;
};

/* agentcage's stderr (unbuffered: a line may come in pieces) in whole
 * lines, so that the agent's output does not split them */
static void relay_err(struct pty *p, struct relay *s)
{
	ssize_t n = read(p->err_r, s->err + s->err_len, sizeof(s->err) - s->err_len);
	size_t out = 0;

	if (n > 0)
		s->err_len += (size_t)n;
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		s->err_open = 0;
	for (size_t i = 0; i < s->err_len; i++)
		if (s->err[i] == '\n')
			out = i + 1;
	if (!s->err_open || s->err_len == sizeof(s->err))
		out = s->err_len;
	if (out && s->term_ok && write_lines(p->term_out, s->err, out))
		s->term_ok = 0;
	memmove(s->err, s->err + out, s->err_len - out);
	s->err_len -= out;
}

/* One round of poll's results; the master is non-blocking, the caller's
 * terminal is not ours to change (its flags are shared with the shell). */
static void relay_round(struct pty *p, struct relay *s, const struct pollfd *fds)
{
	char buf[8192];
	ssize_t n;

	if (fds[0].revents)
		s->stopping = 1;
	if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
		n = read(p->master, buf, sizeof(buf));
		if (n > 0 && s->term_ok && write_all(p->term_out, buf, (size_t)n))
			s->term_ok = 0;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			s->master_open = s->in_open = 0;   /* EIO: every holder closed it */
	}
	if (s->master_open && (fds[1].revents & POLLOUT) && s->in_len) {
		n = write(p->master, s->in + s->in_off, s->in_len - s->in_off);
		if (n > 0 && (s->in_off += (size_t)n) == s->in_len)
			s->in_len = s->in_off = 0;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			s->in_len = s->in_off = 0;
	}
	if (fds[2].revents) {
		n = read(0, s->in, sizeof(s->in));
		if (n > 0)
			s->in_len = (size_t)n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			s->in_open = 0;               /* the caller's terminal hung up */
	}
	if (fds[3].revents)
		relay_err(p, s);
}

static void *relay(void *arg)
{
	struct pty *p = arg;
	struct relay s = { .in_open = 1, .master_open = 1, .err_open = p->err_r >= 0,
			   .term_ok = 1 };

	for (;;) {
		struct pollfd fds[4] = {
			{ s.stopping ? -1 : p->stop[0], POLLIN, 0 },
			{ s.master_open ? p->master : -1, POLLIN | (s.in_len ? POLLOUT : 0), 0 },
			{ s.in_open && !s.in_len && !s.stopping ? 0 : -1, POLLIN, 0 },
			{ s.err_open ? p->err_r : -1, POLLIN, 0 } };
		int n;

		if (s.stopping && !s.master_open && !s.err_open)
			break;
		n = poll(fds, 4, s.stopping ? DRAIN_MS : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;        /* draining and quiet */
		relay_round(p, &s, fds);
	}
	return NULL;
}

/* agentcage's stderr, when it is the raw terminal, through the relay */
static void divert_stderr(struct pty *p)
{
	int fds[2];

	if (!(p->streams & 4) || pipe2(fds, O_CLOEXEC))
		return;
	fflush(stderr);
	p->err_saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (p->err_saved < 0 || dup2(fds[1], 2) < 0) {
		close_fd(&p->err_saved);
		close(fds[0]);
	} else {
		p->err_r = fds[0];
	}
	close(fds[1]);
}

static void undivert_stderr(struct pty *p)
{
	if (p->err_saved < 0)
		return;
	fflush(stderr);
	dup2(p->err_saved, 2);    /* closes the pipe's write end: EOF for the relay */
	close_fd(&p->err_saved);
}

int pty_relay(struct pty *p)
{
	struct termios raw;

	if (p->master < 0)
		return 0;
	close_fd(&p->slave);      /* the agent holds it now: its last close is EIO here */
	if (fcntl(p->master, F_SETFL, O_NONBLOCK) || pipe2(p->stop, O_CLOEXEC)) {
		diag_error("cannot relay the agent's terminal: %s", strerror(errno));
		return -1;
	}
	catch_fatal();
	raw = p->saved;
	cfmakeraw(&raw);
	/* in the background this stops agentcage (SIGTTOU) until it is brought
	 * to the foreground, as any program that sets terminal modes */
	if (tcsetattr(0, TCSANOW, &raw)) {
		diag_error("cannot make the terminal raw: %s", strerror(errno));
		return -1;
	}
	p->raw = 1;
	divert_stderr(p);
	if ((errno = pthread_create(&p->thread, NULL, relay, p))) {
		undivert_stderr(p);
		restore_modes();
		diag_error("cannot start the terminal relay: %s", strerror(errno));
		return -1;
	}
	p->running = 1;
	return 0;
}

void pty_resize(struct pty *p)
{
	struct winsize ws;

	/* the kernel sends SIGWINCH to the agent's foreground process group */
	if (p->master >= 0 && !ioctl(0, TIOCGWINSZ, &ws))
		ioctl(p->master, TIOCSWINSZ, &ws);
}

void pty_end(struct pty *p)
{
	if (p->running) {
		undivert_stderr(p);
		if (write(p->stop[1], "", 1) < 0)
			pthread_cancel(p->thread);
		pthread_join(p->thread, NULL);
		p->running = 0;
	}
	restore_modes();
	close_fd(&p->err_r);
	close_fd(&p->stop[0]);
	close_fd(&p->stop[1]);
	close_fd(&p->term_out);
	close_fd(&p->master);
	close_fd(&p->slave);
	if (restore_me == p)
		restore_me = NULL;
}
