// SPDX-License-Identifier: GPL-2.0-only
/* Attach the empty BPF LSM programs and hold them until stdin closes.
 * A program whose hook this kernel lacks is not loaded (agentcage's loader
 * skips its own there too). It prints "attached N of M" once they are. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "empty.skel.h"

int main(void)
{
	struct empty_bpf *s = empty_bpf__open();
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_program *p;
	int n = 0, m = 0;
	char c;

	if (!s || !btf) {
		fprintf(stderr, "floor: cannot open the empty LSM programs or the kernel's BTF\n");
		return 125;
	}
	bpf_object__for_each_program(p, s->obj) {
		const char *sec = bpf_program__section_name(p);
		char fn[128];
		bool have;

		snprintf(fn, sizeof(fn), "bpf_lsm_%s", strncmp(sec, "lsm/", 4) ? sec : sec + 4);
		have = btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) > 0;
		bpf_program__set_autoload(p, have);
		n += have;
		m++;
	}
	btf__free(btf);
	if (empty_bpf__load(s) || empty_bpf__attach(s)) {
		fprintf(stderr, "floor: cannot load the empty LSM programs\n");
		return 125;
	}
	printf("attached %d of %d\n", n, m);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	empty_bpf__destroy(s);
	return 0;
}
