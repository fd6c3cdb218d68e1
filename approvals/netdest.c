/* SPDX-License-Identifier: MIT */
#include "approvals/netdest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"

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
