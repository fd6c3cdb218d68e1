/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The run's secrets in ward-gate: each [secret]'s value, read once at
 * start-up into one locked, never-dumped mapping, and its phantom, the
 * stand-in the sandbox sees ("ward-phantom-" and 32 hex digits of an
 * HMAC-SHA256 of the secret's name under the user's phantom key: the same
 * each run, another for another user, never derived from the value). Values never leave this process but in the header of a
 * request to one of the secret's hosts (flow.c).
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/policy.h"

#define SECRETS_PREFIX		"ward-phantom-"
#define SECRETS_PHANTOM_LEN	(sizeof SECRETS_PREFIX - 1 + 32)
#define SECRETS_KEY_LEN		32
#define SECRETS_KEY_FILE	"phantom.key"	/* in the state folder */
/* The most a value may hold (a token, a key; not a file of them). */
#define SECRETS_VALUE_MAX	8192

struct secret {
	const struct policy_secret *ps;		/* the policy's [secret] */
	/* A login file's token (login.h): its ps->fields index; a JWT's
	 * value is its signature alone. -1: the secret's one value. A
	 * token the file lacks has len 0 (found nowhere) until a refresh
	 * brings it. */
	int	 field;
	char	 phantom[SECRETS_PHANTOM_LEN + 1];
	char	*value;		/* inside the locked mapping */
	size_t	 len;
};

/* A login file as the sandbox reads it: its tokens made phantoms. */
struct secret_file {
	const struct policy_secret *ps;
	char	*inside;
	size_t	 len;
};

struct secrets {
	struct secret	*v;
	size_t		 n;
	void		*map;
	size_t		 maplen;
	/* The user's phantom key (in the mapping), kept for the phantoms
	 * of a refresh's new tokens; NULL without login files. */
	unsigned char	*key;
	struct secret_file *files;
	size_t		 n_files;
	int		 keeper;	/* login.c's writer of host files, or -1 */
};

/*
 * The user's phantom key, STATE/phantom.key (config/paths.h), made 0600
 * on first use; refused when it is not a regular file of ours that only
 * we may read. 0 or -errno and *cause naming the file.
 */
int	secrets_key(unsigned char key[SECRETS_KEY_LEN], char **cause);
/* name's phantom under key. */
void	secrets_phantom(const unsigned char key[SECRETS_KEY_LEN],
	    const char *name, char out[SECRETS_PHANTOM_LEN + 1]);
/*
 * Read every secret of p (from = env:NAME | file:PATH | command:CMDLINE |
 * file-json:PATH, login.h) and make its phantom. A secret whose env: is unset or whose file: is
 * missing is skipped, one line on stderr (its user may be logged in
 * instead); any other failure is -errno and *cause ("[secret X] from =
 * command:...: exited with 1") naming the secret, never its value.
 */
int	secrets_load(struct secrets *, const struct policy *p, char **cause);
/* The same from values given (tests): values[i] for p->secrets[i]. */
int	secrets_set(struct secrets *, const struct policy *p,
	    const char *const *values, char **cause);
/* Zero and unmap the values. */
void	secrets_done(struct secrets *);
/*
 * The part of loading that is a login file's (login.c, login.h): read
 * ps's file (or, given text, that: tests) into s->v[s->n..] (one secret
 * per field) and its inside copy into s->files. A file not there is
 * skipped (its secrets have no value; nothing is bound inside). 0 or
 * -errno with *cause naming the secret and the file, never a value.
 * login_done stops the keeper and frees the copies (secrets_done).
 */
int	login_load(struct secrets *s, const struct policy_secret *ps,
	    const char *text, char **cause);
void	login_done(struct secrets *s);
/* The secret whose phantom starts at s (n bytes available), or NULL. */
const struct secret *secrets_at(const struct secrets *, const char *s,
	    size_t n);
