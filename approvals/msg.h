/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The control protocol's messages, one builder and one parser each; the
 * wire format is written down in PROTOCOL.md (framing in proto.h).
 *
 * Builders return a new reference and never fail (out of memory is fatal).
 * Strings that came from the sandboxed program need not be UTF-8: bytes
 * that are not travel as the text \xNN (request_json_string()).
 *
 * Parsers check the "type" (-EPROTO for a message of another type) and the
 * members' types (-EBADMSG for a missing or ill-typed member, an unknown
 * verdict, state or stream), with *cause naming the message and member:
 * "decide: \"verdict\": unknown verdict \"kill\"". *cause may be NULL.
 * Strings in a parsed struct point into the message (valid while the
 * caller holds it) unless the struct has a *_done() that frees them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/queue.h"
#include "approvals/request.h"

enum msg_type {
	MSG_TYPE_NONE,		/* no string "type": not a message */
	MSG_TYPE_OTHER,		/* a type this ward does not know (newer peer) */
	MSG_TYPE_HELLO,		/* client -> supervisor */
	MSG_TYPE_DECIDE,
	MSG_TYPE_KILL,
	MSG_TYPE_WELCOME,	/* supervisor -> client */
	MSG_TYPE_ACK,
	MSG_TYPE_REQUEST,
	MSG_TYPE_RESOLVED,
	MSG_TYPE_EVENT,
	MSG_TYPE_OUTPUT,
	MSG_TYPE_STATE,
	MSG_TYPE_ERROR,
	MSG_TYPE_INPUT,		/* client -> supervisor: the agent pane */
	MSG_TYPE_RESIZE,
	MSG_TYPE_RELAY_RUNS,	/* ward relay: both ways */
	MSG_TYPE_RELAY_TO,	/* client -> relay */
	MSG_TYPE_RELAY_FROM,	/* relay -> client */
	MSG_TYPE_RELAY_CLOSED,
	MSG_TYPE_RELAY_EVENTS,	/* ward relay: both ways (ward events) */
	MSG_TYPE_RULES,		/* client -> supervisor: list the run's rules */
	MSG_TYPE_REVOKE,	/* client -> supervisor: remove one */
	MSG_TYPE_RULE_LIST,	/* supervisor -> client: the answer to rules */
};

enum msg_type	 msg_type(const json_t *msg);
/* "hello", ...; NULL for NONE and OTHER. */
const char	*msg_type_name(enum msg_type);

/* ---- the run ---- */

/* The one run state; zero is where a supervisor starts. */
enum msg_run_state {
	RUN_STARTING,
	RUN_RUNNING,
	RUN_EXITED,
	RUN_UNKNOWN,		/* not told yet (a console before the welcome) */
};

/* "starting", "running", "exited"; "?" otherwise. parse: 0 or -EINVAL. */
const char	*msg_run_state_name(enum msg_run_state);
int		 msg_run_state_parse(const char *, enum msg_run_state *);

/* Which members a parsed RUN carried (a console keeps what was not sent). */
enum {
	MSG_RUN_ID		= 1u << 0,
	MSG_RUN_NAME		= 1u << 1,
	MSG_RUN_COMMAND		= 1u << 2,
	MSG_RUN_STATE		= 1u << 3,
	MSG_RUN_PID		= 1u << 4,
	MSG_RUN_STARTED		= 1u << 5,
	MSG_RUN_ENDED		= 1u << 6,
	MSG_RUN_EXIT_CODE	= 1u << 7,
	MSG_RUN_EXIT_SIGNAL	= 1u << 8,
	MSG_RUN_END_REASON	= 1u << 9,
	MSG_RUN_LIMITS		= 1u << 10,
	MSG_RUN_POLICY		= 1u << 11,
	MSG_RUN_HEADLESS	= 1u << 12,
	MSG_RUN_ASK_TIMEOUT	= 1u << 13,
	MSG_RUN_ALL		= (1u << 14) - 1,	/* always sent */
	MSG_RUN_WATCHERS	= 1u << 14,	/* sent when not 0 */
};

/*
 * RUN: what a supervisor says about its run. The builder sends every
 * member (name and end_reason null when NULL, other NULL strings as "");
 * the parser takes what is there (have), so a partial RUN updates only
 * what it names. A null id, name, command or limits parses as "", a null
 * exit_code as -1, a null exit_signal as 0; null pid, started_ms,
 * ended_ms, ask_timeout and state count as absent. limits may also be an
 * object of strings, integers and booleans, parsed as "k=v k=v".
 */
struct msg_run {
	unsigned	 have;		/* MSG_RUN_*; builders ignore it */
	const char	*id;
	const char	*name;		/* NULL when none */
	const char	*command;
	enum msg_run_state state;
	pid_t		 pid;
	int64_t		 started_ms;	/* wall */
	int64_t		 ended_ms;	/* wall, 0 while running */
	int		 exit_code;
	int		 exit_signal;
	const char	*end_reason;	/* "exit", "signal", "timeout", ...; or NULL */
	const char	*limits;	/* "timeout=600s memory=2G" */
	const char	*policy;	/* the policy file's path */
	bool		 headless;
	unsigned	 ask_timeout;	/* seconds */
	unsigned	 watchers;	/* consoles watching, the asker not
					 * counted; sent only when not 0 */

	char		*limits_text;	/* the parser's own; msg_run_done */
};

json_t		*msg_run_json(const struct msg_run *);
int		 msg_run_parse(const json_t *run, struct msg_run *, char **cause);
void		 msg_run_done(struct msg_run *);

/* ---- client -> supervisor ---- */

struct msg_hello {
	int64_t		 version;	/* 0 when not said */
	const char	*client;	/* "console", "cli", ...; NULL when not said */
	bool		 watch;
	const char	*origin;	/* "ssh from HOST": set by ward relay */
	bool		 view;		/* role "view": may not decide or kill */
};

/* {"type":"hello","version":PROTO_VERSION,"client":client,"watch":watch} */
json_t		*msg_hello(const char *client, bool watch);
/* Sets hello's "origin" (replacing one the far side sent): ward relay
 * says where its client came from. Not a hello: left alone. */
void		 msg_hello_set_origin(json_t *, const char *origin);
/* The same with "role":"view" (ward console --view): a read-only client,
 * refused by the supervisor when it sends decide, kill, input or resize.
 * An unknown role is a hello error. */
json_t		*msg_hello_view(const char *client, bool watch);
int		 msg_hello_parse(const json_t *, struct msg_hello *, char **cause);

struct msg_decide {
	uint64_t	 request;	/* set even when a later member is bad */
	/* VERDICT_ALLOW, VERDICT_DENY, or VERDICT_STAGE (a write outside
	 * done on a staged copy: the supervisor refuses it for a request
	 * that is not a write opening a file) */
	enum verdict	 verdict;
	enum scope	 scope;		/* SCOPE_ONCE when not said */
	const char	*reason;	/* NULL when none */
	const char	*rule;		/* NULL when none */
	/* "always": the line the console wrote into the person's policy
	 * file for this answer (config/policyedit.h); file NULL, line 0
	 * when none. */
	const char	*always_file;
	unsigned	 always_line;
};

/* reason NULL: no "reason" member. */
json_t		*msg_decide(uint64_t request, enum verdict, enum scope,
		    const char *reason);
/*
 * The same with "rule": the exact rule a person confirmed for an answer
 * "for this run" (the request's rule, as the supervisor sent it); the
 * supervisor refuses the answer when it would store another. rule NULL:
 * no "rule" member (as msg_decide).
 */
json_t		*msg_decide_rule(uint64_t request, enum verdict, enum scope,
		    const char *reason, const char *rule);
/*
 * The same with "always":{"file":file,"line":line}: the console wrote
 * that line into the run's policy file as well (an answer "always");
 * file NULL: no "always" member (as msg_decide_rule).
 */
json_t		*msg_decide_always(uint64_t request, enum verdict, enum scope,
		    const char *rule, const char *file, unsigned line);
int		 msg_decide_parse(const json_t *, struct msg_decide *,
		    char **cause);

json_t		*msg_kill(void);
int		 msg_kill_parse(const json_t *, char **cause);

/* {"type":"rules"}: the reply is a rule_list. */
json_t		*msg_rules(void);
int		 msg_rules_parse(const json_t *, char **cause);
/* {"type":"revoke","rule":N}: N as rule_list numbers them, from 1; the
 * reply is an ack. */
json_t		*msg_revoke(uint64_t n);
int		 msg_revoke_parse(const json_t *, uint64_t *n, char **cause);

/*
 * The agent pane (tui/view-agent.c): bytes for the program's terminal and
 * its size. The supervisor takes them from a console that said hello
 * with watch, and only when the program runs on a pty.
 */
#define MSG_INPUT_MAX	(64u << 10)	/* decoded bytes a message may carry */
#define MSG_WINSIZE_MAX	1000		/* rows, cols */

struct msg_input {
	void		*data;		/* owned; msg_input_done */
	size_t		 len;
};

/* {"type":"input","data":BASE64}; -EBADMSG past MSG_INPUT_MAX. */
json_t		*msg_input(const void *, size_t);
int		 msg_input_parse(const json_t *, struct msg_input *,
		    char **cause);
void		 msg_input_done(struct msg_input *);

/* {"type":"resize","rows":R,"cols":C}: 1..MSG_WINSIZE_MAX each. */
json_t		*msg_resize(int rows, int cols);
int		 msg_resize_parse(const json_t *, int *rows, int *cols,
		    char **cause);

/* ---- supervisor -> client ---- */

struct msg_welcome {
	int64_t		 version;	/* 0 when not said */
	struct msg_run	 run;
	struct request	**pending;	/* owned, oldest first as sent */
	size_t		 n_pending;
	size_t		 n_follow;	/* "request" messages still to come */
};

/* What the welcome carries inline, in JSON bytes; and the most requests
 * a welcome may announce. */
#define MSG_WELCOME_INLINE	(256u << 10)
#define MSG_PENDING_MAX		1000000

/*
 * pending: the queue's requests, oldest first; NULL for none. Those that
 * fit MSG_WELCOME_INLINE go inline; when some do not, "pending_count"
 * says how many there are in all, and the sender sends the rest (from
 * *n_inline on, which msg_welcome_part reports) as "request" messages
 * right after the welcome.
 */
json_t		*msg_welcome(const struct msg_run *, const struct queue *pending);
json_t		*msg_welcome_part(const struct msg_run *,
		    const struct queue *pending, size_t *n_inline);
int		 msg_welcome_parse(const json_t *, struct msg_welcome *,
		    char **cause);
/* One of the requests that follow the welcome (takes r); -ERANGE when
 * none is still to come. */
int		 msg_welcome_add(struct msg_welcome *, struct request *);
void		 msg_welcome_done(struct msg_welcome *);

struct msg_ack {
	uint64_t	 request;	/* 0 when the ack names none */
	bool		 ok;
	const char	*error;		/* NULL when none */
};

/* request 0: no "request" member; error NULL: no "error" member. */
json_t		*msg_ack(uint64_t request, bool ok, const char *error);
int		 msg_ack_parse(const json_t *, struct msg_ack *, char **cause);

/* {"type":"request","request":request_to_json(r)} */
json_t		*msg_request(const struct request *);
int		 msg_request_parse(const json_t *, struct request **,
		    char **cause);

struct msg_resolved {
	uint64_t	 request;
	enum verdict	 verdict;
	enum how	 how;
	const char	*by;		/* NULL when not said */
};

/* by NULL: no "by" member. */
json_t		*msg_resolved(uint64_t request, enum verdict, enum how,
		    const char *by);
int		 msg_resolved_parse(const json_t *, struct msg_resolved *,
		    char **cause);

/*
 * Something decided without asking. ev->run and ev->wait_ms do not travel
 * (the parser leaves them NULL and 0); subject is "" when NULL.
 */
json_t		*msg_event(const struct audit_event *);
int		 msg_event_parse(const json_t *, struct audit_event *,
		    char **cause);

struct msg_output {
	enum audit_stream stream;
	void		*data;		/* owned; msg_output_done */
	size_t		 len;
};

json_t		*msg_output(enum audit_stream, const void *, size_t);
int		 msg_output_parse(const json_t *, struct msg_output *,
		    char **cause);
void		 msg_output_done(struct msg_output *);

/* {"type":"state","run":RUN}: the run's state changed. */
json_t		*msg_state(const struct msg_run *);
int		 msg_state_parse(const json_t *, struct msg_run *, char **cause);

/*
 * The run's answers "for this run", numbered from 1 in the order given:
 * {"type":"rule_list","rules":[{"n":1,"kind":"write","verdict":"allow",
 * "pattern":"/home/u/x"}, ...]}.
 */
struct msg_rule {
	uint64_t	 n;
	enum request_kind kind;
	enum verdict	 verdict;	/* ALLOW or DENY */
	const char	*pattern;
};

struct msg_rule_list {
	struct msg_rule	*rules;		/* owned; msg_rule_list_done */
	size_t		 n_rules;
};

json_t		*msg_rule_list(const struct msg_rule *, size_t n);
int		 msg_rule_list_parse(const json_t *, struct msg_rule_list *,
		    char **cause);
void		 msg_rule_list_done(struct msg_rule_list *);

/* {"type":"error","error":text}: reserved; no supervisor sends it yet. */
json_t		*msg_error(const char *text);
int		 msg_error_parse(const json_t *, const char **text, char **cause);

/*
 * ward relay (tui/relay.c): the protocol of many runs over one stream
 * (ssh HOST ward relay), each message of a run in an envelope that names
 * it (PROTOCOL.md 7).
 *   relay_runs {}                      client asks the live runs
 *   relay_runs {runs: [ID...]}         the relay answers
 *   relay_to {run, msg}                client -> the run's supervisor
 *   relay_from {run, msg}              the run's supervisor -> client
 *   relay_closed {run, error}          the relay's link to run ended
 * The builders take a reference to msg (json_incref) and do not steal it.
 */
json_t		*msg_relay_runs(char *const *ids, size_t n);	/* ids NULL: the ask */
/* *ids (NULL: the ask) is a strv to free. */
int		 msg_relay_runs_parse(const json_t *, char ***ids, size_t *n,
		    char **cause);
json_t		*msg_relay_to(const char *run, json_t *msg);
json_t		*msg_relay_from(const char *run, json_t *msg);
json_t		*msg_relay_closed(const char *run, const char *error);
/* relay_to / relay_from / relay_closed: *run, *msg (borrowed; NULL for
 * closed), *error (closed; may be NULL). */
int		 msg_relay_parse(const json_t *, const char **run,
		    json_t **msg, const char **error, char **cause);

/*
 * ward events --host (PROTOCOL.md 8): the relay reads its side's record.
 *   relay_events {run, since_ms, json, follow}   client asks (run: an
 *                                                id, a --name, or null)
 *   relay_events {lines: [LINE...], end, error}  the relay answers, once,
 *                                                or (follow) as it grows
 * A LINE is one line `ward events` prints there (JSON text with json).
 */
json_t		*msg_relay_events(const char *run, int64_t since_ms,
		    bool json, bool follow);
/* The ask: *run (NULL: every run) borrowed; -EBADMSG naming the field. */
int		 msg_relay_events_ask_parse(const json_t *, const char **run,
		    int64_t *since_ms, bool *json, bool *follow, char **cause);
/* The answer; lines is taken (an array of strings, NULL: none). */
json_t		*msg_relay_events_lines(json_t *lines, bool end,
		    const char *error);
/* *lines (borrowed) an array of strings; *error NULL when none. */
int		 msg_relay_events_parse(const json_t *, json_t **lines,
		    bool *end, const char **error, char **cause);
