/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Inside tui/fleet.c and tui/fleet-keys.c, not for other callers: what
 * fleet-keys.c (the keys, a group answer across runs) calls in fleet.c
 * (the runs, the queue across them, the selection, the state's resets).
 * Included after tui/fleet.h, whose types it uses; fleet.c calls nothing
 * of fleet-keys.c (tests/includegraph.sh fails on a circle of calls).
 */
#include <stddef.h>

void	fleet_select_run(struct fleet *, size_t i);
void	fleet_step(struct fleet *, long by);
void	fleet_ask_clear(struct fleet *);
void	fleet_sends_free(struct fleet_send *, size_t n);
void	fleet_held_drop(struct fleet *, struct model *);
