/* SPDX-License-Identifier: MIT */
#include "approvals/netrules.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/util.h"

/* Never reachable unless the policy replaces this list (DESIGN §5):
 * link-local (cloud metadata), the host's loopback (the sandbox's own is
 * decided before), private ranges, and "this network". */
static const char *const builtin_never[] = {
	"169.254.0.0/16", "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12",
	"192.168.0.0/16", "0.0.0.0/8", "100.64.0.0/10",
	"::1/128", "fc00::/7", "fe80::/10", "::/128",
};

/* "10.0.0.0/8", "fe80::/10", "1.2.3.4", "::1" against d. */
static bool
cidr_match(const char *text, const struct net_dest *d)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned char net[16];
	const char *slash;
	int family, bits;

	snprintf(buf, sizeof buf, "%s", text);
	slash = strchr(text, '/');
	if (slash != NULL)
		buf[slash - text] = '\0';
	family = strchr(buf, ':') != NULL ? AF_INET6 : AF_INET;
	if (family != d->family || inet_pton(family, buf, net) != 1)
		return false;
	bits = slash != NULL ? atoi(slash + 1) : (family == AF_INET ? 32 : 128);
	for (int i = 0; i < bits / 8; i++)
		if (net[i] != d->addr[i])
			return false;
	if (bits % 8 != 0) {
		unsigned char mask = (unsigned char)(0xff << (8 - bits % 8));

		if ((net[bits / 8] & mask) != (d->addr[bits / 8] & mask))
			return false;
	}
	return true;
}

static bool
is_address(const char *host)
{
	unsigned char b[16];
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;

	snprintf(buf, sizeof buf, "%s", host);
	if ((slash = strchr(buf, '/')) != NULL)
		*slash = '\0';
	return inet_pton(AF_INET, buf, b) == 1 || inet_pton(AF_INET6, buf, b) == 1;
}

bool
netrules_entry_match(const struct policy_host *h, const struct net_dest *d)
{
	if (d->port < h->port_lo || d->port > h->port_hi)
		return false;
	if (is_address(h->host))
		return cidr_match(h->host, d);
	if (d->name == NULL)
		return false;
	if (str_has_prefix(h->host, "*.")) {
		size_t n = strlen(d->name), m = strlen(h->host + 1);

		/* "*.example.com" covers a.example.com, not example.com. */
		return n > m && strcasecmp(d->name + n - m, h->host + 1) == 0;
	}
	return strcasecmp(h->host, d->name) == 0;
}

static char *
entry_text(const char *verb, const struct policy_host *h)
{
	char ports[32] = "";
	const char *r = h->reason;

	if (h->port_lo == h->port_hi)
		snprintf(ports, sizeof ports, ":%u", h->port_lo);
	else if (h->port_lo != 0 || h->port_hi != 65535)
		snprintf(ports, sizeof ports, ":%u-%u", h->port_lo, h->port_hi);
	return xasprintf("%s %s%s%s%s%s", verb, h->host, ports,
	    r ? " (" : "", r ? r : "", r ? ")" : "");
}

/* A [secret]'s hosts: where its value may go, so allowed (and
 * intercepted). */
static bool
secret_host(const struct policy *p, const struct net_dest *d, char **which)
{
	for (size_t i = 0; i < p->n_secrets; i++)
		for (size_t j = 0; j < p->secrets[i].n_hosts; j++)
			if (netrules_entry_match(&p->secrets[i].hosts[j], d)) {
				if (which != NULL)
					*which = xasprintf("secret %s",
					    p->secrets[i].name);
				return true;
			}
	return false;
}

bool
netrules_never(const struct policy *p, const struct net_dest *d, char **which)
{
	if (p->never_set) {
		for (size_t i = 0; i < p->n_net_never; i++)
			if (netrules_entry_match(&p->net_never[i], d)) {
				if (which != NULL)
					*which = entry_text("never",
					    &p->net_never[i]);
				return true;
			}
		return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(builtin_never); i++)
		if (cidr_match(builtin_never[i], d)) {
			if (which != NULL)
				*which = xasprintf("never %s (built in)",
				    builtin_never[i]);
			return true;
		}
	return false;
}

bool
netrules_allowed(const struct policy *p, const struct net_dest *d,
    char **which)
{
	for (size_t i = 0; i < p->n_net_allow; i++)
		if (netrules_entry_match(&p->net_allow[i], d)) {
			if (which != NULL)
				*which = entry_text("allow", &p->net_allow[i]);
			return true;
		}
	return secret_host(p, d, which);
}

bool
netrules_denied(const struct policy *p, const struct net_dest *d, char **which)
{
	for (size_t i = 0; i < p->n_net_deny; i++)
		if (netrules_entry_match(&p->net_deny[i], d)) {
			if (which != NULL)
				*which = entry_text("deny", &p->net_deny[i]);
			return true;
		}
	return false;
}

bool
netrules_intercepts(const struct policy *p, const struct net_dest *d,
    char **which)
{
	for (size_t i = 0; i < p->n_net_allow; i++)
		if (policy_host_is_http(&p->net_allow[i]) &&
		    netrules_entry_match(&p->net_allow[i], d)) {
			if (which != NULL)
				*which = entry_text("allow", &p->net_allow[i]);
			return true;
		}
	return secret_host(p, d, which);
}
