/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The command an agent's shell wrapper runs (issue 30, point 7), so that
 * a request's process line starts with what the agent asked for and not
 * with its tool's plumbing. Two forms are known, on a command line whose
 * words are joined by spaces (supervisor/target.c):
 *
 *   Claude Code's Bash tool:
 *     /bin/bash -c source ~/.claude/shell-snapshots/snapshot-bash-N.sh
 *     && eval 'npm test' < /dev/null && pwd -P >| /tmp/claude-X-cwd
 *   the eval'd word unquoted ('...' with '\'' inside, or "..."): npm test
 *
 *   Codex's and others' login shell: bash -lc npm test   ->  npm test
 *   (bash, sh, dash or zsh, by any path, with -c or -lc)
 *
 * Pure: no I/O. Its input is the program's own bytes, before
 * escape_str (config/escape.h), which doubles backslashes and so would
 * break the quoting; the caller escapes what it returns (tui/model.c).
 */

/* The inner command, malloc'd; NULL when line is no known wrapper (or
 * the wrapper runs nothing). */
char	*shellwrap_command(const char *line);
