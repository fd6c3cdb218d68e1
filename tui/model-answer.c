/* SPDX-License-Identifier: MIT */
#include "tui/model.h"
#include "tui/model-int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/group.h"

/*
 * Answers: a and d on a request, the answers that ask first (issue 15:
 * a rule, a group, all, a reason, W's rule written always), their
 * prompts, and an approve held for its trailing silence (model_tick).
 */

bool
model_stageable(const struct pending *p)
{
	static const char *const opens[] = { "open", "openat", "openat2",
	    "creat" };

	if (p == NULL || p->kind != KIND_WRITE || p->syscall == NULL)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(opens); i++)
		if (strcmp(p->syscall, opens[i]) == 0)
			return true;
	return false;
}

/* a, and s (VERDICT_STAGE): armed only, as DESIGN §9 says. */
void
model_allow(struct model *m, struct model_effect *eff, enum verdict v)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return;
	}
	if (v == VERDICT_STAGE && !model_stageable(p)) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": only a write that "
		    "opens a file can be staged", p->id);
		return;
	}
	if (model_row_refuse(m, p))
		return;
	if (!model_armed(m, p->id)) {
		if (!model_quiet(m))
			model_message(m, MSG_WARN, "ignored: keys were still "
			    "arriving; let go, then press a");
		else if (p->partial && !p->shown)
			model_message(m, MSG_WARN, "wait: #%" PRIu64 " is not "
			    "shown whole yet; Enter shows all of it", p->id);
		else
			model_message(m, MSG_WARN,
			    "wait: request just appeared");
		return;
	}
	p->sent = v;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = v;
	if (v == VERDICT_STAGE)
		model_message(m, MSG_INFO, "stage #%" PRIu64 ": sent; c shows "
		    "the diff once written", p->id);
	else
		model_message(m, MSG_INFO, "allow #%" PRIu64 " once: sent",
		    p->id);
}

void
model_deny(struct model *m, struct model_effect *eff)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return;
	}
	if (model_row_refuse(m, p))
		return;
	p->sent = VERDICT_DENY;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = VERDICT_DENY;
	model_message(m, MSG_INFO, "deny #%" PRIu64 " once: sent", p->id);
}

/* ------------------------------------------------------------------ */
/* Answers that ask first (issue 15): a rule, a group, all, a reason. */

/* The selected request, when it can take an answer now. */
static struct pending *
model_answerable(struct model *m, bool allow)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return NULL;
	}
	if (model_row_refuse(m, p))
		return NULL;
	if (allow && !model_armed(m, p->id)) {
		model_message(m, MSG_WARN, "wait: #%" PRIu64 " is not shown "
		    "long enough yet", p->id);
		return NULL;
	}
	return p;
}

/* The ids of the group the selection stands for, when it is a group of
 * more than one and no single request is open (Enter answers one). */
static bool
model_group_ids(struct model *m, uint64_t **ids, size_t *n_ids, char **glob)
{
	ssize_t i = model_pending_index(m, m->sel);
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	long r = i >= 0 ? group_row_of(rows, n, (size_t)i) : -1;
	bool group = !m->detail && r >= 0 && rows[r].n > 1;

	if (group) {
		*ids = xcalloc(rows[r].n, sizeof **ids);
		*n_ids = 0;
		for (size_t k = 0; k < rows[r].n; k++)
			if (m->pending[rows[r].idx[k]]->sent == VERDICT_NONE)
				(*ids)[(*n_ids)++] = m->pending[rows[r].idx[k]]->id;
		*glob = xstrdup(rows[r].glob);
	}
	group_rows_free(rows, n);
	return group;
}

/* a or d on a group: asks first, with the glob it amounts to. */
bool
model_group_ask(struct model *m, enum verdict v)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	char *glob = NULL;

	if (!model_group_ids(m, &ids, &n, &glob))
		return false;
	if (v == VERDICT_ALLOW && !model_armed(m, m->sel)) {
		model_message(m, MSG_WARN, "wait: the group is not shown long "
		    "enough yet");
		free(ids);
		free(glob);
		return true;
	}
	model_answer_reset(m);
	m->answer = (struct model_answer){
		.ask = ASK_GROUP, .verdict = v, .ids = ids, .n_ids = n,
		.glob = glob, .request = m->sel,
	};
	return true;
}

static void
model_rule_ask(struct model *m, enum verdict v)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	char *glob = NULL;
	struct pending *p;

	if (model_group_ids(m, &ids, &n, &glob)) {
		free(ids);
		free(glob);
		model_message(m, MSG_INFO, "A and D store one request's rule: "
		    "Enter opens the group's first; a / d answer the group "
		    "once each");
		return;
	}
	if ((p = model_answerable(m, v == VERDICT_ALLOW)) == NULL)
		return;
	if (p->rule == NULL) {
		model_message(m, MSG_WARN, "#%" PRIu64 ": the supervisor did "
		    "not say which rule it would store", p->id);
		return;
	}
	model_answer_reset(m);
	m->answer = (struct model_answer){
		.ask = ASK_RULE, .request = p->id, .verdict = v,
	};
}

/* Where "always" writes p's rule: a write's under [files] allow; an HTTP
 * request's (issue 19) as an HTTP rule under [network] allow, its subject
 * "host:port METHOD PATH" as it is, so only when the path holds no glob
 * character (the rule would be wider than what was asked). */
static void
model_always_target(const struct pending *p, struct model_effect *eff)
{
	bool http = p->kind == KIND_HTTP;

	eff->section = http ? "network" : "files";
	eff->key = "allow";
	eff->entry = http ? p->subject : p->rule_wire;
}

/* W: asks the console where the rule would go; model_always_plan then
 * asks the person. A write's rule or an HTTP request's only, and only
 * into a file the run said it read. */
void
model_always_ask(struct model *m, struct model_effect *eff)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	char *glob = NULL;
	struct pending *p;

	if (model_group_ids(m, &ids, &n, &glob)) {
		free(ids);
		free(glob);
		model_message(m, MSG_INFO, "W writes one request's rule: Enter "
		    "opens the group's first");
		return;
	}
	if ((p = model_answerable(m, true)) == NULL)
		return;
	if (p->kind != KIND_WRITE && p->kind != KIND_HTTP) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": W (always) is offered "
		    "for writes, a line under [files] allow, and HTTP requests, "
		    "one under [network] allow; A allows for the run", p->id);
		return;
	}
	if (p->kind == KIND_HTTP && strpbrk(p->subject, "*?[\\") != NULL) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": W (always): its path "
		    "holds a glob character, a rule would allow more; A allows "
		    "for the run", p->id);
		return;
	}
	if (p->rule_wire == NULL) {
		model_message(m, MSG_WARN, "#%" PRIu64 ": the supervisor did "
		    "not say which rule it would store", p->id);
		return;
	}
	if (m->always_off != NULL) {
		model_message(m, MSG_WARN, "W: not offered: %s", m->always_off);
		return;
	}
	if (*m->run.policy == '\0') {
		model_message(m, MSG_WARN, "the run did not say which policy "
		    "file it read: nothing to write into");
		return;
	}
	model_answer_reset(m);
	m->answer.request = p->id;
	snprintf(m->answer.note, sizeof m->answer.note, "always, from run %.16s",
	    m->run.id);
	eff->kind = EFFECT_ALWAYS_PLAN;
	eff->request = p->id;
	eff->rule = p->rule_wire;
	eff->file = m->run.policy;
	eff->comment = m->answer.note;
	model_always_target(p, eff);
}

void
model_always_plan(struct model *m, uint64_t id, unsigned line,
    const char *shown, const char *why)
{
	struct pending *p = model_pending_get(m, id);

	if (p == NULL || p->sent != VERDICT_NONE || m->answer.ask != ASK_NONE ||
	    m->answer.request != id)
		return;
	if (why != NULL) {
		cleanup_free char *w = escape_str(why);

		model_message(m, MSG_WARN, "W: not offered: %s", w);
		return;
	}
	m->answer.ask = ASK_ALWAYS;
	m->answer.verdict = VERDICT_ALLOW;
	m->answer.file = escape_str(m->run.policy);
	m->answer.line = line;
	m->answer.shown = escape_str(shown);
}

void
model_always_done(struct model *m, uint64_t id, unsigned line,
    const char *why)
{
	struct pending *p = model_pending_get(m, id);
	cleanup_free char *file = escape_str(m->run.policy);

	if (why != NULL) {
		cleanup_free char *w = escape_str(why);

		if (p != NULL && p->sent == VERDICT_ALLOW)
			p->sent = VERDICT_NONE;
		model_message(m, MSG_ERROR, "#%" PRIu64 ": nothing written or "
		    "sent: %s", id, w);
		return;
	}
	model_message(m, MSG_INFO, "allow #%" PRIu64 " always: written to %s "
	    "line %u, sent", id, file, line);
}

static void
model_reason_ask(struct model *m)
{
	struct pending *p = model_answerable(m, false);

	if (p == NULL)
		return;
	model_answer_reset(m);
	m->answer = (struct model_answer){ .ask = ASK_REASON,
	    .request = p->id, .verdict = VERDICT_DENY };
}

static void
model_deny_all_ask(struct model *m)
{
	uint64_t *ids = xcalloc(m->n_pending + 1, sizeof *ids);
	size_t n = 0;

	for (size_t i = 0; i < m->n_pending; i++)
		if (m->pending[i]->sent == VERDICT_NONE)
			ids[n++] = m->pending[i]->id;
	if (n == 0) {
		free(ids);
		model_message(m, MSG_INFO, "nothing pending to deny");
		return;
	}
	model_answer_reset(m);
	m->answer = (struct model_answer){ .ask = ASK_DENY_ALL,
	    .verdict = VERDICT_DENY, .ids = ids, .n_ids = n };
}

/* y on a group or on all: those still pending and not answered. */
static void
model_answer_many(struct model *m, struct model_effect *eff)
{
	size_t k = 0;

	for (size_t i = 0; i < m->answer.n_ids; i++) {
		struct pending *p = model_pending_get(m, m->answer.ids[i]);

		if (p == NULL || p->sent != VERDICT_NONE)
			continue;
		p->sent = m->answer.verdict;
		m->answer.ids[k++] = p->id;
	}
	m->answer.n_ids = k;
	eff->kind = EFFECT_DECIDE_MANY;
	eff->verdict = m->answer.verdict;
	eff->scope = SCOPE_ONCE;
	eff->requests = m->answer.ids;
	eff->n_requests = k;
	model_message(m, MSG_INFO, "%s %zu request%s once each: sent",
	    verdict_name(m->answer.verdict), k, k == 1 ? "" : "s");
}

/* The answer of a prompt: y sends what was shown, any other key is a
 * no. The ids stay with the model until the next prompt (eff points at
 * them). */
static void
model_answer_confirm(struct model *m, enum action a,
    struct model_effect *eff)
{
	struct pending *p = model_pending_get(m, m->answer.request);
	enum model_ask ask = m->answer.ask;

	m->answer.ask = ASK_NONE;
	if (a != ACTION_YES) {
		model_message(m, MSG_INFO, "cancelled: nothing sent");
		return;
	}
	if (ask == ASK_GROUP || ask == ASK_DENY_ALL) {
		model_answer_many(m, eff);
		return;
	}
	if (p == NULL || p->sent != VERDICT_NONE || p->rule_wire == NULL)
		return;
	if (ask == ASK_ALWAYS) {
		p->sent = VERDICT_ALLOW;
		eff->kind = EFFECT_ALWAYS;
		eff->request = p->id;
		eff->verdict = VERDICT_ALLOW;
		eff->scope = SCOPE_RUN;
		eff->rule = p->rule_wire;
		eff->file = m->run.policy;
		eff->comment = m->answer.note;
		eff->line = m->answer.line;
		model_always_target(p, eff);
		return;
	}
	p->sent = m->answer.verdict;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = m->answer.verdict;
	eff->scope = SCOPE_RUN;
	eff->rule = p->rule_wire;
	model_message(m, MSG_INFO, "%s #%" PRIu64 " for the run: sent",
	    verdict_name(m->answer.verdict), p->id);
}

/* UTF-8 of a key's code point into the reason, if it fits. */
static void
model_reason_put(struct model *m, int key)
{
	char buf[4];
	size_t n;
	unsigned c = (unsigned)key;

	if (c < 0x80) {
		buf[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		buf[0] = (char)(0xc0 | (c >> 6));
		buf[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000)
			return;
		buf[0] = (char)(0xe0 | (c >> 12));
		buf[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else if (c < 0x110000) {
		buf[0] = (char)(0xf0 | (c >> 18));
		buf[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		buf[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		buf[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	} else
		return;
	if (m->answer.reason_len + n > MODEL_REASON_MAX)
		return;
	memcpy(m->answer.reason + m->answer.reason_len, buf, n);
	m->answer.reason_len += n;
	m->answer.reason[m->answer.reason_len] = '\0';
}

/* A key while a reason is typed: text, Backspace, Enter sends the deny
 * with it, Esc cancels. Control characters and other keys are dropped:
 * the reason holds printable text only. */
void
model_reason_key(struct model *m, int key, struct model_effect *eff)
{
	struct pending *p;

	if (m->answer.ask == ASK_GONE) {
		if (key == KEYS_ESC || key == '\r' || key == '\n' ||
		    key == KEYS_ENTER)
			model_answer_reset(m);
		return;
	}
	if (key == KEYS_ESC) {
		model_answer_reset(m);
		model_message(m, MSG_INFO, "cancelled: nothing sent");
		return;
	}
	if (key == KEYS_BACKSPACE || key == 0x7f || key == KEYS_CTRL('h')) {
		while (m->answer.reason_len > 0 &&
		    ((unsigned char)m->answer.reason[--m->answer.reason_len] &
		    0xc0) == 0x80)
			;
		m->answer.reason[m->answer.reason_len] = '\0';
		return;
	}
	if (key == '\r' || key == '\n' || key == KEYS_ENTER) {
		m->answer.ask = ASK_NONE;
		p = model_pending_get(m, m->answer.request);
		if (p == NULL || p->sent != VERDICT_NONE)
			return;
		p->sent = VERDICT_DENY;
		eff->kind = EFFECT_DECIDE;
		eff->request = p->id;
		eff->verdict = VERDICT_DENY;
		eff->scope = SCOPE_ONCE;
		eff->reason = m->answer.reason_len > 0 ? m->answer.reason :
		    NULL;
		model_message(m, MSG_INFO, "deny #%" PRIu64 " with a reason: "
		    "sent", p->id);
		return;
	}
	if (key >= ' ' && key != 0x7f && key < KEYS_UP &&
	    !(key >= 0x80 && key < 0xa0))
		model_reason_put(m, key);
}

/* A key while an answer asks (y sends, any other cancels) or the rules
 * list is open (any key closes it; Esc and q only that): true when the
 * key is used up. */
bool
model_answer_takes(struct model *m, enum action a, struct model_effect *eff)
{
	if (m->answer.ask != ASK_NONE) {
		model_answer_confirm(m, a, eff);
		return true;
	}
	if (m->rules.open && a != ACTION_RULES) {
		m->rules.open = false;
		return a == ACTION_CLOSE || a == ACTION_QUIT;
	}
	return false;
}

/* The keys of answers that ask first, and the rules list. */
void
model_answer_action(struct model *m, enum action a, struct model_effect *eff)
{
	if (a == ACTION_ALLOW_RUN || a == ACTION_DENY_RUN)
		model_rule_ask(m, a == ACTION_ALLOW_RUN ? VERDICT_ALLOW :
		    VERDICT_DENY);
	else if (a == ACTION_DENY_REASON)
		model_reason_ask(m);
	else if (a == ACTION_DENY_ALL)
		model_deny_all_ask(m);
	else if (a == ACTION_RULES) {
		m->rules.open = !m->rules.open;
		if (m->rules.open)
			eff->kind = EFFECT_RULES;
	}
}

enum model_prompt
model_prompt(const struct model *m)
{
	if (m->confirm_quit)
		return PROMPT_QUIT;
	if (m->ev.editing)
		return PROMPT_FILTER;
	if (m->pasting)
		return PROMPT_PASTE;
	if (m->answer.ask == ASK_REASON || m->answer.ask == ASK_GONE)
		return PROMPT_REASON;
	if (m->answer.ask != ASK_NONE)
		return PROMPT_ANSWER;
	if (m->confirm_kill)
		return PROMPT_KILL;
	if (m->diff.open && m->diff.confirm != DIFF_OP_NONE)
		return PROMPT_DIFF;
	return PROMPT_NONE;
}

bool
model_prompt_open(const struct model *m)
{
	return model_prompt(m) != PROMPT_NONE;
}

const char *
model_run_label(const struct model *m)
{
	if (*m->run.name != '\0')
		return m->run.name;
	return *m->run.id != '\0' ? m->run.id : "?";
}

static char *
model_ask_text_1(const struct model *m)
{
	const struct pending *p = model_pending_find(m, m->answer.request);
	cleanup_free char *reason = NULL;

	switch (m->answer.ask) {
	case ASK_NONE:
		break;
	case ASK_RULE:
		if (p == NULL)
			break;
		return xasprintf("%s for the run #%" PRIu64 ", stores the rule: "
		    "%s %s %s - y stores it, any other key cancels",
		    verdict_name(m->answer.verdict), p->id,
		    verdict_name(m->answer.verdict), request_kind_name(p->kind),
		    p->rule);
	case ASK_REASON:
		reason = escape_str(m->answer.reason);
		return xasprintf("deny #%" PRIu64 ", reason: %s_  (Enter sends, "
		    "Esc cancels)", m->answer.request, reason);
	case ASK_GONE:
		return xasprintf("#%" PRIu64 " ended before the reason was "
		    "sent: nothing sent - Enter or Esc closes this, other keys "
		    "do nothing", m->answer.request);
	case ASK_GROUP:
		return xasprintf("%s %zu %s requests in %s, once each (no rule "
		    "stored) - y sends, any other key cancels",
		    verdict_name(m->answer.verdict), m->answer.n_ids,
		    p != NULL ? request_kind_name(p->kind) : "",
		    m->answer.glob);
	case ASK_DENY_ALL:
		return xasprintf("deny every pending request of this run (%zu) "
		    "- y sends, any other key cancels", m->answer.n_ids);
	case ASK_ALWAYS:
		if (p == NULL)
			break;
		return xasprintf("allow #%" PRIu64 " always: writes %s, [%s] "
		    "line %u: %s%s - y writes it and allows for the run, any "
		    "other key cancels", p->id, m->answer.file,
		    p->kind == KIND_HTTP ? "network" : "files", m->answer.line,
		    m->answer.shown + strspn(m->answer.shown, " \t"),
		    m->answer.shown[0] == ' ' || m->answer.shown[0] == '\t' ?
		    " (under allow =)" : "");
	}
	return NULL;
}

char *
model_ask_text(const struct model *m)
{
	char *text = model_ask_text_1(m), *named;

	/* With every run in one console, the question names its run. */
	if (text == NULL || !m->many_runs ||
	    (*m->run.name == '\0' && *m->run.id == '\0'))
		return text;
	named = xasprintf("run %s: %s", *m->run.name != '\0' ? m->run.name :
	    m->run.id, text);
	free(text);
	return named;
}

/* ---- the trailing silence of an approve (MODEL_TRAIL_MS) ---- */

/* Does the effect allow something (a request, a group, a rule)? */
bool
model_effect_allows(const struct model_effect *eff)
{
	switch (eff->kind) {
	case EFFECT_DECIDE_MANY:
		if (eff->n_requests == 0)
			break;
		/* FALLTHROUGH */
	case EFFECT_DECIDE:
		return eff->verdict == VERDICT_ALLOW ||
		    eff->verdict == VERDICT_STAGE;
	case EFFECT_ALWAYS:
		return true;
	case EFFECT_NONE:
	case EFFECT_DIFF_LOAD:
	case EFFECT_DIFF_ACT:
	case EFFECT_RULES:
	case EFFECT_ALWAYS_PLAN:
	case EFFECT_KILL:
	case EFFECT_QUIT:
		break;
	}
	return false;
}

static char *
model_dup_or_null(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

/* An allowing effect becomes a held one: nothing is marked sent until
 * model_tick sends it. */
void
model_hold_start(struct model *m, struct model_effect *eff, int64_t at)
{
	struct model_hold *h;

	model_hold_clear(m);
	h = &m->hold;
	h->active = true;
	h->due = at + MODEL_TRAIL_MS;
	h->eff = *eff;
	if (eff->kind == EFFECT_DECIDE_MANY) {
		h->ids = xcalloc(eff->n_requests + 1, sizeof *h->ids);
		memcpy(h->ids, eff->requests, eff->n_requests * sizeof *h->ids);
		h->n_ids = eff->n_requests;
	} else {
		h->ids = xcalloc(1, sizeof *h->ids);
		h->ids[0] = eff->request;
		h->n_ids = 1;
	}
	h->eff.requests = h->ids;
	h->eff.rule = h->rule = model_dup_or_null(eff->rule);
	h->eff.file = h->file = model_dup_or_null(eff->file);
	h->eff.comment = h->comment = model_dup_or_null(eff->comment);
	h->eff.entry = h->entry = model_dup_or_null(eff->entry);
	h->sent_msg = model_dup_or_null(m->message);
	for (size_t i = 0; i < h->n_ids; i++) {
		struct pending *p = model_pending_get(m, h->ids[i]);

		if (p != NULL)
			p->sent = VERDICT_NONE;
	}
	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	if (h->n_ids == 1)
		model_message(m, MSG_INFO, "allowing #%" PRIu64 "... (any key "
		    "now cancels)", h->ids[0]);
	else
		model_message(m, MSG_INFO, "allowing %zu requests... (any key "
		    "now cancels)", h->n_ids);
}

void
model_hold_drop(struct model *m)
{
	if (!m->hold.active)
		return;
	if (m->hold.n_ids == 1)
		model_message(m, MSG_WARN, "ignored: keys were still arriving: "
		    "#%" PRIu64 " not allowed", m->hold.ids[0]);
	else
		model_message(m, MSG_WARN, "ignored: keys were still arriving: "
		    "nothing allowed");
	m->hold.active = false;
}

int64_t
model_due(const struct model *m)
{
	return m->hold.active ? m->hold.due : 0;
}

bool
model_tick(struct model *m, struct model_effect *eff)
{
	struct model_hold *h = &m->hold;
	enum verdict v = h->eff.kind == EFFECT_ALWAYS ? VERDICT_ALLOW :
	    h->eff.verdict;
	size_t k = 0;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	if (!h->active || m->now_mono < h->due)
		return false;
	h->active = false;
	/* Answered elsewhere or ended while it waited: not again. */
	for (size_t i = 0; i < h->n_ids; i++) {
		struct pending *p = model_pending_get(m, h->ids[i]);

		if (p != NULL && p->sent == VERDICT_NONE)
			h->ids[k++] = h->ids[i];
	}
	if (k == 0) {
		model_message(m, MSG_INFO, "nothing sent: the request ended "
		    "before the allow went");
		return false;
	}
	for (size_t i = 0; i < k; i++)
		model_pending_get(m, h->ids[i])->sent = v;
	h->n_ids = k;
	*eff = h->eff;
	eff->n_requests = h->eff.kind == EFFECT_DECIDE_MANY ? k : 0;
	if (h->sent_msg != NULL)
		model_message(m, MSG_INFO, "%s", h->sent_msg);
	else
		model_message_clear(m);
	return true;
}
