/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Desktop notification (libnotify), best effort: only where a desktop
 * session exists (DISPLAY, WAYLAND_DISPLAY or DBUS_SESSION_BUS_ADDRESS).
 * Never carries an Allow action: a notification only says something waits.
 *
 * The call never blocks its caller: libnotify talks to the notification
 * daemon over D-Bus and waits for its reply, so each notification is shown
 * by a short-lived child process. At most one is in flight; one that has
 * not finished after DESKTOP_TIMEOUT_MS is killed, and the session is then
 * taken for no desktop (no more notifications), as when no server answers.
 */
#include <stdbool.h>

#define DESKTOP_TIMEOUT_MS 2000

/* Shows one notification, in the child: 0 or -errno. The strings are
 * already escaped (the body for markup). Tests replace it. */
typedef int desktop_backend_fn(const char *summary, const char *body);

bool	desktop_available(void);
/* Returns at once: 0 when the notification went off to be shown, -EBUSY
 * when one is still in flight (this one is dropped), -ENOTSUP when there
 * is no desktop session or an earlier one found no server (or hung), or
 * -errno when no child could be made. Strings are escaped for the
 * notification server's markup by this function; the body keeps its
 * line breaks. */
int	desktop_notify(const char *summary, const char *body);
/* Reaps the notification in flight, or kills it once it is overdue.
 * Cheap; the caller's loop calls it now and then (desktop_notify does). */
void	desktop_poll(void);
/* Kills and reaps the notification in flight, if any. */
void	desktop_done(void);
/* The body as the notification server gets it: each line shown escaped
 * (config/escape.h), then &, < and > as entities; lines joined by '\n'.
 * malloc'd. */
char	*desktop_markup(const char *);
/* Replaces the libnotify backend (NULL: libnotify again) and forgets that
 * an earlier notification failed. For tests. */
void	desktop_set_backend(desktop_backend_fn *);
