/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Requests, verdicts and how they were decided. A request is plain data:
 * the supervisor fills it, the queue owns it while pending, the protocol
 * carries it to consoles, the audit store records it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

/* enum request_kind and what each kind is: */
#include "approvals/kind.h"

enum verdict {
	VERDICT_NONE,	/* still pending */
	VERDICT_ALLOW,
	VERDICT_DENY,
	VERDICT_ASK,
	VERDICT_KILL,
	/* A write outside, done on a staged copy in the run folder (the
	 * host file unchanged until `ward apply`): a person's third answer
	 * to a write request that opens a file. */
	VERDICT_STAGE,
};

enum scope {
	SCOPE_ONCE,
	SCOPE_RUN,
};

/* How a verdict came about. */
enum how {
	HOW_POLICY,	/* a rule of the policy file */
	HOW_RUN_RULE,	/* an "for this run" answer given earlier */
	HOW_PERSON,	/* a person, via console or CLI */
	HOW_TIMEOUT,	/* nobody answered before the deadline */
	HOW_DEFAULT,	/* no rule; the default for this mode */
	HOW_FLOOR,	/* the kernel floor; no question asked */
	HOW_SUPERVISOR,	/* the supervisor itself (lifecycle, errors) */
};

struct request {
	uint64_t	 id;		/* per run, from 1 */
	char		*run;		/* run id */
	pid_t		 pid;		/* host pid of the asking thread */
	enum request_kind kind;
	char		*syscall;	/* "openat", "rename", ... */
	char		*subject;	/* resolved path (host/sandbox view) */
	char		*subject2;	/* second path for rename/link/symlink, or NULL */
	char		*detail;	/* "flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644" */
	char		*cmdline;	/* argv of the process, spaces between */
	char		*cwd;		/* cwd of the process, sandbox view */
	char		*why;		/* why asked: matching rule, or "no rule" */
	/* What an answer "for this run" stores (answers_pattern(): the
	 * subject made literal, a connect's name:port), set by the
	 * supervisor when it parks the request; NULL when not said. */
	char		*rule;
	/* Wall clock, for the people who read them; the queue times the
	 * wait between them on the monotonic clock (queue.h). */
	int64_t		 created_ms;
	int64_t		 deadline_ms;	/* 0 = none */
};

struct request	*request_new(void);
void		 request_free(struct request *);
struct request	*request_dup(const struct request *);

/* *_name() gives "unknown" for a value out of range; *_parse() 0 or -EINVAL. */
const char	*request_kind_name(enum request_kind);
int		 request_kind_parse(const char *, enum request_kind *);
const char	*verdict_name(enum verdict);
int		 verdict_parse(const char *, enum verdict *);
const char	*how_name(enum how);
int		 how_parse(const char *, enum how *);
const char	*scope_name(enum scope);
int		 scope_parse(const char *, enum scope *);

/* JSON (jansson) form used by the control protocol and `--json` output.
 * Every member is always present but "rule", sent only when set (and
 * optional to the parser: an older supervisor); subject2 is null when there is none,
 * other NULL strings are sent as "". Bytes that are not valid UTF-8 are
 * sent as the text \xNN (JSON strings must be UTF-8). */
json_t		*request_to_json(const struct request *);
/* A JSON string for s (null for NULL) with bytes that are not UTF-8 as
 * the text \xNN; never NULL (out of memory is fatal). */
json_t		*request_json_string(const char *s);
/* 0 or -EINVAL with *cause naming the bad field ("request: \"pid\": not
 * an integer"). subject2 may be null or absent; every other member is
 * required. */
int		 request_from_json(const json_t *, struct request **, char **cause);
