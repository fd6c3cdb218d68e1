/* SPDX-License-Identifier: MIT */
#include "tui/model.h"
#include "tui/model-int.h"

#include <string.h>

#include "config/escape.h"
#include "config/util.h"

/*
 * The diff pane's state: the staged files and the selected one's patch
 * (filled by the console), its moves, and an apply or discard asked.
 */

/* ------------------------------------------------------------------ */
/* The diff pane. */

#define MODEL_DIFF_PAGE	10

/* A line for the grid: tabs to spaces (8 columns), then escaped. */
static char *
model_diff_line(const char *s, size_t n)
{
	cleanup_free char *buf = xmalloc(n * 8 + 1);
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\t') {
			do
				buf[o++] = ' ';
			while (o % 8 != 0);
		} else {
			buf[o++] = s[i];
		}
	}
	return escape_mem(buf, o);
}

void
model_diff_set_files(struct model *m, const char *const *files, size_t n)
{
	model_diff_clear_files(m);
	m->diff.files = xcalloc(n + 1, sizeof *m->diff.files);
	for (size_t i = 0; i < n; i++)
		m->diff.files[i] = model_diff_line(files[i], strlen(files[i]));
	m->diff.n_files = n;
	if (m->diff.sel >= n)
		m->diff.sel = n > 0 ? n - 1 : 0;
}

void
model_diff_set_patch(struct model *m, const char *text, size_t len)
{
	const char *s = text, *end = text + len;

	model_diff_clear_lines(m);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		m->diff.lines = xreallocarray(m->diff.lines,
		    m->diff.n_lines + 1, sizeof *m->diff.lines);
		m->diff.lines[m->diff.n_lines++] = model_diff_line(s, n);
		s += n + 1;
	}
	if (m->diff.scroll > 0 && (size_t)m->diff.scroll >= m->diff.n_lines)
		m->diff.scroll = m->diff.n_lines > 0 ?
		    (int)m->diff.n_lines - 1 : 0;
}

void
model_diff_set_note(struct model *m, const char *note)
{
	free(m->diff.note);
	m->diff.note = note != NULL ? escape_str(note) : NULL;
}

/* Replace a list that runs beside the diff's targets, one per target: a
 * list of another length is dropped, left NULL. */
static void
model_diff_set_column(struct model *m, char ***col, const char *const *from,
    size_t n, char *(*copy)(const char *))
{
	size_t k = 0;

	strv_free(*col);
	*col = NULL;
	if (n != m->diff.n_targets)
		return;
	for (size_t i = 0; i < n; i++)
		strv_push(col, &k, copy(from[i]));
}

void
model_diff_set_hashes(struct model *m, const char *const *hashes, size_t n)
{
	model_diff_set_column(m, &m->diff.hashes, hashes, n, xstrdup);
}

void
model_diff_set_held(struct model *m, const char *const *held, size_t n)
{
	model_diff_set_column(m, &m->diff.held, held, n, escape_str);
}

/* p, P, u, U: the files listed, nothing done until an armed y. The list
 * is a copy: a refresh of the pane while it is shown changes nothing of
 * what y will do. */
static void
model_diff_confirm_start(struct model *m, enum action a)
{
	bool all = a == ACTION_DIFF_APPLY_ALL || a == ACTION_DIFF_DISCARD_ALL;
	bool apply = a == ACTION_DIFF_APPLY || a == ACTION_DIFF_APPLY_ALL;
	size_t k = 0, kh = 0;

	if (m->diff.n_targets == 0 || m->diff.n_targets != m->diff.n_files) {
		model_message(m, MSG_INFO, "nothing staged to %s",
		    a == ACTION_DIFF_APPLY || a == ACTION_DIFF_APPLY_ALL ?
		    "apply" : "discard");
		return;
	}
	model_diff_confirm_done(m);
	for (size_t i = 0; i < m->diff.n_targets; i++) {
		if (!all && i != m->diff.sel)
			continue;
		/* An apply of all leaves the held ones out: a file that
		 * runs code on the host later goes only picked alone. */
		if (all && apply && m->diff.held != NULL &&
		    m->diff.held[i][0] != '\0') {
			m->diff.confirm_held++;
			continue;
		}
		strv_push(&m->diff.confirm_targets, &m->diff.n_confirm,
		    xstrdup(m->diff.targets[i]));
		strv_push(&m->diff.confirm_labels, &k,
		    xstrdup(m->diff.labels[i]));
		if (m->diff.hashes != NULL)
			strv_push(&m->diff.confirm_hashes, &kh,
			    xstrdup(m->diff.hashes[i]));
	}
	if (m->diff.n_confirm == 0) {
		model_message(m, MSG_INFO, "nothing to apply with P: %zu held "
		    "file%s (protected, or over max_apply); select one and "
		    "press p", m->diff.confirm_held,
		    m->diff.confirm_held == 1 ? "" : "s");
		model_diff_confirm_done(m);
		return;
	}
	m->diff.confirm = a == ACTION_DIFF_APPLY || a == ACTION_DIFF_APPLY_ALL ?
	    DIFF_OP_APPLY : DIFF_OP_DISCARD;
}

/* A key while the list is asked about: an armed y does it; y too early
 * says so and keeps asking; any other key is a no, and only that. */
void
model_diff_confirm_key(struct model *m, enum action a,
    struct model_effect *eff)
{
	const char *verb = m->diff.confirm == DIFF_OP_APPLY ? "apply" :
	    "discard";

	if (a != ACTION_YES) {
		model_diff_confirm_done(m);
		model_message(m, MSG_INFO, "%s cancelled", verb);
		return;
	}
	if (!m->diff.confirm_shown ||
	    m->now_mono - m->diff.confirm_shown_at < MODEL_ARM_MS) {
		model_message(m, MSG_WARN, m->diff.confirm_partial ?
		    "%s: the list is not shown whole; a taller terminal, or "
		    "one file at a time" : "%s: read the list first (y works "
		    "after half a second)", verb);
		return;
	}
	eff->kind = EFFECT_DIFF_ACT;
}

static void
model_diff_scroll(struct model *m, int by)
{
	long s = (long)m->diff.scroll + by;
	long max = m->diff.n_lines > 0 ? (long)m->diff.n_lines - 1 : 0;

	m->diff.scroll = (int)(s < 0 ? 0 : s > max ? max : s);
}

/* An action while the diff pane is open; false: not its own. */
bool
model_diff_action(struct model *m, enum action a, struct model_effect *eff)
{
	bool up = a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_TOP;

	switch (a) {
	case ACTION_UP:
	case ACTION_DOWN:
		model_diff_scroll(m, up ? -1 : 1);
		return true;
	case ACTION_PAGE_UP:
	case ACTION_PAGE_DOWN:
		model_diff_scroll(m, up ? -MODEL_DIFF_PAGE : MODEL_DIFF_PAGE);
		return true;
	case ACTION_TOP:
	case ACTION_BOTTOM:
		model_diff_scroll(m, up ? -(1 << 20) : 1 << 20);
		return true;
	case ACTION_DIFF_NEXT:
	case ACTION_DIFF_PREV:
	case ACTION_RUN_NEXT:	/* inside the diff, ] [ change file as */
	case ACTION_RUN_PREV:	/* they did before { } */
		if (m->diff.n_files == 0)
			return true;
		if ((a == ACTION_DIFF_NEXT || a == ACTION_RUN_NEXT) &&
		    m->diff.sel + 1 < m->diff.n_files)
			m->diff.sel++;
		else if ((a == ACTION_DIFF_PREV || a == ACTION_RUN_PREV) &&
		    m->diff.sel > 0)
			m->diff.sel--;
		m->diff.scroll = 0;
		eff->kind = EFFECT_DIFF_LOAD;
		return true;
	case ACTION_DIFF_APPLY:
	case ACTION_DIFF_APPLY_ALL:
	case ACTION_DIFF_DISCARD:
	case ACTION_DIFF_DISCARD_ALL:
		model_diff_confirm_start(m, a);
		return true;
	case ACTION_DIFF:
	case ACTION_CLOSE:
	case ACTION_QUIT:
		m->diff.open = false;
		return true;
	case ACTION_DETAIL:
	case ACTION_NEXT_PANE:
	case ACTION_VIEW:
	case ACTION_ZOOM:
	case ACTION_RUN_PICK:
	case ACTION_RUN_DISMISS:
	case ACTION_RUN_CLEAR:
		return true;
	case ACTION_NONE:
	case ACTION_ALLOW_ONCE:
	case ACTION_DENY_ONCE:
	case ACTION_STAGE_ONCE:
	case ACTION_KILL:
	case ACTION_YES:
	case ACTION_NO:
	case ACTION_HELP:
	case ACTION_REDRAW:
	case ACTION_RESIZE:
	case ACTION_NOT_YET:
	case ACTION_FILTER:
	case ACTION_ALLOW_RUN:
	case ACTION_DENY_RUN:
	case ACTION_DENY_REASON:
	case ACTION_DENY_ALL:
	case ACTION_RULES:
	case ACTION_ALWAYS:
		return false;
	}
	return false;
}
