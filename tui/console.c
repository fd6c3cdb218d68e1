/* SPDX-License-Identifier: MIT */
#include "tui/console.h"

#include <errno.h>
#include <getopt.h>
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
#include "tui/diffcmd.h"
#include "tui/finished.h"
#include "tui/fleet.h"
#include "tui/grid.h"
#include "tui/hook.h"
#include "tui/hosts.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/relay.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "tui/vt.h"

/* Countdowns move once a second; a quarter keeps them honest. */
#define CONSOLE_TICK_MS 250
/* Every run: how often the runs folder is listed again (new runs, a
 * supervisor that came back). */
#define CONSOLE_SCAN_MS 1000
/* While the program floods its output: reading takes up to this long a
 * round (then the keys), and frames come at most this often, so that the
 * console keeps up with the supervisor, which drops a console that falls
 * 8 MiB behind (approvals/proto.h). */
#define CONSOLE_READ_MS 8
#define CONSOLE_FRAME_MS 33

static volatile sig_atomic_t console_signal;
/* Typeahead was thrown away this round (console_flush). */
static bool console_flushed;

static void
console_on_signal(int sig)
{
	console_signal = sig;
}

static const char console_usage[] =
"Usage: ward console [--agent|--lines] [--view] [RUN]\n"
"       ward console [--agent|--lines] [--host HOST]... [--hosts]\n"
"\n"
"Attach to a live run: its output, the requests waiting on a person, and\n"
"its state. Without RUN, every live run of yours in one console: a runs\n"
"pane (by start time, then name), one queue of requests across the\n"
"runs, oldest first, each marked with its run; [ ] or 1-9 switch runs\n"
"(the output, the events and the diff follow), x dismisses an ended run,\n"
"C every ended run (y/n), and runs that start later join. A RUN that\n"
"has ended opens read-only from the record: its output, events, summary\n"
"and diff (the answer keys only say it is read-only).\n"
"\n"
"Keys: a allow once (only after the request has been on screen for half a\n"
"second), d deny, Enter show the whole request (it never approves),\n"
"K kill the run (asks y/n), Tab switch pane, j/k move, / filter the\n"
"events (kind, verdict, how, subject text; Esc clears), ? help, q leave.\n"
"Leaving does not stop the run; attach again with 'ward console RUN'.\n"
"\n"
"The agent pane: a full-screen program (one that switches to the\n"
"alternate screen) is shown as it draws itself, and keys go to it\n"
"(Ctrl-C and Ctrl-Z too, as in its own terminal); the\n"
"prefix key (Ctrl-], or WARD_PREFIX, e.g. WARD_PREFIX=C-a) moves them to\n"
"the requests, where a d Enter K work; Esc or the prefix goes back, and\n"
"the prefix twice sends it to the program. v switches agent pane and\n"
"output lines, z zooms the pane or the requests. The prefix is also set\n"
"by [console] prefix in the run's policy or in ~/.config/ward/ward.ini\n"
"(WARD_PREFIX wins).\n"
"\n"
"For a run started with 'ward run --pass-through', attach with --lines:\n"
"the program keeps its own terminal's size.\n"
"\n"
"Options:\n"
"  --agent     show the agent pane from the start\n"
"  --lines     never switch to the agent pane by itself\n"
"  --view      read-only: no answer keys, nothing typed into the program;\n"
"              the supervisor refuses this console's answers and kills\n"
"  --host HOST every run of HOST too (again for more hosts), through\n"
"              'ssh -T HOST ward relay' ($WARD_SSH); each row names its\n"
"              host, a broken link reads \"host gone\" and is tried again\n"
"              (1 s doubling to 30 s); it allows nothing meanwhile\n"
"  --hosts     the hosts listed in $XDG_CONFIG_HOME/ward/hosts (one a\n"
"              line, '#' comments); without --host or --hosts: this\n"
"              machine's runs only\n"
"  -h, --help  show this help\n"
"\n"
"q with requests waiting asks first (y leaves; they wait for another\n"
"console, then are denied).\n"
"\n"
"Exit status: 0 after q, 1 when the run's supervisor went away or there is\n"
"no such run (or, without RUN, no live run), 2 usage.\n";

struct console_host;

struct console {
	struct model	*m;
	struct proto_conn *conn;	/* NULL once dropped */
	/* A run of another host: conn is that host's link (not ours to
	 * free), each message sent in an envelope naming relay_run. */
	struct console_host *host;
	const char	*relay_run;	/* the fleet's key of the run */
	bool		 desktop;
	bool		 exit_with_run;
	int		 sent_rows;	/* the pty size last sent */
	int		 sent_cols;
	bool		 resent;	/* said again once it went full screen */
	int		 summaries;	/* end-of-run summaries read (0..2) */
	bool		 view;		/* --view */
	struct hook	*hook;		/* [console] notify_cmd, or NULL */
	unsigned	 notify_after;	/* seconds */
	bool		 prefix_read;	/* the settings' prefix looked for */
	bool		 behind;	/* the last read stopped with more to read */
};

static void
console_drop(struct console *c, const char *why)
{
	if (c->host == NULL)
		proto_conn_free(c->conn);
	c->conn = NULL;
	model_set_disconnected(c->m, why);
}

static void
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

static void
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

static void
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
static void
console_flush(struct console *c)
{
	if (screen_flush_input()) {
		console_flushed = true;
		if (c != NULL)
			model_note_key(c->m, 0, now_mono_ms());
	}
}

/* Text is being typed into the selected run's prompt. */
static bool
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
static void
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
static void
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
static void
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

static void
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

/* ------------------------------------------------------------------ */
/*
 * Every run (ward console without RUN): a connection per run, each run's
 * struct console (its model and its connection) at the same index as
 * the fleet's runs. A connection per run rather than one per-user place
 * the supervisors publish to: each supervisor already is the one place
 * that knows its run, checks its peer (SO_PEERCRED) and decides who
 * answered first; a shared publish point would be a second authority to
 * keep in step, and a daemon ward does not otherwise need. The runs
 * folder is listed again each second (ctl_list) rather than watched by
 * inotify: a socket file that exists may not answer yet (or any more),
 * and the listing asks each one, which also finds a supervisor that came
 * back on its socket (the run reconnected, its model said afresh).
 */
/*
 * Another host (ward console --host): one `ssh HOST ward relay` carries
 * all its runs, each message in an envelope naming its run (tui/relay.h).
 * Its runs are listed by relay_runs asked each second (the answer comes
 * on the stream like any message); when the link breaks, its runs show
 * "host gone" and nothing is sent to them (their requests wait out their
 * deadlines on their own host), and the link is tried again after a
 * back-off (hosts_backoff: 1 s doubling to 30 s; back to 1 s once the
 * relay has answered).
 */
struct console_host {
	char		*name;
	struct relay_client *rc;	/* NULL while down */
	struct proto_conn *conn;	/* rc's stream */
	int64_t		 next_try;	/* mono ms: when to start ssh again */
	int64_t		 delay;		/* the back-off last waited (0 once
					 * the relay has listed its runs) */
};

struct console_fleet {
	struct fleet	*f;
	struct console	*cs;		/* cs[i] is f->runs[i]'s */
	struct console_host *hosts;
	size_t		 n_hosts;
	enum agent_mode	 agent;
	int		 prefix;
	bool		 desktop;
};

static void
console_fleet_dial(struct console_fleet *cf, size_t i)
{
	struct console *c = &cf->cs[i];
	cleanup_free char *cause = NULL;
	int fd = -1;

	*c = (struct console){ .m = cf->f->runs[i].m, .desktop = cf->desktop };
	model_set_agent(c->m, cf->agent, cf->prefix);
	model_set_now(c->m, now_mono_ms(), now_wall_ms());
	if (ctl_connect(cf->f->runs[i].key, &fd, &cause) < 0) {
		model_set_disconnected(c->m, cause != NULL ? cause :
		    "cannot connect");
		cf->f->runs[i].gone = true;
		return;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	c->conn = proto_conn_new(fd);
	console_send(c, msg_hello("console", true));
}

static void
console_fleet_add(struct console_fleet *cf, const char *id)
{
	size_t i = fleet_add(cf->f, id);

	cf->cs = xreallocarray(cf->cs, cf->f->n_runs, sizeof *cf->cs);
	console_fleet_dial(cf, i);
}

/* New runs join; a run whose supervisor went without ending is dialled
 * again when its socket answers, else marked gone. */
static void
console_fleet_scan(struct console_fleet *cf)
{
	cleanup_strv char **ids = NULL;
	struct fleet *f = cf->f;
	size_t n = 0;

	if (ctl_list(&ids, &n) < 0)
		return;
	for (size_t k = 0; k < n; k++) {
		ssize_t i = fleet_find(f, ids[k]);

		if (i < 0) {
			console_fleet_add(cf, ids[k]);
		} else if (cf->cs[i].conn == NULL &&
		    !model_run_ended(f->runs[i].m)) {
			fleet_reset(f, (size_t)i);
			console_fleet_dial(cf, (size_t)i);
		}
	}
	for (size_t i = 0; i < f->n_runs; i++) {
		bool listed = false;

		if (f->runs[i].host != NULL)
			continue;
		for (size_t k = 0; k < n && !listed; k++)
			listed = strcmp(ids[k], f->runs[i].key) == 0;
		if (!listed && cf->cs[i].conn == NULL)
			f->runs[i].gone = true;
	}
}

/* ---- runs of other hosts ---- */

static void
console_remote_dial(struct console_fleet *cf, struct console_host *h,
    size_t i)
{
	struct console *c = &cf->cs[i];

	*c = (struct console){ .m = cf->f->runs[i].m, .desktop = cf->desktop,
	    .host = h, .relay_run = cf->f->runs[i].key, .conn = h->conn };
	model_set_agent(c->m, cf->agent, cf->prefix);
	model_set_now(c->m, now_mono_ms(), now_wall_ms());
	if (c->conn == NULL) {
		model_set_disconnected(c->m, "host gone");
		cf->f->runs[i].host_gone = true;
		return;
	}
	console_send(c, msg_hello("console", true));
}

/* The relay's list of its live runs: new ones join, one that came back
 * is said afresh, one no longer listed and not connected is gone. */
static void
console_remote_runs(struct console_fleet *cf, struct console_host *h,
    char **ids, size_t n)
{
	struct fleet *f = cf->f;

	h->delay = 0;
	fleet_host_set(f, h->name, true);
	for (size_t k = 0; k < n; k++) {
		ssize_t i = fleet_find_on(f, h->name, ids[k]);

		if (i < 0) {
			i = (ssize_t)fleet_add_on(f, h->name, ids[k]);
			cf->cs = xreallocarray(cf->cs, f->n_runs,
			    sizeof *cf->cs);
			console_remote_dial(cf, h, (size_t)i);
		} else if (cf->cs[i].conn == NULL &&
		    (!model_run_ended(f->runs[i].m) || f->runs[i].host_gone)) {
			fleet_reset(f, (size_t)i);
			console_remote_dial(cf, h, (size_t)i);
		}
	}
	for (size_t i = 0; i < f->n_runs; i++) {
		bool listed = false;

		if (f->runs[i].host == NULL ||
		    strcmp(f->runs[i].host, h->name) != 0)
			continue;
		for (size_t k = 0; k < n && !listed; k++)
			listed = strcmp(ids[k], f->runs[i].key) == 0;
		if (!listed && cf->cs[i].conn == NULL) {
			f->runs[i].gone = true;
			f->runs[i].host_gone = false;
		}
	}
}

static void
console_remote_msg(struct console_fleet *cf, struct console_host *h,
    json_t *msg)
{
	cleanup_free char *cause = NULL;
	const char *run, *err;
	json_t *inner;
	ssize_t i;

	if (msg_type(msg) == MSG_TYPE_RELAY_RUNS) {
		cleanup_strv char **ids = NULL;
		size_t n = 0;

		if (msg_relay_runs_parse(msg, &ids, &n, &cause) == 0)
			console_remote_runs(cf, h, ids, n);
		return;
	}
	if (msg_relay_parse(msg, &run, &inner, &err, &cause) < 0 ||
	    (i = fleet_find_on(cf->f, h->name, run)) < 0)
		return;
	if (inner != NULL) {
		model_apply_message(cf->cs[i].m, inner);
	} else if (cf->cs[i].conn != NULL) {
		cleanup_free char *why = escape_str(err != NULL ? err :
		    "closed");

		console_drop(&cf->cs[i], why);
	}
}

/* The link broke (or never came up): its runs show "host gone", ssh is
 * ended by its pid, and the next try waits out the back-off. */
static void
console_host_down(struct console_fleet *cf, struct console_host *h)
{
	struct fleet *f = cf->f;

	for (size_t i = 0; i < f->n_runs; i++) {
		if (cf->cs[i].host != h)
			continue;
		if (cf->cs[i].conn == NULL)
			continue;
		console_drop(&cf->cs[i], "host gone");
		/* Not the model's "supervisor gone": the run goes on there. */
		if (!model_run_ended(cf->cs[i].m)) {
			cleanup_free char *esc = escape_str(h->name);

			model_message(cf->cs[i].m, MSG_ERROR, "host %s gone: "
			    "its requests wait there until their time is up; "
			    "trying again", esc);
		}
	}
	(void)fleet_host_gone(f, h->name, true);
	fleet_host_set(f, h->name, false);
	/* Runs that ended before the link broke stay as they were. */
	for (size_t i = 0; i < f->n_runs; i++) {
		if (cf->cs[i].host == h && f->runs[i].gone)
			f->runs[i].host_gone = false;
	}
	(void)relay_client_kill(h->rc);
	h->rc = NULL;
	h->conn = NULL;
	h->delay = hosts_backoff(h->delay);
	h->next_try = now_mono_ms() + h->delay;
}

static void
console_host_ask(struct console_host *h)
{
	json_t *ask = msg_relay_runs(NULL, 0);
	int e = proto_send(h->conn, ask);

	json_decref(ask);
	if (e == 0 && (e = proto_flush(h->conn)) == -EAGAIN)
		e = 0;
	(void)e;	/* a broken link shows as EOF on the next read */
}

static void
console_host_up(struct console_fleet *cf, struct console_host *h)
{
	cleanup_free char *cause = NULL;
	int fd;

	if (relay_client_start(h->name, true, &h->rc, &cause) < 0) {
		h->rc = NULL;
		console_host_down(cf, h);
		return;
	}
	h->conn = relay_client_conn(h->rc);
	fd = proto_conn_fd(h->conn);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	console_host_ask(h);
}

static void
console_host_read(struct console_fleet *cf, struct console_host *h)
{
	cleanup_free char *cause = NULL;
	json_t *msg;
	ssize_t n;
	int r;

	n = proto_read_some(h->conn, 16);
	if (n < 0 && n != -EAGAIN && n != -EINTR) {
		console_host_down(cf, h);
		return;
	}
	while ((r = proto_next(h->conn, &msg, &cause)) == 1) {
		console_remote_msg(cf, h, msg);
		json_decref(msg);
	}
	if (r < 0 || proto_eof(h->conn))
		console_host_down(cf, h);
}

/* Each host's link: read, flush, started again when its back-off is up,
 * asked for its runs at each scan. */
static void
console_hosts_io(struct console_fleet *cf, const struct pollfd *pfd,
    bool scan)
{
	int64_t now = now_mono_ms();

	for (size_t k = 0; k < cf->n_hosts; k++) {
		struct console_host *h = &cf->hosts[k];
		short rev = pfd[k].revents;

		if (h->conn == NULL) {
			if (now >= h->next_try)
				console_host_up(cf, h);
			continue;
		}
		if (rev & POLLOUT) {
			int e = proto_flush(h->conn);

			if (e < 0 && e != -EAGAIN) {
				console_host_down(cf, h);
				continue;
			}
		}
		if (rev & (POLLIN | POLLHUP | POLLERR))
			console_host_read(cf, h);
		if (scan && h->conn != NULL)
			console_host_ask(h);
	}
}

/* Runs the person dismissed (X on an ended run) go, connection and all. */
static void
console_fleet_sweep(struct console_fleet *cf)
{
	struct fleet *f = cf->f;

	for (size_t i = f->n_runs; i-- > 0;) {
		if (!f->runs[i].dismissed)
			continue;
		if (cf->cs[i].host == NULL)
			proto_conn_free(cf->cs[i].conn);
		memmove(cf->cs + i, cf->cs + i + 1,
		    (f->n_runs - i - 1) * sizeof *cf->cs);
		fleet_remove(f, i);
		/* The models stay where they were; the pointers follow. */
		for (size_t k = 0; k < f->n_runs; k++) {
			cf->cs[k].m = f->runs[k].m;
			cf->cs[k].relay_run = f->runs[k].key;
		}
	}
}

static void
console_fleet_io(struct console_fleet *cf, const struct pollfd *pfd,
    size_t polled, bool scan)
{
	struct fleet *f = cf->f;

	/* pfd: the terminal, the polled runs, then the hosts. */
	for (size_t i = 0; i < polled && i < f->n_runs; i++) {
		struct console *c = &cf->cs[i];

		if (c->host != NULL)
			continue;
		if (c->conn != NULL && (pfd[i + 1].revents & POLLOUT)) {
			int e = proto_flush(c->conn);

			if (e < 0 && e != -EAGAIN)
				console_drop(c, strerror(-e));
		}
		if (c->conn != NULL &&
		    (pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
			console_read(c);
	}
	/* The runs a host's list adds are polled from the next round. */
	console_hosts_io(cf, pfd + 1 + polled, scan);
	fleet_refresh(f);
	for (size_t i = 0; i < f->n_runs; i++)
		console_alerts(&cf->cs[i], console_typing(fleet_model(f)));
	desktop_poll();
}

/* A group answer across runs: each run's decides on its connection. */
static void
console_fleet_sends(struct console_fleet *cf)
{
	struct fleet *f = cf->f;

	for (size_t k = 0; k < f->n_sends; k++) {
		const struct fleet_send *s = &f->sends[k];
		struct model_effect eff = { .kind = EFFECT_DECIDE_MANY,
		    .verdict = s->verdict, .scope = SCOPE_ONCE,
		    .requests = s->ids, .n_requests = s->n };

		if (s->run < f->n_runs)
			console_effect(&cf->cs[s->run], &eff);
	}
	fleet_sends_done(f);
}

static void
console_fleet_keys(struct console_fleet *cf)
{
	struct fleet *f = cf->f;
	struct model_effect held;
	size_t held_run;
	int64_t at;
	bool burst, changed;
	int key;

	/* The time a held approve is judged at: before the terminal is
	 * read (model_tick). */
	fleet_set_now(f, now_mono_ms(), now_wall_ms());
	if (console_flushed)
		fleet_note_key(f, 0, now_mono_ms());
	console_flushed = false;
	while (!f->quit && (key = screen_key_at(&at, &burst)) != -1) {
		struct model_effect eff;
		struct model *m = fleet_model(f);
		bool moved = false;
		size_t run;

		if (key == KEYS_MOUSE) {
			int my, mx, mb;
			bool mp;

			if (screen_mouse_event(&my, &mx, &mb, &mp) &&
			    m != NULL && fleet_overlay(f))
				model_apply_mouse(m, my, mx, mb, mp);
			continue;
		}
		if (keys_action(key) == ACTION_REDRAW &&
		    !(m != NULL && m->agent && m->focus == PANE_AGENT))
			screen_invalidate();
		fleet_apply_key(f, key, at, burst, &eff, &run, &moved);
		if (run < f->n_runs)
			console_effect(&cf->cs[run], &eff);
		console_fleet_sends(cf);
		fleet_refresh(f);
		if (moved) {
			console_flush(NULL);
			fleet_note_key(f, 0, now_mono_ms());
			break;
		}
	}
	console_flushed = false;
	changed = fleet_tick(f, &held, &held_run);
	if (changed)
		console_effect(&cf->cs[held_run], &held);
	/* A group's allow, its silence over (fleet_tick), goes per run. */
	if (f->n_sends > 0) {
		console_fleet_sends(cf);
		changed = true;
	}
	/* The queue again only when an answer went: console_fleet_io
	 * refreshes it every round already. */
	if (changed)
		fleet_refresh(f);
	for (size_t i = 0; i < f->n_runs; i++) {
		if (i == f->sel)
			console_input(&cf->cs[i]);
		else
			vt_output_clear(cf->cs[i].m->vt);
	}
}

/* The terminal, each run's connection (-1 for a run of another host:
 * its host's link carries it), then each host's link. */
static struct pollfd *
console_fleet_pollfds(struct console_fleet *cf, struct pollfd *pfd)
{
	struct fleet *f = cf->f;
	size_t at = 1;

	pfd = xreallocarray(pfd, 1 + f->n_runs + cf->n_hosts, sizeof *pfd);
	pfd[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	for (size_t i = 0; i < f->n_runs; i++, at++) {
		struct proto_conn *conn = cf->cs[i].conn;

		pfd[at] = (struct pollfd){ .fd = -1, .events = POLLIN };
		if (conn == NULL || cf->cs[i].host != NULL)
			continue;
		pfd[at].fd = proto_conn_fd(conn);
		if (proto_want_write(conn))
			pfd[at].events |= POLLOUT;
	}
	for (size_t k = 0; k < cf->n_hosts; k++, at++) {
		struct proto_conn *conn = cf->hosts[k].conn;

		pfd[at] = (struct pollfd){ .fd = -1, .events = POLLIN };
		if (conn == NULL)
			continue;
		pfd[at].fd = proto_conn_fd(conn);
		if (proto_want_write(conn))
			pfd[at].events |= POLLOUT;
	}
	return pfd;
}

/*
 * WARD_FRAME_LOG=FILE (for make bench): one line per frame of the fleet
 * console, "MONO_MS FRAME_US ROUND_US RUNS PENDING FRAME_CPU_US",
 * appended: FRAME_US is the queue rebuilt and the screen drawn, ROUND_US
 * the whole round after poll (messages, keys, the scan of new runs, the
 * frame), FRAME_CPU_US the console's own CPU time in the frame (the rest
 * of FRAME_US it waited for a CPU). A debug aid only; nothing is written
 * without the variable.
 */
static FILE *
console_frame_log(void)
{
	static FILE *f;
	static bool tried;
	const char *path;

	if (tried)
		return f;
	tried = true;
	if ((path = getenv("WARD_FRAME_LOG")) == NULL || path[0] == '\0')
		return NULL;
	if ((f = fopen(path, "ae")) != NULL)
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static int64_t
console_clock_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t
console_now_us(void)
{
	return console_clock_us(CLOCK_MONOTONIC);
}

static void
console_fleet_loop(struct console_fleet *cf)
{
	struct fleet *f = cf->f;
	struct pollfd *pfd = NULL;
	struct grid *g = NULL;
	int64_t next_tick = now_mono_ms();
	int64_t next_scan = next_tick + CONSOLE_SCAN_MS, next_diff = 0;
	int w, h;

	screen_size(&w, &h);
	g = grid_new(w, h);
	while (!f->quit && console_signal == 0) {
		int64_t now = now_mono_ms(), due, t_round, t_frame, cpu_frame;
		size_t polled = f->n_runs;
		struct model *m;
		bool scan;

		pfd = console_fleet_pollfds(cf, pfd);
		due = next_tick < next_scan ? next_tick : next_scan;
		/* A held approve is sent when its silence ends: wake then. */
		if (fleet_due(f) != 0 && fleet_due(f) < due)
			due = fleet_due(f);
		if (poll(pfd, 1 + polled + cf->n_hosts,
		    (int)(due > now ? due - now : 0)) < 0 && errno != EINTR)
			break;
		t_round = console_now_us();
		fleet_set_now(f, now_mono_ms(), now_wall_ms());
		/* Confirmed and closed rows leave; the queue is made again
		 * (console_fleet_io) before anything reads it. */
		for (size_t i = 0; i < f->n_runs; i++)
			model_fates_tick(f->runs[i].m);
		if (now_mono_ms() >= next_tick)
			next_tick = now_mono_ms() + CONSOLE_TICK_MS;
		scan = now_mono_ms() >= next_scan;
		/* Before reading keys: those typed before a new request
		 * appeared in any run are thrown away there. */
		console_fleet_io(cf, pfd, polled, scan);
		console_fleet_keys(cf);
		if (f->quit)
			break;
		if (scan) {
			console_fleet_scan(cf);
			next_scan = now_mono_ms() + CONSOLE_SCAN_MS;
		}
		console_fleet_sweep(cf);
		t_frame = console_now_us();
		/* A system call, not the vDSO: only for the frame log. */
		cpu_frame = console_frame_log() != NULL ?
		    console_clock_us(CLOCK_THREAD_CPUTIME_ID) : 0;
		fleet_refresh(f);
		m = fleet_model(f);
		if (m != NULL && m->diff.open && now_mono_ms() >= next_diff &&
		    cf->cs[f->sel].host == NULL) {
			diffcmd_pane_load(m, m->run.id);
			next_diff = now_mono_ms() + 1000;
		}

		screen_size(&w, &h);
		if (w != g->w || h != g->h)
			grid_resize(g, w, h);
		view_fleet_draw(f, g, f->reps);
		screen_draw(g);
		if (console_frame_log() != NULL) {
			int64_t t_end = console_now_us();

			fprintf(console_frame_log(), "%" PRId64 " %" PRId64
			    " %" PRId64 " %zu %zu %" PRId64 "\n", now_mono_ms(),
			    t_end - t_frame, t_end - t_round, f->n_runs,
			    f->n_pending, console_clock_us(
			    CLOCK_THREAD_CPUTIME_ID) - cpu_frame);
		}
		/* Arming counts from here: the requests are on the terminal. */
		fleet_set_now(f, now_mono_ms(), now_wall_ms());
		fleet_note_view(f);
		if (m != NULL)
			console_resize(&cf->cs[f->sel]);
		screen_mouse(m != NULL && fleet_overlay(f) &&
		    model_wants_mouse(m));
	}
	free(pfd);
	grid_free(g);
}

/* What is left waiting, said once after leaving. */
static void
console_fleet_leave(const struct fleet *f)
{
	size_t runs = 0, waiting = 0;

	for (size_t i = 0; i < f->n_runs; i++) {
		size_t n = fleet_run_pending(f, i);

		if (n > 0 && !fleet_run_ended(f, i)) {
			runs++;
			waiting += n;
		}
	}
	if (waiting > 0)
		fprintf(stderr, "ward: %zu request%s still wait%s in %zu "
		    "run%s; they are denied when their time is up; 'ward "
		    "console' shows them again\n", waiting,
		    waiting == 1 ? "" : "s", waiting == 1 ? "s" : "",
		    runs, runs == 1 ? "" : "s");
}

static int
console_every(const struct console_opts *opts, char **ids, size_t n)
{
	/* Output lines unless --agent: a run's full-screen program would
	 * otherwise take the screen whenever its run is selected; v shows
	 * the selected run's agent pane. */
	struct console_fleet cf = { .agent = opts->agent == AGENT_AUTO ?
	    AGENT_OFF : opts->agent };
	cleanup_free char *why = NULL;
	int status = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ward console: needs a terminal\n");
		return 1;
	}
	cf.f = fleet_new();
	cf.prefix = console_prefix();
	cf.desktop = desktop_available();
	for (size_t i = 0; i < n; i++)
		console_fleet_add(&cf, ids[i]);
	cf.hosts = xcalloc(opts->n_hosts + 1, sizeof *cf.hosts);
	for (size_t k = 0; k < opts->n_hosts; k++) {
		cf.hosts[k].name = xstrdup(opts->hosts[k]);
		console_host_up(&cf, &cf.hosts[cf.n_hosts++]);
	}
	fleet_refresh(cf.f);

	setlocale(LC_CTYPE, "");
	console_signals();
	if (screen_init(&why) < 0) {
		fprintf(stderr, "ward console: %s; the console needs a "
		    "terminal with cursor addressing (e.g. "
		    "TERM=xterm-256color)\n", why != NULL ? why :
		    "cannot start the terminal");
		status = 1;
	} else {
		console_fleet_loop(&cf);
		screen_done();
		desktop_done();
		console_fleet_leave(cf.f);
		if (console_signal != 0)
			status = 128 + console_signal;
	}
	for (size_t i = 0; i < cf.f->n_runs; i++) {
		if (cf.cs[i].host == NULL)
			proto_conn_free(cf.cs[i].conn);
	}
	/* Our ssh children, each ended by its pid. */
	for (size_t k = 0; k < cf.n_hosts; k++) {
		(void)relay_client_kill(cf.hosts[k].rc);
		free(cf.hosts[k].name);
	}
	free(cf.hosts);
	free(cf.cs);
	fleet_free(cf.f);
	return status;
}

const struct option console_opts_table[] = {
	{ "view", no_argument, NULL, 'V' },
	{ "agent", no_argument, NULL, 'A' },
	{ "lines", no_argument, NULL, 'L' },
	{ "host", required_argument, NULL, 'H' },
	{ "hosts", no_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
console_main(int argc, char **argv)
{
	struct console_opts opts = { 0 };
	cleanup_strv char **ids = NULL, **hosts = NULL;
	size_t n = 0, n_hosts = 0;
	bool from_file = false;
	int i, e, c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", console_opts_table,
	    NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(console_usage, stdout);
			return 0;
		case 'V':
			opts.view = true;
			break;
		case 'A':
			opts.agent = AGENT_ON;
			break;
		case 'L':
			opts.agent = AGENT_OFF;
			break;
		case 'H': {
			cleanup_free char *cause = NULL, *esc = NULL;

			if (hosts_add(optarg, &hosts, &n_hosts, &cause) == 0)
				break;
			esc = escape_str(cause);
			fprintf(stderr, "ward console: --host: %s\n", esc);
			return 2;
		}
		case 'F':
			from_file = true;
			break;
		default: {
			cleanup_free char *esc = escape_str(argv[optind - 1]);

			fprintf(stderr, "ward console: unknown option '%s'; "
			    "see 'ward console --help'\n", esc);
			return 2;
		}
		}
	}
	i = optind;
	for (; i < argc; i++) {
		if (opts.run != NULL) {
			fprintf(stderr, "ward console: one run at a time; see "
			    "'ward console --help'\n");
			return 2;
		}
		opts.run = argv[i];
	}
	if (from_file) {
		cleanup_free char *cause = NULL, *esc = NULL;

		if (hosts_load(NULL, &hosts, &n_hosts, &cause) < 0) {
			esc = escape_str(cause);
			fprintf(stderr, "ward console: %s\n", esc);
			return 1;
		}
		if (n_hosts == 0) {
			fprintf(stderr, "ward console: --hosts: no host in "
			    "$XDG_CONFIG_HOME/ward/hosts (one a line)\n");
			return 1;
		}
	}
	if (n_hosts > 0 && opts.run != NULL) {
		fprintf(stderr, "ward console: --host shows every run; it "
		    "takes no RUN\n");
		return 2;
	}
	opts.hosts = hosts;
	opts.n_hosts = n_hosts;
	if (opts.run == NULL) {
		if ((e = ctl_list(&ids, &n)) < 0) {
			fprintf(stderr, "ward console: cannot list runs: %s\n",
			    strerror(-e));
			return 1;
		}
		if (n == 0 && n_hosts == 0) {
			fprintf(stderr, "ward console: no live runs\n");
			return 1;
		}
		return console_every(&opts, ids, n);
	}
	return console_attach(&opts);
}
