/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A [secret] added to a policy built in a test of ward-gate: its value
 * from the environment variable of its name, bound to host:443, sent in
 * header as the value itself ("{}").
 */
#include "config/policy.h"
#include "config/util.h"

static inline void
add_secret(struct policy *p, const char *name, const char *host,
    const char *header)
{
	struct policy_secret *sc;

	p->secrets = xreallocarray(p->secrets, p->n_secrets + 1,
	    sizeof *p->secrets);
	sc = &p->secrets[p->n_secrets++];
	*sc = (struct policy_secret){ 0 };
	sc->name = xstrdup(name);
	sc->from = xasprintf("env:%s", name);
	sc->hosts = xcalloc(1, sizeof *sc->hosts);
	sc->hosts[0].host = xstrdup(host);
	sc->hosts[0].port_lo = sc->hosts[0].port_hi = 443;
	sc->n_hosts = 1;
	sc->header = xstrdup(header);
	sc->header_value = xstrdup("{}");
}
