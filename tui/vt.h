/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The agent pane's terminal: the program's pty output run through
 * libvterm (a maintained emulator from Debian, never a parser of ours)
 * into a screen of cells that the agent view copies into the console's
 * grid, clipped to the pane's rectangle.
 *
 * What the program asks of "its terminal" is recorded here, never obeyed
 * on the person's terminal: a title (OSC 0/2), an icon name, a bell, the
 * alternate screen, the mouse mode, cursor shape and visibility. Colour
 * and palette changes only colour cells inside the pane. Nothing in this
 * module writes to a terminal; the console decides what to pass (the
 * bell) and shows the title as quoted, escaped data after ward's own
 * words on the agent pane's header (tui/view-agent.c). Nothing recorded
 * here moves the console's focus (tui/model-keys.c).
 *
 * Keys and pastes are encoded the way libvterm's keyboard layer encodes
 * them (cursor keys in the mode the program set, bracketed paste only
 * when it asked for it); those bytes, and the emulator's own answers to
 * the program's queries (cursor position, device attributes), collect in
 * an output buffer that vt_take_output() empties: the console sends them
 * to the supervisor as `input`.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/grid.h"

/* The most the output buffer keeps between two vt_take_output() calls. */
#define VT_OUT_MAX	(64u << 10)
#define VT_TITLE_MAX	256

struct vt;

/* rows, cols at least 1 (smaller values are raised to 1). */
struct vt	*vt_new(int rows, int cols);
void		 vt_free(struct vt *);

/* Feeds the program's output. */
void		 vt_feed(struct vt *, const void *buf, size_t n);
void		 vt_resize(struct vt *, int rows, int cols);
void		 vt_size(const struct vt *, int *rows, int *cols);

/*
 * Copies the screen into g's rectangle of h rows and w columns at (y, x),
 * clipped to the rectangle and to the grid: nothing outside it is
 * touched. Cells the program left blank are drawn blank.
 */
void		 vt_draw(const struct vt *, struct grid *, int y, int x, int h,
		    int w);
/* The cursor's place within the screen; false when the program hid it. */
bool		 vt_cursor(const struct vt *, int *row, int *col);

bool		 vt_altscreen(const struct vt *);
/* Whether the program ever switched to the alternate screen. */
bool		 vt_was_fullscreen(const struct vt *);
/* The title the program asked for (raw bytes, "" when none): recorded,
 * never set; how many times it asked. */
const char	*vt_title(const struct vt *);
unsigned	 vt_title_sets(const struct vt *);
/* 0 none, 1 click, 2 drag, 3 move (libvterm's VTERM_PROP_MOUSE_*). */
int		 vt_mouse_mode(const struct vt *);
/* Takes and clears the bells rung since the last call. */
unsigned	 vt_take_bells(struct vt *);

/*
 * Encodes one console key (tui/keys.h: a code point or KEYS_*, with
 * KEYS_MOD_* bits) for the program. Control characters go as
 * themselves. Returns false for a key the program cannot be sent
 * (KEYS_RESIZE, the paste marks: see vt_paste).
 */
bool		 vt_key(struct vt *, int key);
/* Bracketed paste around the keys of a paste (no-op unless the program
 * turned bracketed paste on). */
void		 vt_paste(struct vt *, bool start);

/* A mouse event at (row, col) of the pane, 0-based: button 1..3, 4/5
 * the wheel, 0 a move. Encoded only in the mode the program asked for
 * (vt_mouse_mode() not 0); nothing otherwise. */
void		 vt_mouse(struct vt *, int row, int col, int button,
		    bool pressed);

/* The bytes waiting for the program; *len gets their length. Valid until
 * the next call on vt; vt_output_clear() empties the buffer. */
const char	*vt_output(const struct vt *, size_t *len);
void		 vt_output_clear(struct vt *);
