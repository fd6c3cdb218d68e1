/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The run's secrets in ward-gate: each [secret]'s value, read once at
 * start-up into one locked, never-dumped mapping, and its phantom, the
 * per-run stand-in the sandbox sees ("ward-phantom-" and 32 random hex
 * digits). Values never leave this process but in the header of a
 * request to one of the secret's hosts (flow.c).
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/policy.h"

#define SECRETS_PREFIX		"ward-phantom-"
#define SECRETS_PHANTOM_LEN	(sizeof SECRETS_PREFIX - 1 + 32)
/* The most a value may hold (a token, a key; not a file of them). */
#define SECRETS_VALUE_MAX	8192

struct secret {
	const struct policy_secret *ps;		/* the policy's [secret] */
	char	 phantom[SECRETS_PHANTOM_LEN + 1];
	char	*value;		/* inside the locked mapping */
	size_t	 len;
};

struct secrets {
	struct secret	*v;
	size_t		 n;
	void		*map;
	size_t		 maplen;
};

/*
 * Read every secret of p (from = env:NAME | file:PATH | command:CMDLINE)
 * and make its phantom. -errno and *cause ("[secret X] from = env:X: not
 * set") naming the secret, never its value.
 */
int	secrets_load(struct secrets *, const struct policy *p, char **cause);
/* The same from values given (tests): values[i] for p->secrets[i]. */
int	secrets_set(struct secrets *, const struct policy *p,
	    const char *const *values, char **cause);
/* Zero and unmap the values. */
void	secrets_done(struct secrets *);
/* The secret whose phantom starts at s (n bytes available), or NULL. */
const struct secret *secrets_at(const struct secrets *, const char *s,
	    size_t n);
