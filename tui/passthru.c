/* SPDX-License-Identifier: MIT */
#include "tui/passthru.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/desktop.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/finished.h"
#include "tui/model.h"

static volatile sig_atomic_t passthru_winch;
static volatile sig_atomic_t passthru_signal;

static void
passthru_on_winch(int sig)
{
	(void)sig;
	passthru_winch = 1;
}

static void
passthru_on_signal(int sig)
{
	passthru_signal = sig;
}

struct passthru {
	struct proto_conn *conn;	/* NULL once dropped */
	struct model	*m;		/* the run's state, for its end */
	struct termios	 saved;
	bool		 raw;		/* stdin put in raw mode */
	bool		 keys;		/* stdin still read */
	bool		 desktop;	/* notifications go out */
	int		 size_fd;	/* the terminal whose size we send */
	bool		 output;	/* the program's first output came */
	bool		 resent;	/* and the size was said again after it */
};

static void
passthru_send(struct passthru *p, json_t *msg)
{
	int e;

	/* A flush that would block is finished on POLLOUT. */
	if (p->conn != NULL && ((e = proto_send(p->conn, msg)) < 0 ||
	    ((e = proto_flush(p->conn)) < 0 && e != -EAGAIN))) {
		proto_conn_free(p->conn);
		p->conn = NULL;
	}
	json_decref(msg);
}

static void
passthru_size(struct passthru *p)
{
	struct winsize ws;

	passthru_winch = 0;
	if (p->size_fd < 0 || ioctl(p->size_fd, TIOCGWINSZ, &ws) < 0 ||
	    ws.ws_row == 0 || ws.ws_col == 0)
		return;
	passthru_send(p, msg_resize(ws.ws_row > MSG_WINSIZE_MAX ?
	    MSG_WINSIZE_MAX : ws.ws_row, ws.ws_col > MSG_WINSIZE_MAX ?
	    MSG_WINSIZE_MAX : ws.ws_col));
}

/* stdin raw: every byte the person types is the program's, ^C included
 * (its pty makes the signal). Restored by passthru_restore(). */
static void
passthru_raw(struct passthru *p)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &p->saved) < 0)
		return;
	t = p->saved;
	cfmakeraw(&t);
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) == 0)
		p->raw = true;
}

static void
passthru_restore(struct passthru *p)
{
	if (p->raw)
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &p->saved);
	p->raw = false;
}

/* The program's bytes, as they came: its terminal is ours. */
static void
passthru_output(const json_t *msg)
{
	struct msg_output o;

	if (msg_output_parse(msg, &o, NULL) < 0)
		return;
	(void)write_all(STDOUT_FILENO, o.data, o.len);
	msg_output_done(&o);
}

static void
passthru_read(struct passthru *p)
{
	json_t *msg;
	ssize_t n;
	int r;

	n = proto_read_some(p->conn, 16);
	while ((r = proto_next(p->conn, &msg, NULL)) == 1) {
		if (msg_type(msg) == MSG_TYPE_OUTPUT) {
			passthru_output(msg);
			p->output = true;
		} else
			(void)model_apply_message(p->m, msg);
		json_decref(msg);
	}
	if (r < 0 || (n < 0 && n != -EAGAIN && n != -EINTR) ||
	    proto_eof(p->conn)) {
		proto_conn_free(p->conn);
		p->conn = NULL;
		return;
	}
	/* The size once more, as the console does: the program may have
	 * read its size before the first one reached it, and set its
	 * SIGWINCH handler after the signal came; by its first output it
	 * has done both. */
	if (p->output && !p->resent) {
		p->resent = true;
		passthru_size(p);
	}
}

static void
passthru_keys(struct passthru *p)
{
	char buf[4096];
	ssize_t n = read(STDIN_FILENO, buf, sizeof buf);

	if (n > 0)
		passthru_send(p, msg_input(buf, (size_t)n));
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		p->keys = false;
}

/* A new request: a desktop notification where there is a desktop (never
 * the bell, never a byte on the program's terminal). */
static void
passthru_alerts(struct passthru *p)
{
	struct model_alerts a;
	const struct pending *r;

	model_take_alerts(p->m, &a);
	if (a.notify == 0 || !p->desktop ||
	    (r = model_pending_find(p->m, a.notify)) == NULL)
		return;
	{
		cleanup_free char *summary = xasprintf("ward: run %s waits for "
		    "you", p->m->run.id);
		cleanup_free char *body = xasprintf("#%" PRIu64 " %s %s\nby %s\n"
		    "answer with: ward console --lines %s", r->id,
		    request_kind_name(r->kind), r->subject, r->cmdline,
		    p->m->run.id);

		if (desktop_notify(summary, body) == -ENOTSUP)
			p->desktop = false;
	}
}

static void
passthru_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() must come back and see the flags. */
	sa.sa_handler = passthru_on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = passthru_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void
passthru_loop(struct passthru *p)
{
	while (p->conn != NULL && passthru_signal == 0 &&
	    !model_run_ended(p->m)) {
		struct pollfd pfd[2] = {
			{ .fd = proto_conn_fd(p->conn), .events = POLLIN },
			{ .fd = p->keys ? STDIN_FILENO : -1, .events = POLLIN },
		};
		int e;

		if (proto_want_write(p->conn))
			pfd[0].events |= POLLOUT;
		if (passthru_winch)
			passthru_size(p);
		if (poll(pfd, 2, 1000) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		model_set_now(p->m, now_mono_ms(), now_wall_ms());
		if ((pfd[0].revents & POLLOUT) &&
		    (e = proto_flush(p->conn)) < 0 && e != -EAGAIN) {
			proto_conn_free(p->conn);
			p->conn = NULL;
			break;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			passthru_read(p);
		passthru_alerts(p);
		desktop_poll();
		if (p->conn != NULL &&
		    (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			passthru_keys(p);
	}
}

/*
 * A run that did not end by itself (killed, timed out) left the terminal
 * as its program had set it: the alternate screen, a hidden cursor, the
 * mouse and bracketed paste on. They are set back; a program that exited
 * by itself has done so on its own.
 */
static void
passthru_reset(const struct passthru *p)
{
	static const char reset[] = "\033[0m\033[?1049l\033[?25h\033[?1000l"
	    "\033[?1002l\033[?1003l\033[?1006l\033[?2004l\r\n";
	const char *why = p->m->run.end_reason;

	if (!model_run_ended(p->m) || !isatty(STDOUT_FILENO) ||
	    (p->m->run.exit_signal == 0 && why != NULL &&
	    strcmp(why, "exit") == 0))
		return;
	(void)write_all(STDOUT_FILENO, reset, sizeof reset - 1);
}

int
passthru_run(const char *run)
{
	struct passthru p = { .keys = true, .size_fd = -1 };
	cleanup_free char *cause = NULL;
	cleanup_free char *esc = escape_str(run);
	int fd = -1, e, status;

	if ((e = ctl_connect(run, &fd, &cause)) < 0) {
		cleanup_free char *c = escape_str(cause != NULL ? cause :
		    strerror(-e));

		fprintf(stderr, "ward: cannot attach to run %s: %s\n", esc, c);
		return 125;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	p.conn = proto_conn_new(fd);
	p.m = model_new();
	p.desktop = desktop_available();
	p.size_fd = isatty(STDOUT_FILENO) ? STDOUT_FILENO :
	    isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
	/* The one line ward says: after it, the terminal is the program's. */
	fprintf(stderr, "ward: run %s has this terminal (pass-through); "
	    "answer its requests with 'ward console --lines %s' in another "
	    "one (or 'ward approve %s ID')\n", esc, esc, esc);
	passthru_send(&p, msg_hello("relay", true));
	passthru_size(&p);
	passthru_signals();
	passthru_raw(&p);
	passthru_loop(&p);
	passthru_restore(&p);
	passthru_reset(&p);
	desktop_done();
	if (model_run_ended(p.m))
		status = model_exit_status(p.m, true);
	else if (passthru_signal != 0)
		status = 128 + passthru_signal;
	else
		status = 125;
	if (!model_run_ended(p.m)) {
		cleanup_free char *staged = finished_staged_text(run);

		fprintf(stderr, "ward: %s; run %s goes on: 'ward console %s' "
		    "attaches to it\n", passthru_signal != 0 ? "left" :
		    "the run's supervisor went away", esc, esc);
		if (staged != NULL)
			fprintf(stderr, "ward: run %s so far: %s\n", esc,
			    staged);
	} else if (finished_summary(p.m, run, NULL) == 0 &&
	    p.m->have_summary && p.m->summary.staged > 0) {
		/* The program's screen is gone; what it left staged is the
		 * one thing ward says at the end (issue 30, point 1). */
		cleanup_free char *leave = model_leave_text(p.m);

		if (leave != NULL)
			fprintf(stderr, "%s\n", leave);
	}
	proto_conn_free(p.conn);
	model_free(p.m);
	return status;
}
