#include "tui/view-help.h"

#include "config/util.h"
#include "tui/keys.h"
#include "tui/pen.h"

void
view_help_draw(const struct model *m, struct grid *g, int top, int bottom)
{
	static const char *notes[] = {
		"Allow (a) works only once the selected request has been on "
		"screen, whole, for half a second; keys typed before a request "
		"appears are thrown away. Enter never approves.",
		"A request nobody answers is denied at its deadline.",
		"Everything the sandboxed program prints or names is shown "
		"escaped (\\e, \\x07, \\u{202e}), never obeyed.",
		"After q the run goes on; come back with: ward console RUN",
	};
	struct pen p = { .g = g, .y = top + 1, .top = top, .bottom = bottom };
	const struct keys_help *k;
	size_t n;

	(void)m;
	pen_header(g, top, "help", true);
	p.y++;
	k = keys_help(&n);
	for (size_t i = 0; i < n; i++) {
		grid_put(g, p.y, 2, 18, k[i].keys, GRID_BOLD);
		pen_wrap_words(&p, 18, g->w, k[i].what, 0);
	}
	p.y++;
	for (size_t i = 0; i < ARRAY_SIZE(notes); i++)
		pen_wrap_words(&p, 2, g->w - 1, notes[i], 0);
}
