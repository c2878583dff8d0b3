// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include "kernel/lsm.h"

#define LSM_FILE "/sys/kernel/security/lsm"

int lsm_bpf_active(char *err, size_t errlen)
{
	static int cached = 1;   /* 1: not asked yet */
	static char why[1024];
	char list[512] = "", shown[512];
	FILE *f;

	if (cached != 1)
		goto out;
	if (!(f = fopen(LSM_FILE, "re"))) {
		mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
		f = fopen(LSM_FILE, "re");
	}
	if (!f) {
		snprintf(why, sizeof(why), "cannot read %s (%s): mount securityfs with "
			 "'mount -t securityfs securityfs /sys/kernel/security'", LSM_FILE, strerror(errno));
		cached = -1;
		goto out;
	}
	if (!fgets(list, sizeof(list), f))
		list[0] = 0;
	fclose(f);
	list[strcspn(list, "\n")] = 0;
	snprintf(shown, sizeof(shown), "%s", list);
	cached = 0;
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
		if (!strcmp(t, "bpf"))
			goto out;
	snprintf(why, sizeof(why), "BPF LSM is not active (active LSMs: %s); boot with "
		 "lsm=...,bpf on the kernel command line and CONFIG_BPF_LSM=y", shown[0] ? shown : "none");
	cached = -1;
out:
	if (cached)
		snprintf(err, errlen, "%s", why);
	return cached ? -1 : 0;
}
