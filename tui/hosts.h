/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The hosts of `ward console --host H ... / --hosts` (issue 16): the list
 * in $XDG_CONFIG_HOME/ward/hosts, one host a line as ssh takes it
 * (`build1`, `user@build2`, an ssh_config alias), '#' starts a comment,
 * blank lines are skipped. Pure but for hosts_load's read of the file.
 * The console reaches each through `$WARD_SSH -T HOST ward relay`
 * (tui/relay.h) and, when a link breaks, tries again after
 * hosts_backoff(): 1 s, doubling to 30 s.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOSTS_BACKOFF_FIRST_MS	1000
#define HOSTS_BACKOFF_MAX_MS	30000

/* Whether name is a host ssh may be given: not empty, no '-' first (it
 * would be an option), no space or control character, at most 255
 * bytes. */
bool	hosts_valid(const char *name);
/*
 * Adds the hosts of text (the file's contents) to *hosts (a strv, *n
 * long), each once (one already there is skipped). 0, or -EINVAL with
 * *cause naming the line (then nothing is added past it).
 */
int	hosts_parse(const char *text, char ***hosts, size_t *n, char **cause);
/* Adds one host as hosts_parse does (-EINVAL with *cause when invalid). */
int	hosts_add(const char *host, char ***hosts, size_t *n, char **cause);
/* Reads path (NULL: $XDG_CONFIG_HOME/ward/hosts) into *hosts. A file
 * that does not exist adds nothing and is no error. */
int	hosts_load(const char *path, char ***hosts, size_t *n, char **cause);
/* The wait after one of delay_ms (0: the first). */
int64_t	hosts_backoff(int64_t delay_ms);
