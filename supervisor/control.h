#pragma once
/*
 * The supervisor's end of the control protocol (control.c): consoles and
 * CLI verbs connect, watch, decide and kill.
 */
#include <stddef.h>

struct run_info;
struct sup;

void	control_on_accept(struct sup *);
void	control_on_client(struct sup *, int slot, short revents);
/* The run as the protocol's RUN says it; limits is the buffer its text
 * goes in. */
void	control_run_info(const struct sup *, struct run_info *, char *limits,
	    size_t len);
/* The program's output: kept for late consoles, sent to watching ones. */
void	control_output(struct sup *, const char *stream, const void *,
	    size_t);
void	control_close_all(struct sup *);
