/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The events pane's state (DESIGN §9): what the run did and how each was
 * decided, newest last, a filter typed after `/`, and the folding of exec
 * noise. No terminal and no model here: the model pushes what it is told
 * (tui/model-msg.c), tui/view-events.c draws events_lines(), and the filter and
 * the folding are pure functions tests call directly.
 *
 * The filter is words, each of which must hold:
 *   a kind      write connect dns package exec blocked run (or kind:NAME)
 *   a verdict   allow(ed) deny/denied ask(ed) kill(ed)   (or verdict:NAME)
 *   a how       policy person timeout default floor supervisor run-rule
 *               (or how:NAME)
 *   other text  a part of the subject, any case (text:WORD for a word
 *               that would name one of the above)
 * Words of one sort are alternatives ("write connect": either kind).
 *
 * Folding: execs (facts, not decisions) next to each other in the filtered
 * list are one line, "12 execs (last: /usr/bin/cc)", so that decisions
 * stay in view; a filter that names the exec kind shows each one.
 */
#include <stdbool.h>
#include <stddef.h>

#include "approvals/request.h"

#define EVENTS_MAX	5000
#define EVENTS_EDIT_MAX	200
#define EVENTS_KIND_UNKNOWN (-1)

struct events_item {
	int		 kind;		/* enum request_kind, or UNKNOWN */
	enum verdict	 verdict;	/* VERDICT_NONE for a fact */
	int		 how;		/* enum how, or -1 */
	char		*subject;	/* escaped */
	char		*text;		/* escaped: the line as shown */
};

struct events_filter {
	unsigned	 kinds;		/* 1 << enum request_kind; 0 = any */
	unsigned	 verdicts;	/* 1 << enum verdict; 0 = any */
	unsigned	 hows;		/* 1 << enum how; 0 = any */
	char	       **words;		/* all must be in the subject */
	size_t		 n_words;
};

/* A line of the pane: count events from index first that pass the
 * filter (count > 1 only for folded execs; last is the newest of them). */
struct events_line {
	size_t		 first;
	size_t		 last;
	size_t		 count;
};

struct events {
	struct events_item *v;		/* ring of EVENTS_MAX */
	size_t		 start;
	size_t		 n;
	size_t		 dropped;	/* pushed out of the ring */
	int		 scroll;	/* lines above the newest; 0 follows */

	bool		 editing;	/* the `/` line editor is open */
	char		 edit[EVENTS_EDIT_MAX + 1];
	size_t		 edit_len;
	char		*filter_text;	/* the filter in force, or NULL */
	struct events_filter filter;
};

void	events_init(struct events *);
void	events_done(struct events *);

/* Copies; subject and text come escaped (the model escapes what it is
 * told, config/escape.h). */
void	events_push(struct events *, int kind, enum verdict, int how,
	    const char *subject, const char *text);
/* Index i from the oldest kept; NULL past the end. */
const struct events_item *events_at(const struct events *, size_t i);

/* Filter words into *f (events_filter_done frees it); "" matches all. */
void	events_filter_parse(const char *text, struct events_filter *f);
void	events_filter_done(struct events_filter *);
bool	events_filter_match(const struct events_filter *,
	    const struct events_item *);
/* Whether the filter asks for execs by kind (then none are folded). */
bool	events_filter_shows_execs(const struct events_filter *);

/* The pane's lines, oldest first, after the filter (the one being typed
 * while the editor is open) and the folding (malloc'd in *ret, may be
 * NULL when none); their number. */
size_t	events_lines(const struct events *, struct events_line **ret);
/* The text of a line (malloc'd): the event's, or the fold's. */
char	*events_line_text(const struct events *, const struct events_line *);

/* The filter in force: text (NULL or "" clears it). */
void	events_set_filter(struct events *, const char *text);

/*
 * The `/` editor. events_edit_open starts it with the filter in force;
 * events_edit_key takes one key (tui/keys.h code): a printable character
 * is typed, Backspace erases, Enter applies and closes, Esc clears the
 * filter and closes. Every key goes here while it is open (none can
 * answer a request). true when the key closed the editor.
 */
void	events_edit_open(struct events *);
bool	events_edit_key(struct events *, int key);

/* Scrolls by lines (positive: older), kept within n_lines. */
void	events_scroll(struct events *, long by, size_t n_lines, int rows);
