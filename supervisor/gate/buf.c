/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"

void
buf_add(struct buf *b, const void *d, size_t n)
{
	if (n == 0)
		return;
	if (b->off > 0 && b->off + b->len + n > b->cap) {
		memmove(b->p, b->p + b->off, b->len);
		b->off = 0;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		/* Not realloc: a request head may hold a secret's value, and
		 * the old block would keep a copy in freed memory. */
		p = xmalloc(cap);
		if (b->p != NULL) {
			memcpy(p, b->p + b->off, b->len);
			explicit_bzero(b->p, b->cap);
			free(b->p);
		}
		b->p = p;
		b->off = 0;
		b->cap = cap;
	}
	memcpy(b->p + b->off + b->len, d, n);
	b->len += n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	cleanup_free char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_add(b, s, strlen(s));
}

void
buf_drop(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->off = b->len = 0;
		return;
	}
	b->off += n;
	b->len -= n;
}

void
buf_free(struct buf *b)
{
	if (b->p != NULL)
		explicit_bzero(b->p, b->cap);
	free(b->p);
	*b = (struct buf){ 0 };
}
