/*
 * Plain-language summaries of what a pack may do, in English and Chinese,
 * as an installer shows them before install.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/manifest.h"
#include "util/error.h"

typedef struct text {
	FILE *f;
	ps_lang lang;
	char **owned;            /* scrubbed copies, freed at the end */
	size_t count;
	int oom;
} text;

#define T(t, en, zh) ((t)->lang == PS_LANG_ZH ? (zh) : (en))

/*
 * A manifest value made safe for one line of the summary: a newline or
 * control character in a name must not forge or hide a sentence.
 */
static const char *
v(text *t, const char *s)
{
	char **grown, *copy;

	if (s == NULL)
		return "?";
	/* Fast path: nothing formats_check_scrub would change (C0, DEL, and
	 * the lead bytes of C1 and of the invisible controls). */
	if (strpbrk(s, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r"
	    "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b"
	    "\x1c\x1d\x1e\x1f\x7f\xc2\xe2\xef") == NULL)
		return s;
	grown = realloc(t->owned, (t->count + 1) * sizeof(*grown));
	if (grown == NULL || (copy = strdup(s)) == NULL) {
		if (grown != NULL)
			t->owned = grown;
		t->oom = 1;
		return "?";
	}
	t->owned = grown;
	formats_check_scrub(copy);
	t->owned[t->count++] = copy;
	return copy;
}

/* Writes the items of a list joined by ", " (or "、"). */
static void
join(text *t, const ps_strings *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		fprintf(t->f, "%s%s", i > 0 ? T(t, ", ", "、") : "",
		    v(t, list->items[i]));
}

static void
header(text *t, const ps_manifest *m)
{
	int named = m->name != NULL && (m->id == NULL ||
	    strcmp(m->name, m->id) != 0);
	char *first;

	fprintf(t->f, "%s %s (%s)%s%s\n", v(t, m->id), v(t, m->version),
	    ps_format_name(m->format), named != 0 ? ": " : "",
	    named != 0 ? v(t, m->name) : "");
	if (m->description == NULL)
		return;
	first = strndup(m->description, strcspn(m->description, "\n"));
	if (first == NULL) {
		t->oom = 1;
		return;
	}
	fprintf(t->f, "%s\n", v(t, first));
	free(first);
}

static const char *
file_write_text(text *t, const char *fw)
{
	if (fw != NULL && strcmp(fw, "knowledge") == 0)
		return T(t, "writes to the workspace and the knowledge base",
		    "写入 workspace 和本地知识库");
	if (fw != NULL && strcmp(fw, "workspace") == 0)
		return T(t, "writes to the workspace", "写入 workspace");
	return T(t, "writes no files", "不写入任何文件");
}

static void
agentpack(text *t, const ps_manifest *m)
{
	const ps_permissions *p = &m->permissions;

	fprintf(t->f, "%s", T(t, "This agent pack ", "此智能体包将"));
	fprintf(t->f, "%s", p->read_knowledge != 0 ?
	    T(t, "reads your knowledge base", "读取本地知识库") :
	    T(t, "does not read your knowledge base", "不读取本地知识库"));
	if (p->read_filesystem != 0)
		fprintf(t->f, "%s", T(t, ", reads files outside the knowledge "
		    "base and the workspace", "，读取知识库和 workspace 以外的文件"));
	fprintf(t->f, "%s%s", T(t, ", ", "，"), file_write_text(t, p->file_write));
	fprintf(t->f, "%s%s", T(t, ", ", "，"), p->shell != 0 ?
	    T(t, "runs shell commands", "执行 shell 命令") :
	    T(t, "runs no shell commands", "不执行 shell"));
	fprintf(t->f, "%s%s%s\n", T(t, " and ", "，"), p->network != 0 ?
	    T(t, "accesses the network", "访问网络") :
	    T(t, "does not access the network", "不访问网络"),
	    T(t, ".", "。"));
}

static void
egress_list(text *t, const ps_manifest *m)
{
	size_t i;

	for (i = 0; i < m->egress_count; i++) {
		fprintf(t->f, "%s%s", i > 0 ? T(t, ", ", "、") : "",
		    v(t, m->egress[i].host));
		if (m->egress[i].port != 0)
			fprintf(t->f, ":%u", m->egress[i].port);
		if (m->egress[i].protocol != NULL)
			fprintf(t->f, " (%s)", v(t, m->egress[i].protocol));
	}
}

static const char *
tier_text(text *t, const char *tier)
{
	if (tier == NULL)
		return T(t, "undeclared", "未声明");
	if (strcmp(tier, "read-only") == 0)
		return T(t, "read-only: the same input gives the same output, "
		    "results may be cached", "read-only：相同输入得到相同输出，"
		    "结果可缓存");
	if (strcmp(tier, "side-effect") == 0)
		return T(t, "side-effect: runs have effects outside, never "
		    "cached", "side-effect：运行会产生外部副作用，从不缓存");
	return T(t, "unrestricted: no reproducibility promise",
	    "unrestricted：不承诺可复现");
}

static void
soyapack(text *t, const ps_manifest *m)
{
	if (m->egress_count > 0) {
		fprintf(t->f, "%s", T(t, "It may connect to: ", "可访问的网络地址："));
		egress_list(t, m);
		fprintf(t->f, "%s\n", T(t, ".", "。"));
	} else {
		fprintf(t->f, "%s\n", T(t, "It makes no network connections.",
		    "不访问网络。"));
	}
	fprintf(t->f, "%s", T(t, "It may read: ", "可读取的路径："));
	if (m->fs_read.count == 0)
		fprintf(t->f, "%s", T(t, "nothing declared", "未声明"));
	join(t, &m->fs_read);
	fprintf(t->f, "%s", T(t, ". It may write: ", "。可写入的路径："));
	if (m->fs_write.count == 0)
		fprintf(t->f, "%s", T(t, "nothing", "无"));
	join(t, &m->fs_write);
	fprintf(t->f, "%s\n%s%s%s\n", T(t, ".", "。"),
	    T(t, "Determinism tier: ", "确定性等级："),
	    tier_text(t, m->determinism_tier), T(t, ".", "。"));
}

static void
holon_data(text *t, const ps_manifest *m)
{
	if (m->retention != NULL && strcmp(m->retention, "none") == 0)
		fprintf(t->f, "%s", T(t, "It keeps none of your data",
		    "不保留你的数据"));
	else
		fprintf(t->f, T(t, "It keeps your data for %s",
		    "保留你的数据 %s"), v(t, m->retention));
	fprintf(t->f, "%s%s", T(t, ", ", "，"), m->training_use == 1 ?
	    T(t, "uses it for training", "会用于训练") :
	    T(t, "does not use it for training", "不用于训练"));
	if (m->egress_count == 0) {
		fprintf(t->f, "%s\n", T(t, " and sends it nowhere else.",
		    "，不发送到其他地方。"));
		return;
	}
	fprintf(t->f, "%s", T(t, " and sends it to: ", "，会发送到："));
	egress_list(t, m);
	fprintf(t->f, "%s\n", T(t, ".", "。"));
}

static void
holon(text *t, const ps_manifest *m)
{
	holon_data(t, m);
	fprintf(t->f, T(t, "Worst-case price: %s per call (model %s), "
	    "charged on %s.\n", "每次调用最高价格：%s（计价模式 %s），收费条件："
	    "%s。\n"), v(t, m->price_worst_case), v(t, m->pricing_model),
	    v(t, m->charge_on));
	fprintf(t->f, T(t, "It runs at %s (MCP tool %s, timeout %lld s).\n",
	    "运行于 %s（MCP 工具 %s，超时 %lld 秒）。\n"),
	    v(t, m->endpoint), v(t, m->tool), m->timeout_s);
}

static void
autograph(text *t, const ps_manifest *m)
{
	fprintf(t->f, "%s", T(t, "It adds services: ", "新增服务："));
	if (m->services.count == 0)
		fprintf(t->f, "%s", T(t, "none", "无"));
	join(t, &m->services);
	fprintf(t->f, "%s", T(t, ". Tasks: ", "。任务："));
	if (m->tasks.count == 0)
		fprintf(t->f, "%s", T(t, "none", "无"));
	join(t, &m->tasks);
	fprintf(t->f, "%s\n", T(t, ".", "。"));
	if (m->engine_range != NULL)
		fprintf(t->f, T(t, "It needs an engine version %s.\n",
		    "需要引擎版本 %s。\n"), v(t, m->engine_range));
}

static void
prompts(text *t, const ps_manifest *m)
{
	size_t i;

	if (m->prompt_count == 0) {
		fprintf(t->f, "%s\n", T(t, "No prompt files besides the "
		    "manifest.", "除清单外没有提示词文件。"));
		return;
	}
	fprintf(t->f, "%s", T(t, "Prompt files: ", "提示词文件："));
	for (i = 0; i < m->prompt_count; i++)
		fprintf(t->f, "%s%s", i > 0 ? T(t, ", ", "、") : "",
		    v(t, m->prompts[i].path));
	fprintf(t->f, "%s\n", T(t, ".", "。"));
}

static void
capabilities(text *t, const ps_manifest *m)
{
	if (m->format == PS_FORMAT_AGENTPACK)
		agentpack(t, m);
	else if (m->format == PS_FORMAT_SOYAPACK)
		soyapack(t, m);
	else if (m->format == PS_FORMAT_HOLON)
		holon(t, m);
	else
		autograph(t, m);
}

static void
full_summary(text *t, const ps_manifest *m)
{
	header(t, m);
	capabilities(t, m);
	prompts(t, m);
	if (m->signed_by.count > 0) {
		fprintf(t->f, "%s", T(t, "Declared signers: ", "声明的签名者："));
		join(t, &m->signed_by);
		fprintf(t->f, "%s\n", T(t, ".", "。"));
	}
}

/* Runs `write` into a new string. */
static int
render(const ps_manifest *m, ps_lang lang,
    void (*write)(text *, const ps_manifest *), char **out, ps_error *err)
{
	text t = { NULL, lang, NULL, 0, 0 };
	size_t len = 0, i;
	int bad;

	*out = NULL;
	if ((t.f = open_memstream(out, &len)) == NULL)
		return util_fail_oom(err, "");
	write(&t, m);
	bad = ferror(t.f) != 0 || t.oom != 0;
	bad = fclose(t.f) != 0 || bad;
	for (i = 0; i < t.count; i++)
		free(t.owned[i]);
	free(t.owned);
	if (bad != 0) {
		free(*out);
		*out = NULL;
		return util_fail_oom(err, "");
	}
	return 0;
}

int
ps_manifest_describe(const ps_manifest *m, ps_lang lang, char **out,
    ps_error *err)
{
	return render(m, lang, full_summary, out, err);
}

int
ps_manifest_permissions(const ps_manifest *m, char **out, ps_error *err)
{
	char *p;

	if (render(m, PS_LANG_EN, capabilities, out, err) != 0)
		return -1;
	for (p = *out; *p != '\0'; p++) {
		if (*p == '\n')
			*p = p[1] != '\0' ? ' ' : '\0';
	}
	return 0;
}
