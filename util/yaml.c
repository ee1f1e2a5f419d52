/*
 * Safe YAML: a tree built from libyaml's event API with positions on every
 * node.  The input is checked before libyaml sees it (size, UTF-8, NUL,
 * stray BOMs) and every event is checked as it arrives (anchors, aliases,
 * tags, depth, keys, several documents).  docs/formats/manifests.md, "Safe
 * YAML", is the specification.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unistr.h>
#include <yaml.h>

#include "util/error.h"
#include "util/yaml.h"

struct util_yaml_doc {
	util_yaml_node *root;
};

typedef struct yaml_ctx {
	yaml_parser_t parser;
	const char *name;
	ps_error *err;
} yaml_ctx;

/* A key as quoted in messages: bounded, control characters replaced. */
#define KEY_QUOTE_MAX 64

/* ------------------------------------------------------------ node tree */

static void
node_free(util_yaml_node *node)
{
	size_t i;

	if (node == NULL)
		return;
	for (i = 0; i < node->count; i++) {
		node_free(node->items[i]);
		if (node->keys != NULL)
			node_free(node->keys[i]);
	}
	free(node->items);
	free(node->keys);
	free((char *)node->value);
	free(node);
}

void
util_yaml_free(util_yaml_doc *doc)
{
	if (doc == NULL)
		return;
	node_free(doc->root);
	free(doc);
}

const util_yaml_node *
util_yaml_root(const util_yaml_doc *doc)
{
	return doc != NULL ? doc->root : NULL;
}

/* ---------------------------------------------------------------- errors */

static int refuse_at(yaml_ctx *ctx, const char *code, size_t line,
    size_t column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
refuse_at(yaml_ctx *ctx, const char *code, size_t line, size_t column,
    const char *fmt, ...)
{
	char subject[PS_ERROR_TEXT_MAX], msg[PS_ERROR_TEXT_MAX];
	va_list ap;

	snprintf(subject, sizeof(subject), "%s:%zu:%zu", ctx->name, line,
	    column);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return util_refuse(ctx->err, code, subject, "%s", msg);
}

/* Refusal at an event's start (libyaml marks are 0-based). */
static int refuse_event(yaml_ctx *ctx, const yaml_event_t *ev,
    const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
refuse_event(yaml_ctx *ctx, const yaml_event_t *ev, const char *code,
    const char *fmt, ...)
{
	char msg[PS_ERROR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return refuse_at(ctx, code, ev->start_mark.line + 1,
	    ev->start_mark.column + 1, "%s", msg);
}

static int
syntax_error(yaml_ctx *ctx)
{
	const yaml_parser_t *p = &ctx->parser;
	char what[PS_ERROR_TEXT_MAX];

	if (p->error == YAML_MEMORY_ERROR)
		return util_fail_oom(ctx->err, ctx->name);
	if (p->context != NULL)
		snprintf(what, sizeof(what), "%s %s",
		    p->problem != NULL ? p->problem : "invalid YAML",
		    p->context);
	else
		snprintf(what, sizeof(what), "%s",
		    p->problem != NULL ? p->problem : "invalid YAML");
	return refuse_at(ctx, "yaml_syntax", p->problem_mark.line + 1,
	    p->problem_mark.column + 1, "%s", what);
}

static int
next_event(yaml_ctx *ctx, yaml_event_t *ev)
{
	if (yaml_parser_parse(&ctx->parser, ev) == 0)
		return syntax_error(ctx);
	return 0;
}

static void
quote_key(const char *key, size_t len, char *out)
{
	size_t i, n = len < KEY_QUOTE_MAX ? len : KEY_QUOTE_MAX;

	/* Back up to a UTF-8 boundary so the quote stays valid text. */
	while (n < len && n > 0 && ((unsigned char)key[n] & 0xC0) == 0x80)
		n--;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)key[i];
		out[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (n < len)
		memcpy(out + n, "...", 4);
	else
		out[n] = '\0';
}

/* ------------------------------------------------------- input checking */

/* 1-based line and column (in characters) of byte offset `off`. */
static void
position_of(const char *data, size_t off, size_t *line, size_t *column)
{
	size_t i, start = 0;

	*line = 1;
	for (i = 0; i < off; i++) {
		if (data[i] == '\n') {
			(*line)++;
			start = i + 1;
		}
	}
	*column = 1;
	for (i = start; i < off; i++) {
		if (((unsigned char)data[i] & 0xC0) != 0x80)
			(*column)++;
	}
}

static int
refuse_byte(yaml_ctx *ctx, const char *data, size_t off, const char *what)
{
	size_t line, column;

	position_of(data, off, &line, &column);
	return refuse_at(ctx, "yaml_invalid_utf8", line, column, "%s", what);
}

/*
 * libyaml replaces some invalid sequences and misreads others; checking
 * the bytes first gives one precise refusal.  A BOM is allowed only as
 * the very first character.
 */
static int
check_input(yaml_ctx *ctx, const char *data, size_t len)
{
	const uint8_t *bad;
	const char *nul, *bom;
	size_t from;

	bad = u8_check((const uint8_t *)data, len);
	if (bad != NULL)
		return refuse_byte(ctx, data, (size_t)((const char *)bad - data),
		    "invalid UTF-8 byte sequence");
	nul = memchr(data, '\0', len);
	if (nul != NULL)
		return refuse_byte(ctx, data, (size_t)(nul - data),
		    "NUL byte in YAML text");
	from = (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) ? 3 : 0;
	bom = memmem(data + from, len - from, "\xEF\xBB\xBF", 3);
	if (bom != NULL)
		return refuse_byte(ctx, data, (size_t)(bom - data),
		    "byte order mark (U+FEFF) after the start of the text");
	return 0;
}

/* ------------------------------------------------ core-schema resolution */

static int
all_in(const char *s, const char *set)
{
	if (*s == '\0')
		return 0;
	return s[strspn(s, set)] == '\0';
}

static int
is_core_int(const char *s)
{
	if (strncmp(s, "0o", 2) == 0)
		return all_in(s + 2, "01234567");
	if (strncmp(s, "0x", 2) == 0)
		return all_in(s + 2, "0123456789abcdefABCDEF");
	if (*s == '-' || *s == '+')
		s++;
	return all_in(s, "0123456789");
}

static int
is_core_special_float(const char *s)
{
	static const char *const nans[] = { ".nan", ".NaN", ".NAN" };
	static const char *const infs[] = { ".inf", ".Inf", ".INF" };
	size_t i;

	for (i = 0; i < 3; i++) {
		if (strcmp(s, nans[i]) == 0)
			return 1;
	}
	if (*s == '-' || *s == '+')
		s++;
	for (i = 0; i < 3; i++) {
		if (strcmp(s, infs[i]) == 0)
			return 1;
	}
	return 0;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int
is_core_float(const char *s)
{
	size_t ints, fracs = 0;

	if (is_core_special_float(s))
		return 1;
	if (*s == '-' || *s == '+')
		s++;
	ints = strspn(s, "0123456789");
	s += ints;
	if (*s == '.') {
		fracs = strspn(s + 1, "0123456789");
		s += 1 + fracs;
	}
	if (ints == 0 && fracs == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (strspn(s, "0123456789") == 0)
			return 0;
		s += strspn(s, "0123456789");
	}
	return *s == '\0';
}

static util_yaml_type
resolve_plain(const char *s)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	static const char *const bools[] = { "true", "True", "TRUE", "false",
	    "False", "FALSE" };
	size_t i;

	for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
		if (strcmp(s, nulls[i]) == 0)
			return UTIL_YAML_NULL;
	}
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		if (strcmp(s, bools[i]) == 0)
			return UTIL_YAML_BOOL;
	}
	if (is_core_int(s))
		return UTIL_YAML_INT;
	if (is_core_float(s))
		return UTIL_YAML_FLOAT;
	return UTIL_YAML_STRING;
}

/* ------------------------------------------------------------ the parser */

static int parse_node(yaml_ctx *ctx, yaml_event_t *ev, unsigned depth,
    util_yaml_node **out);

static util_yaml_node *
node_new(yaml_ctx *ctx, const yaml_event_t *ev, util_yaml_kind kind)
{
	util_yaml_node *node = calloc(1, sizeof(*node));

	if (node == NULL) {
		util_fail_oom(ctx->err, ctx->name);
		return NULL;
	}
	node->kind = kind;
	node->line = (unsigned)ev->start_mark.line + 1;
	node->column = (unsigned)ev->start_mark.column + 1;
	return node;
}

/* Anchors and tags are refused wherever they appear. */
static int
check_properties(yaml_ctx *ctx, const yaml_event_t *ev,
    const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor != NULL)
		return refuse_event(ctx, ev, "yaml_anchor",
		    "anchor '&%s' refused: anchors and aliases are not allowed",
		    (const char *)anchor);
	if (tag != NULL)
		return refuse_event(ctx, ev, "yaml_tag",
		    "tag '%s' refused: explicit tags are not allowed",
		    (const char *)tag);
	return 0;
}

static int
scalar_text_ok(yaml_ctx *ctx, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;

	/* Escapes such as "\0" or "\ud800" can produce what the input lacked. */
	if (memchr(v, '\0', len) != NULL)
		return refuse_event(ctx, ev, "yaml_invalid_utf8",
		    "%s", "scalar contains a NUL character");
	if (u8_check((const uint8_t *)v, len) != NULL)
		return refuse_event(ctx, ev, "yaml_invalid_utf8",
		    "%s", "scalar is not valid UTF-8");
	return 0;
}

static int
parse_scalar(yaml_ctx *ctx, yaml_event_t *ev, util_yaml_node **out)
{
	util_yaml_node *node;
	char *value;

	if (check_properties(ctx, ev, ev->data.scalar.anchor,
	    ev->data.scalar.tag) != 0 || scalar_text_ok(ctx, ev) != 0)
		return -1;
	if ((node = node_new(ctx, ev, UTIL_YAML_SCALAR)) == NULL)
		return -1;
	value = malloc(ev->data.scalar.length + 1);
	if (value == NULL) {
		free(node);
		return util_fail_oom(ctx->err, ctx->name);
	}
	memcpy(value, ev->data.scalar.value, ev->data.scalar.length);
	value[ev->data.scalar.length] = '\0';
	node->value = value;
	node->length = ev->data.scalar.length;
	node->type = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ?
	    resolve_plain(value) : UTIL_YAML_STRING;
	*out = node;
	return 0;
}

/* Appends `item` (and `key` for mappings) to `node`, growing by doubling. */
static int
node_append(yaml_ctx *ctx, util_yaml_node *node, size_t *cap,
    util_yaml_node *key, util_yaml_node *item)
{
	util_yaml_node **items, **keys;
	size_t n = *cap == 0 ? 8 : *cap * 2;

	if (node->count == *cap) {
		items = realloc(node->items, n * sizeof(*items));
		if (items != NULL)
			node->items = items;
		keys = NULL;
		if (items != NULL && node->kind == UTIL_YAML_MAPPING) {
			keys = realloc(node->keys, n * sizeof(*keys));
			if (keys != NULL)
				node->keys = keys;
		}
		if (items == NULL || (node->kind == UTIL_YAML_MAPPING &&
		    keys == NULL))
			return util_fail_oom(ctx->err, ctx->name);
		*cap = n;
	}
	if (node->kind == UTIL_YAML_MAPPING)
		node->keys[node->count] = key;
	node->items[node->count++] = item;
	return 0;
}

/* Reads the next event and parses the node it starts. */
static int
parse_next(yaml_ctx *ctx, unsigned depth, util_yaml_node **out)
{
	yaml_event_t ev;
	int rc;

	if (next_event(ctx, &ev) != 0)
		return -1;
	rc = parse_node(ctx, &ev, depth, out);
	yaml_event_delete(&ev);
	return rc;
}

/* Peeks whether the next event is `end`; consumes it when it is. */
static int
at_end(yaml_ctx *ctx, yaml_event_type_t end, yaml_event_t *ev, int *done)
{
	if (next_event(ctx, ev) != 0)
		return -1;
	*done = ev->type == end;
	return 0;
}

static int
parse_sequence_items(yaml_ctx *ctx, util_yaml_node *seq, unsigned depth)
{
	yaml_event_t ev;
	util_yaml_node *item;
	size_t cap = 0;
	int done, rc;

	for (;;) {
		if (at_end(ctx, YAML_SEQUENCE_END_EVENT, &ev, &done) != 0)
			return -1;
		item = NULL;
		rc = done ? 0 : parse_node(ctx, &ev, depth, &item);
		yaml_event_delete(&ev);
		if (rc != 0 || done)
			return rc;
		if (node_append(ctx, seq, &cap, NULL, item) != 0) {
			node_free(item);
			return -1;
		}
	}
}

typedef struct key_ref {
	const util_yaml_node *key;
	size_t index;
} key_ref;

static int
key_ref_cmp(const void *a, const void *b)
{
	const key_ref *x = a, *y = b;
	size_t n = x->key->length < y->key->length ? x->key->length :
	    y->key->length;
	int c = memcmp(x->key->value, y->key->value, n);

	if (c != 0)
		return c;
	if (x->key->length != y->key->length)
		return x->key->length < y->key->length ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index);
}

static int
same_text(const util_yaml_node *a, const util_yaml_node *b)
{
	return a->length == b->length &&
	    memcmp(a->value, b->value, a->length) == 0;
}

static int
refuse_duplicate(yaml_ctx *ctx, const util_yaml_node *first,
    const util_yaml_node *again)
{
	char quoted[KEY_QUOTE_MAX + 4], msg[PS_ERROR_TEXT_MAX];

	quote_key(again->value, again->length, quoted);
	snprintf(msg, sizeof(msg), "duplicate key '%s' (first at line %u)",
	    quoted, first->line);
	return refuse_at(ctx, "yaml_duplicate_key", again->line,
	    again->column, "%s", msg);
}

/*
 * Keys are compared by their text, so `a`, "a" and 'a' collide.  Sorting
 * keeps a mapping with many keys O(n log n) instead of quadratic; the
 * refusal names the earliest repeated key.
 */
static int
check_duplicates(yaml_ctx *ctx, const util_yaml_node *map)
{
	key_ref *refs;
	size_t i, best = SIZE_MAX;
	const util_yaml_node *first = NULL;

	if (map->count < 2)
		return 0;
	if ((refs = calloc(map->count, sizeof(*refs))) == NULL)
		return util_fail_oom(ctx->err, ctx->name);
	for (i = 0; i < map->count; i++) {
		refs[i].key = map->keys[i];
		refs[i].index = i;
	}
	qsort(refs, map->count, sizeof(*refs), key_ref_cmp);
	for (i = 1; i < map->count; i++) {
		if (!same_text(refs[i].key, refs[i - 1].key))
			continue;
		/* refs[i - 1] opens its group: refs[i] is its first repeat. */
		if ((i == 1 || !same_text(refs[i - 1].key, refs[i - 2].key)) &&
		    refs[i].index < best) {
			best = refs[i].index;
			first = refs[i - 1].key;
		}
	}
	free(refs);
	return first != NULL ? refuse_duplicate(ctx, first, map->keys[best]) :
	    0;
}

static int
parse_key(yaml_ctx *ctx, yaml_event_t *ev, util_yaml_node **key)
{
	if (ev->type == YAML_SEQUENCE_START_EVENT ||
	    ev->type == YAML_MAPPING_START_EVENT)
		return refuse_event(ctx, ev, "yaml_complex_key", "%s",
		    "mapping key is a collection; keys must be scalars");
	return parse_node(ctx, ev, 0, key);
}

static int
parse_mapping_pairs(yaml_ctx *ctx, util_yaml_node *map, unsigned depth)
{
	yaml_event_t ev;
	util_yaml_node *key, *value;
	size_t cap = 0;
	int done, rc;

	for (;;) {
		if (at_end(ctx, YAML_MAPPING_END_EVENT, &ev, &done) != 0)
			return -1;
		key = NULL;
		rc = done ? 0 : parse_key(ctx, &ev, &key);
		yaml_event_delete(&ev);
		if (rc != 0 || done)
			return rc != 0 ? rc : check_duplicates(ctx, map);
		value = NULL;
		if (parse_next(ctx, depth, &value) != 0 ||
		    node_append(ctx, map, &cap, key, value) != 0) {
			node_free(key);
			node_free(value);
			return -1;
		}
	}
}

static int
parse_collection(yaml_ctx *ctx, yaml_event_t *ev, unsigned depth,
    util_yaml_node **out)
{
	int is_map = ev->type == YAML_MAPPING_START_EVENT;
	util_yaml_node *node;
	int rc;

	rc = is_map ? check_properties(ctx, ev, ev->data.mapping_start.anchor,
	    ev->data.mapping_start.tag) : check_properties(ctx, ev,
	    ev->data.sequence_start.anchor, ev->data.sequence_start.tag);
	if (rc != 0)
		return -1;
	if (depth > UTIL_YAML_MAX_DEPTH)
		return refuse_event(ctx, ev, "yaml_too_deep",
		    "collections nested deeper than %d levels",
		    UTIL_YAML_MAX_DEPTH);
	node = node_new(ctx, ev, is_map ? UTIL_YAML_MAPPING : UTIL_YAML_SEQUENCE);
	if (node == NULL)
		return -1;
	rc = is_map ? parse_mapping_pairs(ctx, node, depth) :
	    parse_sequence_items(ctx, node, depth);
	if (rc != 0) {
		node_free(node);
		return -1;
	}
	*out = node;
	return 0;
}

/* `depth` counts the collections enclosing this node. */
static int
parse_node(yaml_ctx *ctx, yaml_event_t *ev, unsigned depth,
    util_yaml_node **out)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return parse_scalar(ctx, ev, out);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return parse_collection(ctx, ev, depth + 1, out);
	case YAML_ALIAS_EVENT:
		return refuse_event(ctx, ev, "yaml_alias",
		    "alias '*%s' refused: anchors and aliases are not allowed",
		    (const char *)ev->data.alias.anchor);
	default:
		return refuse_event(ctx, ev, "yaml_syntax", "%s",
		    "unexpected YAML event");
	}
}

static int
expect_event(yaml_ctx *ctx, yaml_event_type_t type, yaml_event_t *ev)
{
	if (next_event(ctx, ev) != 0)
		return -1;
	if (ev->type != type) {
		refuse_event(ctx, ev, "yaml_syntax", "%s",
		    "unexpected YAML event");
		yaml_event_delete(ev);
		return -1;
	}
	return 0;
}

/* %TAG directives only serve custom tags, which are refused anyway. */
static int
check_document_start(yaml_ctx *ctx, yaml_event_t *ev)
{
	if (ev->data.document_start.tag_directives.start !=
	    ev->data.document_start.tag_directives.end)
		return refuse_event(ctx, ev, "yaml_tag", "%s",
		    "%TAG directive refused: explicit tags are not allowed");
	return 0;
}

static int
parse_document(yaml_ctx *ctx, yaml_event_t *ev, util_yaml_node **root)
{
	yaml_event_t end;

	if (check_document_start(ctx, ev) != 0 || parse_next(ctx, 0, root) != 0)
		return -1;
	if (expect_event(ctx, YAML_DOCUMENT_END_EVENT, &end) != 0)
		return -1;
	yaml_event_delete(&end);
	if (next_event(ctx, &end) != 0)
		return -1;
	if (end.type != YAML_STREAM_END_EVENT) {
		refuse_event(ctx, &end, "yaml_multiple_documents", "%s",
		    "a second YAML document starts here; one is allowed");
		yaml_event_delete(&end);
		return -1;
	}
	yaml_event_delete(&end);
	return 0;
}

static int
parse_stream(yaml_ctx *ctx, util_yaml_node **root)
{
	yaml_event_t ev;
	int rc = 0;

	if (expect_event(ctx, YAML_STREAM_START_EVENT, &ev) != 0)
		return -1;
	yaml_event_delete(&ev);
	if (next_event(ctx, &ev) != 0)
		return -1;
	if (ev.type == YAML_DOCUMENT_START_EVENT)
		rc = parse_document(ctx, &ev, root);
	else if (ev.type != YAML_STREAM_END_EVENT)
		rc = refuse_event(ctx, &ev, "yaml_syntax", "%s",
		    "unexpected YAML event");
	yaml_event_delete(&ev);
	if (rc != 0) {
		node_free(*root);
		*root = NULL;
	}
	return rc;
}

static int
refuse_too_large(const char *name, size_t len, ps_error *err)
{
	char expected[64], found[64];

	snprintf(expected, sizeof(expected), "at most %d bytes",
	    UTIL_YAML_MAX_BYTES);
	snprintf(found, sizeof(found), "%zu bytes", len);
	util_refuse(err, "yaml_too_large", name, "YAML text is too large");
	return util_error_expect(err, expected, found);
}

int
util_yaml_load(const char *data, size_t len, const char *name,
    util_yaml_doc **out, ps_error *err)
{
	yaml_ctx ctx;
	util_yaml_doc *doc;
	int rc;

	*out = NULL;
	memset(&ctx, 0, sizeof(ctx));
	ctx.name = name != NULL ? name : "<yaml>";
	ctx.err = err;
	if (data == NULL && len != 0)
		return util_fail(err, "invalid_argument", ctx.name,
		    "no YAML text given");
	if (data == NULL)
		data = "";
	if (len > UTIL_YAML_MAX_BYTES)
		return refuse_too_large(ctx.name, len, err);
	if (check_input(&ctx, data, len) != 0)
		return -1;
	if ((doc = calloc(1, sizeof(*doc))) == NULL)
		return util_fail_oom(err, ctx.name);
	if (yaml_parser_initialize(&ctx.parser) == 0) {
		free(doc);
		return util_fail_oom(err, ctx.name);
	}
	yaml_parser_set_encoding(&ctx.parser, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&ctx.parser, (const unsigned char *)data,
	    len);
	rc = parse_stream(&ctx, &doc->root);
	yaml_parser_delete(&ctx.parser);
	if (rc != 0) {
		util_yaml_free(doc);
		return -1;
	}
	*out = doc;
	return 0;
}

/* ------------------------------------------------------------ file input */

static int
read_open(const char *path, const char *name, ps_error *err)
{
	struct stat st;
	int fd, flags;

	/* O_NONBLOCK: opening a FIFO must not hang; cleared for reading. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", name, "cannot open", errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return util_fail(err, "io_error", name, "not a regular file");
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		close(fd);
		return util_fail_errno(err, "io_error", name, "fcntl", errno);
	}
	return fd;
}

/* Reads at most UTIL_YAML_MAX_BYTES + 1 bytes: one more means too large. */
static int
read_bounded(int fd, const char *name, char *buf, size_t *len, ps_error *err)
{
	char expected[64], found[64];
	ssize_t n;

	*len = 0;
	while (*len <= UTIL_YAML_MAX_BYTES) {
		n = read(fd, buf + *len, UTIL_YAML_MAX_BYTES + 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return util_fail_errno(err, "io_error", name, "read",
			    errno);
		if (n == 0)
			return 0;
		*len += (size_t)n;
	}
	snprintf(expected, sizeof(expected), "at most %d bytes",
	    UTIL_YAML_MAX_BYTES);
	snprintf(found, sizeof(found), "more than %d bytes", UTIL_YAML_MAX_BYTES);
	util_refuse(err, "yaml_too_large", name, "YAML file is too large");
	return util_error_expect(err, expected, found);
}

int
util_yaml_load_file(const char *path, const char *name, util_yaml_doc **out,
    ps_error *err)
{
	char *buf;
	size_t len;
	int fd, rc;

	*out = NULL;
	if (name == NULL)
		name = path;
	if ((fd = read_open(path, name, err)) < 0)
		return -1;
	if ((buf = malloc(UTIL_YAML_MAX_BYTES + 1)) == NULL) {
		close(fd);
		return util_fail_oom(err, name);
	}
	rc = read_bounded(fd, name, buf, &len, err);
	close(fd);
	if (rc == 0)
		rc = util_yaml_load(buf, len, name, out, err);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------- access */

/* Index of `key` in `map`, or -1. */
static long
key_index(const util_yaml_node *map, const char *key)
{
	size_t i, len;

	if (map == NULL || map->kind != UTIL_YAML_MAPPING || key == NULL)
		return -1;
	len = strlen(key);
	for (i = 0; i < map->count; i++) {
		if (map->keys[i]->length == len &&
		    memcmp(map->keys[i]->value, key, len) == 0)
			return (long)i;
	}
	return -1;
}

const util_yaml_node *
util_yaml_get_key(const util_yaml_node *map, const char *key)
{
	long i = key_index(map, key);

	return i < 0 ? NULL : map->keys[i];
}

const util_yaml_node *
util_yaml_get(const util_yaml_node *map, const char *key)
{
	long i = key_index(map, key);

	return i < 0 ? NULL : map->items[i];
}

const char *
util_yaml_describe(const util_yaml_node *node)
{
	static const char *const types[] = { "null", "boolean", "integer",
	    "float", "string" };

	if (node == NULL)
		return "nothing";
	if (node->kind == UTIL_YAML_SEQUENCE)
		return "sequence";
	if (node->kind == UTIL_YAML_MAPPING)
		return "mapping";
	if ((unsigned)node->type < sizeof(types) / sizeof(types[0]))
		return types[node->type];
	return "scalar";
}

static int
is_scalar_of(const util_yaml_node *node, util_yaml_type type)
{
	return node != NULL && node->kind == UTIL_YAML_SCALAR &&
	    node->type == type;
}

int
util_yaml_bool(const util_yaml_node *node, int *out)
{
	if (!is_scalar_of(node, UTIL_YAML_BOOL))
		return -1;
	*out = node->value[0] == 't' || node->value[0] == 'T';
	return 0;
}

/* Parses digits in `base` with a sign; -1 on overflow. */
static int
parse_integer(const char *digits, int base, int negative, long long *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(digits, &end, base);
	if (errno != 0 || *end != '\0' || end == digits)
		return -1;
	if (negative) {
		if (v > (unsigned long long)LLONG_MAX + 1)
			return -1;
		*out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN :
		    -(long long)v;
		return 0;
	}
	if (v > (unsigned long long)LLONG_MAX)
		return -1;
	*out = (long long)v;
	return 0;
}

int
util_yaml_int(const util_yaml_node *node, long long *out)
{
	const char *s;

	if (!is_scalar_of(node, UTIL_YAML_INT))
		return -1;
	s = node->value;
	if (strncmp(s, "0o", 2) == 0)
		return parse_integer(s + 2, 8, 0, out);
	if (strncmp(s, "0x", 2) == 0)
		return parse_integer(s + 2, 16, 0, out);
	if (*s == '-')
		return parse_integer(s + 1, 10, 1, out);
	return parse_integer(*s == '+' ? s + 1 : s, 10, 0, out);
}

/* strtod in the "C" locale: the host program's LC_NUMERIC must not matter. */
static int
strtod_c(const char *s, double *out)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	char *end;

	if (c == (locale_t)0)
		return -1;
	*out = strtod_l(s, &end, c);
	freelocale(c);
	return *end == '\0' && end != s ? 0 : -1;
}

static int
special_float(const char *s, double *out)
{
	double sign = 1.0;

	if (s[0] == '.' && (s[1] == 'n' || s[1] == 'N')) {
		*out = NAN;
		return 0;
	}
	if (*s == '-' || *s == '+')
		sign = *s++ == '-' ? -1.0 : 1.0;
	if (*s != '.')
		return -1;
	*out = sign * INFINITY;
	return 0;
}

int
util_yaml_number(const util_yaml_node *node, double *out)
{
	long long i;

	if (is_scalar_of(node, UTIL_YAML_INT)) {
		if (util_yaml_int(node, &i) == 0) {
			*out = (double)i;
			return 0;
		}
		/* Decimal beyond 64 bits still has a (rounded) value. */
		if (strncmp(node->value, "0o", 2) == 0 ||
		    strncmp(node->value, "0x", 2) == 0)
			return -1;
		return strtod_c(node->value, out);
	}
	if (!is_scalar_of(node, UTIL_YAML_FLOAT))
		return -1;
	if (special_float(node->value, out) == 0)
		return 0;
	return strtod_c(node->value, out);
}

const char *
util_yaml_string(const util_yaml_node *node)
{
	return is_scalar_of(node, UTIL_YAML_STRING) ? node->value : NULL;
}
