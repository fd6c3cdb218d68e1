/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The decision order of DESIGN §7, written once, per kind: the never list,
 * the run's own answers (struct answers), the policy, the default. The
 * inputs are plain (the policy, its compiled [files] rules, the answers, the
 * subject, a monotonic clock), so tests/data/decide.tsv can drive every
 * step without a kernel; the supervisor only acts on what comes back
 * (answers, records, parks).
 *
 * The order, per kind, as the supervisor has always applied it:
 *   write    run answers, then the policy's deny, then its allow (each path
 *            of a two-path call on its own; the call gets the stronger
 *            result), then [files] write. A protected path (anywhere,
 *            decide_protected) is asked once no deny matched.
 *   connect  never, the floor (no host-side datagram socket), the registry
 *            of an approved install, run answers, [network] allow, then
 *            [network] connect.
 *   dns      run answers (an approved lookup is remembered for the run),
 *            [network] allow on any port, a live approved install's
 *            registry, a refusal a moment ago, then [network] connect.
 *   package  run answers, the policy allowing, a refusal a moment ago (a
 *            shell's execvp tries every PATH folder), the policy denying,
 *            then [packages] install.
 * Writes, lookups and installs have no never list: what the floor refuses
 * is answered before a write is decided (read-only root, hidden paths).
 *
 * The default is the policy's action for the kind, ask or deny. Headless
 * runs do not change it: a headless request is asked too (announced on
 * stderr, answered by `ward approve`/`deny` or denied at its deadline).
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "approvals/netrules.h"
#include "approvals/request.h"
#include "approvals/rules.h"
#include "config/policy.h"

/* Which step of the order decided. */
enum decide_step {
	DECIDE_NEVER,	/* the never list: no person can approve it */
	DECIDE_FLOOR,	/* refused before any rule (connect: datagram) */
	DECIDE_INSTALL,	/* the registry of an approved install */
	DECIDE_RUN,	/* an answer "for this run" */
	DECIDE_REFUSED,	/* the same thing, refused a moment ago */
	DECIDE_POLICY,	/* a rule of the policy file */
	DECIDE_DEFAULT,	/* no rule: the policy's action for the kind */
};

struct decision {
	enum verdict	 verdict;	/* ALLOW, DENY or ASK */
	enum how	 how;		/* for the record: POLICY, RUN_RULE,
					 * DEFAULT or FLOOR */
	enum decide_step step;
	char		*rule;		/* what decided, as the record shows it;
					 * for ASK why it is asked (the
					 * request's why). Owned; never NULL */
};

void		 decision_done(struct decision *);
/* "never", "floor", "install", "run", "refused", "policy", "default" */
const char	*decide_step_name(enum decide_step);
int		 decide_step_parse(const char *, enum decide_step *);

/*
 * The run's own answers: "allow/deny for this run", and refusals that are
 * remembered for a moment so that a retry is not asked again. Opaque;
 * one per run.
 */
struct answers;

struct answers *answers_new(void);
void		 answers_free(struct answers *);
/*
 * Remember an answer for the run: verdict ALLOW or DENY for kind+subject.
 * The subject is taken literally (a star in a file name is no glob), by
 * kind: write, a resolved path; connect, net_dest_key() ("name:port");
 * dns, a name (case does not matter); package, the install as
 * packages_describe() puts it. A later answer overrides an earlier one.
 */
void		 answers_add(struct answers *, enum request_kind,
		    const char *subject, enum verdict);
/* The pattern answers_add stores for kind+subject (malloc'd): the
 * subject made literal (glob characters escaped), a name in lower case.
 * This is the rule a console shows before an answer "for this run". */
char		*answers_pattern(enum request_kind, const char *subject);
/*
 * The answers "for this run" in the order given, numbered from 1 as
 * `ward rules` shows them: how many, the n-th (NULL past the end), and
 * its removal (0, or -ENOENT). A revoked answer is asked again.
 */
size_t		 answers_count(const struct answers *);
const struct rule *answers_at(const struct answers *, size_t n);
int		 answers_revoke(struct answers *, size_t n);
/* The answer remembered for kind+subject, or VERDICT_NONE. */
enum verdict	 answers_match(const struct answers *, enum request_kind,
		    const char *subject);
/*
 * A refusal, remembered from now_ms (monotonic) for a moment: a lookup
 * (pid 0) for 15 s, since one lookup asks for A and AAAA and resolvers
 * retry; an install for 5 s, by process (its tgid) and subject. Only the
 * most recent few are kept.
 */
void		 answers_refuse(struct answers *, enum request_kind,
		    pid_t, const char *subject, int64_t now_ms);
bool		 answers_refused(const struct answers *, enum request_kind,
		    pid_t, const char *subject, int64_t now_ms);

/* What every decision reads. */
struct decide_in {
	const struct policy	*policy;
	const struct rules	*rules;		/* the policy's [files] rules
						 * (rules_add_policy) */
	const struct answers	*answers;
	int64_t			 now_ms;	/* monotonic */
};

/* A write to path (and path2 for a two-path call, else NULL), both
 * resolved, outside the writable set and with a host counterpart. */
struct decision	 decide_write(const struct decide_in *, const char *path,
		    const char *path2);
/*
 * A write to a protected path (config/protect.h), in a project, a
 * writable folder or outside: pattern is what protect_match() said of
 * path or path2. Asked, whatever the policy's allow, [files] write or
 * the run's allow answers say: only a deny (the policy's deny globs, a
 * "deny for this run") comes first. The ask's why is protect_why().
 */
struct decision	 decide_protected(const struct decide_in *,
		    const char *pattern, const char *path, const char *path2);
/*
 * A connect to d (not the sandbox's loopback; d->name as the DNS stub
 * resolved it, or NULL). stream: a stream socket. install: the manager of
 * a live approved install in the caller's process tree whose registry
 * hosts cover d, or NULL.
 */
struct decision	 decide_connect(const struct decide_in *,
		    const struct net_dest *d, bool stream, const char *install);
/* A lookup of name at the DNS stub; install: a live approved install's
 * registry hosts name it. */
struct decision	 decide_dns(const struct decide_in *, const char *name,
		    bool install);
/*
 * An install by process pid (its tgid) described as subject, by manager.
 * policy and which are what the policy says of its packages
 * (packages_verdict_install(): ALLOW, DENY or ASK, and the pattern that
 * said so, or NULL when it is [packages] install itself).
 */
struct decision	 decide_package(const struct decide_in *, pid_t pid,
		    const char *subject, const char *manager,
		    enum policy_action policy, const char *which);
