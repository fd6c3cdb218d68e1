/* SPDX-License-Identifier: MIT */
/*
 * tui/feed.c (ward events): the record read as it grows, an asked row
 * shown again once decided, JSON Lines with RFC 3339 times, --since.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/audit-write.h"
#include "config/util.h"
#include "tui/feed.h"

static char dir[] = "/tmp/ward-test-feed-XXXXXX";

/* What feed_poll printed, as a string. */
static char *
poll_text(struct feed *f, struct audit *a, int *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	cleanup_free char *cause = NULL;

	*lines = feed_poll(f, a, m, &cause);
	fclose(m);
	return buf;
}

static void
test_follow_rows(void **state)
{
	cleanup_free char *db = xasprintf("%s/audit.db", dir);
	cleanup_free char *cause = NULL;
	struct audit *w = NULL, *r = NULL;
	struct audit_run run = { .id = "0000abcd", .command = "sh",
	    .policy_path = "p", .policy_hash = "h", .started_ms = 1000 };
	struct audit_event ev = { .run = "0000abcd", .time_ms = 1764587018123,
	    .pid = 7, .kind = KIND_WRITE, .subject = "/etc/x\xff",
	    .verdict = VERDICT_ASK, .how = HOW_SUPERVISOR, .request_id = 1 };
	struct feed_opts o = { .json = true };
	struct feed *f;
	int64_t seq = 0;
	int n;
	char *t;
	json_t *j;

	(void)state;
	assert_int_equal(audit_open(db, &w, &cause), 0);
	assert_int_equal(audit_run_begin(w, &run, &cause), 0);
	assert_int_equal(audit_ask(w, &ev, &seq, &cause), 0);
	assert_int_equal(audit_open_readonly(db, &r, &cause), 0);
	f = feed_new(&o);

	t = poll_text(f, r, &n);
	assert_int_equal(n, 1);
	j = json_loads(t, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "state")),
	    "asked");
	assert_string_equal(json_string_value(json_object_get(j, "time")),
	    "2025-12-01T11:03:38.123Z");
	assert_int_equal(json_integer_value(json_object_get(j, "time_ms")),
	    1764587018123);
	/* Not UTF-8 from the program: escaped, still a JSON string. */
	assert_string_equal(json_string_value(json_object_get(j, "subject")),
	    "/etc/x\\xff");
	json_decref(j);
	free(t);

	/* Nothing new: nothing printed. */
	t = poll_text(f, r, &n);
	assert_int_equal(n, 0);
	free(t);

	/* Decided in place: shown again, same seq, state done. */
	ev.verdict = VERDICT_ALLOW;
	ev.how = HOW_PERSON;
	ev.decided_by = "uid 0 (root) pid 1 via ssh from 127.0.0.1";
	ev.wait_ms = 800;
	audit_done(w, seq, &ev);
	ev.request_id = 0;
	ev.kind = KIND_RUN;
	ev.subject = "exit";
	ev.verdict = VERDICT_NONE;
	ev.time_ms += 1000;
	audit_event(w, &ev);
	assert_int_equal(audit_flush(w, &cause), 0);
	t = poll_text(f, r, &n);
	assert_int_equal(n, 2);
	j = json_loads(t, JSON_DISABLE_EOF_CHECK, NULL);
	assert_int_equal(json_integer_value(json_object_get(j, "seq")), seq);
	assert_string_equal(json_string_value(json_object_get(j, "state")),
	    "done");
	assert_string_equal(json_string_value(json_object_get(j, "verdict")),
	    "allow");
	assert_string_equal(json_string_value(json_object_get(j,
	    "decided_by")), "uid 0 (root) pid 1 via ssh from 127.0.0.1");
	json_decref(j);
	free(t);
	feed_free(f);

	/* --since: a fresh reader skips what came before. */
	o.since_ms = ev.time_ms;
	f = feed_new(&o);
	t = poll_text(f, r, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(t, "\"kind\":\"run\""));
	free(t);
	feed_free(f);

	/* The text form: tab-separated, escaped. */
	o.json = false;
	o.since_ms = 0;
	f = feed_new(&o);
	t = poll_text(f, r, &n);
	assert_int_equal(n, 2);
	assert_non_null(strstr(t, "2025-12-01T11:03:38.123Z\t0000abcd\twrite\t"
	    "allow\tperson\t/etc/x\\xff\t7\t800ms\t"));
	free(t);
	feed_free(f);
	audit_close(r);
	audit_close(w);
}

static void
test_parse_time(void **state)
{
	int64_t v = 0;

	(void)state;
	assert_int_equal(feed_parse_time("2025-12-01T11:03:38.123Z", 0, &v), 0);
	assert_int_equal(v, 1764587018123);
	assert_int_equal(feed_parse_time("2025-12-01T13:03:38.5+02:00", 0,
	    &v), 0);
	assert_int_equal(v, 1764587018500);
	assert_int_equal(feed_parse_time("2025-12-01", 0, &v), 0);
	assert_int_equal(v, 1764547200000);
	assert_int_equal(feed_parse_time("1764587018123", 0, &v), 0);
	assert_int_equal(v, 1764587018123);
	assert_int_equal(feed_parse_time("15m", 1000000, &v), 0);
	assert_int_equal(v, 100000);
	assert_int_equal(feed_parse_time("2h", 10000000, &v), 0);
	assert_int_equal(v, 10000000 - 7200000);
	assert_int_equal(feed_parse_time("yesterday", 0, &v), -EINVAL);
	assert_int_equal(feed_parse_time("15x", 0, &v), -EINVAL);
	assert_int_equal(feed_parse_time("2025-13-01", 0, &v), -EINVAL);
	assert_int_equal(feed_parse_time("2025-12-01T11:03", 0, &v), -EINVAL);
	assert_int_equal(feed_parse_time("", 0, &v), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_rows),
		cmocka_unit_test(test_parse_time),
	};
	int r;

	if (mkdtemp(dir) == NULL)
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	{
		char cmd[128];

		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			r = 1;
	}
	return r;
}
