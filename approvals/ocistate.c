/* SPDX-License-Identifier: MIT */
/* An OCI runtime's container process state: received, read, and what
 * `ward oci serve` derives from it (approvals/ocistate.h). */
#include "approvals/ocistate.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/util.h"

/* Echoed input: at most this many bytes, escaped. */
#define OCISTATE_QUOTE	64
#define OCISTATE_ARGS_MAX 4096
/* SCM_RIGHTS room: the runtime sends one; a few more are received (and
 * closed) so that "two fds" is told apart from a truncated control part. */
#define OCISTATE_FDS_ROOM 8
#define OCISTATE_LISTENER "anon_inode:seccomp notify"

/* At most OCISTATE_QUOTE bytes of s, escaped, "..." when cut. */
static char *
ocistate_quote(const char *s, size_t n)
{
	cleanup_free char *e = escape_mem(s, n > OCISTATE_QUOTE ?
	    OCISTATE_QUOTE : n);

	return xasprintf("'%s'%s", e, n > OCISTATE_QUOTE ? "..." : "");
}

static const char *
ocistate_type(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:	return "an object";
	case JSON_ARRAY:	return "an array";
	case JSON_STRING:	return "a string";
	case JSON_INTEGER:	return "a number";
	case JSON_REAL:		return "a number";
	case JSON_TRUE:		return "true";
	case JSON_FALSE:	return "false";
	case JSON_NULL:		return "null";
	}
	return "unknown";
}

/* obj.key as a string of 1..max bytes; required unless opt, and then
 * "" reads as absent (runc leaves out an empty metadata, another
 * runtime may send it). */
static int
ocistate_str(json_t *obj, const char *where, const char *key, size_t max,
    bool opt, char **ret, char **cause)
{
	json_t *j = json_object_get(obj, key);
	size_t n;

	if (j == NULL) {
		if (opt)
			return 0;
		set_cause(cause, "%s%s: missing", where, key);
		return -EINVAL;
	}
	if (!json_is_string(j)) {
		set_cause(cause, "%s%s: not a string (%s)", where, key,
		    ocistate_type(j));
		return -EINVAL;
	}
	n = json_string_length(j);
	if (n == 0 && opt)
		return 0;
	if (n == 0) {
		set_cause(cause, "%s%s: empty", where, key);
		return -EINVAL;
	}
	if (n > max) {
		cleanup_free char *q = ocistate_quote(json_string_value(j), n);

		set_cause(cause, "%s%s: %zu bytes (at most %zu): %s", where,
		    key, n, max, q);
		return -EINVAL;
	}
	*ret = xstrndup(json_string_value(j), n);
	return 0;
}

static int
ocistate_pid(json_t *obj, const char *where, bool opt, pid_t *ret,
    char **cause)
{
	json_t *j = json_object_get(obj, "pid");
	json_int_t v;

	if (j == NULL) {
		if (opt)
			return 0;
		set_cause(cause, "%spid: missing", where);
		return -EINVAL;
	}
	if (!json_is_integer(j)) {
		set_cause(cause, "%spid: not a number (%s)", where,
		    json_is_real(j) ? "a fraction" : ocistate_type(j));
		return -EINVAL;
	}
	v = json_integer_value(j);
	if (v < 1 || v > INT_MAX) {
		set_cause(cause, "%spid: %lld is not a process id (1 to %d)",
		    where, (long long)v, INT_MAX);
		return -EINVAL;
	}
	*ret = (pid_t)v;
	return 0;
}

bool
ocistate_id_valid(const char *s)
{
	size_t n = strlen(s);

	/* runc's own rule (libcontainer's validateID) also takes '+' and
	 * ','; the id reaches ward's record, its argv and file names, so
	 * ward takes the common part only, and never "." or "..". */
	if (n < 1 || n > OCISTATE_ID_MAX || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == n;
}

static int
ocistate_fds(json_t *root, size_t nfds, struct ocistate *st, char **cause)
{
	json_t *fds = json_object_get(root, "fds"), *j;
	size_t i, found = 0;

	if (fds == NULL) {
		set_cause(cause, "fds: missing");
		return -EINVAL;
	}
	if (!json_is_array(fds)) {
		set_cause(cause, "fds: not an array (%s)", ocistate_type(fds));
		return -EINVAL;
	}
	json_array_foreach(fds, i, j) {
		if (!json_is_string(j)) {
			set_cause(cause, "fds[%zu]: not a string (%s)", i,
			    ocistate_type(j));
			return -EINVAL;
		}
		if (strcmp(json_string_value(j), "seccompFd") == 0) {
			st->seccomp_fd = i;
			found++;
		}
	}
	if (found != 1) {
		set_cause(cause, "fds: %s \"seccompFd\"", found == 0 ?
		    "no" : "more than one");
		return -EINVAL;
	}
	if (json_array_size(fds) != nfds) {
		set_cause(cause, "fds: names %zu descriptors, the message "
		    "carried %zu", json_array_size(fds), nfds);
		return -EINVAL;
	}
	return 0;
}

static int
ocistate_annotations(json_t *state, struct ocistate *st, char **cause)
{
	json_t *a = json_object_get(state, "annotations"), *v;
	const char *key;
	size_t n;

	if (a == NULL)
		return 0;
	if (!json_is_object(a)) {
		set_cause(cause, "state.annotations: not an object (%s)",
		    ocistate_type(a));
		return -EINVAL;
	}
	if ((n = json_object_size(a)) > OCISTATE_MAX_ANNOTATIONS) {
		set_cause(cause, "state.annotations: %zu of them (at most "
		    "%d)", n, OCISTATE_MAX_ANNOTATIONS);
		return -EINVAL;
	}
	st->annotations = xcalloc(n == 0 ? 1 : n, sizeof *st->annotations);
	json_object_foreach(a, key, v) {
		size_t kn = strlen(key), vn;
		cleanup_free char *q = ocistate_quote(key, kn);

		if (kn == 0 || kn > OCISTATE_KEY_MAX) {
			set_cause(cause, "state.annotations: a key of %zu "
			    "bytes (1 to %d): %s", kn, OCISTATE_KEY_MAX, q);
			return -EINVAL;
		}
		if (!json_is_string(v)) {
			set_cause(cause, "state.annotations[%s]: not a string "
			    "(%s)", q, ocistate_type(v));
			return -EINVAL;
		}
		if ((vn = json_string_length(v)) > OCISTATE_VALUE_MAX) {
			set_cause(cause, "state.annotations[%s]: %zu bytes "
			    "(at most %d)", q, vn, OCISTATE_VALUE_MAX);
			return -EINVAL;
		}
		st->annotations[st->n_annotations].key = xstrdup(key);
		st->annotations[st->n_annotations].value =
		    xstrndup(json_string_value(v), vn);
		st->n_annotations++;
	}
	return 0;
}

static int
ocistate_read(json_t *root, size_t nfds, struct ocistate *st, char **cause)
{
	cleanup_free char *sver = NULL;
	json_t *state;
	pid_t spid = 0;
	int r;

	if (!json_is_object(root)) {
		set_cause(cause, "the message is %s, not an object",
		    ocistate_type(root));
		return -EINVAL;
	}
	if ((r = ocistate_str(root, "", "ociVersion", 64, false,
	    &st->oci_version, cause)) < 0 ||
	    (r = ocistate_fds(root, nfds, st, cause)) < 0 ||
	    (r = ocistate_pid(root, "", false, &st->pid, cause)) < 0 ||
	    (r = ocistate_str(root, "", "metadata", 4096, true,
	    &st->metadata, cause)) < 0)
		return r;
	if ((state = json_object_get(root, "state")) == NULL) {
		set_cause(cause, "state: missing");
		return -EINVAL;
	}
	if (!json_is_object(state)) {
		set_cause(cause, "state: not an object (%s)",
		    ocistate_type(state));
		return -EINVAL;
	}
	if ((r = ocistate_str(state, "state.", "ociVersion", 64, false,
	    &sver, cause)) < 0)
		return r;
	if ((r = ocistate_str(state, "state.", "id", OCISTATE_ID_MAX, false,
	    &st->id, cause)) < 0)
		return r;
	if (!ocistate_id_valid(st->id)) {
		cleanup_free char *q = ocistate_quote(st->id, strlen(st->id));

		set_cause(cause, "state.id: %s is not a container id "
		    "([A-Za-z0-9._-], not . or ..)", q);
		return -EINVAL;
	}
	if ((r = ocistate_str(state, "state.", "status", 32, false,
	    &st->status, cause)) < 0 ||
	    (r = ocistate_str(state, "state.", "bundle", PATH_MAX - 1, false,
	    &st->bundle, cause)) < 0 ||
	    (r = ocistate_pid(state, "state.", true, &spid, cause)) < 0)
		return r;
	if (st->bundle[0] != '/') {
		cleanup_free char *q = ocistate_quote(st->bundle,
		    strlen(st->bundle));

		set_cause(cause, "state.bundle: %s is not an absolute path",
		    q);
		return -EINVAL;
	}
	if (spid != 0 && spid != st->pid) {
		set_cause(cause, "state.pid: %d, but pid is %d", (int)spid,
		    (int)st->pid);
		return -EINVAL;
	}
	return ocistate_annotations(state, st, cause);
}

int
ocistate_parse(const char *buf, size_t len, size_t nfds,
    struct ocistate **ret, char **cause)
{
	struct ocistate *st = NULL;
	json_error_t err;
	json_t *root;
	int r;

	if (len > OCISTATE_MAX) {
		set_cause(cause, "the message is %zu bytes (at most %d)", len,
		    OCISTATE_MAX);
		return -EFBIG;
	}
	/* Duplicate keys refused: two "pid"s would be read one way here
	 * and maybe another way by whoever looks next. */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (root == NULL) {
		size_t n = strlen(err.text);
		/* jansson's text quotes the input near the error itself. */
		cleanup_free char *q = escape_mem(err.text,
		    n > OCISTATE_QUOTE ? OCISTATE_QUOTE : n);

		set_cause(cause, "not JSON: at byte %d: %s%s", err.position, q,
		    n > OCISTATE_QUOTE ? "..." : "");
		return -EINVAL;
	}
	st = xcalloc(1, sizeof *st);
	r = ocistate_read(root, nfds, st, cause);
	json_decref(root);
	if (r < 0) {
		ocistate_free(st);
		return r;
	}
	*ret = st;
	return 0;
}

void
ocistate_free(struct ocistate *st)
{
	if (st == NULL)
		return;
	free(st->oci_version);
	free(st->metadata);
	free(st->id);
	free(st->status);
	free(st->bundle);
	for (size_t i = 0; i < st->n_annotations; i++) {
		free(st->annotations[i].key);
		free(st->annotations[i].value);
	}
	free(st->annotations);
	free(st);
}

const char *
ocistate_annotation(const struct ocistate *st, const char *key)
{
	for (size_t i = 0; i < st->n_annotations; i++) {
		if (strcmp(st->annotations[i].key, key) == 0)
			return st->annotations[i].value;
	}
	return NULL;
}

/* The pod's three names joined, NULL unless all three are there. */
static char *
ocistate_pod(const struct ocistate *st, const char *ns, const char *pod,
    const char *ctr)
{
	const char *a = ocistate_annotation(st, ns);
	const char *b = ocistate_annotation(st, pod);
	const char *c = ocistate_annotation(st, ctr);

	if (a == NULL || b == NULL || c == NULL || !*a || !*b || !*c)
		return NULL;
	return xasprintf("%s/%s/%s", a, b, c);
}

char *
ocistate_name(const struct ocistate *st)
{
	const char *w = ocistate_annotation(st, "ward.name");
	char *name = NULL;
	size_t n;

	if (w != NULL && *w != '\0')
		name = xstrdup(w);
	if (name == NULL)
		name = ocistate_pod(st, "io.kubernetes.pod.namespace",
		    "io.kubernetes.pod.name", "io.kubernetes.container.name");
	if (name == NULL)
		name = ocistate_pod(st, "io.kubernetes.cri.sandbox-namespace",
		    "io.kubernetes.cri.sandbox-name",
		    "io.kubernetes.cri.container-name");
	if (name == NULL)
		name = xstrdup(st->id);
	for (char *p = name; *p != '\0'; p++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._/-", *p) == NULL)
			*p = '_';
	}
	if ((n = strlen(name)) > OCISTATE_NAME_MAX)
		name[OCISTATE_NAME_MAX] = '\0';
	return name;
}

static bool
ocistate_policy_name_mem(const char *s, size_t n)
{
	if (n < 1 || n > OCISTATE_POLICY_MAX || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._-", s[i]) == NULL || s[i] == '\0')
			return false;
	}
	return true;
}

bool
ocistate_policy_name_valid(const char *name)
{
	return ocistate_policy_name_mem(name, strlen(name));
}

int
ocistate_metadata(const char *metadata, char **policy, char **cause)
{
	cleanup_free char *pol = NULL;
	const char *p = metadata, *end, *eq;

	*policy = NULL;
	if (metadata == NULL || *metadata == '\0')
		return 0;
	for (;;) {
		size_t n;

		end = strchr(p, ';');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		eq = memchr(p, '=', n);
		if (eq == NULL) {
			cleanup_free char *q = ocistate_quote(p, n);

			set_cause(cause, "metadata: %s is not key=value "
			    "(pairs are separated by ';')", q);
			return -EINVAL;
		}
		if ((size_t)(eq - p) == 6 && memcmp(p, "policy", 6) == 0) {
			const char *v = eq + 1;
			size_t vn = n - 7;

			if (pol != NULL) {
				set_cause(cause, "metadata: policy given "
				    "twice");
				return -EINVAL;
			}
			if (!ocistate_policy_name_mem(v, vn)) {
				cleanup_free char *q = ocistate_quote(v, vn);

				set_cause(cause, "metadata: policy=%s is not "
				    "a policy name ([A-Za-z0-9._-], 1 to %d "
				    "bytes, no leading dot)", q,
				    OCISTATE_POLICY_MAX);
				return -EINVAL;
			}
			pol = xstrndup(v, vn);
		} else {
			cleanup_free char *q = ocistate_quote(p,
			    (size_t)(eq - p));

			set_cause(cause, "metadata: unknown key %s (the one "
			    "key is policy)", q);
			return -EINVAL;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	*policy = steal_ptr(&pol);
	return 0;
}

static int
ocistate_regular(const char *path, const char *what, char **cause)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		int r = -errno;

		set_cause(cause, "%s %s: %s", what, path, strerror(errno));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		set_cause(cause, "%s %s: not a regular file", what, path);
		return -EINVAL;
	}
	return 0;
}

int
ocistate_policy_file(const struct ocistate *st, const char *config_dir,
    const char *fallback, char **ret, char **cause)
{
	cleanup_free char *name = NULL, *path = NULL;
	int r;

	if ((r = ocistate_metadata(st->metadata, &name, cause)) < 0)
		return r;
	if (name == NULL)
		path = xstrdup(fallback);
	else
		path = xasprintf("%s/oci/%s.ini", config_dir, name);
	if ((r = ocistate_regular(path, name != NULL ? "policy" :
	    "default policy", cause)) < 0)
		return r;
	*ret = steal_ptr(&path);
	return 0;
}

int
ocistate_bundle_args(const char *bundle, char ***argv, size_t *argc,
    char **cause)
{
	cleanup_free char *path = xasprintf("%s/config.json", bundle);
	/* The bundle's path is the runtime's; a cause quotes it bounded,
	 * as every other. */
	cleanup_free char *q = ocistate_quote(path, strlen(path));
	cleanup_free char *buf = NULL;
	cleanup_strv char **v = NULL;
	json_t *root, *args, *a;
	json_error_t err;
	size_t len, i, n = 0;
	int r;

	if ((r = read_file_max(path, OCISTATE_MAX, &buf, &len, NULL)) < 0) {
		set_cause(cause, "%s: %s", q, r == -EFBIG ? "over 1 MiB" :
		    strerror(-r));
		return r;
	}
	if ((root = json_loadb(buf, len, 0, &err)) == NULL) {
		set_cause(cause, "%s: not JSON (byte %d)", q,
		    err.position);
		return -EINVAL;
	}
	args = json_object_get(json_object_get(root, "process"), "args");
	if (!json_is_array(args) || json_array_size(args) == 0 ||
	    json_array_size(args) > OCISTATE_ARGS_MAX) {
		json_decref(root);
		set_cause(cause, "%s: process.args: not an array of 1 to %d "
		    "strings", q, OCISTATE_ARGS_MAX);
		return -EINVAL;
	}
	v = xcalloc(json_array_size(args) + 1, sizeof *v);
	json_array_foreach(args, i, a) {
		if (!json_is_string(a) || json_string_length(a) >= PATH_MAX ||
		    strlen(json_string_value(a)) != json_string_length(a)) {
			json_decref(root);
			set_cause(cause, "%s: process.args[%zu]: not a string "
			    "(of at most %d bytes, without NUL)", q, i,
			    PATH_MAX - 1);
			return -EINVAL;
		}
		v[n++] = xstrdup(json_string_value(a));
	}
	json_decref(root);
	*argc = n;
	*argv = steal_ptr(&v);
	return 0;
}

void
ocistate_msg_init(struct ocistate_msg *m)
{
	memset(m, 0, sizeof *m);
	m->fd = -1;
}

void
ocistate_msg_done(struct ocistate_msg *m)
{
	free(m->buf);
	closep(&m->fd);
	ocistate_msg_init(m);
}

int
ocistate_fd_is_listener(int fd, char **cause)
{
	char proc[64], link[128];
	ssize_t n;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if ((n = readlink(proc, link, sizeof link - 1)) < 0) {
		int r = -errno;

		set_cause(cause, "the descriptor cannot be read: %s",
		    strerror(errno));
		return r;
	}
	link[n] = '\0';
	if (strcmp(link, OCISTATE_LISTENER) != 0) {
		cleanup_free char *q = ocistate_quote(link, (size_t)n);

		set_cause(cause, "the descriptor is not a seccomp listener "
		    "(%s)", q);
		return -EINVAL;
	}
	return 0;
}

/* The descriptors of one recvmsg's control part: the first kept in
 * *keep when keep is not NULL and empty, every other one closed; their
 * number added to *count. */
static void
ocistate_take_fds(struct msghdr *mh, int *keep, size_t *count)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	    c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
			if (keep != NULL && *keep < 0)
				*keep = fd;
			else
				close(fd);
		}
		*count += n;
	}
}

static int
ocistate_peer(int conn, struct ocistate_msg *m, char **cause)
{
	struct ucred cred;
	socklen_t clen = sizeof cred;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		int r = -errno;

		set_cause(cause, "SO_PEERCRED: %s", strerror(errno));
		return r;
	}
	m->peer_pid = cred.pid;
	m->peer_uid = cred.uid;
	if (cred.uid != 0 && cred.uid != geteuid()) {
		set_cause(cause, "the peer runs as uid %u, neither root nor "
		    "uid %u", (unsigned)cred.uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

/*
 * Where the runtime's object ends. runc 1.1 never closes its end
 * (sendContainerProcessState closes a dup of the connection, not the
 * connection, which lives until runc exits: the whole life of a
 * `runc run`), so the message is whole when its top-level value is,
 * found as the bytes come: depth of brackets outside strings. The
 * parser judges the rest (what the value is, bytes after it).
 */
struct ocistate_scan {
	long	depth;
	bool	in_str, esc, started, done;
};

static void
ocistate_scan(struct ocistate_scan *sc, const char *p, size_t n)
{
	for (size_t i = 0; i < n && !sc->done; i++) {
		char c = p[i];

		if (sc->in_str) {
			if (sc->esc)
				sc->esc = false;
			else if (c == '\\')
				sc->esc = true;
			else if (c == '"')
				sc->in_str = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (!sc->started && c != '{' && c != '[') {
			sc->done = true;	/* not an object: the parser says */
			break;
		}
		if (c == '"')
			sc->in_str = true;
		else if (c == '{' || c == '[') {
			sc->depth++;
			sc->started = true;
		} else if ((c == '}' || c == ']') && --sc->depth == 0)
			sc->done = true;
	}
}

static int
ocistate_recv_loop(int conn, int timeout_ms, struct ocistate_msg *m,
    char **cause)
{
	int64_t deadline = now_mono_ms() + timeout_ms;
	struct ocistate_scan sc = { 0 };
	size_t cap = 4096;
	bool first = true;

	m->buf = xmalloc(cap + 1);
	for (;;) {
		union {
			struct cmsghdr	align;
			char		buf[CMSG_SPACE(sizeof(int) *
					    OCISTATE_FDS_ROOM)];
		} ctl;
		struct iovec iov;
		struct msghdr mh = { 0 };
		struct pollfd p = { .fd = conn, .events = POLLIN };
		size_t later = 0;
		int64_t left;
		ssize_t n;

		if (m->len == cap) {
			/* Room for one byte over the bound: the way to
			 * tell "too long" from "exactly the bound". */
			cap = cap * 4 > OCISTATE_MAX ? OCISTATE_MAX + 1 :
			    cap * 4;
			m->buf = xrealloc(m->buf, cap + 1);
		}
		iov.iov_base = m->buf + m->len;
		iov.iov_len = cap - m->len;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof ctl.buf;
		n = recvmsg(conn, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			int r = -errno;

			set_cause(cause, "recvmsg: %s", strerror(errno));
			return r;
		}
		if (n >= 0) {
			/* Descriptors come with the first bytes; any later
			 * ones are not the runtime's message. */
			ocistate_take_fds(&mh, first ? &m->fd : NULL,
			    first ? &m->nfds : &later);
			if (mh.msg_flags & MSG_CTRUNC) {
				set_cause(cause, "more descriptors than a "
				    "runtime sends (the control part was "
				    "truncated)");
				return -EINVAL;
			}
			if (later > 0) {
				set_cause(cause, "descriptors after the "
				    "message's first bytes");
				return -EINVAL;
			}
			if (first && m->fd >= 0) {
				int r = ocistate_fd_is_listener(m->fd, cause);

				if (r < 0)
					return r;
			}
			if (n == 0)
				break;
			first = false;
			ocistate_scan(&sc, m->buf + m->len, (size_t)n);
			m->len += (size_t)n;
			if (m->len > OCISTATE_MAX) {
				set_cause(cause, "the message is over %d "
				    "bytes", OCISTATE_MAX);
				return -EFBIG;
			}
			if (sc.done)
				break;
			continue;
		}
		if ((left = deadline - now_mono_ms()) <= 0) {
			set_cause(cause, "no whole message within %d ms "
			    "(%zu bytes)", timeout_ms, m->len);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			int r = -errno;

			set_cause(cause, "poll: %s", strerror(errno));
			return r;
		}
	}
	m->buf[m->len] = '\0';
	return 0;
}

int
ocistate_receive(int conn, int timeout_ms, struct ocistate_msg *m,
    char **cause)
{
	int r;

	ocistate_msg_init(m);
	if ((r = ocistate_peer(conn, m, cause)) < 0 ||
	    (r = ocistate_recv_loop(conn, timeout_ms, m, cause)) < 0) {
		pid_t pid = m->peer_pid;
		uid_t uid = m->peer_uid;

		ocistate_msg_done(m);
		m->peer_pid = pid;
		m->peer_uid = uid;
		return r;
	}
	return 0;
}
