/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward agent NAME [ARGS]: an agent's recipe (share/agents/) run on the
 * current folder as its project, in the agent pane: `ward agent claude`
 * is `ward run --policy .../claude-code.ini --project . --chdir .
 * --agent -- claude`.
 */
#include <getopt.h>

extern const struct option agent_opts[];

int	agent_main(int argc, char **argv, const char *argv0);
