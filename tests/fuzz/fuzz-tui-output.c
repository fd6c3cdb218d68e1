/* SPDX-License-Identifier: MIT */
/*
 * tui/output.c: the output pane's filter, fed what the sandboxed program
 * writes to its terminal. The input's first byte seeds how the rest is cut
 * into output_feed() calls, the second picks the stream. Properties:
 *   - how the bytes are cut changes nothing: the lines and the unfinished
 *     line are those of the same bytes fed at once (an escape sequence
 *     split across two reads is shown as the same marker);
 *   - no line, finished or not, holds a control byte (tabs are expanded),
 *     DEL, a C1 control or an invisible / bidi format character, and each
 *     is valid UTF-8; the ring holds at most OUTPUT_LINES lines.
 */
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>

#include "config/escape.h"
#include "tui/output.h"

static void
fuzz_check_text(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text), i = 0;

	while (i < len) {
		uint32_t c;
		size_t k = escape_utf8(s + i, len - i, &c);

		fuzz_check(k > 0);
		fuzz_check(c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f));
		fuzz_check(c != 0x061c && !(c >= 0x200b && c <= 0x200f) &&
		    !(c >= 0x2028 && c <= 0x202e) &&
		    !(c >= 0x2066 && c <= 0x2069) && c != 0xfeff &&
		    !(c >= 0xe0000 && c <= 0xe007f));
		i += k;
	}
}

static bool
fuzz_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct output *whole, *cut;
	enum output_stream s;
	uint32_t rnd;
	size_t off = 0;
	char *pw, *pc;

	if (size < 2)
		return 0;
	rnd = data[0] * 2654435761u + 1;
	s = (enum output_stream)(data[1] % STREAM_COUNT);
	data += 2;
	size -= 2;
	whole = calloc(1, sizeof *whole);
	cut = calloc(1, sizeof *cut);
	fuzz_check(whole != NULL && cut != NULL);

	output_feed(whole, s, data, size);
	while (off < size) {
		size_t n;

		rnd = rnd * 1103515245u + 12345u;
		n = 1 + (rnd >> 16) % 16;
		if (n > size - off)
			n = size - off;
		output_feed(cut, s, data + off, n);
		off += n;
	}

	fuzz_check(output_count(whole) == output_count(cut));
	fuzz_check(output_count(whole) <= OUTPUT_LINES);
	fuzz_check(output_total(whole) == output_total(cut));
	for (size_t i = 0; i < output_count(whole); i++) {
		const struct output_line *a = output_at(whole, i),
		    *b = output_at(cut, i);

		fuzz_check(a->stream == s && b->stream == s);
		fuzz_check(strcmp(a->text, b->text) == 0);
		fuzz_check_text(a->text);
	}
	pw = output_partial_text(whole, s);
	pc = output_partial_text(cut, s);
	fuzz_check(fuzz_same(pw, pc));
	if (pw != NULL)
		fuzz_check_text(pw);
	free(pw);
	free(pc);
	output_done(whole);
	output_done(cut);
	free(whole);
	free(cut);
	return 0;
}
