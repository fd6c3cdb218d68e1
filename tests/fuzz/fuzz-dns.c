/* SPDX-License-Identifier: MIT */
/*
 * supervisor/dns.c: the DNS stub's reading of a query, the bytes any
 * sandboxed program can send to 127.0.0.1:53 (dns_parse_query). Properties
 * of what it accepts:
 *   - name and key are NUL-terminated within DNS_NAME_MAX;
 *   - a served query's key is a host name: lowercase letters, digits,
 *     '-', '_' and dots, no trailing dot, and the name asked with its
 *     case folded (what decide() sees is what was asked);
 *   - the echo the stub answers with (res_mkquery of name, class, type,
 *     as dns_finish builds it) reads back as the same question.
 */
#include "tests/fuzz/fuzz.h"

#include <arpa/nameser.h>
#include <errno.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdbool.h>
#include <strings.h>

#include "supervisor/dns.h"

static void
fuzz_check_key(const struct dns_question *q)
{
	size_t n = strlen(q->key), nn = strlen(q->name);

	fuzz_check(n > 0 && q->key[n - 1] != '.');
	for (size_t i = 0; i < n; i++) {
		char c = q->key[i];

		fuzz_check((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.');
	}
	fuzz_check(nn == n || (nn == n + 1 && q->name[n] == '.'));
	fuzz_check(strncasecmp(q->name, q->key, n) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dns_question q, echo;
	unsigned char msg[NS_PACKETSZ];
	int n;

	if (dns_parse_query(data, size, &q) < 0)
		return 0;
	fuzz_check(memchr(q.name, '\0', sizeof q.name) != NULL);
	fuzz_check(memchr(q.key, '\0', sizeof q.key) != NULL);
	if (q.served)
		fuzz_check_key(&q);
	else
		fuzz_check(q.key[0] == '\0');

	n = res_mkquery(ns_o_query, q.name, q.class, q.type, NULL, 0, NULL,
	    msg, sizeof msg);
	if (n < NS_HFIXEDSZ)
		return 0;	/* the stub then answers nothing */
	fuzz_check(dns_parse_query(msg, (size_t)n, &echo) == 0);
	fuzz_check(echo.type == q.type && echo.class == q.class);
	fuzz_check(strcmp(echo.name, q.name) == 0);
	if (q.opcode == ns_o_query)
		fuzz_check(echo.served == q.served &&
		    strcmp(echo.key, q.key) == 0);
	return 0;
}
