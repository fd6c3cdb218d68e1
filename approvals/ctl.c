/* SPDX-License-Identifier: MIT */
#include "approvals/ctl.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"

#define CTL_SUFFIX		".sock"
#define CTL_ID_MAX		64
/* How long a name lookup waits for each run's welcome. */
#define CTL_HELLO_TIMEOUT_MS	2000

/*
 * A run id becomes a file name: letters, digits, '.', '_', '-', not
 * starting with '.', so it can never climb out of the runtime folder.
 */
static bool
ctl_valid_id(const char *run)
{
	size_t n = strlen(run);

	if (n == 0 || n > CTL_ID_MAX || run[0] == '.' || run[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = run[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
		    ch == '-'))
			return false;
	}
	return true;
}

static int
ctl_addr(const char *path, struct sockaddr_un *sa, socklen_t *len,
    char **cause)
{
	size_t n = strlen(path);

	if (n >= sizeof sa->sun_path) {
		set_cause(cause, "socket path %s is too long (%zu bytes, "
		    "at most %zu)", path, n, sizeof sa->sun_path - 1);
		return -ENAMETOOLONG;
	}
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n + 1);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

int
ctl_socket_path(const char *run, char **ret, char **cause)
{
	cleanup_free char *why = NULL;
	cleanup_free char *dir = NULL;
	cleanup_free char *path = NULL;
	struct sockaddr_un sa;
	socklen_t len;
	int r;

	if (!ctl_valid_id(run)) {
		cleanup_free char *e = escape_str(run);

		set_cause(cause, "bad run id \"%s\": use up to %d letters, "
		    "digits, '.', '_' and '-'", e, CTL_ID_MAX);
		return -EINVAL;
	}
	/* paths_runtime_dir always says why; a caller may not want it. */
	if ((r = paths_runtime_dir(&dir, &why)) < 0) {
		if (cause != NULL)
			*cause = steal_ptr(&why);
		return r;
	}
	path = xasprintf("%s/%s" CTL_SUFFIX, dir, run);
	if ((r = ctl_addr(path, &sa, &len, cause)) < 0)
		return r;
	*ret = steal_ptr(&path);
	return 0;
}

/*
 * Connects to path, non-blocking and close-on-exec, and reads the
 * server's credentials (those it had when it called listen()).
 * 0, -ENOENT (no file), -ECONNREFUSED (stale: nobody listens), -EAGAIN
 * (listening, but its backlog is full: *uid is unknown), other -errno.
 */
static int
ctl_dial(const char *path, int *ret_fd, uid_t *uid, char **cause)
{
	cleanup_fd int fd = -1;
	struct sockaddr_un sa;
	struct ucred cred;
	socklen_t len, clen = sizeof cred;
	int r;

	if ((r = ctl_addr(path, &sa, &len, cause)) < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		set_cause(cause, "socket: %s", strerror(errno));
		return r;
	}
	while (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		if (errno == EINTR)
			continue;
		r = -errno;
		if (errno == EWOULDBLOCK)
			r = -EAGAIN;
		set_cause(cause, "cannot connect to %s: %s", path,
		    strerror(errno));
		return r;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		r = -errno;
		set_cause(cause, "SO_PEERCRED on %s: %s", path,
		    strerror(errno));
		return r;
	}
	*uid = cred.uid;
	*ret_fd = steal_fd(&fd);
	return 0;
}

/* Connects and insists the server runs as us: a socket we can reach but
 * that someone else serves would take our decisions elsewhere. */
static int
ctl_dial_ours(const char *path, int *ret_fd, char **cause)
{
	cleanup_fd int fd = -1;
	uid_t uid;
	int r;

	if ((r = ctl_dial(path, &fd, &uid, cause)) < 0)
		return r;
	if (uid != geteuid()) {
		set_cause(cause, "%s is served by uid %u, not by you "
		    "(uid %u); refusing to talk to it", path, (unsigned)uid,
		    (unsigned)geteuid());
		return -EPERM;
	}
	*ret_fd = steal_fd(&fd);
	return 0;
}

static int
ctl_bind(int fd, const struct sockaddr_un *sa, socklen_t len)
{
	mode_t old;
	int r = 0;

	/* bind creates the socket file as 0777 minus the umask: 0177 makes
	 * it 0600 from its first instant, with no chmod race. */
	old = umask(0177);
	if (bind(fd, (const struct sockaddr *)sa, len) < 0)
		r = -errno;
	umask(old);
	return r;
}

int
ctl_listen(const char *path, int *ret_fd, char **cause)
{
	cleanup_fd int fd = -1;
	struct sockaddr_un sa;
	socklen_t len;
	int r;

	if ((r = ctl_addr(path, &sa, &len, cause)) < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		set_cause(cause, "socket: %s", strerror(errno));
		return r;
	}
	r = ctl_bind(fd, &sa, len);
	if (r == -EADDRINUSE) {
		cleanup_fd int probe = -1;
		struct stat st;
		uid_t uid;

		if (lstat(path, &st) < 0) {
			r = -errno;
			set_cause(cause, "%s: %s", path, strerror(errno));
			return r;
		}
		if (!S_ISSOCK(st.st_mode)) {
			set_cause(cause, "%s exists and is not a socket; "
			    "not removing it", path);
			return -EEXIST;
		}
		if (st.st_uid != geteuid()) {
			set_cause(cause, "%s belongs to uid %u; not "
			    "removing it", path, (unsigned)st.st_uid);
			return -EPERM;
		}
		r = ctl_dial(path, &probe, &uid, NULL);
		if (r == 0 || r == -EAGAIN) {
			set_cause(cause, "a supervisor already listens on "
			    "%s", path);
			return -EADDRINUSE;
		}
		if (r != -ECONNREFUSED && r != -ENOENT) {
			set_cause(cause, "cannot tell whether %s is stale: "
			    "%s", path, strerror(-r));
			return r;
		}
		/* Stale: its supervisor died without removing it. */
		if (unlink(path) < 0 && errno != ENOENT) {
			r = -errno;
			set_cause(cause, "cannot remove stale socket %s: "
			    "%s", path, strerror(errno));
			return r;
		}
		r = ctl_bind(fd, &sa, len);
	}
	if (r < 0) {
		set_cause(cause, "cannot bind %s: %s", path, strerror(-r));
		return r;
	}
	if (listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		set_cause(cause, "cannot listen on %s: %s", path,
		    strerror(errno));
		unlink(path);
		return r;
	}
	*ret_fd = steal_fd(&fd);
	return 0;
}

int
ctl_accept(int listen_fd, int *ret_fd, uid_t *uid, pid_t *pid)
{
	cleanup_fd int fd = -1;
	struct ucred cred;
	socklen_t clen = sizeof cred;

	for (;;) {
		fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		/* A client that gave up before we got to it: nobody waits. */
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == ECONNABORTED)
			return -EAGAIN;
		if (errno != EINTR)
			return -errno;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0)
		return -errno;
	/* Reported even when refused, so that the caller can record who. */
	if (uid != NULL)
		*uid = cred.uid;
	if (pid != NULL)
		*pid = cred.pid;
	if (cred.uid != geteuid())
		return -EPERM;
	*ret_fd = steal_fd(&fd);
	return 0;
}

static int
ctl_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ids of answering runs in dir, sorted. */
static int
ctl_list_in(const char *dir, char ***ids, size_t *n)
{
	cleanup_strv char **v = NULL;
	size_t nv = 0;
	DIR *d;
	struct dirent *de;

	if ((d = opendir(dir)) == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name), slen = strlen(CTL_SUFFIX);
		cleanup_free char *id = NULL;
		cleanup_free char *path = NULL;
		cleanup_fd int fd = -1;

		if (len <= slen || strcmp(de->d_name + len - slen,
		    CTL_SUFFIX) != 0)
			continue;
		id = xstrndup(de->d_name, len - slen);
		if (!ctl_valid_id(id))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (ctl_dial_ours(path, &fd, NULL) < 0)
			continue;
		strv_push(&v, &nv, steal_ptr(&id));
	}
	closedir(d);
	if (v == NULL)
		v = xcalloc(1, sizeof *v);
	qsort(v, nv, sizeof *v, ctl_cmp);
	*ids = steal_ptr(&v);
	*n = nv;
	return 0;
}

int
ctl_list(char ***ids, size_t *n)
{
	cleanup_free char *dir = NULL;
	cleanup_free char *cause = NULL;
	int r;

	if ((r = paths_runtime_dir(&dir, &cause)) < 0)
		return r;
	return ctl_list_in(dir, ids, n);
}

/* Asks the run behind path for its name (welcome.run.name). */
static int
ctl_ask_name(const char *path, char **name)
{
	struct proto_conn *c = NULL;
	cleanup_free char *cause = NULL;
	json_t *hello = NULL, *welcome = NULL;
	struct msg_welcome w;
	int fd = -1, r;

	if ((r = ctl_dial_ours(path, &fd, NULL)) < 0)
		return r;
	c = proto_conn_new(fd);
	hello = msg_hello("cli", false);
	r = proto_call(c, hello, "welcome", CTL_HELLO_TIMEOUT_MS, &welcome,
	    &cause);
	json_decref(hello);
	proto_conn_free(c);
	if (r < 0)
		return r;
	if ((r = msg_welcome_parse(welcome, &w, &cause)) == 0)
		*name = w.run.name != NULL ? xstrdup(w.run.name) : NULL;
	msg_welcome_done(&w);
	json_decref(welcome);
	return r;
}

/* "ab12 (demo), cd34" for messages. */
static char *
ctl_describe_runs(const char *dir, char **ids, size_t n)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		cleanup_free char *path = xasprintf("%s/%s" CTL_SUFFIX, dir,
		    ids[i]);
		cleanup_free char *name = NULL;
		cleanup_free char *ename = NULL;
		char *t;

		if (ctl_ask_name(path, &name) == 0 && name != NULL &&
		    *name != '\0') {
			ename = escape_str(name);
			t = xasprintf("%s%s%s (%s)", s, i ? ", " : "", ids[i],
			    ename);
		} else
			t = xasprintf("%s%s%s", s, i ? ", " : "", ids[i]);
		free(s);
		s = t;
	}
	return s;
}

int
ctl_connect(const char *run, int *ret_fd, char **cause)
{
	cleanup_free char *dir = NULL;
	cleanup_free char *erun = escape_str(run);
	cleanup_free char *stale = NULL;
	cleanup_strv char **ids = NULL;
	cleanup_strv char **matches = NULL;
	cleanup_free char *live = NULL;
	size_t n = 0, nmatch = 0;
	int r;

	if ((r = paths_runtime_dir(&dir, cause)) < 0)
		return r;

	/* An id names its socket directly. */
	if (ctl_valid_id(run)) {
		cleanup_free char *path = xasprintf("%s/%s" CTL_SUFFIX, dir,
		    run);
		cleanup_free char *why = NULL;

		r = ctl_dial_ours(path, ret_fd, &why);
		if (r == 0)
			return 0;
		if (r == -ECONNREFUSED)
			stale = xstrdup(path);
		else if (r == -EAGAIN) {
			set_cause(cause, "run %s is not accepting "
			    "connections on %s (backlog full)", erun, path);
			return r;
		} else if (r != -ENOENT) {
			set_cause(cause, "run %s: %s", erun, why);
			return r;
		}
	}

	/* Otherwise it may be a --name: ask every live run for its own. */
	if ((r = ctl_list_in(dir, &ids, &n)) < 0) {
		set_cause(cause, "cannot list %s: %s", dir, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *path = xasprintf("%s/%s" CTL_SUFFIX, dir,
		    ids[i]);
		cleanup_free char *name = NULL;

		if (ctl_ask_name(path, &name) == 0 && name != NULL &&
		    strcmp(name, run) == 0)
			strv_push(&matches, &nmatch, xstrdup(ids[i]));
	}
	if (nmatch == 1) {
		cleanup_free char *path = xasprintf("%s/%s" CTL_SUFFIX, dir,
		    matches[0]);
		cleanup_free char *why = NULL;

		if ((r = ctl_dial_ours(path, ret_fd, &why)) < 0) {
			set_cause(cause, "run %s (%s): %s", matches[0],
			    erun, why);
			return r == -ECONNREFUSED ? -ENOENT : r;
		}
		return 0;
	}
	if (nmatch > 1) {
		cleanup_free char *list = xstrdup("");

		for (size_t i = 0; i < nmatch; i++) {
			char *t = xasprintf("%s%s%s", list, i ? ", " : "",
			    matches[i]);

			free(list);
			list = t;
		}
		set_cause(cause, "run name \"%s\" is ambiguous: runs %s "
		    "have it; use a run id", erun, list);
		return -ENOTUNIQ;
	}

	live = n ? ctl_describe_runs(dir, ids, n) : NULL;
	if (stale != NULL)
		set_cause(cause, "run %s has ended (stale socket %s); %s%s",
		    erun, stale, live ? "live runs: " : "no runs are live",
		    live ? live : "");
	else
		set_cause(cause, "no live run \"%s\" in %s; %s%s", erun,
		    dir, live ? "live runs: " : "no runs are live",
		    live ? live : "");
	return -ENOENT;
}

/* Whether the run's socket answers (a full backlog answers too). */
static bool
ctl_run_alive(const char *run, void *ctx)
{
	cleanup_free char *path = NULL;
	cleanup_fd int fd = -1;
	uid_t uid;
	int r;

	(void)ctx;
	if (ctl_socket_path(run, &path, NULL) < 0)
		return true;	/* cannot tell: leave it */
	r = ctl_dial(path, &fd, &uid, NULL);
	return r != -ENOENT && r != -ECONNREFUSED;
}

int
ctl_remove_stale(const char *run)
{
	cleanup_free char *path = NULL;
	cleanup_fd int fd = -1;
	struct stat st;
	uid_t uid;
	int r;

	if ((r = ctl_socket_path(run, &path, NULL)) < 0)
		return r;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	/* Asked again at the last moment: a socket that answers is a live
	 * supervisor's, whatever the record says. */
	r = ctl_dial(path, &fd, &uid, NULL);
	if (r == 0 || r == -EAGAIN)
		return -EBUSY;
	if (r != -ECONNREFUSED && r != -ENOENT)
		return r;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 1;
}

struct ctl_recover_ctx {
	struct ctl_lost	*lost;
	size_t		 n;
};

static void
ctl_on_lost(const char *run, int64_t noticed_ms, void *arg)
{
	struct ctl_recover_ctx *c = arg;

	(void)ctl_remove_stale(run);
	c->lost = xreallocarray(c->lost, c->n + 1, sizeof *c->lost);
	c->lost[c->n++] = (struct ctl_lost){
		.run = xstrdup(run), .noticed_ms = noticed_ms,
	};
}

int
ctl_recover(struct audit *a, const char *by, struct ctl_lost **lost,
    size_t *n, char **cause)
{
	struct ctl_recover_ctx c = { 0 };
	struct audit_recover_hooks hooks = {
		.alive = ctl_run_alive, .on_lost = ctl_on_lost, .ctx = &c,
	};
	int r;

	r = audit_recover(a, now_wall_ms(), by, &hooks, cause);
	if (lost != NULL) {
		*lost = c.lost;
		*n = c.n;
	} else
		ctl_lost_free(c.lost, c.n);
	return r;
}

void
ctl_lost_free(struct ctl_lost *lost, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lost[i].run);
	free(lost);
}
