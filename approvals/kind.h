/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What a request kind is, in one table (issue 32): its name in the record
 * and the JSON, what its subject is called, the surface it counts under,
 * how the pending list ranks it and what a group of it amounts to, and how
 * the sentence for a person is built. Whoever needs a trait of a kind
 * reads its row, kind_info(k)->...; only the supervisor's handlers, which
 * make the requests, switch on the kind (tests/layers.sh holds it so).
 *
 * A new kind is a value in enum request_kind below, a row in kind.c (and
 * its case in kind_info()) and the same row in tests/data/kind.tsv:
 * tests/test-kind.c fails for a kind without a row or a row that differs.
 */
#include <stdbool.h>

enum request_kind {
	KIND_WRITE,	/* create or change a name or data outside the writable set */
	KIND_CONNECT,
	KIND_DNS,
	KIND_PACKAGE,
	KIND_EXEC,
	KIND_BLOCKED,	/* a syscall the floor refuses outright (issue 3) */
	KIND_RUN,	/* run lifecycle: start, exit, kill, timeout */
	/* An HTTP request on a host the gate intercepts (issue 19): asked
	 * (no rule allows it) or done; subject "host:port METHOD PATH". */
	KIND_HTTP,
	/* A secret's phantom where it may not go, refused (issue 19):
	 * subject "NAME to host:port"; never the value. */
	KIND_SECRET,
};

/* Where an attempt lands, for the end-of-run summary (review/summary.h)
 * and the scorecard. */
enum summary_surface {
	SURFACE_NONE = -1,	/* the run's own lines: start, exit, ... */
	SURFACE_FILES,
	SURFACE_NETWORK,
	SURFACE_PACKAGES,
	SURFACE_EXEC,
	SURFACE_SYSCALLS,
	SURFACE_COUNT,
};

/* How much a pending request matters, highest first on screen
 * (tui/group.h). */
enum group_rank {
	GROUP_BULK,		/* anything else */
	GROUP_HOME,		/* a dot-file, or a file under a home-like
				 * folder (/home, /root, /Users) */
	GROUP_NETWORK,		/* a host the run has not been allowed */
	GROUP_INSTALL,		/* a package install */
	GROUP_CRITICAL,		/* authorized_keys, a shell's start-up
				 * file, anything under /etc */
};

/* Where a pending request is, for grouping alike ones (tui/group.c),
 * read off its subject, and what a group of them amounts to. */
enum kind_place {
	PLACE_WHOLE,		/* the subject itself; the glob is it too */
	PLACE_FOLDER,		/* a path's folder; "folder/ *" */
	PLACE_HOST,		/* "name (addr):port" -> name; "name:*" */
	PLACE_WORD,		/* the first word; "word *" */
};

/* How the plain sentence for a person is built (review/plain.c). */
enum kind_sentence {
	SENTENCE_FORMAT,	/* the row's plain, the subject for its %s */
	SENTENCE_WRITE,		/* by the call and the path (rename, delete, ...) */
	SENTENCE_CONNECT,	/* "host:port" -> "host on port N" */
	SENTENCE_INSTALL,	/* "pip install a b ... hosts h" */
	SENTENCE_HTTP,		/* "host:port METHOD PATH" */
};

struct kind_info {
	enum request_kind kind;
	const char	*name;		/* in the record and the JSON: "write" */
	const char	*label;		/* what its subject is called: "path" */
	enum summary_surface surface;
	/* Its rank in the pending list, and why in a few words ("" for
	 * GROUP_BULK); by_path: a write's, from its path instead
	 * (tui/group.c). */
	enum group_rank	 rank;
	const char	*why;
	bool		 by_path;
	enum kind_place	 place;
	enum kind_sentence sentence;
	/* SENTENCE_FORMAT's sentence: "%s" where the subject goes (once;
	 * no other '%' is special). */
	const char	*plain;
};

/* k's row; out of range (off the wire, out of the database), a row named
 * "unknown" that says no more than the subject. Never NULL. */
const struct kind_info *kind_info(enum request_kind k);
/* How many kinds there are (rows 0 .. kind_count() - 1 are the enum's
 * values in order). */
unsigned	 kind_count(void);

/* "files", "network", "packages", "exec", "syscalls"; "unknown" else. */
const char	*kind_surface_name(enum summary_surface);
/* The same in the scorecard's words: "files", "network", "packages",
 * "programs", "system"; "run" for SURFACE_NONE or out of range. */
const char	*kind_surface_word(enum summary_surface);
/* "bulk", "home", "network", "install", "critical"; "?" else. */
const char	*kind_rank_name(enum group_rank);
/* "whole", "folder", "host", "word"; "?" else. */
const char	*kind_place_name(enum kind_place);
/* "format", "write", "connect", "install", "http"; "?" else. */
const char	*kind_sentence_name(enum kind_sentence);
