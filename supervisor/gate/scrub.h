/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The secrets' values kept out of what the sandbox reads: a stream of
 * bytes (a response's head or body, however the upstream cuts it) in
 * which every secret's value becomes its phantom. A value reflected by
 * an upstream (an echo, an error page quoting the request) would
 * otherwise hand the sandbox the one thing the gate exists to keep from
 * it. The last (longest value - 1) bytes stay back between feeds, so a
 * value cut across two reads, or two chunks, is seen whole before any
 * of it goes on.
 */
#include <stdbool.h>
#include <stddef.h>

#include "supervisor/gate/buf.h"
#include "supervisor/gate/secrets.h"

struct scrub {
	struct buf	held;	/* bytes that may begin a value */
};

/*
 * Feed n bytes; what is settled (its values made phantoms) is appended
 * to out. final: no more bytes come, all of held goes too. Returns how
 * many values were replaced.
 */
size_t	scrub_feed(struct scrub *, const struct secrets *, const char *,
	    size_t n, struct buf *out, bool final);
/* Drop what is held (zeroed: it may be the start of a value). */
void	scrub_free(struct scrub *);
/*
 * The secret whose value starts first in s[0..n) (of those starting
 * there, the longest), or NULL; its offset in *at. only[i] false skips
 * secret i (NULL: every secret). A secret with no value is never found.
 */
const struct secret *scrub_value_in(const struct secrets *, const bool *only,
	    const char *s, size_t n, size_t *at);
/* The longest value's length. */
size_t	scrub_longest(const struct secrets *);
