#include "tui/output.h"

#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/grid.h"

/* Where the output filter is inside an escape sequence. */
enum {
	OUT_TEXT,
	OUT_ESC,	/* after ESC */
	OUT_INTER,	/* ESC and intermediates 0x20..0x2f */
	OUT_CSI,	/* ESC [ params */
	OUT_OSC,	/* ESC ] ... BEL or ST */
	OUT_STR,	/* DCS, SOS, PM, APC ... ST */
	OUT_STR_ESC,	/* ESC inside an OSC or string: ST or a new sequence */
};

/*
 * Longest sequences we let swallow output. A program could otherwise
 * open an OSC string and never close it, and hide everything it prints
 * after from the person watching; past these, the rest is shown.
 */
#define OUTPUT_CSI_MAX	64
#define OUTPUT_STR_MAX	4096

void
output_done(struct output *o)
{
	for (size_t i = 0; i < o->count; i++)
		free(o->lines[(o->first + i) % OUTPUT_LINES].text);
	for (size_t s = 0; s < STREAM_COUNT; s++)
		free(o->partial[s].buf);
	memset(o, 0, sizeof *o);
}

static void
output_line_push(struct output *o, enum output_stream s, const char *raw,
    size_t len)
{
	cleanup_free char *esc = escape_line(raw, len);
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

static void
output_feed_byte(struct output *o, enum output_stream s, unsigned char c)
{
	struct output_partial *p = &o->partial[s];

again:
	switch (p->esc) {
	case OUT_TEXT:
		if (p->cr) {
			p->cr = false;
			if (c == '\n') {
				output_partial_end(o, s);
				return;
			}
			/* A lone carriage return: what follows overwrites. */
			p->len = 0;
		}
		if (c == 0x1b) {
			p->esc = OUT_ESC;
			p->esc_len = 0;
		} else if (c == '\r') {
			p->cr = true;
		} else if (c == '\n') {
			output_partial_end(o, s);
		} else {
			output_partial_add(o, s, c);
		}
		return;
	case OUT_ESC:
		if (c == '[') {
			p->esc = OUT_CSI;
		} else if (c == ']') {
			p->esc = OUT_OSC;
		} else if (c == 'P' || c == 'X' || c == '^' || c == '_') {
			p->esc = OUT_STR;
		} else if (c >= 0x20 && c <= 0x2f) {
			p->esc = OUT_INTER;
		} else if (c == 0x1b) {
			p->esc_len = 0;
		} else if (c < 0x20 || c == 0x7f) {
			/* A control character ends the sequence and counts. */
			p->esc = OUT_TEXT;
			goto again;
		} else {
			p->esc = OUT_TEXT;	/* ESC 7, ESC c ... */
		}
		return;
	case OUT_INTER:
	case OUT_CSI:
		if (c >= 0x20 && c <= (p->esc == OUT_CSI ? 0x3f : 0x2f)) {
			if (++p->esc_len > OUTPUT_CSI_MAX) {
				p->esc = OUT_TEXT;
				goto again;
			}
			return;
		}
		p->esc = OUT_TEXT;
		if (c >= 0x30 && c <= 0x7e)
			return;		/* the final byte */
		goto again;
	case OUT_OSC:
	case OUT_STR:
		if (c == 0x07) {
			p->esc = OUT_TEXT;
		} else if (c == 0x1b) {
			p->esc = OUT_STR_ESC;
		} else if (c == '\n' || ++p->esc_len > OUTPUT_STR_MAX) {
			p->esc = OUT_TEXT;
			goto again;
		}
		return;
	case OUT_STR_ESC:
		if (c == '\\') {
			p->esc = OUT_TEXT;
			return;
		}
		p->esc = OUT_ESC;
		p->esc_len = 0;
		goto again;
	default:
		p->esc = OUT_TEXT;
		goto again;
	}
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
	esc = escape_line(p->buf, len);
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
