/* SPDX-License-Identifier: MIT */
/*
 * supervisor/grants.c: what an approved install opens, for its process
 * tree while it runs, and the installs just refused. The test process is
 * the install (its own pid, its own /proc entries).
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/decide.h"
#include "approvals/netrules.h"
#include "config/util.h"
#include "supervisor/grants.h"
#include "supervisor/sup.h"

static struct sup S;

static struct policy_host *
hosts(const char *name, unsigned port)
{
	struct policy_host *h = xcalloc(1, sizeof *h);

	h->host = xstrdup(name);
	h->port_lo = h->port_hi = port;
	return h;
}

static int
setup(void **state)
{
	(void)state;
	memset(&S, 0, sizeof S);
	S.sp.init_pid = 1;
	S.answers = answers_new();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	grants_done(&S);
	answers_free(S.answers);
	return 0;
}

static void
test_install_opens_its_hosts(void **state)
{
	struct net_dest d = { .family = AF_INET, .port = 443,
	    .name = "pypi.org" };
	const char *which = NULL;

	(void)state;
	inet_pton(AF_INET, "151.101.0.223", d.addr);
	assert_false(grants_allow(&S, gettid(), &d, &which));
	assert_false(grants_allow_name(&S, "pypi.org"));
	assert_false(grants_running(&S, gettid(), "pip"));

	grants_add(&S, gettid(), "pip", hosts("pypi.org", 443), 1);
	assert_true(grants_running(&S, gettid(), "pip"));
	assert_false(grants_running(&S, gettid(), "npm"));
	assert_true(grants_allow(&S, gettid(), &d, &which));
	assert_string_equal(which, "pip");
	/* Another port is not the registry's; the name may still be
	 * looked up (the stub cannot tell which process asks). */
	d.port = 80;
	assert_false(grants_allow(&S, gettid(), &d, &which));
	assert_true(grants_allow_name(&S, "pypi.org"));
	assert_false(grants_allow_name(&S, "evil.example"));
	d.port = 443;
	d.name = "evil.example";
	assert_false(grants_allow(&S, gettid(), &d, &which));
}

static void
test_ended_install_is_forgotten(void **state)
{
	int p[2], st;
	pid_t child;
	char c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	if ((child = fork()) == 0) {
		close(p[1]);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	assert_true(child > 0);
	close(p[0]);
	grants_add(&S, child, "npm", hosts("registry.npmjs.org", 443), 1);
	assert_true(grants_allow_name(&S, "registry.npmjs.org"));
	assert_true(grants_running(&S, child, "npm"));
	/* The install ends: its grant goes at the next look, and a later
	 * process with its pid would not have its start time. */
	close(p[1]);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_false(grants_allow_name(&S, "registry.npmjs.org"));
	assert_int_equal(S.n_grants, 0);
}

/* A refusal is kept in the run's grants under the thread's process. */
static bool
refused(pid_t tid, const char *subject)
{
	return answers_refused(S.answers, KIND_PACKAGE, grants_tgid(tid),
	    subject, now_mono_ms());
}

static void
test_refused_recently(void **state)
{
	(void)state;
	assert_false(refused(gettid(), "pip install a"));
	grants_refuse(&S, gettid(), "pip install a");
	assert_true(refused(gettid(), "pip install a"));
	assert_false(refused(gettid(), "pip install b"));
	assert_false(refused(getppid(), "pip install a"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_install_opens_its_hosts,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_ended_install_is_forgotten,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_recently,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
