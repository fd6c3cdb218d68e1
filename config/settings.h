/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The person's own console settings: the [console] section of
 * $XDG_CONFIG_HOME/ward/ward.ini (the file that is also the default
 * policy; the policy parser checks [console] with settings_value() and
 * the same prefix rule, and its run keeps the prefix). Keys:
 *   notify_cmd   = a command line, run by /bin/sh -c when a request has
 *                  waited notify_after seconds (tui/hook.h: off the loop,
 *                  bounded; the request is in WARD_* variables, never in
 *                  the command's text)
 *   notify_after = seconds, 1..86400 (default SETTINGS_NOTIFY_AFTER)
 *   prefix       = the agent pane's prefix key as text ("^]", "C-a"),
 *                  for the console to parse (tui/keys.h)
 * Read once, by settings_load(); one reader for every [console] key.
 */
#include <stdbool.h>

#define SETTINGS_NOTIFY_AFTER	60

struct settings {
	char		*path;		/* the file read, or NULL when none */
	char		*notify_cmd;	/* NULL: no hook */
	unsigned	 notify_after;	/* seconds */
	char		*prefix;	/* NULL: not set */
};

/*
 * Reads path, or the XDG ward.ini when path is NULL. A missing file is
 * no settings (0, the defaults). -EINVAL with *cause naming file, line
 * and key for a bad [console] key or value (the defaults stay in *s,
 * with what was read before it); -errno when the file cannot be read.
 */
int	settings_load(const char *path, struct settings *s, char **cause);
void	settings_done(struct settings *s);
/* One [console] key's value into *s (NULL: only checked): 0, -EINVAL
 * with *why for a bad value, -ENOENT with *why for an unknown key. The
 * policy checks its [console] keys with it too (config/policy-run.c). */
int	settings_value(struct settings *s, const char *name, const char *value,
	    char **why);
/* A prefix key as written: "^]", "C-a", "Ctrl-a" or "Ctrl+a" (any case):
 * 0 and *c its control character's letter, '@' to '_' ('A' for C-a),
 * or -EINVAL. The policy and the console read it with this one rule. */
int	settings_prefix_parse(const char *v, int *c);
