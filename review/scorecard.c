/* SPDX-License-Identifier: MIT */
#include "review/scorecard.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <uniwidth.h>

#include "approvals/audit.h"
#include "approvals/kind.h"
#include "config/escape.h"
#include "config/util.h"
#include "review/plain.h"

struct scorecard_ctx {
	char		**lines;
	size_t		 n;
	int64_t		 waits;		/* ms, of the person's answers */
	int64_t		 longest;
	int64_t		 answered;
};

static void
scorecard_secs(int64_t ms, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64 ".%" PRId64 " s", ms / 1000,
	    (ms % 1000) / 100);
}

/* What came of it, and who decided. */
static char *
scorecard_outcome(const struct audit_event *ev)
{
	bool ok = ev->verdict == VERDICT_ALLOW || ev->verdict == VERDICT_STAGE;
	const char *done = ev->verdict == VERDICT_STAGE ? "staged" :
	    ok ? "allowed" : ev->verdict == VERDICT_KILL ? "killed" : "refused";
	char secs[32];

	switch (ev->how) {
	case HOW_PERSON:
		scorecard_secs(ev->wait_ms, secs, sizeof secs);
		return xasprintf("%s by %s, after %s", ok || ev->verdict ==
		    VERDICT_STAGE ? done : "denied", ev->decided_by != NULL &&
		    strstr(ev->decided_by, "via " SCORECARD_SCRIPT_ORIGIN) !=
		    NULL ? "the demo's script" : "you", secs);
	case HOW_TIMEOUT:
		return xasprintf("refused: nobody answered in time");
	case HOW_RUN_RULE:
		return xasprintf("%s by an earlier answer (%s)", done,
		    ev->rule != NULL && *ev->rule ? ev->rule : "for this run");
	case HOW_FLOOR:
		return xasprintf("%s by the sandbox itself, nobody asked",
		    done);
	case HOW_POLICY:
	case HOW_DEFAULT:
	case HOW_SUPERVISOR:
		break;
	}
	if (ev->rule != NULL && str_has_prefix(ev->rule, "never"))
		return xasprintf("%s by the never list, nobody asked", done);
	return xasprintf("%s by the policy%s%s%s, nobody asked", done,
	    ev->rule != NULL && *ev->rule ? " (" : "",
	    ev->rule != NULL ? ev->rule : "",
	    ev->rule != NULL && *ev->rule ? ")" : "");
}

/* What it tried: the plain sentence without its "wants to". */
static char *
scorecard_tried(const struct audit_event *ev)
{
	struct request r = { .kind = ev->kind, .syscall = (char *)ev->syscall,
	    .subject = (char *)ev->subject, .subject2 = (char *)ev->subject2 };
	char *s = plain_request(&r), *t;

	if (!str_has_prefix(s, "wants to "))
		return s;
	t = xstrdup(s + 9);
	free(s);
	return t;
}

static int
scorecard_on_event(const struct audit_event_row *row, void *arg)
{
	struct scorecard_ctx *c = arg;
	const struct audit_event *ev = &row->ev;
	bool refused = ev->verdict == VERDICT_DENY ||
	    ev->verdict == VERDICT_KILL;
	cleanup_free char *tried = NULL, *outcome = NULL;

	if (ev->kind == KIND_RUN || ev->verdict == VERDICT_ASK ||
	    ev->verdict == VERDICT_NONE)
		return 0;
	/* Worth a line: what a person was asked, and what was refused or
	 * let through by a rule outside the run's own folders. */
	if (ev->request_id == 0 && !refused && ev->how != HOW_RUN_RULE)
		return 0;
	if (ev->kind == KIND_EXEC && !refused)
		return 0;
	tried = scorecard_tried(ev);
	outcome = scorecard_outcome(ev);
	strv_push(&c->lines, &c->n, xasprintf("  %-9s %s: %s",
	    kind_surface_word(kind_info(ev->kind)->surface), tried, outcome));
	if (ev->how == HOW_PERSON) {
		c->answered++;
		c->waits += ev->wait_ms;
		if (ev->wait_ms > c->longest)
			c->longest = ev->wait_ms;
	}
	return 0;
}

int
scorecard_lines(struct audit *a, const char *run, const struct summary *s,
    char ***ret, char **cause)
{
	struct scorecard_ctx c = { 0 };
	cleanup_strv char **sum = NULL;
	char avg[32], longest[32];
	int r;

	strv_push(&c.lines, &c.n, xstrdup(SCORECARD_TITLE));
	if ((r = audit_each_event(a, run, scorecard_on_event, &c,
	    cause)) < 0) {
		strv_free(c.lines);
		return r;
	}
	if (c.n == 1)
		strv_push(&c.lines, &c.n, xstrdup("  nothing outside its own "
		    "folders"));
	if (c.answered > 0) {
		scorecard_secs(c.waits / c.answered, avg, sizeof avg);
		scorecard_secs(c.longest, longest, sizeof longest);
		strv_push(&c.lines, &c.n, xasprintf("The answers took %s on "
		    "average, %s at most.", avg, longest));
	}
	strv_push(&c.lines, &c.n, xstrdup("In numbers:"));
	sum = summary_lines(s);
	for (size_t i = 0; sum[i] != NULL; i++)
		strv_push(&c.lines, &c.n, xasprintf("  %s", sum[i]));
	*ret = c.lines;
	return 0;
}

/* --- fitted to a width ----------------------------------------------------- */

/* The columns of the UTF-8 sequence at p (n bytes left); its length in
 * *len. A byte that starts none takes one column, as escaping shows it. */
static int
scorecard_glyph(const char *p, size_t n, size_t *len)
{
	uint32_t cp;
	size_t l = escape_utf8((const unsigned char *)p, n, &cp);
	int w;

	if (l == 0) {
		*len = 1;
		return 1;
	}
	*len = l;
	w = uc_width(cp, "UTF-8");
	return w < 0 ? 1 : w;
}

int
scorecard_width(const char *s)
{
	size_t n = strlen(s), len;
	int w = 0;

	for (size_t i = 0; i < n; i += len)
		w += scorecard_glyph(s + i, n - i, &len);
	return w;
}

/* Where the rows after a line's first start (scorecard.h). */
static int
scorecard_hang(const char *line, int width)
{
	int lead = (int)strspn(line, " "), hang = lead + 2;
	const char *word = line + lead;
	size_t wlen = strcspn(word, " "), pad = strspn(word + wlen, " ");

	/* A step: its surface, then the column's padding (2 or more). */
	if (lead > 0 && wlen > 0 && pad >= 2 && word[wlen + pad] != '\0') {
		cleanup_free char *surface = xstrndup(word, wlen);

		hang = lead + scorecard_width(surface) + (int)pad;
	}
	if (width - hang < 16)
		hang = lead + 2;
	if (width - hang < 1)
		hang = 0;
	return hang;
}

/* A number and its unit are one word ("2.4 s", "after 5.2 s."): the
 * length of the word at w (nword bytes up to a space) with its unit. */
static size_t
scorecard_glue(const char *w, size_t nword)
{
	const char *u = w + nword + 1;

	if (w[nword] != ' ' || strspn(w, "0123456789.") != nword ||
	    u[0] != 's' || strspn(u + 1, ".,;:)") != strcspn(u + 1, " "))
		return nword;
	return nword + 2 + strcspn(u + 1, " ");
}

struct scorecard_row {
	char	**out;
	size_t	  n;
	char	 *buf;
	size_t	  len, cap;
	int	  col;		/* columns in buf */
	bool	  text;		/* buf holds more than its indent */
};

static void
scorecard_row_add(struct scorecard_row *r, const char *s, size_t n, int w)
{
	if (r->len + n + 1 > r->cap) {
		r->cap = (r->len + n + 1) * 2;
		r->buf = xrealloc(r->buf, r->cap);
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
	r->buf[r->len] = '\0';
	r->col += w;
}

/* Ends the row and starts the next, hang columns in. */
static void
scorecard_row_break(struct scorecard_row *r, int hang)
{
	strv_push(&r->out, &r->n, xstrndup(r->buf, r->len));
	r->len = 0;
	r->col = 0;
	r->text = false;
	for (int i = 0; i < hang; i++)
		scorecard_row_add(r, " ", 1, 1);
}

/* Breaks the row inside a word whose part on it starts at byte piece:
 * after its last '/' when that leaves something on the row, the rest
 * carried to the next row. Where the word's part on the new row starts. */
static size_t
scorecard_row_cut(struct scorecard_row *r, size_t piece, int hang)
{
	cleanup_free char *tail = NULL;
	size_t j = r->len;

	while (j > piece + 1 && r->buf[j - 1] != '/')
		j--;
	if (j > piece + 1 && j < r->len) {
		tail = xstrndup(r->buf + j, r->len - j);
		r->len = j;
		r->buf[j] = '\0';
	}
	while (r->len > piece && r->buf[r->len - 1] == ' ') {
		r->buf[--r->len] = '\0';	/* a glued unit's space */
		r->col--;
	}
	scorecard_row_break(r, hang);
	piece = r->len;
	if (tail != NULL)
		scorecard_row_add(r, tail, strlen(tail),
		    scorecard_width(tail));
	return piece;
}

static void
scorecard_fit_line(struct scorecard_row *r, const char *line, int width)
{
	int hang = scorecard_hang(line, width);
	const char *p = line;

	r->len = 0;
	r->col = 0;
	r->text = false;
	while (*p != '\0') {
		size_t nsep = strspn(p, " "), nword, len;
		const char *w = p + nsep;
		size_t piece;
		int ww;

		nword = strcspn(w, " ");
		if (nword == 0)
			break;		/* trailing spaces */
		nword = scorecard_glue(w, nword);
		{
			cleanup_free char *word = xstrndup(w, nword);

			ww = scorecard_width(word);
		}
		if (r->col + (int)nsep + ww <= width) {
			/* the separator as the line has it (a column's pad) */
			scorecard_row_add(r, p, nsep, (int)nsep);
			scorecard_row_add(r, w, nword, ww);
			r->text = true;
			p = w + nword;
			continue;
		}
		if (r->text) {
			scorecard_row_break(r, hang);
			if (hang + ww <= width) {
				scorecard_row_add(r, w, nword, ww);
				r->text = true;
				p = w + nword;
				continue;
			}
		} else if (r->col + (int)nsep < width)
			scorecard_row_add(r, p, nsep, (int)nsep);
		/* Wider than a row: cut over rows, after a '/' where the
		 * row has one (a path stays readable), else where it fills. */
		piece = r->len;
		for (size_t i = 0; i < nword; i += len) {
			int gw = scorecard_glyph(w + i, nword - i, &len);

			if (r->col + gw > width && r->text) {
				piece = scorecard_row_cut(r, piece, hang);
				if (w[i] == ' ' && r->len == piece)
					continue;
			}
			scorecard_row_add(r, w + i, len, gw);
			r->text = true;
		}
		p = w + nword;
	}
	strv_push(&r->out, &r->n, xstrndup(r->buf != NULL ? r->buf : "",
	    r->len));
}

char **
scorecard_fit(char *const *lines, int width)
{
	struct scorecard_row r = { .out = xcalloc(1, sizeof (char *)) };

	for (size_t i = 0; lines[i] != NULL; i++) {
		if (width <= 0)
			strv_push(&r.out, &r.n, xstrdup(lines[i]));
		else
			scorecard_fit_line(&r, lines[i], width);
	}
	free(r.buf);
	return r.out;
}
