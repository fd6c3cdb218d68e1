/* SPDX-License-Identifier: MIT */
/* approvals/request.c: name tables, dup, JSON round trip and validation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/request.h"
#include "config/util.h"

static struct request *
sample(void)
{
	struct request *r = request_new();

	r->id = 42;
	r->run = xstrdup("20250101-abcdef");
	r->pid = 4242;
	r->kind = KIND_WRITE;
	r->syscall = xstrdup("renameat2");
	r->subject = xstrdup("/etc/ward-test");
	r->subject2 = xstrdup("/etc/ward-test.new");
	r->detail = xstrdup("flags=RENAME_NOREPLACE");
	r->cmdline = xstrdup("python3 -c 'import os; os.rename(\"a\", \"b\")'");
	r->cwd = xstrdup("/work");
	r->why = xstrdup("no rule");
	r->created_ms = 1735689600123;
	r->deadline_ms = 1735689690123;
	return r;
}

static void
assert_str_eq_or_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void
assert_request_equal(const struct request *a, const struct request *b)
{
	assert_int_equal(a->id, b->id);
	assert_string_equal(a->run, b->run);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->kind, b->kind);
	assert_string_equal(a->syscall, b->syscall);
	assert_string_equal(a->subject, b->subject);
	assert_str_eq_or_null(a->subject2, b->subject2);
	assert_string_equal(a->detail, b->detail);
	assert_string_equal(a->cmdline, b->cmdline);
	assert_string_equal(a->cwd, b->cwd);
	assert_string_equal(a->why, b->why);
	assert_int_equal(a->created_ms, b->created_ms);
	assert_int_equal(a->deadline_ms, b->deadline_ms);
}

static void
test_names(void **state)
{
	static const struct {
		enum request_kind k;
		const char *name;
	} kinds[] = {
		{ KIND_WRITE, "write" }, { KIND_CONNECT, "connect" },
		{ KIND_DNS, "dns" }, { KIND_PACKAGE, "package" },
		{ KIND_EXEC, "exec" }, { KIND_BLOCKED, "blocked" },
		{ KIND_RUN, "run" }, { KIND_HTTP, "http" },
		{ KIND_SECRET, "secret" },
	};
	static const struct {
		enum verdict v;
		const char *name;
	} verdicts[] = {
		{ VERDICT_NONE, "none" }, { VERDICT_ALLOW, "allow" },
		{ VERDICT_DENY, "deny" }, { VERDICT_ASK, "ask" },
		{ VERDICT_KILL, "kill" },
		{ VERDICT_STAGE, "stage" },
	};
	static const struct {
		enum how h;
		const char *name;
	} hows[] = {
		{ HOW_POLICY, "policy" }, { HOW_RUN_RULE, "run-rule" },
		{ HOW_PERSON, "person" }, { HOW_TIMEOUT, "timeout" },
		{ HOW_DEFAULT, "default" }, { HOW_FLOOR, "floor" },
		{ HOW_SUPERVISOR, "supervisor" },
	};
	enum request_kind k;
	enum verdict v;
	enum how h;
	enum scope s;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		assert_string_equal(request_kind_name(kinds[i].k), kinds[i].name);
		assert_int_equal(request_kind_parse(kinds[i].name, &k), 0);
		assert_int_equal(k, kinds[i].k);
	}
	for (size_t i = 0; i < ARRAY_SIZE(verdicts); i++) {
		assert_string_equal(verdict_name(verdicts[i].v), verdicts[i].name);
		assert_int_equal(verdict_parse(verdicts[i].name, &v), 0);
		assert_int_equal(v, verdicts[i].v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(hows); i++) {
		assert_string_equal(how_name(hows[i].h), hows[i].name);
		assert_int_equal(how_parse(hows[i].name, &h), 0);
		assert_int_equal(h, hows[i].h);
	}
	assert_string_equal(scope_name(SCOPE_ONCE), "once");
	assert_string_equal(scope_name(SCOPE_RUN), "run");
	assert_int_equal(scope_parse("run", &s), 0);
	assert_int_equal(s, SCOPE_RUN);
	assert_int_equal(scope_parse("once", &s), 0);
	assert_int_equal(s, SCOPE_ONCE);

	assert_int_equal(request_kind_parse("Write", &k), -EINVAL);
	assert_int_equal(request_kind_parse("", &k), -EINVAL);
	assert_int_equal(request_kind_parse(NULL, &k), -EINVAL);
	assert_int_equal(verdict_parse("allowed", &v), -EINVAL);
	assert_int_equal(how_parse("human", &h), -EINVAL);
	assert_int_equal(scope_parse("always", &s), -EINVAL);
	assert_string_equal(request_kind_name((enum request_kind)99), "unknown");
	assert_string_equal(verdict_name((enum verdict)-1), "unknown");
}

static void
test_new_dup_free(void **state)
{
	struct request *r = request_new(), *d;

	(void)state;
	assert_null(r->run);
	assert_null(r->subject2);
	assert_int_equal(r->id, 0);
	request_free(r);
	request_free(NULL);

	r = sample();
	d = request_dup(r);
	assert_request_equal(r, d);
	assert_ptr_not_equal(r->run, d->run);
	assert_ptr_not_equal(r->subject2, d->subject2);
	request_free(r);
	/* d owns its strings: still readable after r is gone */
	assert_string_equal(d->subject, "/etc/ward-test");
	request_free(d);
}

static void
test_json_round_trip(void **state)
{
	struct request *r = sample(), *back = NULL;
	json_t *j, *parsed;
	json_error_t err;
	char *text, *cause = NULL;

	(void)state;
	j = request_to_json(r);
	assert_int_equal(json_object_size(j), 13);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 42);
	assert_string_equal(json_string_value(json_object_get(j, "kind")),
	    "write");
	assert_string_equal(json_string_value(json_object_get(j, "subject2")),
	    "/etc/ward-test.new");

	/* through text, as the protocol carries it */
	text = json_dumps(j, JSON_COMPACT);
	assert_non_null(text);
	parsed = json_loads(text, 0, &err);
	assert_non_null(parsed);
	assert_int_equal(request_from_json(parsed, &back, &cause), 0);
	assert_null(cause);
	assert_request_equal(r, back);

	free(text);
	json_decref(j);
	json_decref(parsed);
	request_free(back);
	request_free(r);
}

static void
test_json_subject2_null(void **state)
{
	struct request *r = sample(), *back = NULL;
	json_t *j;
	char *cause = NULL;

	(void)state;
	free(r->subject2);
	r->subject2 = NULL;
	r->kind = KIND_CONNECT;
	j = request_to_json(r);
	assert_true(json_is_null(json_object_get(j, "subject2")));
	assert_int_equal(request_from_json(j, &back, &cause), 0);
	assert_null(back->subject2);
	assert_int_equal(back->kind, KIND_CONNECT);
	request_free(back);

	/* absent is the same as null */
	json_object_del(j, "subject2");
	assert_int_equal(request_from_json(j, &back, &cause), 0);
	assert_null(back->subject2);
	request_free(back);
	json_decref(j);
	request_free(r);
}

static void
test_json_null_strings(void **state)
{
	struct request *r = request_new(), *back = NULL;
	json_t *j;
	char *cause = NULL;

	(void)state;
	r->id = 1;
	r->kind = KIND_RUN;
	j = request_to_json(r);
	assert_string_equal(json_string_value(json_object_get(j, "run")), "");
	assert_string_equal(json_string_value(json_object_get(j, "why")), "");
	assert_int_equal(request_from_json(j, &back, &cause), 0);
	assert_string_equal(back->subject, "");
	assert_null(back->subject2);
	json_decref(j);
	request_free(back);
	request_free(r);
}

static void
test_json_invalid_utf8(void **state)
{
	struct request *r = sample(), *back = NULL;
	json_t *j;
	char *text, *cause = NULL;

	(void)state;
	free(r->subject);
	/* a stray byte, an overlong '/', a surrogate, then valid "é" */
	r->subject = xstrdup("/tmp/a\xff" "b\xc0\xaf" "c\xed\xa0\x80" "d\xc3\xa9");
	j = request_to_json(r);
	text = json_dumps(j, JSON_COMPACT);
	assert_non_null(text);
	assert_int_equal(request_from_json(j, &back, &cause), 0);
	assert_string_equal(back->subject,
	    "/tmp/a\\xffb\\xc0\\xafc\\xed\\xa0\\x80d\xc3\xa9");
	free(text);
	json_decref(j);
	request_free(back);
	request_free(r);
}

/* Each required member, removed or given the wrong type, is refused with
 * its name in the cause. */
static void
test_json_rejects(void **state)
{
	static const char *const required[] = {
		"id", "run", "pid", "kind", "syscall", "subject", "detail",
		"cmdline", "cwd", "why", "created_ms", "deadline_ms",
	};
	static const char *const integers[] = {
		"id", "pid", "created_ms", "deadline_ms",
	};
	struct request *r = sample(), *back = NULL;
	json_t *good = request_to_json(r), *j;
	char *cause = NULL, *want;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		want = xasprintf("\"%s\": missing", required[i]);
		j = json_deep_copy(good);
		json_object_del(j, required[i]);
		assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
		assert_null(back);
		assert_non_null(cause);
		assert_non_null(strstr(cause, want));
		free(cause);
		cause = NULL;
		free(want);
		json_decref(j);

		/* strings get a number, numbers a string */
		j = json_deep_copy(good);
		json_object_set_new(j, required[i],
		    json_is_string(json_object_get(good, required[i])) ?
		    json_integer(7) : json_string("7"));
		assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
		assert_null(back);
		assert_non_null(strstr(cause, required[i]));
		assert_non_null(strstr(cause, "not a"));
		free(cause);
		cause = NULL;
		json_decref(j);

		/* null is only fine for subject2 */
		j = json_deep_copy(good);
		json_object_set_new(j, required[i], json_null());
		assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
		assert_non_null(strstr(cause, required[i]));
		free(cause);
		cause = NULL;
		json_decref(j);
	}
	for (size_t i = 0; i < ARRAY_SIZE(integers); i++) {
		j = json_deep_copy(good);
		json_object_set_new(j, integers[i], json_real(1.5));
		assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
		assert_non_null(strstr(cause, integers[i]));
		free(cause);
		cause = NULL;
		json_object_set_new(j, integers[i], json_integer(-1));
		assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
		assert_non_null(strstr(cause, integers[i]));
		assert_non_null(strstr(cause, "out of range"));
		free(cause);
		cause = NULL;
		json_decref(j);
	}

	j = json_deep_copy(good);
	json_object_set_new(j, "kind", json_string("teleport"));
	assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
	assert_string_equal(cause, "request: \"kind\": unknown kind");
	free(cause);
	cause = NULL;
	json_decref(j);

	j = json_deep_copy(good);
	json_object_set_new(j, "subject2", json_true());
	assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
	assert_non_null(strstr(cause, "\"subject2\""));
	free(cause);
	cause = NULL;
	json_decref(j);

	j = json_deep_copy(good);
	json_object_set_new(j, "pid", json_integer((json_int_t)1 << 40));
	assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
	assert_non_null(strstr(cause, "\"pid\""));
	free(cause);
	cause = NULL;
	json_decref(j);

	j = json_array();
	assert_int_equal(request_from_json(j, &back, &cause), -EINVAL);
	assert_non_null(strstr(cause, "not a JSON object"));
	free(cause);
	cause = NULL;
	json_decref(j);

	/* unknown members are ignored (newer peers may add some) */
	j = json_deep_copy(good);
	json_object_set_new(j, "colour", json_string("red"));
	assert_int_equal(request_from_json(j, &back, &cause), 0);
	request_free(back);
	json_decref(j);

	json_decref(good);
	request_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_new_dup_free),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_subject2_null),
		cmocka_unit_test(test_json_null_strings),
		cmocka_unit_test(test_json_invalid_utf8),
		cmocka_unit_test(test_json_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
