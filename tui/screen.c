/* SPDX-License-Identifier: MIT */
#include "tui/screen.h"

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/keys.h"
#include "tui/pen.h"

static bool screen_active;
static FILE *screen_in;			/* curses' input: our pipe */
static int screen_pipe_w = -1;		/* its other end (screen_fill) */
static bool screen_mouse_on;
static bool screen_raw_on;
static bool screen_color;
static bool screen_cursor_on;		/* asked for by screen_cursor() */
static bool screen_cursor_shown;	/* what curs_set() last said */
static int screen_cursor_y, screen_cursor_x;

void
screen_cursor(bool show, int y, int x)
{
	screen_cursor_on = show;
	screen_cursor_y = y;
	screen_cursor_x = x;
}

bool
screen_no_color(void)
{
	const char *s = getenv("NO_COLOR");

	return s != NULL && *s != '\0';
}

/* A terminfo capability that is there (not absent, not cancelled). */
static bool
screen_has_str(const char *cap)
{
	const char *v = tigetstr(cap);

	return v != NULL && v != (const char *)-1 && *v != '\0';
}

int
screen_check(char **why)
{
	const char *term = getenv("TERM");
	cleanup_free char *e = NULL;
	int err = 0;
	bool ok;

	*why = NULL;
	if (term == NULL || *term == '\0') {
		*why = xstrdup("TERM is not set");
		return -ENOTTY;
	}
	e = escape_str(term);
	/* setupterm() with a place for the error never prints or exits,
	 * where initscr() would end the process. */
	if (setupterm(term, STDOUT_FILENO, &err) != OK) {
		*why = err == -1 ?
		    xasprintf("TERM=%s: no terminfo database found", e) :
		    err == 0 ? xasprintf("TERM=%s: a terminal type terminfo "
		    "does not know", e) :
		    xasprintf("TERM=%s: not a usable terminal", e);
		return -ENOENT;
	}
	/* The console draws by moving the cursor: a terminal that cannot
	 * (dumb, a hardcopy, a generic type) would show a broken screen. */
	ok = screen_has_str("cup") && tigetflag("hc") <= 0 &&
	    tigetflag("gn") <= 0;
	del_curterm(cur_term);
	if (!ok) {
		*why = xasprintf("TERM=%s: a terminal without cursor "
		    "addressing", e);
		return -ENOTSUP;
	}
	return 0;
}

/* Keys curses knows only by terminfo name (modified cursor keys) or
 * that we teach it (the bracketed-paste marks), found at start-up. */
#define SCREEN_PASTE_START	(KEY_MAX + 1)
#define SCREEN_PASTE_END	(KEY_MAX + 2)
#define SCREEN_MAX_EXTRA	64

static struct {
	int		 code;
	int		 key;
} screen_extra[SCREEN_MAX_EXTRA];
static size_t screen_n_extra;

static void
screen_extra_keys(void)
{
	static const struct {
		const char	*name;
		int		 key;
	} bases[] = {
		{ "kUP", KEYS_UP }, { "kDN", KEYS_DOWN }, { "kLFT", KEYS_LEFT },
		{ "kRIT", KEYS_RIGHT }, { "kHOM", KEYS_HOME },
		{ "kEND", KEYS_END }, { "kDC", KEYS_DELETE },
	};
	static const struct {
		const char	*suffix;
		int		 mods;
	} mods[] = {
		{ "", KEYS_MOD_SHIFT }, { "3", KEYS_MOD_ALT },
		{ "5", KEYS_MOD_CTRL }, { "6", KEYS_MOD_CTRL | KEYS_MOD_SHIFT },
	};

	screen_n_extra = 0;
	for (size_t b = 0; b < ARRAY_SIZE(bases); b++) {
		for (size_t k = 0; k < ARRAY_SIZE(mods); k++) {
			char name[16];
			char *str;
			int code;

			/* kLFT alone is not terminfo's: shift is KEY_SLEFT. */
			if (*mods[k].suffix == '\0')
				continue;
			snprintf(name, sizeof name, "%s%s", bases[b].name,
			    mods[k].suffix);
			str = tigetstr(name);
			if (str == NULL || str == (char *)-1 ||
			    (code = key_defined(str)) <= 0 ||
			    screen_n_extra == SCREEN_MAX_EXTRA)
				continue;
			screen_extra[screen_n_extra].code = code;
			screen_extra[screen_n_extra++].key = bases[b].key |
			    mods[k].mods;
		}
	}
	define_key("\033[200~", SCREEN_PASTE_START);
	define_key("\033[201~", SCREEN_PASTE_END);
}

int
screen_init(char **why)
{
	static const short colors[GRID_COLORS] = {
		[GRID_DEFAULT] = -1,
		[GRID_RED] = COLOR_RED,
		[GRID_GREEN] = COLOR_GREEN,
		[GRID_YELLOW] = COLOR_YELLOW,
		[GRID_BLUE] = COLOR_BLUE,
		[GRID_MAGENTA] = COLOR_MAGENTA,
		[GRID_CYAN] = COLOR_CYAN,
	};

	if (screen_check(why) < 0)
		return -ENOTTY;
	/* curses reads the keys from our pipe, never from the terminal
	 * (screen_fill): the terminal's modes are set on stdout, the same
	 * terminal. */
	if (screen_in == NULL) {
		int fds[2];

		if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
			return -ENOTTY;
		screen_pipe_w = fds[1];
		if ((screen_in = fdopen(fds[0], "r")) == NULL) {
			close(fds[0]);
			close(fds[1]);
			screen_pipe_w = -1;
			return -ENOTTY;
		}
	}
	/* newterm(), not initscr(): a failure comes back to us. */
	if (newterm(NULL, stdout, screen_in) == NULL)
		return -ENOTTY;
	screen_active = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	/* Esc closes overlays; don't make it wait a second for more bytes. */
	set_escdelay(25);
	curs_set(0);
	screen_extra_keys();
	/* Pastes come marked, so that a paste is never taken for keys
	 * (tui/model-keys.c: a pasted "a" must not approve). */
	fputs("\033[?2004h", stdout);
	fflush(stdout);
	screen_color = !screen_no_color() && has_colors();
	if (screen_color) {
		start_color();
		use_default_colors();
		for (short i = 1; i < GRID_COLORS; i++)
			init_pair(i, colors[i], -1);
	}
	return 0;
}

void
screen_done(void)
{
	if (!screen_active)
		return;
	screen_active = false;
	if (screen_mouse_on) {
		mousemask(0, NULL);
		screen_mouse_on = false;
	}
	screen_raw_on = false;	/* endwin() gives the tty its modes back */
	curs_set(1);
	endwin();
	fputs("\033[?2004l", stdout);
	fflush(stdout);
}

void
screen_size(int *w, int *h)
{
	int y, x;

	getmaxyx(stdscr, y, x);
	*w = x;
	*h = y;
}

static attr_t
screen_attr(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & GRID_BOLD)
		r |= A_BOLD;
	if (a & GRID_REVERSE)
		r |= A_REVERSE;
	if (a & GRID_DIM)
		r |= A_DIM;
	if (a & GRID_UNDERLINE)
		r |= A_UNDERLINE;
	return r;
}

/* The pair for a cell of the program's colours (tui/vt.c), folded to
 * the terminal's; 0 when both are its defaults or curses has no pair. */
static int
screen_tc_pair(uint32_t fg, uint32_t bg)
{
	int f = pen_fold_color(fg, COLORS), b = pen_fold_color(bg, COLORS);
	int pair;

	if (f == -1 && b == -1)
		return 0;
	pair = alloc_pair(f, b);
	return pair < 0 ? 0 : pair;
}

void
screen_draw(const struct grid *g)
{
	int w, h;

	screen_size(&w, &h);
	for (int y = 0; y < g->h && y < h; y++) {
		for (int x = 0; x < g->w && x < w; x++) {
			const struct grid_cell *c = grid_cell(g, y, x);
			wchar_t wch[GRID_COMB + 2] = { 0 };
			int pair = 0;
			cchar_t cc;
			size_t n = 0;

			if (c->width == 0)
				continue;	/* right half of a wide one */
			wch[n++] = (wchar_t)c->cp;
			for (size_t i = 0; i < GRID_COMB && c->comb[i]; i++)
				wch[n++] = (wchar_t)c->comb[i];
			if (screen_color && (c->fg != 0 || c->bg != 0))
				pair = screen_tc_pair(c->fg, c->bg);
			if (screen_color && pair == 0)
				pair = (int)GRID_COLOR_OF(c->attr);
			/* The pair by opts: more than a short's worth of them
			 * on a terminal of 256 colours. */
			if (setcchar(&cc, wch, screen_attr(c->attr), 0,
			    &pair) == ERR)
				continue;
			/* The last cell returns ERR but is drawn. */
			mvwadd_wch(stdscr, y, x, &cc);
		}
	}
	/* The program's cursor, or none: where the last cell drawn left
	 * it would be a cursor at a place nobody is typing. */
	if (screen_cursor_on && screen_cursor_y < h && screen_cursor_x < w) {
		leaveok(stdscr, FALSE);
		wmove(stdscr, screen_cursor_y, screen_cursor_x);
	} else {
		leaveok(stdscr, TRUE);
	}
	if (screen_cursor_on != screen_cursor_shown) {
		curs_set(screen_cursor_on ? 1 : 0);
		screen_cursor_shown = screen_cursor_on;
	}
	wnoutrefresh(stdscr);
	doupdate();
}

void
screen_invalidate(void)
{
	clearok(curscr, TRUE);
}

/*
 * The keys are read here, not by curses: each read() of the terminal is
 * timed (CLOCK_MONOTONIC) and its bytes are written into a pipe that
 * curses reads, then every key curses decodes from them is queued with
 * that time. So a key carries when it ARRIVED, not when the console got
 * round to it, and the keys of one read are known to have come together
 * (tui/model.h: arming is judged on arrival).
 */
#define SCREEN_READ_MAX		4096
/* How long a read that ends inside a key waits for the rest, as curses'
 * own escape delay (set_escdelay below). */
#define SCREEN_SEQ_WAIT_MS	25

struct screen_queued {
	int		 key;
	bool		 mouse;		/* a KEYS_MOUSE with its event: */
	int		 my, mx, mb;
	bool		 mp;
};

static struct screen_queued *screen_q;
static size_t screen_q_n, screen_q_at, screen_q_cap;
static int64_t screen_q_time;
static bool screen_q_burst;
static struct screen_queued screen_last;	/* the last one returned */

/* curses' key code to ours. */
static int
screen_map(int r, wint_t ch)
{
	if (r == OK)
		return (int)ch;
	switch (ch) {
	case KEY_UP:
		return KEYS_UP;
	case KEY_DOWN:
		return KEYS_DOWN;
	case KEY_LEFT:
		return KEYS_LEFT;
	case KEY_RIGHT:
		return KEYS_RIGHT;
	case KEY_PPAGE:
		return KEYS_PAGE_UP;
	case KEY_NPAGE:
		return KEYS_PAGE_DOWN;
	case KEY_HOME:
		return KEYS_HOME;
	case KEY_END:
		return KEYS_END;
	case KEY_ENTER:
		return KEYS_ENTER;
	case KEY_BTAB:
		return KEYS_BACKTAB;
	case KEY_RESIZE:
		return KEYS_RESIZE;
	case KEY_BACKSPACE:
		return KEYS_BACKSPACE;
	case KEY_DC:
		return KEYS_DELETE;
	case KEY_IC:
		return KEYS_INSERT;
	case KEY_SLEFT:
		return KEYS_LEFT | KEYS_MOD_SHIFT;
	case KEY_SRIGHT:
		return KEYS_RIGHT | KEYS_MOD_SHIFT;
	case KEY_SR:
		return KEYS_UP | KEYS_MOD_SHIFT;
	case KEY_SF:
		return KEYS_DOWN | KEYS_MOD_SHIFT;
	case SCREEN_PASTE_START:
		return KEYS_PASTE_START;
	case SCREEN_PASTE_END:
		return KEYS_PASTE_END;
	case KEY_MOUSE:
		return KEYS_MOUSE;
	default:
		break;
	}
	if (ch >= KEY_F(1) && ch <= KEY_F(24))
		return KEYS_F0 + (int)(ch - KEY_F0);
	for (size_t i = 0; i < screen_n_extra; i++)
		if (screen_extra[i].code == (int)ch)
			return screen_extra[i].key;
	return 0;	/* a function key we have no use for */
}

static bool screen_mouse_get(struct screen_queued *);

/* Every key curses can decode from what is in the pipe, queued. */
static void
screen_decode(void)
{
	wint_t ch;
	int r;

	while ((r = wget_wch(stdscr, &ch)) != ERR) {
		struct screen_queued q = { .key = screen_map(r, ch) };

		if (q.key == KEYS_MOUSE)
			q.mouse = screen_mouse_get(&q);
		if (screen_q_n == screen_q_cap) {
			screen_q_cap = screen_q_cap ? screen_q_cap * 2 : 64;
			screen_q = xreallocarray(screen_q, screen_q_cap,
			    sizeof *screen_q);
		}
		screen_q[screen_q_n++] = q;
	}
}

/* Is there a byte to read on the terminal within ms? */
static bool
screen_ready(int ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, ms) > 0 && (p.revents & POLLIN);
}

/* One read() of the terminal (and the rest of a key it cut), timed, fed
 * to curses and decoded: its keys are the queue. 0 when nothing came. */
static size_t
screen_fill(void)
{
	unsigned char buf[SCREEN_READ_MAX];
	size_t n = 0;
	ssize_t r;

	screen_q_n = screen_q_at = 0;
	if (screen_ready(0)) {
		screen_q_time = now_mono_ms();
		if ((r = read(STDIN_FILENO, buf, sizeof buf)) > 0)
			n = (size_t)r;
		/* The rest of a key cut by the read belongs to it. */
		for (int i = 0; i < 4 && n > 0 && n < sizeof buf &&
		    keys_tail_incomplete(buf, n) &&
		    screen_ready(SCREEN_SEQ_WAIT_MS); i++) {
			if ((r = read(STDIN_FILENO, buf + n,
			    sizeof buf - n)) <= 0)
				break;
			n += (size_t)r;
		}
		for (size_t off = 0; off < n; ) {
			ssize_t w = write(screen_pipe_w, buf + off, n - off);

			if (w <= 0)
				break;	/* 64 KiB of pipe; cannot be full */
			off += (size_t)w;
		}
	} else
		screen_q_time = now_mono_ms();
	/* Also with no byte: curses keeps KEY_RESIZE for us. */
	screen_decode();
	screen_q_burst = screen_q_n > 1;
	return screen_q_n;
}

int
screen_key_at(int64_t *at, bool *burst)
{
	if (!screen_active)
		return -1;
	if (screen_q_at == screen_q_n && screen_fill() == 0)
		return -1;
	screen_last = screen_q[screen_q_at++];
	if (at != NULL)
		*at = screen_q_time;
	if (burst != NULL)
		*burst = screen_q_burst;
	return screen_last.key;
}

int
screen_key(void)
{
	return screen_key_at(NULL, NULL);
}

bool
screen_flush_input(void)
{
	unsigned char buf[SCREEN_READ_MAX];
	bool any = screen_q_at < screen_q_n;
	wint_t ch;

	screen_q_n = screen_q_at = 0;
	while (screen_ready(0) && read(STDIN_FILENO, buf, sizeof buf) > 0)
		any = true;
	while (read(fileno(screen_in), buf, sizeof buf) > 0)
		any = true;
	flushinp();
	/* Keys curses already read ahead sit in its own buffer. */
	while (wget_wch(stdscr, &ch) != ERR)
		any = true;
	return any;
}

void
screen_beep(void)
{
	beep();
}

void
screen_mouse(bool on)
{
	if (on == screen_mouse_on || !screen_active)
		return;
	screen_mouse_on = on;
	/* Press and release apart (no click folding): the program gets
	 * them as its own terminal would send them. */
	mouseinterval(0);
	mousemask(on ? ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION : 0, NULL);
}

void
screen_raw(bool on)
{
	if (on == screen_raw_on || !screen_active)
		return;
	screen_raw_on = on;
	if (on)
		raw();
	else {
		noraw();
		cbreak();
	}
}

/* The event behind a KEY_MOUSE curses just gave, read at once. */
static bool
screen_mouse_get(struct screen_queued *q)
{
	static const struct {
		mmask_t		 mask;
		int		 button;
		bool		 pressed;
	} map[] = {
		{ BUTTON1_PRESSED, 1, true }, { BUTTON1_RELEASED, 1, false },
		{ BUTTON2_PRESSED, 2, true }, { BUTTON2_RELEASED, 2, false },
		{ BUTTON3_PRESSED, 3, true }, { BUTTON3_RELEASED, 3, false },
		{ BUTTON4_PRESSED, 4, true }, { BUTTON5_PRESSED, 5, true },
	};
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return false;
	q->my = ev.y;
	q->mx = ev.x;
	q->mb = 0;
	q->mp = false;
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		if (ev.bstate & map[i].mask) {
			q->mb = map[i].button;
			q->mp = map[i].pressed;
			break;
		}
	}
	return true;
}

bool
screen_mouse_event(int *y, int *x, int *button, bool *pressed)
{
	if (screen_last.key != KEYS_MOUSE || !screen_last.mouse)
		return false;
	*y = screen_last.my;
	*x = screen_last.mx;
	*button = screen_last.mb;
	*pressed = screen_last.mp;
	return true;
}
