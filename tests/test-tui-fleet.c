/* SPDX-License-Identifier: MIT */
/* tui/fleet.c and tui/view-runs.c: every run in one console (issue 15).
 * Models fed with messages, keys applied, screens compared with
 * tests/golden/NAME.txt (UPDATE_GOLDEN=1 rewrites them). Run from the
 * repository root; the clock is fake. */
#include <inttypes.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/msg.h"
#include "approvals/request.h"
#include "config/util.h"
#include "tests/golden.h"
#include "tui/fleet.h"
#include "tui/grid.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/view.h"

#define WALL0	1700000000000LL
#define MONO0	5000LL

static void
feed_msg(struct model *m, json_t *msg)
{
	assert_non_null(msg);
	assert_int_equal(model_apply_message(m, msg), 0);
	json_decref(msg);
}

static void
welcome_at(struct model *m, const char *id, const char *name, bool ended,
    int64_t started_ms)
{
	json_t *msg = json_pack("{s:s,s:i,s:{s:s,s:s?,s:s,s:s,s:i,s:I,"
	    "s:i,s:s,s:s,s:i},s:[]}", "type", "welcome", "version", 1,
	    "run", "id", id, "name", name, "command", "make -j2", "state",
	    ended ? "exited" : "running", "pid", 4000, "started_ms",
	    (json_int_t)started_ms, "exit_code", ended ? 0 : -1,
	    "end_reason", ended ? "exit" : "", "limits",
	    "timeout=600s memory=2G", "ask_timeout", 120, "pending");

	feed_msg(m, msg);
}

static void
welcome(struct model *m, const char *id, const char *name, bool ended)
{
	welcome_at(m, id, name, ended, WALL0 - 60000);
}

static void
event(struct model *m, const char *run, enum request_kind kind,
    const char *subject, enum verdict v, enum how how)
{
	struct audit_event ev = {
		.run = run, .time_ms = WALL0 - 1000, .pid = 4243,
		.kind = kind, .syscall = "openat", .subject = subject,
		.detail = "", .verdict = v, .how = how, .rule = NULL,
	};

	feed_msg(m, msg_event(&ev));
}

static void
request(struct model *m, const char *run, uint64_t id, const char *path,
    int64_t age_ms)
{
	feed_msg(m, json_pack("{s:s,s:{s:I,s:s,s:i,s:s,s:s,s:s,s:s,s:s,"
	    "s:s,s:s,s:I,s:I}}", "type", "request", "request",
	    "id", (json_int_t)id, "run", run, "pid", 4100 + (int)id,
	    "kind", "write", "syscall", "openat", "subject", path,
	    "detail", "", "cmdline", "sh -c echo x > f", "cwd", "/work",
	    "why", "no rule", "created_ms", (json_int_t)(WALL0 - age_ms),
	    "deadline_ms", (json_int_t)(WALL0 - age_ms + 120000)));
}

/* A request of any kind, as the supervisor sends it. */
static void
ask(struct model *m, const char *run, uint64_t id, const char *kind,
    const char *syscall, const char *subject, const char *cmdline,
    int64_t age_ms)
{
	feed_msg(m, json_pack("{s:s,s:{s:I,s:s,s:i,s:s,s:s,s:s,s:s,s:s,"
	    "s:s,s:s,s:I,s:I}}", "type", "request", "request",
	    "id", (json_int_t)id, "run", run, "pid", 4100 + (int)id,
	    "kind", kind, "syscall", syscall, "subject", subject,
	    "detail", "", "cmdline", cmdline, "cwd", "/work",
	    "why", "no rule", "created_ms", (json_int_t)(WALL0 - age_ms),
	    "deadline_ms", (json_int_t)(WALL0 - age_ms + 120000)));
}

#define PIP	"pip install wardtiny (1 package) -> /work/lib; index " \
		"http://pypi.org/simple; hosts pypi.org:80"

/*
 * The operator's scenario (issue 31) in models: n runs job01.. each ask
 * a write into one folder outside, a name, and a pip install, all by the
 * same program; one run more, "flood", asks 500 writes and then, 2 s
 * later (newest of all), a write of ~/.ssh/authorized_keys.
 */
static struct fleet *
scenario(size_t n)
{
	struct fleet *f = fleet_new();
	size_t i;

	for (size_t r = 0; r < n; r++) {
		char key[16], name[16], out[64];

		snprintf(key, sizeof key, "%08zx", 0xa0000000 + r);
		snprintf(name, sizeof name, "job%02zu", r + 1);
		snprintf(out, sizeof out, "/srv/out/%s.txt", name);
		i = fleet_add(f, key);
		welcome(f->runs[i].m, key, name, false);
		ask(f->runs[i].m, key, 1, "write", "openat", out,
		    "python3 /work/job.py", 30000 - (int64_t)r * 10);
		ask(f->runs[i].m, key, 2, "dns", "sendto", "names.test",
		    "python3 /work/job.py", 29000 - (int64_t)r * 10);
		ask(f->runs[i].m, key, 3, "package", "execve", PIP,
		    "python3 -m pip install --target /work/lib wardtiny",
		    28000 - (int64_t)r * 10);
	}
	i = fleet_add(f, "f1f2f3f4");
	welcome(f->runs[i].m, "f1f2f3f4", "flood", false);
	for (uint64_t k = 1; k <= 500; k++) {
		char path[64];

		snprintf(path, sizeof path, "/srv/flood/f%03" PRIu64, k);
		ask(f->runs[i].m, "f1f2f3f4", k, "write", "openat", path,
		    "python3 flood.py", 10000 - (int64_t)k);
	}
	ask(f->runs[i].m, "f1f2f3f4", 501, "write", "openat",
	    "/home/u/.ssh/authorized_keys", "python3 flood.py", 7000);
	fleet_set_now(f, MONO0, WALL0);
	fleet_refresh(f);
	return f;
}

/* Renders, then again once the rows are armed (DESIGN §9). */
static void
arm(struct fleet *f, int64_t *t)
{
	free(view_fleet_render_text(f, 200, 50, f->reps));
	fleet_note_view(f);
	*t += 600;
	fleet_set_now(f, MONO0 + *t, WALL0 + *t);
	free(view_fleet_render_text(f, 200, 50, f->reps));
	fleet_note_view(f);
}

/* Four runs: web (2 waiting), db (1, the oldest), docs (ended), lint
 * (none). Nothing sensitive (tui/group.h): oldest first. */
static struct fleet *
base(void)
{
	struct fleet *f = fleet_new();
	size_t i;

	i = fleet_add(f, "a1b2c3d4");
	welcome(f->runs[i].m, "a1b2c3d4", "web", false);
	request(f->runs[i].m, "a1b2c3d4", 1, "/srv/web/a.html", 20000);
	request(f->runs[i].m, "a1b2c3d4", 2, "/srv/web/b.html", 5000);
	i = fleet_add(f, "b2c3d4e5");
	welcome(f->runs[i].m, "b2c3d4e5", "db", false);
	request(f->runs[i].m, "b2c3d4e5", 1, "/var/lib/db/x", 42000);
	i = fleet_add(f, "c3d4e5f6");
	welcome(f->runs[i].m, "c3d4e5f6", "docs", true);
	i = fleet_add(f, "d4e5f6a7");
	welcome(f->runs[i].m, "d4e5f6a7", NULL, false);
	fleet_set_now(f, MONO0, WALL0);
	fleet_refresh(f);
	return f;
}

static char *
render(struct fleet *f, int w, int h)
{
	char *text = view_fleet_render_text(f, w, h, f->reps);

	fleet_note_view(f);
	return text;
}

/* The trailing silence after an approve: no key for MODEL_TRAIL_MS,
 * then the console's tick sends it (tui/model.h). */
static void
silence(struct fleet *f, struct model_effect *eff, size_t *run)
{
	int64_t mono = f->runs[0].m->now_mono, wall = f->runs[0].m->now_wall;

	fleet_set_now(f, mono + MODEL_TRAIL_MS, wall + MODEL_TRAIL_MS);
	assert_true(fleet_tick(f, eff, run));
}

static void
press(struct fleet *f, int k, struct model_effect *eff, size_t *run)
{
	bool moved;

	fleet_apply_key(f, k, f->runs[0].m->now_mono, false, eff, run, &moved);
	fleet_refresh(f);
}

/* Issue 31: an answer confirmed keeps its row a moment ("allowed ✓"),
 * out of the count; the selection goes on to the open row nearest it,
 * in another run when its own has none, and j/k step over it. */
static void
test_confirmed_row(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;
	char *text;

	(void)state;
	free(render(f, 120, 40));
	fleet_set_now(f, MONO0 + 600, WALL0 + 600);
	free(render(f, 120, 40));
	assert_int_equal(f->sel, 1);
	press(f, 'a', &eff, &run);
	silence(f, &eff, &run);		/* the allow's trailing silence */
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(run, 1);
	feed_msg(f->runs[1].m, msg_ack(1, true, NULL));
	feed_msg(f->runs[1].m, msg_resolved(1, VERDICT_ALLOW, HOW_PERSON,
	    "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->n_queue, 3);
	assert_int_equal(f->n_pending, 2);
	assert_int_equal(f->sel, 0);
	assert_int_equal(fleet_model(f)->sel, 1);
	text = render(f, 120, 40);
	assert_non_null(strstr(text, "allowed \xe2\x9c\x93"));
	assert_non_null(strstr(text, "pending: 2 in all runs"));
	free(text);
	press(f, 'k', &eff, &run);	/* up: only the confirmed row is there */
	assert_int_equal(f->sel, 0);
	assert_int_equal(fleet_model(f)->sel, 1);
	fleet_set_now(f, MONO0 + 600 + MODEL_TRAIL_MS + MODEL_DONE_MS,
	    WALL0 + 600 + MODEL_TRAIL_MS + MODEL_DONE_MS);
	for (size_t i = 0; i < f->n_runs; i++)
		model_fates_tick(f->runs[i].m);
	fleet_refresh(f);
	assert_int_equal(f->n_queue, 2);
	assert_int_equal(f->sel, 0);
	fleet_free(f);
}

static void
test_queue_order(void **state)
{
	struct fleet *f = base();

	(void)state;
	assert_int_equal(f->n_queue, 3);
	assert_int_equal(f->n_pending, 3);
	/* Oldest first across runs: db's (42 s), web's .bashrc, web's hosts. */
	assert_int_equal(f->queue[0].run, 1);
	assert_string_equal(f->queue[0].p->subject, "/var/lib/db/x");
	assert_int_equal(f->queue[1].run, 0);
	assert_int_equal(f->queue[1].p->id, 1);
	assert_int_equal(f->queue[2].run, 0);
	assert_int_equal(f->queue[2].p->id, 2);
	/* The console opens on the oldest of them all. */
	assert_int_equal(f->sel, 1);
	assert_int_equal(fleet_queue_sel(f), 0);
	assert_int_equal(fleet_run_pending(f, 0), 2);
	assert_int_equal(fleet_oldest_wait(f, 0), 20000);
	assert_true(fleet_run_ended(f, 2));
	assert_false(fleet_run_ended(f, 0));
	fleet_free(f);
}

/* a arms per request; the answer goes to the run the request is of. */
static void
test_answer_goes_to_its_run(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;

	(void)state;
	free(render(f, 120, 40));
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);	/* not armed yet */
	fleet_set_now(f, MONO0 + 600, WALL0 + 600);
	free(render(f, 120, 40));
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(f, &eff, &run);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_int_equal(run, 1);
	assert_int_equal(eff.request, 1);

	/* j moves to web's first; d denies it, on web's connection. */
	press(f, 'j', &eff, &run);
	assert_int_equal(f->sel, 0);
	press(f, 'd', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(run, 0);
	assert_int_equal(eff.request, 1);
	fleet_free(f);
}

/* A run key the fleet keeps (]) arrives within the trailing silence of
 * a held allow: the allow goes, in whichever run it was held. */
static void
test_run_key_drops_held_allow(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;
	struct model *db = f->runs[1].m;

	(void)state;
	free(render(f, 120, 40));
	fleet_set_now(f, MONO0 + 600, WALL0 + 600);
	free(render(f, 120, 40));
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_true(model_holding(db, 1));
	assert_int_equal(fleet_due(f), MONO0 + 600 + MODEL_TRAIL_MS);
	fleet_set_now(f, MONO0 + 700, WALL0 + 700);
	press(f, ']', &eff, &run);
	assert_false(model_holding(db, 1));
	fleet_set_now(f, MONO0 + 2000, WALL0 + 2000);
	assert_false(fleet_tick(f, &eff, &run));
	assert_int_equal(fleet_due(f), 0);
	assert_int_equal(model_pending_find(db, 1)->sent, VERDICT_NONE);
	fleet_free(f);
}

/* The selected request goes: the one in its place is selected, armed
 * afresh, and it may be of another run. */
static void
test_selection_follows_queue(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;

	(void)state;
	fleet_set_now(f, MONO0, WALL0);
	free(render(f, 120, 40));
	fleet_set_now(f, MONO0 + 600, WALL0 + 600);
	free(render(f, 120, 40));
	assert_true(model_armed(f->runs[1].m, 1));
	press(f, 'd', &eff, &run);
	assert_int_equal(run, 1);
	feed_msg(f->runs[1].m, msg_resolved(1, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->sel, 0);
	assert_int_equal(f->runs[0].m->sel, 1);
	assert_int_equal(fleet_queue_sel(f), 0);
	/* Not armed: the person did not choose it. */
	assert_false(model_armed(f->runs[0].m, 1));
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);

	/* A new request, older than none, does not move the selection. */
	request(f->runs[3].m, "d4e5f6a7", 1, "/tmp/new", 0);
	fleet_refresh(f);
	assert_int_equal(f->sel, 0);
	assert_int_equal(f->runs[0].m->sel, 1);
	assert_int_equal(f->n_queue, 3);
	fleet_free(f);
}

static void
test_switch_runs(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;

	(void)state;
	/* Started together: listed by name, the id for the unnamed one:
	 * d4e5f6a7 (3), db (1), docs (2), web (0). */
	assert_int_equal(fleet_run_at(f, 0), 3);
	assert_int_equal(fleet_run_at(f, 1), 1);
	assert_int_equal(fleet_run_at(f, 2), 2);
	assert_int_equal(fleet_run_at(f, 3), 0);
	assert_int_equal(f->sel, 1);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, 2);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, 0);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, 3);		/* wraps */
	press(f, '[', &eff, &run);
	assert_int_equal(f->sel, 0);
	press(f, '2', &eff, &run);
	assert_int_equal(f->sel, 1);
	press(f, '9', &eff, &run);		/* no run 9 */
	assert_int_equal(f->sel, 1);
	assert_string_equal(f->runs[1].m->message, "no run 9");
	/* The diff's file keys moved off [ ]: they switch no run. */
	press(f, '}', &eff, &run);
	press(f, '{', &eff, &run);
	assert_int_equal(f->sel, 1);
	/* A run the person chose keeps the selection though it has
	 * nothing pending. */
	press(f, '1', &eff, &run);
	assert_int_equal(f->sel, 3);
	fleet_refresh(f);
	assert_int_equal(f->sel, 3);
	press(f, 'd', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	fleet_free(f);
}

static void
test_dismiss(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;

	(void)state;
	press(f, '4', &eff, &run);		/* web */
	assert_int_equal(f->sel, 0);
	press(f, 'x', &eff, &run);
	assert_false(f->runs[0].dismissed);	/* it runs */
	assert_string_equal(f->runs[0].m->message, "run web: x dismisses "
	    "a run that has ended; this one runs");
	/* X is the run's "deny all", never a dismiss. */
	press(f, 'X', &eff, &run);
	assert_int_equal(f->runs[0].m->answer.ask, ASK_DENY_ALL);
	press(f, 'n', &eff, &run);
	assert_int_equal(f->runs[0].m->answer.ask, ASK_NONE);
	press(f, '3', &eff, &run);		/* docs, ended */
	assert_int_equal(f->sel, 2);
	press(f, 'X', &eff, &run);
	assert_false(f->runs[2].dismissed);
	press(f, 'x', &eff, &run);
	assert_true(f->runs[2].dismissed);
	fleet_remove(f, 2);
	/* The order follows the runs that are left. */
	assert_int_equal(fleet_run_at(f, 0), 2);	/* d4e5f6a7, moved */
	assert_int_equal(fleet_run_at(f, 1), 1);
	assert_int_equal(fleet_run_at(f, 2), 0);
	assert_int_equal(fleet_run_at(f, 3), 3);	/* none */
	assert_int_equal(f->n_runs, 3);
	assert_int_equal(f->n_queue, 3);
	assert_int_equal(fleet_find(f, "c3d4e5f6"), -1);
	assert_int_equal(fleet_find(f, "d4e5f6a7"), 2);
	/* Leaving with requests waiting in the runs asks first (issue 15),
	 * counting every run's; y leaves. */
	press(f, 'q', &eff, &run);
	assert_false(f->quit);
	press(f, 'y', &eff, &run);
	assert_true(f->quit);
	fleet_free(f);
}

/* Enter opens the selected run's whole request over the screen; its
 * keys are the run's own until it closes. */
static void
test_overlay(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;
	cleanup_free char *text = NULL;

	(void)state;
	press(f, '\r', &eff, &run);
	assert_true(fleet_overlay(f));
	text = render(f, 80, 24);
	assert_non_null(strstr(text, "/var/lib/db/x"));
	assert_non_null(strstr(text, "request #1"));
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, 1);		/* swallowed by the detail */
	press(f, KEYS_ESC, &eff, &run);
	assert_false(fleet_overlay(f));
	/* The help lists the run keys here (not in a console of one). */
	press(f, '?', &eff, &run);
	assert_true(fleet_overlay(f));
	free(text);
	text = render(f, 80, 24);
	golden("runs-help-80x24", text);
	press(f, 'j', &eff, &run);		/* any key closes it */
	assert_false(fleet_overlay(f));
	assert_int_equal(fleet_queue_sel(f), 0);
	fleet_free(f);
}

/* The agent pane of the selected run: with the keys on the program, ]
 * is the program's; with them on the requests, ] moves to the next run. */
static void
test_agent_strip(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	size_t run;

	(void)state;
	model_set_agent(f->runs[1].m, AGENT_ON, 0);
	assert_int_equal(f->runs[1].m->focus, PANE_AGENT);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, 1);		/* the program's key */
	press(f, MODEL_PREFIX, &eff, &run);
	assert_int_equal(f->runs[1].m->focus, PANE_PENDING);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, 2);
	fleet_free(f);
}

/* No run, then a run with nothing pending: drawn, q leaves. */
static void
test_empty(void **state)
{
	struct fleet *f = fleet_new();
	struct model_effect eff;
	cleanup_free char *a = NULL, *b = NULL;
	size_t run;

	(void)state;
	fleet_refresh(f);
	a = render(f, 80, 24);
	assert_non_null(strstr(a, "none live"));
	run = fleet_add(f, "e5f6a7b8");
	welcome(f->runs[run].m, "e5f6a7b8", "idle", false);
	fleet_refresh(f);
	b = render(f, 80, 24);
	assert_non_null(strstr(b, "pending: none in any run"));
	press(f, 'd', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	press(f, 'q', &eff, &run);
	assert_true(f->quit);
	fleet_free(f);
}

/* Runs of other hosts (ward console --host, issue 16): the same id on
 * two hosts is two runs; each row and queue entry names its host, this
 * machine's "local"; a host whose link broke greys its runs "host gone"
 * (counted as ended: nothing is answered there) and the runs pane says
 * which hosts are gone; an answer goes to the run of its own host. */
static void
test_hosts(void **state)
{
	struct fleet *f = fleet_new();
	struct model_effect eff;
	cleanup_free char *a = NULL, *b = NULL, *c = NULL, *down = NULL;
	size_t run, l, h1, h2;

	(void)state;
	l = fleet_add(f, "a1b2c3d4");
	welcome(f->runs[l].m, "a1b2c3d4", "web", false);
	request(f->runs[l].m, "a1b2c3d4", 1, "/srv/web/a.html", 5000);
	h1 = fleet_add_on(f, "build1", "a1b2c3d4");
	welcome(f->runs[h1].m, "a1b2c3d4", "web", false);
	request(f->runs[h1].m, "a1b2c3d4", 1, "/srv/b1", 30000);
	h2 = fleet_add_on(f, "user@build2", "b2c3d4e5");
	welcome(f->runs[h2].m, "b2c3d4e5", "db", false);
	request(f->runs[h2].m, "b2c3d4e5", 1, "/srv/b2", 20000);
	fleet_host_set(f, "build1", true);
	fleet_host_set(f, "user@build2", true);
	fleet_set_now(f, MONO0, WALL0);
	fleet_refresh(f);

	assert_int_equal(fleet_find(f, "a1b2c3d4"), (ssize_t)l);
	assert_int_equal(fleet_find_on(f, "build1", "a1b2c3d4"), (ssize_t)h1);
	assert_int_equal(fleet_find_on(f, "build1", "b2c3d4e5"), -1);
	assert_int_equal(fleet_find_on(f, "user@build2", "b2c3d4e5"),
	    (ssize_t)h2);
	assert_int_equal(fleet_find(f, "b2c3d4e5"), -1);
	assert_true(fleet_any_host(f));
	assert_null(fleet_hosts_down(f));

	a = render(f, 120, 40);
	assert_non_null(strstr(a, "local:web"));
	assert_non_null(strstr(a, "build1:web"));
	assert_non_null(strstr(a, "user@build2:db"));
	assert_non_null(strstr(a, "[build1:web] #1"));
	assert_non_null(strstr(a, "[user@build2:db] #1"));
	assert_non_null(strstr(a, "[web] #1"));	/* local: unmarked */
	assert_null(strstr(a, "host gone"));
	golden("runs-hosts-120x40", a);

	/* The oldest (build1's) is selected; armed, a goes to its run. */
	fleet_set_now(f, MONO0 + 600, WALL0 + 600);
	free(render(f, 120, 40));
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(f, &eff, &run);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(run, h1);

	/* build1's link breaks: its run only. */
	assert_int_equal(fleet_host_gone(f, "build1", true), 1);
	fleet_host_set(f, "build1", false);
	model_set_disconnected(f->runs[h1].m, "host gone");
	fleet_refresh(f);
	assert_true(f->runs[h1].host_gone);
	assert_false(f->runs[h2].host_gone);
	assert_false(f->runs[l].host_gone);
	assert_true(fleet_run_ended(f, h1));
	assert_false(fleet_run_ended(f, h2));
	down = fleet_hosts_down(f);
	assert_string_equal(down, "build1");
	/* build1's run selected (3: db, web, build1's web): the keys line
	 * says why it is idle. */
	press(f, '3', &eff, &run);
	assert_int_equal(f->sel, h1);
	b = render(f, 120, 40);
	assert_non_null(strstr(b, "host gone: build1 (trying again)"));
	assert_non_null(strstr(b, "its host is gone - trying again"));
	{
		const char *row = strstr(b, "build1:web");

		assert_non_null(row);
		assert_true(strstr(row, "host gone") != NULL &&
		    strstr(row, "host gone") < strchr(row, '\n'));
	}
	assert_int_equal(fleet_host_gone(f, "nosuch", true), 0);
	assert_int_equal(fleet_host_gone(f, NULL, true), 0);

	/* Back: a fresh model, the mark gone. */
	fleet_host_set(f, "build1", true);
	fleet_reset(f, h1);
	assert_false(f->runs[h1].host_gone);
	assert_string_equal(f->runs[h1].host, "build1");
	c = render(f, 120, 40);
	assert_null(strstr(c, "host gone"));
	fleet_free(f);
}

/* Runs are listed by start time, then name, then id, whatever order they
 * were added (hash order of the runs folder); 1-9 and [ ] follow it; a
 * run with no welcome yet is last. */
static void
test_run_order(void **state)
{
	struct fleet *f = fleet_new();
	struct model_effect eff;
	cleanup_free char *a = NULL;
	size_t run, z, y, x2, x1, w;

	(void)state;
	z = fleet_add(f, "f0000001");
	welcome_at(f->runs[z].m, "f0000001", "zeta", false, WALL0 - 5000);
	y = fleet_add(f, "e0000002");
	welcome_at(f->runs[y].m, "e0000002", "build-3", false,
	    WALL0 - 90000);
	x2 = fleet_add(f, "b0000003");
	welcome_at(f->runs[x2].m, "b0000003", "alpha", false,
	    WALL0 - 30000);
	x1 = fleet_add(f, "a0000004");
	welcome_at(f->runs[x1].m, "a0000004", "alpha", true,
	    WALL0 - 30000);
	w = fleet_add(f, "c0000005");	/* no welcome yet */
	fleet_set_now(f, MONO0, WALL0);
	fleet_refresh(f);

	assert_int_equal(fleet_run_at(f, 0), y);	/* oldest */
	assert_int_equal(fleet_run_at(f, 1), x1);	/* alpha, a... */
	assert_int_equal(fleet_run_at(f, 2), x2);	/* alpha, b... */
	assert_int_equal(fleet_run_at(f, 3), z);
	assert_int_equal(fleet_run_at(f, 4), w);	/* unknown: last */
	assert_int_equal(fleet_run_at(f, 5), f->n_runs);
	assert_int_equal(fleet_run_pos(f, z), 3);

	press(f, '1', &eff, &run);
	assert_int_equal(f->sel, y);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, x1);
	press(f, ']', &eff, &run);
	assert_int_equal(f->sel, x2);
	press(f, '4', &eff, &run);
	assert_int_equal(f->sel, z);
	press(f, '[', &eff, &run);
	assert_int_equal(f->sel, x2);
	press(f, '[', &eff, &run);
	press(f, '[', &eff, &run);
	assert_int_equal(f->sel, y);
	press(f, '[', &eff, &run);
	assert_int_equal(f->sel, w);			/* wraps */

	/* The title numbers the run by its place. */
	press(f, '4', &eff, &run);
	a = render(f, 80, 24);
	assert_non_null(strstr(a, "run 4: f0000001 (zeta)"));
	golden("runs-order-80x24", a);
	{
		cleanup_free char *big = render(f, 200, 50);

		/* All five shown at 200x50, the unwelcomed one last, by
		 * the id it was dialled by. */
		assert_non_null(strstr(big, "  5  c0000005     c0000005 "));
		golden("runs-order-200x50", big);
	}

	/* Its welcome comes: c0000005 started first of all. */
	welcome_at(f->runs[w].m, "c0000005", "late", false, WALL0 - 600000);
	fleet_refresh(f);
	assert_int_equal(fleet_run_at(f, 0), w);
	assert_int_equal(f->sel, z);		/* the selection stays */
	assert_int_equal(fleet_run_pos(f, z), 4);
	fleet_free(f);
}

/* C dismisses every ended run after y to a question that counts them;
 * host-gone runs are neither counted nor dismissed (they may come back). */
static void
test_clear_ended(void **state)
{
	struct fleet *f = fleet_new();
	struct model_effect eff;
	cleanup_free char *a = NULL, *b = NULL;
	char name[16], id[16];
	size_t run, live, h, more;

	(void)state;
	live = fleet_add(f, "a0000000");
	welcome(f->runs[live].m, "a0000000", "live", false);
	request(f->runs[live].m, "a0000000", 1, "/etc/hosts", 5000);
	for (int k = 0; k < 3; k++) {
		size_t i;

		snprintf(id, sizeof id, "e000000%d", k);
		snprintf(name, sizeof name, "old-%d", k);
		i = fleet_add(f, id);
		welcome(f->runs[i].m, id, name, true);
	}
	h = fleet_add_on(f, "build1", "b0000000");
	welcome(f->runs[h].m, "b0000000", "far", false);
	fleet_host_set(f, "build1", true);
	fleet_set_now(f, MONO0, WALL0);
	fleet_refresh(f);
	(void)fleet_host_gone(f, "build1", true);
	fleet_host_set(f, "build1", false);
	fleet_refresh(f);

	assert_int_equal(fleet_n_ended(f), 3);
	assert_int_equal(fleet_n_host_gone(f), 1);
	a = render(f, 200, 50);
	assert_non_null(strstr(a, "runs: 1 running, 3 ended, 1 host gone"));
	golden("runs-ended-200x50", a);

	/* Asked first; n keeps them all. */
	press(f, 'C', &eff, &run);
	assert_int_equal(f->confirm_clear, 3);
	b = render(f, 200, 50);
	assert_non_null(strstr(b, "dismiss 3 ended runs? y/n"));
	press(f, 'd', &eff, &run);		/* not y: no, and no deny */
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->confirm_clear, 0);
	for (size_t i = 0; i < f->n_runs; i++)
		assert_false(f->runs[i].dismissed);
	assert_int_equal(fleet_run_pending(f, live), 1);
	/* A resize answers nothing; a paste cancels and stays a paste:
	 * the pasted "a" reaches no queue. */
	press(f, 'C', &eff, &run);
	press(f, KEYS_RESIZE, &eff, &run);
	assert_int_equal(f->confirm_clear, 3);
	press(f, KEYS_PASTE_START, &eff, &run);
	assert_int_equal(f->confirm_clear, 0);
	press(f, 'y', &eff, &run);
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	press(f, KEYS_PASTE_END, &eff, &run);
	for (size_t i = 0; i < f->n_runs; i++)
		assert_false(f->runs[i].dismissed);
	/* One more ends while asked: y asks again with the new count. */
	press(f, 'C', &eff, &run);
	assert_int_equal(f->confirm_clear, 3);
	more = fleet_add(f, "f0000000");
	welcome(f->runs[more].m, "f0000000", "late", true);
	fleet_refresh(f);
	press(f, 'y', &eff, &run);
	assert_int_equal(f->confirm_clear, 4);
	for (size_t i = 0; i < f->n_runs; i++)
		assert_false(f->runs[i].dismissed);
	assert_string_equal(fleet_model(f)->message,
	    "dismiss 4 ended runs? y/n");
	/* y: the four ended runs, not the live one nor the host-gone. */
	press(f, 'y', &eff, &run);
	assert_int_equal(f->confirm_clear, 0);
	for (size_t i = 0; i < f->n_runs; i++)
		assert_int_equal(f->runs[i].dismissed,
		    i != live && i != h);
	assert_string_equal(fleet_model(f)->message,
	    "4 ended runs dismissed");
	for (size_t i = f->n_runs; i-- > 0;) {
		if (f->runs[i].dismissed)
			fleet_remove(f, i);
	}
	assert_int_equal(f->n_runs, 2);
	/* Nothing more to clear: said, nothing asked. */
	press(f, 'C', &eff, &run);
	assert_int_equal(f->confirm_clear, 0);
	assert_non_null(strstr(fleet_model(f)->message,
	    "no ended run to dismiss"));
	/* x still drops a host-gone run, one at a time. */
	h = (size_t)fleet_find_on(f, "build1", "b0000000");
	press(f, '2', &eff, &run);
	if (f->sel != h)
		press(f, '1', &eff, &run);
	assert_int_equal(f->sel, h);
	press(f, 'x', &eff, &run);
	assert_true(f->runs[h].dismissed);
	fleet_free(f);
}

/* Every status line and question of the every-run console names its
 * run; the one-run console's wording is unchanged. */
static void
test_names_in_messages(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	struct model *one = model_new();
	cleanup_free char *a = NULL, *ask = NULL;
	size_t run;

	(void)state;
	/* db's request is selected; armed, a goes and says whose. */
	free(render(f, 120, 40));
	fleet_set_now(f, MONO0 + 600, WALL0 + 600);
	free(render(f, 120, 40));
	press(f, 'a', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);	/* held: MODEL_TRAIL_MS */
	silence(f, &eff, &run);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(run, 1);
	assert_non_null(f->runs[1].m->message);
	assert_true(strncmp(f->runs[1].m->message, "run db: ", 8) == 0);
	/* db's answer resolved: the selection moves on to web's request,
	 * and the status line still says what came of db's. */
	feed_msg(f->runs[1].m, msg_resolved(1, VERDICT_ALLOW, HOW_PERSON,
	    "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->sel, 0);
	assert_non_null(f->runs[0].m->message);
	assert_true(strncmp(f->runs[0].m->message, "run db: ", 8) == 0);
	free(a);
	a = render(f, 80, 24);
	assert_non_null(strstr(a, "run db: "));
	free(a);
	a = NULL;
	/* K names the run, its name and id. */
	press(f, '4', &eff, &run);
	press(f, 'K', &eff, &run);
	assert_true(f->runs[0].m->confirm_kill);
	assert_string_equal(f->runs[0].m->message,
	    "kill run web (a1b2c3d4)? y/n");
	a = render(f, 80, 24);
	assert_non_null(strstr(a, " kill run web (a1b2c3d4)? y/n"));
	press(f, 'n', &eff, &run);
	/* An unnamed run: its id. */
	press(f, '1', &eff, &run);
	press(f, 'K', &eff, &run);
	assert_string_equal(f->runs[3].m->message, "kill run d4e5f6a7? y/n");
	press(f, 'n', &eff, &run);
	/* X's question names it too. */
	press(f, '4', &eff, &run);
	press(f, 'X', &eff, &run);
	ask = model_ask_text(f->runs[0].m);
	assert_non_null(ask);
	assert_true(strncmp(ask, "run web: deny every pending", 27) == 0);
	press(f, 'n', &eff, &run);

	/* One run: named too (issue 31: every confirmation names its run). */
	model_set_now(one, MONO0, WALL0);
	welcome(one, "a1b2c3d4", "web", false);
	model_apply_key(one, 'K', &eff, &(bool){ false });
	assert_string_equal(one->message, "kill run web (a1b2c3d4)? y/n");
	model_free(one);
	fleet_free(f);
}

/* The selected run's events pane in the every-run console: shown with
 * room, and `/` draws its filter and takes every key until Enter. */
static void
test_events_pane(void **state)
{
	struct fleet *f = base();
	struct model_effect eff;
	cleanup_free char *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	size_t run;
	struct model *db = f->runs[1].m;

	(void)state;
	event(db, "b2c3d4e5", KIND_WRITE, "/var/lib/db/ok", VERDICT_ALLOW,
	    HOW_POLICY);
	event(db, "b2c3d4e5", KIND_CONNECT, "10.0.0.5:5432", VERDICT_DENY,
	    HOW_PERSON);
	event(db, "b2c3d4e5", KIND_WRITE, "/etc/passwd", VERDICT_DENY,
	    HOW_POLICY);
	fleet_refresh(f);
	assert_int_equal(f->sel, 1);
	a = render(f, 200, 50);
	assert_non_null(strstr(a, "10.0.0.5:5432"));
	golden("runs-events-200x50", a);
	/* 80x24 has no room for it shut. */
	b = render(f, 80, 24);
	assert_null(strstr(b, "10.0.0.5:5432"));

	/* `/` opens it, drawn; the keys are text, none a run key. */
	press(f, '/', &eff, &run);
	assert_true(db->ev.editing);
	press(f, 'd', &eff, &run);
	press(f, 'e', &eff, &run);
	press(f, 'n', &eff, &run);
	press(f, 'y', &eff, &run);
	press(f, ' ', &eff, &run);
	press(f, '3', &eff, &run);	/* text, not run 3 */
	assert_int_equal(f->sel, 1);
	assert_int_equal(eff.kind, EFFECT_NONE);
	press(f, KEYS_BACKSPACE, &eff, &run);
	press(f, KEYS_BACKSPACE, &eff, &run);
	c = render(f, 80, 24);
	assert_non_null(strstr(c, "deny"));
	assert_non_null(strstr(c, "/etc/passwd"));
	golden("runs-events-filter-80x24", c);
	press(f, '\r', &eff, &run);
	assert_false(db->ev.editing);
	assert_string_equal(db->ev.filter_text, "deny");
	d = render(f, 80, 24);
	assert_non_null(strstr(d, "/etc/passwd"));
	assert_null(strstr(d, "/var/lib/db/ok  "));
	fleet_free(f);
}

static void
test_goldens(void **state)
{
	struct fleet *f = base();
	struct grid *g;
	cleanup_free char *a = NULL, *b = NULL;
	int y;

	(void)state;
	a = render(f, 80, 24);
	golden("runs-80x24", a);
	b = render(f, 200, 50);
	golden("runs-200x50", b);

	/* The ended run's row is greyed. */
	g = grid_new(80, 24);
	view_fleet_draw(f, g, f->reps);
	for (y = 0; y < g->h; y++) {
		const struct grid_cell *c = grid_cell(g, y, 5);

		if (c->cp == 'd' && grid_cell(g, y, 6)->cp == 'o')
			break;
	}
	assert_true(y < g->h);
	assert_true(grid_cell(g, y, 5)->attr & GRID_DIM);
	assert_false(grid_cell(g, 3, 5)->attr & GRID_DIM);
	grid_free(g);
	fleet_free(f);
}

/* No screen lets a request be answered unseen: the queue reports each
 * request to its own run, the ids of different runs apart. */
static void
test_reports_per_run(void **state)
{
	struct fleet *f = base();

	(void)state;
	free(render(f, 120, 40));
	assert_int_equal(f->reps[0].n_seen, 2);
	assert_int_equal(f->reps[1].n_seen, 1);
	assert_int_equal(f->reps[2].n_seen, 0);
	assert_true(f->runs[0].m->pending[0]->shown);
	assert_true(f->runs[1].m->pending[0]->shown);
	fleet_free(f);
}

/* ---- prompts own the keyboard (issue 31) ---- */

/* A write request as the supervisor sends it, with the rule an answer
 * for the run would store. */
static void
ask_write(struct model *m, const char *run, uint64_t id, const char *path,
    int64_t age_ms)
{
	struct request *r = request_new();

	r->id = id;
	r->run = xstrdup(run);
	r->pid = 4100 + (pid_t)id;
	r->kind = KIND_WRITE;
	r->syscall = xstrdup("openat");
	r->subject = xstrdup(path);
	r->detail = xstrdup("flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644");
	r->cmdline = xstrdup("sh -c echo x > f");
	r->cwd = xstrdup("/work");
	r->why = xstrdup("no rule");
	r->created_ms = WALL0 - age_ms;
	r->deadline_ms = WALL0 - age_ms + 120000;
	r->rule = xstrdup(path);
	feed_msg(m, msg_request(r));
	request_free(r);
}

static void
welcome_policy(struct model *m, const char *id, const char *name)
{
	const struct msg_run ri = {
		.id = id, .name = name, .command = "make -j2",
		.state = RUN_RUNNING, .pid = 4000, .started_ms = WALL0 - 60000,
		.exit_code = -1, .limits = "timeout=600s",
		.policy = "/home/u/.config/ward/ward.ini", .ask_timeout = 120,
	};

	feed_msg(m, msg_welcome(&ri, NULL));
}

/* Three runs each asking for a write outside, web twice: the queue is
 * web #1 (30 s), db #1 (20 s), api #1 (10 s), web #2 (5 s); web's #1
 * is selected, on screen and armed. */
static struct fleet *
trio(int64_t *mono)
{
	struct fleet *f = fleet_new();
	size_t i;

	i = fleet_add(f, "a1b2c3d4");
	welcome_policy(f->runs[i].m, "a1b2c3d4", "web");
	ask_write(f->runs[i].m, "a1b2c3d4", 1, "/srv/web/index.html", 30000);
	ask_write(f->runs[i].m, "a1b2c3d4", 2, "/srv/web/b.html", 5000);
	i = fleet_add(f, "b2c3d4e5");
	welcome_policy(f->runs[i].m, "b2c3d4e5", "db");
	ask_write(f->runs[i].m, "b2c3d4e5", 1, "/srv/db/x", 20000);
	i = fleet_add(f, "c3d4e5f6");
	welcome_policy(f->runs[i].m, "c3d4e5f6", "api");
	ask_write(f->runs[i].m, "c3d4e5f6", 1, "/srv/api/y", 10000);
	*mono = MONO0;
	fleet_set_now(f, *mono, WALL0);
	fleet_refresh(f);
	free(render(f, 200, 50));
	*mono += 600;
	fleet_set_now(f, *mono, WALL0 + 600);
	free(render(f, 200, 50));
	assert_int_equal(f->sel, 0);
	assert_int_equal(f->runs[0].m->sel, 1);
	assert_true(model_armed(f->runs[0].m, 1));
	return f;
}

/* A quiet moment and a frame: `a`, A and W count only after one. */
static void
settle(struct fleet *f, int64_t *mono)
{
	*mono += 600;
	fleet_set_now(f, *mono, WALL0 + 600 + (*mono - MONO0));
	free(render(f, 200, 50));
}

/* No request of any run was answered or asked about. */
static void
assert_untouched(const struct fleet *f)
{
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct model *m = f->runs[i].m;

		for (size_t k = 0; k < m->n_pending; k++)
			assert_int_equal(m->pending[k]->sent, VERDICT_NONE);
		if (i != f->sel)
			assert_false(model_prompt_open(m));
	}
	assert_false(f->quit);
}

/* Every key the queue, the runs and the answers have. */
static const int other_keys[] = {
	'j', 'k', 'g', 'G', '1', '2', '3', '[', ']', 'q', 'X', 'd', 'a',
	'A', 'D', 'W', 'K', 'r', 's', 'n', '\t', '?', KEYS_DOWN, KEYS_UP,
};

/* Opens the prompt on web's #1 (the selected request): open is a key
 * sequence; W's needs the console's plan. */
static void
open_prompt(struct fleet *f, int64_t *mono, const char *open)
{
	struct model_effect eff;
	size_t run;

	settle(f, mono);
	for (const char *k = open; *k != '\0'; k++) {
		press(f, *k, &eff, &run);
		assert_int_equal(run, 0);
		if (*k == 'W') {
			assert_int_equal(eff.kind, EFFECT_ALWAYS_PLAN);
			model_always_plan(f->runs[0].m, eff.request, 12,
			    "    /srv/web/index.html ; always, from run a1b2c3d4",
			    NULL);
		} else {
			assert_int_equal(eff.kind, EFFECT_NONE);
		}
	}
	assert_int_equal(f->sel, 0);
	if (!model_prompt_open(f->runs[0].m))
		fail_msg("prompt %s not open: %s", open,
		    f->runs[0].m->message ? f->runs[0].m->message : "-");
}

/*
 * A y/n prompt (A, D, W, X, K, the leave question): every other key
 * (Enter too: y is the answer) cancels it and does nothing else; no
 * selection moves, no run is answered. Then y sends to the selected
 * run only.
 */
static void
yes_no_prompt(const char *open, enum model_prompt want)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;
	int keys[ARRAY_SIZE(other_keys) + 2];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(other_keys); i++)
		keys[n++] = other_keys[i];
	keys[n++] = '\r';
	keys[n++] = KEYS_ESC;
	for (size_t i = 0; i < n; i++) {
		open_prompt(f, &mono, open);
		assert_int_equal(model_prompt(f->runs[0].m), want);
		press(f, keys[i], &eff, &run);
		if (eff.kind != EFFECT_NONE || run != 0 || f->sel != 0 ||
		    f->runs[0].m->sel != 1 || fleet_queue_sel(f) != 0)
			fail_msg("prompt %s: key %d acted (effect %d, run %zu, "
			    "sel %zu)", open, keys[i], eff.kind, run, f->sel);
		assert_false(model_prompt_open(f->runs[0].m));
		assert_untouched(f);
	}
	open_prompt(f, &mono, open);
	press(f, 'y', &eff, &run);
	/* An allow (A's or W's y) waits for the trailing silence. */
	if (strcmp(open, "A") == 0 || strcmp(open, "W") == 0) {
		assert_int_equal(eff.kind, EFFECT_NONE);
		silence(f, &eff, &run);
	}
	assert_int_equal(run, 0);
	assert_int_equal(f->sel, 0);
	assert_false(model_prompt_open(f->runs[0].m));
	if (want == PROMPT_KILL) {
		assert_int_equal(eff.kind, EFFECT_KILL);
	} else if (want == PROMPT_QUIT) {
		assert_true(f->quit);
	} else if (strcmp(open, "X") == 0) {
		assert_int_equal(eff.kind, EFFECT_DECIDE_MANY);
		assert_int_equal(eff.n_requests, 2);	/* web's two only */
		assert_int_equal(eff.requests[0], 1);
		assert_int_equal(eff.requests[1], 2);
		assert_int_equal(eff.verdict, VERDICT_DENY);
	} else {
		assert_int_equal(eff.kind, strcmp(open, "W") == 0 ?
		    EFFECT_ALWAYS : EFFECT_DECIDE);
		assert_int_equal(eff.request, 1);
		assert_int_equal(eff.scope, SCOPE_RUN);
		assert_string_equal(eff.rule, "/srv/web/index.html");
		assert_int_equal(eff.verdict, strcmp(open, "D") == 0 ?
		    VERDICT_DENY : VERDICT_ALLOW);
	}
	/* The other runs heard nothing. */
	assert_int_equal(f->runs[1].m->pending[0]->sent, VERDICT_NONE);
	assert_int_equal(f->runs[2].m->pending[0]->sent, VERDICT_NONE);
	fleet_free(f);
}

static void
test_prompt_allow_run(void **state)
{
	(void)state;
	yes_no_prompt("A", PROMPT_ANSWER);
}

static void
test_prompt_deny_run(void **state)
{
	(void)state;
	yes_no_prompt("D", PROMPT_ANSWER);
}

static void
test_prompt_always(void **state)
{
	(void)state;
	yes_no_prompt("W", PROMPT_ANSWER);
}

static void
test_prompt_deny_all(void **state)
{
	(void)state;
	yes_no_prompt("X", PROMPT_ANSWER);
}

static void
test_prompt_kill(void **state)
{
	(void)state;
	yes_no_prompt("K", PROMPT_KILL);
}

static void
test_prompt_quit(void **state)
{
	(void)state;
	yes_no_prompt("q", PROMPT_QUIT);
}

/* Types s into the fleet, a key a character. */
static void
type(struct fleet *f, const char *s, struct model_effect *eff, size_t *run)
{
	for (; *s != '\0'; s++) {
		press(f, (unsigned char)*s, eff, run);
		assert_int_equal(eff->kind, EFFECT_NONE);
		assert_int_equal(*run, 0);
	}
}

/*
 * r: the leak of issue 31 replayed. Every key is the reason's text, the
 * queue and the runs keys too; Enter sends the deny with the whole
 * reason to the selected request of the selected run, nothing else.
 */
static void
test_prompt_reason(void **state)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;

	(void)state;
	open_prompt(f, &mono, "r");
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_REASON);
	type(f, "ok deny", &eff, &run);
	assert_untouched(f);
	press(f, '\r', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(run, 0);
	assert_int_equal(eff.request, 1);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_string_equal(eff.reason, "ok deny");
	assert_int_equal(f->runs[1].m->pending[0]->sent, VERDICT_NONE);
	assert_int_equal(f->runs[2].m->pending[0]->sent, VERDICT_NONE);
	assert_int_equal(f->runs[0].m->pending[1]->sent, VERDICT_NONE);

	/* Then every other key, a pause between (the "bad k",
	 * 1 s, "and"): text all of it. */
	press(f, 'G', &eff, &run);	/* the last: web's #2 */
	settle(f, &mono);
	assert_int_equal(f->sel, 0);
	assert_int_equal(f->runs[0].m->sel, 2);
	press(f, 'r', &eff, &run);
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_REASON);
	type(f, "bad k", &eff, &run);
	settle(f, &mono);
	type(f, "and", &eff, &run);
	for (size_t i = 0; i < ARRAY_SIZE(other_keys); i++) {
		press(f, other_keys[i], &eff, &run);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_int_equal(run, 0);
		assert_int_equal(f->sel, 0);
	}
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_REASON);
	assert_int_equal(f->runs[1].m->pending[0]->sent, VERDICT_NONE);
	assert_int_equal(f->runs[2].m->pending[0]->sent, VERDICT_NONE);
	press(f, '\r', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(run, 0);
	assert_int_equal(eff.request, 2);
	/* The printable keys of the list are text; Tab and arrows not. */
	assert_string_equal(eff.reason, "bad kandjkgG123[]qXdaADWKrsn?");
	assert_int_equal(f->runs[1].m->pending[0]->sent, VERDICT_NONE);
	assert_int_equal(f->runs[2].m->pending[0]->sent, VERDICT_NONE);
	fleet_free(f);
}

/* `/`: the filter's text takes every key; Enter keeps it; the queue
 * and the runs did not move. */
static void
test_prompt_filter(void **state)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;

	(void)state;
	open_prompt(f, &mono, "/");
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_FILTER);
	for (size_t i = 0; i < ARRAY_SIZE(other_keys); i++) {
		press(f, other_keys[i], &eff, &run);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_int_equal(run, 0);
		assert_int_equal(f->sel, 0);
		assert_int_equal(fleet_queue_sel(f), 0);
	}
	assert_untouched(f);
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_FILTER);
	press(f, '\r', &eff, &run);
	assert_false(model_prompt_open(f->runs[0].m));
	assert_untouched(f);
	fleet_free(f);
}

/* A paste is text: none of it is a key, in any run. */
static void
test_prompt_paste(void **state)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;

	(void)state;
	settle(f, &mono);
	press(f, KEYS_PASTE_START, &eff, &run);
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_PASTE);
	for (size_t i = 0; i < ARRAY_SIZE(other_keys); i++) {
		press(f, other_keys[i], &eff, &run);
		press(f, 'y', &eff, &run);
		press(f, '\r', &eff, &run);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_int_equal(f->sel, 0);
		assert_int_equal(fleet_queue_sel(f), 0);
	}
	assert_untouched(f);
	press(f, KEYS_PASTE_END, &eff, &run);
	assert_false(model_prompt_open(f->runs[0].m));
	assert_untouched(f);
	fleet_free(f);
}

/* The selected request ends (answered by another console) while X asks
 * in its run: the selection stays in that run, y denies what is left of
 * it, not the request of another run that took its place. */
static void
test_prompt_keeps_run(void **state)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;

	(void)state;
	open_prompt(f, &mono, "X");
	feed_msg(f->runs[0].m, msg_resolved(1, VERDICT_ALLOW, HOW_PERSON,
	    "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->sel, 0);
	assert_true(model_prompt_open(f->runs[0].m));
	press(f, 'y', &eff, &run);
	assert_int_equal(run, 0);
	assert_int_equal(eff.kind, EFFECT_DECIDE_MANY);
	assert_int_equal(eff.n_requests, 1);
	assert_int_equal(eff.requests[0], 2);
	assert_int_equal(f->runs[1].m->pending[0]->sent, VERDICT_NONE);
	/* Closed: the queue selects again, a request still to answer. */
	fleet_refresh(f);
	assert_true(fleet_queue_sel(f) >= 0);
	assert_int_equal(f->queue[fleet_queue_sel(f)].p->sent, VERDICT_NONE);
	fleet_free(f);
}

/* r's request ends (another console answered it) while its reason is
 * typed: nothing is sent, and the rest of what is typed ("and") stays
 * the prompt's, never the queue's, until Enter or Esc closes it. Before,
 * the prompt closed and "and" allowed (a), and denied (d), what took the
 * request's place. The same when the run's supervisor goes. */
static void
test_prompt_reason_gone(void **state)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;
	cleanup_free char *text = NULL;

	(void)state;
	open_prompt(f, &mono, "r");
	type(f, "bad k", &eff, &run);
	feed_msg(f->runs[0].m, msg_resolved(1, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->sel, 0);
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_REASON);
	text = render(f, 80, 24);
	assert_non_null(strstr(text, "run web: #1 ended before the reason was "
	    "sent: nothing sent"));
	settle(f, &mono);		/* everything armed */
	type(f, "and", &eff, &run);
	for (size_t i = 0; i < ARRAY_SIZE(other_keys); i++) {
		press(f, other_keys[i], &eff, &run);
		press(f, 'y', &eff, &run);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_int_equal(f->sel, 0);
	}
	assert_untouched(f);
	press(f, '\r', &eff, &run);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(model_prompt_open(f->runs[0].m));
	assert_untouched(f);

	/* The supervisor goes while a reason is typed: the same. */
	settle(f, &mono);
	press(f, 'G', &eff, &run);		/* web's #2 */
	settle(f, &mono);
	press(f, 'r', &eff, &run);
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_REASON);
	model_set_disconnected(f->runs[0].m, "connection reset");
	fleet_refresh(f);
	assert_int_equal(model_prompt(f->runs[0].m), PROMPT_REASON);
	type(f, "kd", &eff, &run);
	assert_int_equal(f->sel, 0);
	press(f, KEYS_ESC, &eff, &run);
	assert_false(model_prompt_open(f->runs[0].m));
	assert_int_equal(f->runs[1].m->pending[0]->sent, VERDICT_NONE);
	assert_int_equal(f->runs[2].m->pending[0]->sent, VERDICT_NONE);
	fleet_free(f);
}

/* Each prompt drawn in the every-run console, at 200x50, 80x24 and
 * 60x20 (the compact layout), one golden file a prompt. */
static void
golden_prompt(const char *name, const char *open, const char *typed)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	struct model_effect eff;
	size_t run;
	static const int sizes[][2] = { { 200, 50 }, { 80, 24 }, { 60, 20 } };
	char *all = xstrdup("");

	open_prompt(f, &mono, open);
	if (typed != NULL)
		type(f, typed, &eff, &run);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		cleanup_free char *text = view_fleet_render_text(f,
		    sizes[i][0], sizes[i][1], f->reps);
		char *next = xasprintf("%s---- %dx%d ----\n%s", all,
		    sizes[i][0], sizes[i][1], text);

		free(all);
		all = next;
	}
	golden(name, all);
	free(all);
	fleet_free(f);
}

static void
test_prompt_goldens(void **state)
{
	(void)state;
	golden_prompt("runs-prompt-reason", "r", "ok deny");
	golden_prompt("runs-prompt-allow-run", "A", NULL);
	golden_prompt("runs-prompt-deny-run", "D", NULL);
	golden_prompt("runs-prompt-always", "W", NULL);
	golden_prompt("runs-prompt-deny-all", "X", NULL);
	golden_prompt("runs-prompt-kill", "K", NULL);
	golden_prompt("runs-prompt-quit", "q", NULL);
	golden_prompt("runs-prompt-filter", "/", "srv");
}

/* Below 80x24 the every-run console is compact, not "too small"; below
 * 40x10 the notice says the size and the real minimum. */
static void
test_compact(void **state)
{
	int64_t mono;
	struct fleet *f = trio(&mono);
	cleanup_free char *a = NULL, *b = NULL;

	(void)state;
	a = render(f, 60, 20);
	assert_null(strstr(a, "too small"));
	assert_non_null(strstr(a, "pending: 4 in all, line 1 of 4: [web] #1"));
	assert_non_null(strstr(a, "/srv/web/index.html"));
	assert_non_null(strstr(a, "denied in"));
	golden("runs-compact-60x20", a);
	/* The console of one run, compact too: the prompt is drawn there
	 * as well (it was not: r typed blind below 80x24). */
	{
		struct model *m = f->runs[0].m;
		struct model_effect eff;
		bool moved;
		cleanup_free char *one = NULL;

		m->many_runs = false;
		settle(f, &mono);
		model_apply_key(m, 'r', &eff, &moved);
		model_apply_key(m, 'o', &eff, &moved);
		model_apply_key(m, 'k', &eff, &moved);
		one = view_render_text(m, 60, 20, NULL);
		assert_non_null(strstr(one, "deny #1, reason: ok_"));
		model_apply_key(m, KEYS_ESC, &eff, &moved);
		m->many_runs = true;
	}
	b = render(f, 39, 12);
	assert_non_null(strstr(b, "terminal 39x12 is too small"));
	assert_non_null(strstr(b, "at least 40x10"));
	fleet_free(f);
}

/* The scenario's 1561 requests are 5 lines: the authorized_keys write
 * first and alone, with its risk; the same install in 20 runs, the same
 * name in 20 runs (one line each), then oldest first the 20 runs' writes
 * into one folder and the flood. The console opens on the first. */
static void
test_cross_run_lines(void **state)
{
	struct fleet *f = scenario(20);
	cleanup_free char *a = NULL, *b = NULL;
	const struct fleet_line *l = f->lines;

	(void)state;
	assert_int_equal(f->n_queue, 20 * 3 + 501);
	assert_int_equal(f->n_lines, 5);
	assert_int_equal(l[0].g.n, 1);
	assert_int_equal(l[0].g.rank, GROUP_CRITICAL);
	assert_string_equal(f->queue[l[0].g.idx[0]].p->subject,
	    "/home/u/.ssh/authorized_keys");
	assert_int_equal(l[1].g.rank, GROUP_INSTALL);
	assert_int_equal(l[1].g.n, 20);
	assert_int_equal(l[1].n_runs, 20);
	assert_true(l[1].same);
	assert_string_equal(l[1].g.glob, PIP);
	assert_int_equal(l[2].g.rank, GROUP_NETWORK);
	assert_int_equal(l[2].n_runs, 20);
	assert_string_equal(l[2].g.glob, "names.test");
	/* bulk: the 20 runs' writes are older than the flood */
	assert_int_equal(l[3].g.n, 20);
	assert_int_equal(l[3].n_runs, 20);
	assert_false(l[3].same);
	assert_string_equal(l[3].g.glob, "/srv/out/*");
	assert_int_equal(l[4].g.n, 500);
	assert_int_equal(l[4].n_runs, 1);
	assert_string_equal(l[4].g.glob, "/srv/flood/*");
	/* each line's requests oldest first */
	assert_string_equal(f->queue[l[3].g.idx[0]].p->subject,
	    "/srv/out/job01.txt");
	assert_string_equal(f->queue[l[4].g.idx[0]].p->subject,
	    "/srv/flood/f001");
	/* opens on the sensitive one */
	assert_int_equal(fleet_line_sel(f), 0);
	assert_int_equal(f->sel, 20);
	assert_int_equal(f->runs[20].m->sel, 501);

	a = view_fleet_render_text(f, 200, 50, f->reps);
	golden("runs-flood-200x50", a);
	assert_non_null(strstr(a, "risk     ssh authorized_keys"));
	assert_non_null(strstr(a, "[job01 +19 runs] #3 +19  wants to install "
	    "wardtiny with pip, from pypi.org  (20 alike)"));
	assert_non_null(strstr(a, "job01, job02, job03, job04, job05, job06 "
	    "and 14 more (20 runs)"));
	b = view_fleet_render_text(f, 80, 24, f->reps);
	golden("runs-flood-80x24", b);
	assert_non_null(strstr(b, "authorized_keys"));
	{
		/* compact: the selected line alone, the sensitive one */
		cleanup_free char *c = view_fleet_render_text(f, 60, 20,
		    f->reps);

		golden("runs-flood-60x20", c);
		assert_non_null(strstr(c, "authorized_keys"));
		assert_null(strstr(c, "too small"));
	}
	fleet_free(f);
}

/* Alike across runs is kind + subject + the process's command line:
 * never the pid or the run; a critical request is never grouped, and
 * the same install by another command line is a line of its own. */
static void
test_cross_run_alike(void **state)
{
	struct fleet *f = fleet_new();
	size_t i;

	(void)state;
	for (int r = 0; r < 3; r++) {
		char key[16];

		snprintf(key, sizeof key, "%08x", 0xb0000000 + r);
		i = fleet_add(f, key);
		welcome(f->runs[i].m, key, NULL, false);
		ask(f->runs[i].m, key, 7, "package", "execve", PIP,
		    r < 2 ? "pip install wardtiny" : "pip3 install wardtiny",
		    5000 - r);
		ask(f->runs[i].m, key, 8, "write", "openat",
		    "/home/u/.bashrc", "sh -c x", 4000 - r);
		ask(f->runs[i].m, key, 9, "dns", "sendto", r == 0 ?
		    "a.test" : "b.test", "sh -c x", 3000 - r);
	}
	fleet_set_now(f, MONO0, WALL0);
	fleet_refresh(f);
	/* 3 .bashrc alone, the install of two runs, the other's, a.test,
	 * b.test of two runs */
	assert_int_equal(f->n_lines, 7);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(f->lines[k].g.rank, GROUP_CRITICAL);
		assert_int_equal(f->lines[k].g.n, 1);
	}
	assert_int_equal(f->lines[3].g.n, 2);
	assert_int_equal(f->lines[3].n_runs, 2);
	assert_int_equal(f->lines[4].g.n, 1);
	assert_int_equal(f->lines[5].g.n, 1);
	assert_string_equal(f->queue[f->lines[5].g.idx[0]].p->subject,
	    "a.test");
	assert_int_equal(f->lines[6].g.n, 2);
	fleet_free(f);
}

/* a on a line of many runs asks first, naming how many requests in how
 * many runs and what; y answers every one in its own run; any other key
 * sends nothing. Allowing needs the line armed; denying does not. */
static void
test_group_answer_every_run(void **state)
{
	struct fleet *f = scenario(20);
	struct model_effect eff;
	size_t run;
	int64_t t = 0;
	cleanup_free char *q = NULL, *shot = NULL;

	(void)state;
	press(f, 'j', &eff, &run);		/* the install line */
	assert_int_equal(fleet_line_sel(f), 1);
	press(f, 'a', &eff, &run);		/* not armed: nothing asked */
	assert_false(f->ask.open);
	assert_null(fleet_ask_text(f));
	arm(f, &t);
	press(f, 'a', &eff, &run);
	assert_true(f->ask.open);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->n_sends, 0);
	q = fleet_ask_text(f);
	assert_string_equal(q, "allow 20 requests in 20 runs, once each (no "
	    "rule stored): wants to install wardtiny with pip, from pypi.org "
	    "- y sends, any other key cancels");
	shot = view_fleet_render_text(f, 80, 24, f->reps);
	golden("runs-flood-ask-80x24", shot);
	/* nothing answered yet */
	for (size_t r = 0; r < 20; r++)
		assert_int_equal(f->runs[r].m->pending[2]->sent, VERDICT_NONE);
	press(f, 'y', &eff, &run);
	assert_false(f->ask.open);
	/* held for the trailing silence (tui/model.h: arming): nothing
	 * sent, nothing marked, until no key came for MODEL_TRAIL_MS */
	assert_int_equal(f->n_sends, 0);
	assert_int_equal(f->n_held, 20);
	assert_int_equal(f->runs[0].m->pending[2]->sent, VERDICT_NONE);
	t += MODEL_TRAIL_MS - 1;
	fleet_set_now(f, MONO0 + t, WALL0 + t);
	assert_false(fleet_tick(f, &eff, &run));
	assert_int_equal(f->n_sends, 0);
	t += 1;
	fleet_set_now(f, MONO0 + t, WALL0 + t);
	(void)fleet_tick(f, &eff, &run);
	assert_int_equal(f->n_held, 0);
	assert_int_equal(f->n_sends, 20);
	for (size_t k = 0; k < f->n_sends; k++) {
		assert_int_equal(f->sends[k].run, k);
		assert_int_equal(f->sends[k].n, 1);
		assert_int_equal(f->sends[k].ids[0], 3);
		assert_int_equal(f->sends[k].verdict, VERDICT_ALLOW);
		assert_int_equal(f->runs[k].m->pending[2]->sent,
		    VERDICT_ALLOW);
		/* the others of that run untouched */
		assert_int_equal(f->runs[k].m->pending[1]->sent,
		    VERDICT_NONE);
	}
	assert_int_equal(f->runs[20].m->pending[0]->sent, VERDICT_NONE);
	fleet_sends_done(f);
	{
		/* the line says so until the runs resolve them */
		cleanup_free char *sent = view_fleet_render_text(f, 200, 50,
		    f->reps);
		const char *h = strstr(sent, "> [job01 +19 runs] #3 +19");

		assert_non_null(h);
		assert_true(strstr(h, "allow sent") != NULL &&
		    strstr(h, "allow sent") < strchr(h, '\n'));
	}
	/* Each run resolves it: the line goes; the next takes its place,
	 * armed afresh. */
	for (size_t r = 0; r < 20; r++)
		feed_msg(f->runs[r].m, msg_resolved(3, VERDICT_ALLOW,
		    HOW_PERSON, "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->n_lines, 4);
	assert_int_equal(fleet_line_sel(f), 1);
	assert_int_equal(f->lines[1].g.rank, GROUP_NETWORK);
	assert_false(model_armed(fleet_model(f), fleet_model(f)->sel));

	/* d asks too (no arming needed); n sends nothing */
	press(f, 'd', &eff, &run);
	assert_true(f->ask.open);
	press(f, 'n', &eff, &run);
	assert_false(f->ask.open);
	assert_int_equal(f->n_sends, 0);
	for (size_t r = 0; r < 20; r++)
		assert_int_equal(f->runs[r].m->pending[1]->sent, VERDICT_NONE);
	/* d y: denied in every run still there (job20's supervisor went
	 * away, its requests still listed: neither counted nor sent to) */
	f->runs[19].gone = true;
	fleet_refresh(f);
	assert_int_equal(f->lines[fleet_line_sel(f)].g.n, 20);
	press(f, 'd', &eff, &run);
	free(q);
	q = fleet_ask_text(f);
	assert_non_null(strstr(q, "deny 19 requests in 19 runs"));
	press(f, 'y', &eff, &run);
	assert_int_equal(f->n_sends, 19);
	for (size_t k = 0; k < f->n_sends; k++)
		assert_true(f->sends[k].run != 19);
	assert_int_equal(f->runs[19].m->pending[1]->sent, VERDICT_NONE);
	fleet_sends_done(f);
	/* A, D, r, W, s on a line of many: one request's answers, not
	 * offered here; nothing asked, nothing sent */
	press(f, 'j', &eff, &run);
	press(f, 'A', &eff, &run);
	assert_false(f->ask.open);
	assert_int_equal(fleet_model(f)->answer.ask, ASK_NONE);
	assert_int_equal(eff.kind, EFFECT_NONE);
	fleet_free(f);
}

/* The selection never moves by itself: a new sensitive request lands on
 * top, the selection stays on the flood line and d asks about the flood;
 * a request that joins a group the person looks at is counted in. */
static void
test_selection_stays(void **state)
{
	struct fleet *f = scenario(3);
	struct model_effect eff;
	size_t run;
	ssize_t flood;
	cleanup_free char *q = NULL;

	(void)state;
	press(f, 'G', &eff, &run);
	flood = fleet_line_sel(f);
	assert_int_equal(flood, (ssize_t)f->n_lines - 1);
	assert_int_equal(f->lines[flood].g.n, 500);
	assert_int_equal(f->sel, 3);
	assert_int_equal(f->runs[3].m->sel, 1);
	/* job02 asks for its .bashrc: on top, after the older critical */
	ask(f->runs[1].m, "a0000001", 4, "write", "openat",
	    "/home/u/.bashrc", "python3 /work/job.py", 0);
	fleet_refresh(f);
	assert_string_equal(f->queue[f->lines[1].g.idx[0]].p->subject,
	    "/home/u/.bashrc");
	assert_int_equal(fleet_line_sel(f), flood + 1);
	assert_int_equal(f->sel, 3);
	assert_int_equal(f->runs[3].m->sel, 1);
	press(f, 'd', &eff, &run);
	q = fleet_ask_text(f);
	assert_non_null(strstr(q, "deny 500 requests in 1 run"));
	assert_non_null(strstr(q, "/srv/flood/*"));
	press(f, KEYS_ESC, &eff, &run);
	assert_false(f->ask.open);

	/* The selected request goes, the rest of its line stays: the
	 * selection stays on the line (its next oldest). */
	feed_msg(f->runs[3].m, msg_resolved(1, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 via console"));
	fleet_refresh(f);
	assert_int_equal(f->sel, 3);
	assert_int_equal(f->runs[3].m->sel, 2);
	assert_int_equal(f->lines[fleet_line_sel(f)].g.n, 499);
	fleet_free(f);
}

/* While the console opens, runs welcome one after another: until every
 * run has, and before any key, the first line is selected; after, a new
 * line on top moves nothing. */
static void
test_opening(void **state)
{
	struct fleet *f = fleet_new();
	struct model_effect eff;
	size_t run, a, b;

	(void)state;
	a = fleet_add(f, "a1a1a1a1");
	b = fleet_add(f, "b2b2b2b2");
	fleet_set_now(f, MONO0, WALL0);
	welcome(f->runs[a].m, "a1a1a1a1", "web", false);
	request(f->runs[a].m, "a1a1a1a1", 1, "/srv/web/a.html", 9000);
	fleet_refresh(f);
	assert_int_equal(f->sel, a);
	assert_true(f->opening);
	welcome(f->runs[b].m, "b2b2b2b2", "db", false);
	ask(f->runs[b].m, "b2b2b2b2", 4, "write", "openat",
	    "/home/u/.ssh/authorized_keys", "sh", 1000);
	fleet_refresh(f);
	assert_true(f->opening);	/* the queue just changed */
	assert_int_equal(f->sel, b);
	assert_int_equal(f->runs[b].m->sel, 4);
	assert_int_equal(fleet_line_sel(f), 0);
	/* the rest of a flood after the welcome, as requests: still
	 * opening, the newest critical on top selected */
	fleet_set_now(f, MONO0 + 200, WALL0 + 200);
	ask(f->runs[a].m, "a1a1a1a1", 2, "write", "openat",
	    "/home/u/.bashrc", "sh", 500);
	fleet_refresh(f);
	assert_int_equal(f->sel, b);		/* the older critical first */
	fleet_set_now(f, MONO0 + 700, WALL0 + 700);
	fleet_refresh(f);
	assert_false(f->opening);
	/* a key; then a new critical request on top moves nothing */
	press(f, 'j', &eff, &run);
	assert_int_equal(f->sel, a);
	ask(f->runs[b].m, "b2b2b2b2", 5, "write", "openat", "/etc/passwd",
	    "sh", 5000);
	fleet_refresh(f);
	assert_int_equal(f->sel, a);
	assert_int_equal(f->runs[a].m->sel, 2);	/* .bashrc, still */
	assert_int_equal(fleet_line_sel(f), 2);
	fleet_free(f);

	/* A run never reached ends the opening after 5 s all the same. */
	f = fleet_new();
	a = fleet_add(f, "a1a1a1a1");
	(void)fleet_add(f, "c3c3c3c3");
	fleet_set_now(f, MONO0, WALL0);
	welcome(f->runs[a].m, "a1a1a1a1", "web", false);
	request(f->runs[a].m, "a1a1a1a1", 1, "/srv/web/a.html", 9000);
	fleet_refresh(f);
	assert_true(f->opening);
	fleet_set_now(f, MONO0 + 5000, WALL0 + 5000);
	fleet_refresh(f);
	assert_false(f->opening);
	fleet_free(f);
}

/* A group's allow waits out the trailing silence like a run's own:
 * any key before it drops the whole answer, and a y that came in a
 * burst (keys that arrived together) allows nothing (issue 31). */
static void
test_group_allow_held(void **state)
{
	struct fleet *f = scenario(20);
	struct model_effect eff;
	size_t run;
	bool moved;
	int64_t t = 0;

	(void)state;
	press(f, 'j', &eff, &run);		/* the install line */
	arm(f, &t);
	press(f, 'a', &eff, &run);
	assert_true(f->ask.open);
	press(f, 'y', &eff, &run);
	assert_int_equal(f->n_held, 20);
	t += MODEL_TRAIL_MS / 2;
	fleet_set_now(f, MONO0 + t, WALL0 + t);
	press(f, 'j', &eff, &run);		/* a key: nothing allowed */
	assert_int_equal(f->n_held, 0);
	assert_int_equal(f->held_due, 0);
	t += MODEL_TRAIL_MS * 2;
	fleet_set_now(f, MONO0 + t, WALL0 + t);
	(void)fleet_tick(f, &eff, &run);
	assert_int_equal(f->n_sends, 0);
	for (size_t r = 0; r < 20; r++)
		assert_int_equal(f->runs[r].m->pending[2]->sent, VERDICT_NONE);
	assert_non_null(strstr(fleet_model(f)->message, "nothing allowed"));

	/* back on the line, armed again: a y in a burst is dropped */
	press(f, 'k', &eff, &run);
	arm(f, &t);
	press(f, 'a', &eff, &run);
	assert_true(f->ask.open);
	fleet_apply_key(f, 'y', f->runs[0].m->now_mono, true, &eff, &run,
	    &moved);
	fleet_refresh(f);
	assert_false(f->ask.open);
	assert_int_equal(f->n_held, 0);
	assert_int_equal(f->n_sends, 0);
	fleet_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_order),
		cmocka_unit_test(test_answer_goes_to_its_run),
		cmocka_unit_test(test_run_key_drops_held_allow),
		cmocka_unit_test(test_selection_follows_queue),
		cmocka_unit_test(test_switch_runs),
		cmocka_unit_test(test_dismiss),
		cmocka_unit_test(test_overlay),
		cmocka_unit_test(test_agent_strip),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_goldens),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_confirmed_row),
		cmocka_unit_test(test_reports_per_run),
		cmocka_unit_test(test_prompt_allow_run),
		cmocka_unit_test(test_prompt_deny_run),
		cmocka_unit_test(test_prompt_always),
		cmocka_unit_test(test_prompt_deny_all),
		cmocka_unit_test(test_prompt_kill),
		cmocka_unit_test(test_prompt_quit),
		cmocka_unit_test(test_prompt_reason),
		cmocka_unit_test(test_prompt_filter),
		cmocka_unit_test(test_prompt_paste),
		cmocka_unit_test(test_prompt_keeps_run),
		cmocka_unit_test(test_prompt_reason_gone),
		cmocka_unit_test(test_prompt_goldens),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_run_order),
		cmocka_unit_test(test_clear_ended),
		cmocka_unit_test(test_names_in_messages),
		cmocka_unit_test(test_events_pane),
		cmocka_unit_test(test_cross_run_lines),
		cmocka_unit_test(test_cross_run_alike),
		cmocka_unit_test(test_group_answer_every_run),
		cmocka_unit_test(test_selection_stays),
		cmocka_unit_test(test_opening),
		cmocka_unit_test(test_group_allow_held),
	};

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
