/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A usage error of a `ward` verb: one line on stderr, "ward VERB: what;
 * see 'ward VERB --help'". Returns status (2 for most verbs; `ward run`
 * and `ward demo` use 125, so that a program's own 2 stays its own).
 */
int	usage_error(int status, const char *verb, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* getopt_long's '?' or ':' (with a leading ':' in its short options) as
 * a usage error: "option '--x' needs a value", "unknown option '-q'". */
int	usage_bad_option(int status, const char *verb, char **argv, int opt);
