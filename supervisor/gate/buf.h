/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A byte queue for one direction of a gate connection: appended at the
 * end, drained from the front. Bounded by its users (flow.c and relay.c
 * stop reading a side while the queue it fills holds more than
 * BUF_HIGH), not here.
 */
#include <stddef.h>

#define BUF_HIGH	(64 * 1024)

struct buf {
	char	*p;
	size_t	 off;	/* the first byte not yet drained */
	size_t	 len;	/* bytes from p + off */
	size_t	 cap;
};

void	buf_add(struct buf *, const void *, size_t);
void	buf_addf(struct buf *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Never NULL: an empty queue's data is "" (memcpy and friends must not
 * see NULL, even for no bytes). */
static inline const char *
buf_data(const struct buf *b)
{
	return b->p != NULL ? b->p + b->off : "";
}
void	buf_drop(struct buf *, size_t);
void	buf_free(struct buf *);
