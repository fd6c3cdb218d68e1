/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A rule written into a person's own policy file ("always", issue 15):
 * one entry joined to its section's key line (an indented line under it)
 * or a new key or section, the file replaced atomically and only when
 * the result still parses. The console shows where it will go first
 * (policy_edit_plan), then writes it (policy_edit_add_rule).
 */
#include <stdbool.h>

/*
 * Whether the policy file at path may take a rule from the console: the
 * person's own (owned by the real uid, writable, in a folder they may
 * write), never a file of the machine's (/etc, /usr, /opt) or one ward
 * ships (.../share/ward.ini, .../share/ward/, .../share/agents/).
 * 0 or -errno; *why says why not.
 */
int	policy_edit_check(const char *path, char **why);

/*
 * text with "key = value ; comment" added to [section] (comment NULL:
 * none): an indented line after the key's last line when the section
 * has the key, else a key line after the section's last line, else the
 * section and the key at the end. *line: the added line's number (from
 * 1). The text is not parsed here. Pure; the result is malloc'd.
 */
char   *policy_edit_text(const char *text, const char *section,
	    const char *key, const char *value, const char *comment,
	    unsigned *line);

/*
 * Where policy_edit_add_rule would write: *line, and *shown the line as
 * it would read ("  /srv/x ; always, from run ab12"), after the same
 * checks, writing nothing. 0 or -errno with *why.
 */
int	policy_edit_plan(const char *path, const char *section,
	    const char *key, const char *value, const char *comment,
	    unsigned *line, char **shown, char **why);

/*
 * Adds the entry to the file at path: the file must parse before and
 * after (policy_load_string), the value must be one item (no blank, no
 * ';' or '#', no control character; for [network] allow one host or one
 * HTTP rule, "api.x:443 GET /path", its words one blank apart), and
 * when expect_line is not 0 the entry must land on that line (the file
 * changed since it was shown: -ESTALE). Written to a temporary file in the same folder, fsync'd,
 * the mode and owner kept, renamed over the file, the folder fsync'd.
 * *line: where it went. 0 or -errno with *why; on error the file is as
 * it was.
 */
int	policy_edit_add_rule(const char *path, const char *section,
	    const char *key, const char *value, const char *comment,
	    unsigned expect_line, unsigned *line, char **why);
