/*
 * show-upgrade: what a desktop installer embeds to show an upgrade before
 * it installs it.  Verifies ARCHIVE, compares it with the newest version
 * of its id installed in DATA_DIR, prints every change with its group,
 * whether it widens what the pack may do and the consent class an
 * upgrade asks for; with "accept", installs it having consented to
 * exactly the diff that was shown (the diff's JSON as
 * ps_install_options.accept_diff: a change nobody saw is never accepted,
 * even if the archive were swapped in between).
 *
 *   usage: show-upgrade ARCHIVE POLICY DATA_DIR [accept]
 *
 * Exit status: 0 shown (and installed), 1 refused, 2 the job could not
 * be done.  Build it against an installed libpacksign:
 *   cc show-upgrade.c $(pkg-config --cflags --libs packsign)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <packsign.h>

static int
exit_code(const ps_error *err)
{
	return err->status == PS_STATUS_REFUSED ? 1 : 2;
}

/* Values come from the packs: control characters are printed as \xHH. */
static void
put_safe(FILE *out, const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; p != NULL && *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}

static int
fail(const ps_error *err)
{
	char line[PS_ERROR_TEXT_MAX + PS_ERROR_VALUE_MAX * 3];

	ps_error_format(err, line, sizeof(line));
	fputs("show-upgrade: ", stderr);
	put_safe(stderr, line);
	fputc('\n', stderr);
	return exit_code(err);
}

static const char *
group_name(ps_diff_group g)
{
	static const char *const names[] = { "trust", "permissions", "prompts",
	    "code", "other" };

	return names[g];
}

/* One line a change: what a UI would put in a list. */
static void
print_changes(const ps_diff *d)
{
	static const char marks[] = { '+', '-', '~' };
	const ps_diff_change *c;
	size_t i;

	printf("%s ", ps_format_name(d->format));
	put_safe(stdout, d->id);
	printf(" %s -> %s: %zu changes\n", d->old_version, d->new_version,
	    d->change_count);
	for (i = 0; i < d->change_count; i++) {
		c = &d->changes[i];
		printf("  %-11s %c %s ", group_name(c->group), marks[c->kind],
		    c->field);
		put_safe(stdout, c->subject != NULL ? c->subject : c->new_value);
		if (c->widening && c->consent != 0)
			printf("  [widens: %s]", ps_consent_class_name(c->consent));
		fputc('\n', stdout);
	}
}

/* The installed side of the archive's id, or NULL for a first install. */
static int
installed_side(const char *data_dir, const ps_diff_side *new_side,
    const ps_trust *policy, ps_diff_side **old_side, ps_error *err)
{
	const ps_manifest *m = ps_diff_side_manifest(new_side);

	if (ps_diff_side_installed(data_dir, m->format, m->id, NULL, policy,
	    old_side, err) == 0)
		return 0;
	if (!ps_error_is(err, PS_CODE_NOT_INSTALLED))
		return -1;
	ps_error_clear(err);
	return 0;
}

static int
install_shown(const char *archive, const ps_trust *policy,
    const char *data_dir, const ps_diff *shown, ps_error *err)
{
	ps_install_options o;
	ps_install_result *r = NULL;
	char *json = NULL;
	int rc;

	ps_install_options_init(&o);
	o.verify.trust = policy;
	o.data_dir = data_dir;
	if (shown != NULL && ps_diff_to_json(shown, &json, err) != 0)
		return -1;
	o.accept_diff = json;
	rc = ps_install(archive, &o, &r, err);
	if (rc == 0)
		printf("installed %s at %s\n", r->version, r->path);
	ps_install_result_free(r);
	free(json);
	return rc;
}

static int
show(const char *archive, const ps_trust *policy, const char *data_dir,
    int accept, ps_error *err)
{
	ps_diff_side *old_side = NULL, *new_side = NULL;
	ps_diff_options o;
	ps_diff *d = NULL;
	int rc;

	ps_diff_options_init(&o);
	o.verify.trust = policy;
	rc = ps_diff_side_open(archive, &o, &new_side, err);
	if (rc == 0)
		rc = installed_side(data_dir, new_side, policy, &old_side, err);
	if (rc == 0 && old_side == NULL)
		puts("not installed yet: a first install, nothing to compare");
	if (rc == 0 && old_side != NULL)
		rc = ps_diff_compare(old_side, new_side, &o, &d, err);
	if (rc == 0 && d != NULL)
		print_changes(d);
	if (rc == 0 && accept)
		rc = install_shown(archive, policy, data_dir, d, err);
	ps_diff_free(d);
	ps_diff_side_free(old_side);
	ps_diff_side_free(new_side);
	return rc;
}

int
main(int argc, char **argv)
{
	ps_trust *policy = NULL;
	ps_error err;
	int rc;

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "accept") != 0)) {
		fputs("usage: show-upgrade ARCHIVE POLICY DATA_DIR [accept]\n",
		    stderr);
		return 2;
	}
	ps_error_clear(&err);
	if (ps_trust_load_file(argv[2], &policy, &err) != 0)
		return fail(&err);
	rc = show(argv[1], policy, argv[3], argc == 5, &err);
	ps_trust_free(policy);
	return rc == 0 ? 0 : fail(&err);
}
