/* SPDX-License-Identifier: MIT */
/*
 * supervisor/gatewire.c: the wire to ward-gate over a real SEQPACKET
 * socketpair (messages, fds, short, oversized and malformed datagrams),
 * the start-up read, a fake gate started by gatewire_start (this test
 * binary itself, re-executed with the gate's argv), and the loopback
 * pairs (an intruder's connection on the same port never handed out).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "supervisor/gatewire.h"

static char self[4096];

static void
pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0, sv), 0);
}

static struct gate_msg
msg(enum gate_type t)
{
	struct gate_msg m;

	memset(&m, 0, sizeof m);
	m.type = t;
	return m;
}

static void
test_round_trip(void **state)
{
	int sv[2], fds[2], got[GATE_MAX_FDS];
	struct gate_msg m = msg(GATE_CONN), r;
	size_t n = 9;
	struct stat a, b;

	(void)state;
	pair(sv);
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	m.conn = 42;
	m.port = 443;
	gate_msg_set(m.host, sizeof m.host, "api.example.test");
	assert_int_equal(gate_msg_send(sv[0], &m, fds, 2), 0);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, GATE_MAX_FDS, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(r.type, GATE_CONN);
	assert_int_equal(r.conn, 42);
	assert_int_equal(r.port, 443);
	assert_string_equal(r.host, "api.example.test");
	/* The same files, new numbers, close-on-exec. */
	assert_int_equal(fstat(fds[0], &a), 0);
	assert_int_equal(fstat(got[0], &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_true(fcntl(got[1], F_GETFD) & FD_CLOEXEC);
	close(got[0]);
	close(got[1]);
	close(fds[0]);
	close(fds[1]);
	/* Nothing more: EAGAIN; the other end gone: EPIPE. */
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EAGAIN);
	close(sv[0]);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EPIPE);
	close(sv[1]);
}

static void
test_refused(void **state)
{
	int sv[2], fds[2], got[2];
	struct gate_msg m = msg(GATE_HTTP), r;
	char big[sizeof m + 16];
	size_t n;

	(void)state;
	pair(sv);
	/* Short. */
	assert_int_equal(send(sv[0], &m, sizeof m - 1, 0), (ssize_t)sizeof m - 1);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EPROTO);
	/* Oversized. */
	memset(big, 0, sizeof big);
	memcpy(big, &m, sizeof m);
	assert_int_equal(send(sv[0], big, sizeof big, 0), (ssize_t)sizeof big);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EPROTO);
	/* A string not terminated in its array. */
	memset(m.method, 'A', sizeof m.method);
	assert_int_equal(gate_msg_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EPROTO);
	/* A type out of range. */
	m = msg(GATE_REFRESH);
	m.type = GATE_REFRESH + 1;
	assert_int_equal(gate_msg_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EPROTO);
	m.type = 0;
	assert_int_equal(gate_msg_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), -EPROTO);
	/* More fds than the message may carry: refused, and closed. */
	m = msg(GATE_HTTP);
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	assert_int_equal(gate_msg_send(sv[0], &m, fds, 1), 0);
	close(fds[0]);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 0, &n), -EPROTO);
	/* Its only reader closed: the pipe's writer sees EPIPE. */
	assert_int_equal(write(fds[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(fds[1]);
	/* Too many fds for the sender too. */
	{
		int three[3] = { 0, 1, 2 };

		assert_int_equal(gate_msg_send(sv[0], &m, three, 3), -EINVAL);
	}
	/* A good one still reads after the bad ones. */
	m = msg(GATE_SECRET);
	gate_msg_set(m.name, sizeof m.name, "API_KEY");
	assert_int_equal(gate_msg_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(gate_msg_recv(sv[1], &r, got, 2, &n), 0);
	assert_string_equal(r.name, "API_KEY");
	close(sv[0]);
	close(sv[1]);
}

static void
test_set(void **state)
{
	char f[8];

	(void)state;
	gate_msg_set(f, sizeof f, "abc");
	assert_string_equal(f, "abc");
	gate_msg_set(f, sizeof f, "1234567");
	assert_string_equal(f, "1234567");
	gate_msg_set(f, sizeof f, "12345678");
	assert_string_equal(f, "1234...");
	/* "12" then a two-byte é at 2..3 and another at 4..5: cut before a
	 * continuation byte goes back to the character's start. */
	gate_msg_set(f, sizeof f, "123\xc3\xa9xyz");
	assert_string_equal(f, "123...");
}

static void
send_start(int wire, bool ready)
{
	struct gate_msg m = msg(GATE_PHANTOM);

	gate_msg_set(m.name, sizeof m.name, "API_KEY");
	gate_msg_set(m.text, sizeof m.text, "ward-phantom-0123abcd");
	assert_int_equal(gate_msg_send(wire, &m, NULL, 0), 0);
	if (ready) {
		m = msg(GATE_READY);
		gate_msg_set(m.path, sizeof m.path, "/run/x/gate/ca.pem");
		gate_msg_set(m.text, sizeof m.text, "/run/x/gate/bundle.pem");
	} else {
		m = msg(GATE_FAIL);
		gate_msg_set(m.text, sizeof m.text,
		    "[secret API_KEY] from = env:API_KEY: not set");
	}
	assert_int_equal(gate_msg_send(wire, &m, NULL, 0), 0);
}

static void
test_read_start(void **state)
{
	int sv[2];
	struct gatewire_ready r = { .pid = -1, .wire = -1 };
	cleanup_free char *cause = NULL;

	(void)state;
	pair(sv);
	send_start(sv[0], true);
	assert_int_equal(gatewire_read_start(sv[1], 1000, &r, &cause), 0);
	assert_int_equal(r.n_phantoms, 1);
	assert_string_equal(r.phantoms[0].name, "API_KEY");
	assert_string_equal(r.phantoms[0].value, "ward-phantom-0123abcd");
	assert_string_equal(r.ca, "/run/x/gate/ca.pem");
	assert_string_equal(r.bundle, "/run/x/gate/bundle.pem");
	gatewire_ready_done(&r);

	send_start(sv[0], false);
	assert_int_equal(gatewire_read_start(sv[1], 1000, &r, &cause), -EINVAL);
	assert_string_equal(cause, "[secret API_KEY] from = env:API_KEY: not set");
	gatewire_ready_done(&r);
	free(cause);
	cause = NULL;

	/* Silence: the timeout. */
	assert_int_equal(gatewire_read_start(sv[1], 50, &r, &cause),
	    -ETIMEDOUT);
	assert_non_null(strstr(cause, "not ready"));
	free(cause);
	cause = NULL;

	/* A phantom that is no token (a newline in it). */
	{
		struct gate_msg m = msg(GATE_PHANTOM);

		gate_msg_set(m.name, sizeof m.name, "K");
		gate_msg_set(m.text, sizeof m.text, "a\nb");
		assert_int_equal(gate_msg_send(sv[0], &m, NULL, 0), 0);
		assert_int_equal(gatewire_read_start(sv[1], 1000, &r, &cause),
		    -EPROTO);
		gatewire_ready_done(&r);
	}
	/* Nor one that is not a phantom's form: a bug that announced the
	 * value would put it in the sandbox's environment. */
	{
		static const char *const bad[] = {
			"sk-live-0123456789abcdef", "ward-phantom-",
			"ward-phantom-0123", "ward-phantom-0123abcd-x",
			"ward-phantom-0123ABCD",
		};

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			struct gate_msg m = msg(GATE_PHANTOM);

			gate_msg_set(m.name, sizeof m.name, "K");
			gate_msg_set(m.text, sizeof m.text, bad[i]);
			assert_int_equal(gate_msg_send(sv[0], &m, NULL, 0), 0);
			free(cause);
			cause = NULL;
			assert_int_equal(gatewire_read_start(sv[1], 1000, &r,
			    &cause), -EPROTO);
			gatewire_ready_done(&r);
		}
	}
	close(sv[0]);
	assert_int_equal(gatewire_read_start(sv[1], 1000, &r, &cause), -EPIPE);
	gatewire_ready_done(&r);
	close(sv[1]);
}

/* This binary as the fake gate: argv[1] "fake-gate", fd 3 its wire. */
static int
fake_gate(const char *how)
{
	int fd;

	/* No fd but 0..3 was left open. */
	for (fd = 4; fd < 64; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			return 3;
	if (strcmp(how, "ready") == 0) {
		struct gate_msg m = msg(GATE_READY);

		gate_msg_set(m.path, sizeof m.path, "/x/ca.pem");
		gate_msg_set(m.text, sizeof m.text, "/x/bundle.pem");
		if (gate_msg_send(GATE_WIRE_FD, &m, NULL, 0) < 0)
			return 4;
		/* Until the wire closes. */
		{
			struct pollfd p = { GATE_WIRE_FD, POLLIN, 0 };

			poll(&p, 1, 10000);
		}
		return 0;
	}
	/* Its stdio is /dev/null. */
	{
		struct stat a, b;

		if (stat("/dev/null", &a) < 0 || fstat(2, &b) < 0 ||
		    a.st_rdev != b.st_rdev)
			return 5;
	}
	if (strcmp(how, "exit3") == 0)
		return 3;
	return 1;	/* "die": ends before it is ready */
}

static void
test_start(void **state)
{
	struct gatewire_ready r;
	cleanup_free char *cause = NULL;
	int status, spare = open("/dev/null", O_RDONLY);

	(void)state;
	/* spare: an fd of ours the gate must not get (not cloexec). */
	assert_true(spare >= 0);
	assert_int_equal(gatewire_start(self, "ready", "-", 5000, &r, &cause),
	    0);
	assert_true(r.pid > 0);
	assert_string_equal(r.bundle, "/x/bundle.pem");
	closep(&r.wire);
	assert_int_equal(waitpid(r.pid, &status, 0), r.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	gatewire_ready_done(&r);

	assert_int_equal(gatewire_start(self, "die", "-", 5000, &r, &cause),
	    -EPIPE);
	assert_non_null(strstr(cause, "ended before"));
	assert_int_equal(r.pid, -1);
	free(cause);
	cause = NULL;
	assert_int_equal(gatewire_start(self, "exit3", "-", 5000, &r, &cause),
	    -EPIPE);
	assert_non_null(strstr(cause, "(exit status 3)"));
	free(cause);
	cause = NULL;
	assert_true(gatewire_start("/nonexistent/ward-gate", "-", "-", 5000,
	    &r, &cause) < 0);
	assert_non_null(strstr(cause, "cannot run /nonexistent/ward-gate"));
	close(spare);
}

static void
test_pair(int family)
{
	int l = -1, c = -1, sv = -1, intruder;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char buf[8];
	int r = gatewire_listen(family, &l);

	if (family == AF_INET6 && r == -EADDRNOTAVAIL)
		skip();
	assert_int_equal(r, 0);
	/* Someone else connects first: not handed out. */
	assert_int_equal(getsockname(l, (struct sockaddr *)&ss, &sl), 0);
	intruder = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(intruder, (struct sockaddr *)&ss, sl), 0);
	assert_int_equal(gatewire_pair(l, &c, &sv), 0);
	assert_int_equal(write(c, "hi", 2), 2);
	{
		struct pollfd p = { sv, POLLIN, 0 };

		assert_int_equal(poll(&p, 1, 1000), 1);
	}
	assert_int_equal(read(sv, buf, sizeof buf), 2);
	assert_memory_equal(buf, "hi", 2);
	/* The intruder's connection was closed. */
	assert_int_equal(read(intruder, buf, sizeof buf), 0);
	assert_true(fcntl(c, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(sv, F_GETFD) & FD_CLOEXEC);
	close(intruder);
	close(c);
	close(sv);
	close(l);
}

static void
test_pair4(void **state)
{
	(void)state;
	test_pair(AF_INET);
}

static void
test_pair6(void **state)
{
	(void)state;
	test_pair(AF_INET6);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_read_start),
		cmocka_unit_test(test_start),
		cmocka_unit_test(test_pair4),
		cmocka_unit_test(test_pair6),
	};
	ssize_t n;

	if (argc == 3)
		return fake_gate(argv[1]);
	signal(SIGPIPE, SIG_IGN);
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		return 2;
	self[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
