/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The supervisor's end of the control protocol (control.c): consoles and
 * CLI verbs connect, watch, decide and kill.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A client must finish its hello this soon after it connects, and one
 * that is not watching is let go after this long without a message: idle
 * peers cannot hold the table (SUP_MAX_CLIENTS) against everyone else. */
#define CONTROL_HELLO_MS	5000
#define CONTROL_IDLE_MS		60000
/* A watching console with more than CONTROL_HOLD_BYTES of the program's
 * output still to take holds the reading of it (the program waits in its
 * write, as on a slow terminal); one that takes nothing for
 * CONTROL_STALL_MS that way is dropped, and the output goes on. */
#define CONTROL_HOLD_BYTES	(1u << 20)
#define CONTROL_STALL_MS	5000

struct msg_run;
struct sup;

void	control_on_accept(struct sup *);
void	control_on_client(struct sup *, int slot, short revents);
/* The run as the protocol's RUN says it; limits is the buffer its text
 * goes in. */
void	control_run_info(const struct sup *, struct msg_run *, char *limits,
	    size_t len);
/* The program's output: kept for late consoles, sent to watching ones. */
void	control_output(struct sup *, const char *stream, const void *,
	    size_t);
void	control_close_all(struct sup *);
/* The earliest client deadline (monotonic ms), 0 for none; and the drop
 * of every client past it. */
/* Whether the program's output may be read now: no watching console is
 * CONTROL_HOLD_BYTES behind (and since when one is, for its deadline). */
bool	control_output_room(struct sup *, int64_t now);
int64_t	control_next_deadline(const struct sup *);
void	control_tick(struct sup *, int64_t now);
