/* SPDX-License-Identifier: MIT */
#include "approvals/desktop.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libnotify/notify.h>

#include "config/escape.h"
#include "config/util.h"

static int desktop_libnotify(const char *, const char *);

static desktop_backend_fn *desktop_backend = desktop_libnotify;
/* The notification in flight (0: none), and when it started. */
static pid_t desktop_child;
static int64_t desktop_child_ms;
/* An earlier one found no server, or hung: no more. */
static bool desktop_failed;

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

/* The markup entities of one escaped line, appended at o. */
static char *
desktop_entities(char *o, const char *e)
{
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
	return o;
}

/*
 * Notification servers read the body as a small markup language: a path
 * like "<b>" or "&amp;" would be obeyed. Control characters, bidi and
 * invisible characters are shown as escapes first (config/escape.h), line
 * by line so that the body's own line breaks stay line breaks, then the
 * three markup characters are replaced by entities.
 */
char *
desktop_markup(const char *s)
{
	size_t n = strlen(s);
	cleanup_free char *copy = xstrdup(s);
	char *out, *o, *line, *next;

	/* A byte becomes at most 5: an escape (4, all ASCII without
	 * markup) or an entity. */
	if (n > (SIZE_MAX - 1) / 5)
		fatal("desktop: %zu bytes is too long", n);
	out = o = xmalloc(n * 5 + 1);
	for (line = copy; line != NULL; line = next) {
		cleanup_free char *e = NULL;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		e = escape_str(line);
		o = desktop_entities(o, e);
		if (next != NULL)
			*o++ = '\n';
	}
	*o = '\0';
	return xrealloc(out, (size_t)(o - out) + 1);
}

/* In the child: libnotify, and the wait for the daemon's reply. */
static int
desktop_libnotify(const char *summary, const char *body)
{
	NotifyNotification *n;
	GError *err = NULL;
	gboolean ok;

	if (desktop_load() < 0 || !nf.init("ward"))
		return -ENOTSUP;
	n = nf.new_(summary, body, NULL);
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

void
desktop_set_backend(desktop_backend_fn *fn)
{
	desktop_done();
	desktop_backend = fn != NULL ? fn : desktop_libnotify;
	desktop_failed = false;
}

static void
desktop_reaped(int status)
{
	desktop_child = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		desktop_failed = true;
}

void
desktop_poll(void)
{
	int status;
	pid_t r;

	if (desktop_child <= 0)
		return;
	r = waitpid(desktop_child, &status, WNOHANG);
	if (r == desktop_child) {
		desktop_reaped(status);
		return;
	}
	if (r < 0) {
		desktop_child = 0;	/* somebody else reaped it */
		return;
	}
	if (now_mono_ms() - desktop_child_ms >= DESKTOP_TIMEOUT_MS)
		desktop_done();
}

void
desktop_done(void)
{
	int status;

	if (desktop_child <= 0)
		return;
	kill(desktop_child, SIGKILL);
	while (waitpid(desktop_child, &status, 0) < 0 && errno == EINTR)
		;
	desktop_reaped(status);
	/* Killed: it hung, so will the next one. */
	desktop_failed = true;
}

/*
 * The child, which never execs: it loads libnotify and waits on D-Bus,
 * which is not async-signal-safe, and may be so only because the caller
 * (the console) is one thread: no lock is held by another at the fork.
 * The caller's signal handlers and terminal are not its own.
 */
static _Noreturn void
desktop_child_main(const char *summary, const char *body)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE,
	    SIGQUIT, SIGWINCH, SIGTSTP };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	if (null >= 0) {
		/* glib's warnings must not land on the console's screen */
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	_exit(desktop_backend(summary, body) < 0 ? 1 : 0);
}

int
desktop_notify(const char *summary, const char *body)
{
	cleanup_free char *s = NULL;
	cleanup_free char *b = NULL;
	pid_t pid;

	if (!desktop_available())
		return -ENOTSUP;
	desktop_poll();
	if (desktop_failed)
		return -ENOTSUP;
	if (desktop_child > 0)
		return -EBUSY;
	/* The summary is plain text by the notification spec; only the
	 * body is read as markup. Both are made here, not in the child. */
	s = escape_str(summary != NULL ? summary : "ward");
	b = body != NULL ? desktop_markup(body) : NULL;
	if ((pid = fork()) < 0)
		return -errno;
	if (pid == 0)
		desktop_child_main(s, b);
	desktop_child = pid;
	desktop_child_ms = now_mono_ms();
	return 0;
}
