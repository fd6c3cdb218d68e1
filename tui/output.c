/* SPDX-License-Identifier: MIT */
#include "tui/output.h"

#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/grid.h"

void
output_done(struct output *o)
{
	for (size_t i = 0; i < o->count; i++)
		free(o->lines[(o->first + i) % OUTPUT_LINES].text);
	for (size_t s = 0; s < STREAM_COUNT; s++)
		free(o->partial[s].buf);
	{
		bool ascii = o->ascii;

		memset(o, 0, sizeof *o);
		o->ascii = ascii;
	}
}

static void
output_line_push(struct output *o, enum output_stream s, const char *raw,
    size_t len)
{
	cleanup_free char *esc = escape_output(raw, len, o->ascii);
	struct output_line *l;

	if (o->count == OUTPUT_LINES) {
		free(o->lines[o->first].text);
		o->first = (o->first + 1) % OUTPUT_LINES;
		o->count--;
	}
	l = &o->lines[(o->first + o->count) % OUTPUT_LINES];
	l->text = grid_expand_tabs(esc);
	l->stream = s;
	o->count++;
	/* Someone reading back keeps their place while more comes in. */
	if (o->scroll > 0 && o->scroll + 1 < o->count)
		o->scroll++;
}

static void
output_partial_end(struct output *o, enum output_stream s)
{
	struct output_partial *p = &o->partial[s];

	output_line_push(o, s, p->buf != NULL ? p->buf : "", p->len);
	p->len = 0;
}

static void
output_partial_add(struct output *o, enum output_stream s, unsigned char c)
{
	struct output_partial *p = &o->partial[s];

	if (p->len >= OUTPUT_LINE_MAX) {
		/* Split, but not inside a UTF-8 sequence c continues. */
		size_t cut = p->len, k = p->len;

		if ((c & 0xc0) == 0x80) {
			while (k > 0 && p->len - k < 3 &&
			    ((unsigned char)p->buf[k - 1] & 0xc0) == 0x80)
				k--;
			if (k > 0 && (unsigned char)p->buf[k - 1] >= 0xc0)
				cut = k - 1;
		}
		output_line_push(o, s, p->buf, cut);
		memmove(p->buf, p->buf + cut, p->len - cut);
		p->len -= cut;
	}
	if (p->buf == NULL)
		p->buf = xmalloc(OUTPUT_LINE_MAX + 1);
	p->buf[p->len++] = (char)c;
}

/*
 * Nothing is obeyed or dropped here: escape sequences, backspaces and a
 * lone carriage return stay in the line as they came, and the escaping
 * (escape_output) shows each one as a marker. Only "\r\n" is a plain line
 * end (what a pty makes of "\n").
 */
static void
output_feed_byte(struct output *o, enum output_stream s, unsigned char c)
{
	struct output_partial *p = &o->partial[s];

	if (p->cr) {
		p->cr = false;
		if (c == '\n') {
			output_partial_end(o, s);
			return;
		}
		output_partial_add(o, s, '\r');
	}
	if (c == '\r')
		p->cr = true;
	else if (c == '\n')
		output_partial_end(o, s);
	else
		output_partial_add(o, s, c);
}

void
output_feed(struct output *o, enum output_stream s, const void *buf,
    size_t len)
{
	const unsigned char *b = buf;

	if ((unsigned)s >= STREAM_COUNT)
		return;
	for (size_t i = 0; i < len; i++)
		output_feed_byte(o, s, b[i]);
}

size_t
output_count(const struct output *o)
{
	return o->count;
}

const struct output_line *
output_at(const struct output *o, size_t i)
{
	if (i >= o->count)
		return NULL;
	return &o->lines[(o->first + i) % OUTPUT_LINES];
}

/* Bytes of a UTF-8 sequence at the end of buf that is not complete yet. */
static size_t
output_utf8_tail(const char *buf, size_t len)
{
	for (size_t k = 1; k <= 3 && k <= len; k++) {
		unsigned char c = (unsigned char)buf[len - k];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue;
		if (c >= 0xf0)
			need = 4;
		else if (c >= 0xe0)
			need = 3;
		else if (c >= 0xc0)
			need = 2;
		else
			return 0;
		return need > k ? k : 0;
	}
	return 0;
}

char *
output_partial_text(const struct output *o, enum output_stream s)
{
	const struct output_partial *p = &o->partial[s];
	cleanup_free char *esc = NULL;
	size_t len;

	if (p->len == 0)
		return NULL;
	/* Still arriving: don't show half a character as \xNN. */
	len = p->len - output_utf8_tail(p->buf, p->len);
	esc = escape_output(p->buf, len, o->ascii);
	return grid_expand_tabs(esc);
}

size_t
output_total(const struct output *o)
{
	size_t n = o->count;

	for (size_t s = 0; s < STREAM_COUNT; s++)
		n += o->partial[s].len > 0;
	return n;
}
