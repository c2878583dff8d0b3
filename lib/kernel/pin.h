// SPDX-License-Identifier: GPL-2.0-only
/* Pins in bpffs: a cage's programs stay attached, and its maps stay, with
 * no process of agentcage's alive. Each run pins under
 * <bpffs>/agentcage/run-PID/ (the directories mode 0700, root's); removing
 * the pins, once the cage is empty, is what detaches the programs. */
#ifndef AGENTCAGE_PIN_H
#define AGENTCAGE_PIN_H
#include <stddef.h>
#include "kernel/loader.h"
#include "util/error.h"

/* agentcage's directory on bpffs (mounting bpffs at /sys/fs/bpf when no
 * bpffs is mounted), made 0700; path gets its name. */
int pin_root(char *path, size_t len, struct ac_error *e);
/* Pin every attached link and every map of l under dir (made 0700). */
int pin_loader(struct loader *l, const char *dir, struct ac_error *e);
/* Pin a cage's packet-program and device-program links under dir
 * (link-egress, link-ingress, link-device). */
int pin_cage_links(const struct cage_links *cl, const char *dir, struct ac_error *e);
/* Remove dir and its pins: the programs pinned there detach once no
 * process holds them either. */
int pin_remove(const char *dir);
/* The run-PID directories under root whose agentcage is gone; fn is called
 * for each (it must empty the run's cage first), then its pins go. */
void pin_sweep(const char *root, void (*fn)(long pid, void *ctx), void *ctx);
#endif
