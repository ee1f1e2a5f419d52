/*
 * Progress of long work on stderr, only when stderr is a terminal and
 * --quiet was not given: one line redrawn at most ten times a second
 * ("packing: 1,204 / 100,008 files, 12.0 / 439.3 MiB, 85.1 MiB/s"),
 * erased when the work ends.  packsign prints no colour anywhere; with
 * NO_COLOR or TERM=dumb the line is padded with spaces instead of being
 * erased with an escape sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/progress.h"

#define MIB (1024.0 * 1024.0)
#define REDRAW_MS 100

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
plain_terminal(void)
{
	const char *term = getenv("TERM");

	return getenv("NO_COLOR") != NULL ||
	    (term != NULL && strcmp(term, "dumb") == 0);
}

/* PACKSIGN_PROGRESS_MS: the redraw interval (tests draw every update). */
static long long
redraw_interval(void)
{
	const char *s = getenv("PACKSIGN_PROGRESS_MS");
	char *end;
	long ms;

	if (s == NULL || *s == '\0')
		return REDRAW_MS * 1000000LL;
	ms = strtol(s, &end, 10);
	if (*end != '\0' || ms < 0 || ms > 60000)
		return REDRAW_MS * 1000000LL;
	return (long long)ms * 1000000LL;
}

static void
erase_line(const struct cli_progress *p)
{
	if (p->plain)
		fprintf(stderr, "\r%*s\r", p->width, "");
	else
		fputs("\r\033[K", stderr);
}

static void
draw(struct cli_progress *p, const ps_progress *s)
{
	double secs = (double)(now_ns() - p->started) / 1e9;
	char files[64], bytes[64];
	int n;

	if (s->files == 0 && s->files_total == 0 &&
	    strcmp(s->what, "downloading") == 0)
		snprintf(files, sizeof(files), "https");
	else if (s->files_total > 0)
		snprintf(files, sizeof(files), "%llu / %llu files",
		    (unsigned long long)s->files, (unsigned long long)s->files_total);
	else
		snprintf(files, sizeof(files), "%llu files",
		    (unsigned long long)s->files);
	if (s->bytes_total > 0)
		snprintf(bytes, sizeof(bytes), "%.1f / %.1f MiB",
		    (double)s->bytes / MIB, (double)s->bytes_total / MIB);
	else
		snprintf(bytes, sizeof(bytes), "%.1f MiB", (double)s->bytes / MIB);
	erase_line(p);
	n = fprintf(stderr, "%s: %s, %s, %.1f MiB/s", s->what, files, bytes,
	    secs > 0 ? (double)s->bytes / MIB / secs : 0.0);
	p->width = n > 0 ? n : 0;
	fflush(stderr);
	p->drawn = 1;
}

static void
on_progress(void *ctx, const ps_progress *s)
{
	struct cli_progress *p = ctx;
	long long t = now_ns();

	if (s->done) {
		if (p->drawn)
			erase_line(p);
		p->drawn = 0;
		return;
	}
	if (t - p->last < p->interval)
		return;
	p->last = t;
	draw(p, s);
}

ps_progress_sink
cli_progress_start(struct cli_progress *p, int quiet)
{
	ps_progress_sink sink = { NULL, NULL };

	memset(p, 0, sizeof(*p));
	if (quiet || !isatty(STDERR_FILENO))
		return sink;
	p->plain = plain_terminal();
	p->interval = redraw_interval();
	p->started = p->last = now_ns();
	sink.fn = on_progress;
	sink.ctx = p;
	return sink;
}

void
cli_progress_end(struct cli_progress *p)
{
	if (p->drawn)
		erase_line(p);
	p->drawn = 0;
}
