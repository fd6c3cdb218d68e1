/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Keys to actions. A key is a Unicode code point (printable keys and
 * control characters as themselves) or one of KEYS_* below; tui/screen.c
 * turns curses' key codes into these, so nothing here needs curses.
 *
 * One table (keys.c) holds each key, its action and what the help screen
 * says of it; tui/view-help.c draws the help from that table, so a key
 * cannot be bound one way and described another.
 */
#include <stdbool.h>
#include <stddef.h>

enum action {
	ACTION_NONE,
	ACTION_UP,		/* selection up / scroll up a line */
	ACTION_DOWN,
	ACTION_PAGE_UP,		/* scroll output (or the detail view) a page */
	ACTION_PAGE_DOWN,
	ACTION_TOP,
	ACTION_BOTTOM,
	ACTION_NEXT_PANE,	/* output <-> pending */
	ACTION_DETAIL,		/* Enter: the whole request; never approves */
	ACTION_CLOSE,		/* Esc: close an overlay */
	ACTION_ALLOW_ONCE,	/* a: only when armed */
	ACTION_DENY_ONCE,	/* d */
	ACTION_KILL,		/* K: asks first */
	ACTION_YES,		/* y: answers "kill run? y/n" */
	ACTION_NO,
	ACTION_HELP,
	ACTION_QUIT,		/* q: detach (closes an overlay first) */
	ACTION_REDRAW,		/* ^L */
	ACTION_RESIZE,
	ACTION_NOT_YET,		/* A, D, r: answers that are not built yet */
	ACTION_DIFF,		/* v: the run's staged changes, again closes */
	ACTION_DIFF_NEXT,	/* }: the next changed file (] [ in the diff) */
	ACTION_DIFF_PREV,	/* { */
	ACTION_DIFF_APPLY,	/* p: apply the selected file (asks: y/n) */
	ACTION_DIFF_APPLY_ALL,	/* P: apply every staged file (asks) */
	ACTION_DIFF_DISCARD,	/* u: discard (drop) the selected file (asks) */
	ACTION_DIFF_DISCARD_ALL,	/* U: discard every staged file (asks) */
	ACTION_VIEW,		/* v: agent pane <-> output lines */
	ACTION_ZOOM,		/* z: zoom the agent pane, the requests, neither */
	ACTION_STAGE_ONCE,	/* s: a write outside on a staged copy; armed */
	ACTION_FILTER,		/* /: the events pane's filter (tui/events.h) */
	ACTION_RUN_PREV,	/* [: the previous run (ward console, every run) */
	ACTION_RUN_NEXT,	/* ] */
	ACTION_RUN_PICK,	/* 1-9: run N */
	ACTION_RUN_DISMISS,	/* x: forget an ended run */
	ACTION_ALLOW_RUN,	/* A: allow for the run (shows the rule: y/n) */
	ACTION_DENY_RUN,	/* D: deny for the run (shows the rule: y/n) */
	ACTION_DENY_REASON,	/* r: deny with a reason typed on one line */
	ACTION_DENY_ALL,	/* X: deny every pending request (y/n) */
	ACTION_RULES,		/* R: the run's rules */
	ACTION_ALWAYS,		/* W: allow for the run and write the rule
				 * into the policy file (shows file, line: y/n) */
	ACTION_RUN_CLEAR,	/* C: forget every ended run (y/n) */
};

/* Keys that are not characters; above the Unicode range. */
enum {
	KEYS_UP = 0x110001,
	KEYS_DOWN,
	KEYS_LEFT,
	KEYS_RIGHT,
	KEYS_PAGE_UP,
	KEYS_PAGE_DOWN,
	KEYS_HOME,
	KEYS_END,
	KEYS_ENTER,
	KEYS_BACKTAB,
	KEYS_RESIZE,
	KEYS_BACKSPACE,
	KEYS_DELETE,
	KEYS_INSERT,
	KEYS_PASTE_START,	/* the terminal's bracketed-paste marks */
	KEYS_PASTE_END,
	KEYS_MOUSE,		/* screen_mouse_event() has it */
	KEYS_F0,		/* KEYS_F0 + n: function key n, 1..24 */
	KEYS_LAST = KEYS_F0 + 24,
};
/* Modifiers held with a named key (above every key code). */
#define KEYS_MOD_SHIFT	0x0200000
#define KEYS_MOD_ALT	0x0400000
#define KEYS_MOD_CTRL	0x0800000
#define KEYS_MODS	(KEYS_MOD_SHIFT | KEYS_MOD_ALT | KEYS_MOD_CTRL)
#define KEYS_TAB	'\t'
#define KEYS_ESC	0x1b
#define KEYS_CTRL(c)	((c) & 0x1f)

enum action	 keys_action(int key);

/*
 * A row of the key table. help says how the help screen lists the key:
 * NULL, not at all; KEYS_ALSO, named on the help line a row above began;
 * any other text starts a help line (this key first) and says what its
 * keys do.
 */
struct keys_binding {
	int		 key;
	enum action	 action;
	const char	*help;
};
#define KEYS_ALSO	""

/* The table, in the order the help screen lists it. */
const struct keys_binding *keys_bindings(size_t *n);

/*
 * The prefix key from its name: "^]", "C-]", "Ctrl-]" (any case), a
 * control character of '@'..'_' or a letter; 0, or -EINVAL.
 */
int		 keys_parse_prefix(const char *, int *key);

/*
 * Whether a read of the terminal's bytes ends inside a key: an escape
 * sequence not finished yet (ESC alone, ESC [ without its final byte, ESC
 * O, a mouse report's ESC [ M short of its three bytes) or a UTF-8
 * character cut short. tui/screen.c then waits a moment for the rest
 * before it hands the bytes to curses to decode, as curses would.
 */
bool		 keys_tail_incomplete(const unsigned char *, size_t);

/* How the help screen names a key: "j", "Up", "PgUp", "Enter", "^L";
 * buf (KEYS_NAME_MAX bytes will do) holds it when it is not a constant. */
#define KEYS_NAME_MAX	12
const char	*keys_name(int key, char *buf, size_t len);
