/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The terminal: the only code that talks to curses. It copies a grid to
 * the screen and reads the keys: the terminal's bytes with read(), each
 * read timed, decoded by curses (fed through a pipe) into tui/keys.h
 * codes.
 */
#include <stdbool.h>
#include <stdint.h>

#include "tui/grid.h"

/* Whether the console can draw on this terminal: TERM is set, terminfo
 * knows it, and it has cursor addressing (not dumb, hardcopy or generic).
 * 0, or -errno with *why saying so (malloc'd). Prints nothing and never
 * exits (curses' initscr() would). */
int	screen_check(char **why);
/* Starts curses on the terminal (cbreak, no echo, keypad, no delay,
 * hidden cursor); colours unless NO_COLOR is set and not empty.
 * -ENOTTY when screen_check() refuses the terminal (*why says why,
 * malloc'd) or curses cannot start (*why NULL). */
int	screen_init(char **why);
/* Restores the terminal. Safe to call twice. */
void	screen_done(void);
void	screen_size(int *w, int *h);
/* Makes the terminal show g (of the terminal's size). */
void	screen_draw(const struct grid *);
/* The terminal's cursor at (y, x) after the next screen_draw(), visible;
 * hidden when show is false (the console's own screens). */
void	screen_cursor(bool show, int y, int x);
/* Forget what is on the terminal and draw it all again next time. */
void	screen_invalidate(void);
/*
 * The next key (tui/keys.h), or -1 when none is waiting. The terminal is
 * read here with read(), not by curses: *at is the CLOCK_MONOTONIC ms of
 * the read that brought the key, *burst whether that read brought other
 * keys too (they arrived together: a paste, a stalled console's backlog,
 * keys typed faster than a read). Either may be NULL.
 */
int	screen_key_at(int64_t *at, bool *burst);
int	screen_key(void);
/* Throws away keys typed but not read yet (typeahead); true when there
 * were some. */
bool	screen_flush_input(void);
void	screen_beep(void);
/* Mouse reports on or off (the agent pane, while its program asks for
 * them); the event behind the last KEYS_MOUSE: 0-based screen cell,
 * button 1..3, 4/5 wheel, 0 a move. */
void	screen_mouse(bool on);
/* The terminal's own control keys (Ctrl-C, Ctrl-Z, Ctrl-\, Ctrl-S/Q)
 * as keys, not signals or flow control: on while the agent pane has the
 * keys, so they reach the program as its own terminal would give them. */
void	screen_raw(bool on);
bool	screen_mouse_event(int *y, int *x, int *button, bool *pressed);
/* NO_COLOR set and not empty (https://no-color.org). */
bool	screen_no_color(void);
