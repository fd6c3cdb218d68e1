/* SPDX-License-Identifier: MIT */
/* The ward-gate program itself (supervisor/gate/main.c), run as the
 * supervisor runs it: POLICY RUNDIR, the wire on fd 3. Start-up
 * messages, the files it writes, a failure named, its end with the
 * wire's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/util.h"
#include "supervisor/gate/wire.h"

/* $(BUILD)/bin/ward-gate, beside this test's folder: the one built
 * with the same flags (make asan's is sanitized too). */
static char gate[4096];

static const char *
gate_bin(void)
{
	return gate;
}

static pid_t
start(const char *policy, const char *rundir, int *wire)
{
	int sv[2];
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(sv[1], GATE_WIRE_FD);
		execl(gate_bin(), "ward-gate", policy, rundir, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	*wire = sv[0];
	return pid;
}

static struct gate_msg
next_msg(int wire)
{
	struct pollfd p = { .fd = wire, .events = POLLIN };
	struct gate_msg m = { 0 };
	int fds[2];
	size_t nfds;

	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_int_equal(gate_msg_recv(wire, &m, fds, GATE_MAX_FDS, &nfds), 0);
	return m;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = xcalloc(1, 1 << 20);

	assert_non_null(f);
	s[fread(s, 1, (1 << 20) - 1, f)] = '\0';
	fclose(f);
	return s;
}

static void
test_ready_and_files(void **state)
{
	char dir[] = "/tmp/ward-test-gate-main-XXXXXX";
	cleanup_free char *policy = NULL, *ca = NULL, *bundle = NULL;
	cleanup_free char *capem = NULL, *bpem = NULL;
	struct gate_msg m;
	struct stat st;
	int wire, status = 0;
	FILE *f;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	policy = xasprintf("%s/policy.ini", dir);
	f = fopen(policy, "w");
	fputs("[network]\nallow = example.test:443\n", f);
	fclose(f);
	/* RUNDIR relative: READY still names absolute paths (the
	 * supervisor binds them into the sandbox). */
	assert_int_equal(chdir("/tmp"), 0);
	pid = start(policy, dir + strlen("/tmp/"), &wire);
	m = next_msg(wire);
	assert_int_equal(m.type, GATE_READY);
	ca = xasprintf("%s/gate/ca.pem", dir);
	bundle = xasprintf("%s/gate/bundle.pem", dir);
	assert_string_equal(m.path, ca);
	assert_string_equal(m.text, bundle);
	assert_int_equal(stat(ca, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	capem = slurp(ca);
	bpem = slurp(bundle);
	assert_true(strncmp(capem, "-----BEGIN CERTIFICATE-----", 27) == 0);
	assert_null(strstr(capem, "PRIVATE"));
	assert_null(strstr(bpem, "PRIVATE"));
	/* The bundle ends with the run's CA. */
	assert_true(strlen(bpem) >= strlen(capem));
	assert_string_equal(bpem + strlen(bpem) - strlen(capem), capem);
	/* Closing the wire ends it. */
	close(wire);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink(ca);
	unlink(bundle);
	unlink(policy);
	free(ca);
	ca = xasprintf("%s/gate", dir);
	rmdir(ca);
	rmdir(dir);
}

static void
test_fail_named(void **state)
{
	struct gate_msg m;
	int wire, status = 0;
	pid_t pid;

	(void)state;
	pid = start("/nonexistent/ward-policy.ini", "/tmp", &wire);
	m = next_msg(wire);
	assert_int_equal(m.type, GATE_FAIL);
	assert_non_null(strstr(m.text, "/nonexistent/ward-policy.ini"));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	close(wire);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_and_files),
		cmocka_unit_test(test_fail_named),
	};

	(void)argc;
	snprintf(gate, sizeof gate, "%s", argv[0]);
	if (strrchr(gate, '/') != NULL)
		*strrchr(gate, '/') = '\0';
	else
		snprintf(gate, sizeof gate, ".");
	strncat(gate, "/../bin/ward-gate", sizeof gate - strlen(gate) - 1);
	{
		/* Absolute: a test moves to /tmp. */
		char *abs = realpath(gate, NULL);

		if (abs != NULL) {
			snprintf(gate, sizeof gate, "%s", abs);
			free(abs);
		}
	}
	if (access(gate_bin(), X_OK) != 0) {
		fprintf(stderr, "test-gate-main: %s not built\n", gate_bin());
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
