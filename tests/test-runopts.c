/* SPDX-License-Identifier: MIT */
/* approvals/runopts.c: `ward run`'s one parse, for ward's front and ward-tui. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "approvals/runopts.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static int
argc_of(char **argv)
{
	int n = 0;

	while (argv[n] != NULL)
		n++;
	return n;
}

static void
test_options_to_supervisor(void **state)
{
	char **argv = ARGV("run", "--policy", "/p.ini", "--name", "n1",
	    "--in", "/data", "--project", "/src", "--timeout", "30",
	    "--chdir", "/out", "--status-fd", "3", "--no-landlock",
	    "--headless", "--", "sh", "-c", "true");
	const char *want[] = { "ward-supervisor", "--policy", "/p.ini",
	    "--name", "n1", "--in", "/data", "--project", "/src",
	    "--timeout", "30", "--chdir", "/out", "--status-fd", "3",
	    "--no-landlock" };
	struct runopts r;

	(void)state;
	assert_int_equal(runopts_parse(argc_of(argv), argv, &r), 0);
	assert_true(r.headless);
	assert_false(r.passthru);
	assert_int_equal(r.agent, AGENT_AUTO);
	assert_string_equal(argv[r.cmd], "sh");
	assert_int_equal(r.l.argc, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(r.l.argv[i], want[i]);
	launch_done(&r.l);
}

/* The command's own options are its own: parsing stops at CMD. */
static void
test_stops_at_command(void **state)
{
	char **argv = ARGV("run", "--name", "x", "ls", "--headless", "-h");
	struct runopts r;

	(void)state;
	assert_int_equal(runopts_parse(6, argv, &r), 0);
	assert_false(r.headless);
	assert_string_equal(argv[r.cmd], "ls");
	launch_done(&r.l);

	argv = ARGV("run", "--headless");
	assert_int_equal(runopts_parse(2, argv, &r), 0);
	assert_int_equal(r.cmd, 2);	/* no command: run_main says so */
	launch_done(&r.l);
}

static void
test_console_flags(void **state)
{
	char **argv = ARGV("run", "--agent", "--view", "--split", "--", "a");
	struct runopts r;

	(void)state;
	assert_int_equal(runopts_parse(6, argv, &r), 0);
	assert_int_equal(r.agent, AGENT_ON);
	assert_true(r.view);
	assert_true(r.passthru);
	assert_true(r.split);
	/* None of them is the supervisor's. */
	assert_int_equal(r.l.argc, 1);
	launch_done(&r.l);

	argv = ARGV("run", "--agent", "--lines", "--pass-through", "--", "a");
	assert_int_equal(runopts_parse(6, argv, &r), 0);
	assert_int_equal(r.agent, AGENT_OFF);	/* the last one */
	assert_true(r.passthru);
	assert_false(r.split);
	launch_done(&r.l);
}

static void
test_bad_options(void **state)
{
	struct runopts r;

	(void)state;
	assert_int_equal(runopts_parse(3, ARGV("run", "--bogus", "x"), &r),
	    '?');
	launch_done(&r.l);
	assert_int_equal(optind, 2);	/* past it, for usage_bad_option() */
	assert_int_equal(runopts_parse(2, ARGV("run", "--policy"), &r), ':');
	launch_done(&r.l);
	assert_int_equal(runopts_parse(3, ARGV("run", "-h", "x"), &r), 'h');
	launch_done(&r.l);
	assert_int_equal(runopts_parse(3, ARGV("run", "--help", "x"), &r), 'h');
	launch_done(&r.l);
}

/* fd onto 0 and 1 for fn, then back. */
static bool
with_stdio(int in, int out, bool (*fn)(const struct runopts *),
    const struct runopts *r)
{
	int save0 = dup(STDIN_FILENO), save1 = dup(STDOUT_FILENO);
	bool v;

	assert_true(save0 >= 0 && save1 >= 0);
	fflush(stdout);
	assert_int_equal(dup2(in, STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(dup2(out, STDOUT_FILENO), STDOUT_FILENO);
	v = fn(r);
	dup2(save0, STDIN_FILENO);
	dup2(save1, STDOUT_FILENO);
	close(save0);
	close(save1);
	return v;
}

/* On a real terminal, only --headless; off one (a socket, here), always;
 * --pass-through never (its checks are run_main's). */
static void
test_headless_now(void **state)
{
	struct runopts r;
	int ptm, pty, sp[2];

	(void)state;
	/* The master stays open: a pty without one is hung up. */
	ptm = posix_openpt(O_RDWR | O_NOCTTY);
	if (ptm < 0 || grantpt(ptm) < 0 || unlockpt(ptm) < 0)
		fail_msg("posix_openpt: %s", strerror(errno));
	pty = open(ptsname(ptm), O_RDWR | O_NOCTTY);
	assert_true(pty >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);

	assert_int_equal(runopts_parse(3, ARGV("run", "--", "a"), &r), 0);
	assert_false(with_stdio(pty, pty, runopts_headless_now, &r));
	assert_true(with_stdio(sp[0], pty, runopts_headless_now, &r));
	assert_true(with_stdio(pty, sp[0], runopts_headless_now, &r));
	r.headless = true;
	assert_true(with_stdio(pty, pty, runopts_headless_now, &r));
	r.headless = false;
	r.passthru = true;
	assert_false(with_stdio(sp[0], sp[0], runopts_headless_now, &r));
	launch_done(&r.l);
	close(pty);
	close(ptm);
	close(sp[0]);
	close(sp[1]);
}

/* The exec itself: a stand-in supervisor (a script) is handed exactly
 * the options, --headless and the command. */
static void
test_exec_headless(void **state)
{
	char dir[] = "/tmp/ward-test-runopts.XXXXXX";
	char **argv = ARGV("run", "--name", "n", "--", "cmd", "--x", "y");
	cleanup_free char *sup = NULL, *out = NULL;
	struct runopts r;
	int status;
	pid_t pid;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sup = xasprintf("%s/sup", dir);
	out = xasprintf("%s/argv", dir);
	assert_non_null(f = fopen(sup, "w"));
	fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$0\" \"$@\" >'%s'\n", out);
	fclose(f);
	assert_int_equal(chmod(sup, 0755), 0);

	assert_int_equal(runopts_parse(argc_of(argv), argv, &r), 0);
	free(r.l.path);
	r.l.path = xstrdup(sup);
	if ((pid = fork()) == 0)
		_exit(runopts_exec_headless(&r, 7, argv));
	launch_done(&r.l);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	{
		cleanup_free char *want = xasprintf("%s\n--name\nn\n"
		    "--headless\n--\ncmd\n--x\ny\n", sup);
		char buf[512];
		size_t n;

		assert_non_null(f = fopen(out, "r"));
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		assert_string_equal(buf, want);
	}

	/* No such supervisor: said, and 125. */
	assert_int_equal(runopts_parse(7, argv, &r), 0);
	free(r.l.path);
	r.l.path = xasprintf("%s/none", dir);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDERR_FILENO);
		_exit(runopts_exec_headless(&r, 7, argv));
	}
	launch_done(&r.l);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 125);
	unlink(sup);
	unlink(out);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_to_supervisor),
		cmocka_unit_test(test_stops_at_command),
		cmocka_unit_test(test_console_flags),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_headless_now),
		cmocka_unit_test(test_exec_headless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
