/* The option layer over getopt_long, and option values commands share. */
/*
 * A command declares a table of options, each pointing at the field it
 * fills; cli_parse_options() turns it into getopt_long's tables, takes the
 * options, prints the help for -h / --help and the usage error for
 * anything else, in the spirit of git's parse-options.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/output.h"
#include "cli/suggest.h"

/* getopt_long's value for the long option of entry i without a letter. */
#define LONG_ONLY 256

/* getopt_long's tables for a command's table, with -h / --help added. */
struct getopt_tables {
	char *letters;
	struct option *longs;
};

static int
takes_argument(const struct cli_option *opt)
{
	return opt->kind != CLI_OPTION_FLAG;
}

static void
add_letter(char *letters, size_t *n, const struct cli_option *opt)
{
	letters[(*n)++] = (char)opt->letter;
	if (takes_argument(opt))
		letters[(*n)++] = ':';
}

static void
add_long(struct option *longs, size_t *n, const struct cli_option *opt,
    size_t index)
{
	longs[*n].name = opt->name;
	longs[*n].has_arg = takes_argument(opt) ? required_argument :
	    no_argument;
	longs[*n].flag = NULL;
	longs[*n].val = opt->letter != 0 ? opt->letter :
	    LONG_ONLY + (int)index;
	(*n)++;
}

static void
free_tables(struct getopt_tables *t)
{
	free(t->letters);
	free(t->longs);
}

/* Returns -1 when out of memory. */
static int
build_tables(const struct cli_usage *cmd, const struct cli_option *table,
    struct getopt_tables *t)
{
	static const struct option help = { "help", no_argument, NULL, 'h' };
	size_t i, count = 0, letters = 0, longs = 0;

	while (table[count].kind != CLI_OPTION_END)
		count++;
	/* '+', ':', a letter and ':' per option, 'h'; help and the end. */
	t->letters = malloc(2 * count + 4);
	t->longs = calloc(count + 2, sizeof(*t->longs));
	if (t->letters == NULL || t->longs == NULL) {
		free_tables(t);
		return -1;
	}
	if (cmd->in_order)
		t->letters[letters++] = '+';
	t->letters[letters++] = ':';    /* ':' for a missing argument */
	for (i = 0; i < count; i++) {
		if (table[i].letter != 0)
			add_letter(t->letters, &letters, &table[i]);
		if (table[i].name != NULL)
			add_long(t->longs, &longs, &table[i], i);
	}
	t->letters[letters++] = 'h';
	t->letters[letters] = '\0';
	t->longs[longs] = help;
	return 0;
}

/* The entry getopt_long's return value `c` stands for, or NULL. */
static const struct cli_option *
find_option(const struct cli_option *table, int c)
{
	size_t i;

	for (i = 0; table[i].kind != CLI_OPTION_END; i++) {
		if (table[i].letter != 0 ? c == table[i].letter :
		    c == LONG_ONLY + (int)i)
			return &table[i];
	}
	return NULL;
}

/* The words of the command line before the options: "key show". */
static void
command_words(const struct cli_usage *cmd, char **argv, char *out,
    size_t size)
{
	if (strcmp(argv[0], cmd->name) == 0)
		snprintf(out, size, "%s", cmd->name);
	else
		snprintf(out, size, "%s %s", cmd->name, argv[0]);
}

/* The most long options a suggestion looks through. */
#define SUGGEST_NAMES 192

/* "; did you mean '--trust'?" for an unknown option written as `arg`
 * ("--turst", "--turst=x", or "-trust" with one dash), or "". */
static void
suggest_option(const struct cli_option *table, const char *arg, char *buf,
    size_t size)
{
	const char *names[SUGGEST_NAMES];
	struct cli_suggestion s;
	char word[64];
	size_t i, n = 0;

	buf[0] = '\0';
	if (arg[0] != '-' || arg[1] == '\0' || (arg[1] != '-' && arg[2] == '\0'))
		return;
	arg += arg[1] == '-' ? 2 : 1;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
	for (i = 0; table[i].kind != CLI_OPTION_END && n < SUGGEST_NAMES - 1;
	    i++) {
		if (table[i].name != NULL && !table[i].refused)
			names[n++] = table[i].name;
	}
	names[n++] = "help";
	cli_suggest(word, names, n, &s);
	cli_suggestion_text(&s, "--", buf, size);
}

/* The word of argv holding the unknown short option optopt: the one
 * before optind when it was the word's last letter, else the word at
 * optind, which getopt has not left yet ("-trust" at its 't'). */
static const char *
short_option_word(int argc, char **argv)
{
	const char *prev = argv[optind - 1];
	size_t n = strlen(prev);

	if ((prev[0] == '-' && prev[1] != '-' && n > 1 &&
	    prev[n - 1] == optopt) || optind >= argc)
		return prev;
	return argv[optind];
}

/*
 * The one usage error for an option the command does not take: getopt
 * prints nothing (opterr is 0), so every command says the same three
 * things the same way, naming the option (and the closest the command
 * takes, when one is close).
 */
static int
refuse(const struct cli_usage *cmd, const struct cli_option *table,
    int argc, char **argv, int c, const struct cli_option *opt)
{
	const char *arg = argv[optind - 1];
	char words[64], name[64], hint[256];
	int is_short;

	/* A short one alone, even from a cluster such as -qZ (whose argv
	 * slot getopt has not left yet: argv[optind - 1] is then the word
	 * before); a long option as written, without "=VALUE". */
	is_short = optopt > 0 && optopt < LONG_ONLY && (c == '?' ||
	    strncmp(arg, "--", 2) != 0);
	if (is_short)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs an argument",
		    name);
	if (opt != NULL) {
		command_words(cmd, argv, words, sizeof(words));
		return cli_usage_error(cmd, "'--%s' does not apply to '%s'",
		    opt->name, words);
	}
	/* "-trust": a long option written with one dash */
	suggest_option(table, is_short ? short_option_word(argc, argv) : arg,
	    hint, sizeof(hint));
	return cli_usage_error(cmd, "unknown option '%s'%s", name, hint);
}

static int
take_option(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	switch (opt->kind) {
	case CLI_OPTION_FLAG:
		*(int *)opt->value = 1;
		return EXIT_OK;
	case CLI_OPTION_STRING:
		*(const char **)opt->value = arg;
		return EXIT_OK;
	case CLI_OPTION_CALLBACK:
		return opt->callback(cmd, opt, arg);
	case CLI_OPTION_END:
		break;
	}
	return EXIT_FAILED;
}

static int
scan(const struct cli_usage *cmd, const struct cli_option *table,
    const struct getopt_tables *t, int argc, char **argv)
{
	const struct cli_option *opt;
	int c, rc;

	/* The one reset of getopt's state: with glibc, 0 starts a new scan
	 * of argv from argv[1]. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, t->letters, t->longs,
	    NULL)) != -1) {
		if (c == 'h')
			return cli_show_help(cmd);
		opt = c == '?' || c == ':' ? NULL : find_option(table, c);
		if (opt == NULL || opt->refused)
			return refuse(cmd, table, argc, argv, c, opt);
		if ((rc = take_option(cmd, opt, optarg)) != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

int
cli_parse_options(const struct cli_usage *cmd,
    const struct cli_option *table, int argc, char **argv,
    struct cli_operands *operands)
{
	struct getopt_tables t;
	int rc;

	if (build_tables(cmd, table, &t) != 0)
		return cli_fail_oom();
	rc = scan(cmd, table, &t, argc, argv);
	free_tables(&t);
	operands->argv = argv + optind;
	operands->count = argc - optind;
	return rc;
}

static int
missing_subcommand(const struct cli_usage *cmd, const char *const names[],
    size_t count)
{
	char list[256] = "";
	size_t i, used = 0;
	int n;

	for (i = 0; i < count && used < sizeof(list); i++) {
		n = snprintf(list + used, sizeof(list) - used, "%s%s",
		    i > 0 ? ", " : "", names[i]);
		used += n > 0 ? (size_t)n : 0;
	}
	return cli_usage_error(cmd, "missing subcommand (%s)", list);
}

int
cli_parse_subcommand(const struct cli_usage *cmd, int argc, char **argv,
    const char *const names[], size_t count, size_t *found)
{
	struct cli_suggestion s;
	char hint[256];
	size_t i;

	if (argc < 2)
		return missing_subcommand(cmd, names, count);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cli_show_help(cmd);
	for (i = 0; i < count; i++) {
		if (strcmp(argv[1], names[i]) == 0) {
			*found = i;
			return EXIT_OK;
		}
	}
	cli_suggest(argv[1], names, count, &s);
	cli_suggestion_text(&s, "", hint, sizeof(hint));
	return cli_usage_error(cmd, "unknown subcommand '%s'%s", argv[1], hint);
}

int
cli_show_help(const struct cli_usage *cmd)
{
	fputs(cmd->text, stdout);
	return CLI_HELP;
}

int
cli_parse_int64(const char *text, long long min, long long max,
    long long *out)
{
	char *end = NULL;
	long long value;

	/* Decimal digits, a '-' before them when negatives are allowed: no
	 * space, '+', "-0" or anything else strtoll would take. */
	if (text == NULL || (text[0] == '-' ? min >= 0 || text[1] == '0' ||
	    text[1] == '\0' || strspn(text + 1, "0123456789") != strlen(text + 1) :
	    text[0] == '\0' || strspn(text, "0123456789") != strlen(text)))
		return -1;
	errno = 0;
	value = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || value < min ||
	    value > max)
		return -1;
	*out = value;
	return 0;
}

int
cli_parse_time(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	if (ps_time_parse(arg, (int64_t *)opt->value) != 0)
		return cli_usage_error(cmd, "--at must be an RFC 3339 UTC "
		    "time YYYY-MM-DDTHH:MM:SSZ, found '%s'", arg);
	return EXIT_OK;
}

int
cli_parse_limit(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	long long value;

	if (cli_parse_int64(arg, 0, LLONG_MAX, &value) != 0)
		return cli_usage_error(cmd, "--%s must be a whole number "
		    "from 0 (no limit) to %lld, found '%s'", opt->name,
		    LLONG_MAX, arg);
	*(uint64_t *)opt->value = (uint64_t)value;
	return EXIT_OK;
}

int
cli_parse_kdf(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	ps_kdf_level *level = opt->value;

	if (strcmp(arg, "sensitive") == 0)
		*level = PS_KDF_SENSITIVE;
	else if (strcmp(arg, "interactive") == 0)
		*level = PS_KDF_INTERACTIVE;
	else
		return cli_usage_error(cmd, "--kdf is 'sensitive' or "
		    "'interactive', found '%s'", arg);
	return EXIT_OK;
}

/* --mtime, else SOURCE_DATE_EPOCH; NULL when neither is given.  An empty
 * SOURCE_DATE_EPOCH counts as unset, the reproducible-builds convention
 * (build scripts export the variable empty when they have no date). */
static const char *
mtime_text(const char *flag_value, const char **origin)
{
	const char *env;

	if (flag_value != NULL) {
		*origin = "--mtime";
		return flag_value;
	}
	*origin = "SOURCE_DATE_EPOCH";
	env = getenv("SOURCE_DATE_EPOCH");
	return env != NULL && env[0] != '\0' ? env : NULL;
}

int
cli_mtime_option(const char *flag_value, ps_pack_options *options)
{
	const char *origin, *text = mtime_text(flag_value, &origin);
	long long value;
	ps_error err;

	if (text == NULL)
		return EXIT_OK;
	/* The library's code for a bad mtime, not "usage": the value may
	 * come from the environment, where a synopsis would not help. */
	if (cli_parse_int64(text, 0, PS_MTIME_MAX, &value) != 0) {
		cli_error_set(&err, PS_STATUS_FAILED, "invalid_mtime", origin,
		    "the mtime must be whole seconds since the epoch");
		snprintf(err.expected, sizeof(err.expected), "0 to %lld",
		    PS_MTIME_MAX);
		snprintf(err.found, sizeof(err.found), "'%s'", text);
		return cli_report(&err);
	}
	options->mtime = value;
	return EXIT_OK;
}

const char *
cli_lang_default(void)
{
	static const char *const variables[] = { "LC_ALL", "LC_MESSAGES",
	    "LANG" };
	const char *value;
	size_t i;

	for (i = 0; i < sizeof(variables) / sizeof(variables[0]); i++) {
		value = getenv(variables[i]);
		if (value != NULL && value[0] != '\0')
			return strncmp(value, "zh", 2) == 0 ? "zh" : "en";
	}
	return "en";
}

ps_lang
cli_lang_default_value(void)
{
	return strcmp(cli_lang_default(), "zh") == 0 ? PS_LANG_ZH : PS_LANG_EN;
}

int
cli_data_dir(const char *option, char **out)
{
	ps_error err;

	if (option != NULL) {
		*out = strdup(option);
		return *out != NULL ? EXIT_OK : cli_fail_oom();
	}
	if (ps_data_dir_default(out, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

int
cli_parse_format(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	if (ps_format_parse(arg, opt->value) != 0)
		return cli_usage_error(cmd, "unknown format '%s'; expected "
		    "soyapack, holon, autograph or agentpack", arg);
	return EXIT_OK;
}

int
cli_split_target(const struct cli_usage *cmd, const char *target,
    const char **at)
{
	const char *last = strrchr(target, '@');

	*at = last != NULL && last != target ? last : NULL;
	if (target[0] == '\0' || (*at != NULL && (*at)[1] == '\0'))
		return cli_usage_error(cmd, "expected ID or ID@VERSION, found "
		    "'%s'", target);
	return EXIT_OK;
}
