/* SPDX-License-Identifier: MIT */
#include "tui/grid.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unictype.h>
#include <uniwidth.h>

#include "config/escape.h"
#include "config/util.h"

/* One code point as the grid draws it: a cell of width 1 or 2, a mark
 * (width 0) joined to the cell before, or fallback text. */
struct glyph {
	uint32_t	 cp;
	int		 width;		/* columns */
	char		 text[16];	/* ASCII drawn instead, or "" */
};

/* Decodes one UTF-8 sequence of s[0..n); its length (>= 1), with
 * U+FFFD for a byte that does not start a valid sequence. */
static size_t
grid_decode(const unsigned char *s, size_t n, uint32_t *ret)
{
	size_t len = escape_utf8(s, n, ret);

	if (len == 0) {
		*ret = 0xfffd;
		return 1;
	}
	return len;
}

static size_t
grid_encode(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

int
grid_cp_width(uint32_t cp)
{
	/* uc_width() calls an unassigned code point 1 wide: the grid spells
	 * it out, as it does a control (C0, DEL, C1). */
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	    !uc_is_print(cp))
		return -1;
	return uc_width(cp, "UTF-8");
}

static void
grid_glyph(uint32_t cp, struct glyph *g)
{
	int w = grid_cp_width(cp);

	g->cp = cp;
	g->text[0] = '\0';
	if (w < 0) {
		snprintf(g->text, sizeof g->text, "\\u{%04x}", (unsigned)cp);
		w = (int)strlen(g->text);
	} else if (w > 2) {
		w = 2;
	}
	g->width = w;
}

struct grid *
grid_new(int w, int h)
{
	struct grid *g = xcalloc(1, sizeof *g);

	grid_resize(g, w, h);
	return g;
}

void
grid_free(struct grid *g)
{
	if (g == NULL)
		return;
	free(g->cells);
	free(g);
}

void
grid_resize(struct grid *g, int w, int h)
{
	g->w = w > 0 ? w : 0;
	g->h = h > 0 ? h : 0;
	g->cells = xreallocarray(g->cells, (size_t)g->w * (size_t)g->h + 1,
	    sizeof *g->cells);
	grid_clear(g);
}

void
grid_clear(struct grid *g)
{
	for (int y = 0; y < g->h; y++)
		grid_fill(g, y, 0, g->w, 0);
}

const struct grid_cell *
grid_cell(const struct grid *g, int y, int x)
{
	if (y < 0 || y >= g->h || x < 0 || x >= g->w)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

static struct grid_cell *
grid_at(struct grid *g, int y, int x)
{
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

static void
grid_blank(struct grid_cell *c, unsigned attr)
{
	memset(c, 0, sizeof *c);
	c->cp = ' ';
	c->width = 1;
	c->attr = attr;
}

/* Puts a cell of width 1 or 2 at (y, x), which the caller checked fits;
 * any wide character it cuts in half is blanked. */
static void
grid_set(struct grid *g, int y, int x, uint32_t cp, int width, unsigned attr)
{
	struct grid_cell *c = grid_at(g, y, x);

	if (c->width == 0 && x > 0)
		grid_blank(grid_at(g, y, x - 1), grid_at(g, y, x - 1)->attr);
	if (x + width < g->w) {
		struct grid_cell *next = grid_at(g, y, x + width);

		if (next->width == 0)
			grid_blank(next, next->attr);
	}
	memset(c, 0, sizeof *c);
	c->cp = cp;
	c->width = (uint8_t)width;
	c->attr = attr;
	if (width == 2) {
		struct grid_cell *right = grid_at(g, y, x + 1);

		memset(right, 0, sizeof *right);
		right->width = 0;
		right->attr = attr;
	}
}

int
grid_putn(struct grid *g, int y, int x, int xend, const char *s, size_t n,
    unsigned attr)
{
	const unsigned char *p = (const unsigned char *)s;
	int last = -1;		/* column of the last cell drawn by this call */

	if (xend > g->w)
		xend = g->w;
	if (x < 0)
		x = 0;
	if (y < 0 || y >= g->h)
		return x;
	while (n > 0 && *p != '\0' && x < xend) {
		struct glyph gl;
		uint32_t cp;
		size_t len = grid_decode(p, n, &cp);

		p += len;
		n -= len;
		grid_glyph(cp, &gl);
		if (gl.text[0] != '\0') {
			for (const char *t = gl.text; *t != '\0' && x < xend;
			    t++) {
				grid_set(g, y, x, (unsigned char)*t, 1, attr);
				last = x++;
			}
			continue;
		}
		if (gl.width == 0) {
			struct grid_cell *c;
			size_t i;

			if (last < 0) {
				/* Nothing to join: use a dotted circle. */
				grid_set(g, y, x, 0x25cc, 1, attr);
				last = x++;
			}
			c = grid_at(g, y, last);
			for (i = 0; i < GRID_COMB && c->comb[i] != 0; i++)
				;
			if (i < GRID_COMB)
				c->comb[i] = cp;
			continue;
		}
		if (x + gl.width > xend)
			break;
		grid_set(g, y, x, cp, gl.width, attr);
		last = x;
		x += gl.width;
	}
	return x;
}

int
grid_put(struct grid *g, int y, int x, int xend, const char *s, unsigned attr)
{
	return grid_putn(g, y, x, xend, s, strlen(s), attr);
}

void
grid_fill(struct grid *g, int y, int x, int xend, unsigned attr)
{
	if (y < 0 || y >= g->h)
		return;
	if (x < 0)
		x = 0;
	if (xend > g->w)
		xend = g->w;
	if (x < xend && grid_at(g, y, x)->width == 0 && x > 0)
		grid_blank(grid_at(g, y, x - 1), grid_at(g, y, x - 1)->attr);
	if (xend > x && xend < g->w && grid_at(g, y, xend)->width == 0)
		grid_blank(grid_at(g, y, xend), grid_at(g, y, xend)->attr);
	for (; x < xend; x++)
		grid_blank(grid_at(g, y, x), attr);
}

void
grid_attr(struct grid *g, int y, int x, int xend, unsigned attr)
{
	if (y < 0 || y >= g->h)
		return;
	if (x < 0)
		x = 0;
	if (xend > g->w)
		xend = g->w;
	for (; x < xend; x++)
		grid_at(g, y, x)->attr = attr;
}

size_t
grid_fit(const char *s, int cols, int *used)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	int w = 0;

	while (*p != '\0') {
		struct glyph gl;
		uint32_t cp;
		size_t len = grid_decode(p, n, &cp);

		grid_glyph(cp, &gl);
		if (w + gl.width > cols && p != (const unsigned char *)s)
			break;
		w += gl.width;
		p += len;
		n -= len;
		if (w >= cols)
			break;
	}
	/* Marks that follow belong with the last character. */
	while (*p != '\0') {
		struct glyph gl;
		uint32_t cp;
		size_t len = grid_decode(p, n, &cp);

		grid_glyph(cp, &gl);
		if (gl.width != 0)
			break;
		p += len;
		n -= len;
	}
	if (used != NULL)
		*used = w;
	return (size_t)((const char *)p - s);
}

int
grid_width(const char *s)
{
	int used;

	grid_fit(s, 1 << 30, &used);
	return used;
}

char *
grid_expand_tabs(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), tabs = 0, col = 0;
	char *out, *o;

	for (const char *t = s; *t != '\0'; t++)
		tabs += *t == '\t';
	if (tabs == 0)
		return xstrdup(s);
	out = o = xmalloc(n + tabs * 8 + 1);
	while (*p != '\0') {
		struct glyph gl;
		uint32_t cp;
		size_t len = grid_decode(p, n, &cp);

		if (cp == '\t') {
			do
				*o++ = ' ';
			while (++col % 8 != 0);
		} else {
			grid_glyph(cp, &gl);
			memcpy(o, p, len);
			o += len;
			col += (size_t)gl.width;
		}
		p += len;
		n -= len;
	}
	*o = '\0';
	return out;
}

char *
grid_text(const struct grid *g)
{
	/* A cell is at most 3 code points of 4 bytes. */
	size_t cap = (size_t)g->h *
	    ((size_t)g->w * 4 * (1 + GRID_COMB) + 1) + 1;
	char *out = xmalloc(cap), *o = out;

	for (int y = 0; y < g->h; y++) {
		char *keep = o;

		for (int x = 0; x < g->w; x++) {
			const struct grid_cell *c = grid_cell(g, y, x);

			if (c->width == 0)
				continue;
			o += grid_encode(c->cp, o);
			for (size_t i = 0; i < GRID_COMB && c->comb[i]; i++)
				o += grid_encode(c->comb[i], o);
			if (c->cp != ' ' || c->comb[0] != 0)
				keep = o;
		}
		o = keep;
		*o++ = '\n';
	}
	*o = '\0';
	return xrealloc(out, (size_t)(o - out) + 1);
}
