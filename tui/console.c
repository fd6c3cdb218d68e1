#include "tui/console.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/msg.h"
#include "approvals/desktop.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/policy.h"
#include "config/util.h"
#include "tui/diffcmd.h"
#include "tui/grid.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "tui/vt.h"

/* Countdowns move once a second; a quarter keeps them honest. */
#define CONSOLE_TICK_MS 250
/* While the program floods its output: reading takes up to this long a
 * round (then the keys), and frames come at most this often, so that the
 * console keeps up with the supervisor, which drops a console that falls
 * 8 MiB behind (approvals/proto.h). */
#define CONSOLE_READ_MS 8
#define CONSOLE_FRAME_MS 33

static volatile sig_atomic_t console_signal;

static void
console_on_signal(int sig)
{
	console_signal = sig;
}

static const char console_usage[] =
"Usage: ward console [--agent|--lines] [RUN]\n"
"\n"
"Attach to a live run: its output, the requests waiting on a person, and\n"
"its state. Without RUN, attaches to the only live run.\n"
"\n"
"Keys: a allow once (only after the request has been on screen for half a\n"
"second), d deny, Enter show the whole request (it never approves),\n"
"K kill the run (asks y/n), Tab switch pane, j/k move, ? help, q leave.\n"
"Leaving does not stop the run; attach again with 'ward console RUN'.\n"
"\n"
"The agent pane: a full-screen program (one that switches to the\n"
"alternate screen) is shown as it draws itself, and keys go to it; the\n"
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
"  -h, --help  show this help\n"
"\n"
"Exit status: 0 after q, 1 when the run's supervisor went away or there is\n"
"no such run, 2 usage (or several live runs and none named).\n";

struct console {
	struct model	*m;
	struct proto_conn *conn;	/* NULL once dropped */
	bool		 desktop;
	bool		 exit_with_run;
	int		 sent_rows;	/* the pty size last sent */
	int		 sent_cols;
	bool		 resent;	/* said again once it went full screen */
	bool		 prefix_read;	/* the settings' prefix looked for */
	bool		 behind;	/* the last read stopped with more to read */
};

static void
console_drop(struct console *c, const char *why)
{
	proto_conn_free(c->conn);
	c->conn = NULL;
	model_set_disconnected(c->m, why);
}

static void
console_send(struct console *c, json_t *msg)
{
	int e;

	if (c->conn == NULL) {
		model_message(c->m, MSG_ERROR, "not connected");
	} else if ((e = proto_send(c->conn, msg)) < 0) {
		console_drop(c, strerror(-e));
	} else if ((e = proto_flush(c->conn)) < 0 && e != -EAGAIN) {
		console_drop(c, strerror(-e));
	}
	json_decref(msg);
}

static void
console_effect(struct console *c, const struct model_effect *eff)
{
	switch (eff->kind) {
	case EFFECT_NONE:
	case EFFECT_QUIT:
		return;
	case EFFECT_DECIDE:
		console_send(c, msg_decide(eff->request, eff->verdict,
		    SCOPE_ONCE, NULL));
		return;
	case EFFECT_KILL:
		console_send(c, msg_kill());
		return;
	case EFFECT_DIFF_LOAD:
		diffcmd_pane_load(c->m, c->m->run.id);
		return;
	}
}

static void
console_read(struct console *c)
{
	cleanup_free char *cause = NULL;
	json_t *msg;
	ssize_t n = 0;
	int64_t start = now_mono_ms();
	int r;

	/* A bounded time of reading a round: a program that floods its
	 * output must not keep the keys (and `K`) from being read, nor
	 * the console from keeping up. */
	c->behind = false;
	do {
		for (int i = 0; i < 16 && (n = proto_read(c->conn)) > 0; i++)
			;
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

static void
console_alerts(struct console *c)
{
	struct model_alerts a;
	const struct pending *p;

	model_take_alerts(c->m, &a);
	if (a.flush)
		screen_flush_input();
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

/* What the agent pane has for the program: keys, and the emulator's
 * answers to its queries (sent only while the pane is shown, so that a
 * second console in line view does not answer twice). */
static void
console_input(struct console *c)
{
	size_t n, off = 0;
	const char *o = vt_output(c->m->vt, &n);

	while (c->m->agent && c->conn != NULL && !model_run_ended(c->m) &&
	    off < n) {
		size_t k = n - off > MSG_INPUT_MAX ? MSG_INPUT_MAX : n - off;

		console_send(c, msg_input(o + off, k));
		off += k;
	}
	vt_output_clear(c->m->vt);
}

/* The pty takes the pane's size: while the pane is shown, and from the
 * start for the run's own console (`ward run`), so that the program
 * starts at the size it will be shown at. */
static void
console_resize(struct console *c)
{
	struct model *m = c->m;

	if (m->agent_rows <= 0 || m->agent_cols <= 0 || c->conn == NULL ||
	    model_run_ended(m))
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
	cleanup_free char *v = NULL, *cause = NULL;
	int key;

	if (policy_console_prefix(path, &v, &cause) < 0) {
		model_message(m, MSG_WARN, "%s; the prefix stays as it was",
		    cause);
		return -1;
	}
	if (v == NULL || keys_parse_prefix(v, &key) < 0)
		return 0;
	m->prefix = key;
	return 1;
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
		int64_t now = now_mono_ms();
		int timeout = (int)(next_tick > now ? next_tick - now : 0);
		bool keyed = false;
		int key;

		if (c->conn != NULL) {
			pfd[1].fd = proto_conn_fd(c->conn);
			if (proto_want_write(c->conn))
				pfd[1].events |= POLLOUT;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		model_set_now(c->m, now_mono_ms(), now_wall_ms());
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
		console_alerts(c);
		desktop_poll();

		while (!c->m->quit && (key = screen_key()) != -1) {
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
			model_apply_key(c->m, key, &eff, &moved);
			console_effect(c, &eff);
			if (moved) {
				/* What was typed after the prefix was meant
				 * for the program, not for the requests. */
				screen_flush_input();
				break;
			}
		}
		console_input(c);
		if (c->m->quit)
			break;
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
	}
	view_report_done(&rep);
	grid_free(g);
}

int
console_attach(const struct console_opts *opts)
{
	struct console c = { .exit_with_run = opts->exit_with_run };
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
	model_set_now(c.m, now_mono_ms(), now_wall_ms());

	console_send(&c, msg_hello("console", true));

	setlocale(LC_CTYPE, "");
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
	status = model_exit_status(c.m, c.exit_with_run);
	if (console_signal != 0 && status == 0)
		status = 128 + console_signal;
	proto_conn_free(c.conn);
	model_free(c.m);
	return status;
}

int
console_main(int argc, char **argv)
{
	struct console_opts opts = { 0 };
	cleanup_strv char **ids = NULL;
	size_t n = 0;
	int i, e;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			fputs(console_usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--agent") == 0 ||
		    strcmp(argv[i], "--lines") == 0) {
			opts.agent = argv[i][2] == 'a' ? AGENT_ON : AGENT_OFF;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			cleanup_free char *esc = escape_str(argv[i]);

			fprintf(stderr, "ward console: unknown option '%s'; "
			    "see 'ward console --help'\n", esc);
			return 2;
		}
		if (opts.run != NULL)
			break;
		opts.run = argv[i];
	}
	for (; i < argc; i++) {
		if (opts.run != NULL) {
			fprintf(stderr, "ward console: one run at a time; see "
			    "'ward console --help'\n");
			return 2;
		}
		opts.run = argv[i];
	}
	if (opts.run == NULL) {
		if ((e = ctl_list(&ids, &n)) < 0) {
			fprintf(stderr, "ward console: cannot list runs: %s\n",
			    strerror(-e));
			return 1;
		}
		if (n == 0) {
			fprintf(stderr, "ward console: no live runs\n");
			return 1;
		}
		if (n > 1) {
			fprintf(stderr, "ward console: %zu live runs; "
			    "name one:\n", n);
			for (size_t k = 0; k < n; k++) {
				cleanup_free char *esc = escape_str(ids[k]);

				fprintf(stderr, "  ward console %s\n", esc);
			}
			return 2;
		}
		opts.run = ids[0];
	}
	return console_attach(&opts);
}
