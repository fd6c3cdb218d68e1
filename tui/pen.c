/* SPDX-License-Identifier: MIT */
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

/* The xterm palette's 16 basic colours. */
static const uint8_t pen_basic[16][3] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};
static const uint8_t pen_cube[6] = { 0, 95, 135, 175, 215, 255 };

static void
pen_index_rgb(unsigned idx, unsigned rgb[3])
{
	if (idx < 16) {
		for (int i = 0; i < 3; i++)
			rgb[i] = pen_basic[idx][i];
	} else if (idx < 232) {
		idx -= 16;
		rgb[0] = pen_cube[idx / 36];
		rgb[1] = pen_cube[idx / 6 % 6];
		rgb[2] = pen_cube[idx % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (idx - 232);
	}
}

static unsigned
pen_dist(const unsigned a[3], const unsigned b[3])
{
	unsigned d = 0;

	for (int i = 0; i < 3; i++) {
		int k = (int)a[i] - (int)b[i];

		d += (unsigned)(k * k);
	}
	return d;
}

/* The nearest of the indexes [from, to) by their RGB. */
static int
pen_nearest(const unsigned rgb[3], unsigned from, unsigned to)
{
	unsigned best = 0, best_d = ~0u;

	for (unsigned i = from; i < to; i++) {
		unsigned c[3], d;

		pen_index_rgb(i, c);
		if ((d = pen_dist(rgb, c)) < best_d) {
			best_d = d;
			best = i;
		}
	}
	return (int)best;
}

int
pen_fold_color(uint32_t tc, int colors)
{
	unsigned rgb[3];

	if (tc == 0 || colors < 8)
		return -1;
	if (colors > 256)
		colors = 256;
	if ((tc & 0xff000000u) == GRID_TC_INDEXED) {
		unsigned idx = tc & 0xffu;

		if ((int)idx < colors)
			return (int)idx;
		if (idx < 16)
			return (int)idx - 8;
		pen_index_rgb(idx, rgb);
	} else {
		rgb[0] = (tc >> 16) & 0xffu;
		rgb[1] = (tc >> 8) & 0xffu;
		rgb[2] = tc & 0xffu;
	}
	/* 256: the cube and the grey ramp (16..255), never the basic 16,
	 * which a terminal's theme may have changed; 16: the nearest. */
	if (colors >= 256)
		return pen_nearest(rgb, 16, 256);
	if (colors >= 16)
		return pen_nearest(rgb, 0, 16);
	/* 8: a channel at half or more is on (the nearest would take a
	 * grey for yellow: the 8 have no grey). */
	return (rgb[0] >= 128 ? 1 : 0) | (rgb[1] >= 128 ? 2 : 0) |
	    (rgb[2] >= 128 ? 4 : 0);
}
