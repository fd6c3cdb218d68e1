/* SPDX-License-Identifier: MIT */
/*
 * `ward oci profile` (tui/oci-profile.c) and the profile filter-gen wrote
 * into build/gen/oci-profile.h from supervisor/filter.c's rules. The
 * oracle: the profile, read back as a runtime reads it (names, actions,
 * ops by name; one libseccomp rule per entry, its args ANDed) into a
 * libseccomp filter with filter_compile's attributes, must compile to
 * the program ward carries, instruction by instruction. A profile that
 * lost, added or changed a rule cannot. The number table below is the
 * test's own, from the kernel's syscall table, not filter.c's.
 */
#include <errno.h>
#include <jansson.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "supervisor/filter.h"
#include "tui/oci.h"

#include "oci-profile.h"

/* x86_64's numbers that libseccomp 2.5.4 does not know
 * (arch/x86/entry/syscalls/syscall_64.tbl). */
static const struct {
	const char	*name;
	int		 nr;
} newer[] = {
	{ "fchmodat2", 452 },
	{ "setxattrat", 463 },
	{ "removexattrat", 466 },
	{ "open_tree_attr", 467 },
	{ "file_setattr", 469 },
};

static const struct {
	const char	*name;
	enum scmp_compare op;
} ops[] = {
	{ "SCMP_CMP_NE", SCMP_CMP_NE },
	{ "SCMP_CMP_LT", SCMP_CMP_LT },
	{ "SCMP_CMP_LE", SCMP_CMP_LE },
	{ "SCMP_CMP_EQ", SCMP_CMP_EQ },
	{ "SCMP_CMP_GE", SCMP_CMP_GE },
	{ "SCMP_CMP_GT", SCMP_CMP_GT },
	{ "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

static int
nr_of(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr != __NR_SCMP_ERROR)
		return nr;
	for (size_t i = 0; i < ARRAY_SIZE(newer); i++)
		if (strcmp(newer[i].name, name) == 0)
			return newer[i].nr;
	fail_msg("the profile names '%s', which no table knows", name);
	return -1;
}

static enum scmp_compare
op_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (strcmp(ops[i].name, name) == 0)
			return ops[i].op;
	fail_msg("unknown op '%s'", name);
	return _SCMP_CMP_MIN;
}

static json_t *
load(const char *text)
{
	json_error_t err;
	json_t *p = json_loads(text, JSON_REJECT_DUPLICATES, &err);

	if (p == NULL)
		fail_msg("the profile does not parse: line %d: %s", err.line,
		    err.text);
	return p;
}

/* One entry as libseccomp rules, as runc's matchCall adds them. */
static void
add_entry(scmp_filter_ctx ctx, json_t *e)
{
	const char *action = json_string_value(json_object_get(e, "action"));
	json_t *names = json_object_get(e, "names");
	json_t *args = json_object_get(e, "args");
	struct scmp_arg_cmp cmp[6];
	unsigned int seen = 0;
	uint32_t act;
	size_t i, n = json_array_size(args);
	json_t *a, *name;

	assert_non_null(action);
	if (strcmp(action, "SCMP_ACT_NOTIFY") == 0) {
		act = SCMP_ACT_NOTIFY;
		assert_null(json_object_get(e, "errnoRet"));
	} else if (strcmp(action, "SCMP_ACT_ERRNO") == 0) {
		json_t *r = json_object_get(e, "errnoRet");

		assert_true(json_is_integer(r));
		act = SCMP_ACT_ERRNO((uint32_t)json_integer_value(r));
	} else {
		fail_msg("unexpected action '%s'", action);
		return;
	}
	assert_true(n <= 6);
	json_array_foreach(args, i, a) {
		json_int_t idx = json_integer_value(json_object_get(a, "index"));

		assert_true(idx >= 0 && idx < 6);
		/* Two conditions on one index: runc would split them into
		 * two rules (OR), libseccomp here ANDs them. None may. */
		assert_false(seen & (1U << idx));
		seen |= 1U << idx;
		cmp[i] = (struct scmp_arg_cmp){
			.arg = (unsigned int)idx,
			.op = op_of(json_string_value(json_object_get(a, "op"))),
			.datum_a = (scmp_datum_t)json_integer_value(
			    json_object_get(a, "value")),
			.datum_b = (scmp_datum_t)json_integer_value(
			    json_object_get(a, "valueTwo")),
		};
	}
	assert_true(json_array_size(names) >= 1);
	json_array_foreach(names, i, name)
		assert_int_equal(seccomp_rule_add_array(ctx, act,
		    nr_of(json_string_value(name)), (unsigned int)n, cmp), 0);
}

static void
export(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	int mfd = memfd_create("test-oci-profile", MFD_CLOEXEC);
	struct stat st;

	assert_true(mfd >= 0);
	assert_int_equal(seccomp_export_bpf(ctx, mfd), 0);
	assert_int_equal(fstat(mfd, &st), 0);
	assert_true(st.st_size > 0 && st.st_size % sizeof(struct sock_filter)
	    == 0);
	prog->len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	prog->filter = xmalloc((size_t)st.st_size);
	assert_int_equal(pread(mfd, prog->filter, (size_t)st.st_size, 0),
	    st.st_size);
	close(mfd);
}

/* The profile, rebuilt as a runtime would, is the carried program. */
static void
test_rebuilt_is_carried(void **state)
{
	json_t *p = load(oci_profile_base), *arch, *e;
	scmp_filter_ctx ctx;
	struct sock_fprog prog;
	size_t i;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(p,
	    "defaultAction")), "SCMP_ACT_ALLOW");
	arch = json_object_get(p, "architectures");
	assert_int_equal(json_array_size(arch), 1);
	assert_string_equal(json_string_value(json_array_get(arch, 0)),
	    "SCMP_ARCH_X86_64");
	assert_int_equal(seccomp_arch_native(), SCMP_ARCH_X86_64);
	assert_null(json_object_get(p, "listenerPath"));
	assert_null(json_object_get(p, "listenerMetadata"));

	assert_non_null(ctx = seccomp_init(SCMP_ACT_ALLOW));
	/* filter_compile's attributes: the bad-arch action is one the
	 * profile cannot carry (filter.c says why). */
	assert_int_equal(seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_NOTIFY), 0);
	assert_int_equal(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2),
	    0);
	json_array_foreach(json_object_get(p, "syscalls"), i, e)
		add_entry(ctx, e);
	export(ctx, &prog);
	seccomp_release(ctx);
	assert_int_equal(prog.len, filter_program()->len);
	for (i = 0; i < prog.len; i++) {
		const struct sock_filter *a = &prog.filter[i];
		const struct sock_filter *b = &filter_program()->filter[i];

		if (memcmp(a, b, sizeof *a) != 0)
			fail_msg("instruction %zu: { 0x%02x, %u, %u, 0x%08x } "
			    "from the profile, { 0x%02x, %u, %u, 0x%08x } "
			    "carried", i, a->code, a->jt, a->jf, a->k,
			    b->code, b->jt, b->jf, b->k);
	}
	free(prog.filter);
	json_decref(p);
}

/* The header is what the rules make now (a stale header fails). */
static void
test_header_is_fresh(void **state)
{
	char *text = NULL, *cause = NULL;
	json_t *a, *b;

	(void)state;
	assert_int_equal(filter_profile(&text, &cause), 0);
	assert_null(cause);
	a = load(text);
	b = load(oci_profile_base);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	free(text);
}

static bool
named(json_t *syscalls, int nr)
{
	json_t *e, *name;
	size_t i, j;

	json_array_foreach(syscalls, i, e)
		json_array_foreach(json_object_get(e, "names"), j, name)
			if (nr_of(json_string_value(name)) == nr)
				return true;
	return false;
}

/* Every call ward's filter traps is in the profile, and nothing else. */
static void
test_every_trapped_named(void **state)
{
	json_t *p = load(oci_profile_base);
	json_t *sys = json_object_get(p, "syscalls"), *e, *name;
	size_t i, j, n = 0;

	(void)state;
	for (int nr = 0; nr < 1024; nr++) {
		if (!filter_is_trapped(nr))
			continue;
		n++;
		if (!named(sys, nr))
			fail_msg("syscall %d is trapped but not in the profile",
			    nr);
	}
	assert_true(n > 60);
	json_array_foreach(sys, i, e)
		json_array_foreach(json_object_get(e, "names"), j, name)
			if (!filter_is_trapped(nr_of(json_string_value(name))))
				fail_msg("the profile names %s, which ward's "
				    "filter does not trap",
				    json_string_value(name));
	for (i = 0; i < ARRAY_SIZE(newer); i++)
		assert_true(named(sys, newer[i].nr));
	json_decref(p);
}

/* The listener's fields, and the rules unchanged beside them. */
static void
test_listener(void **state)
{
	char *out, *cause = NULL, *dflt;
	json_t *p, *base = load(oci_profile_base);

	(void)state;
	out = oci_profile_json("/run/ward/t.sock", "agent-1.x_y", &cause);
	assert_non_null(out);
	assert_null(cause);
	assert_int_equal(out[strlen(out) - 1], '\n');
	assert_non_null(strstr(out, "\n  \"listenerPath\": "));
	p = load(out);
	assert_string_equal(json_string_value(json_object_get(p,
	    "listenerPath")), "/run/ward/t.sock");
	assert_string_equal(json_string_value(json_object_get(p,
	    "listenerMetadata")), "policy=agent-1.x_y");
	assert_true(json_equal(json_object_get(p, "syscalls"),
	    json_object_get(base, "syscalls")));
	assert_true(json_equal(json_object_get(p, "architectures"),
	    json_object_get(base, "architectures")));
	assert_true(json_equal(json_object_get(p, "defaultAction"),
	    json_object_get(base, "defaultAction")));
	assert_int_equal(json_object_size(p), 5);
	json_decref(p);
	free(out);

	/* No policy: no metadata; no socket: the default one. */
	out = oci_profile_json(NULL, NULL, &cause);
	assert_non_null(out);
	p = load(out);
	dflt = oci_default_socket();
	assert_string_equal(json_string_value(json_object_get(p,
	    "listenerPath")), dflt);
	assert_null(json_object_get(p, "listenerMetadata"));
	assert_int_equal(json_object_size(p), 4);
	free(dflt);
	json_decref(p);
	free(out);
	json_decref(base);
}

/* A socket a runtime cannot connect to, a policy name serve would not
 * read: refused, the cause naming the option. */
static void
test_refused(void **state)
{
	static const char *const bad_socket[] = {
		"", "oci.sock", "./oci.sock", "run/ward/oci.sock",
		"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* 108 */
	};
	static const char *const bad_policy[] = {
		"", ".", "..", ".hidden", "a/b", "../etc/x", "a b", "a\nb",
		"a=b", "caf\xc3\xa9", "x*",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	static const char *const good_policy[] = {
		"a", "agent", "A.b_c-1", "x.", "-x",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	char *out, *cause = NULL;

	(void)state;
	assert_int_equal(strlen(bad_socket[4]), 108);
	for (size_t i = 0; i < ARRAY_SIZE(bad_socket); i++) {
		out = oci_profile_json(bad_socket[i], NULL, &cause);
		assert_null(out);
		assert_non_null(cause);
		assert_true(str_has_prefix(cause, "--socket: "));
		free(cause);
		cause = NULL;
	}
	/* 107 bytes and its NUL fit sun_path. */
	out = oci_profile_json(bad_socket[4] + 1, NULL, &cause);
	assert_null(out);
	free(cause);
	cause = NULL;
	{
		char *p107 = xstrdup(bad_socket[4]);

		p107[107] = '\0';
		assert_non_null(out = oci_profile_json(p107, NULL, &cause));
		free(out);
		free(p107);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad_policy); i++) {
		assert_false(oci_policy_name_valid(bad_policy[i]));
		out = oci_profile_json("/run/ward/oci.sock", bad_policy[i],
		    &cause);
		assert_null(out);
		assert_non_null(cause);
		assert_true(str_has_prefix(cause, "--policy: "));
		free(cause);
		cause = NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(good_policy); i++) {
		assert_true(oci_policy_name_valid(good_policy[i]));
		out = oci_profile_json("/run/ward/oci.sock", good_policy[i],
		    &cause);
		assert_non_null(out);
		free(out);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebuilt_is_carried),
		cmocka_unit_test(test_header_is_fresh),
		cmocka_unit_test(test_every_trapped_named),
		cmocka_unit_test(test_listener),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
