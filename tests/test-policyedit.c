/* SPDX-License-Identifier: MIT */
/* config/policyedit.c: "always", a rule written into a real policy file. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/policy.h"
#include "config/policyedit.h"
#include "config/util.h"

struct fixture {
	char	 dir[64];
	char	*file;
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);

	snprintf(f->dir, sizeof f->dir, "/tmp/ward-pedit.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->file = xasprintf("%s/ward.ini", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f->file);
	free(f);
	return 0;
}

static void
put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, strlen(text)), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static char *
get(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf = xcalloc(1, 65536);

	assert_non_null(fp);
	(void)fread(buf, 1, 65535, fp);
	fclose(fp);
	return buf;
}

/* The file after adding /srv/x to [files] allow, and the line. */
static void
add_expect(struct fixture *f, const char *before, const char *after,
    unsigned want_line)
{
	cleanup_free char *why = NULL, *got = NULL, *shown = NULL;
	unsigned line = 0, planned = 0;
	struct policy p;

	put(f->file, before, 0640);
	assert_int_equal(policy_edit_plan(f->file, "files", "allow", "/srv/x",
	    "always, from run ab12", &planned, &shown, &why), 0);
	assert_int_equal(planned, want_line);
	assert_int_equal(policy_edit_add_rule(f->file, "files", "allow",
	    "/srv/x", "always, from run ab12", planned, &line, &why), 0);
	assert_null(why);
	assert_int_equal(line, want_line);
	got = get(f->file);
	assert_string_equal(got, after);
	/* The line shown is the line written. */
	{
		const char *l = got;

		for (unsigned i = 1; i < line; i++)
			l = strchr(l, '\n') + 1;
		assert_int_equal(strncmp(l, shown, strlen(shown)), 0);
		assert_int_equal(l[strlen(shown)], '\n');
	}
	assert_int_equal(policy_load(&p, f->file, NULL), 0);
	assert_true(p.n_allow >= 1);
	assert_string_equal(p.allow[p.n_allow - 1], "/srv/x");
	policy_done(&p);
}

static void
test_key_present(void **state)
{
	add_expect(*state,
	    "# mine\n[run]\ntimeout = 60\n\n[files]\n# globs\n"
	    "allow = /tmp/a /tmp/b ; two\nwrite = ask\n",
	    "# mine\n[run]\ntimeout = 60\n\n[files]\n# globs\n"
	    "allow = /tmp/a /tmp/b ; two\n    /srv/x ; always, from run ab12\n"
	    "write = ask\n", 8);
}

static void
test_key_continued(void **state)
{
	add_expect(*state,
	    "[files]\nallow =\n  /tmp/a\n  /tmp/b\n\n[network]\nconnect = ask\n",
	    "[files]\nallow =\n  /tmp/a\n  /tmp/b\n"
	    "    /srv/x ; always, from run ab12\n\n[network]\nconnect = ask\n",
	    5);
}

static void
test_key_absent(void **state)
{
	add_expect(*state,
	    "[files]\nwrite = ask\n; kept\n\n[network]\nconnect = ask\n",
	    "[files]\nwrite = ask\nallow = /srv/x ; always, from run ab12\n"
	    "; kept\n\n[network]\nconnect = ask\n", 3);
}

static void
test_section_absent(void **state)
{
	add_expect(*state, "; only comments\n[run]\ntimeout = 60",
	    "; only comments\n[run]\ntimeout = 60\n\n[files]\n"
	    "allow = /srv/x ; always, from run ab12\n", 6);
}

static void
test_empty_file(void **state)
{
	add_expect(*state, "",
	    "[files]\nallow = /srv/x ; always, from run ab12\n", 2);
}

/* Another section's allow is not [files]'s. */
static void
test_other_section_key(void **state)
{
	add_expect(*state,
	    "[network]\nallow = example.com:443\n[files]\nwrite = ask\n",
	    "[network]\nallow = example.com:443\n[files]\nwrite = ask\n"
	    "allow = /srv/x ; always, from run ab12\n", 5);
}

/* The file after adding value to [section] key, and the line. */
static void
add_in(struct fixture *f, const char *section, const char *key,
    const char *value, const char *before, const char *after,
    unsigned want_line)
{
	cleanup_free char *why = NULL, *got = NULL;
	unsigned line = 0;

	put(f->file, before, 0640);
	if (policy_edit_add_rule(f->file, section, key, value, "always", 0,
	    &line, &why) < 0)
		fail_msg("%s", why);
	assert_int_equal(line, want_line);
	got = get(f->file);
	assert_string_equal(got, after);
}

/* [secret] sections and HTTP rules stay as they were written when
 * "always" adds a line: the secret's keys (a header with its colon, a
 * command line), the rule lines, and what the policy makes of them. */
static const char secret_ini[] =
    "[secret GITHUB_TOKEN]\n"
    "from = command:gh auth token\n"
    "hosts = api.github.com:443\n"
    "header = Authorization: Bearer {}\n"
    "\n"
    "[network]\n"
    "allow = api.github.com:443 GET /repos/acme/** (read the team's issues)\n"
    "allow = api.github.com:443 POST /repos/acme/app/issues/*/comments\n"
    "http = deny\n"
    "\n"
    "[secret K]\n"
    "from = file:~/.config/k\n"
    "hosts = k.test:443\n"
    "header = x-k: {}\n";

static void
check_secrets_kept(const char *path, size_t net_allow)
{
	struct policy p;
	char *cause = NULL;

	if (policy_load(&p, path, &cause) < 0)
		fail_msg("%s", cause);
	assert_int_equal(p.n_secrets, 2);
	assert_string_equal(p.secrets[0].from, "command:gh auth token");
	assert_string_equal(p.secrets[0].header, "authorization");
	assert_string_equal(p.secrets[0].header_value, "Bearer {}");
	assert_string_equal(p.secrets[1].name, "K");
	assert_string_equal(p.secrets[1].header, "x-k");
	assert_int_equal(p.http, POLICY_DENY);
	assert_int_equal(p.n_net_allow, net_allow);
	assert_string_equal(p.net_allow[0].method, "GET");
	assert_string_equal(p.net_allow[0].path, "/repos/acme/**");
	assert_string_equal(p.net_allow[0].reason, "read the team's issues");
	{
		size_t posts = 0;

		for (size_t i = 0; i < p.n_net_allow; i++)
			posts += p.net_allow[i].method != NULL &&
			    strcmp(p.net_allow[i].method, "POST") == 0 &&
			    strcmp(p.net_allow[i].path,
			    "/repos/acme/app/issues/*/comments") == 0;
		assert_int_equal(posts, 1);
	}
	policy_done(&p);
}

static void
test_secret_kept(void **state)
{
	struct fixture *f = *state;

	/* A host: under the first allow line, the rule lines as they were. */
	add_in(f, "network", "allow", "pypi.org:443", secret_ini,
	    "[secret GITHUB_TOKEN]\n"
	    "from = command:gh auth token\n"
	    "hosts = api.github.com:443\n"
	    "header = Authorization: Bearer {}\n"
	    "\n"
	    "[network]\n"
	    "allow = api.github.com:443 GET /repos/acme/** (read the team's issues)\n"
	    "    pypi.org:443 ; always\n"
	    "allow = api.github.com:443 POST /repos/acme/app/issues/*/comments\n"
	    "http = deny\n"
	    "\n"
	    "[secret K]\n"
	    "from = file:~/.config/k\n"
	    "hosts = k.test:443\n"
	    "header = x-k: {}\n", 8);
	check_secrets_kept(f->file, 3);

	/* A section the file lacks: at the end, after the last [secret]. */
	add_in(f, "files", "allow", "/srv/x", secret_ini,
	    "[secret GITHUB_TOKEN]\n"
	    "from = command:gh auth token\n"
	    "hosts = api.github.com:443\n"
	    "header = Authorization: Bearer {}\n"
	    "\n"
	    "[network]\n"
	    "allow = api.github.com:443 GET /repos/acme/** (read the team's issues)\n"
	    "allow = api.github.com:443 POST /repos/acme/app/issues/*/comments\n"
	    "http = deny\n"
	    "\n"
	    "[secret K]\n"
	    "from = file:~/.config/k\n"
	    "hosts = k.test:443\n"
	    "header = x-k: {}\n"
	    "\n"
	    "[files]\n"
	    "allow = /srv/x ; always\n", 17);
	check_secrets_kept(f->file, 2);

	/* An HTTP rule is one entry: words one blank apart. */
	add_in(f, "network", "allow",
	    "api.github.com:443 DELETE /repos/acme/app/labels/*", secret_ini,
	    "[secret GITHUB_TOKEN]\n"
	    "from = command:gh auth token\n"
	    "hosts = api.github.com:443\n"
	    "header = Authorization: Bearer {}\n"
	    "\n"
	    "[network]\n"
	    "allow = api.github.com:443 GET /repos/acme/** (read the team's issues)\n"
	    "    api.github.com:443 DELETE /repos/acme/app/labels/* ; always\n"
	    "allow = api.github.com:443 POST /repos/acme/app/issues/*/comments\n"
	    "http = deny\n"
	    "\n"
	    "[secret K]\n"
	    "from = file:~/.config/k\n"
	    "hosts = k.test:443\n"
	    "header = x-k: {}\n", 8);
	check_secrets_kept(f->file, 3);
	{
		struct policy p;

		assert_int_equal(policy_load(&p, f->file, NULL), 0);
		assert_string_equal(p.net_allow[1].method, "DELETE");
		assert_string_equal(p.net_allow[1].path, "/repos/acme/app/labels/*");
		assert_null(p.net_allow[1].reason);
		policy_done(&p);
	}
}

/* Blanks only in a [network] allow rule, and it is one entry. */
static void
test_rule_value(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"a.test:443 b.test:443",	/* two hosts: two entries */
		"a.test:443  GET /x",		/* two blanks */
		" a.test:443",
		"a.test:443 GET /x ",
		"a.test:443\tGET /x",
		"a.test:443 GET /x;y",
		"a.test GET /x",		/* no port: does not parse */
	};
	unsigned line = 0;

	put(f->file, "[network]\nconnect = ask\n", 0644);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cleanup_free char *why = NULL;

		if (policy_edit_add_rule(f->file, "network", "allow", bad[i],
		    NULL, 0, &line, &why) != -EINVAL)
			fail_msg("\"%s\" was written", bad[i]);
		assert_non_null(why);
	}
	{
		cleanup_free char *why = NULL, *got = get(f->file);

		assert_string_equal(got, "[network]\nconnect = ask\n");
		/* [files] allow keeps refusing a blank. */
		put(f->file, "[files]\n", 0644);
		assert_int_equal(policy_edit_add_rule(f->file, "files",
		    "allow", "/a b", NULL, 0, &line, &why), -EINVAL);
	}
}

static void
test_mode_kept(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *why = NULL;
	unsigned line = 0;
	struct stat st;

	put(f->file, "[files]\n", 0600);
	assert_int_equal(policy_edit_add_rule(f->file, "files", "allow",
	    "/srv/x", NULL, 0, &line, &why), 0);
	assert_int_equal(stat(f->file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(line, 2);
}

/* A file that does not parse, before or after: nothing is written. */
static void
test_no_parse(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *why = NULL, *got = NULL;
	unsigned line = 0;

	put(f->file, "[files]\nallow = /a\nbogus = 1\n", 0644);
	assert_int_equal(policy_edit_add_rule(f->file, "files", "allow",
	    "/srv/x", NULL, 0, &line, &why), -EINVAL);
	assert_non_null(strstr(why, "does not parse now"));
	got = get(f->file);
	assert_string_equal(got, "[files]\nallow = /a\nbogus = 1\n");
	free(steal_ptr(&why));
	free(steal_ptr(&got));

	/* [files] allow takes an absolute path: "rel" would not parse. */
	put(f->file, "[files]\n", 0644);
	assert_int_equal(policy_edit_add_rule(f->file, "files", "allow",
	    "rel", NULL, 0, &line, &why), -EINVAL);
	assert_non_null(strstr(why, "would not parse"));
	got = get(f->file);
	assert_string_equal(got, "[files]\n");
}

static void
test_bad_value(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = { "/a b", "/a;b", "/a#b", "/a\tb",
	    "/a\nb", "" };
	unsigned line = 0;

	put(f->file, "[files]\n", 0644);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cleanup_free char *why = NULL;

		assert_int_equal(policy_edit_add_rule(f->file, "files", "allow",
		    bad[i], NULL, 0, &line, &why), -EINVAL);
		assert_non_null(why);
	}
	{
		cleanup_free char *got = get(f->file);

		assert_string_equal(got, "[files]\n");
	}
}

/* The file changed between the prompt and y: nothing written. */
static void
test_stale(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *why = NULL, *got = NULL;
	unsigned line = 0;

	put(f->file, "[files]\nwrite = ask\n", 0644);
	assert_int_equal(policy_edit_add_rule(f->file, "files", "allow",
	    "/srv/x", NULL, 2, &line, &why), -ESTALE);
	got = get(f->file);
	assert_string_equal(got, "[files]\nwrite = ask\n");
}

static void
test_check(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *why = NULL, *shipped = NULL;

	assert_int_equal(policy_edit_check("/etc/passwd", &why), -EPERM);
	free(steal_ptr(&why));
	put(f->file, "", 0644);
	assert_int_equal(policy_edit_check(f->file, &why), 0);
	assert_int_equal(policy_edit_check(NULL, &why), -ENOENT);
	free(steal_ptr(&why));
	/* A file ward ships, even one the person owns (a build tree). */
	shipped = xasprintf("%s/share", f->dir);
	assert_int_equal(mkdir(shipped, 0755), 0);
	free(shipped);
	shipped = xasprintf("%s/share/ward.ini", f->dir);
	put(shipped, "", 0644);
	assert_int_equal(policy_edit_check(shipped, &why), -EPERM);
	assert_non_null(strstr(why, "ships"));
	free(steal_ptr(&why));
	if (getuid() == 0)
		return;
	chmod(f->file, 0444);
	assert_int_equal(policy_edit_check(f->file, &why), -EACCES);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key_present, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_continued, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_section_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_section_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mode_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secret_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_value, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
