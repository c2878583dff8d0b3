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
/* The run-PID directories under root whose agentcage is gone: their pins
 * go, unless fn (called for each) says the run's cage is still there: a
 * cage that could not be emptied stays enforced by its pins. */
void pin_sweep(const char *root, int (*still_caged)(long pid, void *ctx), void *ctx);
#endif
