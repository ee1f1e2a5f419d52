/*
 * ps_diff_to_json(): docs/formats/diff.md, "JSON".  The library writes it
 * (not the command line) so that every caller, and `install
 * --accept-diff`, reads and compares the same bytes: keys in a fixed
 * order, one line, no floating point.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "diff/diff.h"
#include "util/error.h"

static const char *const group_names[] = { "trust", "permissions",
    "prompts", "code", "other" };
static const char *const kind_names[] = { "added", "removed", "changed" };

static json_t *
text_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

json_t *
diff_consent_json(unsigned classes)
{
	json_t *list = json_array();
	unsigned bit;

	for (bit = 1; bit != 0 && list != NULL; bit <<= 1) {
		if ((classes & bit) != 0 && ps_consent_class_name(bit) != NULL)
			json_array_append_new(list,
			    json_string(ps_consent_class_name(bit)));
	}
	return list;
}

static json_t *
change_json(const ps_diff_change *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "group", json_string(group_names[c->group]));
	json_object_set_new(o, "field", json_string(c->field));
	json_object_set_new(o, "subject", text_or_null(c->subject));
	json_object_set_new(o, "kind", json_string(kind_names[c->kind]));
	json_object_set_new(o, "old", text_or_null(c->old_value));
	json_object_set_new(o, "new", text_or_null(c->new_value));
	json_object_set_new(o, "widening", json_boolean(c->widening));
	json_object_set_new(o, "consent", c->consent != 0 ?
	    json_string(ps_consent_class_name(c->consent)) : json_null());
	if (c->text_diff != NULL || c->lines_added > 0 || c->lines_removed > 0)
		json_object_set_new(o, "text", json_pack("{s:o,s:I,s:I,s:b}",
		    "diff", text_or_null(c->text_diff), "lines_added",
		    (json_int_t)c->lines_added, "lines_removed",
		    (json_int_t)c->lines_removed, "truncated",
		    c->text_truncated));
	if (c->text_omitted != NULL)
		json_object_set_new(o, "text_omitted",
		    json_string(c->text_omitted));
	return o;
}

static json_t *
diff_json(const ps_diff *d)
{
	json_t *o = json_object(), *changes = json_array();
	size_t i;

	for (i = 0; i < d->change_count; i++)
		json_array_append_new(changes, change_json(&d->changes[i]));
	json_object_set_new(o, "packsign_diff", json_integer(1));
	json_object_set_new(o, "format", json_string(ps_format_name(d->format)));
	json_object_set_new(o, "id", json_string(d->id));
	json_object_set_new(o, "old_version", text_or_null(d->old_version));
	json_object_set_new(o, "new_version", text_or_null(d->new_version));
	json_object_set_new(o, "trusted", json_boolean(d->trusted));
	json_object_set_new(o, "widening", diff_consent_json(d->widening_classes));
	json_object_set_new(o, "files", json_pack("{s:I,s:I,s:I}", "added",
	    (json_int_t)d->files_added, "removed", (json_int_t)d->files_removed,
	    "changed", (json_int_t)d->files_changed));
	json_object_set_new(o, "changes", changes);
	return o;
}

int
ps_diff_to_json(const ps_diff *d, char **out, ps_error *err)
{
	json_t *o = diff_json(d);

	*out = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII) : NULL;
	json_decref(o);
	return *out == NULL ? util_fail_oom(err, d->id) : 0;
}
