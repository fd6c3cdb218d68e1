/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The notify loop's receive side (unotify.c): RECV, the dispatch by
 * syscall to the handlers, and the resolution of parked requests.
 */
#include <stdint.h>

#include "approvals/request.h"

struct sup;

/* The listener is readable: receive one notification and answer it or
 * park it. */
void	unotify_on_ready(struct sup *);
/* Answer a parked request; how/by for the record. */
void	unotify_resolve(struct sup *, uint64_t request, enum verdict,
	    enum how, const char *by, const char *reason);
/* Deny, as nobody answered, every parked request due by now (monotonic). */
void	unotify_expire(struct sup *, int64_t now);
/* Between calls: the pages of the last exec's copied argv go back to the
 * kernel (nothing holds them once the exec was answered or parked). */
void	unotify_shed(void);
