/*
 * Passphrases and secret keys in the CLI: passphrase sources (terminal
 * without echo, a file, a descriptor, PACKSIGN_PASSPHRASE), secret key
 * sources (a file, stdin, PACKSIGN_SECRET_KEY) and keeping secrets out of
 * core dumps.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/output.h"
#include "cli/secrets.h"

/* Passphrase files may hold more than one line; only the first counts. */
#define PASSPHRASE_SOURCE_MAX (64 * 1024)

void
cli_protect_secrets(void)
{
	struct rlimit none = { 0, 0 };

	/* Best effort: failing to lower a limit leaves it as it was. */
	(void)setrlimit(RLIMIT_CORE, &none);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int
cli_check_passphrase_options(const struct cli_usage *cmd,
    const struct cli_passphrase_opts *pass, int no_passphrase)
{
	if (pass->file != NULL && pass->fd != NULL)
		return cli_usage_error(cmd, "--passphrase-file and "
		    "--passphrase-fd exclude each other");
	if (no_passphrase && (pass->file != NULL || pass->fd != NULL))
		return cli_usage_error(cmd, "--no-passphrase excludes "
		    "--passphrase-file and --passphrase-fd");
	return EXIT_OK;
}

static int
read_tty_line(int fd, ps_secret *secret)
{
	unsigned char *buf = ps_secret_data(secret), c;
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || c == '\n')
			break;
		if (len == ps_secret_capacity(secret))
			return -1;
		buf[len++] = c;
	}
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	return ps_secret_set_len(secret, len);
}

/*
 * Echo is off while the passphrase is typed.  Signals that would stop or
 * end the process are held until the terminal is restored, so that an
 * interrupted prompt never leaves the terminal without echo.
 */
static int
prompt_once(int fd, const char *prompt, ps_secret **out, ps_error *err)
{
	struct termios saved, quiet;
	sigset_t hold, before;
	int rc;

	*out = ps_secret_new(PS_PASSPHRASE_MAX);
	if (*out == NULL)
		return cli_error_oom(err);
	if (tcgetattr(fd, &saved) != 0)
		return cli_error_set(err, PS_STATUS_FAILED,
		    "passphrase_required", "/dev/tty",
		    "cannot configure the terminal");
	quiet = saved;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGQUIT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGTSTP);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &before);
	(void)tcsetattr(fd, TCSAFLUSH, &quiet);
	(void)!write(fd, prompt, strlen(prompt));
	rc = read_tty_line(fd, *out);
	(void)tcsetattr(fd, TCSAFLUSH, &saved);
	(void)!write(fd, "\n", 1);
	sigprocmask(SIG_SETMASK, &before, NULL);
	if (rc != 0)
		return cli_error_set(err, PS_STATUS_FAILED,
		    "passphrase_invalid", "/dev/tty",
		    "the passphrase is too long");
	if (ps_secret_len(*out) == 0)
		return cli_error_set(err, PS_STATUS_FAILED,
		    "passphrase_invalid", "/dev/tty",
		    "the passphrase is empty");
	return 0;
}

static int
prompt_tty(const char *prompt, int confirm, ps_secret **out, ps_error *err)
{
	ps_secret *again = NULL;
	int fd, rc;

	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return cli_error_set(err, PS_STATUS_FAILED,
		    "passphrase_required", "", "no terminal to ask for the "
		    "passphrase; use --passphrase-file, --passphrase-fd or "
		    "PACKSIGN_PASSPHRASE");
	rc = prompt_once(fd, prompt, out, err);
	if (rc == 0 && confirm) {
		rc = prompt_once(fd, "Passphrase (again): ", &again, err);
		if (rc == 0 && !ps_secret_equal(*out, again))
			rc = cli_error_set(err, PS_STATUS_FAILED,
			    "passphrase_mismatch", "/dev/tty",
			    "the two passphrases differ");
	}
	ps_secret_free(again);
	close(fd);
	return rc;
}

static int
from_fd_text(const struct cli_usage *cmd, const char *text, ps_secret **out,
    ps_error *err)
{
	long long fd;

	if (cli_parse_int64(text, 0, INT_MAX, &fd) != 0) {
		cli_usage_error(cmd, "--passphrase-fd takes a file "
		    "descriptor number, found '%s'", text);
		return -2;
	}
	return ps_secret_read_fd((int)fd, PASSPHRASE_SOURCE_MAX,
	    "--passphrase-fd", out, err);
}

static int
from_env(const char *name, ps_secret **out, ps_error *err)
{
	char *value = getenv(name);

	/* Callers choose this source because the variable is set. */
	if (value == NULL)
		return cli_error_set(err, PS_STATUS_FAILED,
		    "passphrase_required", name, "is not set");
	*out = ps_secret_from(value, strlen(value));
	/* The copy is in guarded memory; the environment's must not linger
	 * or reach child processes. */
	explicit_bzero(value, strlen(value));
	unsetenv(name);
	if (*out == NULL)
		return cli_error_oom(err);
	return 0;
}

/* Reads the raw source; -2 means a usage error was already printed. */
static int
read_source(const struct cli_usage *cmd, const struct cli_passphrase_opts *o,
    const char **name, ps_secret **out, ps_error *err)
{
	if (o->file != NULL) {
		*name = o->file;
		return ps_secret_read_file(o->file, PASSPHRASE_SOURCE_MAX, out,
		    err);
	}
	if (o->fd != NULL) {
		*name = "--passphrase-fd";
		return from_fd_text(cmd, o->fd, out, err);
	}
	*name = o->env;
	return from_env(o->env, out, err);
}

int
cli_passphrase(const struct cli_usage *cmd, const struct cli_passphrase_opts *o,
    const char *prompt, int confirm, ps_secret **out)
{
	const char *name = "";
	ps_error err;
	int rc;

	*out = NULL;
	if (o->file == NULL && o->fd == NULL && getenv(o->env) == NULL)
		rc = prompt_tty(prompt, confirm, out, &err);
	else if ((rc = read_source(cmd, o, &name, out, &err)) == 0)
		rc = ps_secret_passphrase_line(*out, name, &err);
	if (rc == 0 && ps_secret_len(*out) > PS_PASSPHRASE_MAX)
		rc = cli_error_set(&err, PS_STATUS_FAILED,
		    "passphrase_invalid", name,
		    "the passphrase is longer than 1024 bytes");
	if (rc == 0)
		return EXIT_OK;
	ps_secret_free(*out);
	*out = NULL;
	return rc == -2 ? EXIT_FAILED : cli_report(&err);
}

int
cli_read_seckey_text(const struct cli_usage *cmd, const char *path,
    ps_secret **text, const char **name)
{
	ps_error err;
	int rc;

	*text = NULL;
	if (path == NULL && getenv("PACKSIGN_SECRET_KEY") == NULL)
		return cli_usage_error(cmd, "a secret key is required: "
		    "-s FILE, -s - (stdin) or PACKSIGN_SECRET_KEY");
	if (path == NULL) {
		*name = "PACKSIGN_SECRET_KEY";
		rc = from_env(*name, text, &err);
	} else if (strcmp(path, "-") == 0) {
		*name = "stdin";
		rc = ps_secret_read_fd(STDIN_FILENO, PS_KEY_FILE_MAX, *name,
		    text, &err);
	} else {
		*name = path;
		rc = ps_secret_read_file(path, PS_KEY_FILE_MAX, text, &err);
	}
	return rc == 0 ? EXIT_OK : cli_report(&err);
}

/* Tries of a passphrase typed on the terminal, as sudo and ssh give. */
#define PASSPHRASE_TRIES 3

/*
 * Decrypts the key `text`, asking for its passphrase when it is encrypted.
 * A passphrase typed on the terminal that is wrong is asked for again, up
 * to PASSPHRASE_TRIES in all; one from a file, a descriptor or the
 * environment is tried once (asking again would read the same).
 */
static int
unlock(const struct cli_usage *cmd, const ps_secret *text, const char *name,
    const struct cli_passphrase_opts *o, int encrypted, ps_seckey **key,
    ps_secret **pass)
{
	int tries = encrypted && o->file == NULL && o->fd == NULL &&
	    getenv(o->env) == NULL ? PASSPHRASE_TRIES : 1, i, rc;
	char prompt[PS_ERROR_TEXT_MAX];
	ps_error err;

	snprintf(prompt, sizeof(prompt), "Passphrase for %s: ", name);
	for (i = 1;; i++) {
		*pass = NULL;
		if (encrypted && (rc = cli_passphrase(cmd, o, prompt, 0, pass)) !=
		    EXIT_OK)
			return rc;
		if (ps_seckey_parse(ps_secret_bytes(text), ps_secret_len(text),
		    name, *pass, key, &err) == 0)
			return EXIT_OK;
		ps_secret_free(*pass);
		*pass = NULL;
		if (i >= tries || !ps_error_is(&err, PS_CODE_WRONG_PASSPHRASE))
			return cli_report(&err);
		fputs("packsign: ", stderr);
		cli_put_safe(stderr, name);
		fprintf(stderr, ": wrong passphrase; try again (%d of %d)\n", i + 1,
		    tries);
	}
}

int
cli_load_seckey(const struct cli_usage *cmd, const char *path,
    const struct cli_passphrase_opts *o, ps_seckey **key,
    ps_secret **passphrase)
{
	ps_secret *text = NULL, *pass = NULL;
	ps_seckey_info info;
	const char *name = "";
	long long fd0;
	ps_error err;
	int rc;

	*key = NULL;
	if (path != NULL && strcmp(path, "-") == 0 && o->fd != NULL &&
	    cli_parse_int64(o->fd, 0, 0, &fd0) == 0)
		return cli_usage_error(cmd, "-s - and --passphrase-fd 0 "
		    "both read standard input");
	cli_protect_secrets();
	rc = cli_read_seckey_text(cmd, path, &text, &name);
	if (rc != EXIT_OK)
		return rc;
	if (ps_seckey_inspect(ps_secret_bytes(text), ps_secret_len(text), name,
	    &info, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = unlock(cmd, text, name, o, info.encrypted, key, &pass);
	ps_secret_free(text);
	if (rc == EXIT_OK && passphrase != NULL)
		*passphrase = pass;
	else
		ps_secret_free(pass);
	return rc;
}
