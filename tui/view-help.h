/* SPDX-License-Identifier: MIT */
#pragma once
/* The help screen (?): the key table's help lines, then the rules. */
#include "tui/grid.h"
#include "tui/model.h"

void	view_help_draw(const struct model *, struct grid *, int top,
	    int bottom);
