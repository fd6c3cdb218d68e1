/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The output pane's text: a ring of finished lines and, per stream, the
 * unfinished line, fed raw bytes as the sandboxed program wrote them.
 * Nothing is filtered out: escape sequences, backspace runs and a lone
 * carriage return are kept and every finished line is stored escaped by
 * escape_output() (config/escape.h: each shown as a marker, ⟨ESC[2J⟩,
 * ⟨BS⟩, ⟨CR⟩) with tabs expanded; the unfinished one is kept raw and
 * escaped when asked for. No terminal here: the model owns one,
 * tui/view-output.c draws it.
 */
#include <stdbool.h>
#include <stddef.h>

#define OUTPUT_LINES	2000
#define OUTPUT_LINE_MAX	4096	/* raw bytes; longer lines are split */

enum output_stream {
	STREAM_PTY,
	STREAM_STDOUT,
	STREAM_STDERR,
};
#define STREAM_COUNT 3

struct output_line {
	char		*text;		/* escaped, tabs expanded */
	enum output_stream stream;
};

/* The unfinished line of one stream and where its escape-sequence filter is. */
struct output_partial {
	char		*buf;		/* raw bytes */
	size_t		 len;
	bool		 cr;		/* a '\r' waits: "\r\n" or overwrite */
};

/* Plain data the model embeds: zeroed is empty, output_done() frees it. */
struct output {
	struct output_line lines[OUTPUT_LINES];	/* ring */
	size_t		 first;		/* index of the oldest */
	size_t		 count;
	struct output_partial partial[STREAM_COUNT];
	/* Lines above the bottom the reader is at; 0 = follow. A new line
	 * moves it up one, so a reader keeps their place. */
	size_t		 scroll;
	bool		 ascii;		/* markers in ASCII (no UTF-8 locale) */
};

void		 output_done(struct output *);

/* Feeds raw bytes of one stream (what an "output" message carries). */
void		 output_feed(struct output *, enum output_stream, const void *,
		    size_t);

/* Finished lines, oldest first. */
size_t		 output_count(const struct output *);
const struct output_line *output_at(const struct output *, size_t i);
/* The unfinished line of a stream, escaped (malloc'd), or NULL if empty. */
char		*output_partial_text(const struct output *, enum output_stream);
/* Finished lines plus the unfinished ones: what the output pane scrolls. */
size_t		 output_total(const struct output *);
