/* SPDX-License-Identifier: MIT */
#include "tui/console.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/msg.h"
#include "approvals/desktop.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/settings.h"
#include "config/paths.h"
#include "config/policyedit.h"
#include "config/util.h"
#include "tui/console-int.h"
#include "tui/diffcmd.h"
#include "tui/finished.h"
#include "tui/grid.h"
#include "tui/hook.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "tui/vt.h"

volatile sig_atomic_t console_signal;
/* Typeahead was thrown away this round (console_flush). */
bool console_flushed;

static void
console_on_signal(int sig)
{
	console_signal = sig;
}

void
console_drop(struct console *c, const char *why)
{
	if (c->host == NULL)
		proto_conn_free(c->conn);
	c->conn = NULL;
	model_set_disconnected(c->m, why);
}

void
console_send(struct console *c, json_t *msg)
{
	int e;

	if (c->conn != NULL && c->host != NULL) {
		/* The envelope holds its own reference to msg. */
		json_t *env = msg_relay_to(c->relay_run, msg);

		json_decref(msg);
		msg = env;
	}
	if (c->conn == NULL) {
		model_message(c->m, MSG_ERROR, "not connected");
	} else if ((e = proto_send(c->conn, msg)) < 0) {
		console_drop(c, strerror(-e));
	} else if ((e = proto_flush(c->conn)) < 0 && e != -EAGAIN) {
		console_drop(c, strerror(-e));
	}
	json_decref(msg);
}

/* W: where the rule goes in the run's policy file (asked before y), then
 * written there and the answer sent with it (config/policyedit.h). */
static void
console_always(struct console *c, const struct model_effect *eff)
{
	cleanup_free char *why = NULL, *shown = NULL;
	unsigned line = 0;

	if (eff->kind == EFFECT_ALWAYS_PLAN) {
		if (policy_edit_plan(eff->file, eff->section, eff->key,
		    eff->entry, eff->comment, &line, &shown, &why) < 0)
			model_always_plan(c->m, eff->request, 0, NULL, why);
		else
			model_always_plan(c->m, eff->request, line, shown, NULL);
		return;
	}
	if (c->conn == NULL) {
		model_always_done(c->m, eff->request, 0, "not connected");
		return;
	}
	if (policy_edit_add_rule(eff->file, eff->section, eff->key, eff->entry,
	    eff->comment, eff->line, &line, &why) < 0) {
		model_always_done(c->m, eff->request, 0, why);
		return;
	}
	console_send(c, msg_decide_always(eff->request, VERDICT_ALLOW,
	    SCOPE_RUN, eff->rule, eff->file, line));
	model_always_done(c->m, eff->request, line, NULL);
}

void
console_effect(struct console *c, const struct model_effect *eff)
{
	switch (eff->kind) {
	case EFFECT_NONE:
	case EFFECT_QUIT:
		return;
	case EFFECT_DECIDE:
		console_send(c, msg_decide_rule(eff->request, eff->verdict,
		    eff->scope, eff->reason, eff->rule));
		return;
	case EFFECT_DECIDE_MANY:
		for (size_t i = 0; i < eff->n_requests && c->conn != NULL; i++)
			console_send(c, msg_decide(eff->requests[i],
			    eff->verdict, SCOPE_ONCE, NULL));
		return;
	case EFFECT_RULES:
		console_send(c, msg_rules());
		return;
	case EFFECT_ALWAYS_PLAN:
	case EFFECT_ALWAYS:
		console_always(c, eff);
		return;
	case EFFECT_KILL:
		console_send(c, msg_kill());
		return;
	case EFFECT_DIFF_LOAD:
		if (c->host != NULL) {
			/* The staged changes are in the run's folder over
			 * there: 'ward diff RUN' on that host shows them. */
			c->m->diff.open = false;
			model_message(c->m, MSG_INFO, "the diff of a run on "
			    "another host: 'ward diff' there");
			return;
		}
		diffcmd_pane_load(c->m, c->m->run.id);
		return;
	case EFFECT_DIFF_ACT:
		if (c->host != NULL)
			return;
		diffcmd_pane_act(c->m, c->m->run.id);
		diffcmd_pane_load(c->m, c->m->run.id);
		return;
	}
}

void
console_read(struct console *c)
{
	cleanup_free char *cause = NULL;
	json_t *msg;
	ssize_t n;
	int64_t start = now_mono_ms();
	int r;

	/* A bounded time of reading a round: a program that floods its
	 * output must not keep the keys (and `K`) from being read, nor
	 * the console from keeping up. */
	c->behind = false;
	do {
		n = proto_read_some(c->conn, 16);
		if (n < 0 && n != -EAGAIN && n != -EINTR) {
			console_drop(c, strerror((int)-n));
			return;
		}
		while ((r = proto_next(c->conn, &msg, &cause)) == 1) {
			model_apply_message(c->m, msg);
			json_decref(msg);
		}
		if (r < 0) {
			console_drop(c, cause != NULL ? cause : strerror(-r));
			return;
		}
		if (proto_eof(c->conn)) {
			console_drop(c, "connection closed");
			return;
		}
	} while (n > 0 && now_mono_ms() - start < CONSOLE_READ_MS);
	c->behind = n > 0;
}

/* Throws away keys typed ahead. They arrived all the same: a held
 * approve is dropped (tui/model.h), here for c's model, by the every-run
 * loop for every run's (console_flushed). */
void
console_flush(struct console *c)
{
	if (screen_flush_input()) {
		console_flushed = true;
		if (c != NULL)
			model_note_key(c->m, 0, now_mono_ms());
	}
}

/* Text is being typed into the selected run's prompt. */
bool
console_typing(const struct model *m)
{
	enum model_prompt p = m != NULL ? model_prompt(m) : PROMPT_NONE;

	return p == PROMPT_REASON || p == PROMPT_FILTER;
}

/*
 * A new request, a selection that moved: keys typed ahead are thrown
 * away (console_flush), unless the person is typing text into a prompt
 * (typing: a reason, the events filter), where every key is text that
 * answers nothing and a flush would only lose letters of it.
 */
void
console_alerts(struct console *c, bool typing)
{
	struct model_alerts a;
	const struct pending *p;

	model_take_alerts(c->m, &a);
	if (a.flush && !typing)
		console_flush(c);
	if (a.bell)
		screen_beep();
	if (a.notify != 0 && c->desktop &&
	    (p = model_pending_find(c->m, a.notify)) != NULL) {
		cleanup_free char *summary = xasprintf("ward: run %s waits for "
		    "you", c->m->run.id);
		cleanup_free char *body = xasprintf("#%" PRIu64 " %s %s\nby %s",
		    p->id, request_kind_name(p->kind), p->subject, p->cmdline);

		/* Never waits for the daemon (approvals/desktop.h); one
		 * still in flight drops this one. */
		if (desktop_notify(summary, body) == -ENOTSUP)
			c->desktop = false;
	}
}

/* The notify_cmd hook: one request at a time that waited too long. */
static void
console_hook(struct console *c)
{
	const struct pending *p;
	int64_t now = now_mono_ms();

	if (c->hook == NULL)
		return;
	hook_tick(c->hook, now);
	if (hook_pid(c->hook) == 0 &&
	    (p = model_take_overdue(c->m, c->notify_after)) != NULL) {
		/* The model's strings, escaped already (tui/model.h). */
		struct hook_request r = {
			.run = c->m->run.id, .run_name = c->m->run.name,
			.id = p->id, .kind = request_kind_name(p->kind),
			.subject = p->subject, .process = p->cmdline,
			.waited_s = (c->m->now_wall - p->created_ms) / 1000,
		};

		(void)hook_fire(c->hook, &r, now);
	}
}

/* What the agent pane has for the program: keys, and the emulator's
 * answers to its queries (sent only while the pane is shown, so that a
 * second console in line view does not answer twice). */
void
console_input(struct console *c)
{
	size_t n, off = 0;
	const char *o = vt_output(c->m->vt, &n);

	while (c->m->agent && c->conn != NULL && !model_run_ended(c->m) &&
	    !c->view && off < n) {
		size_t k = n - off > MSG_INPUT_MAX ? MSG_INPUT_MAX : n - off;

		console_send(c, msg_input(o + off, k));
		off += k;
	}
	vt_output_clear(c->m->vt);
}

/* A run that ends shows its summary, read from the record: once when
 * it ends, and again once its supervisor is gone (it has written its
 * last events by then). */
static void
console_summary(struct console *c)
{
	struct model *m = c->m;
	int want = m->disconnected || m->readonly ? 2 : 1;

	if (!model_run_ended(m) || c->summaries >= want)
		return;
	c->summaries = want;
	if (!m->readonly)
		(void)finished_summary(m, m->run.id, NULL);
}

/* The pty takes the pane's size: while the pane is shown, and from the
 * start for the run's own console (`ward run`), so that the program
 * starts at the size it will be shown at. */
void
console_resize(struct console *c)
{
	struct model *m = c->m;

	/* A view console never sizes the program's terminal. */
	if (m->agent_rows <= 0 || m->agent_cols <= 0 || c->conn == NULL ||
	    model_run_ended(m) || c->view)
		return;
	if (!m->agent && !(c->exit_with_run && m->agent_mode != AGENT_OFF))
		return;
	/* Once more when the program has switched to its full screen: it
	 * may have read its size just before the first one reached it. */
	if (m->agent_rows == c->sent_rows && m->agent_cols == c->sent_cols &&
	    (c->resent || m->vt == NULL || !vt_was_fullscreen(m->vt)))
		return;
	if (m->vt != NULL && vt_was_fullscreen(m->vt))
		c->resent = true;
	c->sent_rows = m->agent_rows;
	c->sent_cols = m->agent_cols;
	console_send(c, msg_resize(m->agent_rows, m->agent_cols));
}

int
console_prefix(void)
{
	const char *s = getenv("WARD_PREFIX");
	int key;

	if (s == NULL || *s == '\0')
		return MODEL_PREFIX;
	if (keys_parse_prefix(s, &key) == 0)
		return key;
	{
		cleanup_free char *esc = escape_str(s);

		fprintf(stderr, "ward: WARD_PREFIX=%s names no key (say ^] or "
		    "C-a); the prefix is ^]\n", esc);
	}
	return MODEL_PREFIX;
}

/* One settings file's [console] prefix: 1 when it names one (set), 0
 * when it names none, -1 when its value is no key (said). */
static int
console_prefix_file(struct model *m, const char *path)
{
	cleanup_free char *cause = NULL;
	struct settings st;
	int key, r = 0;

	if (settings_load(path, &st, &cause) < 0) {
		cleanup_free char *e = escape_str(path);

		model_message(m, MSG_WARN, "%s: %s; the prefix stays as it was",
		    e, cause != NULL ? cause : "cannot be read");
		settings_done(&st);
		return -1;
	}
	if (st.prefix != NULL && keys_parse_prefix(st.prefix, &key) == 0) {
		m->prefix = key;
		r = 1;
	} else if (st.prefix != NULL) {
		cleanup_free char *e = escape_str(st.prefix);

		model_message(m, MSG_WARN, "[console] prefix \"%s\" names no "
		    "control key (say ^] or C-a); the prefix stays as it was",
		    e);
		r = -1;
	}
	settings_done(&st);
	return r;
}

/*
 * The prefix from the settings, once the run is known: WARD_PREFIX wins
 * (console_prefix()), then the run's policy ([console] prefix in the
 * copy its supervisor keeps), then the user's own ward.ini (read for its
 * [console] section alone), then ^].
 */
static void
console_settings_prefix(struct console *c)
{
	const char *env = getenv("WARD_PREFIX");
	cleanup_free char *runs = NULL, *copy = NULL, *config = NULL;
	cleanup_free char *user = NULL;

	if (c->prefix_read || c->m->run.id == NULL || *c->m->run.id == '\0')
		return;
	c->prefix_read = true;
	if (env != NULL && *env != '\0')
		return;
	runs = paths_runs_dir();
	copy = xasprintf("%s/%s/policy.ini", runs, c->m->run.id);
	if (strchr(c->m->run.id, '/') == NULL &&
	    console_prefix_file(c->m, copy) != 0)
		return;
	config = paths_config_dir();
	user = xasprintf("%s/ward.ini", config);
	(void)console_prefix_file(c->m, user);
}

void
console_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = console_on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() must come back and see the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void
console_loop(struct console *c)
{
	struct grid *g = NULL;
	struct view_report rep;
	int64_t next_tick = now_mono_ms();
	int64_t next_diff = 0, last_frame = 0;
	int w, h;

	view_report_init(&rep);
	screen_size(&w, &h);
	g = grid_new(w, h);
	while (!c->m->quit && console_signal == 0) {
		struct pollfd pfd[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = -1, .events = POLLIN },
		};
		int64_t now = now_mono_ms(), due = model_due(c->m), at;
		int timeout;
		bool keyed = false, burst;
		struct model_effect held;
		int key;

		/* A held approve is sent when its silence ends: wake then. */
		if (due == 0 || due > next_tick)
			due = next_tick;
		timeout = (int)(due > now ? due - now : 0);

		if (c->conn != NULL) {
			pfd[1].fd = proto_conn_fd(c->conn);
			if (proto_want_write(c->conn))
				pfd[1].events |= POLLOUT;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		model_set_now(c->m, now_mono_ms(), now_wall_ms());
		model_fates_tick(c->m);
		if (console_signal == SIGINT && model_unanswered(c->m) > 0 &&
		    !model_run_ended(c->m) && !c->m->disconnected) {
			/* Ctrl-C is q: with requests waiting it asks first
			 * (a second one says no, like any other key). */
			struct model_effect eff;

			console_signal = 0;
			/* A key all the same: a held approve goes. */
			model_note_key(c->m, KEYS_CTRL('c'), now_mono_ms());
			model_apply_action(c->m, c->m->confirm_quit ?
			    ACTION_NO : ACTION_QUIT, &eff);
		}
		if (now_mono_ms() >= next_tick)
			next_tick = now_mono_ms() + CONSOLE_TICK_MS;

		if (c->conn != NULL && (pfd[1].revents & POLLOUT)) {
			int e = proto_flush(c->conn);

			if (e < 0 && e != -EAGAIN)
				console_drop(c, strerror(-e));
		}
		if (c->conn != NULL &&
		    (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			console_read(c);
		console_settings_prefix(c);
		/* Before reading keys: those typed before a new request
		 * appeared are thrown away here. */
		console_alerts(c, console_typing(c->m));
		desktop_poll();
		console_hook(c);

		/* The time the held approve is judged at: taken before the
		 * terminal is read, so that every key that arrived before it
		 * is seen first (model_tick). */
		model_set_now(c->m, now_mono_ms(), now_wall_ms());
		while (!c->m->quit &&
		    (key = screen_key_at(&at, &burst)) != -1) {
			struct model_effect eff;
			bool moved = false;

			keyed = true;
			if (key == KEYS_MOUSE) {
				int my, mx, mb;
				bool mp;

				if (screen_mouse_event(&my, &mx, &mb, &mp))
					model_apply_mouse(c->m, my, mx, mb, mp);
				continue;
			}
			if (keys_action(key) == ACTION_REDRAW &&
			    !(c->m->agent && c->m->focus == PANE_AGENT))
				screen_invalidate();
			model_apply_key_at(c->m, key, at, burst, &eff, &moved);
			console_effect(c, &eff);
			if (moved) {
				/* What was typed after the prefix was meant
				 * for the program, not for the requests. */
				console_flush(c);
				break;
			}
			if (c->m->alerts.flush) {
				/* The focus moved: keys typed ahead go. */
				console_alerts(c, console_typing(c->m));
				break;
			}
		}
		if (model_tick(c->m, &held)) {
			keyed = true;
			console_effect(c, &held);
		}
		console_input(c);
		if (c->m->quit)
			break;
		console_summary(c);
		/* The agent may be writing: the open diff follows it. */
		if (c->m->diff.open && now_mono_ms() >= next_diff) {
			diffcmd_pane_load(c->m, c->m->run.id);
			next_diff = now_mono_ms() + 1000;
		}

		/* Behind a flood, a frame now and then; a key is always
		 * answered by one. */
		if (c->behind && !keyed &&
		    now_mono_ms() - last_frame < CONSOLE_FRAME_MS) {
			console_resize(c);
			continue;
		}
		last_frame = now_mono_ms();
		screen_size(&w, &h);
		if (w != g->w || h != g->h)
			grid_resize(g, w, h);
		view_draw(c->m, g, &rep);
		screen_cursor(rep.cursor, rep.cursor_y, rep.cursor_x);
		screen_draw(g);
		/* Arming counts from here: the request is on the terminal. */
		model_set_now(c->m, now_mono_ms(), now_wall_ms());
		model_note_view(c->m, &rep);
		console_resize(c);
		screen_mouse(model_wants_mouse(c->m));
		screen_raw(model_wants_raw(c->m));
	}
	view_report_done(&rep);
	grid_free(g);
}

/* `ward console RUN` on a run that has ended: read-only, from the
 * record (tui/finished.h). 0 after q; -1 when it is no finished run (the
 * caller says why it could not attach). */
static int
console_finished(const struct console_opts *opts)
{
	struct console c = { 0 };
	cleanup_free char *cause = NULL, *why = NULL;

	c.m = model_new();
	model_set_agent(c.m, AGENT_OFF, console_prefix());
	model_set_now(c.m, now_mono_ms(), now_wall_ms());
	if (finished_load(c.m, opts->run, &cause) < 0) {
		model_free(c.m);
		return -1;
	}
	setlocale(LC_CTYPE, "");
	console_signals();
	if (screen_init(&why) < 0) {
		fprintf(stderr, "ward console: %s\n", why != NULL ? why :
		    "cannot start the terminal");
		model_free(c.m);
		return -1;
	}
	console_loop(&c);
	screen_done();
	model_free(c.m);
	return 0;
}

int
console_attach(const struct console_opts *opts)
{
	struct console c = { .exit_with_run = opts->exit_with_run,
	    .view = opts->view };
	cleanup_free char *cause = NULL;
	cleanup_free char *leave = NULL;
	cleanup_free char *why = NULL;
	int fd = -1, e, status;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ward console: needs a terminal\n");
		return 1;
	}
	if ((e = ctl_connect(opts->run, &fd, &cause)) < 0) {
		cleanup_free char *esc = escape_str(cause != NULL ? cause :
		    strerror(-e));

		/* No supervisor: a run that has ended opens from the record. */
		if (!opts->exit_with_run && opts->run != NULL &&
		    console_finished(opts) == 0)
			return 0;
		fprintf(stderr, "ward console: %s\n", esc);
		return 1;
	}
	/* The loop never blocks on the supervisor: a stuck peer must not
	 * freeze the person's view of everything else. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	c.conn = proto_conn_new(fd);
	c.m = model_new();
	model_set_agent(c.m, opts->agent, console_prefix());
	c.desktop = desktop_available();
	{
		struct settings st;
		cleanup_free char *scause = NULL;

		if (settings_load(NULL, &st, &scause) < 0 && scause != NULL)
			fprintf(stderr, "ward console: %s (settings ignored)\n",
			    scause);
		if (st.notify_cmd != NULL)
			c.hook = hook_new(st.notify_cmd);
		c.notify_after = st.notify_after;
		settings_done(&st);
	}
	model_set_now(c.m, now_mono_ms(), now_wall_ms());

	if (c.view)
		model_set_view_only(c.m);
	console_send(&c, c.view ? msg_hello_view("console", true) :
	    msg_hello("console", true));

	setlocale(LC_CTYPE, "");
	model_set_ascii(c.m, strcmp(nl_langinfo(CODESET), "UTF-8") != 0);
	console_signals();
	if ((e = screen_init(&why)) < 0) {
		fprintf(stderr, "ward console: %s; the console needs a "
		    "terminal with cursor addressing (e.g. "
		    "TERM=xterm-256color)\n", why != NULL ? why :
		    "cannot start the terminal");
		/* `ward run` checks the terminal before it starts a run
		 * (and goes headless), so a run made for this console is
		 * met here only when that check passed and curses still
		 * failed: it is killed, never left waiting on a person who
		 * cannot see it. */
		if (c.exit_with_run) {
			console_send(&c, msg_kill());
			fprintf(stderr, "ward: killed run %s\n", opts->run);
		}
		hook_free(c.hook);
		proto_conn_free(c.conn);
		model_free(c.m);
		return c.exit_with_run ? 125 : 1;
	}
	console_loop(&c);
	screen_done();
	desktop_done();

	leave = model_leave_text(c.m);
	if (leave != NULL)
		fprintf(stderr, "%s\n", leave);
	/* Left while the run goes on: what it has staged so far, which
	 * the person may take for done (issue 30, point 1). */
	if (!model_run_ended(c.m) && !c.m->disconnected &&
	    c.m->run.id != NULL) {
		cleanup_free char *staged = finished_staged_text(c.m->run.id);

		if (staged != NULL)
			fprintf(stderr, "ward: run %s so far: %s\n",
			    c.m->run.id, staged);
	}
	status = model_exit_status(c.m, c.exit_with_run);
	if (console_signal != 0 && status == 0)
		status = 128 + console_signal;
	hook_free(c.hook);
	proto_conn_free(c.conn);
	model_free(c.m);
	return status;
}
