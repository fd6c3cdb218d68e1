/* SPDX-License-Identifier: MIT */
#include "tui/diffcmd.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "config/escape.h"
#include "config/util.h"
#include "review/changes-apply.h"
#include "tui/diff.h"
#include "tui/diffcmd-int.h"
#include "tui/usage.h"

static const char diffcmd_diff_help[] =
"Usage: ward diff [RUN] [PATH...] [--stat] [--json] [--color=WHEN]\n"
"\n"
"Show what a run changed in its projects (--project) and has not been\n"
"applied: a patch in git's format, paths relative to the project root, that\n"
"'git apply' and 'patch -p1' take in a copy of the project. RUN is a run id\n"
"or --name (default: the most recent run with projects); PATH (relative to\n"
"the project root, or absolute) picks files or folders. Writes outside\n"
"answered 'ward stage' follow, paths from / ('patch -p1 -d /' takes them),\n"
"picked by their absolute path.\n"
"\n"
"Options:\n"
"  -s, --stat          one line per file: its kind, +/- line counts and\n"
"                      size; a 'held:' line under a held file\n"
"  -j, --json          one JSON array of {project, host, outside, path,\n"
"                      git_path, from, kind, old_mode, new_mode, size,\n"
"                      allocated, binary, added, deleted, sha256,\n"
"                      protected, held, patch}: sha256 of the staged\n"
"                      bytes ('-' for a deletion), which 'ward apply\n"
"                      --reviewed' takes back; protected the pattern\n"
"                      that protects it, held why apply leaves it\n"
"      --color=WHEN    auto (a terminal), always or never\n"
"  -h, --help          show this help\n"
"\n"
"A rename is a deleted and an added file of the same bytes, or at least\n"
"50% alike by libgit2's measure (shown with its hunks); binary files are\n"
"git binary patches; a file over 8 MiB is a '# ward:' line instead. File\n"
"names are quoted as git quotes them (core.quotePath): a name with a\n"
"control byte, '\"', '\\', DEL or a byte from 0x80 in double quotes with\n"
"C escapes, so that no name can start a line of the patch or reach the\n"
"terminal raw.\n"
"Exit status: 0 ok, 1 no such run or nothing at a PATH, 2 usage.\n";

/* ward diff: a run's staged changes as a patch, a --stat or --json. */

static void
diffcmd_colour(const char *patch, size_t len, bool colour, FILE *out)
{
	const char *s = patch, *end = patch + len;

	if (!colour) {
		fwrite(patch, 1, len, out);
		return;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *pen = NULL;

		if (n >= 3 && (str_has_prefix(s, "+++") ||
		    str_has_prefix(s, "---")))
			pen = "\033[1m";
		else if (s[0] == '+')
			pen = "\033[32m";
		else if (s[0] == '-')
			pen = "\033[31m";
		else if (s[0] == '@')
			pen = "\033[36m";
		else if (s[0] != ' ' && s[0] != '\\')
			pen = "\033[1m";
		if (pen != NULL)
			fputs(pen, out);
		fwrite(s, 1, n, out);
		if (pen != NULL)
			fputs("\033[m", out);
		fputc('\n', out);
		s += n + 1;
	}
}

struct diffcmd_diff_opts {
	bool		 stat;
	bool		 json;
	bool		 colour;
};

/*
 * ch's patch into *buf, and in sha256 the hash of the staged bytes it was
 * made from: taken before the patch and again after, so that a file the
 * run rewrites meanwhile is read again (a few times, then refused) and a
 * review never pairs one content's patch with another's hash. sha256
 * NULL: the patch alone.
 */
static int
diffcmd_patch_steady(const struct changes_project *p, const struct change *ch,
    char **buf, size_t *len, struct diff_stat *st, char sha256[65],
    char **cause)
{
	char again[65];
	FILE *m;
	int r;

	for (int tries = 0; tries < 5; tries++) {
		free(*buf);
		*buf = NULL;
		*len = 0;
		if (sha256 != NULL &&
		    (r = changes_staged_hash(p, ch, sha256)) < 0) {
			set_cause(cause, "%s: hashing the staged file: %s",
			    ch->path, strerror(-r));
			return r;
		}
		if ((m = open_memstream(buf, len)) == NULL)
			fatal("out of memory");
		r = diff_patch(p, ch, DIFF_CAP, m, st, cause);
		fclose(m);
		if (r < 0 || sha256 == NULL)
			return r;
		if (changes_staged_hash(p, ch, again) == 0 &&
		    strcmp(again, sha256) == 0)
			return 0;
	}
	set_cause(cause, "%s: the run keeps rewriting it while it is read; "
	    "stop the run (ward kill) and look again", ch->path);
	return -EAGAIN;
}

static json_t *
diffcmd_json_change(const struct changes_project *p, const struct change *ch,
    const struct diff_stat *st, const char *patch, size_t len,
    const char *sha256, const char *protect, const char *held,
    const struct changes_cost *cost)
{
	json_t *o = json_object();
	json_t *jp = json_stringn(patch, len);
	cleanup_free char *q = diff_quote_path("", ch->path);

	json_object_set_new(o, "project", json_integer(p->index));
	json_object_set_new(o, "host", json_string(p->outside ? "/" :
	    p->host));
	json_object_set_new(o, "outside", json_boolean(p->outside));
	json_object_set_new(o, "path", json_string(ch->path));
	/* ASCII always (a path need not be UTF-8): what --reviewed keys on. */
	json_object_set_new(o, "git_path", json_string(q));
	json_object_set_new(o, "from", ch->from ? json_string(ch->from) :
	    json_null());
	json_object_set_new(o, "kind", json_string(changes_kind_name(ch->kind)));
	json_object_set_new(o, "old_mode", json_integer(ch->old_mode));
	json_object_set_new(o, "new_mode", json_integer(ch->new_mode));
	json_object_set_new(o, "size", json_integer(ch->size));
	json_object_set_new(o, "binary", json_boolean(ch->binary ||
	    st->binary));
	json_object_set_new(o, "added", json_integer((json_int_t)st->added));
	json_object_set_new(o, "deleted",
	    json_integer((json_int_t)st->deleted));
	json_object_set_new(o, "sha256", json_string(sha256));
	/* What apply writes of it (a sparse file's data only), and why a
	 * plain apply leaves it staged: the protecting pattern, the words. */
	json_object_set_new(o, "allocated", json_integer(cost->write));
	json_object_set_new(o, "protected", protect != NULL ?
	    json_string(protect) : json_null());
	json_object_set_new(o, "held", held != NULL ? json_string(held) :
	    json_null());
	/* A binary patch is ASCII; a text one may not be UTF-8. */
	json_object_set_new(o, "patch", jp != NULL ? jp : json_null());
	return o;
}

static int
diffcmd_diff_project(struct diffcmd_ctx *c, const struct changes_project *p,
    const struct diffcmd_diff_opts *o, json_t *arr, size_t *files,
    size_t *adds, size_t *dels)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct change *ch = &p->v[i];
		cleanup_free char *buf = NULL, *cause = NULL;
		struct diff_stat st;
		size_t len = 0;
		char h[65], size[32];
		cleanup_free char *held = NULL;
		struct changes_cost cost;

		if (!diffcmd_pick(c, p, ch))
			continue;
		if (diffcmd_patch_steady(p, ch, &buf, &len, &st,
		    o->json ? h : NULL, &cause) < 0) {
			cleanup_free char *e = escape_str(cause);

			warn_msg("diff: %s", e);
			return 1;
		}
		(*files)++;
		*adds += st.added;
		*dels += st.deleted;
		changes_cost(p, ch, &cost);
		if (!diffcmd_held(&c->policy, p, ch, &cost, &held))
			held = NULL;
		size_human(ch->size, size, sizeof size);
		if (o->json) {
			json_array_append_new(arr, diffcmd_json_change(p, ch,
			    &st, buf, len, h, diffcmd_protected(&c->policy, p,
			    ch), held, &cost));
		} else if (o->stat) {
			cleanup_free char *abs = p->outside ?
			    xasprintf("/%s", ch->path) : NULL;
			/* Names quoted as in the patch (and git's --stat). */
			cleanup_free char *e = ch->from == NULL ?
			    diff_quote_path("", abs ? abs : ch->path) : NULL;

			if (e == NULL) {
				cleanup_free char *absf = p->outside ?
				    xasprintf("/%s", ch->from) : NULL;
				cleanup_free char *ef =
				    diff_quote_path("", absf ? absf : ch->from);
				cleanup_free char *et =
				    diff_quote_path("", abs ? abs : ch->path);

				e = xasprintf("%s -> %s", ef, et);
			}

			if (st.binary || st.capped)
				printf(" %s (%s) | Bin %lld bytes (%s)\n", e,
				    changes_kind_name(ch->kind),
				    (long long)ch->size, size);
			else
				printf(" %s (%s) | +%zu -%zu (%s)\n", e,
				    changes_kind_name(ch->kind), st.added,
				    st.deleted, size);
			if (held != NULL)
				printf("   held: %s; ward apply leaves it "
				    "staged unless named by path\n", held);
		} else {
			/* A comment line: git apply and patch skip it. */
			if (held != NULL)
				printf("# ward: held: %s; 'ward apply' leaves "
				    "the next file staged unless named by "
				    "path\n", held);
			diffcmd_colour(buf, len, o->colour, stdout);
		}
	}
	return 0;
}

static int
diffcmd_parse_colour(const char *v, bool *ret)
{
	if (v == NULL || strcmp(v, "auto") == 0)
		*ret = isatty(STDOUT_FILENO);
	else if (strcmp(v, "always") == 0)
		*ret = true;
	else if (strcmp(v, "never") == 0)
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

const struct option diffcmd_diff_opts[] = {
	{ "stat", no_argument, NULL, OPT_STAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
diffcmd_diff(int argc, char **argv)
{
	struct diffcmd_ctx c = { .verb = "diff" };
	struct diffcmd_diff_opts o = { 0 };
	const char *colour = "auto";
	size_t files = 0, adds = 0, dels = 0;
	json_t *arr = NULL;
	int ch, status;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "sjh", diffcmd_diff_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_STAT: o.stat = true; break;
		case OPT_JSON: o.json = true; break;
		case OPT_COLOR: colour = optarg ? optarg : "always"; break;
		case OPT_HELP:
			fputs(diffcmd_diff_help, stdout);
			return 0;
		default:
			return usage_error(2, "diff", "unknown option or a "
			    "missing value");
		}
	}
	if (diffcmd_parse_colour(colour, &o.colour) < 0)
		return usage_error(2,
		    "diff", "--color is auto, always or never");
	if ((status = diffcmd_target(&c, argc, argv, false, true)) != 0) {
		diffcmd_done(&c);
		return status;
	}
	if (o.json)
		arr = json_array();
	for (size_t i = 0; i < c.run.n && status == 0; i++) {
		const struct changes_project *p = &c.run.p[i];

		if (p->outside && !o.json && !o.stat && p->n > 0)
			printf("# ward: staged writes outside the projects, "
			    "paths from / (patch -p1 -d /)\n");
		else if (c.run.n > 1 && !o.json && !o.stat && p->n > 0)
			printf("# ward: project %d: %s\n", p->index, p->host);
		status = diffcmd_diff_project(&c, p, &o, arr, &files, &adds,
		    &dels);
	}
	if (status == 0)
		status = diffcmd_check_used(&c);
	if (o.json) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(arr);
	} else if (o.stat) {
		printf(" %zu file%s changed, %zu insertion%s(+), %zu "
		    "deletion%s(-)\n", files, files == 1 ? "" : "s", adds,
		    adds == 1 ? "" : "s", dels, dels == 1 ? "" : "s");
	}
	diffcmd_done(&c);
	return status;
}
