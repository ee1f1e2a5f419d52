#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pack/tarwrite.h"
#include "pack/walk.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/locale.h"
#include "util/pathname.h"
#include "util/strings.h"

/*
 * The walk reads directories on two threads (issue 8): with 100,000 files
 * it was half a second of fstatat(2) calls on one core while the other
 * idled.  Directories waiting to be read are shared; each thread adds the
 * entries it finds to a list of its own and sorts it, and the two sorted
 * lists are merged (one sort of 100,000 entries had been most of what
 * remained on one core before packing).  A directory is queued by path,
 * not by descriptor, so a wide tree cannot exhaust descriptors; it is
 * opened again below the root without following links and must still be
 * the directory that was seen.  When both threads meet a problem, the
 * first one recorded is reported.
 */
struct dir_job {
	char *disk;             /* below the root as on disk; "" the root */
	const char *canon;      /* canonical path, owned by an item list */
	dev_t dev;
	ino_t ino;
	struct dir_job *next;
};

struct walk_shared {
	int rootfd;
	const char *label;
	const pack_ignore *ignore;
	const struct stat *exclude;
	ps_strings *odd;        /* survey: what a pack cannot hold (1 thread) */
	int keep_special;       /* reading: links and devices become items
	                         * marked special instead of refusals */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct dir_job *todo;   /* directories waiting to be read */
	int reading;            /* directories being read */
	atomic_size_t entries;  /* found so far by both threads */
	atomic_int failed;
	ps_error error;         /* the first failure's */
};

/* One thread's view: the shared state and its own entries. */
struct walk {
	struct walk_shared *s;
	pack_items *items;
};

static int
is_excluded(const struct walk *w, const struct stat *st)
{
	return w->s->exclude != NULL && st->st_dev == w->s->exclude->st_dev &&
	    st->st_ino == w->s->exclude->st_ino;
}

/* ASCII case folded: on a case-insensitive file system `.Git` is the
 * repository's `.git` (git's CVE-2014-9390). */
int
pack_is_vcs_name(const char *name)
{
	return strcasecmp(name, ".git") == 0 || strcasecmp(name, ".hg") == 0 ||
	    strcasecmp(name, ".svn") == 0 || strcasecmp(name, ".bzr") == 0;
}

/* A Mac's AppleDouble files: a component starting "._" (copyfile's
 * twin of a file's extended attributes and resource fork, beside it) or
 * the top-level "__MACOSX" tree, where ditto sequesters the same twins. */
int
pack_is_appledouble_path(const char *path)
{
	const char *p = path;

	if (strncmp(path, "__MACOSX", 8) == 0 && (path[8] == '\0' ||
	    path[8] == '/'))
		return 1;
	while (*p != '\0') {
		if (p[0] == '.' && p[1] == '_')
			return 1;
		p += strcspn(p, "/");
		p += *p == '/';
	}
	return 0;
}

int
pack_refuse_appledouble(const char *where, const char *path, int archive,
    ps_error *err)
{
	if (archive)
		util_refuse(err, "appledouble_refused", where, "'%s' is AppleDouble "
		    "metadata a Mac adds (a ._ file or the __MACOSX/ tree): other "
		    "readers extract it as a file, so packsign neither skips nor "
		    "signs it; make the archive without it (ditto -c -k --norsrc "
		    "--noextattr SRC OUT.zip; COPYFILE_DISABLE=1 tar -cf OUT.tar "
		    "-C SRC .) or sign the directory (packsign sign DIR)", path);
	else
		util_refuse(err, "appledouble_refused", where, "'%s' is AppleDouble "
		    "metadata a Mac adds (a ._ file or the __MACOSX/ tree), which "
		    "packs do not hold; remove it (dot_clean DIR) or list it in "
		    ".packsignignore", path);
	return util_error_expect(err, "no ._ file and no __MACOSX/ tree",
	    "AppleDouble metadata");
}

static const char *
kind_of(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown file type";
}

int
pack_walk_refuse_special(const char *label, const char *path, mode_t mode,
    ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];

	snprintf(where, sizeof(where), "%s/%s", label, path);
	util_refuse(err, S_ISLNK(mode) ? "symlink_refused" : "special_file_refused",
	    where, "is %s; packs hold only regular files and directories",
	    kind_of(mode));
	return util_error_expect(err, "a regular file or a directory",
	    kind_of(mode));
}

/* Errors name the entry as the user sees it: LABEL/DISK-PATH.  Built
 * only on failure: a printf per entry showed in packing 100,000 files. */
static int
name_subject(const struct walk *w, const char *disk, ps_error *err)
{
	snprintf(err->subject, sizeof(err->subject), "%s/%s", w->s->label, disk);
	return -1;
}

/* Names as on disk become canonical (NFC) paths; `check` applies the name
 * rules at once (a survey), else check_name() does after the ignore rules. */
static int
canonical_path(const struct walk *w, const char *cprefix, const char *disk,
    const char *name, int check, char **out, ps_error *err)
{
	char *nfc;

	nfc = util_path_nfc(name, strlen(name));
	if (nfc == NULL && errno == EILSEQ) {
		util_refuse(err, "name_not_utf8", NULL,
		    "file name is not valid UTF-8");
		return name_subject(w, disk, err);
	}
	*out = nfc != NULL ? util_path_join(cprefix, nfc) : NULL;
	free(nfc);
	if (*out == NULL) {
		util_fail_oom(err, NULL);
		return name_subject(w, disk, err);
	}
	if (check && util_path_check(*out, *out, err) != 0) {
		free(*out);
		return name_subject(w, disk, err);
	}
	return 0;
}

/* The name rules of canonical-tar.md section 2; frees `canon` on refusal. */
static int
check_name(const struct walk *w, const char *disk, char *canon, ps_error *err)
{
	if (util_path_check(canon, canon, err) == 0)
		return 0;
	free(canon);
	return name_subject(w, disk, err);
}

/* Ignore rules come before the name rules: an ignored entry is never
 * examined, so an ignored "a\b" or "CON.txt" does not stop the pack.  A
 * name that is not UTF-8 has no NFC form to match and stays refused. */
static int
is_ignored(const struct walk *w, const char *canon, const struct stat *st)
{
	return w->s->odd == NULL && pack_ignore_match(w->s->ignore, canon,
	    S_ISDIR(st->st_mode)) && strcmp(canon, PACK_IGNORE_FILE) != 0 &&
	    ps_format_by_manifest(canon) == PS_FORMAT_UNKNOWN;
}

/* Limits of the canonical tar's headers, beyond the name rules. */
static int
check_storable(const char *where, const char *canon, const struct stat *st,
    ps_error *err)
{
	if (pack_is_appledouble_path(canon))
		return pack_refuse_appledouble(where, canon, 0, err);
	if (!pack_tar_path_fits(canon, S_ISDIR(st->st_mode)))
		return util_refuse(err, "name_too_long", where,
		    "path does not fit a tar header without truncation "
		    "(see canonical-tar.md, \"Names in headers\")");
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size >= PACK_TAR_SIZE_LIMIT)
		return util_refuse(err, "file_too_large", where,
		    "file is %lld bytes; the limit is 8 GiB",
		    (long long)st->st_size);
	return 0;
}

/* Queues a directory for whichever thread is free first. */
static int
queue_dir(struct walk_shared *s, const char *disk, const char *canon,
    const struct stat *st, ps_error *err)
{
	struct dir_job *job = calloc(1, sizeof(*job));

	if (job == NULL || (job->disk = strdup(disk)) == NULL) {
		free(job);
		return util_fail_oom(err, disk);
	}
	job->canon = canon;
	job->dev = st->st_dev;
	job->ino = st->st_ino;
	pthread_mutex_lock(&s->lock);
	job->next = s->todo;
	s->todo = job;
	pthread_cond_signal(&s->changed);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int
add_entry(const struct walk *w, const struct stat *st, const char *disk,
    char *canon, ps_error *err)
{
	pack_item *item;

	/* The limit holds for both threads' lists together, so memory stays
	 * bounded by it before they are merged. */
	if (atomic_fetch_add(&w->s->entries, 1) >= PACK_ITEMS_MAX) {
		free(canon);
		return util_refuse(err, "too_many_entries", NULL,
		    "a pack holds at most %d entries", PACK_ITEMS_MAX);
	}
	item = pack_items_add(w->items, canon, S_ISDIR(st->st_mode) ?
	    PS_ENTRY_DIR : PS_ENTRY_FILE, err);
	if (item == NULL)
		return -1;
	item->dev = st->st_dev;
	item->ino = st->st_ino;
	item->special = S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) ? 0 :
	    st->st_mode & S_IFMT;
	if (S_ISREG(st->st_mode)) {
		item->entry.size = (uint64_t)st->st_size;
		item->entry.executable = (st->st_mode & S_IXUSR) != 0;
	}
	if (strcmp(disk, canon) != 0 && (item->source = strdup(disk)) == NULL)
		return util_fail_oom(err, NULL);
	/* `canon` now belongs to the item list; it stays valid. */
	return S_ISDIR(st->st_mode) ? queue_dir(w->s, disk, canon, st, err) : 0;
}

/* A survey notes what a pack cannot hold instead of refusing it. */
static int
note_odd(const struct walk *w, const char *disk, const char *why,
    ps_error *err)
{
	char *line;
	int rc;

	if (asprintf(&line, "%s (%s)", disk, why) < 0)
		return util_fail_oom(err, disk);
	rc = util_strings_add(w->s->odd, line);
	free(line);
	return rc == 0 ? 0 : util_fail_oom(err, disk);
}

static int
visit_entry(const struct walk *w, const char *cprefix, const char *disk,
    const char *name, const struct stat *st, ps_error *err)
{
	char *canon = NULL;
	ps_error why;

	ps_error_clear(&why);
	if (is_excluded(w, st))
		return 0;
	if (canonical_path(w, cprefix, disk, name, w->s->odd != NULL, &canon,
	    w->s->odd != NULL ? &why : err) != 0) {
		if (w->s->odd == NULL)
			return -1;
		if (why.status == PS_STATUS_REFUSED)
			return note_odd(w, disk, why.code, err);
		*err = why;             /* out of memory: the survey's error */
		return -1;
	}
	if (w->s->odd != NULL && strcmp(strrchr(canon, '/') != NULL ?
	    strrchr(canon, '/') + 1 : canon, name) != 0) {
		free(canon);            /* renamed to another normal form */
		return note_odd(w, disk, "name not in NFC", err);
	}
	if (is_ignored(w, canon, st)) {
		free(canon);
		return 0;
	}
	if (w->s->odd == NULL && check_name(w, disk, canon, err) != 0)
		return -1;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) &&
	    w->s->keep_special)
		return add_entry(w, st, disk, canon, err);
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
		free(canon);
		return w->s->odd != NULL ? note_odd(w, disk, kind_of(st->st_mode),
		    err) : pack_walk_refuse_special(w->s->label, disk,
		    st->st_mode, err);
	}
	if (w->s->odd == NULL && check_storable(disk, canon, st, err) != 0) {
		free(canon);
		return -1;
	}
	return add_entry(w, st, disk, canon, err);
}

static int
visit(const struct walk *w, int dirfd, const char *dprefix,
    const char *cprefix, const char *name, ps_error *err)
{
	struct stat st;
	char *disk;
	int rc;

	if (w->s->odd == NULL && pack_is_vcs_name(name))
		return 0;
	disk = util_path_join(dprefix, name);
	if (disk == NULL)
		return util_fail_oom(err, NULL);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		rc = util_fail_errno(err, "io_error", disk, "stat", errno);
	else
		rc = visit_entry(w, cprefix, disk, name, &st, err);
	free(disk);
	return rc;
}

/* Opens a queued directory again: no link on the way, the same one. */
static int
open_dir(const struct walk *w, const struct dir_job *job, ps_error *err)
{
	struct stat st;
	int fd;

	fd = job->disk[0] == '\0' ? openat(w->s->rootfd, ".", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC) : util_open_beneath(w->s->rootfd, job->disk,
	    O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return util_fail_errno(err, "io_error", job->disk[0] == '\0' ?
		    w->s->label : job->disk, "open directory", errno);
	if (job->disk[0] != '\0' && (fstat(fd, &st) != 0 ||
	    st.st_dev != job->dev || st.st_ino != job->ino)) {
		close(fd);
		return util_fail(err, "file_changed", job->disk, "the directory was "
		    "replaced while it was being packed; pack again");
	}
	return fd;
}

static int
walk_dir(const struct walk *w, const struct dir_job *job, ps_error *err)
{
	int dirfd = open_dir(w, job, err), rc = 0;
	struct dirent *de;
	DIR *dir;

	if (dirfd < 0)
		return -1;
	dir = fdopendir(dirfd);
	if (dir == NULL) {
		close(dirfd);
		return util_fail_errno(err, "io_error", job->disk, "read directory",
		    errno);
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (de == NULL || atomic_load(&w->s->failed))
			break;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = visit(w, dirfd, job->disk, job->canon, de->d_name, err);
		if (rc != 0)
			break;
	}
	if (rc == 0 && de == NULL && errno != 0)
		rc = util_fail_errno(err, "io_error", job->disk, "read directory",
		    errno);
	closedir(dir);
	return rc;
}

/* The next directory to read, or NULL once all are read or one failed;
 * `done` is the one just read (NULL at first). */
static struct dir_job *
next_dir(struct walk_shared *s, struct dir_job *done)
{
	struct dir_job *job = NULL;

	pthread_mutex_lock(&s->lock);
	if (done != NULL && --s->reading == 0)
		pthread_cond_broadcast(&s->changed);
	while (s->todo == NULL && s->reading > 0 && !atomic_load(&s->failed))
		pthread_cond_wait(&s->changed, &s->lock);
	if (s->todo != NULL && !atomic_load(&s->failed)) {
		job = s->todo;
		s->todo = job->next;
		s->reading++;
	}
	pthread_mutex_unlock(&s->lock);
	if (done != NULL) {
		free(done->disk);
		free(done);
	}
	return job;
}

static void
record_failure(struct walk_shared *s, const ps_error *err)
{
	pthread_mutex_lock(&s->lock);
	if (!atomic_load(&s->failed)) {
		s->error = *err;
		atomic_store(&s->failed, 1);
	}
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
}

/* Reads directories while there are any, then sorts what it found: the
 * two threads' lists are sorted at the same time and merged. */
static void
read_dirs(struct walk *w)
{
	struct dir_job *job = NULL;
	ps_error err;

	ps_error_clear(&err);
	while ((job = next_dir(w->s, job)) != NULL) {
		if (walk_dir(w, job, &err) != 0)
			record_failure(w->s, &err);
	}
	if (!atomic_load(&w->s->failed))
		pack_items_sort(w->items);
}

/* The second thread: its own locale scope (ignore patterns) and list. */
static void *
run_helper(void *arg)
{
	struct walk *w = arg;
	util_locale_scope scope;
	ps_error err;

	if (util_locale_enter(&scope, &err) != 0) {
		record_failure(w->s, &err);
		return NULL;
	}
	read_dirs(w);
	util_locale_leave(&scope);
	return NULL;
}

static void
shared_free(struct walk_shared *s)
{
	struct dir_job *job;

	while ((job = s->todo) != NULL) {
		s->todo = job->next;
		free(job->disk);
		free(job);
	}
	pthread_cond_destroy(&s->changed);
	pthread_mutex_destroy(&s->lock);
}

/* Reads every directory, on a helper thread too unless surveying. */
static int
walk_tree(struct walk_shared *s, pack_items *items, ps_error *err)
{
	pack_items other = { NULL, 0, 0, 0 };
	struct walk mine = { s, items }, theirs = { s, &other };
	pthread_t helper;
	int helping = 0;
	struct stat root = { 0 };

	if (queue_dir(s, "", "", &root, err) != 0)
		return -1;
	if (s->odd == NULL)
		helping = pthread_create(&helper, NULL, run_helper, &theirs) == 0;
	read_dirs(&mine);
	if (helping)
		pthread_join(helper, NULL);
	if (!atomic_load(&s->failed) && pack_items_merge(items, &other, err) != 0)
		record_failure(s, err);
	pack_items_free(&other);
	if (!atomic_load(&s->failed))
		return 0;
	*err = s->error;
	return -1;
}

static int
walk(int rootfd, const char *label, const pack_ignore *ignore,
    const struct stat *exclude, ps_strings *odd, int keep_special,
    pack_items *items, ps_error *err)
{
	util_locale_scope scope;
	struct walk_shared s;
	int rc;

	/* fnmatch(3) of the ignore rules depends on the thread's locale: the
	 * calling thread matches in C.UTF-8 like the helper, whatever the
	 * host program set (found in review: a reader's listing changed from
	 * run to run with the thread that read each directory). */
	if (util_locale_enter(&scope, err) != 0)
		return -1;
	memset(&s, 0, sizeof(s));
	s.rootfd = rootfd;
	s.label = label;
	s.ignore = ignore;
	s.exclude = exclude;
	s.odd = odd;
	s.keep_special = keep_special;
	atomic_init(&s.entries, 0);
	atomic_init(&s.failed, 0);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.changed, NULL);
	rc = walk_tree(&s, items, err);
	shared_free(&s);
	util_locale_leave(&scope);
	return rc;
}

int
pack_walk_open_root(const char *dir, const char *code, ps_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		return util_fail(err, PS_CODE_NOT_FOUND, dir, "no such directory");
	if (errno == ENOTDIR)
		return util_fail(err, code, dir, "is not a directory");
	return util_fail_errno(err, "io_error", dir, "open", errno);
}

int
pack_walk(int rootfd, const char *label, const pack_ignore *ignore,
    pack_items *items, ps_error *err)
{
	return walk(rootfd, label, ignore, NULL, NULL, 0, items, err);
}

int
pack_walk_reading(int rootfd, const char *label, const pack_ignore *ignore,
    pack_items *items, ps_error *err)
{
	return walk(rootfd, label, ignore, NULL, NULL, 1, items, err);
}

int
pack_walk_excluding(int rootfd, const char *label, const pack_ignore *ignore,
    const struct stat *exclude, pack_items *items, ps_error *err)
{
	return walk(rootfd, label, ignore, exclude, NULL, 0, items, err);
}

int
pack_walk_survey(int rootfd, const char *label, pack_items *items,
    ps_strings *odd, ps_error *err)
{
	return walk(rootfd, label, NULL, NULL, odd, 0, items, err);
}
