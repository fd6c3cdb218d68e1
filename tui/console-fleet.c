/* SPDX-License-Identifier: MIT */
#include "tui/console-int.h"
#include "tui/console.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/desktop.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/util.h"
#include "tui/diffcmd.h"
#include "tui/fleet.h"
#include "tui/grid.h"
#include "tui/keys.h"
#include "tui/relay.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "tui/vt.h"

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

int
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
