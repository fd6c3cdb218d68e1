/* SPDX-License-Identifier: MIT */
/*
 * config/policy.c: the policy file, the one parser of what a user (or a
 * project checked out from elsewhere) writes. Properties: it loads, or
 * fails with -EINVAL and a cause and leaves the defaults; a policy that
 * loads keeps the bytes it parsed and their hash; every [manager NAME]
 * section is found again under its name; every [secret NAME] is whole
 * (from, hosts of one port each, a header with {}) and once; an HTTP
 * rule has a method and a path. A one-line input is also fed to
 * the value parsers the key table uses.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <stdbool.h>

#include "config/policy.h"

static void
fuzz_values(const char *s)
{
	struct policy_host h = { 0 };
	char *why = NULL;
	unsigned secs;
	uint64_t bytes;
	const char *m;

	(void)policy_parse_duration(s, &secs);
	(void)policy_parse_size(s, &bytes);
	if ((m = policy_manager_name(s)) != NULL)
		fuzz_check(strcmp(policy_manager_name(m), m) == 0);
	if (policy_host_parse(s, &h, &why) == 0) {
		fuzz_check(h.host != NULL && h.port_lo <= h.port_hi &&
		    h.port_hi <= 65535);
		free(h.host);
		free(h.reason);
	} else {
		fuzz_check(why != NULL);
	}
	free(why);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), *cause = NULL;
	struct policy p;
	int r = policy_load_string(&p, text, "fuzz.ini", &cause);

	if (r == 0) {
		char *hash = policy_hash(text, strlen(text));

		fuzz_check(cause == NULL);
		fuzz_check(p.text_len == strlen(text) &&
		    strcmp(p.text, text) == 0 && strcmp(p.hash, hash) == 0);
		fuzz_check(p.write == POLICY_ASK || p.write == POLICY_DENY);
		fuzz_check(p.connect == POLICY_ASK || p.connect == POLICY_DENY);
		for (size_t i = 0; i < p.n_managers; i++)
			fuzz_check(policy_manager_find(&p, p.managers[i].name) ==
			    &p.managers[i]);
		for (size_t i = 0; i < p.n_net_allow; i++) {
			const struct policy_host *h = &p.net_allow[i];

			fuzz_check(h->port_lo <= h->port_hi);
			/* An HTTP rule: both fields, one port. */
			fuzz_check((h->method == NULL) == (h->path == NULL));
			fuzz_check(h->path == NULL || (h->path[0] == '/' &&
			    h->port_lo == h->port_hi && h->port_lo != 0));
		}
		/* A [secret] is whole: from, one-port hosts, a header. */
		for (size_t i = 0; i < p.n_secrets; i++) {
			const struct policy_secret *sc = &p.secrets[i];

			fuzz_check(sc->name != NULL && sc->from != NULL &&
			    sc->header != NULL && sc->header_value != NULL &&
			    sc->n_hosts > 0 && strlen(sc->name) < 64);
			fuzz_check(strstr(sc->header_value, "{}") != NULL);
			for (size_t j = 0; j < sc->n_hosts; j++)
				fuzz_check(sc->hosts[j].port_lo ==
				    sc->hosts[j].port_hi);
			for (size_t j = 0; j < i; j++)
				fuzz_check(strcmp(p.secrets[j].name,
				    sc->name) != 0);
		}
		free(hash);
	} else {
		fuzz_check(r == -EINVAL && cause != NULL);
		fuzz_check(p.text == NULL && p.n_writable == 0 &&
		    p.n_managers == 0 && p.n_secrets == 0);
	}
	policy_done(&p);
	free(cause);
	if (strchr(text, '\n') == NULL)
		fuzz_values(text);
	free(text);
	return 0;
}
