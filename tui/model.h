/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The console's model: what one attached run looks like, fed by control
 * protocol messages (approvals/msg.h, PROTOCOL.md) and changed by actions
 * (tui/keys.h). No terminal here: tests drive it with messages and a fake
 * clock (model_set_now), and tui/view.h draws a const model.
 *
 * Every string that came from the sandboxed program is stored already
 * escaped (config/escape.h); only the unfinished output line is kept raw,
 * and the view escapes it when it draws it.
 *
 * Arming (DESIGN §9): `a` works on the selected request only after it has
 * been on screen, whole, for MODEL_ARM_MS. The view reports what it drew
 * (struct view_report) and model_note_view() keeps each request's
 * shown_at_ms: set when the request is first drawn whole, cleared when it
 * is not drawn at all (covered by help, scrolled off, terminal too small),
 * cleared for a request that becomes selected by something other than
 * the person's own move (the one above it was decided or expired), and
 * restarted when the person's own move selects it: every selection change
 * re-arms.
 *
 * And only after a quiet moment, judged on when the keys ARRIVED: the
 * console reads the terminal itself (tui/screen.h, screen_key_at) and
 * gives each key the CLOCK_MONOTONIC time of the read() that brought it;
 * the keys of one read are a burst (they arrived together, e.g. while
 * the console was stalled). model_apply_key_at() keeps the arrival of
 * the last key: `a` counts only when it came alone (no burst) and no key
 * arrived in the MODEL_QUIET_MS before it. A held key repeats every
 * 30..100 ms on common terminals, so a held `a` never arms, however long
 * it is held; 400 ms is longer than any default repeat interval and
 * shorter than the pause of a person who reads a request and then
 * decides (the request alone needs 500 ms).
 *
 * And only after a trailing silence: every answer that allows something
 * (a, s, a group's or a rule's y, W's y) is held, not sent, and shown as
 * "allowing..." (model_holding); model_tick() sends it once
 * MODEL_TRAIL_MS passed after its key with no further key. Any key that
 * arrives before then drops it ("ignored: keys were still arriving"), so
 * a stream of repeats approves nothing even where one of its gaps is
 * longer than MODEL_QUIET_MS (an ssh hiccup), and a hold that starts on
 * an armed request approves nothing once its repeats come within
 * MODEL_TRAIL_MS. (A keyboard's delay before its first repeat is often
 * longer, 250..660 ms: then the press that began the hold is a press
 * like any other and counts, once; its repeats never do.) Denying is
 * safe: it is sent at once.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "approvals/msg.h"
#include "approvals/request.h"
#include "review/summary.h"
#include "tui/events.h"
#include "tui/keys.h"
#include "tui/output.h"
#include "approvals/runopts.h"

#define MODEL_EVENTS		100
#define MODEL_ARM_MS		500
#define MODEL_QUIET_MS		400
/* The silence an approve waits for after its key before it is sent: a
 * key repeat comes 30..100 ms after the one before, so 200 ms without a
 * key says the key was let go; short enough not to be felt as a delay. */
#define MODEL_TRAIL_MS		200

enum pane {
	PANE_OUTPUT,
	PANE_PENDING,
	PANE_AGENT,		/* the agent pane: keys go to the program */
	PANE_EVENTS,		/* the events pane (tui/events.h) */
};

/* enum agent_mode, the agent pane's AUTO, ON and OFF: tui/runopts.h. */

enum zoom {
	ZOOM_NONE,
	ZOOM_AGENT,		/* the strip shrinks to its header */
	ZOOM_REQUESTS,		/* the pane shrinks to a few rows */
};

enum msg_level {
	MSG_INFO,
	MSG_WARN,
	MSG_ERROR,
};

struct model_run {
	char		*id;		/* these escaped; "" when unknown */
	char		*name;
	char		*command;
	char		*limits;
	char		*end_reason;
	enum msg_run_state state;
	pid_t		 pid;
	int		 exit_code;	/* -1 when none */
	int		 exit_signal;	/* 0 when none */
	int64_t		 started_ms;
	int64_t		 ended_ms;
	unsigned	 ask_timeout;	/* seconds */
	unsigned	 watchers;	/* other consoles, when we attached */
	bool		 headless;
	char		*policy;	/* the policy file's path, raw; "" */
};

/*
 * What became of a request's row (issue 31): an answer is trusted only
 * once the supervisor confirmed it. OPEN: it waits (sent says whether
 * an answer went; "allow sent..." until the confirmation). DONE: the
 * supervisor took this console's answer (its ack) and resolved it as
 * sent says ("allowed ✓"), shown MODEL_DONE_MS before it leaves. LOST:
 * the link to the run dropped before the confirmation ("not
 * delivered"), shown until the run says its requests again (then it is
 * pending again, armed afresh). GONE: the supervisor closed it because
 * nobody waits for it any more ("asker gone", resolved with verdict
 * "none"), greyed out MODEL_GONE_MS. A row that is not OPEN has sent
 * set, so that it leaves every count of unanswered requests, and no
 * answer key acts on it (model_row_refuse says why).
 */
enum pending_fate {
	FATE_OPEN,
	FATE_DONE,
	FATE_LOST,
	FATE_GONE,
};

#define MODEL_DONE_MS		1500
#define MODEL_GONE_MS		4000
/* An answer sent this long with no ack says so ("no reply 3s"): a
 * stalled link is not yet a dropped one, but the person should know. */
#define MODEL_NOREPLY_MS	2000

/* A request waiting on a person; strings escaped. */
struct pending {
	uint64_t	 id;
	enum request_kind kind;
	pid_t		 pid;
	char		*syscall;
	char		*subject;
	char		*subject2;	/* NULL when none */
	char		*detail;
	char		*cmdline;
	char		*command;	/* the command inside an agent's shell
					 * wrapper (tui/shellwrap.h), escaped;
					 * NULL when cmdline is none */
	char		*cwd;
	char		*why;
	int64_t		 created_ms;	/* wall */
	int64_t		 deadline_ms;	/* wall; 0 = none */

	bool		 shown;		/* drawn whole since last off screen */
	int64_t		 shown_at_ms;	/* mono, when shown became true */
	bool		 partial;	/* last frame drew only part of it */
	enum verdict	 sent;		/* answer sent, awaiting "resolved" */
	bool		 acked;		/* the supervisor took it (ack ok) */
	int64_t		 sent_ms;	/* mono, about when it was sent (the
					 * next model_tick); 0 = not sent */
	enum pending_fate fate;
	int64_t		 fate_ms;	/* mono, when it stopped being OPEN */
	bool		 again;		/* said again after "not delivered" */
	bool		 hooked;	/* handed to the notify_cmd hook */
	/* The rule an answer "for this run" stores, as the supervisor sent
	 * it (sent back in the decide) and escaped (shown); NULL when the
	 * supervisor did not say (then A and D are refused). */
	char		*rule_wire;
	char		*rule;
};

struct model_event {
	char		*text;		/* escaped */
	enum verdict	 verdict;
};

/*
 * The diff pane: the run's staged project changes, read from its run
 * folder by the console (tui/diffcmd.h's diffcmd_pane_load, which calls
 * model_diff_set_*), never here. Strings stored escaped.
 */
enum model_diff_op {
	DIFF_OP_NONE,
	DIFF_OP_APPLY,
	DIFF_OP_DISCARD,
};

struct model_diff {
	bool		 open;
	char	       **files;		/* "modified  src/a.c" ... */
	size_t		 n_files;
	size_t		 sel;		/* the file whose patch is shown */
	char	       **lines;		/* its patch, a line each */
	size_t		 n_lines;
	int		 scroll;	/* first patch line shown */
	char		*note;		/* why nothing is listed, or NULL */
	/* Per file: the host path it changes (raw; what apply and discard
	 * pick) and its line in a confirmation (escaped). */
	char	       **targets;
	char	       **labels;
	size_t		 n_targets;
	/* Per file: the sha256 of the staged bytes when it was listed (what
	 * the pane showed; "-" a deletion); NULL until set. An apply puts
	 * in only these bytes. */
	char	       **hashes;
	/* Per file: why a plain apply leaves it staged (a protected file,
	 * one over [review] max_apply; escaped), "" when it goes; NULL
	 * until set. P lists none of them: each goes alone, by p. */
	char	       **held;
	/* p/P/u/U: the exact files listed first, armed like a request
	 * (drawn whole for MODEL_ARM_MS), then y does it. */
	enum model_diff_op confirm;
	char	       **confirm_targets;	/* raw */
	char	       **confirm_labels;	/* escaped */
	char	       **confirm_hashes;	/* as hashes, or NULL */
	size_t		 n_confirm;
	size_t		 confirm_held;	/* P: held files left out */
	bool		 confirm_shown;
	int64_t		 confirm_shown_at;
	bool		 confirm_partial;
};

/* What the console must do after an action. */
enum effect {
	EFFECT_NONE,
	EFFECT_DIFF_LOAD,	/* read the changes, then diff.sel's patch */
	EFFECT_DIFF_ACT,	/* apply or discard diff.confirm_targets */
	EFFECT_DECIDE,		/* send decide(request, verdict, scope,
				 * reason, rule) */
	EFFECT_DECIDE_MANY,	/* send decide(id, verdict, once) for each
				 * of requests[0..n_requests) */
	EFFECT_RULES,		/* send rules (the answer: rule_list) */
	EFFECT_ALWAYS_PLAN,	/* where would entry go in file (under
				 * section's key, with comment)?
				 * policy_edit_plan, then model_always_plan */
	EFFECT_ALWAYS,		/* write it (policy_edit_add_rule, where it
				 * was shown: line), then send decide(request,
				 * allow, run, rule, always) and tell
				 * model_always_done */
	EFFECT_KILL,		/* send kill */
	EFFECT_QUIT,		/* leave */
};

struct model_effect {
	enum effect	 kind;
	uint64_t	 request;
	enum verdict	 verdict;
	/* These point into the model, valid until its next call. */
	enum scope	 scope;
	const char	*reason;	/* NULL when none */
	const char	*rule;		/* NULL when none */
	const uint64_t	*requests;
	size_t		 n_requests;
	const char	*file;		/* EFFECT_ALWAYS*: the policy file */
	/* EFFECT_ALWAYS*: where in it and what: [files] allow and the
	 * write's rule, or [network] allow and an HTTP request's
	 * "host:port METHOD PATH" (issue 19). */
	const char	*section, *key, *entry;
	const char	*comment;	/* its line's comment */
	unsigned	 line;		/* EFFECT_ALWAYS: where it was shown */
};

/*
 * An approve waiting for its trailing silence (MODEL_TRAIL_MS): its
 * effect, with copies of what it points at, sent by model_tick() at due
 * unless a key arrives first.
 */
struct model_hold {
	bool		 active;
	int64_t		 due;		/* mono */
	struct model_effect eff;	/* points at the fields below */
	uint64_t	*ids;		/* the requests it answers */
	size_t		 n_ids;
	char		*rule, *file, *comment, *entry;
	char		*sent_msg;	/* the status line once sent; NULL */
};

/*
 * An answer that asks before it is sent (issue 15): the exact rule an
 * answer for the run stores (A, D), the glob a group answer amounts to,
 * every pending request (X); y sends, any other key cancels, and so does
 * the request's end (a timeout never stores a rule). r types a reason on
 * one line (Enter sends, Esc cancels); its request's end leaves the
 * prompt open, saying so, until Enter or Esc (ASK_GONE).
 */
enum model_ask {
	ASK_NONE,
	ASK_RULE,		/* request, verdict */
	ASK_REASON,		/* request; reason being typed */
	ASK_GROUP,		/* ids, verdict, glob */
	ASK_DENY_ALL,		/* ids */
	ASK_ALWAYS,		/* request; file, line, shown */
	ASK_GONE,		/* r's request ended (or the run went) while
				 * its reason was typed: nothing is sent,
				 * and keys do nothing until Enter or Esc
				 * closes it (the rest of the reason must not
				 * become commands) */
};

#define MODEL_REASON_MAX	200	/* bytes of a typed reason */

struct model_answer {
	enum model_ask	 ask;
	uint64_t	 request;
	enum verdict	 verdict;
	uint64_t	*ids;		/* owned */
	size_t		 n_ids;
	char		*glob;		/* owned, escaped already */
	char		 reason[MODEL_REASON_MAX + 1];
	size_t		 reason_len;
	/* W: the policy file's line it writes ("always, from run ID" its
	 * comment), from model_always_plan; escaped but note. */
	char		*file;		/* owned */
	unsigned	 line;
	char		*shown;		/* owned: "    /srv/x ; always, ..." */
	char		 note[96];	/* raw, the comment written */
};

/* The run's rules (R, from rule_list); strings escaped. */
struct model_rules {
	bool		 open;
	bool		 loaded;
	char	       **lines;		/* "1  allow write /x" */
	size_t		 n;
};

/* Things the terminal must do after messages: ring, flush typeahead, notify. */
struct model_alerts {
	bool		 bell;
	bool		 flush;		/* discard keys typed before now */
	uint64_t	 notify;	/* newest new request id, 0 = none */
};

struct model {
	int64_t		 now_mono;	/* ms; set by model_set_now */
	int64_t		 now_wall;

	struct model_run run;
	bool		 many_runs;	/* one of every run (tui/fleet.h): the
					 * help lists the run keys */
	bool		 ascii;		/* no UTF-8 terminal: markers, frame */
	bool		 view_only;	/* --view: no answer keys, no typing */
	/* Unanswered requests of the other runs of an every-run console
	 * (tui/fleet.c sets it when q is pressed): leaving asks for them. */
	size_t		 others_unanswered;
	bool		 welcomed;
	bool		 disconnected;	/* the supervisor went away */
	/* Requests whose answer was not delivered (FATE_LOST) when the
	 * rows went (a new welcome, model_carry_lost): a request said again
	 * under one of these ids is marked again. */
	uint64_t	*lost;
	size_t		 n_lost;

	/* Output: a ring of finished lines, an unfinished one per stream,
	 * and where the reader is (out.scroll). */
	struct output	 out;

	struct pending **pending;	/* oldest (lowest id) first */
	size_t		 n_pending;

	struct model_event events[MODEL_EVENTS];	/* ring, newest last */
	size_t		 event_first;
	size_t		 event_count;

	uint64_t	 sel;		/* selected request id, 0 = none */
	int64_t		 last_key_ms;	/* mono, the last key's arrival */
	/* The key being applied (model_apply_key_at): its arrival, and
	 * whether it came in one read with others. */
	bool		 key_applying;
	int64_t		 key_at;
	bool		 key_burst;
	struct model_hold hold;		/* an approve waiting (MODEL_TRAIL_MS) */
	bool		 keyed;		/* a key has come at all */
	enum pane	 focus;
	bool		 detail;	/* whole-request view of sel */
	int		 detail_scroll;
	bool		 help;
	bool		 confirm_kill;	/* "kill run? y/n" asked */
	bool		 confirm_quit;	/* "leave? N requests wait" asked */
	bool		 quit;

	char		*message;	/* status line, or NULL */
	enum msg_level	 message_level;

	/* From the last frame (model_note_view). */
	int		 page_rows;	/* output pane rows */
	int		 detail_rows;	/* detail view body rows */
	int		 detail_lines;	/* detail view body lines in all */

	struct model_alerts alerts;

	struct model_diff diff;

	/* The events pane: every event, filtered and folded (tui/events.h);
	 * the ring above stays the last decisions for the compact view. */
	struct events	 ev;
	/* A finished run opened from the record (tui/finished.h): nothing
	 * can be answered or sent; an answer key says so. */
	bool		 readonly;
	/* The end-of-run summary, once the console read it from the record
	 * (review/summary.h). */
	bool		 have_summary;
	struct summary	 summary;
	/* The scorecard of a demo's run (review/scorecard.h), as its
	 * lines come, unfitted: once the run has ended the card shows it
	 * in the summary's place (tui/finished.h says which runs have
	 * one). NULL otherwise. */
	char		**scorecard;
	struct model_answer answer;
	/* Why W (always) is not offered for this run whatever its policy
	 * file, or NULL: set by whoever attaches a run whose file is not
	 * on this machine (a console over ssh). Not owned. */
	const char	*always_off;
	struct model_rules rules;
	/* The agent pane. keys go to the program while focus is
	 * PANE_AGENT; the prefix key moves it to the requests, Esc or the
	 * prefix back. Only the person's keys give the program the focus
	 * (and --agent at the start), never its output: AUTO's pane shown
	 * for an alternate screen leaves the keys where they were; the
	 * run's end or the supervisor's loss takes them back (issue 31). */
	struct vt	*vt;		/* fed every pty output */
	enum agent_mode	 agent_mode;
	bool		 agent;		/* the agent pane is shown */
	/* The program's pty size as the supervisor last said it (0: not
	 * said); the output pane draws a full-screen program at it. */
	int		 pty_rows, pty_cols;
	enum zoom	 zoom;
	int		 prefix;	/* a tui/keys.h key */
	bool		 prefix_fresh;	/* focus just came by the prefix */
	bool		 pasting;	/* between the paste marks */
	int		 agent_rows;	/* the pane's size in the last frame */
	int		 agent_cols;
	int		 agent_y;	/* and where it was drawn */
	int		 agent_x;
};

/* The prefix key when none is set (WARD_PREFIX, tui/keys.h). */
#define MODEL_PREFIX	KEYS_CTRL(']')

struct view_report;

struct model	*model_new(void);
void		 model_free(struct model *);

void		 model_set_now(struct model *, int64_t mono_ms,
		    int64_t wall_ms);

/*
 * Applies one control-protocol message (supervisor -> console). Unknown
 * types are ignored; 0, or -EINVAL for a message of a known type that is
 * malformed (the status line says what).
 */
int		 model_apply_message(struct model *, const json_t *msg);
/* The connection dropped: a row whose answer was sent and not yet
 * confirmed stays, "not delivered" (FATE_LOST); the rest go. */
void		 model_set_disconnected(struct model *, const char *why);
/* After the clock moved (model_set_now): rows confirmed or closed as
 * gone leave once shown long enough; an answer sent since the last
 * call gets its sent_ms. Call it where nothing holds
 * pointers into the pending list (a fleet refreshes its queue after). */
void		 model_fates_tick(struct model *);
/* A new model in place of old for the same run (tui/fleet.c's
 * fleet_reset): the ids of old's answers not delivered go with it. */
void		 model_carry_lost(struct model *, const struct model *old);
/*
 * A request row's status, the one place its text is made (the views
 * draw it on the right of the row): the countdown, "allow sent...",
 * "allow sent... no reply 3s", "allowed ✓" ("allowed ok" in ASCII),
 * "allow not delivered", "asker gone", "allowing..." while an allow
 * waits out its trailing silence, and "armed" before the countdown on
 * the selected row (selected) when `a` would work on it now.
 * True when the row is closed and drawn greyed out.
 */
bool		 model_row_status(const struct model *, const struct pending *,
		    bool selected, char *buf, size_t len);

/* Applies a key's action; *eff says what the console must send or do. */
void		 model_apply_action(struct model *, enum action,
		    struct model_effect *eff);

/*
 * Applies one key: to the program while the agent pane has the focus
 * (its bytes wait in vt_output(m->vt)), else through keys_action() to
 * model_apply_action(). *focus_moved is set when the key moved the focus
 * from the program to the requests: the console throws away what was
 * typed after it (typeahead meant for the program).
 */
void		 model_apply_key(struct model *, int key,
		    struct model_effect *eff, bool *focus_moved);
/*
 * model_apply_key() with the key's arrival: at is the CLOCK_MONOTONIC ms
 * of the read that brought it, burst whether that read brought other
 * keys too (model_apply_key is this with now and no burst). An answer
 * that allows is held (*eff says nothing) for model_tick() to send; any
 * key drops a held one.
 */
void		 model_apply_key_at(struct model *, int key, int64_t at,
		    bool burst, struct model_effect *eff, bool *focus_moved);
/* A key arrived at `at` that the model was not given (a run key of the
 * every-run console, keys thrown away as typeahead): it counts for the
 * quiet period and drops a held approve. */
void		 model_note_key(struct model *, int key, int64_t at);
/*
 * Sends a held approve once its trailing silence passed (now, from
 * model_set_now, taken before the console read the terminal: every key
 * that arrived before it was given first). True when *eff has it.
 */
bool		 model_tick(struct model *, struct model_effect *eff);
/* When model_tick() has something to do (mono ms), or 0. */
int64_t		 model_due(const struct model *);
/* Is the request's approve held, waiting for its trailing silence? */
bool		 model_holding(const struct model *, uint64_t id);
/* A mouse event at screen cell (y, x): to the program when the pane
 * has the keys, the event is inside it and the program asked for the
 * mouse; otherwise nothing. */
void		 model_apply_mouse(struct model *, int y, int x, int button,
		    bool pressed);
/* Whether the console should ask the terminal for mouse reports. */
bool		 model_wants_mouse(const struct model *);
/* Do the terminal's control keys belong to the agent pane's program? */
bool		 model_wants_raw(const struct model *);
/* --agent / --lines / neither; the prefix key. */
void		 model_set_agent(struct model *, enum agent_mode, int prefix);

/* The terminal is not UTF-8: output markers and ward's frame in ASCII
 * (model_set_ascii before any output arrives). */
void		 model_set_ascii(struct model *, bool);

/* ward console --view: the answer keys (a d K ...) only say "view only",
 * no key reaches the program, and q never asks. The supervisor refuses
 * such a console's decide and kill too (PROTOCOL.md, hello role). */
void		 model_set_view_only(struct model *);

/* After each frame: what the view drew (arming, page sizes). */
void		 model_note_view(struct model *, const struct view_report *);

/* The diff pane's contents (raw; stored escaped): the list of changed
 * files (keeps sel when it still fits), the selected file's patch, or a
 * note in their place (NULL clears it). */
void		 model_diff_set_files(struct model *, const char *const *files,
		    size_t n);
void		 model_diff_set_patch(struct model *, const char *text,
		    size_t len);
void		 model_diff_set_note(struct model *, const char *note);
/* Per file of the list: the host path apply or discard acts on, and its
 * line in the confirmation ("modified  /home/u/app/src/a.c"), raw. */
void		 model_diff_set_targets(struct model *,
		    const char *const *targets, const char *const *labels,
		    size_t n);
/* Per file of the list (after model_diff_set_targets, which clears
 * them): the sha256 an apply must find, copied. */
void		 model_diff_set_hashes(struct model *,
		    const char *const *hashes, size_t n);
/* Per file of the list (after model_diff_set_targets, which clears
 * them): why a plain apply leaves it staged, "" when it goes; copied. */
void		 model_diff_set_held(struct model *,
		    const char *const *held, size_t n);
/* After an EFFECT_DIFF_ACT: the confirmation is over. */
void		 model_diff_confirm_done(struct model *);

/* The end-of-run summary to show (copied). */
void		 model_set_summary(struct model *, const struct summary *);
/* The scorecard to show with it (a strv, taken; NULL: none). */
void		 model_set_scorecard(struct model *, char **lines);

/* The oldest request no answer was sent for that has waited after_s
 * seconds (wall clock, since the supervisor asked) and was not handed to
 * the notify_cmd hook yet: marked as handed and returned; NULL if none. */
const struct pending *model_take_overdue(struct model *, unsigned after_s);

/* Takes and clears the alerts raised since the last call. */
void		 model_take_alerts(struct model *, struct model_alerts *);

/* Sets the status line (printf format); level as enum msg_level. */
void		 model_message(struct model *, enum msg_level, const char *,
		    ...) __attribute__((format(printf, 3, 4)));
/* As model_message, with no "run NAME: " in front in an every-run
 * console (a line about the console, not about this run). */
void		 model_message_plain(struct model *, enum msg_level,
		    const char *, ...) __attribute__((format(printf, 3, 4)));
/* K's question: "kill run? y/n"; in an every-run console it names the
 * run, "kill run web (a1b2c3d4)? y/n". */
void		 model_kill_question(const struct model *, char *, size_t);

/*
 * The pending list as the person reads it (tui/group.h): sensitive
 * requests first, similar ones grouped; returns how many rows, *rows
 * for group_rows_free.
 */
struct group_row;
size_t		 model_pending_rows(const struct model *, struct group_row **);

/*
 * W, after EFFECT_ALWAYS_PLAN: where the line would go (line, as it
 * reads: shown, raw) and the prompt asks y; or why not (nothing asked,
 * the status line says why).
 */
void		 model_always_plan(struct model *, uint64_t id, unsigned line,
		    const char *shown, const char *why);
/* After EFFECT_ALWAYS: written on line (the decide was sent), or why
 * not (nothing written or sent: the request waits for another answer). */
void		 model_always_done(struct model *, uint64_t id, unsigned line,
		    const char *why);

/*
 * The prompt that owns the keyboard (issue 31), the one open now, in the
 * order model_apply_key hears them: while one is open every key is its
 * own (answered by y or Enter, cancelled by Esc or, where that is its
 * rule, any other key) and nothing else acts. The every-run console
 * (tui/fleet.c) hands every key to the selected run while one is open,
 * so that no key typed into a prompt reaches the queue or another run.
 * Derived from the flags that hold each prompt's state (answer.ask,
 * confirm_kill, confirm_quit, ev.editing, pasting, diff.confirm)
 * rather than a stack of its own: each is a question about one thing,
 * and at most one is open at a time.
 */
enum model_prompt {
	PROMPT_NONE,
	PROMPT_QUIT,		/* "leave? N requests wait - y/n" */
	PROMPT_FILTER,		/* `/`: the events filter being typed */
	PROMPT_PASTE,		/* between the paste marks: text, no key */
	PROMPT_REASON,		/* r: the reason being typed */
	PROMPT_ANSWER,		/* A D W X, a group's a/d: y sends */
	PROMPT_KILL,		/* "kill run NAME? y/n" */
	PROMPT_DIFF,		/* p P u U: the diff's y/n */
};

enum model_prompt model_prompt(const struct model *);
bool		 model_prompt_open(const struct model *);
/* The run as a prompt names it: its name, else its id, else "?". */
const char	*model_run_label(const struct model *);

/* The prompt of an answer being confirmed or typed (malloc'd), or NULL:
 * "allow for the run: write /x/y - y stores it, any other key cancels". */
char		*model_ask_text(const struct model *);

/* Lookups for the view. */
const struct pending *model_pending_find(const struct model *, uint64_t id);
/* Index of id in pending, or -1. */
ssize_t		 model_pending_index(const struct model *, uint64_t id);
bool		 model_armed(const struct model *, uint64_t id);
/* May it be answered "stage" (s)? A write that opens a file. */
bool		 model_stageable(const struct pending *);
const struct model_event *model_event_at(const struct model *, size_t i);
bool		 model_run_ended(const struct model *);
/* "running", "exited 0", "killed", "timeout", "signal 9", ... */
void		 model_state_text(const struct model *, char *buf, size_t len);
/* "denied in 1:54", "denied in 0:00", "no deadline" */
void		 model_countdown(const struct model *, const struct pending *,
		    char *buf, size_t len);
/* What to tell the person after leaving (malloc'd), or NULL. */
char		*model_leave_text(const struct model *);
/* The question q (or Ctrl-C) asks while requests wait unanswered: how
 * many, how long they wait for another console, that they are then
 * denied. */
void		 model_quit_question(const struct model *, char *buf,
		    size_t len);
/* Requests no answer was sent for. */
size_t		 model_unanswered(const struct model *);
/* Rows still open (FATE_OPEN): what "N pending" says; closed rows are
 * still drawn a moment but no longer counted. */
size_t		 model_open_count(const struct model *);

/* `ward run` left with its run going on (q, then y): not 0, since the
 * program's status is not known yet (ward(1) EXIT STATUS). */
#define MODEL_EXIT_DETACHED	123

/* The exit status `ward` returns after q: 0, 1 when the supervisor
 * went away, the run's own status when exit_with_run and it ended,
 * MODEL_EXIT_DETACHED when exit_with_run and the run goes on. */
int		 model_exit_status(const struct model *, bool exit_with_run);
