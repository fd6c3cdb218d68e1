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
/*
 * Close every parked request whose asker is gone (kind_ops.gone: a
 * trapped call's notification no longer valid, a lookup its resolver
 * stopped sending), recorded as denied by UNOTIFY_GONE_BY and told to the
 * consoles as a resolved with verdict "none". Checked every
 * UNOTIFY_GONE_MS while requests wait, from the loop's timer, never on
 * the hot path; s->gone_at is when next (0: nothing waits).
 */
#define UNOTIFY_GONE_MS		500
#define UNOTIFY_GONE_BY		"asker gone"
void	unotify_gone(struct sup *, int64_t now);
/* Deny, as nobody answered, every parked request due by now (monotonic). */
void	unotify_expire(struct sup *, int64_t now);
/* Between calls: the pages of the last exec's copied argv go back to the
 * kernel (nothing holds them once the exec was answered or parked). */
void	unotify_shed(void);
