/* SPDX-License-Identifier: MIT */
#include "tui/keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/settings.h"
#include "config/util.h"

/*
 * Enter is deliberately bound to the detail view only: it is the key a
 * person presses by habit, so it must never approve (DESIGN §9). Allow is
 * a lone lower-case letter that nothing else is bound near.
 *
 * The order is the help screen's: each help line's keys together, its
 * characters before its named keys.
 */
static const struct keys_binding keys_table[] = {
	{ 'j', ACTION_DOWN, "select a request / scroll a line" },
	{ 'k', ACTION_UP, KEYS_ALSO },
	{ KEYS_UP, ACTION_UP, KEYS_ALSO },
	{ KEYS_DOWN, ACTION_DOWN, KEYS_ALSO },
	{ KEYS_PAGE_UP, ACTION_PAGE_UP,
	    "scroll the output (or the open request)" },
	{ KEYS_PAGE_DOWN, ACTION_PAGE_DOWN, KEYS_ALSO },
	{ KEYS_CTRL('b'), ACTION_PAGE_UP, NULL },
	{ KEYS_CTRL('f'), ACTION_PAGE_DOWN, NULL },
	{ ' ', ACTION_PAGE_DOWN, NULL },
	{ 'g', ACTION_TOP, "first / last; End follows the output again" },
	{ 'G', ACTION_BOTTOM, KEYS_ALSO },
	{ KEYS_HOME, ACTION_TOP, KEYS_ALSO },
	{ KEYS_END, ACTION_BOTTOM, KEYS_ALSO },
	{ '/', ACTION_FILTER,
	    "filter the events (kind verdict text); Tab: next pane" },
	{ KEYS_TAB, ACTION_NEXT_PANE, KEYS_ALSO },
	{ KEYS_BACKTAB, ACTION_NEXT_PANE, NULL },
	{ '\r', ACTION_DETAIL,
	    "show the whole request; again (or Esc) closes" },
	{ '\n', ACTION_DETAIL, NULL },
	{ KEYS_ENTER, ACTION_DETAIL, NULL },
	{ KEYS_ESC, ACTION_CLOSE, NULL },
	{ 'a', ACTION_ALLOW_ONCE,
	    "allow / deny once (a group too); s: stage a write on a copy" },
	{ 'd', ACTION_DENY_ONCE, KEYS_ALSO },
	{ 's', ACTION_STAGE_ONCE, KEYS_ALSO },
	{ 'A', ACTION_ALLOW_RUN,
	    "allow/deny for the run (rule shown, y); deny, reason; W always" },
	{ 'D', ACTION_DENY_RUN, KEYS_ALSO },
	{ 'r', ACTION_DENY_REASON, KEYS_ALSO },
	{ 'W', ACTION_ALWAYS, KEYS_ALSO },
	{ 'X', ACTION_DENY_ALL, "deny all pending (y/n); the run's rules" },
	{ 'R', ACTION_RULES, KEYS_ALSO },
	{ 'K', ACTION_KILL, "kill the run (asks: y/n)" },
	{ 'y', ACTION_YES, NULL },
	{ 'n', ACTION_NO, NULL },
	{ 'c', ACTION_DIFF, "the diff; } { file; apply p / P all, drop u / U" },
	{ '}', ACTION_DIFF_NEXT, KEYS_ALSO },
	{ '{', ACTION_DIFF_PREV, KEYS_ALSO },
	{ 'p', ACTION_DIFF_APPLY, KEYS_ALSO },
	{ 'P', ACTION_DIFF_APPLY_ALL, KEYS_ALSO },
	{ 'u', ACTION_DIFF_DISCARD, KEYS_ALSO },
	{ 'U', ACTION_DIFF_DISCARD_ALL, KEYS_ALSO },
	{ ']', ACTION_RUN_NEXT, "every run: next, previous, run N; drop an "
	    "ended one, all (y/n)" },
	{ '[', ACTION_RUN_PREV, KEYS_ALSO },
	{ '1', ACTION_RUN_PICK, KEYS_ALSO },
	{ 'x', ACTION_RUN_DISMISS, KEYS_ALSO },
	{ 'C', ACTION_RUN_CLEAR, KEYS_ALSO },
	{ '2', ACTION_RUN_PICK, NULL },
	{ '3', ACTION_RUN_PICK, NULL },
	{ '4', ACTION_RUN_PICK, NULL },
	{ '5', ACTION_RUN_PICK, NULL },
	{ '6', ACTION_RUN_PICK, NULL },
	{ '7', ACTION_RUN_PICK, NULL },
	{ '8', ACTION_RUN_PICK, NULL },
	{ '9', ACTION_RUN_PICK, NULL },
	{ '?', ACTION_HELP, "this help; any key closes it" },
	{ KEYS_CTRL('l'), ACTION_REDRAW, NULL },
	{ KEYS_RESIZE, ACTION_RESIZE, NULL },
	{ 'q', ACTION_QUIT, "leave the console; the run goes on" },
	/* The agent pane's keys are named on its own key line (view.c). */
	{ 'v', ACTION_VIEW, NULL },
	{ 'z', ACTION_ZOOM, NULL },
};

enum action
keys_action(int key)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys_table); i++) {
		if (keys_table[i].key == key)
			return keys_table[i].action;
	}
	return ACTION_NONE;
}

const struct keys_binding *
keys_bindings(size_t *n)
{
	*n = ARRAY_SIZE(keys_table);
	return keys_table;
}

int
keys_parse_prefix(const char *s, int *key)
{
	int c;

	if (settings_prefix_parse(s, &c) < 0)
		return -EINVAL;
	*key = KEYS_CTRL(c);
	return 0;
}

/* Escape sequences longer than this are not keys we wait for. */
#define KEYS_SEQ_MAX	32

bool
keys_tail_incomplete(const unsigned char *b, size_t n)
{
	size_t from = n > KEYS_SEQ_MAX ? n - KEYS_SEQ_MAX : 0, esc = n;
	size_t lead = n, need;

	for (size_t i = n; i > from; i--) {
		if (b[i - 1] == KEYS_ESC) {
			esc = i - 1;
			break;
		}
	}
	if (esc < n) {
		const unsigned char *r = b + esc + 1;
		size_t len = n - esc - 1;

		if (len == 0)
			return true;
		if (r[0] == 'O')
			return len < 2;
		if (r[0] == '[') {
			if (len >= 2 && r[1] == 'M')
				return len < 5;
			for (size_t i = 1; i < len; i++)
				if (r[i] >= 0x40 && r[i] <= 0x7e)
					goto utf8;
			return true;
		}
	}
utf8:
	/* The last lead byte of the last four, and how long it says its
	 * character is. */
	for (size_t i = n; i > 0 && i + 4 > n; i--) {
		if ((b[i - 1] & 0xc0) != 0x80) {
			lead = i - 1;
			break;
		}
	}
	if (lead == n)
		return false;
	if ((b[lead] & 0xe0) == 0xc0)
		need = 2;
	else if ((b[lead] & 0xf0) == 0xe0)
		need = 3;
	else if ((b[lead] & 0xf8) == 0xf0)
		need = 4;
	else
		return false;
	return n - lead < need;
}

const char *
keys_name(int key, char *buf, size_t len)
{
	static const struct {
		int		 key;
		const char	*name;
	} names[] = {
		{ KEYS_UP, "Up" },
		{ KEYS_DOWN, "Down" },
		{ KEYS_LEFT, "Left" },
		{ KEYS_RIGHT, "Right" },
		{ KEYS_PAGE_UP, "PgUp" },
		{ KEYS_PAGE_DOWN, "PgDn" },
		{ KEYS_HOME, "Home" },
		{ KEYS_END, "End" },
		{ KEYS_ENTER, "Enter" },
		{ '\r', "Enter" },
		{ '\n', "Enter" },
		{ KEYS_TAB, "Tab" },
		{ KEYS_BACKTAB, "S-Tab" },
		{ KEYS_ESC, "Esc" },
		{ ' ', "Space" },
		{ KEYS_RESIZE, "resize" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].key == key)
			return names[i].name;
	}
	if (key > ' ' && key < 0x7f)
		snprintf(buf, len, "%c", key);
	else if (key >= 0 && key < ' ')
		snprintf(buf, len, "^%c", key + '@');
	else
		snprintf(buf, len, "U+%04X", (unsigned)key);
	return buf;
}
