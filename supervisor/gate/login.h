/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A login kept outside (issue 33): a [secret] whose from is
 * file-json:PATH, an agent's OAuth credential file (Claude Code's
 * .credentials.json, Codex's auth.json, Gemini CLI's oauth_creds.json).
 *
 * Each of its fields is a secret of its own (secrets.h): its phantom is
 * an HMAC of the secret's name, the field and the token under the user's
 * phantom key, so the same token reads the same each run and a new token
 * reads new. A JWT keeps its header and payload (an agent reads the
 * expiry and the account from them) and only its signature, the part
 * that makes it a credential, is the secret and becomes the phantom.
 *
 * The sandbox reads the file as it is on the host with each token its
 * phantom: RUNDIR/login-NAME.json (GATE_LOGIN_FILE), which the supervisor
 * made and binds over the file's path; what the agent writes there stays
 * in the run. A refresh's reply (its JSON fields named in fields =
 * PATH=REPLY) renews the tokens: the gate's values and phantoms here,
 * and the host's file through the keeper, a process forked before the
 * gate locks itself, which alone may write it (atomically, its mode
 * kept, only those fields changed).
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/policy.h"
#include "supervisor/gate/secrets.h"

/* The largest login file read, and the largest refresh reply taken. */
#define LOGIN_FILE_MAX	(256 * 1024)

/* Write each file's inside copy into RUNDIR/login-NAME.json (made empty
 * by the supervisor: opened, never created, never followed). */
int	login_write_inside(const struct secrets *s, const char *rundir,
	    char **cause);
/* Fork the keeper when some login file may be refreshed: before the
 * gate locks itself. */
int	login_keeper_start(struct secrets *s, char **cause);

/*
 * The refresh reply body[0..n) of ps's token endpoint (a 2xx): each
 * field's new token taken from it (its =REPLY, dotted keys) made the
 * field's value, with a new phantom, and written to the host's file by
 * the keeper. 1 when some token was renewed, *out (malloc'd, *outlen
 * bytes) the reply as the sandbox reads it, each new token its phantom;
 * 0 when the reply names none (*out NULL: the reply as it is); -EPROTO
 * when it is not a JSON object or holds a token ward cannot carry (not
 * to be passed on). *what says what was done ("access_token,
 * refresh_token written to PATH", or why not), never a value.
 */
int	login_renew(struct secrets *s, const struct policy_secret *ps,
	    const char *body, size_t n, char **out, size_t *outlen,
	    char **what);

/* The phantom of token value[0..n) of field of secret name. */
void	login_phantom(const unsigned char *key, const char *name,
	    const char *field, const char *value, size_t n,
	    char out[SECRETS_PHANTOM_LEN + 1]);
/* Where a JWT-shaped token's signature starts (header.payload. before
 * it), or 0: the whole token is the secret. */
size_t	login_jwt_sig(const char *v, size_t n);
