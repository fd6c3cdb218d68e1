/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The policy's [network] rules over a destination (DESIGN §5).
 * Order: the sandbox's own loopback is its own business; then never
 * (no person can approve it); then allow; then deny; then ask or deny.
 */
#include <stdbool.h>
#include <stddef.h>

#include "approvals/netdest.h"
#include "config/policy.h"

/* Is dest on the never list (the policy's, or the built-in one)? *which
 * (may be NULL) gets the entry, "never 169.254.0.0/16", malloc'd. */
bool	netrules_never(const struct policy *, const struct net_dest *,
	    char **which);
/* Does a policy allow entry cover dest? By name only through the name
 * the stub resolved for this very address. */
bool	netrules_allowed(const struct policy *, const struct net_dest *,
	    char **which);
/* Does a policy deny entry cover dest (refused without asking)? *which
 * "deny github.com:443 (why)". */
bool	netrules_denied(const struct policy *, const struct net_dest *,
	    char **which);
/*
 * Does the gate terminate TLS to dest (issue 19)? When a [secret]'s
 * hosts or an allow line with a method or path cover it. A secret's
 * hosts are also allowed (netrules_allowed says so, *which "secret
 * NAME"); an HTTP rule allows the connection, its requests are judged
 * by the gate. *which (may be NULL) as netrules_allowed's.
 */
bool	netrules_intercepts(const struct policy *, const struct net_dest *,
	    char **which);
/* Does one entry (host, *.suffix, address or CIDR) match? */
bool	netrules_entry_match(const struct policy_host *, const struct net_dest *);
