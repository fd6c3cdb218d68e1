#include "approvals/netrules.h"

#include <arpa/inet.h>
#include <errno.h>
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

int
net_dest_from_sockaddr(const void *sa, size_t len, struct net_dest *d)
{
	const struct sockaddr *s = sa;

	memset(d, 0, sizeof *d);
	if (len < sizeof(sa_family_t))
		return -EINVAL;
	if (s->sa_family == AF_INET) {
		const struct sockaddr_in *in = sa;

		if (len < sizeof *in)
			return -EINVAL;
		d->family = AF_INET;
		memcpy(d->addr, &in->sin_addr, 4);
		d->port = ntohs(in->sin_port);
		return 0;
	}
	if (s->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = sa;
		static const unsigned char mapped[12] = {
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
		};

		if (len < sizeof *in6)
			return -EINVAL;
		d->port = ntohs(in6->sin6_port);
		/* ::ffff:169.254.169.254 is 169.254.169.254. */
		if (memcmp(&in6->sin6_addr, mapped, 12) == 0) {
			d->family = AF_INET;
			memcpy(d->addr, (const unsigned char *)&in6->sin6_addr + 12, 4);
		} else {
			d->family = AF_INET6;
			memcpy(d->addr, &in6->sin6_addr, 16);
		}
		return 0;
	}
	return -EAFNOSUPPORT;
}

bool
net_dest_loopback(const struct net_dest *d)
{
	static const unsigned char v6lo[16] = { [15] = 1 };

	if (d->family == AF_INET)
		return d->addr[0] == 127;
	return memcmp(d->addr, v6lo, 16) == 0;
}

static void
addr_text(const struct net_dest *d, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(d->family, d->addr, a, sizeof a);
	snprintf(buf, size, d->family == AF_INET6 ? "[%s]" : "%s", a);
}

char *
net_dest_describe(const struct net_dest *d)
{
	char a[INET6_ADDRSTRLEN + 2];

	addr_text(d, a, sizeof a);
	if (d->name != NULL)
		return xasprintf("%s (%s):%u", d->name, a, d->port);
	return xasprintf("%s:%u", a, d->port);
}

char *
net_dest_key(const struct net_dest *d)
{
	char a[INET6_ADDRSTRLEN + 2];

	if (d->name != NULL)
		return xasprintf("%s:%u", d->name, d->port);
	addr_text(d, a, sizeof a);
	return xasprintf("%s:%u", a, d->port);
}

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
	if (strncmp(h->host, "*.", 2) == 0) {
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
	return false;
}
