/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The request targets an HTTP rule may judge (issue 29): canonical ones
 * only. A rule ("allow = api.test:443 GET /ok/" "**") is a glob on the path
 * as the gate sees it; the server reads the path again, and many read it
 * otherwise: Tomcat and Spring drop ";params" ("/ok/..;/admin" is
 * "/admin"), IIS decodes "%u002e", most servers decode "%2e" and merge
 * "//", Windows servers take "\" for "/". A path that any of them could
 * read as another path is refused, never rewritten: the gate forwards
 * exactly the bytes the rule matched.
 *
 * Canonical here is: origin-form ("/" first: no absolute URL, no "*"),
 * no fragment, only RFC 3986's characters, and the path the same after
 * one round of percent-decoding of unreserved characters and dot-segment
 * removal (RFC 3986 6.2.2.2, 5.2.4). So the path has
 *   - no "." or ".." segment and no empty one but the last ("//");
 *   - no ';' (a path parameter), '\', or byte outside pchar and '/';
 *   - every '%' followed by two hex digits (no "%u002e"), and none that
 *     encodes an unreserved character ("%2e", "%41"), '/', '\', ';',
 *     a control or NUL, or a '%' before a hex digit ("%252e": decoded
 *     twice, a dot);
 *   - encoded bytes above 0x7f only as shortest-form UTF-8 ("%c0%ae",
 *     an overlong '.', is refused) and no look-alike of an ASCII
 *     character that a server folding Unicode (NFKC, Windows' best fit)
 *     would read as '.', '/' or '\' (U+FF0E, U+2215 ...).
 * The query (after '?') is not matched by rules: only RFC 3986's query
 * characters (and '[' ']', which clients send raw) and well-formed
 * escapes.
 */
#include <stdbool.h>

/* NULL when target (a request-target, NUL-terminated) is canonical, or
 * why not: a static phrase ("a ; path parameter"). */
const char *httppath_check(const char *target);

/* An unreserved character (RFC 3986 2.3): a letter, a digit, - . _ ~;
 * what a URL or a form's value carries as it is. */
bool	httppath_unreserved(unsigned char c);
