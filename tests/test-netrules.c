/* SPDX-License-Identifier: MIT */
/* approvals/netrules.c: destinations against [network] rules, from a
 * data table (tests/data/netrules.tsv); then approvals/netdest.c: a
 * destination from a sockaddr, its text and its key. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "approvals/netdest.h"
#include "approvals/netrules.h"
#include "config/util.h"

#define TSV "tests/data/netrules.tsv"

static char *
unescape(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *p = o;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			*p++ = '\n';
			s++;
		} else
			*p++ = *s;
	}
	*p = '\0';
	return o;
}

static void
sockaddr_of(const char *addr, unsigned port, struct sockaddr_storage *ss,
    size_t *len)
{
	memset(ss, 0, sizeof *ss);
	if (strchr(addr, ':') != NULL) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET6, addr, &in6->sin6_addr), 1);
		*len = sizeof *in6;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET, addr, &in->sin_addr), 1);
		*len = sizeof *in;
	}
}

static void
test_table(void **state)
{
	FILE *f = fopen(TSV, "r");
	char line[1024];
	int lineno = 0, rows = 0, bad = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		char *col[6], *save = NULL, *ini, *cause = NULL;
		struct policy p;
		struct net_dest d;
		struct sockaddr_storage ss;
		size_t len;
		char *which = NULL;
		const char *got;
		int n = 0;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		for (char *t = strtok_r(line, "\t", &save); t && n < 6;
		    t = strtok_r(NULL, "\t", &save))
			col[n++] = t;
		assert_int_equal(n, 6);
		ini = unescape(col[0]);
		assert_int_equal(policy_load_string(&p, ini, "policy.ini",
		    &cause), 0);
		sockaddr_of(col[1], (unsigned)atoi(col[2]), &ss, &len);
		assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
		d.name = strcmp(col[3], "-") == 0 ? NULL : col[3];
		if (netrules_never(&p, &d, &which))
			got = "never";
		else if (netrules_allowed(&p, &d, &which))
			got = "allow";
		else
			got = "none";
		if (strcmp(got, col[4]) != 0 ||
		    strcmp(which ? which : "-", col[5]) != 0) {
			print_error(TSV ":%d: got %s \"%s\", want %s \"%s\"\n",
			    lineno, got, which ? which : "-", col[4], col[5]);
			bad++;
		}
		rows++;
		free(which);
		free(ini);
		policy_done(&p);
	}
	fclose(f);
	assert_true(rows >= 20);
	assert_int_equal(bad, 0);
}

/* netrules_intercepts: the hosts of a [secret] and of allow lines with
 * a method or path, and no other. */
static void
test_intercepts(void **state)
{
	static const char ini[] =
	    "[network]\n"
	    "allow = pypi.org:443 (plain)\n"
	    "allow = api.github.com:443 GET /repos/acme/** (reads)\n"
	    "allow = *.hooks.test:8443 POST\n"
	    "[secret K]\n"
	    "from = env:K\n"
	    "hosts = api.anthropic.com:443 [2001:db8::7]:443\n"
	    "header = x-api-key: {}\n";
	static const struct {
		const char	*addr;
		unsigned	 port;
		const char	*name;
		const char	*which;		/* NULL: not intercepted */
	} t[] = {
		{ "203.0.113.1", 443, "api.anthropic.com", "secret K" },
		{ "203.0.113.1", 443, "API.Anthropic.com", "secret K" },
		{ "203.0.113.1", 80, "api.anthropic.com", NULL },
		{ "2001:db8::7", 443, NULL, "secret K" },
		{ "2001:db8::8", 443, NULL, NULL },
		{ "203.0.113.2", 443, "api.github.com",
		    "allow api.github.com:443 (reads)" },
		{ "203.0.113.2", 444, "api.github.com", NULL },
		{ "203.0.113.3", 8443, "a.hooks.test", "allow *.hooks.test:8443" },
		{ "203.0.113.3", 8443, "hooks.test", NULL },
		{ "203.0.113.4", 443, "pypi.org", NULL },
		{ "203.0.113.4", 443, NULL, NULL },
	};
	struct policy p;
	char *cause = NULL;

	(void)state;
	if (policy_load_string(&p, ini, "policy.ini", &cause) < 0)
		fail_msg("%s", cause);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct sockaddr_storage ss;
		struct net_dest d;
		size_t len;
		char *which = NULL;
		bool got;

		sockaddr_of(t[i].addr, t[i].port, &ss, &len);
		assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
		d.name = t[i].name;
		got = netrules_intercepts(&p, &d, &which);
		if (got != (t[i].which != NULL) || (got &&
		    strcmp(which, t[i].which) != 0))
			fail_msg("%s %s:%u: intercepts %d \"%s\", want \"%s\"",
			    t[i].addr, t[i].name ? t[i].name : "-", t[i].port,
			    got, which ? which : "-",
			    t[i].which ? t[i].which : "-");
		/* What is intercepted is allowed: the connection is let
		 * through, its requests judged by the gate. */
		if (got)
			assert_true(netrules_allowed(&p, &d, NULL));
		free(which);
	}
	/* which may be NULL. */
	{
		struct sockaddr_storage ss;
		struct net_dest d;
		size_t len;

		sockaddr_of("203.0.113.1", 443, &ss, &len);
		assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
		d.name = "api.anthropic.com";
		assert_true(netrules_intercepts(&p, &d, NULL));
	}
	policy_done(&p);
}

static void
test_describe(void **state)
{
	struct sockaddr_storage ss;
	struct net_dest d;
	size_t len;
	char *s;

	(void)state;
	sockaddr_of("151.101.0.223", 443, &ss, &len);
	assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
	s = net_dest_describe(&d);
	assert_string_equal(s, "151.101.0.223:443");
	free(s);
	d.name = "pypi.org";
	s = net_dest_describe(&d);
	assert_string_equal(s, "pypi.org (151.101.0.223):443");
	free(s);
	s = net_dest_key(&d);
	assert_string_equal(s, "pypi.org:443");
	free(s);
	sockaddr_of("2001:db8::1", 8443, &ss, &len);
	assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
	s = net_dest_describe(&d);
	assert_string_equal(s, "[2001:db8::1]:8443");
	free(s);
	assert_false(net_dest_loopback(&d));
	sockaddr_of("::1", 1, &ss, &len);
	assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
	assert_true(net_dest_loopback(&d));
	sockaddr_of("127.8.9.10", 1, &ss, &len);
	assert_int_equal(net_dest_from_sockaddr(&ss, len, &d), 0);
	assert_true(net_dest_loopback(&d));
	/* Too short, other families. */
	assert_int_equal(net_dest_from_sockaddr(&ss, 1, &d), -EINVAL);
	ss.ss_family = AF_UNIX;
	assert_int_equal(net_dest_from_sockaddr(&ss, sizeof ss, &d),
	    -EAFNOSUPPORT);
	sockaddr_of("1.2.3.4", 1, &ss, &len);
	assert_int_equal(net_dest_from_sockaddr(&ss, len - 1, &d), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_intercepts),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
