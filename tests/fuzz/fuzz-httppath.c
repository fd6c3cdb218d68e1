/* SPDX-License-Identifier: MIT */
/*
 * config/httppath.c: the request targets an HTTP rule may judge.
 * Properties, for any bytes (up to the first NUL) as a target:
 *   - a target httppath_check passes starts with '/' and holds only
 *     printable ASCII (RFC 3986's characters);
 *   - RFC 3986's own algorithms, written apart (tests/rfc3986.h), leave
 *     it as it is: no server that decodes once and removes dot segments
 *     reads another path;
 *   - the answer is the same when asked twice.
 */
#include "tests/fuzz/fuzz.h"

#include "config/httppath.h"
#include "tests/rfc3986.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = fuzz_str(data, size);
	const char *why = httppath_check(t);

	fuzz_check(why == httppath_check(t));
	if (why == NULL) {
		fuzz_check(t[0] == '/');
		for (const unsigned char *c = (const unsigned char *)t; *c; c++)
			fuzz_check(*c > 0x20 && *c < 0x7f);
		fuzz_check(rfc3986_differs(t) == NULL);
	}
	free(t);
	return 0;
}
