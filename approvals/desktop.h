#pragma once
/*
 * Desktop notification (libnotify), best effort: only where a desktop
 * session exists (DISPLAY, WAYLAND_DISPLAY or DBUS_SESSION_BUS_ADDRESS).
 * Never carries an Allow action: a notification only says something waits.
 */
#include <stdbool.h>

bool	desktop_available(void);
/* 0, or -errno / -ENOTSUP when there is no desktop session. Strings are
 * escaped for the notification server's markup by this function. */
int	desktop_notify(const char *summary, const char *body);
