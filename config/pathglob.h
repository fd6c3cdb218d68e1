/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The glob protected paths are written in (config/protect.h says what a
 * pattern means where): '*' and '?' do not cross '/', "**" as a whole
 * component matches any number of components (zero included), "{a,b}"
 * alternatives, '\' takes the next byte literally.
 */
#include <stdbool.h>

/*
 * Is a pattern well formed? 0, or -1 with *why set to a static string.
 * A leading "~/" or "/" is taken as it is; what follows must have no
 * empty component, no "." or "..", balanced braces (8 groups at most),
 * 4 "**" components at most, no control character, fewer than 256
 * bytes.
 */
int	pathglob_check(const char *pattern, const char **why);

/*
 * Does `pattern` (relative, no leading '/') match the relative path
 * `path`? `tree`: also when `path` is a folder a match could lie under
 * (the path ends where the pattern still has components). Allocates
 * nothing.
 */
bool	pathglob_match(const char *pattern, const char *path, bool tree);
