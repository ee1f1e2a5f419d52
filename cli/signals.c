/* Removing a temporary file when a signal ends the run. */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli/signals.h"

/*
 * The one piece of process-wide state: a signal handler can reach nothing
 * else.  It holds the temporary file to remove if the run is interrupted,
 * and the pipe a caught signal writes to, which wakes a wait for input
 * whether the signal came during it or just before it began.
 */
static char pending_removal[4096];
static volatile sig_atomic_t cancel_signal;
static int cancel_mode;              /* cli_cancel_on_signal() is active */
static int cancel_pipe[2] = { -1, -1 };

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

static void
cancel_deadline(int sig)
{
	(void)sig;
	if (pending_removal[0] != '\0')
		unlink(pending_removal);
	signal((int)cancel_signal, SIG_DFL);
	raise((int)cancel_signal);
}

static void
request_cancel(int sig)
{
	if (cancel_signal != 0)
		remove_and_reraise(sig);
	cancel_signal = sig;
	if (cancel_pipe[1] >= 0)
		(void)!write(cancel_pipe[1], "", 1);
	signal(SIGALRM, cancel_deadline);
	alarm(3);
}

void
cli_cancel_on_signal(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	cancel_mode = 1;
	if (cancel_pipe[0] < 0 && pipe2(cancel_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		cancel_pipe[0] = cancel_pipe[1] = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = request_cancel;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &sa, NULL);
}

int
cli_cancelled(void *ctx)
{
	(void)ctx;
	return cancel_signal != 0;
}

int
cli_cancel_fd(void)
{
	return cancel_pipe[0];
}

static void
close_cancel_pipe(void)
{
	if (cancel_pipe[0] < 0)
		return;
	close(cancel_pipe[0]);
	close(cancel_pipe[1]);
	cancel_pipe[0] = cancel_pipe[1] = -1;
}

void
cli_cancel_end(void)
{
	int sig = (int)cancel_signal;

	alarm(0);
	cancel_mode = 0;
	set_handlers(SIG_DFL);
	close_cancel_pipe();
	if (sig != 0) {
		if (pending_removal[0] != '\0')
			unlink(pending_removal);
		raise(sig);
	}
}

void
cli_remove_on_signal(const char *path)
{
	if (path == NULL || strlen(path) >= sizeof(pending_removal)) {
		if (!cancel_mode)
			set_handlers(SIG_DFL);
		pending_removal[0] = '\0';
		return;
	}
	memcpy(pending_removal, path, strlen(path) + 1);
	if (!cancel_mode)
		set_handlers(remove_and_reraise);
}
