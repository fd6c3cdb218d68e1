/* SPDX-License-Identifier: MIT */
#include "tui/shellwrap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"

/* "bash -lc " and the like at the start of line: what follows, or NULL. */
static const char *
shellwrap_shell(const char *line)
{
	static const char *const shells[] = { "bash", "sh", "dash", "zsh" };
	/* the longer first: " -c " is the start of " -c -l " */
	static const char *const flags[] = { " -c -l ", " -l -c ", " -lc ",
	    " -c " };
	const char *word_end = strchr(line, ' ');
	const char *base;
	size_t n;

	if (word_end == NULL)
		return NULL;
	/* the program's base name: the last '/' before the first space */
	for (base = word_end; base > line && base[-1] != '/'; base--)
		;
	n = (size_t)(word_end - base);
	for (size_t i = 0; i < sizeof shells / sizeof *shells; i++) {
		if (strlen(shells[i]) != n || strncmp(base, shells[i], n) != 0)
			continue;
		for (size_t j = 0; j < sizeof flags / sizeof *flags; j++) {
			size_t f = strlen(flags[j]);

			if (strncmp(word_end, flags[j], f) == 0)
				return word_end + f;
		}
	}
	return NULL;
}

/*
 * One shell word at s, unquoted, until an unquoted blank: '...' taken as
 * is, "..." with \ before $ ` " \ dropped, a bare \ keeping what follows.
 * NULL when a quote is not closed (then the line is shown as it is).
 */
static char *
shellwrap_word(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	while (*s != '\0' && *s != ' ' && *s != '\t') {
		if (*s == '\'') {
			const char *e = strchr(s + 1, '\'');

			if (e == NULL)
				goto unclosed;
			memcpy(o, s + 1, (size_t)(e - s - 1));
			o += e - s - 1;
			s = e + 1;
		} else if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (*s == '\0')
					goto unclosed;
				if (*s == '\\' && s[1] != '\0' &&
				    strchr("$`\"\\", s[1]) != NULL)
					s++;
				*o++ = *s;
			}
			s++;
		} else if (*s == '\\' && s[1] != '\0') {
			*o++ = s[1];
			s += 2;
		} else
			*o++ = *s++;
	}
	*o = '\0';
	return out;
unclosed:
	free(out);
	return NULL;
}

/* Claude Code's Bash tool: a shell snapshot sourced, then eval WORD. */
static char *
shellwrap_claude(const char *script)
{
	const char *eval;

	if (strstr(script, "shell-snapshots/snapshot-") == NULL &&
	    !str_has_prefix(script, "shopt "))
		return NULL;
	if ((eval = strstr(script, "&& eval ")) == NULL)
		return NULL;
	return shellwrap_word(eval + strlen("&& eval "));
}

char *
shellwrap_command(const char *line)
{
	const char *script = shellwrap_shell(line);
	char *inner;

	if (script == NULL)
		return NULL;
	while (*script == ' ')
		script++;
	if ((inner = shellwrap_claude(script)) == NULL)
		inner = xstrdup(script);
	if (*inner == '\0' || strcmp(inner, line) == 0) {
		free(inner);
		return NULL;
	}
	return inner;
}
