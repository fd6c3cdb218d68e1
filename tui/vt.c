/* SPDX-License-Identifier: MIT */
#include "tui/vt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <vterm.h>

#include "config/util.h"
#include "tui/keys.h"

struct vt {
	VTerm		*vt;
	VTermScreen	*screen;
	int		 rows, cols;

	bool		 altscreen;
	bool		 was_fullscreen;
	bool		 cursor_visible;
	VTermPos	 cursor;
	int		 mouse;
	unsigned	 bells;
	char		 title[VT_TITLE_MAX];
	unsigned	 title_sets;

	char		*out;		/* bytes for the program */
	size_t		 out_len;
};

/*
 * libvterm calls these for what a program asks of its terminal. Each
 * returns 1 ("handled") after recording: nothing reaches the person's
 * terminal from here.
 */
static int
vt_on_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct vt *t = user;

	switch (prop) {
	case VTERM_PROP_ALTSCREEN:
		t->altscreen = val->boolean != 0;
		t->was_fullscreen |= t->altscreen;
		break;
	case VTERM_PROP_TITLE:
		snprintf(t->title, sizeof t->title, "%s",
		    val->string != NULL ? val->string : "");
		t->title_sets++;
		break;
	case VTERM_PROP_CURSORVISIBLE:
		t->cursor_visible = val->boolean != 0;
		break;
	case VTERM_PROP_MOUSE:
		t->mouse = val->number;
		break;
	case VTERM_PROP_ICONNAME:
	case VTERM_PROP_CURSORBLINK:
	case VTERM_PROP_REVERSE:
	case VTERM_PROP_CURSORSHAPE:
	case VTERM_N_PROPS:
	default:
		break;
	}
	return 1;
}

static int
vt_on_bell(void *user)
{
	struct vt *t = user;

	t->bells++;
	return 1;
}

static int
vt_on_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct vt *t = user;

	(void)oldpos;
	(void)visible;
	t->cursor = pos;
	return 1;
}

static void
vt_on_output(const char *s, size_t len, void *user)
{
	struct vt *t = user;

	/* A program that floods queries without reading the answers
	 * loses the newest ones, never the console's memory. */
	if (t->out_len + len > VT_OUT_MAX)
		return;
	t->out = xrealloc(t->out, t->out_len + len);
	memcpy(t->out + t->out_len, s, len);
	t->out_len += len;
}

static const VTermScreenCallbacks vt_callbacks = {
	.settermprop = vt_on_settermprop,
	.bell = vt_on_bell,
	.movecursor = vt_on_movecursor,
};

static int
vt_clamp(int n)
{
	return n < 1 ? 1 : n > 1000 ? 1000 : n;
}

struct vt *
vt_new(int rows, int cols)
{
	struct vt *t = xcalloc(1, sizeof *t);

	t->rows = vt_clamp(rows);
	t->cols = vt_clamp(cols);
	if ((t->vt = vterm_new(t->rows, t->cols)) == NULL)
		fatal("out of memory");
	vterm_set_utf8(t->vt, 1);
	vterm_output_set_callback(t->vt, vt_on_output, t);
	t->screen = vterm_obtain_screen(t->vt);
	vterm_screen_set_callbacks(t->screen, &vt_callbacks, t);
	vterm_screen_enable_altscreen(t->screen, 1);
	vterm_screen_reset(t->screen, 1);
	t->cursor_visible = true;
	return t;
}

void
vt_free(struct vt *t)
{
	if (t == NULL)
		return;
	vterm_free(t->vt);
	free(t->out);
	free(t);
}

void
vt_feed(struct vt *t, const void *buf, size_t n)
{
	if (n > 0)
		vterm_input_write(t->vt, buf, n);
}

void
vt_resize(struct vt *t, int rows, int cols)
{
	rows = vt_clamp(rows);
	cols = vt_clamp(cols);
	if (rows == t->rows && cols == t->cols)
		return;
	t->rows = rows;
	t->cols = cols;
	vterm_set_size(t->vt, rows, cols);
}

void
vt_size(const struct vt *t, int *rows, int *cols)
{
	*rows = t->rows;
	*cols = t->cols;
}

/* The console's 7 colours: the program's 16 fold onto them. */
static unsigned
vt_color(const VTermColor *c)
{
	static const unsigned map[8] = {
		GRID_DEFAULT, GRID_RED, GRID_GREEN, GRID_YELLOW, GRID_BLUE,
		GRID_MAGENTA, GRID_CYAN, GRID_DEFAULT,
	};

	if (VTERM_COLOR_IS_DEFAULT_FG(c) || !VTERM_COLOR_IS_INDEXED(c) ||
	    c->indexed.idx >= 16)
		return GRID_DEFAULT;
	return map[c->indexed.idx & 7];
}

/* The program's colour as it asked for it (one of 256, or RGB), for
 * tui/screen.c to fold to the terminal's; 0 for the default. */
static uint32_t
vt_tc(const VTermColor *c, bool fg)
{
	if (fg ? VTERM_COLOR_IS_DEFAULT_FG(c) : VTERM_COLOR_IS_DEFAULT_BG(c))
		return 0;
	if (VTERM_COLOR_IS_INDEXED(c))
		return GRID_TC_INDEX(c->indexed.idx);
	return GRID_TC_RGB(c->rgb.red, c->rgb.green, c->rgb.blue);
}

/* Sets the cell's colours on (y, x) and, for a wide one, its right half. */
static void
vt_cell_colors(struct grid *g, int y, int x, const VTermScreenCell *c)
{
	uint32_t fg = vt_tc(&c->fg, true), bg = vt_tc(&c->bg, false);

	for (int i = 0; i < (c->width == 2 ? 2 : 1) && x + i < g->w; i++) {
		struct grid_cell *gc = &g->cells[(size_t)y * (size_t)g->w +
		    (size_t)(x + i)];

		gc->fg = fg;
		gc->bg = bg;
	}
}

static unsigned
vt_attr(const VTermScreenCell *c)
{
	unsigned a = GRID_COLOR(vt_color(&c->fg));

	if (c->attrs.bold)
		a |= GRID_BOLD;
	if (c->attrs.underline)
		a |= GRID_UNDERLINE;
	if (c->attrs.reverse)
		a |= GRID_REVERSE;
	return a;
}

/* One cell as UTF-8 for grid_put(); a code point the grid would spell
 * out (a control, an unassigned one) becomes U+FFFD so that it stays in
 * its cell. */
static void
vt_cell_text(const VTermScreenCell *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c->chars[i] != 0 &&
	    n + 8 < len; i++) {
		uint32_t cp = c->chars[i];
		mbstate_t st;
		size_t k;

		if (i == 0 && grid_cp_width(cp) < 1)
			cp = 0xfffd;
		else if (i > 0 && grid_cp_width(cp) != 0)
			break;
		memset(&st, 0, sizeof st);
		k = wcrtomb(buf + n, (wchar_t)cp, &st);
		if (k == (size_t)-1) {
			if (i > 0)
				break;
			k = 1;
			buf[n] = '?';
		}
		n += k;
	}
	buf[n] = '\0';
}

void
vt_draw(const struct vt *t, struct grid *g, int y, int x, int h, int w)
{
	int xend = x + w;

	if (xend > g->w)
		xend = g->w;
	for (int r = 0; r < h && r < t->rows && y + r < g->h; r++) {
		if (y + r < 0)
			continue;
		grid_fill(g, y + r, x, xend, 0);
		for (int col = 0; col < w && col < t->cols &&
		    x + col < xend; col++) {
			VTermScreenCell c;
			char text[64];

			if (x + col < 0 || !vterm_screen_get_cell(t->screen,
			    (VTermPos){ .row = r, .col = col }, &c))
				continue;
			if (c.width == 0)
				continue;
			if (c.chars[0] == 0) {
				/* Blank, but maybe on a colour of its own. */
				vt_cell_colors(g, y + r, x + col, &c);
				continue;
			}
			vt_cell_text(&c, text, sizeof text);
			if (*text != '\0' && grid_put(g, y + r, x + col, xend,
			    text, vt_attr(&c)) > x + col)
				vt_cell_colors(g, y + r, x + col, &c);
			if (c.width == 2)
				col++;
		}
	}
}

bool
vt_cursor(const struct vt *t, int *row, int *col)
{
	*row = t->cursor.row;
	*col = t->cursor.col;
	return t->cursor_visible;
}

bool
vt_altscreen(const struct vt *t)
{
	return t->altscreen;
}

bool
vt_was_fullscreen(const struct vt *t)
{
	return t->was_fullscreen;
}

const char *
vt_title(const struct vt *t)
{
	return t->title;
}

unsigned
vt_title_sets(const struct vt *t)
{
	return t->title_sets;
}

int
vt_mouse_mode(const struct vt *t)
{
	return t->mouse;
}

unsigned
vt_take_bells(struct vt *t)
{
	unsigned n = t->bells;

	t->bells = 0;
	return n;
}

static VTermKey
vt_named(int key)
{
	static const struct {
		int		 key;
		VTermKey	 vk;
	} names[] = {
		{ KEYS_UP, VTERM_KEY_UP },
		{ KEYS_DOWN, VTERM_KEY_DOWN },
		{ KEYS_LEFT, VTERM_KEY_LEFT },
		{ KEYS_RIGHT, VTERM_KEY_RIGHT },
		{ KEYS_PAGE_UP, VTERM_KEY_PAGEUP },
		{ KEYS_PAGE_DOWN, VTERM_KEY_PAGEDOWN },
		{ KEYS_HOME, VTERM_KEY_HOME },
		{ KEYS_END, VTERM_KEY_END },
		{ KEYS_ENTER, VTERM_KEY_KP_ENTER },
		{ KEYS_BACKTAB, VTERM_KEY_TAB },
		{ KEYS_BACKSPACE, VTERM_KEY_BACKSPACE },
		{ KEYS_DELETE, VTERM_KEY_DEL },
		{ KEYS_INSERT, VTERM_KEY_INS },
	};

	if (key > KEYS_F0 && key <= KEYS_LAST)
		return (VTermKey)VTERM_KEY_FUNCTION(key - KEYS_F0);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].key == key)
			return names[i].vk;
	return VTERM_KEY_NONE;
}

bool
vt_key(struct vt *t, int key)
{
	int base = key & ~KEYS_MODS;
	VTermModifier mod = VTERM_MOD_NONE;
	VTermKey vk;

	if (key & KEYS_MOD_SHIFT)
		mod |= VTERM_MOD_SHIFT;
	if (key & KEYS_MOD_ALT)
		mod |= VTERM_MOD_ALT;
	if (key & KEYS_MOD_CTRL)
		mod |= VTERM_MOD_CTRL;
	if (base == KEYS_BACKTAB)
		mod |= VTERM_MOD_SHIFT;
	if (base < 0 || base == KEYS_RESIZE || base == KEYS_PASTE_START ||
	    base == KEYS_PASTE_END)
		return false;
	if (base < 0x20 || base == 0x7f) {
		char c = (char)base;

		/* Enter, Tab, Esc, ^C and the rest: the byte itself, as a
		 * terminal in its usual modes sends it. */
		if (mod & VTERM_MOD_ALT)
			vt_on_output("\x1b", 1, t);
		vt_on_output(&c, 1, t);
		return true;
	}
	if (base <= 0x10ffff) {
		vterm_keyboard_unichar(t->vt, (uint32_t)base, mod);
		return true;
	}
	if ((vk = vt_named(base)) == VTERM_KEY_NONE)
		return false;
	vterm_keyboard_key(t->vt, vk, mod);
	return true;
}

void
vt_paste(struct vt *t, bool start)
{
	if (start)
		vterm_keyboard_start_paste(t->vt);
	else
		vterm_keyboard_end_paste(t->vt);
}

void
vt_mouse(struct vt *t, int row, int col, int button, bool pressed)
{
	if (t->mouse == VTERM_PROP_MOUSE_NONE || row < 0 || col < 0 ||
	    row >= t->rows || col >= t->cols)
		return;
	vterm_mouse_move(t->vt, row, col, VTERM_MOD_NONE);
	if (button > 0)
		vterm_mouse_button(t->vt, button, pressed, VTERM_MOD_NONE);
}

const char *
vt_output(const struct vt *t, size_t *len)
{
	*len = t->out_len;
	return t->out;
}

void
vt_output_clear(struct vt *t)
{
	t->out_len = 0;
}
