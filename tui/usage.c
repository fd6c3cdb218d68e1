#include "tui/usage.h"

#include <stdarg.h>
#include <stdio.h>

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
