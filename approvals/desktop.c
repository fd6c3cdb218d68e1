#include "approvals/desktop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libnotify/notify.h>

#include "config/escape.h"
#include "config/util.h"

static bool desktop_initialised;

static bool
desktop_env_set(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0';
}

bool
desktop_available(void)
{
	return desktop_env_set("DISPLAY") ||
	    desktop_env_set("WAYLAND_DISPLAY") ||
	    desktop_env_set("DBUS_SESSION_BUS_ADDRESS");
}

/*
 * Notification servers read the body as a small markup language: a path
 * like "<b>" or "&amp;" would be obeyed. Control characters, bidi and
 * invisible characters are shown as escapes first (config/escape.h), then
 * the three markup characters are replaced by entities.
 */
static char *
desktop_markup_escape(const char *s)
{
	cleanup_free char *e = escape_str(s);
	size_t n = 0;
	char *out, *o;

	for (const char *p = e; *p != '\0'; p++)
		n += *p == '&' ? 5 : (*p == '<' || *p == '>') ? 4 : 1;
	out = o = xmalloc(n + 1);
	for (const char *p = e; *p != '\0'; p++) {
		switch (*p) {
		case '&':
			memcpy(o, "&amp;", 5);
			o += 5;
			break;
		case '<':
			memcpy(o, "&lt;", 4);
			o += 4;
			break;
		case '>':
			memcpy(o, "&gt;", 4);
			o += 4;
			break;
		default:
			*o++ = *p;
			break;
		}
	}
	*o = '\0';
	return out;
}

int
desktop_notify(const char *summary, const char *body)
{
	cleanup_free char *s = NULL;
	cleanup_free char *b = NULL;
	NotifyNotification *n;
	GError *err = NULL;
	gboolean ok;

	if (!desktop_available())
		return -ENOTSUP;
	if (!desktop_initialised) {
		if (!notify_init("ward"))
			return -ENOTSUP;
		desktop_initialised = true;
	}
	/* The summary is plain text by the notification spec; only the
	 * body is read as markup. */
	s = escape_str(summary != NULL ? summary : "ward");
	b = body != NULL ? desktop_markup_escape(body) : NULL;
	n = notify_notification_new(s, b, NULL);
	if (n == NULL)
		return -ENOMEM;
	notify_notification_set_urgency(n, NOTIFY_URGENCY_CRITICAL);
	notify_notification_set_timeout(n, NOTIFY_EXPIRES_DEFAULT);
	ok = notify_notification_show(n, &err);
	g_object_unref(n);
	if (!ok) {
		/* No server on the bus (or no bus): the session is not a
		 * desktop after all. Best effort, so no cause is kept. */
		if (err != NULL)
			g_error_free(err);
		return -ENOTSUP;
	}
	return 0;
}
