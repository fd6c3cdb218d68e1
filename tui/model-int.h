/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Inside tui/model.c and its model-*.c parts, not for other callers:
 * what one part calls in another. Included after tui/model.h, whose
 * types it uses (including it here would draw a circle of includes for
 * tests/includegraph.sh). The parts, by job, each calling only those
 * listed after it (a circle of calls fails `make layers`):
 *
 *   model-keys.c    keys and actions dispatched (model_apply_key_at,
 *                   model_apply_action), the panes' moves, the agent pane
 *   model-msg.c     the supervisor's messages applied (model_apply_message)
 *   model-answer.c  answers: a and d, those that ask first (a rule, a
 *                   group, all, a reason, W), the prompts, and the held
 *                   approve sent after its trailing silence (model_tick)
 *   model-diff.c    the diff pane
 *   model.c         the state's life (each part's reset with it), its
 *                   lookups and texts, the request rows (added, removed,
 *                   closed: their fates) and arming (model_note_view)
 */
#include <stdbool.h>
#include <stdint.h>

/* model-answer.c */
void		 model_allow(struct model *, struct model_effect *,
		    enum verdict);
void		 model_deny(struct model *, struct model_effect *);
bool		 model_group_ask(struct model *, enum verdict);
void		 model_always_ask(struct model *, struct model_effect *);
void		 model_reason_key(struct model *, int key,
		    struct model_effect *);
bool		 model_answer_takes(struct model *, enum action,
		    struct model_effect *);
void		 model_answer_action(struct model *, enum action,
		    struct model_effect *);
bool		 model_effect_allows(const struct model_effect *);
void		 model_hold_start(struct model *, struct model_effect *,
		    int64_t at);
void		 model_hold_drop(struct model *);

/* model-diff.c */
void		 model_diff_confirm_key(struct model *, enum action,
		    struct model_effect *);
bool		 model_diff_action(struct model *, enum action,
		    struct model_effect *);

/* model.c */
void		 model_message_clear(struct model *);
struct pending	*model_pending_get(const struct model *, uint64_t id);
bool		 model_quiet(const struct model *);
bool		 model_row_refuse(struct model *, const struct pending *);
void		 model_event_push(struct model *, char *text, enum verdict);
void		 model_detail_close(struct model *);
void		 model_detail_scroll(struct model *, int by);
void		 model_rules_clear(struct model *);
void		 model_answer_reset(struct model *);
void		 model_answer_drop(struct model *);
void		 model_hold_clear(struct model *);
void		 model_diff_clear_files(struct model *);
void		 model_diff_clear_lines(struct model *);
void		 model_pending_add(struct model *, const struct request *);
void		 model_pending_remove(struct model *, uint64_t id);
void		 model_pending_close(struct model *, struct pending *,
		    enum pending_fate, enum verdict);
void		 model_lost_add(struct model *, uint64_t id);
void		 model_pending_clear(struct model *);
uint64_t	 model_first_row_id(const struct model *);
