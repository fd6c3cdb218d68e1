#include "approvals/desktop.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libnotify/notify.h>

#include "config/escape.h"
#include "config/util.h"

static bool desktop_initialised;

/*
 * libnotify is loaded when a notification is first due, not linked: it
 * brings glib, gio and gdk-pixbuf, which every `ward run` and every CLI
 * verb would otherwise load for nothing, and ward works without it.
 */
static struct {
	gboolean	(*init)(const char *);
	NotifyNotification *(*new_)(const char *, const char *, const char *);
	void		(*set_urgency)(NotifyNotification *, NotifyUrgency);
	void		(*set_timeout)(NotifyNotification *, gint);
	gboolean	(*show)(NotifyNotification *, GError **);
	void		(*unref)(gpointer);
	void		(*error_free)(GError *);
} nf;

static int
desktop_load(void)
{
	void *h;

	if (nf.init != NULL)
		return 0;
	if ((h = dlopen("libnotify.so.4", RTLD_NOW | RTLD_LOCAL)) == NULL)
		return -ENOTSUP;
	*(void **)&nf.init = dlsym(h, "notify_init");
	*(void **)&nf.new_ = dlsym(h, "notify_notification_new");
	*(void **)&nf.set_urgency = dlsym(h, "notify_notification_set_urgency");
	*(void **)&nf.set_timeout = dlsym(h, "notify_notification_set_timeout");
	*(void **)&nf.show = dlsym(h, "notify_notification_show");
	*(void **)&nf.unref = dlsym(h, "g_object_unref");
	*(void **)&nf.error_free = dlsym(h, "g_error_free");
	if (nf.init == NULL || nf.new_ == NULL || nf.set_urgency == NULL ||
	    nf.set_timeout == NULL || nf.show == NULL || nf.unref == NULL ||
	    nf.error_free == NULL) {
		nf.init = NULL;
		return -ENOTSUP;
	}
	return 0;
}

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
		if (desktop_load() < 0 || !nf.init("ward"))
			return -ENOTSUP;
		desktop_initialised = true;
	}
	/* The summary is plain text by the notification spec; only the
	 * body is read as markup. */
	s = escape_str(summary != NULL ? summary : "ward");
	b = body != NULL ? desktop_markup_escape(body) : NULL;
	n = nf.new_(s, b, NULL);
	if (n == NULL)
		return -ENOMEM;
	nf.set_urgency(n, NOTIFY_URGENCY_CRITICAL);
	nf.set_timeout(n, NOTIFY_EXPIRES_DEFAULT);
	ok = nf.show(n, &err);
	nf.unref(n);
	if (!ok) {
		/* No server on the bus (or no bus): the session is not a
		 * desktop after all. Best effort, so no cause is kept. */
		if (err != NULL)
			nf.error_free(err);
		return -ENOTSUP;
	}
	return 0;
}
