/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A network destination as plain data: what a connect or sendto named,
 * copied out of the target and folded (v4-mapped v6 is v4), with the name
 * the DNS stub resolved to it; its text for people and its key for a
 * "for this run" answer. Judged by approvals/netrules.h.
 */
#include <stdbool.h>
#include <stddef.h>

struct net_dest {
	int		 family;	/* AF_INET or AF_INET6; v4-mapped folded to v4 */
	unsigned char	 addr[16];
	unsigned	 port;
	const char	*name;		/* the name the DNS stub resolved to addr, or NULL */
};

/* From a sockaddr copied out of the target; -EAFNOSUPPORT for other
 * families, -EINVAL when too short. */
int	net_dest_from_sockaddr(const void *sa, size_t len, struct net_dest *);
bool	net_dest_loopback(const struct net_dest *);
/* "pypi.org (151.101.0.223):443", "151.101.0.223:443", "[2001:db8::1]:443" */
char	*net_dest_describe(const struct net_dest *);
/* The key a "for this run" answer is remembered by: name:port when the
 * stub named the address, else the address and port. */
char	*net_dest_key(const struct net_dest *);
