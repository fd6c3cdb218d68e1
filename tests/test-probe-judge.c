/* SPDX-License-Identifier: MIT */
/*
 * probe/judge.c: the battery's verdicts from recorded observations, with
 * no sandbox launched. Each case builds what the outside saw of one run
 * (the canary, the listeners, the samples, the record) and checks the
 * verdict and the report's words, "escaped" and "unrecorded" included.
 * The last cases read the record from a real audit file, as probe/run.c
 * does after each run.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/audit.h"
#include "approvals/audit-write.h"
#include "config/util.h"
#include "probe/defs.h"
#include "probe/judge.h"
#include "probe/run.h"
#include "probe/watch.h"

#define CANARY	"/var/tmp/ward-probe-t/canary"
#define TOOLS	"/var/tmp/ward-probe-t/tools"
#define DNSNAME	"wp0011223344556677.exfil.invalid"
#define TOKEN	"0123456789abcdef0123456789abcdef"

static const struct probe_env env = {
	.canary = CANARY, .tools = TOOLS, .dnsname = DNSNAME,
	.port = 40000, .uport = 40001, .token = TOKEN,
	.pids = 0, .int80 = true, .packet_watch = false,
};

struct fx {
	struct probe_obs o;
	struct probe_result res;
};

static const struct probe_def *
def_named(const char *name)
{
	for (size_t i = 0; i < probe_n_defs; i++)
		if (strcmp(probe_defs[i].name, name) == 0)
			return &probe_defs[i];
	fail_msg("no probe %s", name);
	return NULL;
}

/* A run of the probe that ended as it should, with its end recorded and
 * nothing else seen yet. */
static void
run_of(struct fx *f, const char *name)
{
	const struct probe_def *d = def_named(name);

	memset(f, 0, sizeof *f);
	f->o.def = d;
	snprintf(f->o.id, sizeof f->o.id, "0123abcd");
	f->o.wstatus = (d->status & 0xff) << 8;	/* exited with d->status */
	f->o.t0 = 1000;
	f->o.t1 = 1100;
	f->o.samples = 3;
	f->o.peak_tasks = 2;
	f->o.have_run = true;
	f->o.ended_ms = 1735689600000;
	f->o.exit_code = d->status;
	f->o.end_reason = xstrdup(d->proof == PROOF_TIMEOUT ? "timeout" :
	    "exit");
	f->res.def = d;
	f->res.status = -1;
}

static void
event(struct fx *f, enum request_kind kind, enum verdict v, enum how how,
    const char *syscall, const char *subject, const char *rule,
    const char *detail)
{
	struct probe_event *e;

	f->o.events = xreallocarray(f->o.events, f->o.n_events + 1,
	    sizeof *f->o.events);
	e = &f->o.events[f->o.n_events++];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->verdict = v;
	e->how = how;
	e->pid = 7;
	e->syscall = syscall ? xstrdup(syscall) : NULL;
	e->subject = subject ? xstrdup(subject) : NULL;
	e->rule = rule ? xstrdup(rule) : NULL;
	e->detail = detail ? xstrdup(detail) : NULL;
}

static void
output(struct fx *f, const char *text)
{
	free(f->o.output);
	f->o.output = xstrdup(text);
	f->o.output_len = strlen(text);
}

static void
judge(struct fx *f)
{
	probe_judge(&env, &f->o, &f->res);
}

static void
done(struct fx *f)
{
	probe_obs_done(&f->o);
	probe_result_done(&f->res);
}

static bool
has_problem(const struct fx *f, const char *prefix)
{
	for (size_t i = 0; i < f->res.n_problems; i++)
		if (strncmp(f->res.problems[i], prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* ---- writes: the canary ---- */

static void
write_path_both(struct fx *f)
{
	event(f, KIND_WRITE, VERDICT_DENY, HOW_PERSON, "openat",
	    CANARY "/file", NULL, NULL);
	event(f, KIND_WRITE, VERDICT_DENY, HOW_PERSON, "openat",
	    CANARY "/new", NULL, NULL);
}

static void
test_write_blocked(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "write-path");
	write_path_both(&f);
	f.o.requests = 2;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.stopped, "person/deny");
	assert_string_equal(f.res.record, "openat deny/person, 2 requests "
	    "denied at once");
	assert_int_equal(f.res.n_problems, 0);
	assert_string_equal(f.res.run, "0123abcd");
	assert_int_equal(f.res.elapsed_ms, 100);
	assert_int_equal(f.res.status, 0);
	done(&f);
}

static void
test_write_canary_changed_escaped(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "write-path");
	write_path_both(&f);
	f.o.canary_diff = xstrdup("file");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_string_equal(f.res.stopped, "NOT STOPPED");
	assert_true(has_problem(&f, "escaped: canary changed: file"));
	done(&f);
}

/* deny-reason-fd: the deny is in the record and the target behind fd 2
 * is unchanged: blocked; the target changed (the reason written through
 * the program's fd 2): escaped. */
static void
test_deny_reason_fd(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "deny-reason-fd");
	event(&f, KIND_WRITE, VERDICT_DENY, HOW_PERSON, "openat",
	    CANARY "/file", NULL, NULL);
	f.o.requests = 1;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_int_equal(f.res.n_problems, 0);
	done(&f);

	run_of(&f, "deny-reason-fd");
	event(&f, KIND_WRITE, VERDICT_DENY, HOW_PERSON, "openat",
	    CANARY "/file", NULL, NULL);
	f.o.requests = 1;
	f.o.canary_diff = xstrdup("writable folder: target");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: canary changed: writable "
	    "folder: target"));
	done(&f);
}

static void
test_write_missing_unrecorded(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "write-path");
	event(&f, KIND_WRITE, VERDICT_DENY, HOW_PERSON, "openat",
	    CANARY "/file", NULL, NULL);
	/* The other write was let through by the record's account. */
	event(&f, KIND_WRITE, VERDICT_ALLOW, HOW_POLICY, "openat",
	    CANARY "/new", NULL, NULL);
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	assert_true(has_problem(&f, "not in the record: write " CANARY
	    "/new deny"));
	/* What the record holds instead is named. */
	assert_non_null(strstr(f.res.record, "openat allow/policy"));
	done(&f);
}

static void
test_run_end_unrecorded(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "write-path");
	write_path_both(&f);
	f.o.have_run = false;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	assert_true(has_problem(&f, "not in the record: the run's end"));
	done(&f);
}

/* ---- the secret ---- */

static void
test_secret_recorded_output(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "home-secret");
	output(&f, "ward-probe: home-secret: read /home: ENOENT\n");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.record, "the attempts, in the run's "
	    "recorded output (reads are not trapped)");
	done(&f);
}

static void
test_secret_no_output_unrecorded(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "home-secret");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	assert_true(has_problem(&f, "not in the record: the attempts in the "
	    "run's output"));
	assert_string_equal(f.res.record, "nothing");
	done(&f);
}

/* The key in ~/.ssh under an --in home: its attempts are in the record
 * when it is hidden, and the token read out is an escape. */
static void
test_store_secret(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "store-secret");
	output(&f, "ward-probe: store-secret: read /root/.ssh/ward-probe-key-x: "
	    "ENOENT\n");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	done(&f);

	run_of(&f, "store-secret");
	output(&f, "ward-probe: store-secret: LEAK /root/.ssh/k: " TOKEN "\n");
	probe_buf_str(&f.o.out, "ward-probe: store-secret: LEAK "
	    "/root/.ssh/k: " TOKEN "\n");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: the planted secret is in the "
	    "run's output"));
	done(&f);
}

static void
test_secret_leaked_escaped(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "env-secret");
	output(&f, "ward-probe: env-secret: LEAK " TOKEN "\n");
	probe_buf_str(&f.o.out, "ward-probe: env-secret: LEAK " TOKEN "\n");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: the planted secret is in the "
	    "run's output"));
	done(&f);
}

/* ---- the network ---- */

static void
connect_recorded(struct fx *f)
{
	event(f, KIND_CONNECT, VERDICT_DENY, HOW_PERSON, "connect",
	    "192.0.2.1:40000", NULL, NULL);
	f->o.requests = 1;
}

static void
test_connect_blocked(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "connect");
	connect_recorded(&f);
	probe_buf_str(&f.o.out, "ward-probe: connect: connect tcp "
	    "127.0.0.1: ECONNREFUSED\n");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.stopped, "127.0.0.1 is the sandbox's own "
	    "loopback + person/deny for 192.0.2.1:40000 (ECONNREFUSED); "
	    "outside: listeners empty, no packet watch (needs root)");
	assert_string_equal(f.res.record, "connect 192.0.2.1:40000 "
	    "deny/person, 1 request denied at once");
	done(&f);
}

static void
test_connect_listener_hit_escaped(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "connect");
	connect_recorded(&f);
	f.o.outside.conns = 1;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: the host listener accepted 1 "
	    "connection(s)"));
	done(&f);
}

static void
test_udp_datagram_escaped(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "udp");
	event(&f, KIND_CONNECT, VERDICT_DENY, HOW_FLOOR, "sendto",
	    "192.0.2.1:40001", NULL, NULL);
	event(&f, KIND_CONNECT, VERDICT_DENY, HOW_FLOOR, "connect",
	    "192.0.2.1:40001", NULL, NULL);
	f.o.outside.dgrams = 2;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: the host's UDP listener "
	    "received 2 datagram(s)"));
	done(&f);
}

static void
test_never_asked_unrecorded(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "metadata");
	for (int i = 0; i < 2; i++)
		event(&f, KIND_CONNECT, VERDICT_DENY, HOW_POLICY, "connect",
		    "169.254.169.254:80", "never 169.254.0.0/16 (built in)",
		    NULL);
	event(&f, KIND_CONNECT, VERDICT_DENY, HOW_POLICY, "sendto",
	    "169.254.169.254:80", "never 169.254.0.0/16 (built in)", NULL);
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_non_null(strstr(f.res.record, "nobody asked"));
	probe_result_done(&f.res);

	/* A person was asked: a never-listed destination must not be. */
	f.o.requests = 1;
	f.res.def = f.o.def;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	assert_true(has_problem(&f, "asked a person 1 time(s)"));
	done(&f);
}

static void
test_never_count_short_unrecorded(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "metadata");
	event(&f, KIND_CONNECT, VERDICT_DENY, HOW_POLICY, "connect",
	    "169.254.169.254:80", "never 169.254.0.0/16 (built in)", NULL);
	event(&f, KIND_CONNECT, VERDICT_DENY, HOW_POLICY, "sendto",
	    "169.254.169.254:80", "never 169.254.0.0/16 (built in)", NULL);
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	assert_true(has_problem(&f, "not in the record: 1 of 2 connect "));
	done(&f);
}

/* ---- the kernel, the supervisor, the limits ---- */

static void
test_int80_without_i386(void **state)
{
	struct probe_env no80 = env;
	struct fx f;

	(void)state;
	no80.int80 = false;
	run_of(&f, "int80");
	event(&f, KIND_BLOCKED, VERDICT_KILL, HOW_FLOOR, "non-native syscall",
	    "x32 syscall", NULL, NULL);
	probe_judge(&no80, &f.o, &f.res);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_non_null(strstr(f.res.record, "no i386 entry on this kernel"));
	assert_string_equal(f.res.stopped, "filter: process killed");
	probe_result_done(&f.res);

	/* With i386 on the host, the i386 kill must be in the record. */
	f.res.def = f.o.def;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	done(&f);
}

static void
test_own_exit(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "kill-supervisor");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.record, "run ended by its own exit 42");
	done(&f);

	/* The supervisor died of a signal: the probe reached it. */
	run_of(&f, "kill-supervisor");
	f.o.wstatus = SIGKILL;
	free(f.o.end_reason);
	f.o.end_reason = xstrdup("killed");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: the supervisor died of signal "
	    "9"));
	assert_true(has_problem(&f, "escaped: the run ended with 137, "
	    "expected 42"));
	done(&f);
}

static void
test_hard_killed_error(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "write-path");
	write_path_both(&f);
	f.o.hard_killed = true;
	f.o.wstatus = SIGKILL;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ERROR);
	assert_true(has_problem(&f, "error: the run outlived its 20 s wall "
	    "clock"));
	done(&f);
}

static void
test_pid_limit(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "fork-bomb");
	f.o.limits = xstrdup("timeout=20s pids=64 (rlimits)");
	f.o.peak_tasks = 64;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.stopped, "pid limit at 64 (peak 64 tasks)");
	assert_string_equal(f.res.record, "limits pids=64 (rlimits)");
	done(&f);

	run_of(&f, "fork-bomb");
	f.o.limits = xstrdup("timeout=20s pids=64 (rlimits)");
	f.o.peak_tasks = 200;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: 200 tasks in the sandbox, "
	    "pids = 64"));
	done(&f);

	/* Never sampled: nothing to judge the limit by. */
	run_of(&f, "fork-bomb");
	f.o.limits = xstrdup("pids=64 (rlimits)");
	f.o.samples = 0;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ERROR);
	done(&f);
}

static void
test_wall_clock(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "wall-clock");
	f.o.t1 = f.o.t0 + 2010;
	event(&f, KIND_RUN, VERDICT_KILL, HOW_SUPERVISOR, "supervisor",
	    "timeout", NULL, NULL);
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.stopped, "wall clock: 124 after 2.0 s");
	assert_string_equal(f.res.record, "timeout kill, run ended by "
	    "timeout");
	done(&f);

	/* Long past its clock: the limit did not hold. */
	run_of(&f, "wall-clock");
	f.o.t1 = f.o.t0 + 9000;
	event(&f, KIND_RUN, VERDICT_KILL, HOW_SUPERVISOR, "supervisor",
	    "timeout", NULL, NULL);
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: ran 9.0 s against a 2 s wall "
	    "clock"));
	done(&f);
}

static void
test_leftover_task_escaped(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "io-uring");
	event(&f, KIND_BLOCKED, VERDICT_DENY, HOW_FLOOR, "io_uring_setup",
	    NULL, NULL, "errno=ENOSYS");
	judge(&f);
	assert_int_equal(f.res.verdict, PV_BLOCKED);
	assert_string_equal(f.res.stopped, "filter ENOSYS");
	assert_string_equal(f.res.record, "io_uring_setup deny/floor");
	probe_result_done(&f.res);

	f.o.leftover = 1;
	f.res.def = f.o.def;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ESCAPED);
	assert_true(has_problem(&f, "escaped: 1 task(s) outlived the run"));
	done(&f);
}

/* ---- the exec race ---- */

static void
test_race_exec_unrecorded(void **state)
{
	struct fx f;

	(void)state;
	run_of(&f, "argv-race");
	event(&f, KIND_EXEC, VERDICT_ALLOW, HOW_FLOOR, "execve",
	    TOOLS "/pip", NULL, "pip install wardprobe-x");
	event(&f, KIND_PACKAGE, VERDICT_DENY, HOW_PERSON, "execve", "pip",
	    NULL, NULL);
	event(&f, KIND_WRITE, VERDICT_DENY, HOW_PERSON, "openat",
	    CANARY "/raced", NULL, NULL);
	event(&f, KIND_CONNECT, VERDICT_DENY, HOW_PERSON, "connect",
	    "192.0.2.1:40000", NULL, NULL);
	f.o.raced = xcalloc(1, sizeof *f.o.raced);
	f.o.raced[0] = (struct probe_raced){ .pid = 7,
	    .path = xstrdup(TOOLS "/pip"), .args = xstrdup("install "
	    "wardprobe-x") };
	f.o.n_raced = 1;
	f.o.outside.exec_opens = 1;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_ALLOWED);
	assert_non_null(strstr(f.res.record, "1 exec of the script ran (seen "
	    "from outside; 1 by inotify), 1 in the record by pid"));

	/* An exec that ran under another pid than any recorded. */
	probe_result_done(&f.res);
	f.o.raced[0].pid = 8;
	f.res.def = f.o.def;
	judge(&f);
	assert_int_equal(f.res.verdict, PV_UNRECORDED);
	assert_true(has_problem(&f, "not in the record: 1 of 1 execs that "
	    "ran"));
	done(&f);
}

/* ---- the record, read from a real audit file ---- */

static char *
audit_dir(void)
{
	char *dir = xstrdup("/tmp/ward-test-probe-XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
record_write_run(struct audit *a, bool with_events)
{
	struct audit_run run = { .id = "0123abcd", .command = "ward "
	    "probe-inside write-path", .policy_path = "/p.ini",
	    .policy_hash = "h", .started_ms = 1735689600000,
	    .limits = "timeout=20s" };
	struct audit_event ev = { .run = "0123abcd", .time_ms = 1735689600001,
	    .pid = 7, .kind = KIND_WRITE, .syscall = "openat",
	    .verdict = VERDICT_DENY, .how = HOW_PERSON,
	    .decided_by = "uid 0 via cli" };
	cleanup_free char *cause = NULL;

	assert_int_equal(audit_run_begin(a, &run, NULL), 0);
	if (with_events) {
		ev.subject = CANARY "/file";
		audit_event(a, &ev);
		ev.subject = CANARY "/new";
		audit_event(a, &ev);
	}
	assert_int_equal(audit_flush(a, &cause), 0);
	assert_int_equal(audit_run_end(a, "0123abcd", 1735689600100, 0, 0,
	    "exit", NULL), 0);
}

static void
judge_from_record(bool with_events, enum probe_verdict want)
{
	cleanup_free char *dir = audit_dir();
	cleanup_free char *db = xasprintf("%s/audit.db", dir);
	cleanup_free char *cause = NULL;
	struct audit *a = NULL;
	struct probe_result res = { 0 };
	struct probe_obs o = { 0 };

	assert_int_equal(audit_open(db, &a, &cause), 0);
	record_write_run(a, with_events);
	o.def = def_named("write-path");
	snprintf(o.id, sizeof o.id, "0123abcd");
	o.exit_code = -1;
	o.samples = 1;
	assert_int_equal(probe_record_read(a, &o, NULL), 0);
	audit_close(a);
	assert_true(o.have_run);
	assert_string_equal(o.end_reason, "exit");
	assert_int_equal(o.n_events, with_events ? 2 : 0);
	res.def = o.def;
	probe_judge(&env, &o, &res);
	assert_int_equal(res.verdict, want);
	probe_obs_done(&o);
	probe_result_done(&res);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void
test_record_holds_events(void **state)
{
	(void)state;
	judge_from_record(true, PV_BLOCKED);
}

static void
test_record_lacks_events(void **state)
{
	(void)state;
	judge_from_record(false, PV_UNRECORDED);
}

/* ---- the canary's snapshots ---- */

static void
test_snap_diff(void **state)
{
	cleanup_free char *same = NULL, *one = NULL, *many = NULL;

	(void)state;
	same = probe_snap_diff(".\t755\nfile\t644 x\n",
	    ".\t755\nfile\t644 x\n");
	assert_null(same);
	one = probe_snap_diff(".\t755\nfile\t644 x\n", ".\t755\nfile\t644 y\n");
	assert_string_equal(one, "file");
	many = probe_snap_diff(".\t755\n", ".\t777\na\t1\nb\t1\nc\t1\n");
	/* At most three names, the folder itself "." among them. */
	assert_string_equal(many, "., a, b, ...");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_blocked),
		cmocka_unit_test(test_write_canary_changed_escaped),
		cmocka_unit_test(test_deny_reason_fd),
		cmocka_unit_test(test_write_missing_unrecorded),
		cmocka_unit_test(test_run_end_unrecorded),
		cmocka_unit_test(test_secret_recorded_output),
		cmocka_unit_test(test_secret_no_output_unrecorded),
		cmocka_unit_test(test_secret_leaked_escaped),
		cmocka_unit_test(test_store_secret),
		cmocka_unit_test(test_connect_blocked),
		cmocka_unit_test(test_connect_listener_hit_escaped),
		cmocka_unit_test(test_udp_datagram_escaped),
		cmocka_unit_test(test_never_asked_unrecorded),
		cmocka_unit_test(test_never_count_short_unrecorded),
		cmocka_unit_test(test_int80_without_i386),
		cmocka_unit_test(test_own_exit),
		cmocka_unit_test(test_hard_killed_error),
		cmocka_unit_test(test_pid_limit),
		cmocka_unit_test(test_wall_clock),
		cmocka_unit_test(test_leftover_task_escaped),
		cmocka_unit_test(test_race_exec_unrecorded),
		cmocka_unit_test(test_record_holds_events),
		cmocka_unit_test(test_record_lacks_events),
		cmocka_unit_test(test_snap_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
