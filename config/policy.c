/* SPDX-License-Identifier: MIT */
/*
 * The policy file: the key table, and the parser that reads an ini file
 * through inih into struct policy, line by line, with messages that name
 * the file, the line, the section and the key. The values are parsed by
 * the setters the table names (policy-*.c, config/policy-int.h).
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>
#include <nettle/sha2.h>

#include "config/escape.h"
#include "config/util.h"

/* A policy is a page of text; anything much larger is a mistake. */
#define POLICY_MAX_SIZE		(1u << 20)

struct policy_parse {
	struct policy	*p;
	const char	*name;		/* the file, for messages */
	const char	*text;
	const char	*next;		/* where the reader goes on */
	unsigned	 lineno;	/* the line the reader handed out last */
	bool		 indented;	/* ... and whether it starts with a blank */
	const struct policy_key *prev;	/* the key above, for continuation lines */
	const struct policy_key *empty;	/* a list key left empty, waiting for */
	unsigned	 empty_line;	/*   indented lines to fill it */
	char		*empty_sect;	/*   in this section (as written, escaped) */
	unsigned	*set_on;	/* per key: line a scalar was set on, 0 = not yet */
	unsigned	*secret_line;	/* per [secret NAME]: its header's line */
	bool		 secret_open;	/* the last of them is being read */
	unsigned	 err_line;
	char		*cause;
};

/*
 * SHA-256 of the bytes parsed, as 64 hex digits (nettle): the record names
 * the policy a run had, and `sha256sum FILE` finds which file that was.
 */
char *
policy_hash(const char *text, size_t len)
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	char *hex = xmalloc(2 * sizeof d + 1);

	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)text);
	sha256_digest(&ctx, sizeof d, d);
	hex_encode(d, sizeof d, hex);
	return hex;
}

const struct policy_key policy_keys[] = {
	{ "run", "timeout", false, policy_set_timeout, NULL },
	{ "run", "ask_timeout", false, policy_set_ask_timeout, NULL },
	{ "run", "memory", false, policy_set_memory, NULL },
	{ "run", "pids", false, policy_set_pids, NULL },
	{ "run", "cpu", false, policy_set_cpu, NULL },
	{ "run", "file_size", false, policy_set_file_size, NULL },
	{ "run", "open_files", false, policy_set_open_files, NULL },
	{ "run", "output_max", false, policy_set_output_max, NULL },
	{ "run", "env", true, policy_set_env, NULL },
	{ "record", "journal", false, policy_set_journal, NULL },
	{ "record", "syslog", false, policy_set_syslog, NULL },
	{ "files", "writable", true, policy_set_writable, NULL },
	{ "files", "hidden", true, policy_set_hidden, NULL },
	{ "files", "expose", true, policy_set_expose, NULL },
	{ "files", "allow", true, policy_set_allow, NULL },
	{ "files", "deny", true, policy_set_deny, NULL },
	{ "files", "write", false, policy_set_write, NULL },
	{ "files", "protect", true, policy_set_protect, NULL },
	{ "files", "project", true, policy_set_project, NULL },
	{ "network", "allow", true, policy_set_net_allow, NULL },
	{ "network", "never", true, policy_set_net_never, NULL },
	{ "network", "deny", true, policy_set_net_deny, NULL },
	{ "network", "connect", false, policy_set_connect, NULL },
	{ "network", "http", false, policy_set_http, NULL },
	{ "network", "upstream_ca", false, policy_set_upstream_ca, NULL },
	{ "review", "max_apply", false, policy_set_max_apply, NULL },
	{ "packages", "install", false, policy_set_install, NULL },
	{ "packages", "allow", true, policy_set_pkg_allow, NULL },
	{ "packages", "deny", true, policy_set_pkg_deny, NULL },
	{ "manager", "hosts", true, NULL, policy_set_mgr_hosts },
	{ "secret", "from", false, NULL, policy_set_secret_from },
	{ "secret", "hosts", true, NULL, policy_set_secret_hosts },
	{ "secret", "header", false, NULL, policy_set_secret_header },
	{ "secret", "fields", true, NULL, policy_set_secret_fields },
	{ "secret", "refresh", false, NULL, policy_set_secret_refresh },
	{ "console", "prefix", false, policy_set_console_prefix, NULL },
	{ "console", "notify_cmd", false, policy_set_console_notify_cmd, NULL },
	{ "console", "notify_after", false, policy_set_console_notify_after,
	    NULL },
};
const size_t policy_n_keys = ARRAY_SIZE(policy_keys);

void
policy_init(struct policy *p)
{
	*p = (struct policy){
		.timeout = 3600,
		.ask_timeout = 120,
		.memory = 0,
		.pids = 512,
		.output_max = 64ULL << 20,
		.journal = POLICY_JOURNAL_AUTO,
		.write = POLICY_ASK,
		.connect = POLICY_ASK,
		.http = POLICY_ASK,
		.install = POLICY_ASK,
		.max_apply = POLICY_MAX_APPLY,
	};
}

void
policy_done(struct policy *p)
{
	free(p->path);
	free(p->text);
	free(p->hash);
	strv_free(p->writable);
	strv_free(p->hidden);
	strv_free(p->expose);
	strv_free(p->project);
	strv_free(p->env);
	strv_free(p->allow);
	strv_free(p->deny);
	strv_free(p->protect);
	for (size_t i = 0; i < p->n_net_allow; i++) {
		free(p->net_allow[i].host);
		free(p->net_allow[i].reason);
		free(p->net_allow[i].method);
		free(p->net_allow[i].path);
	}
	free(p->net_allow);
	for (size_t i = 0; i < p->n_net_deny; i++) {
		free(p->net_deny[i].host);
		free(p->net_deny[i].reason);
	}
	free(p->net_deny);
	free(p->upstream_ca);
	for (size_t i = 0; i < p->n_secrets; i++) {
		struct policy_secret *sc = &p->secrets[i];

		free(sc->name);
		free(sc->from);
		for (size_t j = 0; j < sc->n_hosts; j++)
			free(sc->hosts[j].host);
		free(sc->hosts);
		free(sc->header);
		free(sc->header_value);
		free(sc->file);
		for (size_t j = 0; j < sc->n_fields; j++) {
			free(sc->fields[j].path);
			free(sc->fields[j].reply);
		}
		free(sc->fields);
		free(sc->refresh.host);
		free(sc->refresh_path);
	}
	free(p->secrets);
	for (size_t i = 0; i < p->n_net_never; i++)
		free(p->net_never[i].host);
	free(p->net_never);
	strv_free(p->pkg_allow);
	strv_free(p->pkg_deny);
	for (size_t i = 0; i < p->n_managers; i++) {
		for (size_t j = 0; j < p->managers[i].n_hosts; j++)
			free(p->managers[i].hosts[j].host);
		free(p->managers[i].hosts);
		free(p->managers[i].name);
	}
	free(p->managers);
	free(p->console_prefix);
	policy_init(p);
}

static bool
policy_section_known(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++) {
		if (strlen(policy_keys[i].section) == len &&
		    strncmp(policy_keys[i].section, s, len) == 0)
			return true;
	}
	return false;
}

static char *
policy_keys_of(const char *section)
{
	char *list = xstrdup("");

	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++) {
		char *old = list;

		if (strcmp(policy_keys[i].section, section) != 0)
			continue;
		list = xasprintf("%s%s%s", old, *old ? ", " : "", policy_keys[i].name);
		free(old);
	}
	return list;
}

/*
 * Every section the table knows, in its order: "run, record, ...,
 * manager NAME, secret NAME, console", or to start a file with, "[run],
 * [record], ... or [console]". Messages take their lists of sections
 * from here alone, so that none is left out when a section is added.
 */
static char *
policy_sections(bool brackets)
{
	char **names = NULL;
	size_t n = 0;
	char *list = xstrdup("");

	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++) {
		const struct policy_key *k = &policy_keys[i];
		size_t j;

		for (j = 0; j < i; j++)
			if (strcmp(policy_keys[j].section, k->section) == 0)
				break;
		if (j < i)
			continue;
		strv_push(&names, &n, xasprintf(brackets ? "[%s%s]" : "%s%s",
		    k->section, k->set_arg != NULL ? " NAME" : ""));
	}
	for (size_t i = 0; i < n; i++) {
		char *old = list;

		list = xasprintf("%s%s%s", old, i == 0 ? "" :
		    brackets && i == n - 1 ? " or " : ", ", names[i]);
		free(old);
	}
	strv_free(names);
	return list;
}

__attribute__((format(printf, 3, 4)))
static void
policy_fail(struct policy_parse *st, unsigned line, const char *fmt, ...)
{
	cleanup_free char *msg = NULL;
	va_list ap;

	if (st->cause != NULL)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	st->cause = xasprintf("%s:%u: %s", st->name, line, msg);
	st->err_line = line;
}

/*
 * The [secret NAME] read last is complete: from, hosts and header (at
 * its end: the next section header, or the end of the file). False
 * when not (the cause names the section's line and the key).
 */
static bool
policy_secret_end(struct policy_parse *st)
{
	const struct policy_secret *sc;
	unsigned line;
	const char *missing;

	if (!st->secret_open || st->cause != NULL)
		return st->cause == NULL;
	st->secret_open = false;
	sc = &st->p->secrets[st->p->n_secrets - 1];
	line = st->secret_line[st->p->n_secrets - 1];
	if (st->empty != NULL) {
		policy_fail(st, st->empty_line, "[%s] %s: empty value",
		    st->empty_sect, st->empty->name);
		return false;
	}
	if ((missing = policy_secret_missing(sc)) != NULL) {
		policy_fail(st, line, "[secret %s] %s", sc->name, missing);
		return false;
	}
	return true;
}

/*
 * A section header at s (len bytes): 1 when it is a [secret NAME], then
 * the secret begins (its scalars not set yet), 0 when it is another
 * section, -EINVAL when NAME is no variable name or a second time.
 */
static int
policy_secret_begin(struct policy_parse *st, const char *s, size_t len)
{
	cleanup_free char *name = NULL, *why = NULL;
	struct policy *p = st->p;
	int m;

	if ((m = policy_secret_section(s, len, &name, &why)) <= 0) {
		if (m < 0)
			policy_fail(st, st->lineno, "%s", why);
		return m;
	}
	for (size_t i = 0; i < p->n_secrets; i++)
		if (strcmp(p->secrets[i].name, name) == 0) {
			policy_fail(st, st->lineno, "[secret %s]: a second "
			    "section for %s (the first is on line %u)", name,
			    name, st->secret_line[i]);
			return -EINVAL;
		}
	p->secrets = xreallocarray(p->secrets, p->n_secrets + 1,
	    sizeof *p->secrets);
	st->secret_line = xreallocarray(st->secret_line, p->n_secrets + 1,
	    sizeof *st->secret_line);
	st->secret_line[p->n_secrets] = st->lineno;
	p->secrets[p->n_secrets++] = (struct policy_secret){
		.name = steal_ptr(&name),
	};
	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++)
		if (strcmp(policy_keys[i].section, "secret") == 0)
			st->set_on[i] = 0;
	st->secret_open = true;
	return 1;
}

/* A [secret]'s NAME is not also passed in from the host by [run] env
 * (policy_secret_in_env). */
static void
policy_secret_not_env(struct policy_parse *st)
{
	const struct policy_secret *sc = policy_secret_in_env(st->p);

	if (sc != NULL)
		policy_fail(st, st->secret_line[sc - st->p->secrets], "[secret "
		    "%s]: %s is a [secret]: the sandbox gets a phantom; drop "
		    "it from [run] env", sc->name, sc->name);
}

/*
 * The reader inih calls for each line, like fgets. Debian's libinih is
 * built without INI_HANDLER_LINENO, so counting lines here is how a message
 * can name the line of each handler call (inih handles one line per read).
 * It also refuses lines that do not fit inih's fixed buffer: inih would
 * silently cut them and parse the rest as a line of its own.
 */
static char *
policy_on_read(char *buf, int size, void *stream)
{
	struct policy_parse *st = stream;
	const char *s = st->next, *nl;
	size_t len;

	if (st->cause != NULL || *s == '\0')
		return NULL;
	nl = strchr(s, '\n');
	len = nl != NULL ? (size_t)(nl - s) + 1 : strlen(s);
	st->lineno++;
	if (len > (size_t)size - 1) {
		policy_fail(st, st->lineno, "line too long (over %d bytes): split "
		    "a list over indented lines", size - 2);
		return NULL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	st->next = s + len;
	st->indented = *s == ' ' || *s == '\t';
	s += strspn(s, " \t");
	/* A section header, unless inih takes it as a continuation line.
	 * Headers of empty sections never reach the handler: check here. */
	if (*s == '[' && (!st->indented || st->prev == NULL)) {
		size_t n = strcspn(s + 1, "]\n");
		cleanup_free char *why = NULL;
		const char *canon;
		int m;

		st->prev = NULL;
		if (s[1 + n] != ']')
			return buf;
		if (!policy_secret_end(st))
			return NULL;
		if ((m = policy_manager_section(s + 1, n, &canon, &why)) < 0) {
			policy_fail(st, st->lineno, "%s", why);
			return NULL;
		}
		if (m == 0 && (m = policy_secret_begin(st, s + 1, n)) < 0)
			return NULL;
		if (m == 0 && !policy_section_known(s + 1, n)) {
			cleanup_free char *sec = xstrndup(s + 1, n);
			cleanup_free char *q = escape_str(sec);
			cleanup_free char *all = policy_sections(false);

			policy_fail(st, st->lineno, "unknown section [%s] "
			    "(sections: %s)", q, all);
			return NULL;
		}
	}
	return buf;
}

static int policy_list_items(struct policy_parse *, const struct policy_key *,
    const char *, const char *, unsigned, bool, const char *);

static int
policy_on_key(void *user, const char *section, const char *name,
    const char *value)
{
	struct policy_parse *st = user;
	const struct policy_key *k = NULL;
	cleanup_free char *why = NULL;
	cleanup_free char *comment_cut = NULL, *secret = NULL;
	cleanup_free char *qsec = escape_str(section);
	cleanup_free char *qname = escape_str(name);
	const char *tsec = section, *arg = NULL;
	unsigned line = st->lineno;
	size_t idx;
	bool cont;

	if (st->cause != NULL)
		return 0;
	/* [manager pip] holds the keys of "manager"; the reader refused
	 * a header naming no known manager before any key got here. */
	if (policy_manager_section(section, strlen(section), &arg, &why) > 0)
		tsec = "manager";
	else if (st->secret_open) {
		/* The [secret NAME] the reader began: inih hands on its
		 * section cut to 49 bytes, a long NAME's head. */
		tsec = "secret";
		arg = st->p->secrets[st->p->n_secrets - 1].name;
		secret = xasprintf("secret %s", arg);
		free(qsec);
		qsec = escape_str(secret);
	}
	free(steal_ptr(&why));
	/* inih hands an indented line on as one more value of the key above. */
	cont = st->indented && st->prev != NULL &&
	    strcmp(st->prev->section, tsec) == 0 &&
	    strcmp(st->prev->name, name) == 0;
	if (st->empty != NULL) {
		if (!cont) {
			policy_fail(st, st->empty_line, "[%s] %s: empty value",
			    st->empty_sect, st->empty->name);
			return 0;
		}
		st->empty = NULL;
	}
	if (*section == '\0') {
		cleanup_free char *all = policy_sections(true);

		policy_fail(st, line, "%s: outside a section (start with %s)",
		    qname, all);
		return 0;
	}
	for (idx = 0; idx < ARRAY_SIZE(policy_keys); idx++) {
		if (strcmp(policy_keys[idx].section, tsec) == 0 &&
		    strcmp(policy_keys[idx].name, name) == 0) {
			k = &policy_keys[idx];
			break;
		}
	}
	if (k == NULL) {
		cleanup_free char *known = policy_keys_of(tsec);
		cleanup_free char *all = policy_sections(false);

		if (*known == '\0')
			policy_fail(st, line, "unknown section [%s] (sections: "
			    "%s)", qsec, all);
		else
			policy_fail(st, line, "[%s] unknown key \"%s\" (keys: %s)",
			    qsec, qname, known);
		return 0;
	}
	st->prev = k;

	if (!k->list) {
		if (cont) {
			policy_fail(st, line, "[%s] %s: takes one value (an indented "
			    "line continues the key above)", qsec, k->name);
			return 0;
		}
		if (*value == '\0') {
			policy_fail(st, line, "[%s] %s: empty value", qsec, k->name);
			return 0;
		}
		if (st->set_on[idx] != 0) {
			policy_fail(st, line, "[%s] %s: set twice (first on line %u)",
			    qsec, k->name, st->set_on[idx]);
			return 0;
		}
		st->set_on[idx] = line;
		if ((k->set_arg != NULL ? k->set_arg(st->p, arg, value, &why) :
		    k->set(st->p, value, &why)) < 0) {
			policy_fail(st, line, "[%s] %s: %s", qsec, k->name, why);
			return 0;
		}
		return 1;
	}

	if (*value == '\0') {
		/* "hidden =" then the items on indented lines below. */
		st->empty = k;
		st->empty_line = line;
		free(st->empty_sect);
		st->empty_sect = steal_ptr(&qsec);
		return 1;
	}
	/* inih 55 strips " ; comment" from key lines but not from indented
	 * ones; strip it here so that both read alike. */
	for (const char *c = value + 1; *c != '\0'; c++) {
		if (*c == ';' && (c[-1] == ' ' || c[-1] == '\t')) {
			value = comment_cut = xstrndup(value, (size_t)(c - value));
			break;
		}
	}
	/* [network] allow and deny: "(a reason)" at the end of a line goes
	 * with every host on it, shown wherever the entry is named. */
	if (k->set == policy_set_net_allow || k->set == policy_set_net_deny) {
		const char *open = strchr(value, '('), *close = strrchr(value, ')');
		bool deny = k->set == policy_set_net_deny;
		size_t *count = deny ? &st->p->n_net_deny : &st->p->n_net_allow;
		size_t before = *count;
		cleanup_free char *items = NULL, *reason = NULL;
		int r;

		if (open != NULL) {
			const char *rest = close != NULL ? close + 1 : NULL;

			if (close == NULL || close < open ||
			    rest[strspn(rest, " \t")] != '\0' || close == open + 1) {
				policy_fail(st, line, "[%s] %s: a reason is written "
				    "last on the line, in parentheses: (why)", qsec,
				    k->name);
				return 0;
			}
			items = xstrndup(value, (size_t)(open - value));
			reason = xstrndup(open + 1, (size_t)(close - open - 1));
			if ((r = policy_list_items(st, k, arg, items, line, cont,
			    qsec)) == 0)
				return 0;
			if (*count == before) {
				policy_fail(st, line, "[%s] %s: a reason with no "
				    "host before it", qsec, k->name);
				return 0;
			}
			for (size_t i = before; i < *count; i++)
				(deny ? st->p->net_deny : st->p->net_allow)[i].
				    reason = xstrdup(reason);
			return 1;
		}
	}
	return policy_list_items(st, k, arg, value, line, cont, qsec);
}

static int
policy_list_items(struct policy_parse *st, const struct policy_key *k,
    const char *arg, const char *value, unsigned line, bool cont,
    const char *qsec)
{
	cleanup_free char *why = NULL;

	if (k->set == policy_set_net_allow) {
		if (policy_net_allow_line(st->p, value, &why) < 0) {
			policy_fail(st, line, "[%s] %s: %s%s", qsec, k->name,
			    why, cont ? "; an indented line continues the key "
			    "above" : "");
			return 0;
		}
		return 1;
	}
	for (const char *c = value; *c != '\0';) {
		cleanup_free char *item = NULL;
		size_t len;
		int r;

		c += strspn(c, " \t");
		if ((len = strcspn(c, " \t")) == 0)
			break;
		item = xstrndup(c, len);
		c += len;
		r = k->set_arg != NULL ? k->set_arg(st->p, arg, item, &why) :
		    k->set(st->p, item, &why);
		if (r < 0) {
			policy_fail(st, line, "[%s] %s: %s%s", qsec, k->name,
			    why, cont ? "; an indented line continues the key "
			    "above" : "");
			return 0;
		}
	}
	return 1;
}

static void
policy_syntax_error(struct policy_parse *st, unsigned line)
{
	const char *s = st->text;
	cleanup_free char *text = NULL;
	cleanup_free char *q = NULL;

	for (unsigned i = 1; i < line && s != NULL; i++) {
		if ((s = strchr(s, '\n')) != NULL)
			s++;
	}
	if (s == NULL)
		s = "";
	text = xstrndup(s, strcspn(s, "\r\n"));
	q = policy_quote(text);
	free(st->cause);
	st->cause = NULL;
	policy_fail(st, line, "cannot read %s (expected [section], key = value, "
	    "or a # comment)", q);
}

static int
policy_parse_text(struct policy *p, const char *text, const char *name,
    char **cause)
{
	unsigned set_on[ARRAY_SIZE(policy_keys)] = { 0 };
	struct policy_parse st = {
		.p = p,
		.name = name,
		.text = text,
		.next = text,
		.set_on = set_on,
	};
	int r;

	r = ini_parse_stream(policy_on_read, &st, policy_on_key, &st);
	if (r < 0) {
		free(st.cause);
		free(st.empty_sect);
		free(st.secret_line);
		return -ENOMEM;
	}
	/* inih reports the first line it could not parse, or the first our
	 * handler refused; a syntax error above ours comes first. */
	if (r > 0 && (st.cause == NULL || (unsigned)r < st.err_line))
		policy_syntax_error(&st, (unsigned)r);
	if (st.cause == NULL)
		(void)policy_secret_end(&st);
	if (st.cause == NULL && st.empty != NULL)
		policy_fail(&st, st.empty_line, "[%s] %s: empty value",
		    st.empty_sect, st.empty->name);
	if (st.cause == NULL)
		policy_secret_not_env(&st);
	free(st.empty_sect);
	free(st.secret_line);
	if (st.cause != NULL) {
		if (cause != NULL)
			*cause = st.cause;
		else
			free(st.cause);
		return -EINVAL;
	}
	return 0;
}

int
policy_load_string(struct policy *p, const char *text, const char *name,
    char **cause)
{
	int r;

	policy_init(p);
	if (name == NULL)
		name = "<string>";
	p->path = xstrdup(name);
	if ((r = policy_parse_text(p, text, name, cause)) < 0) {
		/* Leave the defaults, not half a policy. */
		policy_done(p);
		return r;
	}
	/* What was parsed is what the record hashes and the run keeps: the
	 * file is read once, and a change to it meanwhile cannot split them. */
	p->text_len = strlen(text);
	p->text = xstrdup(text);
	p->hash = policy_hash(p->text, p->text_len);
	return 0;
}

int
policy_load(struct policy *p, const char *path, char **cause)
{
	cleanup_free char *text = NULL;
	const char *nul;
	size_t len = 0;
	int r;

	policy_init(p);
	if ((r = read_file_max(path, POLICY_MAX_SIZE, &text, &len, NULL)) < 0) {
		if (cause != NULL)
			*cause = xasprintf("%s: cannot read: %s", path,
			    r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
		return r;
	}
	if ((nul = memchr(text, '\0', len)) != NULL) {
		unsigned line = 1;

		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		if (cause != NULL)
			*cause = xasprintf("%s:%u: a NUL byte: not a text file",
			    path, line);
		return -EINVAL;
	}
	return policy_load_string(p, text, path, cause);
}
