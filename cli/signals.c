/* Removing a temporary file when a signal ends the run. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli/signals.h"

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
