#pragma once
/*
 * Network destinations and the policy's [network] rules (DESIGN §5).
 * Order: the sandbox's own loopback is its own business; then never
 * (no person can approve it); then allow; then ask or deny.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "config/policy.h"

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

/* Is dest on the never list (the policy's, or the built-in one)? *which
 * (may be NULL) gets the entry, "never 169.254.0.0/16", malloc'd. */
bool	netrules_never(const struct policy *, const struct net_dest *,
	    char **which);
/* Does a policy allow entry cover dest? By name only through the name
 * the stub resolved for this very address. */
bool	netrules_allowed(const struct policy *, const struct net_dest *,
	    char **which);
/* Does one entry (host, *.suffix, address or CIDR) match? */
bool	netrules_entry_match(const struct policy_host *, const struct net_dest *);
