/* SPDX-License-Identifier: MIT */
#include "approvals/request.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"

static const char *const verdict_names[] = {
	[VERDICT_NONE] = "none",
	[VERDICT_ALLOW] = "allow",
	[VERDICT_DENY] = "deny",
	[VERDICT_ASK] = "ask",
	[VERDICT_KILL] = "kill",
	[VERDICT_STAGE] = "stage",
};

static const char *const how_names[] = {
	[HOW_POLICY] = "policy",
	[HOW_RUN_RULE] = "run-rule",
	[HOW_PERSON] = "person",
	[HOW_TIMEOUT] = "timeout",
	[HOW_DEFAULT] = "default",
	[HOW_FLOOR] = "floor",
	[HOW_SUPERVISOR] = "supervisor",
};

static const char *const scope_names[] = {
	[SCOPE_ONCE] = "once",
	[SCOPE_RUN] = "run",
};

/* Enums come off the wire and out of the database: an out-of-range value
 * gets a name that no parser accepts rather than an out-of-bounds read. */
static const char *
request_name(const char *const *names, size_t n, unsigned int i)
{
	if (i >= n || names[i] == NULL)
		return "unknown";
	return names[i];
}

static int
request_parse_name(const char *const *names, size_t n, const char *s,
    unsigned int *ret)
{
	if (s == NULL)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (names[i] != NULL && strcmp(names[i], s) == 0) {
			*ret = (unsigned int)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
request_kind_name(enum request_kind k)
{
	return kind_info(k)->name;
}

int
request_kind_parse(const char *s, enum request_kind *ret)
{
	if (s == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < kind_count(); i++) {
		if (strcmp(kind_info((enum request_kind)i)->name, s) == 0) {
			*ret = (enum request_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
verdict_name(enum verdict v)
{
	return request_name(verdict_names, ARRAY_SIZE(verdict_names),
	    (unsigned int)v);
}

int
verdict_parse(const char *s, enum verdict *ret)
{
	unsigned int i;
	int r;

	if ((r = request_parse_name(verdict_names, ARRAY_SIZE(verdict_names),
	    s, &i)) < 0)
		return r;
	*ret = (enum verdict)i;
	return 0;
}

const char *
how_name(enum how h)
{
	return request_name(how_names, ARRAY_SIZE(how_names), (unsigned int)h);
}

int
how_parse(const char *s, enum how *ret)
{
	unsigned int i;
	int r;

	if ((r = request_parse_name(how_names, ARRAY_SIZE(how_names), s,
	    &i)) < 0)
		return r;
	*ret = (enum how)i;
	return 0;
}

const char *
scope_name(enum scope s)
{
	return request_name(scope_names, ARRAY_SIZE(scope_names),
	    (unsigned int)s);
}

int
scope_parse(const char *s, enum scope *ret)
{
	unsigned int i;
	int r;

	if ((r = request_parse_name(scope_names, ARRAY_SIZE(scope_names), s,
	    &i)) < 0)
		return r;
	*ret = (enum scope)i;
	return 0;
}

struct request *
request_new(void)
{
	return xcalloc(1, sizeof(struct request));
}

void
request_free(struct request *r)
{
	if (r == NULL)
		return;
	free(r->run);
	free(r->syscall);
	free(r->subject);
	free(r->subject2);
	free(r->detail);
	free(r->cmdline);
	free(r->cwd);
	free(r->why);
	free(r->rule);
	free(r);
}

static char *
request_strdup(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

struct request *
request_dup(const struct request *r)
{
	struct request *d = request_new();

	*d = *r;
	d->run = request_strdup(r->run);
	d->syscall = request_strdup(r->syscall);
	d->subject = request_strdup(r->subject);
	d->subject2 = request_strdup(r->subject2);
	d->detail = request_strdup(r->detail);
	d->cmdline = request_strdup(r->cmdline);
	d->cwd = request_strdup(r->cwd);
	d->why = request_strdup(r->why);
	d->rule = request_strdup(r->rule);
	return d;
}

/* Length of the well-formed UTF-8 sequence at p (as jansson judges it: no
 * overlong forms, surrogates or values past U+10FFFF), or 0. */
static size_t
request_utf8_len(const unsigned char *p)
{
	unsigned int c = p[0], cp;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Paths and command lines come from the sandboxed program and need not be
 * UTF-8, which JSON requires (jansson refuses such a string, and a peer
 * would drop a frame that carried one). Invalid bytes travel as the text
 * \xNN, the same spelling the console uses to show them.
 */
json_t *
request_json_string(const char *s)
{
	json_t *j;
	char *out, *o;

	if (s == NULL)
		return json_null();
	if ((j = json_string(s)) != NULL)
		return j;
	o = out = xmalloc(strlen(s) * 4 + 1);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0';) {
		size_t n = request_utf8_len(p);

		if (n == 0) {
			o += sprintf(o, "\\x%02x", *p++);
			continue;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	j = json_string(out);
	free(out);
	if (j == NULL)
		fatal("out of memory");
	return j;
}

static void
request_set(json_t *o, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		fatal("out of memory");
}

json_t *
request_to_json(const struct request *r)
{
	json_t *o = json_object();

	if (o == NULL)
		fatal("out of memory");
	request_set(o, "id", json_integer((json_int_t)r->id));
	request_set(o, "run", request_json_string(r->run ? r->run : ""));
	request_set(o, "pid", json_integer(r->pid));
	request_set(o, "kind", json_string(request_kind_name(r->kind)));
	request_set(o, "syscall",
	    request_json_string(r->syscall ? r->syscall : ""));
	request_set(o, "subject",
	    request_json_string(r->subject ? r->subject : ""));
	request_set(o, "subject2", request_json_string(r->subject2));
	request_set(o, "detail",
	    request_json_string(r->detail ? r->detail : ""));
	request_set(o, "cmdline",
	    request_json_string(r->cmdline ? r->cmdline : ""));
	request_set(o, "cwd", request_json_string(r->cwd ? r->cwd : ""));
	request_set(o, "why", request_json_string(r->why ? r->why : ""));
	request_set(o, "created_ms", json_integer(r->created_ms));
	request_set(o, "deadline_ms", json_integer(r->deadline_ms));
	if (r->rule != NULL)
		request_set(o, "rule", request_json_string(r->rule));
	return o;
}

static int
request_bad(char **cause, const char *field, const char *what)
{
	if (cause != NULL)
		*cause = xasprintf("request: \"%s\": %s", field, what);
	return -EINVAL;
}

/* A required string member into *ret (malloc'd); null allowed if nullable. */
static int
request_get_string(const json_t *o, const char *field, bool nullable,
    char **ret, char **cause)
{
	json_t *v = json_object_get(o, field);

	if (v == NULL) {
		if (nullable) {
			*ret = NULL;
			return 0;
		}
		return request_bad(cause, field, "missing");
	}
	if (json_is_null(v) && nullable) {
		*ret = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return request_bad(cause, field, nullable ?
		    "not a string or null" : "not a string");
	*ret = xstrdup(json_string_value(v));
	return 0;
}

static int
request_get_int(const json_t *o, const char *field, json_int_t min,
    json_int_t max, json_int_t *ret, char **cause)
{
	json_t *v = json_object_get(o, field);

	if (v == NULL)
		return request_bad(cause, field, "missing");
	if (!json_is_integer(v))
		return request_bad(cause, field, "not an integer");
	*ret = json_integer_value(v);
	if (*ret < min || *ret > max)
		return request_bad(cause, field, "out of range");
	return 0;
}

static void
request_freep(struct request **rp)
{
	request_free(*rp);
}

int
request_from_json(const json_t *o, struct request **ret, char **cause)
{
	__attribute__((cleanup(request_freep))) struct request *r = NULL;
	cleanup_free char *kind = NULL;
	json_int_t id, pid, created, deadline;
	int e;

	if (!json_is_object(o)) {
		if (cause != NULL)
			*cause = xstrdup("request: not a JSON object");
		return -EINVAL;
	}
	r = request_new();
	if ((e = request_get_int(o, "id", 0, LLONG_MAX, &id, cause)) < 0 ||
	    (e = request_get_string(o, "run", false, &r->run, cause)) < 0 ||
	    (e = request_get_int(o, "pid", 0, INT_MAX, &pid, cause)) < 0 ||
	    (e = request_get_string(o, "kind", false, &kind, cause)) < 0)
		return e;
	if (request_kind_parse(kind, &r->kind) < 0)
		return request_bad(cause, "kind", "unknown kind");
	if ((e = request_get_string(o, "syscall", false, &r->syscall,
	    cause)) < 0 ||
	    (e = request_get_string(o, "subject", false, &r->subject,
	    cause)) < 0 ||
	    (e = request_get_string(o, "subject2", true, &r->subject2,
	    cause)) < 0 ||
	    (e = request_get_string(o, "detail", false, &r->detail,
	    cause)) < 0 ||
	    (e = request_get_string(o, "cmdline", false, &r->cmdline,
	    cause)) < 0 ||
	    (e = request_get_string(o, "cwd", false, &r->cwd, cause)) < 0 ||
	    (e = request_get_string(o, "why", false, &r->why, cause)) < 0 ||
	    (e = request_get_int(o, "created_ms", 0, LLONG_MAX, &created,
	    cause)) < 0 ||
	    (e = request_get_int(o, "deadline_ms", 0, LLONG_MAX, &deadline,
	    cause)) < 0 ||
	    (e = request_get_string(o, "rule", true, &r->rule, cause)) < 0)
		return e;
	r->id = (uint64_t)id;
	r->pid = (pid_t)pid;
	r->created_ms = created;
	r->deadline_ms = deadline;
	*ret = steal_ptr(&r);
	return 0;
}
