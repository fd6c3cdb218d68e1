#include "tui/pen.h"

void
pen_wrap(struct pen *p, int x, int xend, const char *s, unsigned attr)
{
	int cols = xend - x > 0 ? xend - x : 1;

	if (*s == '\0') {
		p->y++;
		return;
	}
	while (*s != '\0') {
		size_t n = grid_fit(s, cols, NULL);

		if (p->g != NULL && p->y >= p->top && p->y < p->bottom)
			grid_putn(p->g, p->y, x, xend, s, n, attr);
		s += n;
		p->y++;
	}
}

void
pen_wrap_words(struct pen *p, int x, int xend, const char *s, unsigned attr)
{
	int cols = xend - x > 0 ? xend - x : 1;

	while (*s != '\0') {
		size_t n = grid_fit(s, cols, NULL), cut = n;

		if (s[n] != '\0') {
			while (cut > 0 && s[cut - 1] != ' ')
				cut--;
			if (cut == 0)
				cut = n;
		}
		if (p->g != NULL && p->y >= p->top && p->y < p->bottom)
			grid_putn(p->g, p->y, x, xend, s, cut, attr);
		s += cut;
		while (*s == ' ')
			s++;
		p->y++;
	}
}

void
pen_header(struct grid *g, int y, const char *title, bool focused)
{
	unsigned attr = GRID_COLOR(GRID_CYAN) | (focused ? GRID_BOLD : 0);
	const char *rule = focused ? "=" : "-";
	int x;

	grid_fill(g, y, 0, g->w, attr);
	x = grid_put(g, y, 0, g->w, focused ? "== " : "-- ", attr);
	x = grid_put(g, y, x, g->w, title, attr | GRID_BOLD);
	x = grid_put(g, y, x, g->w, " ", attr);
	while (x < g->w)
		x = grid_put(g, y, x, g->w, rule, attr);
}
