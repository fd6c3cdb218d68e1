/* SPDX-License-Identifier: MIT */
/* tui/view*.c and tui/grid.c: screens rendered to text and compared with
 * tests/golden/NAME.txt (UPDATE_GOLDEN=1 rewrites them). Run from the
 * repository root. The clock is fake, so countdowns are fixed. */
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/proto.h"
#include "config/util.h"
#include "tests/golden.h"
#include "tui/grid.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/view.h"
#include "tui/view-agent.h"
#include "tui/vt.h"

#define WALL0	1700000000000LL
#define MONO0	5000LL

static void
feed(struct model *m, const char *json)
{
	json_error_t err;
	json_t *msg = json_loads(json, 0, &err);

	if (msg == NULL)
		fail_msg("bad test JSON: %s: %s", err.text, json);
	assert_int_equal(model_apply_message(m, msg), 0);
	json_decref(msg);
}

static void
out(struct model *m, const char *s)
{
	output_feed(&m->out, STREAM_PTY, s, strlen(s));
}

static void
request(struct model *m, uint64_t id, const char *kind, const char *syscall,
    const char *subject, const char *subject2, const char *detail,
    const char *cmdline, const char *why, int64_t left_ms)
{
	json_t *msg = json_pack("{s:s,s:{s:I,s:s,s:i,s:s,s:s,s:s,s:s?,s:s,"
	    "s:s,s:s,s:s,s:I,s:I}}", "type", "request", "request",
	    "id", (json_int_t)id, "run", "r-7f3a", "pid", 4242 + (int)id,
	    "kind", kind, "syscall", syscall, "subject", subject,
	    "subject2", subject2, "detail", detail, "cmdline", cmdline,
	    "cwd", "/work", "why", why, "created_ms", (json_int_t)WALL0,
	    "deadline_ms", (json_int_t)(WALL0 + left_ms));

	assert_non_null(msg);
	assert_int_equal(model_apply_message(m, msg), 0);
	json_decref(msg);
}

static struct model *
base(void)
{
	struct model *m = model_new();

	model_set_now(m, MONO0, WALL0);
	feed(m, "{\"type\":\"welcome\",\"version\":1,\"run\":{\"id\":\"r-7f3a\","
	    "\"name\":\"build\",\"command\":\"python3 build.py\","
	    "\"state\":\"running\",\"pid\":4242,\"started_ms\":1,"
	    "\"ended_ms\":null,\"exit_code\":null,\"exit_signal\":null,"
	    "\"end_reason\":null,\"limits\":\"timeout=600s memory=2G pids=512\","
	    "\"policy\":\"share/ward.ini\",\"headless\":false,"
	    "\"ask_timeout\":120},\"pending\":[]}");
	out(m, "$ python3 build.py\n");
	out(m, "collecting sources ...\n");
	out(m, "compiling 12 files\n");
	out(m, "\x1b[32mok\x1b[0m  build/lib.so\n");
	out(m, "writing report");
	return m;
}

/* Draws like the console does (so arming state is real), then renders. */
static char *
render(struct model *m, int w, int h)
{
	struct view_report rep;
	char *text;

	view_report_init(&rep);
	text = view_render_text(m, w, h, &rep);
	model_note_view(m, &rep);
	view_report_done(&rep);
	return text;
}

static void
check(struct model *m, const char *name, int w, int h)
{
	cleanup_free char *text = render(m, w, h);

	golden(name, text);
	/* Nothing the program sent reaches the screen raw. */
	for (const char *p = text; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\n')
			fail_msg("%s: control character 0x%02x on screen", name,
			    (unsigned char)*p);
	}
	assert_null(strstr(text, "\xe2\x80\xae"));
}

static void
pending_write(struct model *m)
{
	request(m, 1, "write", "openat",
	    "/home/alice/.config/autostart/\x1b[8mhidden\x1b[0m/"
	    "a-very-long-directory-name-that-keeps-going-and-going/"
	    "update\xe2\x80\xae" "exe.sh\nrm -rf ~",
	    NULL, "flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644",
	    "python3 -c import os; open(os.path.expanduser('~/.config/"
	    "autostart/x'), 'w')", "no rule", 114000);
}

/* The program's terminal output, as the supervisor sends it. */
static void
pty(struct model *m, const char *s)
{
	json_t *msg = msg_output(AUDIT_PTY, s, strlen(s));

	assert_int_equal(model_apply_message(m, msg), 0);
	json_decref(msg);
}

/* A full-screen program that tries to look like ward, in the pane the
 * person asked for (--agent): the keys start with it. */
static struct model *
agent_base(void)
{
	struct model *m = base();

	model_set_agent(m, AGENT_ON, 0);
	pty(m, "\x1b[?1049h\x1b[2J\x1b[H\x1b]0;ward: #9 allowed\x07\x1b]4;1;rgb:00/00/00\x07"
	    "\x1b[1mmy-agent\x1b[0m v1.0  (ctrl-c to quit)\r\n\r\n"
	    "> refactor the parser\r\n"
	    "\x1b[32m- reading src/parse.c\x1b[0m\r\n"
	    "\x1b[8;1H== pending: 1, oldest first =====\r\n"
	    "> #9  write  openat  /etc/FAKE  denied in 1:59\r\n"
	    " a allow once  d deny\x1b[300;300HX\x07");
	return m;
}

static void
key(struct model *m, int k, struct model_effect *eff, bool *moved)
{
	model_apply_key(m, k, eff, moved);
}

/* The trailing silence after an approve: no key for MODEL_TRAIL_MS,
 * then the console's tick sends it (tui/model.h). */
static void
silence(struct model *m, struct model_effect *eff)
{
	model_set_now(m, m->now_mono + MODEL_TRAIL_MS,
	    m->now_wall + MODEL_TRAIL_MS);
	assert_true(model_tick(m, eff));
}

static void
test_agent_pane(void **state)
{
	struct model *m = agent_base();
	struct model_effect eff;
	bool moved;

	(void)state;
	assert_true(m->agent);
	assert_int_equal(m->focus, PANE_AGENT);
	check(m, "agent-idle-80x24", 80, 24);
	pending_write(m);
	check(m, "agent-pending-80x24", 80, 24);
	key(m, MODEL_PREFIX, &eff, &moved);
	assert_true(moved);
	check(m, "agent-requests-80x24", 80, 24);
	check(m, "agent-pending-200x50", 200, 50);
	model_free(m);
}

/* The terminal's cursor stands where the program's is, only while the
 * pane has the keys, the program shows it and it is inside the pane. */
static void
test_agent_cursor(void **state)
{
	struct model *m = base();
	struct model_effect eff;
	struct view_agent_layout l;
	struct view_report rep;
	bool moved;

	(void)state;
	model_set_agent(m, AGENT_ON, 0);
	pty(m, "\x1b[?1049h\x1b[2J\x1b[3;5Habc");
	view_report_init(&rep);
	free(view_render_text(m, 80, 24, &rep));
	view_agent_layout(m, 80, 24, &l);
	assert_true(rep.cursor);
	assert_int_equal(rep.cursor_y, l.pane_y + 2);
	assert_int_equal(rep.cursor_x, l.pane_x + 7);
	/* Moved by the program: the cursor follows. */
	pty(m, "\x1b[1;1H");
	free(view_render_text(m, 80, 24, &rep));
	assert_true(rep.cursor);
	assert_int_equal(rep.cursor_y, l.pane_y);
	assert_int_equal(rep.cursor_x, l.pane_x);
	/* Hidden by the program (DECTCEM): none. */
	pty(m, "\x1b[?25l");
	free(view_render_text(m, 80, 24, &rep));
	assert_false(rep.cursor);
	pty(m, "\x1b[?25h");
	free(view_render_text(m, 80, 24, &rep));
	assert_true(rep.cursor);
	/* The focus on the requests: none, the keys are not the program's. */
	key(m, MODEL_PREFIX, &eff, &moved);
	assert_int_equal(m->focus, PANE_PENDING);
	free(view_render_text(m, 80, 24, &rep));
	assert_false(rep.cursor);
	/* Help over the pane: none. */
	key(m, 27, &eff, &moved);
	assert_int_equal(m->focus, PANE_AGENT);
	free(view_render_text(m, 80, 24, &rep));
	assert_true(rep.cursor);
	m->help = true;
	free(view_render_text(m, 80, 24, &rep));
	assert_false(rep.cursor);
	view_report_done(&rep);
	model_free(m);
}

/*
 * Keys while the agent pane is shown: typing into the program never
 * answers; the prefix moves the focus and arming starts only then; Esc
 * and the prefix go back; the prefix twice reaches the program; a paste
 * is never console keys.
 */
static void
test_agent_keys(void **state)
{
	struct model *m = agent_base();
	struct model_effect eff;
	struct view_report rep;
	const char *o;
	size_t n;
	bool moved;

	(void)state;
	{
		struct model_alerts al;

		model_take_alerts(m, &al);
		pending_write(m);
		model_take_alerts(m, &al);
		/* The bell rings; the keys typed into the program stay its. */
		assert_true(al.bell);
		assert_false(al.flush);
	}
	vt_output_clear(m->vt);
	free(render(m, 80, 24));
	model_set_now(m, MONO0 + 2000, WALL0 + 2000);
	free(render(m, 80, 24));
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(moved);
	key(m, 'd', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	key(m, '\r', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	o = vt_output(m->vt, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(o, "ad\r", 3);
	vt_output_clear(m->vt);
	/* The pane's size came back with the frame. */
	view_report_init(&rep);
	free(view_render_text(m, 80, 24, &rep));
	assert_int_equal(rep.agent_cols, 79);
	assert_true(rep.agent_rows >= 3);
	view_report_done(&rep);

	/* Requests behind the agent's focus were never armed. */
	key(m, MODEL_PREFIX, &eff, &moved);
	assert_true(moved);
	assert_int_equal(m->focus, PANE_PENDING);
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	/* 40 rows: the request whole (at 24 it is brief, its long path
	 * shortened, and only Enter arms it: test_agent_brief). */
	free(render(m, 80, 40));
	model_set_now(m, MONO0 + 2100, WALL0 + 2100);
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	/* A paste, even with the focus on the requests, is no keys. */
	key(m, KEYS_PASTE_START, &eff, &moved);
	model_set_now(m, MONO0 + 3000, WALL0 + 3000);
	free(render(m, 80, 40));
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	key(m, KEYS_PASTE_END, &eff, &moved);
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(m, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_int_equal(eff.request, 1);
	assert_int_equal(vt_output(m->vt, &n) == NULL ? 0 : n, 0);

	/* Esc back; the prefix twice sends its byte. */
	key(m, KEYS_ESC, &eff, &moved);
	assert_int_equal(m->focus, PANE_AGENT);
	key(m, MODEL_PREFIX, &eff, &moved);
	key(m, MODEL_PREFIX, &eff, &moved);
	assert_int_equal(m->focus, PANE_AGENT);
	o = vt_output(m->vt, &n);
	assert_int_equal(n, 1);
	assert_int_equal(o[0], 0x1d);
	vt_output_clear(m->vt);
	/* v: back to the lines, and the keys are the console's. */
	key(m, MODEL_PREFIX, &eff, &moved);
	key(m, 'j', &eff, &moved);
	key(m, 'v', &eff, &moved);
	assert_false(m->agent);
	key(m, 'x', &eff, &moved);
	assert_int_equal(vt_output(m->vt, &n) == NULL ? 0 : n, 0);

	/* The mouse: only when the program asked, inside its pane. */
	key(m, 'v', &eff, &moved);
	assert_true(m->agent);
	assert_int_equal(m->focus, PANE_AGENT);
	free(render(m, 80, 24));
	assert_false(model_wants_mouse(m));
	model_apply_mouse(m, 5, 5, 1, true);
	assert_int_equal(vt_output(m->vt, &n) == NULL ? 0 : n, 0);
	pty(m, "\x1b[?1000h\x1b[?1006h");
	assert_true(model_wants_mouse(m));
	model_apply_mouse(m, 0, 5, 1, true);	/* ward's title row */
	model_apply_mouse(m, 5, 0, 1, true);	/* the gutter */
	assert_int_equal(vt_output(m->vt, &n) == NULL ? 0 : n, 0);
	model_apply_mouse(m, 2, 1, 1, true);	/* the pane's first cell */
	o = vt_output(m->vt, &n);
	assert_int_equal(n, strlen("\x1b[<0;1;1M"));
	assert_memory_equal(o, "\x1b[<0;1;1M", n);
	vt_output_clear(m->vt);
	model_free(m);

	/* --lines: a full-screen program stays in the lines. */
	m = base();
	model_set_agent(m, AGENT_OFF, KEYS_CTRL('a'));
	pty(m, "\x1b[?1049h");
	assert_false(m->agent);
	assert_int_equal(m->prefix, KEYS_CTRL('a'));
	model_free(m);
}

/* Ctrl-C's "leave?" while the program has the keys: y is the console's. */
/*
 * Issue 30, point 8: at 80x24 a request under the agent pane takes at
 * most 4 rows, its title whole; one shortened is not armed from there,
 * Enter shows it whole and arms it. A short one is armed as it is.
 */
static void
test_agent_brief(void **state)
{
	struct model *m = agent_base();
	struct model_effect eff;
	bool moved;

	(void)state;
	pending_write(m);
	key(m, MODEL_PREFIX, &eff, &moved);
	check(m, "agent-brief-80x24", 80, 24);
	model_set_now(m, MONO0 + 2100, WALL0 + 2100);
	free(render(m, 80, 24));
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	key(m, '\r', &eff, &moved);
	check(m, "agent-brief-enter-80x24", 80, 24);
	model_set_now(m, MONO0 + 4200, WALL0 + 4200);
	free(render(m, 80, 24));
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(m, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
	model_free(m);

	m = agent_base();
	request(m, 2, "write", "openat", "/work/src/parse.c", NULL,
	    "flags=O_WRONLY", "/bin/bash -c source /root/.claude/shell-snapshots"
	    "/snapshot-bash-1.sh && eval 'sed -i s/a/b/ src/parse.c' < "
	    "/dev/null && pwd -P >| /tmp/claude-1-cwd", "no rule", 114000);
	request(m, 3, "connect", "connect", "registry.npmjs.org:443", NULL,
	    "", "npm install left-pad", "no rule", 118000);
	key(m, MODEL_PREFIX, &eff, &moved);
	check(m, "agent-brief-two-80x24", 80, 24);
	model_set_now(m, MONO0 + 2100, WALL0 + 2100);
	free(render(m, 80, 24));
	key(m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(m, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 2);
	model_free(m);
}

static void
test_agent_quit_question(void **state)
{
	struct model *m = agent_base();
	struct model_effect eff;
	size_t n;
	bool moved;

	(void)state;
	pending_write(m);
	vt_output_clear(m->vt);
	assert_int_equal(m->focus, PANE_AGENT);
	model_apply_action(m, ACTION_QUIT, &eff);	/* what Ctrl-C does */
	assert_true(m->confirm_quit);
	key(m, 'y', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_QUIT);
	(void)vt_output(m->vt, &n);
	assert_int_equal(n, 0);
	model_free(m);
}

/* The header line of the agent pane in a rendered screen (its row 1). */
static char *
header_line(const char *text)
{
	const char *nl = strchr(text, '\n'), *end;

	assert_non_null(nl);
	end = strchr(nl + 1, '\n');
	assert_non_null(end);
	return xstrndup(nl + 1, (size_t)(end - nl - 1));
}

/*
 * Issue 31: the frame is ward's. The title the program sets for its
 * terminal (OSC 0 and 2, with escapes, quotes, ward's own words and a
 * copy of ward's header in it) is never the pane's title: the header
 * names the run as ward knows it, and the program's title comes after,
 * in quotes, escaped, cut.
 */
static void
test_agent_title_hostile(void **state)
{
	struct model *m = base();
	cleanup_free char *text = NULL, *head = NULL;

	(void)state;
	model_set_agent(m, AGENT_ON, 0);
	pty(m, "\x1b[?1049h\x1b[2J\x1b[H\x1b]2;== agent: pwned2 ==\x07"
	    "my-agent\r\n");
	text = render(m, 80, 24);
	head = header_line(text);
	assert_string_equal(head, "== agent pane, run r-7f3a (build) = "
	    "program's title: \"== agent: pwned2 ==\" =====");
	check(m, "agent-title-80x24", 80, 24);

	/* Escapes, a quote that would close ward's, a bidi override, a
	 * tab (libvterm drops it), ward's words: all data, cut to the room
	 * left, never inside an escape (here \u{202e}). */
	pty(m, "\x1b]0;ward: approved\" == \xe2\x80\xae\tall requests "
	    "allowed by the operator, nothing pending\x1b\\");
	check(m, "agent-title-hostile-80x24", 80, 24);
	free(text);
	free(head);
	text = render(m, 80, 24);
	head = header_line(text);
	assert_string_equal(head, "== agent pane, run r-7f3a (build) = "
	    "program's title: \"ward: approved\\\" == \xe2\x80\xa6\" ===");
	assert_null(strstr(head, "\xe2\x80\xae"));
	assert_non_null(strstr(head, "\xe2\x80\xa6\" ="));
	/* The status line is ward's alone. */
	assert_null(strstr(strrchr(text, '\n') - 80, "approved"));

	/* Keys on the requests: the header says so by its rule ('-'). */
	{
		struct model_effect eff;
		bool moved;

		key(m, MODEL_PREFIX, &eff, &moved);
		free(text);
		free(head);
		text = render(m, 80, 24);
		head = header_line(text);
		assert_true(strncmp(head, "-- agent pane, run r-7f3a (build) - "
		    "program's title: \"", 54) == 0);
	}
	/* A terminal that is not UTF-8: ASCII's ellipsis and gutter. */
	model_set_ascii(m, true);
	free(text);
	free(head);
	text = render(m, 80, 24);
	head = header_line(text);
	assert_string_equal(head, "-- agent pane, run r-7f3a (build) - "
	    "program's title: \"ward: approved\\\" ==...\" --");
	assert_non_null(strstr(text, "\n|my-agent"));
	model_set_ascii(m, false);
	/* Wider: 40 columns of it. */
	free(text);
	text = render(m, 200, 50);
	assert_non_null(strstr(text, "-- agent pane, run r-7f3a (build) - "
	    "program's title: \"ward: approved\\\" == \\u{202e}all "
	    "request\xe2\x80\xa6\" ---"));
	model_free(m);

	/* No name, no title: the id alone. */
	m = model_new();
	model_set_now(m, MONO0, WALL0);
	feed(m, "{\"type\":\"welcome\",\"version\":1,\"run\":{\"id\":\"r-1\","
	    "\"state\":\"running\",\"pid\":1,\"started_ms\":1,"
	    "\"ended_ms\":null,\"exit_code\":null,\"exit_signal\":null,"
	    "\"end_reason\":null,\"headless\":false,"
	    "\"ask_timeout\":120},\"pending\":[]}");
	model_set_agent(m, AGENT_ON, 0);
	free(text);
	free(head);
	text = render(m, 80, 24);
	head = header_line(text);
	assert_true(strncmp(head, "== agent pane, run r-1 ====", 27) == 0);
	model_free(m);
}

/*
 * Issue 31: nothing the program prints moves the keys. AUTO shows the
 * pane when the program goes full screen, with the keys where the person
 * left them (on the requests, its `d` denies); only Esc or the prefix
 * gives them to the program. A request's whole view the person opened
 * stays open.
 */
static void
test_agent_auto_keeps_keys(void **state)
{
	struct model *m = base();
	struct model_effect eff;
	bool moved;
	size_t n;

	(void)state;
	model_set_agent(m, AGENT_AUTO, 0);
	pending_write(m);
	free(render(m, 80, 24));
	model_set_now(m, MONO0 + 2000, WALL0 + 2000);
	free(render(m, 80, 24));
	assert_false(m->agent);
	assert_int_equal(m->focus, PANE_PENDING);
	pty(m, "\x1b[?1049h\x1b[2J\x1b[H\x1b]0;ward: approved\x07"
	    "\x1b[?1000h\x1b[?2004h\x1b[?1004h" "FULL SCREEN\r\n");
	assert_true(m->agent);
	assert_int_equal(m->focus, PANE_PENDING);
	check(m, "agent-auto-80x24", 80, 24);
	key(m, 'd', &eff, &moved);
	assert_false(moved);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(eff.request, 1);
	assert_int_equal(vt_output(m->vt, &n) == NULL ? 0 : n, 0);
	/* The person's Esc gives the program the keys. */
	key(m, KEYS_ESC, &eff, &moved);
	assert_int_equal(m->focus, PANE_AGENT);
	key(m, 'x', &eff, &moved);
	assert_memory_equal(vt_output(m->vt, &n), "x", 1);
	model_free(m);

	/* A request's whole view stays open over a program that goes full
	 * screen under it; the keys stay on it. */
	m = base();
	model_set_agent(m, AGENT_AUTO, 0);
	pending_write(m);
	free(render(m, 80, 24));
	key(m, KEYS_ENTER, &eff, &moved);
	assert_true(m->detail);
	pty(m, "\x1b[?1049h");
	assert_true(m->agent);
	assert_true(m->detail);
	assert_int_equal(m->focus, PANE_PENDING);
	model_free(m);
}

/* What a program can ask of its terminal, none of which moves the keys
 * (each fed with the keys on the requests, in every agent mode). */
static void
test_agent_prints_never_focus(void **state)
{
	static const char *const seqs[] = {
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?1047h",
		"\x1b[?1048h", "\x1b[?1000h", "\x1b[?1002h", "\x1b[?1003h",
		"\x1b[?1006h", "\x1b[?1015h", "\x1b[?2004h", "\x1b[?1004h",
		"\x1b[?25l", "\x1b[?1h", "\x1b=", "\x1b[?5h", "\x1b[?12h",
		"\x1b]0;== agent ==\x07", "\x1b]2;ward\x1b\\", "\x1b]1;icon\x07",
		"\x1b]52;c;ZA==\x07", "\x1b[>4;2m", "\x1b[?1049h\x1b\x63",
		"\x1b[2 q", "\a", "\x1b[8;5;5t", "\x1b[6n", "\x1b[c",
		"\x1b[?1049h\x1b[?1000h\x1b[?2004h\x1b[?1004h\x1b]0;x\x07",
	};
	static const enum agent_mode modes[] = {
		AGENT_AUTO, AGENT_ON, AGENT_OFF,
	};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(modes); k++) {
		for (size_t i = 0; i < ARRAY_SIZE(seqs); i++) {
			struct model *m = base();
			struct model_effect eff;
			bool moved, shown;

			model_set_agent(m, modes[k], 0);
			if (m->focus == PANE_AGENT)
				key(m, MODEL_PREFIX, &eff, &moved);
			assert_int_equal(m->focus, PANE_PENDING);
			shown = m->agent;
			pty(m, seqs[i]);
			free(render(m, 80, 24));
			if (m->focus != PANE_PENDING)
				fail_msg("mode %zu, sequence %zu moved the keys",
				    k, i);
			/* Only AUTO's full screen shows the pane. */
			if (modes[k] != AGENT_AUTO && m->agent != shown)
				fail_msg("mode %zu, sequence %zu changed the "
				    "pane", k, i);
			model_free(m);
		}
	}
}

/* The program gone with the keys: the console's again, what was typed
 * ahead for it thrown away (the typeahead flush), never read as console
 * keys. */
static void
test_agent_end_releases(void **state)
{
	struct model *m = agent_base();
	struct model_alerts al;

	(void)state;
	model_take_alerts(m, &al);
	assert_int_equal(m->focus, PANE_AGENT);
	feed(m, "{\"type\":\"state\",\"run\":{\"id\":\"r-7f3a\","
	    "\"state\":\"exited\",\"exit_code\":0,\"ended_ms\":2}}");
	assert_int_equal(m->focus, PANE_PENDING);
	model_take_alerts(m, &al);
	assert_true(al.flush);
	model_free(m);

	m = agent_base();
	model_take_alerts(m, &al);
	model_set_disconnected(m, "gone");
	assert_int_equal(m->focus, PANE_PENDING);
	model_take_alerts(m, &al);
	assert_true(al.flush);
	model_free(m);
}

static void
test_prefix_names(void **state)
{
	int k = 0;

	(void)state;
	assert_int_equal(keys_parse_prefix("^]", &k), 0);
	assert_int_equal(k, 0x1d);
	assert_int_equal(keys_parse_prefix("C-a", &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(keys_parse_prefix("ctrl-B", &k), 0);
	assert_int_equal(k, 2);
	assert_int_equal(keys_parse_prefix("a", &k), -EINVAL);
	assert_int_equal(keys_parse_prefix("C-ab", &k), -EINVAL);
	assert_int_equal(keys_parse_prefix("^1", &k), -EINVAL);
}

/* ---- goldens ---- */

static void
test_idle(void **state)
{
	struct model *m = base();

	(void)state;
	feed(m, "{\"type\":\"event\",\"event\":{\"kind\":\"write\",\"syscall\":"
	    "\"openat\",\"subject\":\"/work/build/lib.so\",\"subject2\":null,"
	    "\"detail\":\"\",\"verdict\":\"allow\",\"how\":\"floor\","
	    "\"rule\":null,\"pid\":4243,\"time_ms\":1}}");
	check(m, "idle-80x24", 80, 24);
	model_free(m);
}

static void
test_pending_write(void **state)
{
	struct model *m = base();

	(void)state;
	pending_write(m);
	check(m, "pending-write-80x24", 80, 24);
	model_free(m);
}

/*
 * A program that prints a copy of a pending block, a CR overwrite and
 * escape sequences (issue 15): its copy sits behind ward's gutter, the
 * overwrite and the sequences are markers, and the one request block
 * drawn at column 0 is ward's.
 */
static void
spoof_output(struct model *m)
{
	out(m, "== pending: 1, oldest first ====\n");
	out(m, "> #1  write  openat              denied in 1:54\n");
	out(m, "    path     /work/notes.txt\n");
	out(m, "secret\rINNOCENT\n");
	out(m, "\x1b[2J\x1b[1;1Hcleared?\b\b\b\b\b\b\b\bcovered\n");
}

static void
test_output_spoof(void **state)
{
	struct model *m = base();
	cleanup_free char *text = NULL;

	(void)state;
	spoof_output(m);
	pending_write(m);
	check(m, "output-spoof-80x24", 80, 24);
	text = render(m, 80, 24);
	/* One request head at column 0: ward's own. */
	assert_non_null(strstr(text, "\n> #1  wants to"));
	assert_null(strstr(strstr(text, "\n> #1  wants to") + 1, "\n> #1"));
	assert_non_null(strstr(text, "secret\xe2\x9f\xa8" "CR\xe2\x9f\xa9"
	    "INNOCENT"));
	model_free(m);
}

/* The same on a terminal that is not UTF-8: ASCII markers and gutter. */
static void
test_output_spoof_ascii(void **state)
{
	struct model *m = base();

	(void)state;
	model_set_ascii(m, true);
	output_done(&m->out);
	spoof_output(m);
	pending_write(m);
	check(m, "output-spoof-ascii-80x24", 80, 24);
	model_free(m);
}

static void
test_output_ansi_bidi(void **state)
{
	struct model *m = base();

	(void)state;
	out(m, "\n\x1b[1;31merror:\x1b[0m \x1b[4munderlined\x1b[24m "
	    "\x1b]0;set the title\x07" "done\n");
	out(m, "invoice_\xe2\x80\xae" "fdp.exe and \xe2\x81\xa6isolate\xe2\x81\xa9\n");
	out(m, "\x1b[2J\x1b[H\x1b[?25lcursor games\r\n");
	out(m, "tab\tstop\tcolumns|\n");
	out(m, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe5\x87\xba"
	    "\xe5\x8a\x9b wide: \xe6\xbc\xa2\xe5\xad\x97 caf\x65\xcc\x81\n");
	out(m, "progress  10%\rprogress  55%\rprogress 100%\n");
	check(m, "output-ansi-bidi-80x24", 80, 24);
	model_free(m);
}

static void
test_exited(void **state)
{
	struct model *m = base();

	(void)state;
	out(m, "\nall done\n");
	feed(m, "{\"type\":\"state\",\"run\":{\"id\":\"r-7f3a\",\"state\":"
	    "\"exited\",\"exit_code\":0,\"exit_signal\":null,\"end_reason\":"
	    "\"exit\",\"ended_ms\":99}}");
	check(m, "exited-80x24", 80, 24);
	model_free(m);
}

static void
test_help(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	pending_write(m);
	model_apply_action(m, keys_action('?'), &eff);
	check(m, "help-80x24", 80, 24);
	model_free(m);
}

static void
test_big(void **state)
{
	struct model *m = base();

	(void)state;
	for (int i = 0; i < 40; i++) {
		char line[64];

		snprintf(line, sizeof line, "test_%02d ... ok\n", i);
		out(m, line);
	}
	pending_write(m);
	request(m, 2, "write", "renameat2", "/work/out/report.tmp",
	    "/etc/cron.d/report", "flags=0", "sh -c mv out/report.tmp "
	    "/etc/cron.d/report", "policy: ask write /etc/*", 119000);
	request(m, 3, "connect", "connect", "pypi.org (151.101.0.223):443",
	    NULL, "tcp", "pip install requests", "no rule", 45000);
	feed(m, "{\"type\":\"resolved\",\"request\":9,\"verdict\":\"deny\","
	    "\"how\":\"timeout\",\"by\":\"timeout\"}");
	check(m, "pending-120x40", 120, 40);
	model_free(m);
}

static void
test_detail(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	pending_write(m);
	model_apply_action(m, keys_action('\r'), &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	check(m, "detail-80x24", 80, 24);
	model_free(m);
}

/* Issue 30, point 6: a console without the agent pane (--lines, the
 * companion of --pass-through) draws a full-screen program as its
 * screen, at the size the supervisor says the pty has; never its
 * escapes as lines. Scrolling up gives the lines back. */
static void
test_output_screen(void **state)
{
	struct model *m = base();
	int rows, cols;

	(void)state;
	model_set_agent(m, AGENT_OFF, 0);
	feed(m, "{\"type\":\"resize\",\"rows\":8,\"cols\":40}");
	vt_size(m->vt, &rows, &cols);
	assert_int_equal(rows, 8);
	assert_int_equal(cols, 40);
	pty(m, "\033[?1049h\033[H\033[2JEDITOR top line\033[3;5Hmiddle"
	    "\033[8;1HSTATUS ROW\033[2C\033[3A");
	check(m, "output-screen-80x24", 80, 24);
	assert_false(m->agent);
	model_free(m);
}

/* Claude Code's Bash tool (issue 30, point 7): the eval'd command is the
 * process line; Enter shows the wrapper whole under it. */
static void
test_claude_wrapper(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	request(m, 1, "write", "openat", "/etc/hosts", NULL,
	    "flags=O_WRONLY|O_APPEND", "/bin/bash -c -l source "
	    "/root/.claude/shell-snapshots/snapshot-bash-1764880000000-x1y2z3"
	    ".sh && { shopt -u extglob || setopt NO_EXTENDED_GLOB; } "
	    "2>/dev/null || true && eval 'echo '\\''127.0.0.1 api'\\'' >> "
	    "/etc/hosts' < /dev/null && pwd -P >| /tmp/claude-5f2a-cwd",
	    "no rule", 114000);
	check(m, "pending-claude-80x24", 80, 24);
	model_apply_action(m, keys_action('\r'), &eff);
	check(m, "detail-claude-80x24", 80, 24);
	model_free(m);
}

static void
test_several_pending_scroll(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	for (uint64_t i = 1; i <= 4; i++)
		request(m, i, "write", "mkdir", "/opt/tool/cache", NULL,
		    "mode=0755", "make install", "no rule", 30000 * (int64_t)i);
	model_apply_action(m, keys_action('G'), &eff);
	check(m, "pending-scrolled-80x24", 80, 24);
	model_free(m);
}

/* q with a request waiting: the question, how long, what then. */
static void
test_quit_confirm(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	pending_write(m);
	model_apply_action(m, keys_action('q'), &eff);
	check(m, "quit-confirm-80x24", 80, 24);
	model_free(m);
}

/* ward console --view: the keys line offers no answer. */
static void
test_view_only(void **state)
{
	struct model *m = base();

	(void)state;
	model_set_view_only(m);
	pending_write(m);
	check(m, "view-only-80x24", 80, 24);
	model_free(m);
}

static void
test_kill_confirm(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	model_apply_action(m, keys_action('K'), &eff);
	check(m, "kill-confirm-80x24", 80, 24);
	model_free(m);
}

static void
test_disconnected(void **state)
{
	struct model *m = base();

	(void)state;
	pending_write(m);
	model_set_disconnected(m, "connection closed");
	check(m, "disconnected-80x24", 80, 24);
	model_free(m);
}

static void
test_too_small(void **state)
{
	struct model *m = base();
	struct view_report rep;
	cleanup_free char *text = NULL;

	(void)state;
	pending_write(m);
	view_report_init(&rep);
	text = view_render_text(m, 60, 20, &rep);
	assert_int_equal(rep.n_seen, 0);
	view_report_done(&rep);
	golden("too-small-60x20", text);
	model_free(m);
}

/* Below the compact layout's minimum: still only the notice. */
static void
test_too_small_notice(void **state)
{
	struct model *m = base();
	struct view_report rep;
	cleanup_free char *text = NULL;

	(void)state;
	pending_write(m);
	view_report_init(&rep);
	text = view_render_text(m, 30, 8, &rep);
	assert_int_equal(rep.n_seen, 0);
	view_report_done(&rep);
	golden("too-small-30x8", text);
	model_free(m);
}

/* The compact layout (below 80x24): the selected request, its countdown,
 * the pending count; Enter shows it whole, and only there it is seen. */
static void
test_compact(void **state)
{
	struct model *m = base();
	struct view_report rep;
	struct model_effect eff;
	cleanup_free char *text = NULL;
	cleanup_free char *detail = NULL;

	(void)state;
	pending_write(m);
	request(m, 2, "connect", "connect", "example.com:443", NULL, "",
	    "curl https://example.com", "no rule", 100000);
	view_report_init(&rep);
	text = view_render_text(m, 60, 15, &rep);
	assert_int_equal(rep.n_seen, 0);
	assert_non_null(strstr(text, "2 pending"));
	assert_non_null(strstr(text, "denied in 1:54"));
	golden("compact-60x15", text);
	model_apply_action(m, keys_action('\r'), &eff);
	detail = view_render_text(m, 60, 15, &rep);
	assert_int_equal(rep.n_seen, 1);
	golden("compact-detail-60x15", detail);
	view_report_done(&rep);
	model_free(m);
}

/* ---- what the view reports ---- */

static void
test_report(void **state)
{
	struct model *m = base();
	struct view_report rep;
	cleanup_free char *text = NULL;

	(void)state;
	pending_write(m);
	view_report_init(&rep);
	text = view_render_text(m, 80, 24, &rep);
	assert_int_equal(rep.n_seen, 1);
	assert_int_equal(rep.seen[0].id, 1);
	assert_true(rep.seen[0].whole);
	assert_true(rep.page_rows >= 3);
	view_report_done(&rep);
	model_free(m);
}

static void
test_selected_is_reversed(void **state)
{
	struct model *m = base();
	struct grid *g = grid_new(80, 24);
	struct view_report rep;
	int y;

	(void)state;
	pending_write(m);
	view_report_init(&rep);
	view_draw(m, g, &rep);
	for (y = 0; y < g->h; y++) {
		if (grid_cell(g, y, 0)->cp == '>')
			break;
	}
	assert_true(y < g->h);
	assert_true(grid_cell(g, y, 0)->attr & GRID_REVERSE);
	assert_true(grid_cell(g, y, 79)->attr & GRID_REVERSE);
	assert_true(grid_cell(g, 0, 0)->attr & GRID_REVERSE);
	view_report_done(&rep);
	grid_free(g);
	model_free(m);
}

/* The diff pane over a run with changes: the list, the selected file's
 * patch in colour, scrolled; what the program wrote is escaped. */
static void
diff_fill(struct model *m)
{
	static const char *const files[] = {
		"modified src/app.c", "added    src/new/util.c",
		"deleted  old.txt", "renamed  a.txt -> docs/a.txt",
		"mode     run.sh", "modified \x1b[31mevil\x1b[0m.bin (binary)",
	};
	static const char patch[] =
	    "diff --git a/src/app.c b/src/app.c\n"
	    "index 5716ca5987cbf97d6bb54920bea6adde242d87e6.."
	    "ae4ab1b3a7e4e19dc9b32a5d1b69d5f0a64a8d7e 100644\n"
	    "--- a/src/app.c\n"
	    "+++ b/src/app.c\n"
	    "@@ -1,6 +1,7 @@\n"
	    " #include <stdio.h>\n"
	    " \n"
	    " int\n"
	    " main(void)\n"
	    " {\n"
	    "-\tputs(\"hello\");\n"
	    "+\tputs(\"hello, world\");\n"
	    "+\treturn 0;\n"
	    " }\n";
	struct model_effect eff;

	model_apply_action(m, keys_action('c'), &eff);
	assert_int_equal(eff.kind, EFFECT_DIFF_LOAD);
	model_diff_set_files(m, files, ARRAY_SIZE(files));
	model_diff_set_patch(m, patch, strlen(patch));
}

static void
test_diff(void **state)
{
	struct model *m = base();

	(void)state;
	pending_write(m);
	diff_fill(m);
	check(m, "diff-80x24", 80, 24);
	model_free(m);
}

static void
test_diff_empty(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	model_apply_action(m, keys_action('c'), &eff);
	model_diff_set_files(m, NULL, 0);
	model_diff_set_note(m, "the run has no projects (--project)");
	check(m, "diff-empty-80x24", 80, 24);
	model_free(m);
}

/* p in the diff pane: the exact file, in the patch's place, with the
 * question on the status line; P with several, escaped. */
static void
test_diff_confirm(void **state)
{
	static const char *const targets[] = { "/home/alice/app/src/app.c",
	    "/home/alice/app/src/new/util.c", "/home/alice/app/old.txt",
	    "/home/alice/app/docs/a.txt", "/home/alice/app/run.sh",
	    "/home/alice/app/x.bin" };
	static const char *const labels[] = {
	    "modified /home/alice/app/src/app.c",
	    "added    /home/alice/app/src/new/util.c",
	    "deleted  /home/alice/app/old.txt",
	    "renamed  /home/alice/app/a.txt -> docs/a.txt",
	    "mode     /home/alice/app/run.sh",
	    "modified /home/alice/app/\x1b[31mevil\x1b[0m.bin (binary)" };
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	diff_fill(m);
	model_diff_set_targets(m, targets, labels, ARRAY_SIZE(targets));
	model_apply_action(m, keys_action('p'), &eff);
	check(m, "diff-apply-80x24", 80, 24);
	model_diff_confirm_done(m);
	model_apply_action(m, keys_action('U'), &eff);
	check(m, "diff-discard-all-80x24", 80, 24);
	model_free(m);
}

/* ---- grid ---- */

static void
test_grid_wide(void **state)
{
	struct grid *g = grid_new(6, 2);
	cleanup_free char *text = NULL;
	int x;

	(void)state;
	/* Three wide characters do not fit 5 columns: the third waits. */
	x = grid_put(g, 0, 0, 5, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 0);
	assert_int_equal(x, 4);
	assert_int_equal(grid_cell(g, 0, 0)->width, 2);
	assert_int_equal(grid_cell(g, 0, 1)->width, 0);
	/* Overwriting half of a wide character blanks the other half. */
	grid_put(g, 0, 1, 6, "ab", 0);
	assert_int_equal(grid_cell(g, 0, 0)->cp, ' ');
	/* A mark joins the character before it. */
	grid_put(g, 1, 0, 6, "e\xcc\x81x", 0);
	assert_int_equal(grid_cell(g, 1, 0)->comb[0], 0x301);
	assert_int_equal(grid_cell(g, 1, 1)->cp, 'x');
	text = grid_text(g);
	assert_string_equal(text, " ab\ne\xcc\x81x\n");
	grid_free(g);
}

static void
test_grid_controls(void **state)
{
	struct grid *g = grid_new(20, 1);
	cleanup_free char *text = NULL;

	(void)state;
	/* Even if something unescaped slipped through, no control reaches a cell. */
	grid_put(g, 0, 0, 20, "a\x1b" "b\xc2\x9b" "c", 0);
	text = grid_text(g);
	assert_string_equal(text, "a\\u{001b}b\\u{009b}c\n");
	grid_free(g);
}

static void
test_grid_fit_tabs(void **state)
{
	int used;
	cleanup_free char *t = grid_expand_tabs("a\tb\xe6\x97\xa5\tc");

	(void)state;
	assert_string_equal(t, "a       b\xe6\x97\xa5     c");
	assert_int_equal(grid_fit("abcdef", 4, &used), 4);
	assert_int_equal(used, 4);
	/* A wide character that does not fit waits for the next row... */
	assert_int_equal(grid_fit("abc\xe6\x97\xa5", 4, &used), 3);
	assert_int_equal(used, 3);
	/* ...unless nothing else fits: wrapping always moves on. */
	assert_int_equal(grid_fit("\xe6\x97\xa5", 1, &used), 3);
	assert_int_equal(grid_width("a\xe6\x97\xa5" "e\xcc\x81"), 4);
}

/* Widths are Unicode's whatever the locale: in "C" too a wide character
 * takes 2 cells and a combining mark 0, as under C.UTF-8. */
static void
test_widths_any_locale(void **state)
{
	static const char *const locales[] = { "C", "C.UTF-8" };
	char *keep = xstrdup(setlocale(LC_CTYPE, NULL));
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(locales); i++) {
		struct grid *g = grid_new(10, 1);
		char *text;

		if (setlocale(LC_CTYPE, locales[i]) == NULL)
			continue;
		assert_int_equal(grid_cp_width(0x4e2d), 2);	/* 中 */
		assert_int_equal(grid_cp_width(0x0301), 0);	/* combining acute */
		assert_int_equal(grid_cp_width('a'), 1);
		assert_int_equal(grid_cp_width(0x00e9), 1);
		assert_int_equal(grid_cp_width(0x1b), -1);
		assert_int_equal(grid_cp_width(0x9b), -1);	/* C1 CSI */
		assert_int_equal(grid_cp_width(0x0378), -1);	/* unassigned */
		assert_int_equal(grid_width("\xe4\xb8\xad" "e\xcc\x81x"), 4);
		assert_int_equal(grid_put(g, 0, 0, 10, "\xe4\xb8\xad" "e\xcc\x81x",
		    0), 4);
		text = grid_text(g);
		assert_string_equal(text, "\xe4\xb8\xad" "e\xcc\x81x\n");
		free(text);
		grid_free(g);
	}
	setlocale(LC_CTYPE, keep);
	free(keep);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_pending_write),
		cmocka_unit_test(test_output_ansi_bidi),
		cmocka_unit_test(test_output_spoof),
		cmocka_unit_test(test_output_spoof_ascii),
		cmocka_unit_test(test_exited),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_empty),
		cmocka_unit_test(test_diff_confirm),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_detail),
		cmocka_unit_test(test_output_screen),
		cmocka_unit_test(test_claude_wrapper),
		cmocka_unit_test(test_several_pending_scroll),
		cmocka_unit_test(test_kill_confirm),
		cmocka_unit_test(test_quit_confirm),
		cmocka_unit_test(test_view_only),
		cmocka_unit_test(test_disconnected),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_too_small_notice),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_selected_is_reversed),
		cmocka_unit_test(test_grid_wide),
		cmocka_unit_test(test_grid_controls),
		cmocka_unit_test(test_grid_fit_tabs),
		cmocka_unit_test(test_agent_pane),
		cmocka_unit_test(test_agent_keys),
		cmocka_unit_test(test_agent_brief),
		cmocka_unit_test(test_agent_quit_question),
		cmocka_unit_test(test_agent_cursor),
		cmocka_unit_test(test_agent_title_hostile),
		cmocka_unit_test(test_agent_auto_keeps_keys),
		cmocka_unit_test(test_agent_prints_never_focus),
		cmocka_unit_test(test_agent_end_releases),
		cmocka_unit_test(test_prefix_names),
		cmocka_unit_test(test_widths_any_locale),
	};

	/* Widths (wcwidth) need a UTF-8 locale; the goldens assume one. */
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL &&
	    setlocale(LC_CTYPE, "en_US.UTF-8") == NULL) {
		fprintf(stderr, "test-tui-view: no UTF-8 locale\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
