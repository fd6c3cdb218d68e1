/* SPDX-License-Identifier: MIT */
/*
 * [secret NAME] (issue 19): the section's name, and its keys from,
 * hosts and header. The parser (policy.c) opens and closes a section.
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/escape.h"
#include "config/util.h"

#define SECRET_NAME_MAX		63	/* gate_msg's name[64] */

/* The [secret NAME] being read: the last one (each NAME once). */
static struct policy_secret *
policy_secret_of(struct policy *p, const char *name)
{
	for (size_t i = p->n_secrets; i-- > 0;)
		if (strcmp(p->secrets[i].name, name) == 0)
			return &p->secrets[i];
	return NULL;
}

/* from = env:NAME | file:PATH | command:CMDLINE: the form only; nothing
 * is read or run here (the gate does, when the run starts). */
int
policy_set_secret_from(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	cleanup_free char *q = policy_quote(v);
	char *path = NULL;

	if (str_has_prefix(v, "env:")) {
		if (!policy_is_var_name(v + 4)) {
			*why = xasprintf("%s: env: takes a variable name "
			    "(env:ANTHROPIC_API_KEY)", q);
			return -EINVAL;
		}
		sc->from = xstrdup(v);
		return 0;
	}
	if (str_has_prefix(v, "file-json:")) {
		if (policy_home_or_abs(v + 10, &path, why) < 0) {
			free(*why);
			*why = xasprintf("%s: file-json: takes an absolute path "
			    "or ~/path, with no . or ..", q);
			return -EINVAL;
		}
		/* The file itself, at once: the supervisor binds over it
		 * and the gate's keeper rewrites it. */
		free(sc->file);
		sc->file = NULL;
		if (policy_expand_home(path, &sc->file, why) < 0) {
			free(path);
			return -EINVAL;
		}
		sc->from = xasprintf("file-json:%s", path);
		free(path);
		return 0;
	}
	if (str_has_prefix(v, "file:")) {
		if (policy_home_or_abs(v + 5, &path, why) < 0) {
			free(*why);
			*why = xasprintf("%s: file: takes an absolute path or "
			    "~/path, with no . or ..", q);
			return -EINVAL;
		}
		sc->from = xasprintf("file:%s", path);
		free(path);
		return 0;
	}
	if (str_has_prefix(v, "command:")) {
		const char *c = v + 8 + strspn(v + 8, " \t");

		if (*c == '\0') {
			*why = xasprintf("%s: command: takes a command line "
			    "(command:pass show anthropic)", q);
			return -EINVAL;
		}
		for (const char *d = c; *d != '\0'; d++)
			if ((unsigned char)*d < 0x20 && *d != '\t') {
				*why = xasprintf("%s: a control character in "
				    "the command", q);
				return -EINVAL;
			}
		sc->from = xasprintf("command:%s", c);
		return 0;
	}
	*why = xasprintf("%s is not env:NAME, file:PATH, file-json:PATH or "
	    "command:CMDLINE", q);
	return -EINVAL;
}

int
policy_set_secret_hosts(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	struct policy_host h;
	int r;

	if ((r = policy_one_port_host(v, "a [secret]", &h, why)) < 0)
		return r;
	sc->hosts = xreallocarray(sc->hosts, sc->n_hosts + 1, sizeof *sc->hosts);
	sc->hosts[sc->n_hosts++] = h;
	return 0;
}

/* A key of a JSON object as a field path names it: not empty, no
 * blank, quote, backslash or control character ('.' splits the path). */
static bool
policy_json_key_ok(const char *k, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)k[i] <= ' ' || k[i] == '"' || k[i] == '\\' ||
		    k[i] == '=' || k[i] == 0x7f)
			return false;
	return true;
}

/* fields = PATH[=REPLY]: a token of the login file, dotted object keys,
 * and the field of the token endpoint's reply that renews it. */
int
policy_set_secret_fields(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	cleanup_free char *q = policy_quote(v);
	const char *eq = strchr(v, '='), *reply = eq != NULL ? eq + 1 : NULL;
	size_t plen = eq != NULL ? (size_t)(eq - v) : strlen(v);

	for (const char *k = v, *end = v + plen; k <= end;) {
		const char *dot = memchr(k, '.', (size_t)(end - k));
		size_t n = dot != NULL ? (size_t)(dot - k) : (size_t)(end - k);

		if (!policy_json_key_ok(k, n)) {
			*why = xasprintf("%s is not a field path (object keys "
			    "joined by dots: claudeAiOauth.accessToken), "
			    "optionally =REPLY (access_token)", q);
			return -EINVAL;
		}
		k += n + 1;
	}
	if (reply != NULL && !policy_json_key_ok(reply, strlen(reply))) {
		*why = xasprintf("%s: after = comes the reply's field that "
		    "renews it (access_token)", q);
		return -EINVAL;
	}
	for (size_t i = 0; i < sc->n_fields; i++)
		if (strlen(sc->fields[i].path) == plen &&
		    strncmp(sc->fields[i].path, v, plen) == 0) {
			*why = xasprintf("%s: the field is named twice", q);
			return -EINVAL;
		}
	sc->fields = xreallocarray(sc->fields, sc->n_fields + 1,
	    sizeof *sc->fields);
	sc->fields[sc->n_fields++] = (struct policy_secret_field){
		.path = xstrndup(v, plen),
		.reply = reply != NULL ? xstrdup(reply) : NULL,
	};
	return 0;
}

/* refresh = HOST:PORT/PATH: the token endpoint. Its host joins hosts
 * (the refresh token goes there). */
int
policy_set_secret_refresh(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *hp = NULL;
	const char *slash = strchr(v, '/');
	struct policy_host h;
	bool have = false;
	int r;

	if (slash == NULL || slash == v) {
		*why = xasprintf("%s is not HOST:PORT/PATH (the token endpoint: "
		    "platform.claude.com:443/v1/oauth/token)", q);
		return -EINVAL;
	}
	for (const char *c = slash; *c != '\0'; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == '?' ||
		    *c == '#' || *c == '*' || *c == '%') {
			*why = xasprintf("%s: the path is one exact path, with "
			    "no blank, ?, #, %% or *", q);
			return -EINVAL;
		}
	hp = xstrndup(v, (size_t)(slash - v));
	if ((r = policy_one_port_host(hp, "a [secret]'s refresh", &h, why)) < 0)
		return r;
	free(sc->refresh.host);
	free(sc->refresh_path);
	sc->refresh = h;
	sc->refresh_path = xstrdup(slash);
	for (size_t i = 0; i < sc->n_hosts && !have; i++)
		have = strcasecmp(sc->hosts[i].host, h.host) == 0 &&
		    sc->hosts[i].port_lo == h.port_lo;
	if (!have) {
		sc->hosts = xreallocarray(sc->hosts, sc->n_hosts + 1,
		    sizeof *sc->hosts);
		sc->hosts[sc->n_hosts++] = (struct policy_host){
			.host = xstrdup(h.host), .port_lo = h.port_lo,
			.port_hi = h.port_hi,
		};
	}
	return 0;
}

/* Headers that frame the message or route it: a secret never goes in
 * one (the gate relays them as the client wrote them). */
static const char *const policy_frame_headers[] = {
	"host", "content-length", "transfer-encoding", "connection",
	"upgrade", "te", "trailer", "keep-alive", "proxy-connection",
};

/* header = Name: value, the value holding {} once (where the secret goes). */
int
policy_set_secret_header(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *name = NULL;
	const char *colon = strchr(v, ':'), *val, *brace;

	if (colon == NULL) {
		*why = xasprintf("%s is not Name: value (x-api-key: {}, or "
		    "authorization: Bearer {})", q);
		return -EINVAL;
	}
	name = xstrndup(v, (size_t)(colon - v));
	name[strcspn(name, " \t")] = '\0';
	if (!policy_is_http_token(v, (size_t)(colon - v))) {
		*why = xasprintf("%s: the header's name is not an HTTP token "
		    "(letters, digits, - and no blanks before the colon)", q);
		return -EINVAL;
	}
	for (char *c = name; *c != '\0'; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	for (size_t i = 0; i < ARRAY_SIZE(policy_frame_headers); i++)
		if (strcmp(name, policy_frame_headers[i]) == 0) {
			*why = xasprintf("%s: %s frames the request; a secret "
			    "goes in another header", q, name);
			return -EINVAL;
		}
	val = colon + 1 + strspn(colon + 1, " \t");
	for (const char *c = val; *c != '\0'; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the value", q);
			return -EINVAL;
		}
	if ((brace = strstr(val, "{}")) == NULL) {
		*why = xasprintf("%s: the value has no {} (where the secret "
		    "goes: %s: Bearer {})", q, name);
		return -EINVAL;
	}
	if (strstr(brace + 2, "{}") != NULL) {
		*why = xasprintf("%s: {} more than once (the secret goes in "
		    "one place)", q);
		return -EINVAL;
	}
	sc->header = steal_ptr(&name);
	sc->header_value = xstrdup(val);
	return 0;
}

/*
 * Is s (len bytes, as inih hands it on) a [secret NAME] section? 0 no,
 * 1 yes and *name (malloc'd) is NAME, -EINVAL yes but NAME is not a
 * variable name (*why says so).
 */
int
policy_secret_section(const char *s, size_t len, char **name, char **why)
{
	static const char word[] = "secret";
	cleanup_free char *sec = NULL, *qs = NULL, *n = NULL, *qn = NULL;
	size_t w = sizeof word - 1, b, rest;

	if (len < w || strncmp(s, word, w) != 0 ||
	    (len > w && s[w] != ' ' && s[w] != '\t'))
		return 0;
	sec = xstrndup(s, len);
	qs = escape_str(sec);
	b = w + strspn(sec + w, " \t");
	n = xstrdup(sec + b);
	n[strcspn(n, " \t")] = '\0';
	if (*n == '\0') {
		*why = xstrdup("[secret] names no variable (write [secret "
		    "ANTHROPIC_API_KEY]: the variable the sandbox sees)");
		return -EINVAL;
	}
	rest = b + strlen(n);
	if (sec[rest + strspn(sec + rest, " \t")] != '\0') {
		*why = xasprintf("[%s]: one variable per section", qs);
		return -EINVAL;
	}
	qn = policy_quote(n);
	if (!policy_is_var_name(n)) {
		*why = xasprintf("[%s]: %s is not a variable name (letters, "
		    "digits and _, not first a digit)", qs, qn);
		return -EINVAL;
	}
	if (strlen(n) > SECRET_NAME_MAX) {
		*why = xasprintf("[%s]: %s is longer than %d bytes", qs, qn,
		    SECRET_NAME_MAX);
		return -EINVAL;
	}
	for (const char *const *v = policy_ca_vars(); *v != NULL; v++)
		if (strcmp(n, *v) == 0) {
			*why = xasprintf("[%s]: ward sets %s in the sandbox "
			    "while a host is intercepted (to the run's CA "
			    "bundle)", qs, n);
			return -EINVAL;
		}
	*name = steal_ptr(&n);
	return 1;
}

/* What a complete [secret NAME] lacks, first of from, hosts and header
 * ("from: missing (...)"), or NULL when it has them all. */
const char *
policy_secret_missing(const struct policy_secret *sc)
{
	if (sc->from == NULL)
		return "from: missing (where the value comes from: "
		    "env:NAME, file:PATH, file-json:PATH or command:CMDLINE)";
	if (sc->file != NULL && sc->n_fields == 0)
		return "fields: missing (the tokens of the file-json: "
		    "claudeAiOauth.accessToken=access_token ...)";
	if (sc->file == NULL && sc->n_fields > 0)
		return "fields: only with from = file-json:PATH";
	if (sc->file == NULL && sc->refresh.host != NULL)
		return "refresh: only with from = file-json:PATH";
	if (sc->n_hosts == 0)
		return "hosts: missing (where it may go: api.example.com:443)";
	if (sc->header == NULL)
		return "header: missing (where it goes in a request: "
		    "x-api-key: {}, or authorization: Bearer {})";
	return NULL;
}

/* The first [secret] whose NAME [run] env also passes in from the host
 * (the sandbox's NAME is the phantom), or NULL. */
const struct policy_secret *
policy_secret_in_env(const struct policy *p)
{
	for (size_t i = 0; i < p->n_secrets; i++)
		for (size_t j = 0; j < p->n_env; j++)
			if (strlen(p->secrets[i].name) ==
			    policy_env_name_len(p->env[j]) &&
			    strncmp(p->secrets[i].name, p->env[j],
			    policy_env_name_len(p->env[j])) == 0)
				return &p->secrets[i];
	return NULL;
}
