// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target, differential: whatever lib/policy/yamllite loads,
 * libyaml loads too, into the same document (tests/yamlsame.h). A text
 * yamllite declines is libyaml's alone and not compared. */
#include <stdint.h>
#include <stdlib.h>
#include "policy/yamllite.h"
#include "../yamlsame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	yaml_document_t lite, ref;
	int r = yaml_lite_load((const char *)data, size, &lite);

	if (r < 0)
		abort();
	if (!r)
		return 0;
	if (!libyaml_load((const char *)data, size, &ref))
		abort();        /* yamllite took what libyaml refuses */
	if (!yaml_same(&lite, &ref))
		abort();
	yaml_document_delete(&ref);
	yaml_lite_delete(&lite);
	return 0;
}
