#include "tui/keys.h"

#include "config/util.h"

/*
 * Enter is deliberately bound to the detail view only: it is the key a
 * person presses by habit, so it must never approve (DESIGN §9). Allow is
 * a lone lower-case letter that nothing else is bound near.
 */
static const struct {
	int		 key;
	enum action	 action;
} keys_table[] = {
	{ 'j', ACTION_DOWN },
	{ KEYS_DOWN, ACTION_DOWN },
	{ 'k', ACTION_UP },
	{ KEYS_UP, ACTION_UP },
	{ KEYS_PAGE_UP, ACTION_PAGE_UP },
	{ KEYS_CTRL('b'), ACTION_PAGE_UP },
	{ KEYS_PAGE_DOWN, ACTION_PAGE_DOWN },
	{ KEYS_CTRL('f'), ACTION_PAGE_DOWN },
	{ ' ', ACTION_PAGE_DOWN },
	{ 'g', ACTION_TOP },
	{ KEYS_HOME, ACTION_TOP },
	{ 'G', ACTION_BOTTOM },
	{ KEYS_END, ACTION_BOTTOM },
	{ KEYS_TAB, ACTION_NEXT_PANE },
	{ KEYS_BACKTAB, ACTION_NEXT_PANE },
	{ '\r', ACTION_DETAIL },
	{ '\n', ACTION_DETAIL },
	{ KEYS_ENTER, ACTION_DETAIL },
	{ KEYS_ESC, ACTION_CLOSE },
	{ 'a', ACTION_ALLOW_ONCE },
	{ 'd', ACTION_DENY_ONCE },
	{ 'K', ACTION_KILL },
	{ 'y', ACTION_YES },
	{ 'n', ACTION_NO },
	{ '?', ACTION_HELP },
	{ KEYS_CTRL('l'), ACTION_REDRAW },
	{ KEYS_RESIZE, ACTION_RESIZE },
	{ 'q', ACTION_QUIT },
	{ 'A', ACTION_NOT_YET },
	{ 'D', ACTION_NOT_YET },
	{ 'r', ACTION_NOT_YET },
	{ '/', ACTION_NOT_YET },
};

static const struct keys_help keys_help_table[] = {
	{ "j k  Up Down", "select a request / scroll a line" },
	{ "PgUp PgDn", "scroll the output (or the open request)" },
	{ "g G  Home End", "first / last; End follows the output again" },
	{ "Tab", "switch pane: output / pending" },
	{ "Enter", "show the whole request; again (or Esc) closes" },
	{ "a", "allow the selected request once" },
	{ "d", "deny the selected request once" },
	{ "K", "kill the run (asks: y/n)" },
	{ "?", "this help; any key closes it" },
	{ "q", "leave the console; the run goes on" },
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

const struct keys_help *
keys_help(size_t *n)
{
	*n = ARRAY_SIZE(keys_help_table);
	return keys_help_table;
}
