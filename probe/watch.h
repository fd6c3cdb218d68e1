/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What the battery watches from outside a run: the canary's snapshots,
 * the sandbox's processes and sockets sampled from /proc, the
 * supervisor's sockets, the host's listeners, the packet watch (root)
 * and the opens of the race's script (inotify).
 */
#include <stdbool.h>
#include <stdint.h>

struct probe;		/* probe/state.h */
struct probe_run;	/* probe/state.h */
struct probe_outside;	/* probe/judge.h */

/* Everything a write could change under dir, one line per entry. */
char	*probe_snapshot(const char *dir);
/* The names whose lines differ ("file, new, ..."), NULL when none. */
char	*probe_snap_diff(const char *before, const char *after);
/* One sample of the run: its init found once it is ready, its tasks,
 * memory and user namespaces, and with def->net its sockets. */
void	 probe_sample(const struct probe *p, struct probe_run *r);
/* The tasks in the sandbox's pid namespace now, their resident memory
 * in *rss; *new_userns set if one is in a user namespace of its own. */
unsigned probe_scan(struct probe_run *r, uint64_t *rss, bool *new_userns);
/* Root's packet socket on every interface, filtered to what must never
 * leave; -1 without CAP_NET_RAW. */
int	 probe_packet_watch(void);
/* What the packet watch caught since last asked (o NULL: forget it). */
void	 probe_drain_packets(const struct probe *p, struct probe_outside *o);
/* Datagrams the host's UDP listener got since last asked. */
unsigned probe_drain_udp(const struct probe *p);
/* Connections the host listener took since last asked. */
unsigned probe_accept_all(const struct probe *p);
/* Opens of the race's script counted by the inotify fd ino. */
unsigned probe_count_opens(int ino);
