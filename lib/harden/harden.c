// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "harden/harden.h"

int ac_child_fail_set(struct ac_child_fail *f, const char *step, int err)
{
	size_t i;

	if (!f)
		return -1;
	for (i = 0; step[i] && i + 1 < sizeof(f->step); i++)
		f->step[i] = step[i];
	f->step[i] = 0;
	f->err = err;
	return -1;
}

int ac_child_fail_error(const struct ac_child_fail *f, struct ac_error *e)
{
	if (f->err)
		return ac_error_set(e, AC_E_SYSTEM, "preparing the agent's process: %.*s: %s",
				    (int)sizeof(f->step), f->step, strerror(f->err));
	return ac_error_set(e, AC_E_SYSTEM, "preparing the agent's process: %.*s",
			    (int)sizeof(f->step), f->step);
}
