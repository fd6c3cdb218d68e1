/* SPDX-License-Identifier: MIT */
#include "tui/console-int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/fleet.h"
#include "tui/hosts.h"
#include "tui/relay.h"

/* The runs of other hosts in every run's console (ward console --host):
 * tui/console-int.h says how their links go. */

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

void
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
void
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
