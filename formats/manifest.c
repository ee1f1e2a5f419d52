/* Format detection, the common manifest model and the dispatch to each
 * format's validator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/check.h"
#include "formats/compose.h"
#include "formats/format.h"
#include "formats/paths.h"
#include "util/strings.h"
#include "formats/semver.h"
#include "formats/taskfile.h"
#include "util/error.h"

void
ps_validate_options_init(ps_validate_options *options)
{
	memset(options, 0, sizeof(*options));
	options->format = PS_FORMAT_UNKNOWN;
}

int
ps_manifest_valid(const ps_diags *diags, int strict)
{
	if (ps_diags_count(diags, PS_SEVERITY_ERROR) > 0)
		return 0;
	if (strict != 0 && ps_diags_count(diags, PS_SEVERITY_WARNING) > 0)
		return 0;
	return 1;
}

/* Which manifests exist at the root: 0, or -1 when the job failed. */
static int
present_manifests(const ps_pack_files *files, int present[FORMATS_MAX],
    size_t *count, ps_error *err)
{
	ps_entry_type type;
	uint64_t size;
	ps_error e;
	size_t i;

	*count = 0;
	for (i = 0; i < formats_count(); i++) {
		ps_error_clear(&e);
		present[i] = files->stat(files->ctx, formats_at(i)->manifest, &type,
		    &size, &e) == 0;
		if (present[i] == 0 && e.status == PS_STATUS_FAILED) {
			*err = e;
			return -1;
		}
		if (present[i] != 0)
			(*count)++;
	}
	return 0;
}

static void
report_conflict(const int present[FORMATS_MAX], const char *prefix,
    ps_diags *diags)
{
	char names[256] = "";
	size_t i;

	for (i = 0; i < formats_count(); i++) {
		if (present[i] == 0)
			continue;
		if (names[0] != '\0')
			strncat(names, ", ", sizeof(names) - strlen(names) - 1);
		strncat(names, formats_at(i)->manifest,
		    sizeof(names) - strlen(names) - 1);
	}
	ps_diags_add(diags, PS_SEVERITY_ERROR, "manifest_conflict", prefix, 0,
	    0, "several manifests at the pack root (%s); a pack has exactly "
	    "one", names);
}

int
ps_format_detect(const ps_pack_files *files, const char *prefix,
    ps_format *format, ps_diags *diags, ps_error *err)
{
	int present[FORMATS_MAX] = { 0 };
	char names[256];
	size_t count, i;

	*format = PS_FORMAT_UNKNOWN;
	if (prefix == NULL)
		prefix = "";
	if (present_manifests(files, present, &count, err) != 0)
		return -1;
	if (count == 0) {
		ps_diags_add(diags, PS_SEVERITY_ERROR, "manifest_missing",
		    prefix, 0, 0, "no manifest at the pack root: expected %s",
		    formats_manifest_names(names, sizeof(names), "one of "));
		return 0;
	}
	if (count > 1) {
		report_conflict(present, prefix, diags);
		return 0;
	}
	for (i = 0; i < formats_count(); i++) {
		if (present[i] != 0)
			*format = formats_at(i)->format;
	}
	return 0;
}

static void
free_lists(ps_manifest *m)
{
	size_t i;

	for (i = 0; i < m->prompt_count; i++)
		free(m->prompts[i].path);
	free(m->prompts);
	for (i = 0; i < m->egress_count; i++) {
		free(m->egress[i].host);
		free(m->egress[i].protocol);
	}
	free(m->egress);
	util_strings_clear(&m->signed_by);
	util_strings_clear(&m->fs_read);
	util_strings_clear(&m->fs_write);
	util_strings_clear(&m->tools);
	util_strings_clear(&m->code_files);
	util_strings_clear(&m->capabilities);
	util_strings_clear(&m->services);
	util_strings_clear(&m->tasks);
	formats_compose_free(m);
	formats_taskfile_free(m);
}

void
ps_manifest_free(ps_manifest *m)
{
	if (m == NULL)
		return;
	free_lists(m);
	free(m->manifest_path);
	free(m->id);
	free(m->file_id);
	free(m->version);
	free(m->name);
	free(m->description);
	free(m->license);
	free(m->kind);
	free(m->domain);
	free(m->source_repository);
	free(m->source_commit);
	free(m->determinism_tier);
	free(m->permissions.file_write);
	free(m->retention);
	free(m->endpoint);
	free(m->tool);
	free(m->price_worst_case);
	free(m->price_currency);
	free(m->pricing_model);
	free(m->charge_on);
	free(m->engine_range);
	free(m);
}

/* By path; for one path, a declaration (line > 0) first, earliest first. */
static int
prompt_compare(const void *a, const void *b)
{
	const ps_prompt_file *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	if ((x->line == 0) != (y->line == 0))
		return x->line == 0 ? 1 : -1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts the prompt files and keeps the first entry of each path. */
static void
sort_prompts(ps_manifest *m)
{
	size_t i, kept = 0;

	if (m->prompt_count < 2)
		return;
	qsort(m->prompts, m->prompt_count, sizeof(*m->prompts),
	    prompt_compare);
	for (i = 0; i < m->prompt_count; i++) {
		if (kept > 0 && strcmp(m->prompts[kept - 1].path,
		    m->prompts[i].path) == 0) {
			free(m->prompts[i].path);
			continue;
		}
		m->prompts[kept++] = m->prompts[i];
	}
	m->prompt_count = kept;
}

/* file_id: the id with '/' replaced by '-'. */
static void
fill_file_id(formats_check *ck)
{
	char *p;

	if (ck->m->id == NULL)
		return;
	if ((ck->m->file_id = formats_check_strdup(ck, ck->m->id)) == NULL)
		return;
	for (p = ck->m->file_id; *p != '\0'; p++) {
		if (*p == '/')
			*p = '-';
	}
}

static void
run_module(formats_check *ck, const util_yaml_node *root)
{
	const formats_descriptor *d;

	if (root == NULL || root->kind != UTIL_YAML_MAPPING) {
		formats_check_error(ck, root, "manifest_not_mapping",
		    "the manifest must be a mapping of fields, found %s",
		    root == NULL ? "an empty document" : util_yaml_describe(root));
		return;
	}
	d = formats_of(ck->m->format);
	d->validate(ck, root);
	if (d->conventional_prompts != NULL)
		d->conventional_prompts(ck, root);
	formats_check_signed_by(ck, root);
	fill_file_id(ck);
	sort_prompts(ck->m);
}

/* Reads and checks the manifest of a known format. */
static int
check_manifest(formats_check *ck)
{
	util_yaml_doc *doc = NULL;
	ps_error yerr;
	char *data = NULL;
	size_t len = 0;

	ps_error_clear(&yerr);
	if (ck->files->read(ck->files->ctx, ck->m->manifest_path,
	    UTIL_YAML_MAX_BYTES + 1, &data, &len, &yerr) != 0) {
		formats_check_yaml_error(ck, ck->m->manifest_path,
		    ck->m->manifest_path, &yerr);
		return ck->failed != 0 ? -1 : 0;
	}
	if (util_yaml_load(data, len, ck->m->manifest_path, &doc, &yerr) != 0) {
		free(data);
		formats_check_yaml_error(ck, ck->m->manifest_path,
		    ck->m->manifest_path, &yerr);
		return ck->failed != 0 ? -1 : 1;
	}
	free(data);
	run_module(ck, util_yaml_root(doc));
	util_yaml_free(doc);
	return ck->failed != 0 ? -1 : 0;
}

static int
check_options(const ps_validate_options *opt, ps_error *err)
{
	formats_semver v;

	if (opt->engine_version != NULL &&
	    formats_semver_parse(opt->engine_version, &v) != 0) {
		util_fail(err, "engine_version_invalid", opt->engine_version,
		    "the engine version to check against is not SemVer 2.0.0");
		return util_error_expect(err, "a version like 1.4.0",
		    opt->engine_version);
	}
	return 0;
}

/* Decides the format: forced by the options or detected. */
static int
choose_format(const ps_pack_files *files, const ps_validate_options *opt,
    ps_format *format, ps_diags *diags, ps_error *err)
{
	const char *prefix = opt->prefix != NULL ? opt->prefix : "";
	ps_format found;
	size_t before = diags->count;

	if (ps_format_detect(files, prefix, &found, diags, err) != 0)
		return -1;
	*format = found;
	if (opt->format == PS_FORMAT_UNKNOWN || opt->format == found)
		return 0;
	*format = PS_FORMAT_UNKNOWN;
	if (diags->count != before)
		return 0;
	ps_diags_add(diags, PS_SEVERITY_ERROR, "format_mismatch", prefix, 0, 0,
	    "--format %s expects %s at the pack root, found %s (a %s pack)",
	    ps_format_name(opt->format), ps_format_manifest_name(opt->format),
	    ps_format_manifest_name(found), ps_format_name(found));
	return 0;
}

int
ps_manifest_load(const ps_pack_files *files,
    const ps_validate_options *options, ps_manifest **out, ps_diags *diags,
    ps_error *err)
{
	ps_validate_options defaults;
	formats_check ck;
	ps_format format;
	size_t first = diags->count;
	int rc;

	*out = NULL;
	if (options == NULL) {
		ps_validate_options_init(&defaults);
		options = &defaults;
	}
	if (check_options(options, err) != 0)
		return -1;
	if (choose_format(files, options, &format, diags, err) != 0)
		return -1;
	if (format == PS_FORMAT_UNKNOWN)
		return 0;
	memset(&ck, 0, sizeof(ck));
	ck.files = files;
	ck.opt = options;
	ck.diags = diags;
	ck.err = err;
	ck.prefix = options->prefix != NULL ? options->prefix : "";
	ck.m = calloc(1, sizeof(*ck.m));
	if (ck.m == NULL || asprintf(&ck.file, "%s%s", ck.prefix,
	    ps_format_manifest_name(format)) < 0) {
		free(ck.m);
		return util_fail_oom(err, "");
	}
	ck.m->format = format;
	ck.m->training_use = -1;
	ck.m->manifest_path = formats_check_strdup(&ck,
	    ps_format_manifest_name(format));
	rc = ck.failed != 0 ? -1 : check_manifest(&ck);
	free(ck.file);
	/* Messages quote manifest values: never let them drive a terminal. */
	for (; first < diags->count; first++)
		formats_check_scrub(diags->items[first].message);
	if (rc != 0) {
		ps_manifest_free(ck.m);
		return rc < 0 ? -1 : 0;
	}
	*out = ck.m;
	return 0;
}
