/* SPDX-License-Identifier: MIT */
#include "tui/view-help.h"

#include <string.h>

#include "config/util.h"
#include "tui/keys.h"
#include "tui/pen.h"

#define VIEW_HELP_KEYS_X	2
#define VIEW_HELP_WHAT_X	18

/*
 * The help line that starts at row *i of the key table: its keys' names
 * into keys, what they do as the result; *i moves past the line. NULL
 * when no line is left. Names are one space apart, two between a line's
 * characters and its named keys: "j k  Up Down".
 */
static const char *
view_help_line(const struct keys_binding *b, size_t n, size_t *i, char *keys,
    size_t len)
{
	const char *what = NULL;
	size_t at = 0;
	bool single = false;

	*keys = '\0';
	for (; *i < n; (*i)++) {
		char buf[KEYS_NAME_MAX];
		const char *name, *sep;

		if (b[*i].help == NULL)
			continue;
		if (*b[*i].help != '\0') {
			if (what != NULL)
				break;
			what = b[*i].help;
		} else if (what == NULL) {
			continue;	/* KEYS_ALSO with no line begun */
		}
		name = keys_name(b[*i].key, buf, sizeof buf);
		if (at == 0)
			sep = "";
		else if (single && strlen(name) > 1)
			sep = "  ";
		else
			sep = " ";
		single = strlen(name) == 1;
		at += (size_t)snprintf(keys + at, len - at, "%s%s", sep, name);
		if (at >= len)
			at = len - 1;
	}
	return what;
}

/* Whether the help line what is the run keys' (every run only). */
static bool
view_help_runs_line(const struct keys_binding *b, size_t n, const char *what)
{
	for (size_t k = 0; k < n; k++) {
		if (b[k].help == what && b[k].action == ACTION_RUN_NEXT)
			return true;
	}
	return false;
}

void
view_help_draw(const struct model *m, struct grid *g, int top, int bottom)
{
	static const char *notes[] = {
		"a works only once the request has been on screen, whole, for "
		"0.5 s, with no key in the 0.4 s before it; typeahead is "
		"dropped. Enter never approves.",
		"A request nobody answers is denied at its deadline.",
		("The program's text is shown, never obeyed: names escaped "
		"(\\x07), output behind ward's gutter, CR BS ESC as markers."),
		"After q the run goes on; come back with: ward console RUN",
	};
	struct pen p = { .g = g, .y = top + 1, .top = top, .bottom = bottom };
	const struct keys_binding *b;
	const char *what;
	char keys[64];
	size_t n, i = 0;

	pen_header(g, top, "help", true);
	b = keys_bindings(&n);
	while ((what = view_help_line(b, n, &i, keys, sizeof keys)) != NULL) {
		if (!m->many_runs && view_help_runs_line(b, n, what))
			continue;
		grid_put(g, p.y, VIEW_HELP_KEYS_X, VIEW_HELP_WHAT_X, keys,
		    GRID_BOLD);
		pen_wrap_words(&p, VIEW_HELP_WHAT_X, g->w, what, 0);
	}
	p.y++;
	for (size_t k = 0; k < ARRAY_SIZE(notes); k++)
		pen_wrap_words(&p, 2, g->w - 1, notes[k], 0);
}
