/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What the command-line verbs share (tui/cli*.c; their own header is
 * tui/cli.h): options, the parse, and the link to a live run (directly
 * or through --host's relay).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "approvals/msg.h"
#include "config/util.h"

struct audit;

/* How long a verb waits for a supervisor's answer. */
#define CLI_TIMEOUT_MS	5000

enum cli_opt {
	OPT_HELP = 'h',
	OPT_JSON = 'j',
	OPT_ALL = 'a',
	OPT_REASON = 'r',
	OPT_RAW = 'R',
	OPT_SUMMARY = 's',
	OPT_HEADER = 0x100,
	OPT_NO_HEADER,
	OPT_LONG = 'l',
	OPT_HOST = 'H',
	OPT_SCREEN = 0x102,
};

#define cli_error warn_msg

/* A verb's options, as cli_parse() found them. */
struct cli_flags {
	bool		 json;
	bool		 all;
	const char	*reason;
	bool		 raw;
	bool		 summary;
	int		 header;	/* --header 1, --no-header 0, else -1 */
	bool		 long_form;	/* --long */
	const char	*host;		/* --host: through ssh HOST ward relay */
	bool		 screen;	/* ward output --screen */
	const char	*screen_size;	/* its COLSxROWS, or NULL */
	bool		 done;
};

/* A connection to one live run, after hello/welcome. */
struct cli_conn {
	struct proto_conn *conn;
	json_t		*welcome;	/* as received; w points into it */
	struct msg_welcome w;
	const char	*id;		/* welcome.run.id, or what was asked */
	const char	*asked;		/* the run as named (the relay's key) */
};

/* cli.c: the parse, the words, the link to live runs. */
/*
 * getopt_long over a verb's own argv (argv[0] is the verb). Returns 0 to
 * go on, or the exit status: 0 after --help, 2 on a usage error.
 */
int	 cli_parse(const char *verb, const char *help, const char *shortopts,
	    const struct option *longopts, int argc, char **argv,
	    struct cli_flags *);
char	*cli_esc(const char *);
void	 cli_set(json_t *o, const char *key, json_t *v);
void	 cli_age(int64_t ms, char *buf, size_t len);
void	 cli_wait(int64_t ms, char *buf, size_t len);
bool	 cli_parse_id(const char *, uint64_t *);
int	 cli_relay_open(const char *host);
void	 cli_relay_close(void);
bool	 cli_relayed(void);
int	 cli_call(struct cli_conn *, const json_t *msg, const char *want,
	    json_t **reply, char **cause);
void	 cli_conn_done(struct cli_conn *);
int	 cli_dial(const char *run, struct cli_conn *, char **cause);
int	 cli_connect(const char *run, struct cli_conn *, char **cause);
int	 cli_each_run(const char *only, int (*fn)(struct cli_conn *, void *),
	    void *ctx);
/* Local time, RFC 3339 with its offset; "-" when it cannot be told. */
void	 cli_when(int64_t ms, char buf[TIME_RFC3339_LEN]);
/* Runs the record says are live but whose supervisor died, marked lost. */
void	 cli_recover(struct audit *, const char *by, bool tell);
