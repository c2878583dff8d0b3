// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "harden/fds.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* close [lo, hi]; 0 or -1 with errno */
static int close_span(unsigned lo, unsigned hi)
{
	struct rlimit rl;

	if (lo > hi)
		return 0;
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	/* before 5.9: every number below the hard limit (capped at 2^20) */
	for (unsigned long fd = lo; fd <= hi && fd < rl.rlim_max && fd < (1UL << 20); fd++)
		close(fd);
	return 0;
}

int ac_fds_close(int keep, struct ac_child_fail *f)
{
	int ret;

	if (keep < 3)
		ret = close_span(3, ~0U);
	else
		ret = close_span(3, keep - 1) || close_span(keep + 1, ~0U);
	if (ret)
		return ac_child_fail_set(f, "close_range", errno);
	return 0;
}
