/* SPDX-License-Identifier: MIT */
#include "tui/events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/util.h"
#include "tui/keys.h"

void
events_init(struct events *e)
{
	memset(e, 0, sizeof *e);
	e->v = xcalloc(EVENTS_MAX, sizeof *e->v);
}

static void
events_item_free(struct events_item *it)
{
	free(it->subject);
	free(it->text);
	it->subject = it->text = NULL;
}

void
events_done(struct events *e)
{
	for (size_t i = 0; e->v != NULL && i < e->n; i++)
		events_item_free(&e->v[(e->start + i) % EVENTS_MAX]);
	free(e->v);
	free(e->filter_text);
	events_filter_done(&e->filter);
	memset(e, 0, sizeof *e);
}

void
events_push(struct events *e, int kind, enum verdict v, int how,
    const char *subject, const char *text)
{
	struct events_item *it;

	if (e->n == EVENTS_MAX) {
		events_item_free(&e->v[e->start]);
		e->start = (e->start + 1) % EVENTS_MAX;
		e->n--;
		e->dropped++;
	}
	it = &e->v[(e->start + e->n) % EVENTS_MAX];
	it->kind = kind;
	it->verdict = v;
	it->how = how;
	it->subject = xstrdup(subject != NULL ? subject : "");
	it->text = xstrdup(text != NULL ? text : "");
	e->n++;
	/* A reader scrolled back keeps the lines they are reading. */
	if (e->scroll > 0)
		e->scroll++;
}

const struct events_item *
events_at(const struct events *e, size_t i)
{
	if (i >= e->n)
		return NULL;
	return &e->v[(e->start + i) % EVENTS_MAX];
}

/* ---- the filter ---- */

static const struct {
	const char	*word;
	enum verdict	 verdict;
} events_verdict_words[] = {
	{ "allow", VERDICT_ALLOW }, { "allowed", VERDICT_ALLOW },
	{ "deny", VERDICT_DENY }, { "denied", VERDICT_DENY },
	{ "ask", VERDICT_ASK }, { "asked", VERDICT_ASK },
	{ "kill", VERDICT_KILL }, { "killed", VERDICT_KILL },
	{ "stage", VERDICT_STAGE }, { "staged", VERDICT_STAGE },
};

/* 0 and the sort's bit in *bit, or -1: the word names none of it. */
static int
events_word_kind(const char *w, unsigned *bit)
{
	enum request_kind k;

	if (request_kind_parse(w, &k) < 0)
		return -1;
	*bit = 1u << k;
	return 0;
}

static int
events_word_verdict(const char *w, unsigned *bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(events_verdict_words); i++) {
		if (strcasecmp(w, events_verdict_words[i].word) == 0) {
			*bit = 1u << events_verdict_words[i].verdict;
			return 0;
		}
	}
	return -1;
}

static int
events_word_how(const char *w, unsigned *bit)
{
	enum how h;

	if (how_parse(w, &h) < 0)
		return -1;
	*bit = 1u << h;
	return 0;
}

static void
events_filter_word(struct events_filter *f, const char *w)
{
	static const struct {
		const char	*prefix;
		int		(*parse)(const char *, unsigned *);
		size_t		 field;
	} sorts[] = {
		{ "kind:", events_word_kind,
		    offsetof(struct events_filter, kinds) },
		{ "verdict:", events_word_verdict,
		    offsetof(struct events_filter, verdicts) },
		{ "how:", events_word_how,
		    offsetof(struct events_filter, hows) },
	};
	unsigned bit;

	if (strncasecmp(w, "text:", 5) == 0) {
		if (w[5] != '\0')
			strv_push(&f->words, &f->n_words, xstrdup(w + 5));
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sorts); i++) {
		size_t n = strlen(sorts[i].prefix);
		const char *arg = strncasecmp(w, sorts[i].prefix, n) == 0 ?
		    w + n : w;

		if (sorts[i].parse(arg, &bit) == 0) {
			*(unsigned *)((char *)f + sorts[i].field) |= bit;
			return;
		}
	}
	strv_push(&f->words, &f->n_words, xstrdup(w));
}

void
events_filter_parse(const char *text, struct events_filter *f)
{
	cleanup_free char *copy = xstrdup(text != NULL ? text : "");
	char *save = NULL;

	memset(f, 0, sizeof *f);
	for (char *w = strtok_r(copy, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save))
		events_filter_word(f, w);
}

void
events_filter_done(struct events_filter *f)
{
	strv_free(f->words);
	memset(f, 0, sizeof *f);
}

bool
events_filter_match(const struct events_filter *f,
    const struct events_item *it)
{
	if (f->kinds != 0 && (it->kind < 0 ||
	    !(f->kinds & (1u << (unsigned)it->kind))))
		return false;
	if (f->verdicts != 0 && !(f->verdicts & (1u << it->verdict)))
		return false;
	if (f->hows != 0 && (it->how < 0 ||
	    !(f->hows & (1u << (unsigned)it->how))))
		return false;
	for (size_t i = 0; i < f->n_words; i++) {
		if (strcasestr(it->subject, f->words[i]) == NULL)
			return false;
	}
	return true;
}

bool
events_filter_shows_execs(const struct events_filter *f)
{
	return (f->kinds & (1u << KIND_EXEC)) != 0;
}

/* ---- lines ---- */

static bool
events_foldable(const struct events_item *it)
{
	return it->kind == KIND_EXEC && it->verdict != VERDICT_DENY &&
	    it->verdict != VERDICT_KILL;
}

size_t
events_lines(const struct events *e, struct events_line **ret)
{
	struct events_line *v = NULL;
	struct events_filter typing;
	const struct events_filter *f = &e->filter;
	size_t n = 0;
	bool fold;

	/* While the filter is typed, the pane shows what it would keep. */
	if (e->editing) {
		events_filter_parse(e->edit, &typing);
		f = &typing;
	}
	fold = !events_filter_shows_execs(f);
	*ret = NULL;
	for (size_t i = 0; i < e->n; i++) {
		const struct events_item *it = events_at(e, i);

		if (!events_filter_match(f, it))
			continue;
		if (fold && events_foldable(it) && n > 0 &&
		    events_foldable(events_at(e, v[n - 1].last))) {
			v[n - 1].last = i;
			v[n - 1].count++;
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = (struct events_line){ .first = i, .last = i,
		    .count = 1 };
	}
	if (e->editing)
		events_filter_done(&typing);
	*ret = v;
	return n;
}

char *
events_line_text(const struct events *e, const struct events_line *l)
{
	const struct events_item *last = events_at(e, l->last);

	if (l->count > 1)
		return xasprintf("%zu execs (last: %s)", l->count,
		    last->subject);
	return xstrdup(events_at(e, l->first)->text);
}

void
events_set_filter(struct events *e, const char *text)
{
	free(e->filter_text);
	e->filter_text = NULL;
	events_filter_done(&e->filter);
	if (text != NULL && *text != '\0')
		e->filter_text = xstrdup(text);
	events_filter_parse(e->filter_text, &e->filter);
	e->scroll = 0;
}

/* ---- the editor ---- */

void
events_edit_open(struct events *e)
{
	e->editing = true;
	snprintf(e->edit, sizeof e->edit, "%s",
	    e->filter_text != NULL ? e->filter_text : "");
	e->edit_len = strlen(e->edit);
}

/* Appends code point c as UTF-8 when it fits. */
static void
events_edit_put(struct events *e, int c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | (c >> 18));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	if (e->edit_len + n > EVENTS_EDIT_MAX)
		return;
	memcpy(e->edit + e->edit_len, b, n);
	e->edit_len += n;
	e->edit[e->edit_len] = '\0';
}

bool
events_edit_key(struct events *e, int key)
{
	switch (key) {
	case KEYS_ESC:
		e->editing = false;
		events_set_filter(e, NULL);
		return true;
	case '\r':
	case '\n':
	case KEYS_ENTER:
		e->editing = false;
		events_set_filter(e, e->edit);
		return true;
	case KEYS_BACKSPACE:
	case 0x7f:
	case KEYS_CTRL('h'):
		/* One character: back over UTF-8 continuation bytes. */
		while (e->edit_len > 0 &&
		    ((unsigned char)e->edit[--e->edit_len] & 0xc0) == 0x80)
			;
		e->edit[e->edit_len] = '\0';
		return false;
	case KEYS_CTRL('u'):
		e->edit_len = 0;
		e->edit[0] = '\0';
		return false;
	default:
		break;
	}
	/* Printable characters only; the rest (arrows, paste marks,
	 * control keys) does nothing here, and nothing else either. */
	if (key >= ' ' && key != 0x7f && key < 0x110000 &&
	    !(key >= 0x80 && key < 0xa0))
		events_edit_put(e, key);
	return false;
}

void
events_scroll(struct events *e, long by, size_t n_lines, int rows)
{
	long max = (long)n_lines - (rows > 0 ? rows : 1);
	long s = (long)e->scroll + by;

	if (max < 0)
		max = 0;
	e->scroll = (int)(s < 0 ? 0 : s > max ? max : s);
}
