/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Network egress (net.c, DESIGN §5): connects judged and made by the
 * supervisor, datagrams and binds kept inside, and the DNS stub's
 * decisions. Parks requests of kind "connect" and "dns".
 */
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/seccomp.h>

struct sup;

/* The trapped calls this file answers. */
void	net_on_connect(struct sup *, const struct seccomp_notif *);
void	net_on_sendto(struct sup *, const struct seccomp_notif *);
void	net_on_bind(struct sup *, const struct seccomp_notif *);
void	net_on_fastopen(struct sup *, const struct seccomp_notif *);
/* What the sandbox's own is: its network namespace (from a socket made
 * in it) and its private mounts. */
void	net_learn_netns(struct sup *, int fd_inside);
void	net_learn_mounts(struct sup *);
/* Start the DNS stub on the sandbox's sockets (its hooks' ctx is s). */
int	net_dns_start(struct sup *, int udp_fd, int tcp_fd, char **cause);
/* The pending connects' poll contract, shaped as dns.h's: the fds to poll
 * (at most max), the same slice back after poll, the next monotonic
 * deadline (0 = none), and the tick once it has passed: the connections
 * a blocking connect() waits for. */
size_t	net_pollfds(struct sup *, struct pollfd *, size_t max);
void	net_on_ready(struct sup *, const struct pollfd *, size_t n);
void	net_tick(struct sup *, int64_t now);
int64_t	net_next_deadline(const struct sup *);
