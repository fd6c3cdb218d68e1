/* SPDX-License-Identifier: MIT */
/*
 * config/policy*.c: the tables tests/data/policy-good.tsv (ini text, then
 * field=value checks) and tests/data/policy-bad.tsv (ini text, then a part
 * of the message), then the cases a table cannot hold.
 *
 * In the tables, \n \t \\ and \xNN stand for those bytes, a row's two
 * columns are separated by a tab, and # starts a comment line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/policy.h"
#include "config/policy-int.h"
#include "config/util.h"

#define GOOD_TSV	"tests/data/policy-good.tsv"
#define BAD_TSV		"tests/data/policy-bad.tsv"

struct row {
	unsigned	 line;		/* in the .tsv */
	char		*ini;
	char		*expect;
};

static char *
unescape(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	while (*s != '\0') {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n':
			*o++ = '\n';
			s++;
			break;
		case 't':
			*o++ = '\t';
			s++;
			break;
		case 'r':
			*o++ = '\r';
			s++;
			break;
		case '\\':
			*o++ = '\\';
			s++;
			break;
		case 'x': {
			char hex[3] = { s[1], s[1] ? s[2] : '\0', '\0' };

			*o++ = (char)strtoul(hex, NULL, 16);
			s += 3;
			break;
		}
		default:
			fail_msg("bad escape \\%c in a table", *s);
		}
	}
	*o = '\0';
	return out;
}

static struct row *
rows_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "re");
	struct row *rows = NULL;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;

	if (f == NULL)
		fail_msg("%s: %s (run the tests from the repository root)", path,
		    strerror(errno));
	*n = 0;
	while (getline(&line, &cap, f) > 0) {
		char *tab;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if ((tab = strchr(line, '\t')) == NULL)
			fail_msg("%s:%u: no tab", path, lineno);
		*tab = '\0';
		rows = xreallocarray(rows, *n + 1, sizeof *rows);
		rows[*n].line = lineno;
		rows[*n].ini = unescape(line);
		rows[*n].expect = xstrdup(tab + 1);
		(*n)++;
	}
	free(line);
	fclose(f);
	return rows;
}

static void
rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].ini);
		free(rows[i].expect);
	}
	free(rows);
}

static char *
join(char **v, size_t n)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *old = s;

		s = xasprintf("%s%s%s", old, i ? "," : "", v[i]);
		free(old);
	}
	return s;
}

/* Blanks as '+': a check is one word. */
static char *
plus_blanks(char *s)
{
	for (char *c = s; *c != '\0'; c++)
		if (*c == ' ')
			*c = '+';
	return s;
}

/* The fields of issue 19: rules, reasons, http, upstream_ca, secrets;
 * NULL for another name. */
static char *
field_issue19(const struct policy *p, const char *name)
{
	if (strcmp(name, "rules") == 0) {
		/* host@port:METHOD:PATH of the allow entries with a rule */
		char *s = xstrdup("");

		for (size_t i = 0; i < p->n_net_allow; i++) {
			const struct policy_host *h = &p->net_allow[i];
			char *old = s;

			if (h->method == NULL && h->path == NULL)
				continue;
			s = xasprintf("%s%s%s@%u-%u:%s:%s", old, *old ? "," : "",
			    h->host, h->port_lo, h->port_hi,
			    h->method ? h->method : "(null)",
			    h->path ? h->path : "(null)");
			free(old);
		}
		return s;
	}
	if (strcmp(name, "reasons") == 0) {
		char *s = xstrdup("");

		for (size_t i = 0; i < p->n_net_allow; i++) {
			char *old = s;

			s = xasprintf("%s%s%s", old, i ? "," : "",
			    p->net_allow[i].reason ? p->net_allow[i].reason : "-");
			free(old);
		}
		return plus_blanks(s);
	}
	if (strcmp(name, "http") == 0)
		return xstrdup(policy_action_name(p->http));
	if (strcmp(name, "upstream_ca") == 0)
		return xstrdup(p->upstream_ca ? p->upstream_ca : "none");
	if (strcmp(name, "secrets") == 0) {
		/* NAME[from|host@lo-hi,...|header|value];... blanks as + */
		char *s = xstrdup("");

		for (size_t i = 0; i < p->n_secrets; i++) {
			const struct policy_secret *sc = &p->secrets[i];
			char *old = s;

			s = xasprintf("%s%s%s[%s|", old, i ? ";" : "", sc->name,
			    sc->from);
			free(old);
			for (size_t j = 0; j < sc->n_hosts; j++) {
				old = s;
				s = xasprintf("%s%s%s@%u-%u", old, j ? "," : "",
				    sc->hosts[j].host, sc->hosts[j].port_lo,
				    sc->hosts[j].port_hi);
				free(old);
			}
			old = s;
			s = xasprintf("%s|%s|%s", old, sc->header,
			    sc->header_value);
			free(old);
			/* a login file's: |field=reply,...|refresh host@port/path */
			for (size_t j = 0; j < sc->n_fields; j++) {
				old = s;
				s = xasprintf("%s%s%s=%s", old, j ? "," : "|",
				    sc->fields[j].path, sc->fields[j].reply ?
				    sc->fields[j].reply : "-");
				free(old);
			}
			if (sc->refresh.host != NULL) {
				old = s;
				s = xasprintf("%s|%s@%u%s", old, sc->refresh.host,
				    sc->refresh.port_lo, sc->refresh_path);
				free(old);
			}
			old = s;
			s = xasprintf("%s]", old);
			free(old);
		}
		return plus_blanks(s);
	}
	return NULL;
}

/* One field of a policy as the tables spell it. */
static char *
field(const struct policy *p, const char *name)
{
	char *got;

	if (strcmp(name, "timeout") == 0)
		return xasprintf("%u", p->timeout);
	if (strcmp(name, "ask_timeout") == 0)
		return xasprintf("%u", p->ask_timeout);
	if (strcmp(name, "memory") == 0)
		return xasprintf("%" PRIu64, p->memory);
	if (strcmp(name, "pids") == 0)
		return xasprintf("%u", p->pids);
	if (strcmp(name, "cpu") == 0)
		return xasprintf("%u", p->cpu);
	if (strcmp(name, "file_size") == 0)
		return xasprintf("%" PRIu64, p->file_size);
	if (strcmp(name, "max_apply") == 0)
		return xasprintf("%" PRIu64, p->max_apply);
	if (strcmp(name, "output_max") == 0)
		return xasprintf("%" PRIu64, p->output_max);
	if (strcmp(name, "open_files") == 0)
		return xasprintf("%u", p->open_files);
	if (strcmp(name, "journal") == 0)
		return xstrdup(p->journal == POLICY_JOURNAL_AUTO ? "auto" :
		    p->journal == POLICY_JOURNAL_ON ? "yes" : "no");
	if (strcmp(name, "syslog") == 0)
		return xstrdup(p->syslog ? "yes" : "no");
	if (strcmp(name, "env") == 0)
		return join(p->env, p->n_env);
	if (strcmp(name, "prefix") == 0)
		return xstrdup(p->console_prefix != NULL ? p->console_prefix :
		    "none");
	if (strcmp(name, "write") == 0)
		return xstrdup(policy_action_name(p->write));
	if (strcmp(name, "connect") == 0)
		return xstrdup(policy_action_name(p->connect));
	if (strcmp(name, "install") == 0)
		return xstrdup(policy_action_name(p->install));
	if (strcmp(name, "writable") == 0)
		return join(p->writable, p->n_writable);
	if (strcmp(name, "hidden") == 0)
		return join(p->hidden, p->n_hidden);
	if (strcmp(name, "expose") == 0)
		return join(p->expose, p->n_expose);
	if (strcmp(name, "project") == 0)
		return join(p->project, p->n_project);
	if (strcmp(name, "allow") == 0)
		return join(p->allow, p->n_allow);
	if (strcmp(name, "deny") == 0)
		return join(p->deny, p->n_deny);
	if (strcmp(name, "protect") == 0)
		return join(p->protect, p->n_protect);
	if (strcmp(name, "never") == 0) {
		char *s = xstrdup(p->never_set ? "set:" : "default:");

		for (size_t i = 0; i < p->n_net_never; i++) {
			char *old = s;

			s = xasprintf("%s%s%s@%u-%u", old, i ? "," : "",
			    p->net_never[i].host, p->net_never[i].port_lo,
			    p->net_never[i].port_hi);
			free(old);
		}
		return s;
	}
	if (strcmp(name, "pkg_allow") == 0)
		return join(p->pkg_allow, p->n_pkg_allow);
	if (strcmp(name, "pkg_deny") == 0)
		return join(p->pkg_deny, p->n_pkg_deny);
	if (strcmp(name, "managers") == 0) {
		/* pip[pypi.org@443-443,...];npm[] */
		char *s = xstrdup("");

		for (size_t i = 0; i < p->n_managers; i++) {
			const struct policy_manager *m = &p->managers[i];
			char *old = s;

			s = xasprintf("%s%s%s[", old, i ? ";" : "", m->name);
			free(old);
			for (size_t j = 0; j < m->n_hosts; j++) {
				old = s;
				s = xasprintf("%s%s%s@%u-%u", old, j ? "," : "",
				    m->hosts[j].host, m->hosts[j].port_lo,
				    m->hosts[j].port_hi);
				free(old);
			}
			old = s;
			s = xasprintf("%s]", old);
			free(old);
		}
		return s;
	}
	if (strcmp(name, "net") == 0) {
		char *s = xstrdup("");

		for (size_t i = 0; i < p->n_net_allow; i++) {
			char *old = s;

			s = xasprintf("%s%s%s@%u-%u", old, i ? "," : "",
			    p->net_allow[i].host, p->net_allow[i].port_lo,
			    p->net_allow[i].port_hi);
			free(old);
		}
		return s;
	}
	if ((got = field_issue19(p, name)) != NULL)
		return got;
	fail_msg("unknown field %s in " GOOD_TSV, name);
	return NULL;
}

static void
test_good_table(void **state)
{
	size_t n;
	struct row *rows = rows_read(GOOD_TSV, &n);
	unsigned failed = 0;

	(void)state;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		struct policy p;
		char *cause = NULL;
		char *checks = xstrdup(rows[i].expect), *save = NULL;
		int r = policy_load_string(&p, rows[i].ini, "policy.ini", &cause);

		if (r != 0) {
			print_error(GOOD_TSV ":%u: %d %s\n", rows[i].line, r, cause);
			failed++;
			free(cause);
		}
		for (char *c = strtok_r(checks, " ", &save); c != NULL;
		    c = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(c, '='), *got;

			if (eq == NULL)
				fail_msg(GOOD_TSV ":%u: check %s has no =",
				    rows[i].line, c);
			if (r != 0)
				break;
			*eq = '\0';
			got = field(&p, c);
			if (strcmp(got, eq + 1) != 0) {
				print_error(GOOD_TSV ":%u: %s is \"%s\", want \"%s\"\n",
				    rows[i].line, c, got, eq + 1);
				failed++;
			}
			free(got);
		}
		free(checks);
		policy_done(&p);
	}
	rows_free(rows, n);
	assert_int_equal(failed, 0);
}

static void
test_bad_table(void **state)
{
	size_t n;
	struct row *rows = rows_read(BAD_TSV, &n);
	unsigned failed = 0;

	(void)state;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		struct policy p;
		char *cause = NULL;
		int r = policy_load_string(&p, rows[i].ini, "policy.ini", &cause);

		if (r != -EINVAL || cause == NULL ||
		    strstr(cause, rows[i].expect) == NULL) {
			print_error(BAD_TSV ":%u: %d \"%s\", want -EINVAL "
			    "\"%s\"\n", rows[i].line, r,
			    cause ? cause : "(none)", rows[i].expect);
			failed++;
		} else {
			/* Every message names the file and a line. */
			assert_true(strncmp(cause, "policy.ini:", 11) == 0);
			assert_true(cause[11] >= '1' && cause[11] <= '9');
		}
		/* On error the policy holds the defaults, safe to reuse. */
		assert_null(p.path);
		assert_int_equal(p.n_writable + p.n_hidden + p.n_expose +
		    p.n_allow + p.n_deny + p.n_net_allow + p.n_pkg_allow + p.n_pkg_deny +
		    p.n_managers, 0);
		assert_int_equal(p.n_secrets, 0);
		assert_null(p.secrets);
		assert_null(p.upstream_ca);
		assert_int_equal(p.http, POLICY_ASK);
		assert_int_equal(p.timeout, 3600);
		policy_done(&p);
		policy_done(&p);
		free(cause);
	}
	rows_free(rows, n);
	assert_int_equal(failed, 0);
}

static void
test_defaults(void **state)
{
	struct policy p;

	(void)state;
	policy_init(&p);
	assert_int_equal(p.timeout, 3600);
	assert_int_equal(p.ask_timeout, 120);
	assert_int_equal(p.memory, 0);
	assert_int_equal(p.pids, 512);
	assert_int_equal(p.write, POLICY_ASK);
	assert_int_equal(p.connect, POLICY_ASK);
	assert_int_equal(p.install, POLICY_ASK);
	assert_null(p.path);
	assert_null(p.writable);
	assert_null(p.net_allow);
	policy_done(&p);
}

static void
test_lists_accumulate(void **state)
{
	struct policy p;
	char *cause = NULL;
	const char *ini =
	    "[files]\n"
	    "writable = /srv/a /srv/b\n"
	    "hidden =\n"
	    "    /etc/ssh\n"
	    "# a comment inside the list\n"
	    "\t/var/lib//secrets/\n"
	    "writable = /srv/c\n"
	    "[network]\n"
	    "allow = pypi.org:443 [::1]:8000-8100\n"
	    "allow = 10.0.0.0/8\n";

	(void)state;
	assert_int_equal(policy_load_string(&p, ini, NULL, &cause), 0);
	assert_string_equal(p.path, "<string>");
	assert_int_equal(p.n_writable, 3);
	assert_string_equal(p.writable[0], "/srv/a");
	assert_string_equal(p.writable[1], "/srv/b");
	assert_string_equal(p.writable[2], "/srv/c");
	assert_null(p.writable[3]);
	assert_int_equal(p.n_hidden, 2);
	assert_string_equal(p.hidden[0], "/etc/ssh");
	assert_string_equal(p.hidden[1], "/var/lib/secrets");
	assert_null(p.hidden[2]);
	assert_int_equal(p.n_allow, 0);
	assert_int_equal(p.n_net_allow, 3);
	assert_string_equal(p.net_allow[0].host, "pypi.org");
	assert_int_equal(p.net_allow[0].port_lo, 443);
	assert_int_equal(p.net_allow[0].port_hi, 443);
	assert_string_equal(p.net_allow[1].host, "::1");
	assert_int_equal(p.net_allow[1].port_lo, 8000);
	assert_int_equal(p.net_allow[1].port_hi, 8100);
	assert_string_equal(p.net_allow[2].host, "10.0.0.0/8");
	assert_int_equal(p.net_allow[2].port_lo, 0);
	assert_int_equal(p.net_allow[2].port_hi, 65535);
	policy_done(&p);
	assert_null(p.writable);
	assert_int_equal(p.n_net_allow, 0);
}

static void
test_share_ward_ini(void **state)
{
	struct policy p;
	char *cause = NULL;
	int r;

	(void)state;
	r = policy_load(&p, "share/ward.ini", &cause);
	if (r != 0)
		fail_msg("share/ward.ini: %s", cause);
	assert_string_equal(p.path, "share/ward.ini");
	assert_int_equal(p.timeout, 3600);
	assert_int_equal(p.ask_timeout, 120);
	assert_true(p.memory == 2ULL << 30);
	assert_int_equal(p.pids, 512);
	assert_int_equal(p.write, POLICY_ASK);
	assert_int_equal(p.connect, POLICY_ASK);
	assert_int_equal(p.install, POLICY_ASK);
	assert_int_equal(p.n_writable, 0);
	assert_int_equal(p.n_allow, 0);
	assert_int_equal(p.n_net_allow, 0);
	assert_int_equal(p.n_pkg_allow + p.n_pkg_deny + p.n_managers, 0);
	assert_true(p.n_deny > 0);
	for (size_t i = 0; i < p.n_deny; i++)
		assert_true(p.deny[i][0] == '/');
	/* It keeps the bytes it parsed, and their hash, for the record. */
	{
		FILE *f = fopen("share/ward.ini", "r");
		char *want = xcalloc(1, p.text_len + 2), *h;
		size_t n;

		assert_non_null(f);
		n = fread(want, 1, p.text_len + 1, f);
		fclose(f);
		assert_int_equal(n, p.text_len);
		assert_memory_equal(p.text, want, n);
		h = policy_hash(want, n);
		assert_string_equal(p.hash, h);
		free(h);
		free(want);
	}
	policy_done(&p);
	assert_null(p.text);
	assert_null(p.hash);
}

/* The container policy `ward oci serve` falls back on: a container
 * lives as long as its runtime keeps it (no timeout), its scratch and
 * run folders writable, everything else asked. */
static void
test_share_oci_ini(void **state)
{
	static const char *const writable[] = { "/tmp", "/var/tmp", "/run" };
	struct policy p;
	char *cause = NULL;

	(void)state;
	if (policy_load(&p, "share/oci.ini", &cause) != 0)
		fail_msg("share/oci.ini: %s", cause);
	assert_int_equal(p.timeout, 0);
	assert_int_equal(p.ask_timeout, 120);
	assert_int_equal(p.write, POLICY_ASK);
	assert_int_equal(p.connect, POLICY_ASK);
	assert_int_equal(p.install, POLICY_ASK);
	assert_int_equal(p.n_writable, ARRAY_SIZE(writable));
	for (size_t i = 0; i < ARRAY_SIZE(writable); i++)
		assert_string_equal(p.writable[i], writable[i]);
	assert_int_equal(p.n_allow + p.n_deny + p.n_net_allow, 0);
	policy_done(&p);
}

static void
test_missing_file(void **state)
{
	struct policy p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(policy_load(&p, "nosuch.ini", &cause), -ENOENT);
	assert_string_equal(cause, "nosuch.ini: cannot read: No such file or directory");
	policy_done(&p);
	free(cause);

	cause = NULL;
	assert_int_equal(policy_load(&p, "tests", &cause), -EISDIR);
	assert_non_null(strstr(cause, "tests: cannot read: "));
	policy_done(&p);
	free(cause);
}

static char *
write_temp(const void *text, size_t len)
{
	char *path = xstrdup("/tmp/test-policy.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, len), 0);
	close(fd);
	return path;
}

static void
test_file_messages(void **state)
{
	static const char text[] = "[run]\n\npids = lots\n";
	static const char nul[] = "[run]\npids = 1\0\n";
	struct policy p;
	char *cause = NULL, *want;
	char *path = write_temp(text, sizeof text - 1);

	(void)state;
	assert_int_equal(policy_load(&p, path, &cause), -EINVAL);
	want = xasprintf("%s:3: [run] pids: \"lots\" is not a number", path);
	assert_non_null(strstr(cause, want));
	free(want);
	free(cause);
	policy_done(&p);
	unlink(path);
	free(path);

	/* A NUL would end the text early for inih: refuse the file. */
	cause = NULL;
	path = write_temp(nul, sizeof nul - 1);
	assert_int_equal(policy_load(&p, path, &cause), -EINVAL);
	want = xasprintf("%s:2: a NUL byte", path);
	assert_non_null(strstr(cause, want));
	free(want);
	free(cause);
	policy_done(&p);
	unlink(path);
	free(path);

	/* cause may be NULL. */
	assert_int_equal(policy_load_string(&p, "[x]\n", "x.ini", NULL), -EINVAL);
	policy_done(&p);
}

/* inih reads lines into a fixed buffer of 200 bytes and would cut a longer
 * line in two; the parser refuses it instead, naming the line. */
static void
test_long_line(void **state)
{
	struct policy p;
	char *cause = NULL;
	char name[200];
	char *ini;

	(void)state;
	/* "deny = /aaa...": exactly 198 bytes before the newline is fine. */
	name[0] = '/';
	memset(name + 1, 'a', 190);
	name[191] = '\0';
	ini = xasprintf("[files]\ndeny = %s\n", name);
	assert_int_equal(strlen(ini), strlen("[files]\n") + 198 + 1);
	assert_int_equal(policy_load_string(&p, ini, "policy.ini", &cause), 0);
	assert_int_equal(p.n_deny, 1);
	assert_string_equal(p.deny[0], name);
	policy_done(&p);
	free(ini);

	ini = xasprintf("[files]\ndeny = %sa\nwrite = deny\n", name);
	assert_int_equal(policy_load_string(&p, ini, "policy.ini", &cause), -EINVAL);
	assert_non_null(strstr(cause, "policy.ini:2: line too long"));
	policy_done(&p);
	free(cause);
	free(ini);
}

/*
 * Messages take their lists of sections from the key table (issue 32: the
 * list written out by hand had lost [record] and [console]): an unknown
 * section's message names every section the table knows, a key before
 * any section is told every section it may start with. A bad key still
 * names the file, the line and the keys its section has.
 */
static void
test_section_lists(void **state)
{
	static const char unknown[] = "policy.ini:2: unknown section [nosuch] "
	    "(sections: ";
	struct policy p;
	char *cause = NULL, *list, *want, *path;
	size_t n;

	(void)state;
	assert_int_equal(policy_load_string(&p, "[run]\n[nosuch]\n",
	    "policy.ini", &cause), -EINVAL);
	assert_int_equal(strncmp(cause, unknown, sizeof unknown - 1), 0);
	n = strlen(cause) - (sizeof unknown - 1);
	assert_true(n > 0 && cause[strlen(cause) - 1] == ')');
	/* ", run, record, ..., console, ": each name between ", " and ", ". */
	list = xasprintf(", %.*s, ", (int)n - 1, cause + sizeof unknown - 1);
	for (size_t i = 0; i < policy_n_keys; i++) {
		const struct policy_key *k = &policy_keys[i];

		want = xasprintf(", %s%s, ", k->section,
		    k->set_arg != NULL ? " NAME" : "");
		if (strstr(list, want) == NULL)
			fail_msg("[%s] is not in: %s", k->section, cause);
		free(want);
	}
	assert_non_null(strstr(list, ", record, "));
	assert_non_null(strstr(list, ", console, "));
	assert_non_null(strstr(list, ", manager NAME, "));
	assert_non_null(strstr(list, ", secret NAME, "));
	free(list);
	free(cause);
	policy_done(&p);

	cause = NULL;
	assert_int_equal(policy_load_string(&p, "timeout = 5\n", "policy.ini",
	    &cause), -EINVAL);
	assert_non_null(strstr(cause, "policy.ini:1: timeout: outside a section "
	    "(start with [run], "));
	for (size_t i = 0; i < policy_n_keys; i++) {
		want = xasprintf("[%s%s]", policy_keys[i].section,
		    policy_keys[i].set_arg != NULL ? " NAME" : "");
		if (strstr(cause, want) == NULL)
			fail_msg("%s is not in: %s", want, cause);
		free(want);
	}
	assert_non_null(strstr(cause, " or [console])"));
	free(cause);
	policy_done(&p);

	cause = NULL;
	assert_int_equal(policy_load_string(&p, "[record]\n\nnosuch = 1\n",
	    "policy.ini", &cause), -EINVAL);
	assert_string_equal(cause, "policy.ini:3: [record] unknown key "
	    "\"nosuch\" (keys: journal, syslog)");
	free(cause);
	policy_done(&p);

	cause = NULL;
	path = write_temp("[console]\nbogus = 1\n", 20);
	assert_int_equal(policy_load(&p, path, &cause), -EINVAL);
	want = xasprintf("%s:2: [console] unknown key \"bogus\" (keys: "
	    "prefix, notify_cmd, notify_after)", path);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	policy_done(&p);
	unlink(path);
	free(path);
}

static void
test_duration(void **state)
{
	static const struct {
		const char	*in;
		int		 r;
		unsigned	 secs;
	} t[] = {
		{ "0", 0, 0 }, { "none", 0, 0 }, { "90", 0, 90 }, { "90s", 0, 90 },
		{ "5m", 0, 300 }, { "2h", 0, 7200 }, { "0s", 0, 0 },
		{ "4294967295", 0, 4294967295u }, { "4294967296", -EINVAL, 0 },
		{ "1193047h", -EINVAL, 0 }, { "1193046h", 0, 1193046u * 3600 },
		{ "", -EINVAL, 0 }, { "s", -EINVAL, 0 }, { "-5", -EINVAL, 0 },
		{ "+5", -EINVAL, 0 }, { " 5", -EINVAL, 0 }, { "5 ", -EINVAL, 0 },
		{ "5d", -EINVAL, 0 }, { "5ms", -EINVAL, 0 }, { "5M", -EINVAL, 0 },
		{ "1.5h", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		unsigned v = 12345;
		int r = policy_parse_duration(t[i].in, &v);

		if (r != t[i].r || (r == 0 && v != t[i].secs))
			fail_msg("duration \"%s\": %d %u, want %d %u", t[i].in,
			    r, v, t[i].r, t[i].secs);
	}
}

static void
test_size(void **state)
{
	static const struct {
		const char	*in;
		int		 r;
		uint64_t	 bytes;
	} t[] = {
		{ "0", 0, 0 }, { "none", 0, 0 }, { "1048576", 0, 1048576 },
		{ "100K", 0, 102400 }, { "100k", 0, 102400 },
		{ "512M", 0, 512ULL << 20 }, { "2G", 0, 2ULL << 30 },
		{ "2g", 0, 2ULL << 30 }, { "1T", 0, 1ULL << 40 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -EINVAL, 0 },
		{ "16777215T", 0, 16777215ULL << 40 }, { "16777216T", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { "G", -EINVAL, 0 }, { "2GB", -EINVAL, 0 },
		{ "1.5G", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "2 G", -EINVAL, 0 },
		{ "2P", -EINVAL, 0 }, { "NONE", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		uint64_t v = 12345;
		int r = policy_parse_size(t[i].in, &v);

		if (r != t[i].r || (r == 0 && v != t[i].bytes))
			fail_msg("size \"%s\": %d %" PRIu64 ", want %d %" PRIu64,
			    t[i].in, r, v, t[i].r, t[i].bytes);
	}
}

static void
test_hash(void **state)
{
	char *h;

	(void)state;
	/* SHA-256 test vectors (FIPS 180-2), as sha256sum prints them. */
	h = policy_hash("", 0);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	free(h);
	h = policy_hash("abc", 3);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	free(h);
	/* Bytes after a NUL count. */
	h = policy_hash("a\0b", 3);
	assert_string_not_equal(h, "ca978112ca1bbdcafac231b39a23dc4d"
	    "a786eff8147c4e72b9807785afee48bb");
	free(h);
}

static void
test_action_name(void **state)
{
	(void)state;
	assert_string_equal(policy_action_name(POLICY_ASK), "ask");
	assert_string_equal(policy_action_name(POLICY_DENY), "deny");
	assert_string_equal(policy_action_name(POLICY_ALLOW), "allow");
}

/* The one table of manager names: which name counts where. */
static void
test_manager_alias(void **state)
{
	static const struct {
		const char	*name;
		unsigned	 as;
		const char	*canonical;	/* NULL: not seen so */
		const char	*command;
	} t[] = {
		{ "pip", MANAGER_AS_POLICY, "pip", "pip" },
		{ "pip3", MANAGER_AS_POLICY, "pip", "pip" },
		{ "pip3.11", MANAGER_AS_POLICY, NULL, NULL },
		{ "pip3.11", MANAGER_AS_PROGRAM, "pip", "pip" },
		{ "pip3.11", MANAGER_AS_SCRIPT, NULL, NULL },
		{ "go1.22.0", MANAGER_AS_PROGRAM, "go", "go" },
		{ "gem3.1", MANAGER_AS_PROGRAM, "gem", "gem" },
		{ "gopls", MANAGER_AS_PROGRAM, NULL, NULL },
		{ "uv", MANAGER_AS_PROGRAM, "uv", "uv" },
		{ "uv1", MANAGER_AS_PROGRAM, NULL, NULL },
		{ "uvx", MANAGER_AS_POLICY, "uv", "uvx" },
		{ "uvx", MANAGER_AS_PROGRAM, "uv", "uvx" },
		{ "uvx", MANAGER_AS_SCRIPT, NULL, NULL },
		{ "pnpx", MANAGER_AS_SCRIPT, "pnpm", "pnpx" },
		{ "pnpx.cjs", MANAGER_AS_SCRIPT, "pnpm", "pnpx" },
		{ "pnpx.cjs", MANAGER_AS_PROGRAM, NULL, NULL },
		{ "npm-cli.js", MANAGER_AS_POLICY, NULL, NULL },
		{ "npm-cli.js", MANAGER_AS_PROGRAM, "npm", "npm" },
		{ "npm-cli.js", MANAGER_AS_SCRIPT, "npm", "npm" },
		{ "yarnpkg", MANAGER_AS_PROGRAM, "yarn", "yarn" },
		{ "yarnpkg", MANAGER_AS_SCRIPT, NULL, NULL },
		{ "micromamba", MANAGER_AS_POLICY, "conda", "conda" },
		{ "aptitude", MANAGER_AS_PROGRAM, "apt", "apt" },
		{ "node", MANAGER_AS_PROGRAM, NULL, NULL },
		{ "python3", MANAGER_AS_PROGRAM, NULL, NULL },
		{ "", MANAGER_AS_PROGRAM, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct policy_manager_alias *a =
		    policy_manager_alias(t[i].name, t[i].as);

		if ((a == NULL) != (t[i].canonical == NULL) || (a != NULL &&
		    (strcmp(a->canonical, t[i].canonical) != 0 ||
		    strcmp(a->command, t[i].command) != 0)))
			fail_msg("%s as %u: %s/%s, want %s/%s", t[i].name,
			    t[i].as, a ? a->canonical : "-",
			    a ? a->command : "-",
			    t[i].canonical ? t[i].canonical : "-",
			    t[i].command ? t[i].command : "-");
	}
	assert_null(policy_manager_alias(NULL, MANAGER_AS_PROGRAM));
	assert_string_equal(policy_manager_name("apt-get"), "apt");
	assert_null(policy_manager_name("yarn.js"));
	assert_null(policy_manager_name(NULL));
	assert_string_equal(policy_manager_names(),
	    "pip, uv, npm, pnpm, yarn, npx, apt, dpkg, gem, cargo, go, conda");
}

/* writable "~/..." is the home of whoever runs ward: $HOME when it is
 * absolute, else the password file's. */
static void
test_writable_home(void **state)
{
	struct policy p;
	char *cause = NULL;
	const char *ini = "[files]\nwritable = ~/.claude ~/.codex//x/ /srv/a\n";
	cleanup_free char *saved = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;

	(void)state;
	setenv("HOME", "/home/tester", 1);
	assert_int_equal(policy_load_string(&p, ini, NULL, &cause), 0);
	assert_int_equal(p.n_writable, 3);
	assert_string_equal(p.writable[0], "/home/tester/.claude");
	assert_string_equal(p.writable[1], "/home/tester/.codex/x");
	assert_string_equal(p.writable[2], "/srv/a");
	policy_done(&p);

	/* A relative HOME is not trusted: the password file's home. */
	setenv("HOME", "relative", 1);
	assert_int_equal(policy_load_string(&p, ini, NULL, &cause), 0);
	assert_int_equal(p.writable[0][0], '/');
	assert_non_null(strstr(p.writable[0], "/.claude"));
	assert_null(strstr(p.writable[0], "relative"));
	policy_done(&p);

	/* [run] env NAME=~/path and NAME=~: the same home (an agent's
	 * config folder); ~ elsewhere in a value is the value's. */
	setenv("HOME", "/home/tester", 1);
	assert_int_equal(policy_load_string(&p, "[run]\nenv = "
	    "CLAUDE_CONFIG_DIR=~/.claude GEMINI_CLI_HOME=~ A=x~/y B=~x\n",
	    NULL, &cause), 0);
	assert_int_equal(p.n_env, 4);
	assert_string_equal(p.env[0], "CLAUDE_CONFIG_DIR=/home/tester/.claude");
	assert_string_equal(p.env[1], "GEMINI_CLI_HOME=/home/tester");
	assert_string_equal(p.env[2], "A=x~/y");
	assert_string_equal(p.env[3], "B=~x");
	policy_done(&p);

	assert_int_equal(policy_load_string(&p,
	    "[files]\nwritable = ~/../etc\n", NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "no . or .. in a path"));
	free(cause);
	cause = NULL;
	if (saved != NULL)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
}

/* The text of a recipe with its commented [secret] sections ("#[secret",
 * "#from =" ... up to a line that is not "#key =") uncommented. */
static char *
recipe_uncommented(const char *path)
{
	FILE *f = fopen(path, "re");
	char *out = xstrdup(""), *line = NULL;
	size_t cap = 0;
	bool in = false;

	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		char *old = out;

		if (strncmp(line, "#[secret ", 9) == 0)
			in = true;
		else if (in && strncmp(line, "#from =", 7) != 0 &&
		    strncmp(line, "#hosts =", 8) != 0 &&
		    strncmp(line, "#header =", 9) != 0)
			in = false;
		out = xasprintf("%s%s", old, in ? line + 1 : line);
		free(old);
	}
	free(line);
	fclose(f);
	return out;
}

/* The recipes' logins (issue 33): each agent's login file, its token
 * endpoint, and that every token field has the reply that renews it. */
static void
test_agent_logins(void **state)
{
	static const struct {
		const char	*recipe;
		const char	*want;	/* "NAME file refresh-host:port/path" */
	} t[] = {
		{ "share/agents/claude-code.ini", "CLAUDE_LOGIN "
		    "/.claude/.credentials.json "
		    "platform.claude.com:443/v1/oauth/token" },
		{ "share/agents/codex.ini", "CODEX_LOGIN /.codex/auth.json "
		    "auth.openai.com:443/oauth/token" },
		{ "share/agents/gemini-cli.ini", "GEMINI_LOGIN "
		    "/.gemini/oauth_creds.json "
		    "oauth2.googleapis.com:443/token" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct policy p;
		char *cause = NULL;
		size_t n = 0;

		if (policy_load(&p, t[i].recipe, &cause) < 0)
			fail_msg("%s: %s", t[i].recipe, cause);
		for (size_t s = 0; s < p.n_secrets; s++) {
			const struct policy_secret *sc = &p.secrets[s];
			cleanup_free char *got = NULL;
			bool access = false, refresh = false;

			if (sc->file == NULL)
				continue;
			n++;
			assert_non_null(sc->refresh.host);
			/* ~/ made the home of who runs ward */
			assert_true(sc->file[0] == '/');
			got = xasprintf("%s %s %s:%u%s", sc->name,
			    strchr(sc->file + 1, '.') - 1, sc->refresh.host,
			    sc->refresh.port_lo, sc->refresh_path);
			assert_string_equal(got, t[i].want);
			assert_string_equal(sc->header, "authorization");
			for (size_t f = 0; f < sc->n_fields; f++) {
				const char *r = sc->fields[f].reply;

				access = access || (r && !strcmp(r, "access_token"));
				refresh = refresh ||
				    (r && !strcmp(r, "refresh_token"));
			}
			assert_true(access && refresh);
		}
		assert_int_equal(n, 1);
		policy_done(&p);
	}
}

/* The recipes' API keys: where each goes and in which header; the
 * commented alternatives parse once uncommented. */
static void
test_agent_secrets(void **state)
{
	static const struct {
		const char	*recipe;
		const char	*on;		/* the sections on, "NAME host header;" */
		const char	*all;		/* with the commented ones */
	} t[] = {
		{ "share/agents/claude-code.ini",
		    "ANTHROPIC_API_KEY api.anthropic.com:443 x-api-key: {};",
		    "ANTHROPIC_API_KEY api.anthropic.com:443 x-api-key: {};"
		    "ANTHROPIC_AUTH_TOKEN api.anthropic.com:443 authorization: "
		    "Bearer {};" },
		{ "share/agents/codex.ini",
		    "OPENAI_API_KEY api.openai.com:443 authorization: Bearer {};",
		    NULL },
		{ "share/agents/gemini-cli.ini",
		    "GEMINI_API_KEY generativelanguage.googleapis.com:443 "
		    "x-goog-api-key: {};", NULL },
		{ "share/agents/aider.ini", "",
		    "ANTHROPIC_API_KEY api.anthropic.com:443 x-api-key: {};"
		    "OPENAI_API_KEY api.openai.com:443 authorization: Bearer {};"
		    "GEMINI_API_KEY generativelanguage.googleapis.com:443 "
		    "x-goog-api-key: {};"
		    "OPENROUTER_API_KEY openrouter.ai:443 authorization: Bearer {};"
		    "DEEPSEEK_API_KEY api.deepseek.com:443 authorization: "
		    "Bearer {};" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		for (int all = 0; all < 2; all++) {
			cleanup_free char *text = NULL, *got = xstrdup("");
			const char *want = all ? t[i].all : t[i].on;
			struct policy p;
			char *cause = NULL;

			if (want == NULL)
				continue;
			text = all ? recipe_uncommented(t[i].recipe) : NULL;
			if ((all ? policy_load_string(&p, text, t[i].recipe,
			    &cause) : policy_load(&p, t[i].recipe, &cause)) < 0)
				fail_msg("%s: %s", t[i].recipe, cause);
			for (size_t s = 0; s < p.n_secrets; s++) {
				const struct policy_secret *sc = &p.secrets[s];
				char *old = got;

				/* A login file's: test_agent_logins. */
				if (sc->file != NULL)
					continue;
				assert_int_equal(sc->n_hosts, 1);
				got = xasprintf("%s%s %s:%u %s: %s;", old, sc->name,
				    sc->hosts[0].host, sc->hosts[0].port_lo,
				    sc->header, sc->header_value);
				free(old);
				assert_int_equal(strncmp(sc->from, "env:", 4), 0);
				assert_string_equal(sc->from + 4, sc->name);
			}
			if (strcmp(got, want) != 0)
				fail_msg("%s%s: secrets \"%s\", want \"%s\"",
				    t[i].recipe, all ? " uncommented" : "", got,
				    want);
			policy_done(&p);
		}
}

/* An HTTP rule's path glob: "*" within a segment, "**" across; the
 * query is not the path's (the gate cuts it before matching). */
static void
test_http_path_match(void **state)
{
	static const struct {
		const char	*glob, *path;
		bool		 match;
	} t[] = {
		{ "/repos/acme/**", "/repos/acme/app/issues/1", true },
		{ "/repos/acme/**", "/repos/acme/", true },
		{ "/repos/acme/**", "/repos/acme", false },
		{ "/repos/acme/**", "/repos/acmeco/x", false },
		{ "/repos/acme/*", "/repos/acme/app", true },
		{ "/repos/acme/*", "/repos/acme/app/issues", false },
		{ "/repos/acme/*", "/repos/acme/", true },
		{ "/repos/acme/app/issues/*/comments",
		    "/repos/acme/app/issues/12/comments", true },
		{ "/repos/acme/app/issues/*/comments",
		    "/repos/acme/app/issues/12/x/comments", false },
		{ "/repos/acme/app/issues/*/comments",
		    "/repos/acme/app/issues/12/comments/1", false },
		{ "/v1/*.json", "/v1/a.json", true },
		{ "/v1/*.json", "/v1/a/b.json", false },
		{ "/v1/**.json", "/v1/a/b.json", true },
		{ "/**", "/", true },
		{ "/**", "/a/b/c", true },
		{ "/", "/", true },
		{ "/", "/a", false },
		{ "/x", "/x?q=1", false },
		{ "/x*", "/x?q=1", true },	/* a query is never matched: */
		{ "/search", "/search", true },	/* the gate matches the path */
		{ "/a/**/z", "/a/z", false },
		{ "/a/**/z", "/a/b/z", true },
		{ "/a/**/z", "/a/b/c/z", true },
		{ "/a/*/z", "/a//z", true },
		{ "", "", true },
		{ "", "/", false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (policy_http_path_match(t[i].glob, t[i].path) != t[i].match)
			fail_msg("\"%s\" against \"%s\": want %s", t[i].glob,
			    t[i].path, t[i].match ? "a match" : "no match");
}

/* The lines a person reads about secrets and HTTP rules: where a value
 * comes from and where it goes, never a value. */
static void
test_describe_http(void **state)
{
	static const char ini[] =
	    "[secret GITHUB_TOKEN]\n"
	    "from = command:gh auth token\n"
	    "hosts = api.github.com:443 [::1]:8443\n"
	    "header = Authorization: Bearer {}\n"
	    "[secret K]\n"
	    "from = file:~/.config/k\n"
	    "hosts = *.k.test:443\n"
	    "header = x-k: {}\n"
	    "[network]\n"
	    "allow = pypi.org:443 (plain)\n"
	    "allow = api.github.com:443 GET /repos/acme/** (reads)\n"
	    "    api.github.com:443 post /repos/acme/app/issues/*/comments\n"
	    "http = deny\n";
	static const char *const want[] = {
		"secret GITHUB_TOKEN: from command:gh auth token; to "
		    "api.github.com:443 [::1]:8443; header authorization: "
		    "Bearer {}",
		"secret K: from file:~/.config/k; to *.k.test:443; header "
		    "x-k: {}",
		"http api.github.com:443 GET /repos/acme/** (reads)",
		"http api.github.com:443 POST /repos/acme/app/issues/*/comments",
		"http other requests to these hosts: deny (a 403)",
		NULL,
	};
	struct policy p;
	char *cause = NULL, **lines;
	size_t i;

	(void)state;
	if (policy_load_string(&p, ini, NULL, &cause) < 0)
		fail_msg("%s", cause);
	lines = policy_describe_http(&p);
	for (i = 0; want[i] != NULL; i++) {
		assert_non_null(lines[i]);
		assert_string_equal(lines[i], want[i]);
	}
	assert_null(lines[i]);
	strv_free(lines);
	policy_done(&p);

	/* Nothing to say: an empty list; upstream_ca alone says it. */
	assert_int_equal(policy_load_string(&p, "[network]\nallow = a.test\n",
	    NULL, &cause), 0);
	lines = policy_describe_http(&p);
	assert_null(lines[0]);
	strv_free(lines);
	policy_done(&p);
	assert_int_equal(policy_load_string(&p, "[network]\nupstream_ca = "
	    "/etc/passwd\nallow = a.test:443 /x\n", NULL, &cause), 0);
	lines = policy_describe_http(&p);
	assert_string_equal(lines[0], "http a.test:443 * /x");
	assert_string_equal(lines[1], "http other requests to these hosts: ask");
	assert_string_equal(lines[2],
	    "upstream servers checked against /etc/passwd");
	assert_null(lines[3]);
	strv_free(lines);
	policy_done(&p);
}

/* upstream_ca = ~/...: the home of who runs ward, expanded; the file
 * read at load. */
static void
test_upstream_ca_home(void **state)
{
	struct policy p;
	char *cause = NULL;
	char dir[] = "/tmp/test-policy-home.XXXXXX";
	char *ca;
	cleanup_free char *saved = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	ca = xasprintf("%s/ca.pem", dir);
	setenv("HOME", dir, 1);
	assert_int_equal(policy_load_string(&p,
	    "[network]\nupstream_ca = ~/ca.pem\n", NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "\"~/ca.pem\": cannot read it"));
	free(cause);
	cause = NULL;
	policy_done(&p);
	{
		int fd = open(ca, O_WRONLY | O_CREAT | O_EXCL, 0600);

		assert_true(fd >= 0);
		close(fd);
	}
	assert_int_equal(policy_load_string(&p,
	    "[network]\nupstream_ca = ~/ca.pem\n", NULL, &cause), 0);
	assert_string_equal(p.upstream_ca, ca);
	policy_done(&p);
	assert_null(p.upstream_ca);
	unlink(ca);
	rmdir(dir);
	free(ca);
	if (saved != NULL)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
}

/* The recipes of share/agents/ parse, with their folders in the home. */
static void
test_agent_recipes(void **state)
{
	static const char *const recipes[] = {
		"share/agents/claude-code.ini", "share/agents/codex.ini",
		"share/agents/gemini-cli.ini", "share/agents/aider.ini",
	};
	cleanup_free char *saved = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;

	(void)state;
	setenv("HOME", "/home/tester", 1);
	for (size_t i = 0; i < ARRAY_SIZE(recipes); i++) {
		struct policy p;
		char *cause = NULL;

		if (policy_load(&p, recipes[i], &cause) < 0)
			fail_msg("%s: %s", recipes[i], cause);
		assert_true(p.n_writable > 0);
		for (size_t w = 0; w < p.n_writable; w++)
			assert_int_equal(strncmp(p.writable[w], "/home/tester/",
			    13), 0);
		assert_true(p.n_net_allow > 0);
		assert_true(p.n_env > 0);
		/* each lists its agent's files that run commands */
		assert_true(p.n_protect > 0);
		/* API keys are [secret]s, never passed in by env. */
		for (size_t e = 0; e < p.n_env; e++)
			if (strstr(p.env[e], "_API_KEY") != NULL ||
			    strstr(p.env[e], "_AUTH_TOKEN") != NULL)
				assert_string_equal(p.env[e], "GOOGLE_API_KEY");
		policy_done(&p);
	}
	if (saved != NULL)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_good_table),
		cmocka_unit_test(test_bad_table),
		cmocka_unit_test(test_lists_accumulate),
		cmocka_unit_test(test_share_ward_ini),
		cmocka_unit_test(test_share_oci_ini),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_file_messages),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_section_lists),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_action_name),
		cmocka_unit_test(test_manager_alias),
		cmocka_unit_test(test_writable_home),
		cmocka_unit_test(test_agent_recipes),
		cmocka_unit_test(test_agent_secrets),
		cmocka_unit_test(test_agent_logins),
		cmocka_unit_test(test_http_path_match),
		cmocka_unit_test(test_upstream_ca_home),
		cmocka_unit_test(test_describe_http),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
