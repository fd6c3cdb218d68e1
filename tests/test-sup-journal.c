/* SPDX-License-Identifier: MIT */
/*
 * supervisor/journal.c: the record mirrored to journald's native protocol
 * and to RFC 5424 syslog, on datagram sockets the test binds; a daemon
 * that stops reading never blocks the sender, it only counts drops.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "supervisor/journal.h"

static char dir[] = "/tmp/ward-test-journal-XXXXXX";

static int
bind_dgram(const char *name, char **path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	*path = xasprintf("%s/%s", dir, name);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", *path);
	unlink(*path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	return fd;
}

static const struct audit_event ev_deny = {
	.run = "1a2b3c4d", .time_ms = 1764587018123, .pid = 42,
	.kind = KIND_WRITE, .syscall = "openat",
	.subject = "/etc/evil\nWARD_VERDICT=allow", .verdict = VERDICT_DENY,
	.how = HOW_PERSON, .decided_by = "uid 1000 (alice) pid 7 via cli",
	.wait_ms = 1500, .request_id = 3,
};

/* The value of KEY in a native datagram, binary fields understood. */
static char *
native_get(const char *buf, size_t len, const char *key)
{
	const char *p = buf, *end = buf + len;
	size_t klen = strlen(key);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)(end - p));

		assert_non_null(nl);
		if (eq != NULL && eq < nl) {
			if ((size_t)(eq - p) == klen && memcmp(p, key, klen) == 0)
				return xstrndup(eq + 1, (size_t)(nl - eq - 1));
			p = nl + 1;
		} else {
			uint64_t n = 0;

			for (int i = 7; i >= 0; i--)
				n = n << 8 | (unsigned char)nl[1 + i];
			if ((size_t)(nl - p) == klen && memcmp(p, key, klen) == 0)
				return xstrndup(nl + 9, (size_t)n);
			p = nl + 9 + n + 1;
		}
	}
	return NULL;
}

static void
test_native_fields(void **state)
{
	size_t len;
	char *d = journal_native(&ev_deny, "done", &len);
	cleanup_free char *v = NULL, *subj = NULL, *msg = NULL;

	(void)state;
	/* A newline in the subject travels as a binary field: it cannot
	 * forge WARD_VERDICT. */
	v = native_get(d, len, "WARD_VERDICT");
	assert_string_equal(v, "deny");
	subj = native_get(d, len, "WARD_SUBJECT");
	assert_string_equal(subj, ev_deny.subject);
	msg = native_get(d, len, "MESSAGE");
	assert_null(strchr(msg, '\n'));
	assert_string_equal(msg, "run 1a2b3c4d write deny: "
	    "/etc/evil\\nWARD_VERDICT=allow (person, uid 1000 (alice) pid 7 "
	    "via cli) done");
	free(v);
	v = native_get(d, len, "WARD_WAIT_MS");
	assert_string_equal(v, "1500");
	free(v);
	v = native_get(d, len, "WARD_REQUEST");
	assert_string_equal(v, "3");
	free(v);
	v = native_get(d, len, "WARD_DECIDED_BY");
	assert_string_equal(v, "uid 1000 (alice) pid 7 via cli");
	free(v);
	v = native_get(d, len, "WARD_RUN");
	assert_string_equal(v, "1a2b3c4d");
	free(v);
	v = native_get(d, len, "WARD_HOW");
	assert_string_equal(v, "person");
	free(v);
	v = native_get(d, len, "WARD_KIND");
	assert_string_equal(v, "write");
	free(v);
	v = native_get(d, len, "PRIORITY");
	assert_string_equal(v, "5");
	free(d);
}

static void
test_rfc5424(void **state)
{
	size_t len;
	cleanup_free char *d = journal_rfc5424(&ev_deny, NULL, "build1", 99,
	    &len);

	(void)state;
	assert_int_equal(strlen(d), len);
	assert_string_equal(d, "<13>1 2025-12-01T11:03:38.123Z build1 ward 99 "
	    "- [ward@32473 run=\"1a2b3c4d\" kind=\"write\" verdict=\"deny\" "
	    "how=\"person\" subject=\"/etc/evil\\\\nWARD_VERDICT=allow\" "
	    "decided_by=\"uid 1000 (alice) pid 7 via cli\" wait_ms=\"1500\" "
	    "request=\"3\"] run 1a2b3c4d write deny: "
	    "/etc/evil\\nWARD_VERDICT=allow (person, uid 1000 (alice) pid 7 "
	    "via cli)");
}

static void
test_sockets(void **state)
{
	cleanup_free char *jp = NULL, *sp = NULL;
	int jfd = bind_dgram("journal", &jp), sfd = bind_dgram("syslog", &sp);
	struct journal *j;
	char buf[8192];
	ssize_t n;

	(void)state;
	setenv("WARD_JOURNAL_SOCKET", jp, 1);
	setenv("WARD_SYSLOG_SOCKET", sp, 1);
	assert_null(journal_open(JOURNAL_OFF, false));
	j = journal_open(JOURNAL_AUTO, true);
	assert_non_null(j);
	journal_send(j, &ev_deny, NULL);
	assert_int_equal(journal_sent(j), 2);
	assert_int_equal(journal_dropped(j), 0);
	n = recv(jfd, buf, sizeof buf, MSG_DONTWAIT);
	assert_true(n > 0);
	assert_non_null(memmem(buf, (size_t)n, "WARD_RUN=1a2b3c4d\n", 18));
	n = recv(sfd, buf, sizeof buf - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_true(strncmp(buf, "<13>1 ", 6) == 0);

	/* The daemon stops reading: sends never block, drops are counted. */
	for (int i = 0; i < 5000; i++)
		journal_send(j, &ev_deny, "asked");
	assert_true(journal_dropped(j) > 0);
	journal_free(j);
	close(jfd);
	close(sfd);

	/* Auto with no journal there: off; syslog alone still goes. */
	setenv("WARD_JOURNAL_SOCKET", "/nonexistent/ward/journal", 1);
	assert_null(journal_open(JOURNAL_AUTO, false));
	j = journal_open(JOURNAL_ON, false);
	journal_send(j, &ev_deny, NULL);
	assert_int_equal(journal_dropped(j), 1);
	journal_free(j);
	unlink(jp);
	unlink(sp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_fields),
		cmocka_unit_test(test_rfc5424),
		cmocka_unit_test(test_sockets),
	};
	int r;

	if (mkdtemp(dir) == NULL)
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return r;
}
