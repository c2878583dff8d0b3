// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "kernel/loader.h"

/* ids count from 1 (0 is no policy) and are never given out twice */
Test(policy_ids, unique_from_one)
{
	struct loader l;
	uint32_t id, prev = 0;

	memset(&l, 0, sizeof(l));   /* as loader_open leaves it */
	for (int i = 0; i < 10000; i++) {
		cr_assert_eq(loader_new_policy_id(&l, &id), 0);
		cr_assert_gt(id, prev);
		prev = id;
	}
	cr_assert_eq(prev, 10000);
}

/* the directory cache remembers ids: after the last one there is none, no wrap to 1 */
Test(policy_ids, no_wrap_around)
{
	struct loader l;
	uint32_t id = 0;

	memset(&l, 0, sizeof(l));
	l.last_policy_id = UINT32_MAX - 2;
	cr_assert_eq(loader_new_policy_id(&l, &id), 0);
	cr_assert_eq(id, UINT32_MAX - 1);
	cr_assert_eq(loader_new_policy_id(&l, &id), 0);
	cr_assert_eq(id, UINT32_MAX);
	id = 7;
	cr_assert_eq(loader_new_policy_id(&l, &id), -1);
	cr_assert_eq(id, 7);
	cr_assert_eq(loader_new_policy_id(&l, &id), -1);
}
