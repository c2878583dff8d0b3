// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <unistd.h>
#include "diag.h"
#include "enforcer.h"
#include "event/json.h"
#include "harden/identity.h"

static const char *const names[] = { "auto", "bpf-lsm", "landlock" };

int enforcer_parse(const char *s, int *out)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	diag_error_code(AC_E_USAGE, "--enforcer takes auto, bpf-lsm or landlock, not '%s'", s);
	return -1;
}

const char *enforcer_name(int enf)
{
	return enf >= 0 && enf < 3 ? names[enf] : "?";
}

int enforcer_privileged(const char *user)
{
	struct ac_identity id;
	struct ac_error e;

	return user[0] && !ac_identity_resolve(user, getuid(), getgid(), &id, &e) && id.uid == 0;
}

static void row_json(FILE *f, const struct ll_row *r)
{
	fprintf(f, "{\"enforcer\":\"landlock\",\"level\":\"%s\",\"what\":",
		ll_level_name(r->level));
	json_write_string(f, r->what, -1);
	fputs(",\"how\":", f);
	json_write_string(f, r->how, -1);
	fputs("}", f);
}

void enforcer_table_print(FILE *f, const struct ll_table *t, int min_level)
{
	if (!diag_json) {
		ll_table_print(f, t, min_level);
		return;
	}
	for (int level = LL_CANNOT; level >= min_level; level--)
		for (size_t i = 0; i < t->n; i++)
			if (t->rows[i].level == level) {
				row_json(f, &t->rows[i]);
				fputs("\n", f);
			}
}

void enforcer_table_json(FILE *f, const struct ll_table *t)
{
	fputs("[", f);
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			fputs(",", f);
		row_json(f, &t->rows[i]);
	}
	fputs("]", f);
}
