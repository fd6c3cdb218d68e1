/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Floods tamed (issue 15): the pending list as the person reads it. Pure
 * functions over the model's pending requests (oldest first), no model
 * calls, so tests drive them with plain arrays.
 *
 * Similar requests are one group: the same kind, the same process (by
 * its command line: each thread of a program asks with its own pid), and
 * the same place (a write's folder, a connect's or lookup's host, an
 * install's manager). A sensitive request (group_sensitivity() above
 * GROUP_BULK) is never grouped: it is always a line of its own (across
 * runs, group_rows_alike: unless it is the very same request, and never
 * a GROUP_CRITICAL one).
 *
 * The rows come in this order: the most sensitive first, then by the
 * oldest request each row holds. Within a rank, oldest first.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approvals/kind.h"
#include "approvals/request.h"

/* What grouping reads of a pending request (the model's, escaped). */
#define GROUP_MIN	5

struct group_in {
	enum request_kind kind;
	const char	*process;	/* its command line */
	const char	*subject;
};

/* How much a request matters (enum group_rank, GROUP_BULK ..
 * GROUP_CRITICAL, highest first on screen): each kind's is its row in
 * approvals/kind.c, a write's by its path. */
/* The rank of kind+subject (a subject as the request shows it) and why,
 * in a few words ("shell start-up file"); why is "" for GROUP_BULK. */
enum group_rank	 group_sensitivity(enum request_kind, const char *subject,
		    const char **why);
/* "bulk", "home", "network", "install", "critical" */
const char	*group_rank_name(enum group_rank);

/* One line of the list: a request alone, or a group of them. */
struct group_row {
	size_t		*idx;		/* indexes into the pending list,
					 * oldest first; owned */
	size_t		 n;		/* >= 1 */
	enum group_rank	 rank;
	char		*glob;		/* what the group amounts to: a folder
					 * and a star, host:*, npm *; a row of
					 * one, its subject; owned */
};

/* The rows of v[0..n) (oldest first); returns how many, *rows
 * malloc'd (NULL for none); group_rows_free frees them. */
size_t		 group_rows(const struct group_in *v, size_t n,
		    struct group_row **rows);
/*
 * The same for every run's requests at once (tui/fleet.h, v oldest first
 * across runs): besides group_rows' groups, requests that ask the very
 * same thing (kind, process's command line and subject, whatever their
 * run or pid) are one row, even when sensitive (a name, an install, a
 * home file: the row amounts to that one subject, its glob) and even
 * when fewer than GROUP_MIN. GROUP_CRITICAL is still a row per request.
 */
size_t		 group_rows_alike(const struct group_in *v, size_t n,
		    struct group_row **rows);
void		 group_rows_free(struct group_row *, size_t n);
/* The row that holds pending index i, or -1. */
long		 group_row_of(const struct group_row *, size_t n_rows, size_t i);
