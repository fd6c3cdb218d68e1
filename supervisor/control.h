#pragma once
/*
 * The supervisor's end of the control protocol (control.c): consoles and
 * CLI verbs connect, watch, decide and kill.
 */
#include <stddef.h>

#include <jansson.h>

struct sup;

void	control_on_accept(struct sup *);
void	control_on_client(struct sup *, int slot, short revents);
json_t	*control_run_json(const struct sup *);
/* The program's output: kept for late consoles, sent to watching ones. */
void	control_output(struct sup *, const char *stream, const void *,
	    size_t);
void	control_close_all(struct sup *);
