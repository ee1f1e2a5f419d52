/* Unit tests: formats/semver (SemVer 2.0.0, node-semver ranges). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "formats/semver.h"

static void
strict_parse_accepts(void **state)
{
	static const char *const good[] = {
		"0.0.0", "1.2.3", "10.20.30", "1.2.3-0", "1.2.3-alpha.0.x-y",
		"1.2.3+001", "1.2.3-rc.1+build.5", "1.0.0--", "1.0.0-0A.is.legal",
		"18446744073709551615.0.0", "1.2.3-99999999999999999999999",
	};
	formats_semver v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (formats_semver_parse(good[i], &v) != 0)
			fail_msg("refused %s", good[i]);
	}
	assert_int_equal(formats_semver_parse("1.2.3-rc.1+build.5", &v), 0);
	assert_true(v.major == 1 && v.minor == 2 && v.patch == 3);
	assert_string_equal(v.prerelease, "rc.1");
	assert_string_equal(v.build, "build.5");
}

static void
strict_parse_refuses(void **state)
{
	static const char *const bad[] = {
		"", "1", "1.2", "1.2.3.4", "v1.2.3", "=1.2.3", " 1.2.3",
		"1.2.3 ", "01.2.3", "1.02.3", "1.2.03", "1.2.3-01",
		"1.2.3-", "1.2.3+", "1.2.3-a..b", "1.2.3-a.", "1.2.3-a_b",
		"1.2.3+a+b", "1.2.3-é", "18446744073709551616.0.0", "-1.2.3",
		"1.2.x", "1.2.3-beta+", "a.b.c",
	};
	formats_semver v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (formats_semver_parse(bad[i], &v) == 0)
			fail_msg("accepted '%s'", bad[i]);
	}
}

static void
strict_parse_bounds_lengths(void **state)
{
	char text[300];
	formats_semver v;

	(void)state;
	memset(text, 'a', sizeof(text));
	memcpy(text, "1.2.3-", 6);
	text[6 + 127] = '\0';             /* 127 characters fit */
	assert_int_equal(formats_semver_parse(text, &v), 0);
	assert_int_equal(strlen(v.prerelease), 127);
	text[6 + 127] = 'a';
	text[6 + 128] = '\0';             /* 128 do not */
	assert_int_equal(formats_semver_parse(text, &v), -1);
	memcpy(text, "1.2.3+", 6);
	assert_int_equal(formats_semver_parse(text, &v), -1);
}

static int
cmp(const char *a, const char *b)
{
	formats_semver x, y;

	if (formats_semver_parse(a, &x) != 0 || formats_semver_parse(b, &y) != 0)
		fail_msg("bad version in test: %s %s", a, b);
	return formats_semver_compare(&x, &y);
}

static void
precedence_follows_section_11(void **state)
{
	/* SemVer 2.0.0 section 11's own examples, in increasing order. */
	static const char *const order[] = {
		"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
		"1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",
		"1.0.0", "2.0.0", "2.1.0", "2.1.1", "10.0.0",
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		for (j = 0; j < sizeof(order) / sizeof(order[0]); j++) {
			int c = cmp(order[i], order[j]);
			if ((i < j && c >= 0) || (i == j && c != 0) ||
			    (i > j && c <= 0))
				fail_msg("%s vs %s gave %d", order[i], order[j],
				    c);
		}
	}
	assert_int_equal(cmp("1.0.0+a", "1.0.0+b"), 0);
	assert_true(cmp("1.0.0-2", "1.0.0-10") < 0);
	assert_true(cmp("1.0.0-999", "1.0.0-a") < 0);
	assert_true(cmp("1.0.0-a.1", "1.0.0-a") > 0);
	assert_true(cmp("1.0.0-B", "1.0.0-a") < 0);   /* ASCII order */
	assert_true(cmp("1.0.0-99999999999999999999",
	    "1.0.0-100000000000000000000") < 0);
}

static void
expands_to(const char *range, const char *expected)
{
	formats_semver_range *r = NULL;
	char why[256], out[512];

	if (formats_semver_range_parse(range, &r, why, sizeof(why)) != 0)
		fail_msg("'%s' refused: %s", range, why);
	formats_semver_range_format(r, out, sizeof(out));
	if (strcmp(out, expected) != 0)
		fail_msg("'%s' gave '%s', expected '%s'", range, out, expected);
	formats_semver_range_free(r);
}

/* The node-semver README's tables. */
static void
readme_desugaring_tables(void **state)
{
	(void)state;
	/* Hyphen ranges */
	expands_to("1.2.3 - 2.3.4", ">=1.2.3 <=2.3.4");
	expands_to("1.2 - 2.3.4", ">=1.2.0 <=2.3.4");
	expands_to("1.2.3 - 2.3", ">=1.2.3 <2.4.0-0");
	expands_to("1.2.3 - 2", ">=1.2.3 <3.0.0-0");
	/* X-ranges */
	expands_to("*", "*");
	expands_to("1.x", ">=1.0.0 <2.0.0-0");
	expands_to("1.2.x", ">=1.2.0 <1.3.0-0");
	expands_to("", "*");
	expands_to("1", ">=1.0.0 <2.0.0-0");
	expands_to("1.2", ">=1.2.0 <1.3.0-0");
	/* Tilde */
	expands_to("~1.2.3", ">=1.2.3 <1.3.0-0");
	expands_to("~1.2", ">=1.2.0 <1.3.0-0");
	expands_to("~1", ">=1.0.0 <2.0.0-0");
	expands_to("~0.2.3", ">=0.2.3 <0.3.0-0");
	expands_to("~0.2", ">=0.2.0 <0.3.0-0");
	expands_to("~0", ">=0.0.0 <1.0.0-0");
	expands_to("~1.2.3-beta.2", ">=1.2.3-beta.2 <1.3.0-0");
	/* Caret */
	expands_to("^1.2.3", ">=1.2.3 <2.0.0-0");
	expands_to("^0.2.3", ">=0.2.3 <0.3.0-0");
	expands_to("^0.0.3", ">=0.0.3 <0.0.4-0");
	expands_to("^1.2.3-beta.2", ">=1.2.3-beta.2 <2.0.0-0");
	expands_to("^0.0.3-beta", ">=0.0.3-beta <0.0.4-0");
	expands_to("^1.2.x", ">=1.2.0 <2.0.0-0");
	expands_to("^0.0.x", ">=0.0.0 <0.1.0-0");
	expands_to("^0.0", ">=0.0.0 <0.1.0-0");
	expands_to("^1.x", ">=1.0.0 <2.0.0-0");
	expands_to("^0.x", ">=0.0.0 <1.0.0-0");
}

static void
primitive_and_misc_desugaring(void **state)
{
	(void)state;
	expands_to("1.2.3", "1.2.3");
	expands_to("=1.2.3", "1.2.3");
	expands_to("v1.2.3", "1.2.3");
	expands_to(">=1.2.7 <1.3.0", ">=1.2.7 <1.3.0");
	expands_to("1.2.7 || >=1.2.9 <2.0.0", "1.2.7 || >=1.2.9 <2.0.0");
	expands_to(">1.2", ">=1.3.0");
	expands_to(">1", ">=2.0.0");
	expands_to("<=1.2", "<1.3.0-0");
	expands_to("<=1", "<2.0.0-0");
	expands_to("<1.2", "<1.2.0-0");
	expands_to(">=1.2", ">=1.2.0");
	expands_to(">*", "<0.0.0-0");
	expands_to("<x", "<0.0.0-0");
	expands_to(">=*", "*");
	expands_to(">= 1.2.3  <  2", ">=1.2.3 <2.0.0-0");
	expands_to("~> 1", ">=1.0.0 <2.0.0-0");
	expands_to("^ 1.2", ">=1.2.0 <2.0.0-0");
	expands_to("x - 1.0.0", "<=1.0.0");
	expands_to("1.0.0 - x", ">=1.0.0");
	expands_to("1.2.3+build", "1.2.3");
	expands_to("  1.2.3\t||\t2.x  ", "1.2.3 || >=2.0.0 <3.0.0-0");
}

static int
sat(const char *range, const char *version)
{
	formats_semver_range *r = NULL;
	formats_semver v;
	char why[256];
	int ok;

	if (formats_semver_range_parse(range, &r, why, sizeof(why)) != 0)
		fail_msg("'%s' refused: %s", range, why);
	if (formats_semver_parse(version, &v) != 0)
		fail_msg("bad version %s", version);
	ok = formats_semver_range_satisfies(r, &v);
	formats_semver_range_free(r);
	return ok;
}

/* Pairs from node-semver's range-include and range-exclude fixtures. */
static void
satisfies_fixtures(void **state)
{
	static const char *const yes[][2] = {
		{ "1.0.0 - 2.0.0", "1.2.3" }, { "^1.2.3+build", "1.2.3" },
		{ "^1.2.3+build", "1.3.0" },
		{ "1.2.3-pre+asdf - 2.4.3-pre+asdf", "1.2.3" },
		{ "1.2.3-pre+asdf - 2.4.3-pre+asdf", "1.2.3-pre.2" },
		{ "1.2.3-pre+asdf - 2.4.3-pre+asdf", "2.4.3-alpha" },
		{ "1.2.3+asdf - 2.4.3+asdf", "1.2.3" }, { "1.0.0", "1.0.0" },
		{ ">=*", "0.2.4" }, { "", "1.0.0" }, { "*", "1.2.3" },
		{ ">=1.0.0", "1.0.0" }, { ">=1.0.0", "1.1.0" },
		{ ">1.0.0", "1.0.1" }, { "<=2.0.0", "2.0.0" },
		{ "<=2.0.0", "0.2.9" }, { "<2.0.0", "1.9999.9999" },
		{ ">= 1.0.0", "1.0.0" }, { "> 1.0.0", "1.1.0" },
		{ "<=  2.0.0", "2.0.0" }, { "0.1.20 || 1.2.4", "1.2.4" },
		{ ">=0.2.3 || <0.0.1", "0.0.0" }, { "2.x.x", "2.1.3" },
		{ "1.2.x", "1.2.3" }, { "1.2.x || 2.x", "2.1.3" },
		{ "x", "1.2.3" }, { "2.*.*", "2.1.3" }, { "1.2.*", "1.2.3" },
		{ "2", "2.1.2" }, { "2.3", "2.3.1" }, { "~0.0.1", "0.0.1" },
		{ "~2.4", "2.4.0" }, { "~2.4", "2.4.5" }, { "~>3.2.1", "3.2.2" },
		{ "~1", "1.2.3" }, { "~>1", "1.2.3" }, { "~> 1", "1.2.3" },
		{ "~1.0", "1.0.2" }, { "~ 1.0", "1.0.2" },
		{ "~ 1.0.3", "1.0.12" }, { ">=1", "1.0.0" },
		{ ">= 1", "1.0.0" }, { "<1.2", "1.1.1" }, { "< 1.2", "1.1.1" },
		{ "~v0.5.4-pre", "0.5.5" }, { "~v0.5.4-pre", "0.5.4" },
		{ "=0.7.x", "0.7.2" }, { "<=0.7.x", "0.7.2" },
		{ ">=0.7.x", "0.7.2" }, { "<=0.7.x", "0.6.2" },
		{ "~1.2.1 >=1.2.3", "1.2.3" }, { "~1.2.1 =1.2.3", "1.2.3" },
		{ "~1.2.1 1.2.3", "1.2.3" }, { ">=1.2.1 1.2.3", "1.2.3" },
		{ "1.2.3 >=1.2.1", "1.2.3" }, { ">=1.2.3 >=1.2.1", "1.2.3" },
		{ ">=1.2.1 >=1.2.3", "1.2.3" }, { ">=1.2", "1.2.8" },
		{ "^1.2.3", "1.8.1" }, { "^0.1.2", "0.1.2" }, { "^0.1", "0.1.2" },
		{ "^0.0.1", "0.0.1" }, { "^1.2", "1.4.2" },
		{ "^1.2 ^1", "1.4.2" }, { "^1.2.3-alpha", "1.2.3-pre" },
		{ "^1.2.0-alpha", "1.2.0-pre" }, { "^0.0.1-alpha", "0.0.1-beta" },
		{ "^0.0.1-alpha", "0.0.1" }, { "^0.1.1-alpha", "0.1.1-beta" },
		{ "^x", "1.2.3" }, { "x - 1.0.0", "0.9.7" },
		{ "x - 1.x", "0.9.7" }, { "1.0.0 - x", "1.9.7" },
		{ "1.x - x", "1.9.7" }, { "<=7.x", "7.9.9" },
		{ "^1.2.3-beta.2", "1.2.3-beta.4" }, { ">1.2.3-alpha.3", "1.2.3-alpha.7" },
		{ ">1.2.3-alpha.3", "3.4.5" },
	};
	static const char *const no[][2] = {
		{ "1.0.0 - 2.0.0", "2.2.3" },
		{ "1.2.3+asdf - 2.4.3+asdf", "1.2.3-pre.2" },
		{ "1.2.3+asdf - 2.4.3+asdf", "2.4.3-alpha" },
		{ "^1.2.3+build", "2.0.0" }, { "^1.2.3+build", "1.2.0" },
		{ "^1.2.3", "1.2.3-pre" }, { "^1.2", "1.2.0-pre" },
		{ ">1.2", "1.3.0-beta" }, { "<=1.2.3", "1.2.3-beta" },
		{ "^1.2.3", "1.2.3-beta" }, { "=0.7.x", "0.7.0-asdf" },
		{ ">=0.7.x", "0.7.0-asdf" }, { "<=0.7.x", "0.7.0-asdf" },
		{ "1", "1.0.0-beta" }, { "*", "1.0.0-beta" },
		{ "1.0.0", "1.0.1" }, { ">=1.0.0", "0.0.0" },
		{ ">=1.0.0", "0.0.1" }, { ">=1.0.0", "0.1.0" },
		{ ">1.0.0", "0.0.1" }, { ">1.0.0", "0.1.0" },
		{ "<=2.0.0", "3.0.0" }, { "<=2.0.0", "2.9999.9999" },
		{ "<=2.0.0", "2.2.9" }, { "<2.0.0", "2.9999.9999" },
		{ "<2.0.0", "2.2.9" }, { ">=0.1.97", "0.1.93" },
		{ "0.1.20 || 1.2.4", "1.2.3" }, { ">=0.2.3 || <0.0.1", "0.0.3" },
		{ ">=0.2.3 || <0.0.1", "0.2.2" }, { "2.x.x", "1.1.3" },
		{ "2.x.x", "3.1.3" }, { "1.2.x", "1.3.3" },
		{ "1.2.x || 2.x", "3.1.3" }, { "1.2.x || 2.x", "1.1.3" },
		{ "2.*.*", "1.1.3" }, { "2.*.*", "3.1.3" }, { "1.2.*", "1.3.3" },
		{ "1.2.*", "1.1.3" }, { "2", "1.1.2" }, { "2.3", "2.4.1" },
		{ "~0.0.1", "0.1.0-alpha" }, { "~0.0.1", "0.1.0" },
		{ "~2.4", "2.5.0" }, { "~2.4", "2.3.9" }, { "~>3.2.1", "3.3.2" },
		{ "~>3.2.1", "3.2.0" }, { "~1", "0.2.3" }, { "~>1", "2.2.3" },
		{ "~1.0", "1.1.0" }, { "<1", "1.0.0" }, { ">=1.2", "1.1.1" },
		{ "~v0.5.4-beta", "0.5.4-alpha" }, { "=0.7.x", "0.8.2" },
		{ ">=0.7.x", "0.6.2" }, { "<0.7.x", "0.7.2" },
		{ "<1.2.3", "1.2.3-beta" }, { "=1.2.3", "1.2.3-beta" },
		{ ">1.2", "1.2.8" }, { "^0.0.1", "0.0.2" }, { "^1.2.3", "2.0.0-alpha" },
		{ "^1.2.3", "1.2.2" }, { "^1.2", "1.1.9" },
		{ "^1.2.3", "2.0.0-pre" }, { "^0.0.1-alpha", "0.0.2-alpha" },
		{ "^0.0.1-alpha", "0.0.2" }, { "<=0.7.x", "0.8.0" },
		{ ">*", "1.0.0" }, { "<*", "0.0.0" },
		{ "^1.2.3-beta.2", "1.2.4-beta.2" },
		{ ">1.2.3-alpha.3", "3.4.5-alpha.9" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!sat(yes[i][0], yes[i][1]))
			fail_msg("'%s' should accept %s", yes[i][0], yes[i][1]);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (sat(no[i][0], no[i][1]))
			fail_msg("'%s' should refuse %s", no[i][0], no[i][1]);
	}
}

static void
invalid_ranges_say_why(void **state)
{
	static const char *const bad[] = {
		"blerg", "git+https://user:password0123@github.com/foo",
		">=1.2.3 -", "1.2.3 |", "1.2.3 || ", " || 1.2.3", "1.2.03",
		">= ", "^", "1.2.3-01", "1.x-beta", "1.2.x-beta", "=>1.2.3",
		">=1.2.3.4", "1.2.3 - 2.3.4 - 5", "01.2", "~1.2.3 -",
		"1.2.3 - ", ">18446744073709551615",
		"^18446744073709551615.0.0", "1.x.3", "*.1",
	};
	formats_semver_range *r;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		r = NULL;
		if (formats_semver_range_parse(bad[i], &r, why, sizeof(why)) == 0)
			fail_msg("accepted '%s'", bad[i]);
		assert_null(r);
		assert_true(why[0] != '\0');
	}
	formats_semver_range_parse("1.2.3 ! 2", &r, why, sizeof(why));
	assert_string_equal(why, "invalid comparator '!'");
}

static void
range_input_is_bounded(void **state)
{
	char text[2100];
	formats_semver_range *r = NULL;
	char why[256];
	size_t i;

	(void)state;
	memset(text, ' ', 1025);
	text[1025] = '\0';
	assert_int_equal(formats_semver_range_parse(text, &r, why, sizeof(why)),
	    -1);
	assert_string_equal(why, "range longer than 1024 bytes");
	/* 200 comparators in 1000 bytes: over the comparator limit. */
	for (i = 0; i < 200; i++)
		memcpy(text + 5 * i, "^1.2 ", 5);
	text[1000] = '\0';
	assert_int_equal(formats_semver_range_parse(text, &r, why, sizeof(why)),
	    -1);
	assert_non_null(strstr(why, "comparators"));
	for (i = 0; i < 100; i++)
		memcpy(text + 3 * i, "1||", 3);
	text[3 * 100 - 2] = '\0';
	assert_int_equal(formats_semver_range_parse(text, &r, why, sizeof(why)),
	    -1);
	assert_non_null(strstr(why, "alternatives"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strict_parse_accepts),
		cmocka_unit_test(strict_parse_refuses),
		cmocka_unit_test(strict_parse_bounds_lengths),
		cmocka_unit_test(precedence_follows_section_11),
		cmocka_unit_test(readme_desugaring_tables),
		cmocka_unit_test(primitive_and_misc_desugaring),
		cmocka_unit_test(satisfies_fixtures),
		cmocka_unit_test(invalid_ranges_say_why),
		cmocka_unit_test(range_input_is_bounded),
	};
	return cmocka_run_group_tests_name("semver", tests, NULL, NULL);
}
