/* SPDX-License-Identifier: MIT */
#include "tui/usage.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/escape.h"
#include "config/util.h"

int
usage_error(int status, const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ward %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see 'ward %s --help'\n", verb);
	return status;
}

int
usage_bad_option(int status, const char *verb, char **argv, int opt)
{
	cleanup_free char *e = escape_str(argv[optind - 1]);

	if (opt == ':')
		return usage_error(status, verb, "option '%s' needs a value", e);
	if (!str_has_prefix(argv[optind - 1], "--") && optopt > 32 &&
	    optopt < 127)
		return usage_error(status, verb, "unknown option '-%c'", optopt);
	return usage_error(status, verb, "unknown option '%s'", e);
}
