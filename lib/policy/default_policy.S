/* SPDX-License-Identifier: GPL-2.0-only */
/* The embedded default policy; policies/default.yaml is its only source. */
	.section .rodata
	.global default_policy_yaml
	.global default_policy_yaml_end
default_policy_yaml:
	.incbin POLICY_FILE
default_policy_yaml_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
