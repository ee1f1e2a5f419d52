/* Internal header of formats/: what a manifest format is.
 *
 * One descriptor per format holds everything packsign knows about it that
 * is not a validation rule: its name, its manifest file, where installs
 * put it, how an id maps to directories, and the functions that validate
 * it, find its conventional prompt files and say what it may do.  Each
 * format's file defines its descriptor; formats/format.c lists them.
 * Adding a format is one new file and one line there (README, "Adding a
 * manifest format").  Types only: the format files and the table use it,
 * it uses neither.
 */
#ifndef FORMATS_DESCRIPTOR_H
#define FORMATS_DESCRIPTOR_H

#include "packsign.h"
#include "formats/check.h"
#include "formats/permission.h"
#include "formats/text.h"
#include "util/yaml.h"

typedef struct formats_descriptor {
	ps_format format;
	const char *name;          /* "agentpack": --format, statements */
	const char *manifest;      /* "manifest.yml", at the pack root */
	const char *install_dir;   /* DIR/<install_dir>/<id>/<version>/ */
	int id_depth;              /* '/'-separated components of an id */
	/* Every rule of the format on the manifest mapping `root`: fills
	 * ck->m and adds each problem to ck's diagnostics.  Prompt files
	 * the manifest declares are added as their declarations are
	 * checked. */
	void (*validate)(formats_check *ck, const util_yaml_node *root);
	/* Adds the files that are prompts by the format's convention,
	 * whatever the manifest declares; NULL: the format has none. */
	void (*conventional_prompts)(formats_check *ck,
	    const util_yaml_node *root);
	/* Writes what the pack may do, one sentence a line. */
	void (*describe)(formats_text *t, const ps_manifest *m);
	/* What the pack may do, as data: every permission the format
	 * declares, in docs/formats/diff.md's order. */
	const formats_permission *permissions;
	size_t permission_count;
	/* Where the format keeps code (formats/codepath.c): "dir/" for all
	 * below dir, "dir/" followed by "*.ext" for dir's own files ending in .ext; NULL-terminated, or
	 * NULL. */
	const char *const *code_places;
} formats_descriptor;

extern const formats_descriptor formats_soyapack;
extern const formats_descriptor formats_holon;
extern const formats_descriptor formats_autograph;
extern const formats_descriptor formats_agentpack;

#endif
