/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What the console's files share, and no one else: tui/console.c, one
 * run's console (console_attach and its loop); tui/console-fleet.c,
 * every run (ward console without RUN); tui/console-hosts.c, the runs
 * of other hosts in it (--host); tui/console-cmd.c, the command line
 * (console_main), which starts one or the other.
 */
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "tui/model.h"

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

struct console_opts;
struct proto_conn;
struct hook;
struct relay_client;
struct fleet;
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

/* tui/console.c: one run's console, whose parts every run's console
 * uses run by run. console_signal: the signal that ends the console (0
 * none); console_flushed: typeahead was thrown away this round
 * (console_flush). */
extern volatile sig_atomic_t console_signal;
extern bool	 console_flushed;
void	console_drop(struct console *c, const char *why);
void	console_send(struct console *c, json_t *msg);
void	console_read(struct console *c);
void	console_alerts(struct console *c, bool typing);
bool	console_typing(const struct model *m);
void	console_effect(struct console *c, const struct model_effect *eff);
void	console_flush(struct console *c);
void	console_input(struct console *c);
void	console_resize(struct console *c);
void	console_signals(void);

/* tui/console-hosts.c: the links to other hosts. */
void	console_host_up(struct console_fleet *cf, struct console_host *h);
void	console_hosts_io(struct console_fleet *cf, const struct pollfd *pfd,
	    bool scan);

/* tui/console-fleet.c: every run (ward console without RUN). */
int	console_every(const struct console_opts *opts, char **ids, size_t n);
