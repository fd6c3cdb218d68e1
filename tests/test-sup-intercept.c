/* SPDX-License-Identifier: MIT */
/*
 * supervisor/intercept.c against a fake ward-gate (this test binary
 * re-executed as `self POLICY RUNDIR`, its wire on fd 3): start-up and
 * phantoms, a connection handed over (both fds arrive, the loopback pair
 * carries bytes), GATE_HTTP/SECRET/ERROR as events of kinds http and
 * secret, GATE_ASK parked as a request of kind http and its answer sent
 * back, and the gate's end: an event, and no pair for later connects.
 * A real run's record (in memory) and a console's end of the protocol.
 */
#include <errno.h>
#include <fcntl.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "approvals/decide.h"
#include "config/util.h"
#include "supervisor/gatewire.h"
#include "supervisor/intercept.h"
#include "supervisor/sup.h"
#include "supervisor/unotify.h"

static char self[4096];

/* ---- the fake gate --------------------------------------------------- */

static void
say(enum gate_type t, const char *name, const char *text, uint64_t req,
    uint32_t verdict, const char *path)
{
	struct gate_msg m;

	memset(&m, 0, sizeof m);
	m.type = t;
	m.req = req;
	m.verdict = verdict;
	m.port = 443;
	m.status = t == GATE_HTTP ? 200 : 0;
	m.bytes_up = 81;
	m.bytes_down = 167;
	gate_msg_set(m.method, sizeof m.method, "GET");
	gate_msg_set(m.host, sizeof m.host, "api.test");
	gate_msg_set(m.name, sizeof m.name, name);
	gate_msg_set(m.text, sizeof m.text, text);
	gate_msg_set(m.path, sizeof m.path, path);
	gate_msg_set(m.rule, sizeof m.rule, t == GATE_ASK ?
	    "api.test:443 GET /v1/**" : "");
	/* The fake waits for room (the supervisor reads in rounds). */
	while (gate_msg_send(GATE_WIRE_FD, &m, NULL, 0) == -EAGAIN) {
		struct pollfd p = { GATE_WIRE_FD, POLLOUT, 0 };

		(void)poll(&p, 1, 1000);
	}
}

/* Blocking read of the next message. */
static int
hear(struct gate_msg *m, int *fds, size_t *n)
{
	for (;;) {
		struct pollfd p = { GATE_WIRE_FD, POLLIN, 0 };
		int r = gate_msg_recv(GATE_WIRE_FD, m, fds, GATE_MAX_FDS, n);

		if (r != -EAGAIN)
			return r;
		if (poll(&p, 1, 10000) != 1)
			return -ETIMEDOUT;
	}
}

#define MANY	150	/* more answers than the wire holds at once */

/* Asks MANY, reads nothing for a while (the supervisor's answers fill
 * the wire), then counts the answers and says how many came in order. */
static int
fake_gate_full(void)
{
	struct gate_msg m;
	int fds[GATE_MAX_FDS];
	size_t n;
	uint32_t good = 0;

	say(GATE_READY, "", "/x/gate/bundle.pem", 0, 0, "/x/gate/ca.pem");
	for (uint64_t i = 1; i <= MANY; i++)
		say(GATE_ASK, "", "", i, 0, "/v2/asked");
	sleep(2);
	for (uint64_t i = 1; i <= MANY; i++) {
		if (hear(&m, fds, &n) < 0 || m.type != GATE_ANSWER)
			break;
		if (m.req == i && m.verdict == GATE_DENY_PERSON)
			good++;
	}
	memset(&m, 0, sizeof m);
	m.type = GATE_HTTP;
	m.status = good;
	gate_msg_set(m.path, sizeof m.path, "/count");
	(void)gate_msg_send(GATE_WIRE_FD, &m, NULL, 0);
	return 0;
}

static int
fake_gate(const char *how)
{
	struct gate_msg m;
	int fds[GATE_MAX_FDS];
	size_t n;

	if (strcmp(how, "full") == 0)
		return fake_gate_full();
	if (strcmp(how, "last") == 0) {
		/* Its last words: a request that ended as the run did, said
		 * once the supervisor's end of the wire is shut. */
		say(GATE_READY, "", "/x/gate/bundle.pem", 0, 0,
		    "/x/gate/ca.pem");
		if (hear(&m, fds, &n) != -EPIPE)
			return 13;
		say(GATE_HTTP, "", "", 0, GATE_ALLOW, "/last/words");
		return 0;
	}

	say(GATE_PHANTOM, "TOKEN", "ward-phantom-0123abcd", 0, 0, "");
	/* Not a [secret] of the policy: never the sandbox's. */
	say(GATE_PHANTOM, "LD_PRELOAD", "ward-phantom-4567ef01", 0, 0, "");
	say(GATE_READY, "", "/x/gate/bundle.pem", 0, 0, "/x/gate/ca.pem");
	if (hear(&m, fds, &n) < 0 || m.type != GATE_CONN || n != 2 ||
	    strcmp(m.host, "api.test") != 0 || m.port != 443)
		return 10;
	/* Through the pair: the sandbox's end reads it. */
	if (write(fds[0], "ok", 2) != 2)
		return 11;
	say(GATE_HTTP, "TOKEN", "", 0, GATE_ALLOW, "/v1/x");
	say(GATE_SECRET, "TOKEN", "header authorization", 0,
	    GATE_DENY_SECRET, "/leak");
	say(GATE_ERROR, "", "upstream certificate: unable to get local "
	    "issuer certificate", 0, 0, "");
	say(GATE_ASK, "", "", 7, 0, "/v2/asked");
	if (hear(&m, fds, &n) < 0 || m.type != GATE_ANSWER || m.req != 7)
		return 12;
	say(GATE_HTTP, "", "", 0, m.verdict, m.verdict == GATE_ALLOW ?
	    "/answer/allow" : "/answer/deny");
	return 0;
}

/* ---- the fixture ----------------------------------------------------- */

static struct sup S;
static int console = -1;
static struct proto_conn *console_conn;

static int
setup(void **state)
{
	char *cause = NULL;
	int sv[2];

	(void)state;
	memset(&S, 0, sizeof S);
	snprintf(S.id, sizeof S.id, "abcd1234");
	policy_init(&S.policy);
	S.policy.ask_timeout = 120;
	/* The [secret] the fake gate announces a phantom for. */
	S.policy.secrets = xcalloc(1, sizeof *S.policy.secrets);
	S.policy.secrets[0].name = xstrdup("TOKEN");
	S.policy.n_secrets = 1;
	S.policy_path = "/nonexistent/policy.ini";
	S.run_dir = "/nonexistent/run";
	S.rules = rules_new();
	S.answers = answers_new();
	S.queue = queue_new(sup_parked_free, NULL);
	assert_int_equal(audit_open(":memory:", &S.audit, &cause), 0);
	S.listener = -1;
	S.pty = S.out_fd = S.err_fd = -1;
	S.resp_size = sizeof *S.resp;
	S.resp = xcalloc(1, S.resp_size);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0, sv), 0);
	{
		/* A small socket, so that every test has the supervisor's
		 * queue to flush, as a slow console would (console_all). */
		int size = 4096;

		assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF,
		    &size, sizeof size), 0);
	}
	S.clients[0].conn = proto_conn_new(sv[0]);
	S.clients[0].watch = true;
	console = sv[1];
	console_conn = proto_conn_new(console);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	intercept_stop(&S);
	queue_free(S.queue);
	rules_free(S.rules);
	answers_free(S.answers);
	audit_close(S.audit);
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		if (S.clients[i].conn != NULL)
			sup_drop(&S, i);
	proto_conn_free(console_conn);
	console_conn = NULL;
	free(S.resp);
	policy_done(&S.policy);
	return 0;
}

/* Every message the console got so far, as one JSON text per line. What
 * did not fit the socket waits in the supervisor's queue for the loop's
 * POLLOUT, which no loop here gives: it is flushed as the console reads,
 * or the last messages (the ones a test waits for) would never come. */
static char *
console_all(void)
{
	struct proto_conn *sup_end = S.clients[0].conn;
	char *all = xstrdup("");
	json_t *m = NULL;
	char *cause = NULL;

	for (int round = 0; round < 10000; round++) {
		ssize_t r;

		if (sup_end != NULL)
			(void)proto_flush(sup_end);
		r = proto_read(console_conn);
		while (proto_next(console_conn, &m, &cause) == 1) {
			char *t = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
			char *n = xasprintf("%s%s\n", all, t);

			free(t);
			free(all);
			all = n;
			json_decref(m);
		}
		if (r <= 0 && (sup_end == NULL || proto_queued(sup_end) == 0))
			break;
	}
	free(cause);
	return all;
}

/* Read the gate until cond holds (or 5 s pass). */
static void
pump_until(bool (*cond)(void))
{
	int64_t end = now_mono_ms() + 5000;

	while (!cond() && now_mono_ms() < end) {
		struct pollfd p = { intercept_fd(&S), POLLIN, 0 };

		if (p.fd < 0)
			break;
		(void)poll(&p, 1, 100);
		if (p.revents != 0)
			intercept_on_ready(&S, p.revents);
	}
}

static bool
asked(void)
{
	return queue_len(S.queue) == 1;
}

static bool
gone(void)
{
	return !intercept_alive(&S, NULL);
}

static void
test_wanted(void **state)
{
	struct policy p;
	struct policy_host h = { .host = "api.test", .port_lo = 443,
	    .port_hi = 443 };

	(void)state;
	policy_init(&p);
	assert_false(intercept_wanted(&p));
	p.net_allow = &h;
	p.n_net_allow = 1;
	assert_false(intercept_wanted(&p));
	h.method = "GET";
	assert_true(intercept_wanted(&p));
	h.method = NULL;
	h.path = "/v1/**";
	assert_true(intercept_wanted(&p));
	p.net_allow = NULL;
	p.n_net_allow = 0;
	policy_done(&p);
}

static void
test_gate(void **state)
{
	cleanup_free char *cause = NULL, *seen = NULL, *after = NULL;
	const struct gatewire_phantom *ph;
	int client = -1, server = -1, hostfd, pfd[2];
	char buf[4];
	size_t n;
	const struct request *r;

	(void)state;
	assert_null(intercept_phantom_in(&S, "ward-phantom-0123abcd"));
	assert_int_equal(intercept_start(&S, self, &cause), 0);
	assert_int_equal(intercept_ready(&S, &cause), 0);
	ph = intercept_phantoms(&S, &n);
	assert_int_equal(n, 1);
	assert_string_equal(ph[0].name, "TOKEN");
	assert_string_equal(intercept_ca(&S), "/x/gate/ca.pem");
	assert_string_equal(intercept_bundle(&S), "/x/gate/bundle.pem");
	/* A phantom in a name, in any case. */
	assert_string_equal(intercept_phantom_in(&S,
	    "x.WARD-PHANTOM-0123ABCD.evil.test"), "TOKEN");
	assert_null(intercept_phantom_in(&S, "api.test"));

	/* A connection handed over: its pair carries the gate's bytes. */
	assert_int_equal(intercept_pair(&S, AF_INET, &client, &server), 0);
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	hostfd = pfd[0];
	assert_int_equal(intercept_conn(&S, &server, &hostfd, "api.test",
	    443), 0);
	assert_int_equal(server, -1);
	assert_int_equal(hostfd, -1);
	{
		struct pollfd p = { client, POLLIN, 0 };

		assert_int_equal(poll(&p, 1, 5000), 1);
		assert_int_equal(read(client, buf, sizeof buf), 2);
		assert_memory_equal(buf, "ok", 2);
	}
	close(client);
	close(pfd[1]);

	/* What it says: events, then a request of kind http. */
	pump_until(asked);
	assert_int_equal(queue_len(S.queue), 1);
	r = queue_at(S.queue, 0);
	assert_int_equal(r->kind, KIND_HTTP);
	assert_string_equal(r->subject, "api.test:443 GET /v2/asked");
	assert_string_equal(r->why, "api.test:443 GET /v1/**");
	seen = console_all();
	assert_non_null(strstr(seen, "\"kind\":\"http\",\"pid\":0,"
	    "\"request\":0,\"rule\":null,\"subject\":\"api.test:443 GET "
	    "/v1/x\""));
	assert_non_null(strstr(seen, "\"detail\":\"status 200, 81 B up, "
	    "167 B down, secret TOKEN\""));
	assert_non_null(strstr(seen, "\"subject\":\"TOKEN to api.test:443\""));
	assert_non_null(strstr(seen, "\"detail\":\"in header authorization; "
	    "GET /leak\""));
	assert_non_null(strstr(seen, "upstream certificate: unable"));
	assert_non_null(strstr(seen, "\"type\":\"request\""));

	/* Answered: the gate hears it, and tells what came of it. */
	unotify_resolve(&S, r->id, VERDICT_ALLOW, HOW_PERSON, "test", NULL);
	assert_int_equal(queue_len(S.queue), 0);
	pump_until(gone);
	after = console_all();
	assert_non_null(strstr(after, "/answer/allow"));
	assert_null(strstr(after, "/answer/deny"));
	/* Then it exited: said once, and nothing more is handed to it. */
	assert_non_null(strstr(after, "\"subject\":\"ward-gate\""));
	assert_false(intercept_alive(&S, NULL));
	assert_int_equal(intercept_pair(&S, AF_INET, &client, &server),
	    -ECONNREFUSED);
}

static bool
all_asked(void)
{
	return queue_len(S.queue) == MANY;
}

static char *heard;	/* the console's messages, gathered */

static bool
counted(void)
{
	cleanup_free char *more = console_all();
	char *all = xasprintf("%s%s", heard != NULL ? heard : "", more);

	free(heard);
	heard = all;
	return strstr(heard, "/count") != NULL;
}

/* Answers while the gate reads nothing: none is lost, none out of order,
 * and the loop polls for room meanwhile. */
static void
test_full_wire(void **state)
{
	cleanup_free char *cause = NULL;
	bool waited = false;

	(void)state;
	S.policy_path = "full";
	assert_int_equal(intercept_start(&S, self, &cause), 0);
	assert_int_equal(intercept_ready(&S, &cause), 0);
	pump_until(all_asked);
	assert_int_equal(queue_len(S.queue), MANY);
	while (queue_len(S.queue) > 0)
		unotify_resolve(&S, queue_at(S.queue, 0)->id, VERDICT_DENY,
		    HOW_PERSON, "test", NULL);
	waited = (intercept_events(&S) & POLLOUT) != 0;
	assert_true(waited);
	assert_true(intercept_alive(&S, NULL));
	/* The gate wakes and reads; we flush as the wire has room. */
	{
		int64_t end = now_mono_ms() + 10000;

		while (now_mono_ms() < end && intercept_alive(&S, NULL)) {
			struct pollfd p = { intercept_fd(&S),
			    intercept_events(&S), 0 };

			(void)poll(&p, 1, 100);
			if (p.revents != 0)
				intercept_on_ready(&S, p.revents);
			if (!(intercept_events(&S) & POLLOUT))
				break;
		}
	}
	assert_false(intercept_events(&S) & POLLOUT);
	pump_until(counted);
	assert_non_null(strstr(heard, "\"detail\":\"status 150, "));
	free(heard);
	heard = NULL;
}

/* The run's end hears what the gate still says before it is reaped. */
static void
test_last_words(void **state)
{
	cleanup_free char *cause = NULL, *seen = NULL;

	(void)state;
	S.policy_path = "last";
	assert_int_equal(intercept_start(&S, self, &cause), 0);
	assert_int_equal(intercept_ready(&S, &cause), 0);
	free(console_all());
	intercept_stop(&S);
	assert_null(S.gate);
	seen = console_all();
	assert_non_null(strstr(seen, "/last/words"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wanted),
		cmocka_unit_test_setup_teardown(test_gate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_wire, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_last_words, setup,
		    teardown),
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
