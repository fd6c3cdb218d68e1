#pragma once
/*
 * The output pane's text: a ring of finished lines and, per stream, the
 * unfinished line, fed raw bytes as the sandboxed program wrote them.
 * Escape sequences are filtered out as they arrive (a sequence longer
 * than OUTPUT_CSI_MAX / OUTPUT_STR_MAX in output.c ends early and the
 * rest is shown); every finished line is stored escaped
 * (config/escape.h) with tabs expanded, and the unfinished one is kept
 * raw and escaped when asked for. No terminal here: the model owns one,
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
	char		*buf;		/* raw bytes, sequences removed */
	size_t		 len;
	int		 esc;		/* filter state */
	size_t		 esc_len;	/* bytes of the current sequence */
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
