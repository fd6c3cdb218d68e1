/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/scrub.h"

#include <string.h>

const struct secret *
scrub_value_in(const struct secrets *s, const bool *only, const char *p,
    size_t n, size_t *at)
{
	const struct secret *best = NULL;
	size_t best_at = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct secret *sc = &s->v[i];
		const char *hit;
		size_t lim;

		if ((only != NULL && !only[i]) || sc->len == 0 || sc->len > n)
			continue;
		/* Past the best one found so far no hit can win. */
		lim = best != NULL && best_at + sc->len < n ?
		    best_at + sc->len : n;
		hit = memmem(p, lim, sc->value, sc->len);
		if (hit == NULL)
			continue;
		if (best == NULL || (size_t)(hit - p) < best_at ||
		    ((size_t)(hit - p) == best_at && sc->len > best->len)) {
			best = sc;
			best_at = (size_t)(hit - p);
		}
	}
	if (best != NULL && at != NULL)
		*at = best_at;
	return best;
}

size_t
scrub_longest(const struct secrets *s)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].len > m)
			m = s->v[i].len;
	return m;
}

/* Is p[0..n) the start of some secret's value? */
static bool
starts_value(const struct secrets *s, const char *p, size_t n)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].len > n && memcmp(p, s->v[i].value, n) == 0)
			return true;
	return false;
}

size_t
scrub_feed(struct scrub *z, const struct secrets *s, const char *d, size_t n,
    struct buf *out, bool final)
{
	struct buf *h = &z->held;
	size_t longest = scrub_longest(s), pos = 0, at, found = 0;
	const struct secret *sc;

	if (longest == 0) {
		/* No value to look for: nothing needs holding back. */
		buf_add(out, buf_data(h), h->len);
		buf_drop(h, h->len);
		buf_add(out, d, n);
		return 0;
	}
	buf_add(h, d, n);
	/* A value that starts before len - (longest - 1) ends inside what
	 * is held: every one there is found whole. */
	while ((sc = scrub_value_in(s, NULL, buf_data(h) + pos, h->len - pos,
	    &at)) != NULL) {
		buf_add(out, buf_data(h) + pos, at);
		buf_add(out, sc->phantom, SECRETS_PHANTOM_LEN);
		pos += at + sc->len;
		found++;
	}
	if (final) {
		buf_add(out, buf_data(h) + pos, h->len - pos);
		pos = h->len;
	} else {
		/* Only the end that may begin a value stays: an event of a
		 * stream (data: ...) is not held for the next one. */
		size_t safe = h->len - pos > longest - 1 ?
		    h->len - (longest - 1) : pos;

		while (safe < h->len &&
		    !starts_value(s, buf_data(h) + safe, h->len - safe))
			safe++;
		buf_add(out, buf_data(h) + pos, safe - pos);
		pos = safe;
	}
	/* What is dropped may hold a value's first bytes: zeroed. */
	if (pos > 0)
		explicit_bzero(h->p + h->off, pos);
	buf_drop(h, pos);
	return found;
}

void
scrub_free(struct scrub *z)
{
	buf_free(&z->held);
}
