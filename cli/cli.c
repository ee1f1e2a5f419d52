/* Output and parsing helpers shared by the subcommands. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

void
cli_put_safe(FILE *out, const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		/* C0 controls, DEL, and C1 controls (U+0080-U+009F in UTF-8). */
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fprintf(out, "\\u%04x", p[1]);
			p++;
		} else
			fputc(*p, out);
	}
}

void
cli_print_error(const ps_error *err)
{
	char line[4 * PS_ERROR_TEXT_MAX];

	fputs("packsign: ", stderr);
	cli_put_safe(stderr, ps_error_format(err, line, sizeof(line)));
	fputc('\n', stderr);
}

int
cli_usage_error(const char *command, const char *fmt, ...)
{
	const struct cli_command *cmd = cli_find_command(command);
	const char *usage;
	va_list ap;

	fprintf(stderr, "packsign %s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " [usage]\n");
	if (cmd != NULL) {
		usage = cmd->usage;
		fprintf(stderr, "%.*s", (int)(strcspn(usage, "\n") + 1), usage);
	}
	return EXIT_FAILED;
}

int
cli_print_help(const char *command)
{
	const struct cli_command *cmd = cli_find_command(command);

	if (cmd == NULL)
		return EXIT_FAILED;
	fputs(cmd->usage, stdout);
	return EXIT_OK;
}

int
cli_parse_int64(const char *text, long long min, long long max,
    long long *out)
{
	char *end = NULL;
	long long value;

	if (text == NULL || *text == '\0' || *text == '+' || *text == ' ')
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
cli_mtime_option(const char *command, const char *flag_value,
    ps_pack_options *options)
{
	const char *text = flag_value;
	const char *origin = "--mtime";
	long long value;

	if (text == NULL) {
		text = getenv("SOURCE_DATE_EPOCH");
		origin = "SOURCE_DATE_EPOCH";
	}
	if (text == NULL)
		return 0;
	if (cli_parse_int64(text, 0, PS_MTIME_MAX, &value) != 0) {
		cli_usage_error(command, "%s must be whole seconds since the epoch "
		    "between 0 and %lld, found '%s'", origin, PS_MTIME_MAX, text);
		return -1;
	}
	options->mtime = value;
	return 0;
}

/*
 * The one piece of process-wide state: a signal handler can reach nothing
 * else.  It holds the temporary file to remove if the run is interrupted.
 */
static char pending_removal[4096];

static void
remove_and_reraise(int sig)
{
	if (pending_removal[0] != '\0')
		unlink(pending_removal);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
set_handlers(void (*handler)(int))
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &sa, NULL);
}

void
cli_remove_on_signal(const char *path)
{
	if (path == NULL || strlen(path) >= sizeof(pending_removal)) {
		set_handlers(SIG_DFL);
		pending_removal[0] = '\0';
		return;
	}
	memcpy(pending_removal, path, strlen(path) + 1);
	set_handlers(remove_and_reraise);
}

int
cli_load_policy(const char *policy_path, const char *pubkey_path,
    ps_trust **policy, ps_error *err)
{
	ps_pubkey *key = NULL;
	int rc;

	if (policy_path != NULL)
		return ps_trust_load_file(policy_path, policy, err);
	if (ps_pubkey_load_file(pubkey_path, &key, err) != 0)
		return -1;
	rc = ps_trust_from_pubkey(key, pubkey_path, policy, err);
	ps_pubkey_free(key);
	return rc;
}
