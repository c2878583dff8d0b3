// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cage.skel.h"
#include "net.skel.h"
#include "kernel/pin.h"
#include "util/fsutil.h"

/* the first bpffs in /proc/self/mountinfo */
static int find_bpffs(char *mnt, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], point[PATH_MAX], *sep;
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (!(sep = strstr(line, " - ")) || strncmp(sep + 3, "bpf ", 4))
			continue;
		if (sscanf(line, "%*d %*d %*s %*s %4095s", point) == 1 && strlen(point) < len) {
			memcpy(mnt, point, strlen(point) + 1);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

static int mkdir_private(const char *dir, struct ac_error *e)
{
	if (mkdir(dir, 0700) && errno != EEXIST)
		return ac_error_set(e, AC_E_KERNEL_ATTACH, "cannot create %s: %s", dir,
				    strerror(errno));
	if (chmod(dir, 0700))
		return ac_error_set(e, AC_E_KERNEL_ATTACH, "cannot make %s private: %s", dir,
				    strerror(errno));
	return 0;
}

int pin_root(char *path, size_t len, struct ac_error *e)
{
	char mnt[PATH_MAX / 2];

	if (find_bpffs(mnt, sizeof(mnt))) {
		snprintf(mnt, sizeof(mnt), "/sys/fs/bpf");
		if (mount("bpf", mnt, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700"))
			return ac_error_set(e, AC_E_KERNEL_ATTACH, "no bpffs is mounted and mounting "
					    "one at %s failed: %s; mount it with 'mount -t bpf bpf "
					    "/sys/fs/bpf'", mnt, strerror(errno));
	}
	snprintf(path, len, "%s/agentcage", mnt);
	return mkdir_private(path, e);
}

static int pin_link(struct bpf_link *link, const char *dir, const char *name,
		    struct ac_error *e)
{
	char p[PATH_MAX];

	if (!link)
		return 0;     /* not loaded on this kernel (a hook it lacks) */
	snprintf(p, sizeof(p), "%s/link-%s", dir, name);
	if (bpf_link__pin(link, p))
		return ac_error_set(e, AC_E_KERNEL_ATTACH, "cannot pin %s: %s", p, strerror(errno));
	return 0;
}

static int pin_skeleton(const struct bpf_object_skeleton *s, const char *dir, struct ac_error *e)
{
	for (int i = 0; i < s->prog_cnt; i++)
		if (pin_link(*s->progs[i].link, dir, s->progs[i].name, e))
			return -1;
	return 0;
}

static int pin_maps(struct bpf_object *obj, const char *dir, struct ac_error *e)
{
	struct bpf_map *m;
	char p[PATH_MAX];

	bpf_object__for_each_map(m, obj) {
		/* .rodata, .bss, .kconfig: the object's own variables, not state
		 * anyone reads (and frozen .rodata cannot be pinned) */
		if (strchr(bpf_map__name(m), '.'))
			continue;
		snprintf(p, sizeof(p), "%s/map-%s", dir, bpf_map__name(m));
		if (access(p, F_OK) == 0)
			continue;    /* shared between the two objects: pinned once */
		if (bpf_obj_pin(bpf_map__fd(m), p))
			return ac_error_set(e, AC_E_KERNEL_ATTACH, "cannot pin %s: %s", p,
					    strerror(errno));
	}
	return 0;
}

int pin_loader(struct loader *l, const char *dir, struct ac_error *e)
{
	if (mkdir_private(dir, e))
		return -1;
	if (l->skel && (pin_skeleton(l->skel->skeleton, dir, e) || pin_maps(l->skel->obj, dir, e)))
		return -1;
	if (l->skel && pin_skeleton(l->net->skeleton, dir, e))
		return -1;
	return pin_maps(l->net->obj, dir, e);
}

/* the sock_addr links, in struct cage_links' order */
static const char *const addr_link_name[LOADER_ADDR_PROGS] = {
	"connect4", "connect6", "sendmsg4", "sendmsg6", "bind4", "bind6" };

int pin_cage_links(const struct cage_links *cl, const char *dir, struct ac_error *e)
{
	if (pin_link(cl->egress, dir, "egress", e) || pin_link(cl->ingress, dir, "ingress", e) ||
	    pin_link(cl->dev, dir, "device", e))
		return -1;
	for (int i = 0; i < LOADER_ADDR_PROGS; i++)
		if (pin_link(cl->addr[i], dir, addr_link_name[i], e))
			return -1;
	return 0;
}

int pin_remove(const char *dir)
{
	return rm_tree(dir);
}

void pin_sweep(const char *root, int (*still_caged)(long pid, void *ctx), void *ctx)
{
	DIR *d = opendir(root);
	struct dirent *de;
	char p[PATH_MAX];

	while (d && (de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, "run-", 4))
			continue;
		pid = strtol(de->d_name + 4, &end, 10);
		if (*end || !owner_gone(pid))
			continue;
		if (still_caged && still_caged(pid, ctx))
			continue;
		snprintf(p, sizeof(p), "%s/%s", root, de->d_name);
		pin_remove(p);
	}
	if (d)
		closedir(d);
}
