/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * An in-memory screen: rows of cells, each one code point (plus up to two
 * combining marks) with its display width and attributes. Views draw into
 * a grid; tui/screen.c alone copies it to the terminal; tests turn it into
 * text and compare it with tests/golden/.
 *
 * Text given to the grid is UTF-8 that has already gone through
 * config/escape.h. The grid still never lets a control character into a
 * cell: anything grid_cp_width() does not call printable (controls,
 * unassigned code points) is drawn as the text \u{XXXX}. A wide (CJK)
 * character takes two cells, the second a continuation (width 0); one
 * that would not fit a row's end is not split.
 */
#include <stddef.h>
#include <stdint.h>

/* Attributes: flags, and one colour in bits 8..11. */
#define GRID_BOLD	0x01u
#define GRID_REVERSE	0x02u
#define GRID_DIM	0x04u
#define GRID_UNDERLINE	0x08u
#define GRID_COLOR(c)	((unsigned)(c) << 8)
#define GRID_COLOR_OF(a) (((a) >> 8) & 0xfu)
enum grid_color {
	GRID_DEFAULT,
	GRID_RED,
	GRID_GREEN,
	GRID_YELLOW,
	GRID_BLUE,
	GRID_MAGENTA,
	GRID_CYAN,
};
#define GRID_COLORS 7

/*
 * The program's own colours (the agent pane, tui/vt.c), beside attr's:
 * 0 none (attr's colour stands), else one of the 256 indexed colours or
 * an RGB one. tui/screen.c folds them to what the terminal has
 * (pen_fold_color()); under NO_COLOR nothing is coloured.
 */
#define GRID_TC_INDEXED		0x01000000u
#define GRID_TC_RGB_KIND	0x02000000u
#define GRID_TC_INDEX(i)	(GRID_TC_INDEXED | ((unsigned)(i) & 0xffu))
#define GRID_TC_RGB(r, g, b)	(GRID_TC_RGB_KIND | \
	(((unsigned)(r) & 0xffu) << 16) | (((unsigned)(g) & 0xffu) << 8) | \
	((unsigned)(b) & 0xffu))

#define GRID_COMB 2

struct grid_cell {
	uint32_t	 cp;			/* ' ' when blank */
	uint32_t	 comb[GRID_COMB];	/* combining marks, 0 = none */
	uint8_t		 width;			/* 1, 2; 0: right half */
	unsigned	 attr;
	uint32_t	 fg, bg;		/* GRID_TC_*, 0 = none */
};

struct grid {
	int		 w, h;
	struct grid_cell *cells;		/* h rows of w */
};

/* The cells a code point takes: 1, 2 (wide), 0 (a combining mark), or
 * -1 for one the grid spells out. Unicode's widths (libunistring), in
 * UTF-8's terms whatever the locale: the same on every terminal. */
int		 grid_cp_width(uint32_t cp);

struct grid	*grid_new(int w, int h);
void		 grid_free(struct grid *);
/* New size, all blank. */
void		 grid_resize(struct grid *, int w, int h);
void		 grid_clear(struct grid *);
const struct grid_cell *grid_cell(const struct grid *, int y, int x);

/*
 * Draws s on row y from column x, stopping before column xend (clipped to
 * the grid). Rows outside the grid draw nothing. Returns the column after
 * the last cell drawn.
 */
int		 grid_put(struct grid *, int y, int x, int xend, const char *s,
		    unsigned attr);
/* The same for at most n bytes of s. */
int		 grid_putn(struct grid *, int y, int x, int xend, const char *s,
		    size_t n, unsigned attr);
/* Fills columns [x, xend) of row y with ' ' in attr. */
void		 grid_fill(struct grid *, int y, int x, int xend,
		    unsigned attr);
/* Sets attr on columns [x, xend) of row y, keeping the text. */
void		 grid_attr(struct grid *, int y, int x, int xend,
		    unsigned attr);

/* Display columns of s as grid_put() would draw it on an endless row. */
int		 grid_width(const char *s);
/*
 * How many bytes of s fit into cols columns (at least one character when
 * s is not empty, so that wrapping always moves on); *used gets their
 * columns.
 */
size_t		 grid_fit(const char *s, int cols, int *used);
/* A malloc'd copy of s with tabs expanded to stops every 8 columns. */
char		*grid_expand_tabs(const char *s);

/* The grid as UTF-8 text: one line per row, trailing blanks cut, each
 * ending in '\n'. malloc'd. */
char		*grid_text(const struct grid *);
