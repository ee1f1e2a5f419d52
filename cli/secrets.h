/* Internal header of cli/: passphrases and secret keys, where they come
 * from and how they are kept.
 */
#ifndef CLI_SECRETS_H
#define CLI_SECRETS_H

#include "packsign.h"
#include "cli/cli.h"

/* Where a passphrase may come from; checked in this order, then the tty. */
struct cli_passphrase_opts {
	const char *file;   /* --passphrase-file */
	const char *fd;     /* --passphrase-fd (text, parsed on use) */
	const char *env;    /* environment variable, e.g. PACKSIGN_PASSPHRASE */
};

/* Usage checks shared by the commands that take passphrase options. */
int cli_check_passphrase_options(const struct cli_usage *cmd,
    const struct cli_passphrase_opts *pass, int no_passphrase);

/* No core dumps, not ptrace-able by the same user: call before secrets. */
void cli_protect_secrets(void);
/* A passphrase (asked twice on the terminal when `confirm`); exit code. */
int cli_passphrase(const struct cli_usage *cmd,
    const struct cli_passphrase_opts *o, const char *prompt, int confirm,
    ps_secret **out);
/* Secret key text from PATH, "-" (stdin) or PACKSIGN_SECRET_KEY (NULL). */
int cli_read_seckey_text(const struct cli_usage *cmd, const char *path,
    ps_secret **text, const char **name);
/* Loads and decrypts a secret key; keeps the passphrase when asked. */
int cli_load_seckey(const struct cli_usage *cmd, const char *path,
    const struct cli_passphrase_opts *o, ps_seckey **key,
    ps_secret **passphrase);

#endif
