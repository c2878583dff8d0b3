// SPDX-License-Identifier: GPL-2.0-only
/* Attach the empty BPF LSM programs and hold them until stdin closes. */
#include <stdio.h>
#include <unistd.h>
#include "empty.skel.h"

int main(void)
{
	struct empty_bpf *s = empty_bpf__open_and_load();
	char c;

	if (!s || empty_bpf__attach(s)) {
		fprintf(stderr, "floor: cannot load the empty LSM programs\n");
		return 125;
	}
	printf("attached\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	empty_bpf__destroy(s);
	return 0;
}
