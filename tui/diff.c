/* SPDX-License-Identifier: MIT */
#include "tui/diff.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>


#include "approvals/gitapi.h"
#include "config/util.h"

/*
 * name as git writes it with core.quotePath (quote_c_style): as is when
 * no byte needs quoting, else in double quotes with \a \b \t \n \v
 * \f \r \" \\ and \ooo for every other byte below 0x20, DEL and every
 * byte from 0x80. The prefix ("a/", "b/" or "") goes inside the quotes,
 * as git puts it. No byte of a name can then start a line of the patch or
 * reach a terminal raw, and git apply reads the name back.
 */
char *
diff_quote_path(const char *prefix, const char *name)
{
	static const char named[] = "abtnvfr";	/* \a (7) .. \r (13) */
	char *buf = NULL;
	size_t len = 0;
	bool quote = false;
	FILE *f;

	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		if (*s < 0x20 || *s == '"' || *s == '\\' || *s >= 0x7f)
			quote = true;
	if (!quote)
		return xasprintf("%s%s", prefix, name);
	if ((f = open_memstream(&buf, &len)) == NULL)
		fatal("out of memory");
	fprintf(f, "\"%s", prefix);
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (*s >= '\a' && *s <= '\r')
			fprintf(f, "\\%c", named[*s - '\a']);
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || *s >= 0x7f)
			fprintf(f, "\\%03o", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
	if (fclose(f) != 0)
		fatal("out of memory");
	return buf;
}

static void
diff_init(void)
{
	/* Loaded (and initialised) once; the verbs and the pane have
	 * checked that it loads before they get here. */
	(void)gitapi_load(NULL);
}

static unsigned int
diff_git_mode(mode_t m)
{
	if (S_ISLNK(m))
		return 0120000;
	return (m & 0111) ? 0100755 : 0100644;
}

static void
diff_oid(const char *buf, size_t len, bool present, char out[GIT_OID_HEXSZ + 1])
{
	git_oid oid;

	if (!present || GIT(git_odb_hash)(&oid, buf, len, GIT_OBJECT_BLOB) < 0)
		memset(&oid, 0, sizeof oid);
	GIT(git_oid_tostr)(out, GIT_OID_HEXSZ + 1, &oid);
}

struct diff_print {
	FILE		*out;
	const char	*a;		/* "a/PATH" or "/dev/null" */
	const char	*b;
	bool		 binary;
	bool		 lines_seen;
};

static int
diff_on_line(const git_diff_delta *d, const git_diff_hunk *h,
    const git_diff_line *l, void *arg)
{
	struct diff_print *pr = arg;

	(void)d;
	(void)h;
	switch (l->origin) {
	case GIT_DIFF_LINE_FILE_HDR:
		return 0;
	case GIT_DIFF_LINE_BINARY:
		/* libgit2 writes this line with the names as it was given
		 * them; ours are quoted. */
		if (l->content_len >= 13 &&
		    memcmp(l->content, "Binary files ", 13) == 0) {
			fprintf(pr->out, "Binary files %s and %s differ\n",
			    pr->a, pr->b);
			return 0;
		}
		break;
	case GIT_DIFF_LINE_HUNK_HDR:
		if (!pr->lines_seen)
			fprintf(pr->out, "--- %s\n+++ %s\n", pr->a, pr->b);
		pr->lines_seen = true;
		break;
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		fputc(l->origin, pr->out);
		break;
	default:
		break;
	}
	fwrite(l->content, 1, l->content_len, pr->out);
	return 0;
}

/* One side's bytes; *present false when that side does not exist. */
static int
diff_side(const struct changes_project *p, const struct change *c,
    bool new_side, size_t cap, char **buf, size_t *len, bool *present)
{
	if (new_side)
		*present = c->kind != CHANGE_DELETED;
	else
		*present = c->kind != CHANGE_ADDED;
	return changes_read(p, c, new_side, cap, buf, len);
}

/* The hunks of old -> new under path; the header before them is ours. */
static int
diff_body(FILE *out, const char *opath, const char *npath,
    const char *old, size_t olen, bool ohave, const char *new,
    size_t nlen, bool nhave, struct diff_stat *st, char **cause)
{
	git_diff_options o;
	cleanup_free char *a = ohave ? diff_quote_path("a/", opath) :
	    xstrdup("/dev/null");
	cleanup_free char *b = nhave ? diff_quote_path("b/", npath) :
	    xstrdup("/dev/null");
	struct diff_print pr = { .out = out, .a = a, .b = b };
	git_patch *patch = NULL;
	size_t ctx;
	int r;

	GIT(git_diff_options_init)(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags = GIT_DIFF_SHOW_BINARY;
	o.context_lines = 3;
	if (GIT(git_patch_from_buffers)(&patch, old, olen, opath, new, nlen, npath,
	    &o) < 0) {
		set_cause(cause, "%s: libgit2: %s", b,
		    GIT(git_error_last)() ? GIT(git_error_last)()->message : "diff failed");
		return -EIO;
	}
	st->binary = (GIT(git_patch_get_delta)(patch)->flags &
	    GIT_DIFF_FLAG_BINARY) != 0;
	GIT(git_patch_line_stats)(&ctx, &st->added, &st->deleted, patch);
	r = GIT(git_patch_print)(patch, diff_on_line, &pr);
	GIT(git_patch_free)(patch);
	return r < 0 ? -EIO : 0;
}

/* A whole patch for one path going from (old, om) to (new, nm). */
static int
diff_one(FILE *out, const char *opath, const char *npath, mode_t om,
    mode_t nm, const char *old, size_t olen, bool ohave, const char *new,
    size_t nlen, bool nhave, int rename, struct diff_stat *st, char **cause)
{
	char oid_a[GIT_OID_HEXSZ + 1], oid_b[GIT_OID_HEXSZ + 1];
	bool same = ohave && nhave && olen == nlen &&
	    (olen == 0 || memcmp(old, new, olen) == 0);
	cleanup_free char *qa = diff_quote_path("a/", opath);
	cleanup_free char *qb = diff_quote_path("b/", npath);
	cleanup_free char *qfrom = diff_quote_path("", opath);
	cleanup_free char *qto = diff_quote_path("", npath);

	fprintf(out, "diff --git %s %s\n", qa, qb);
	if (!ohave)
		fprintf(out, "new file mode %06o\n", diff_git_mode(nm));
	else if (!nhave)
		fprintf(out, "deleted file mode %06o\n", diff_git_mode(om));
	else if (diff_git_mode(om) != diff_git_mode(nm))
		fprintf(out, "old mode %06o\nnew mode %06o\n",
		    diff_git_mode(om), diff_git_mode(nm));
	if (rename > 0)
		fprintf(out, "similarity index %d%%\nrename from %s\n"
		    "rename to %s\n", same ? 100 : rename > 99 ? 99 : rename,
		    qfrom, qto);
	if (same)
		return 0;
	diff_oid(old, olen, ohave, oid_a);
	diff_oid(new, nlen, nhave, oid_b);
	fprintf(out, "index %s..%s", oid_a, oid_b);
	if (ohave && nhave && diff_git_mode(om) == diff_git_mode(nm))
		fprintf(out, " %06o", diff_git_mode(nm));
	fputc('\n', out);
	return diff_body(out, opath, npath, old, olen, ohave, new, nlen,
	    nhave, st, cause);
}

int
diff_patch(const struct changes_project *p, const struct change *c,
    size_t cap, FILE *out, struct diff_stat *st, char **cause)
{
	cleanup_free char *old = NULL, *new = NULL;
	const char *opath = c->from != NULL ? c->from : c->path;
	size_t olen = 0, nlen = 0;
	bool ohave, nhave;
	int r1, r2, r;

	diff_init();
	memset(st, 0, sizeof *st);
	r1 = diff_side(p, c, false, cap, &old, &olen, &ohave);
	r2 = diff_side(p, c, true, cap, &new, &nlen, &nhave);
	if (r1 == -EFBIG || r2 == -EFBIG) {
		cleanup_free char *q = diff_quote_path("", c->path);

		st->capped = true;
		fprintf(out, "# ward: %s: over the %zu MiB cap of a shown diff; "
		    "not shown ('ward apply' still applies it)\n", q,
		    cap >> 20);
		return 0;
	}
	if ((r = r1 < 0 ? r1 : r2) < 0) {
		set_cause(cause, "%s: %s", c->path, strerror(-r));
		return r;
	}
	/* A file that became a symlink (or back): git says it as a deletion
	 * and an addition. */
	if (c->kind == CHANGE_SYMLINK &&
	    (c->old_mode & S_IFMT) != (c->new_mode & S_IFMT)) {
		struct diff_stat st2 = { 0 };

		if ((r = diff_one(out, opath, c->path, c->old_mode, 0, old,
		    olen, true, NULL, 0, false, 0, st, cause)) < 0)
			return r;
		r = diff_one(out, opath, c->path, 0, c->new_mode, NULL, 0,
		    false, new, nlen, true, 0, &st2, cause);
		st->added += st2.added;
		st->binary = st->binary || st2.binary;
		return r;
	}
	return diff_one(out, opath, c->path, c->old_mode, c->new_mode, old,
	    olen, ohave, new, nlen, nhave, c->kind == CHANGE_RENAMED ?
	    (c->similarity > 0 ? c->similarity : 50) : 0, st, cause);
}
