/* SPDX-License-Identifier: MIT */
/* approvals/ctl.c: socket paths, listen/accept/connect, peer checks, lookup
 * by name, stale sockets. Each test gets its own XDG_RUNTIME_DIR. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/audit-write.h"
#include "approvals/ctl.h"
#include "approvals/proto.h"
#include "config/util.h"

#define NOBODY	65534

struct fx {
	char		 tmp[64];
	char		*runtime;	/* tmp/ward */
	pid_t		 child;		/* a fake supervisor, if any */
	char		*other;		/* a second temp folder, if any */
};

static int
fx_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static int
fx_setup(void **state)
{
	struct fx *fx = xcalloc(1, sizeof *fx);

	snprintf(fx->tmp, sizeof fx->tmp, "/tmp/ward-test-ctl-XXXXXX");
	assert_non_null(mkdtemp(fx->tmp));
	setenv("XDG_RUNTIME_DIR", fx->tmp, 1);
	fx->runtime = xasprintf("%s/ward", fx->tmp);
	fx->child = -1;
	*state = fx;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->child > 0) {
		kill(fx->child, SIGKILL);
		waitpid(fx->child, NULL, 0);
	}
	nftw(fx->tmp, fx_rm, 16, FTW_DEPTH | FTW_PHYS);
	if (fx->other != NULL)
		nftw(fx->other, fx_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(fx->other);
	free(fx->runtime);
	free(fx);
	return 0;
}

static void
assert_contains(const char *s, const char *want)
{
	if (s == NULL || strstr(s, want) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", s ? s : "(null)", want);
}

static char *
sock_path(const char *run)
{
	char *path = NULL, *cause = NULL;

	assert_int_equal(ctl_socket_path(run, &path, &cause), 0);
	assert_null(cause);
	return path;
}

static int
listen_run(const char *run)
{
	cleanup_free char *path = sock_path(run);
	char *cause = NULL;
	int fd = -1;

	if (ctl_listen(path, &fd, &cause) < 0)
		fail_msg("ctl_listen %s: %s", path, cause);
	return fd;
}

static void
assert_fd_flags(int fd)
{
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
}

/*
 * A fake supervisor in a child process: serves hello -> welcome on each
 * listener, one connection at a time, until killed. No cmocka in here.
 */
static void
fake_serve(int *lfd, const char *const *ids, const char *const *names,
    size_t n)
{
	for (;;) {
		struct pollfd pfd[8];

		for (size_t i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = lfd[i], .events = POLLIN };
		if (poll(pfd, n, -1) < 0)
			_exit(3);
		for (size_t i = 0; i < n; i++) {
			struct proto_conn *c;
			uid_t uid;
			pid_t pid;
			int fd;

			if (!(pfd[i].revents & POLLIN))
				continue;
			if (ctl_accept(lfd[i], &fd, &uid, &pid) < 0)
				continue;
			c = proto_conn_new(fd);
			for (;;) {
				struct pollfd cp = { .fd = fd, .events = POLLIN };
				json_t *m = NULL;
				ssize_t r;
				int k;

				if (poll(&cp, 1, 5000) <= 0)
					break;
				r = proto_read(c);
				if (r < 0 && r != -EAGAIN)
					break;
				while ((k = proto_next(c, &m, NULL)) == 1) {
					const char *t = json_string_value(
					    json_object_get(m, "type"));

					if (strcmp(t, "hello") == 0) {
						json_t *w = proto_msg("welcome");

						json_object_set_new(w, "version",
						    json_integer(PROTO_VERSION));
						json_object_set_new(w, "run",
						    json_pack("{s:s,s:s}", "id",
						    ids[i], "name", names[i]));
						json_object_set_new(w, "pending",
						    json_array());
						proto_send(c, w);
						json_decref(w);
						while (proto_flush(c) == -EAGAIN)
							poll(&(struct pollfd){ .fd = fd,
							    .events = POLLOUT }, 1, 100);
					}
					json_decref(m);
				}
				if (k < 0 || proto_eof(c))
					break;
			}
			proto_conn_free(c);
		}
	}
}

/* Starts a fake supervisor for each (id, name); returns once all listen. */
static void
fake_start(struct fx *fx, const char *const *ids, const char *const *names,
    size_t n)
{
	int lfd[8];

	assert_true(n <= ARRAY_SIZE(lfd));
	for (size_t i = 0; i < n; i++)
		lfd[i] = listen_run(ids[i]);
	fx->child = fork();
	assert_true(fx->child >= 0);
	if (fx->child == 0)
		fake_serve(lfd, ids, names, n);
	for (size_t i = 0; i < n; i++)
		close(lfd[i]);
}

/* hello on fd; returns welcome.run.id (malloc'd). */
static char *
hello_id(int fd)
{
	struct proto_conn *c = proto_conn_new(fd);
	json_t *hello = proto_msg("hello"), *w = NULL;
	char *cause = NULL, *id;

	json_object_set_new(hello, "client", json_string("cli"));
	if (proto_call(c, hello, "welcome", 3000, &w, &cause) < 0)
		fail_msg("hello: %s", cause);
	id = xstrdup(json_string_value(json_object_get(json_object_get(w,
	    "run"), "id")));
	json_decref(w);
	json_decref(hello);
	proto_conn_free(c);
	return id;
}

static void
test_socket_path(void **state)
{
	struct fx *fx = *state;
	static const char *const bad[] = {
		"", ".", "..", "../x", "a/b", ".hidden", "-x", "a b", "a\nb",
		"0123456789012345678901234567890123456789012345678901234567890123x",
	};
	cleanup_free char *want = xasprintf("%s/ab12.sock", fx->runtime);
	cleanup_free char *path = sock_path("ab12");
	struct stat st;

	assert_string_equal(path, want);
	/* The runtime folder was made 0700. */
	assert_int_equal(stat(fx->runtime, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *p = NULL, *cause = NULL;

		assert_int_equal(ctl_socket_path(bad[i], &p, &cause), -EINVAL);
		assert_null(p);
		assert_contains(cause, "bad run id");
		free(cause);
	}
}

static void
test_too_long(void **state)
{
	struct fx *fx = *state;
	char long_id[65];
	cleanup_free char *deep = NULL;
	char *p = NULL, *cause = NULL;

	(void)fx;
	/* A runtime folder deep enough that the socket path overflows
	 * sun_path. */
	memset(long_id, 'd', 64);
	long_id[64] = '\0';
	deep = xasprintf("%s/%s", fx->tmp, long_id);
	assert_int_equal(mkdir(deep, 0700), 0);
	setenv("XDG_RUNTIME_DIR", deep, 1);
	assert_int_equal(ctl_socket_path(long_id, &p, &cause), -ENAMETOOLONG);
	assert_contains(cause, "too long");
	free(cause);
}

/* A runtime folder that cannot be made: an error, with or without a
 * place for the cause (ctl_remove_stale passes none; it once wrote
 * through NULL). */
static void
test_no_runtime_dir(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *file = xasprintf("%s/plain", fx->tmp);
	cleanup_free char *under = xasprintf("%s/plain/rt", fx->tmp);
	char *p = NULL, *cause = NULL;
	int fd;

	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	setenv("XDG_RUNTIME_DIR", under, 1);
	assert_true(ctl_socket_path("run1", &p, NULL) < 0);
	assert_null(p);
	assert_true(ctl_remove_stale("run1") < 0);
	assert_true(ctl_socket_path("run1", &p, &cause) < 0);
	assert_contains(cause, "plain");
	free(cause);
}

static void
test_listen_accept(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *path = sock_path("t1");
	cleanup_fd int lfd = -1;
	cleanup_fd int cfd = -1;
	cleanup_fd int sfd = -1;
	char *cause = NULL;
	struct stat st;
	mode_t old;
	uid_t uid = 0;
	pid_t pid = 0;
	char buf[4];

	(void)fx;
	old = umask(022);
	assert_int_equal(ctl_listen(path, &lfd, &cause), 0);
	assert_int_equal(umask(old), 022);	/* restored */
	assert_fd_flags(lfd);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, geteuid());

	assert_int_equal(ctl_accept(lfd, &sfd, &uid, &pid), -EAGAIN);
	assert_int_equal(ctl_connect("t1", &cfd, &cause), 0);
	assert_null(cause);
	assert_fd_flags(cfd);
	assert_int_equal(ctl_accept(lfd, &sfd, &uid, &pid), 0);
	assert_fd_flags(sfd);
	assert_int_equal(uid, geteuid());
	assert_int_equal(pid, getpid());

	assert_int_equal(write(cfd, "ping", 4), 4);
	assert_int_equal(read(sfd, buf, 4), 4);
	assert_memory_equal(buf, "ping", 4);
}

static void
test_listen_twice(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *path = sock_path("t1");
	cleanup_fd int lfd = -1;
	cleanup_fd int lfd2 = -1;
	char *cause = NULL;
	struct stat st;

	(void)fx;
	assert_int_equal(ctl_listen(path, &lfd, &cause), 0);
	assert_int_equal(ctl_listen(path, &lfd2, &cause), -EADDRINUSE);
	assert_int_equal(lfd2, -1);
	assert_contains(cause, "already listens");
	assert_contains(cause, path);
	free(cause);
	/* The live socket was not removed. */
	assert_int_equal(lstat(path, &st), 0);
}

static void
test_stale(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *path = sock_path("old1");
	cleanup_fd int lfd = -1;
	cleanup_fd int cfd = -1;
	cleanup_strv char **ids = NULL;
	char *cause = NULL;
	size_t n = 99;
	struct stat st;

	(void)fx;
	/* A supervisor that died: its socket file stays behind. */
	assert_int_equal(ctl_listen(path, &lfd, &cause), 0);
	close(steal_fd(&lfd));
	assert_int_equal(lstat(path, &st), 0);

	assert_int_equal(ctl_connect("old1", &cfd, &cause), -ENOENT);
	assert_int_equal(cfd, -1);
	assert_contains(cause, "old1");
	assert_contains(cause, "stale");
	assert_contains(cause, path);
	free(cause);
	cause = NULL;

	/* Listed as nothing, and left alone by ctl_list. */
	assert_int_equal(ctl_list(&ids, &n), 0);
	assert_int_equal(n, 0);
	assert_non_null(ids);
	assert_null(ids[0]);
	assert_int_equal(lstat(path, &st), 0);

	/* A new supervisor replaces it. */
	assert_int_equal(ctl_listen(path, &lfd, &cause), 0);
	assert_int_equal(ctl_connect("old1", &cfd, &cause), 0);
}

static void
test_not_socket(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *path = sock_path("f1");
	cleanup_fd int lfd = -1;
	cleanup_fd int ffd = -1;
	char *cause = NULL;
	struct stat st;

	(void)fx;
	ffd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(ffd >= 0);
	assert_int_equal(ctl_listen(path, &lfd, &cause), -EEXIST);
	assert_contains(cause, "not a socket");
	free(cause);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

static void
test_list(void **state)
{
	struct fx *fx = *state;
	static const char *const ids_in[] = { "r2", "r1" };
	static const char *const names[] = { "two", "one" };
	cleanup_free char *stale = sock_path("r0");
	cleanup_free char *junk = xasprintf("%s/notes.txt", fx->runtime);
	cleanup_fd int lfd = -1;
	cleanup_strv char **ids = NULL;
	char *cause = NULL;
	size_t n = 0;

	assert_int_equal(ctl_listen(stale, &lfd, &cause), 0);
	close(steal_fd(&lfd));
	lfd = open(junk, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	fake_start(fx, ids_in, names, 2);

	assert_int_equal(ctl_list(&ids, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], "r1");
	assert_string_equal(ids[1], "r2");
	assert_null(ids[2]);
}

static void
test_connect_by_name(void **state)
{
	struct fx *fx = *state;
	static const char *const ids[] = { "r1", "r2", "r3" };
	static const char *const names[] = { "alpha", "beta", "beta" };
	cleanup_fd int fd = -1;
	cleanup_free char *id = NULL;
	char *cause = NULL;

	fake_start(fx, ids, names, 3);

	assert_int_equal(ctl_connect("alpha", &fd, &cause), 0);
	assert_null(cause);
	id = hello_id(steal_fd(&fd));
	assert_string_equal(id, "r1");

	/* By id, directly. */
	assert_int_equal(ctl_connect("r3", &fd, &cause), 0);
	free(id);
	id = hello_id(steal_fd(&fd));
	assert_string_equal(id, "r3");

	assert_int_equal(ctl_connect("beta", &fd, &cause), -ENOTUNIQ);
	assert_contains(cause, "ambiguous");
	assert_contains(cause, "r2, r3");
	free(cause);
	cause = NULL;

	assert_int_equal(ctl_connect("nope", &fd, &cause), -ENOENT);
	assert_int_equal(fd, -1);
	assert_contains(cause, "no live run \"nope\"");
	assert_contains(cause, fx->runtime);
	assert_contains(cause, "r1 (alpha), r2 (beta), r3 (beta)");
	free(cause);
}

static void
test_unknown_no_runs(void **state)
{
	struct fx *fx = *state;
	cleanup_fd int fd = -1;
	char *cause = NULL;

	assert_int_equal(ctl_connect("ab12", &fd, &cause), -ENOENT);
	assert_contains(cause, "ab12");
	assert_contains(cause, fx->runtime);
	assert_contains(cause, "no runs are live");
	free(cause);
	cause = NULL;
	/* Not even a valid id: looked up as a name, same answer. */
	assert_int_equal(ctl_connect("my run/1", &fd, &cause), -ENOENT);
	assert_contains(cause, "my run/1");
	free(cause);
}

static bool
skip_unless_root(void)
{
	if (geteuid() == 0)
		return false;
	print_message("needs root to switch to uid %d; skipped\n", NOBODY);
	return true;
}

/* The supervisor side refuses a client of another uid. */
static void
test_accept_other_uid(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *path = NULL;
	cleanup_fd int lfd = -1;
	cleanup_fd int sfd = -1;
	struct pollfd pfd;
	char *cause = NULL;
	uid_t uid = 0;
	pid_t pid = 0;
	int status;

	if (skip_unless_root())
		skip();
	/* A folder and socket nobody may reach, unlike the runtime dir. */
	fx->other = xstrdup("/tmp/ward-test-ctl-other-XXXXXX");
	assert_non_null(mkdtemp(fx->other));
	assert_int_equal(chmod(fx->other, 0711), 0);
	path = xasprintf("%s/x.sock", fx->other);
	assert_int_equal(ctl_listen(path, &lfd, &cause), 0);
	assert_int_equal(chmod(path, 0666), 0);

	fx->child = fork();
	assert_true(fx->child >= 0);
	if (fx->child == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		char c;
		int fd;

		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 ||
		    setuid(NOBODY) < 0)
			_exit(10);
		strcpy(sa.sun_path, path);
		/* _exit skips cleanup; valgrind follows children. */
		free(steal_ptr(&path));
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
			_exit(11);
		/* Refused: the supervisor closes without a word. */
		_exit(read(fd, &c, 1) == 0 ? 0 : 12);
	}
	pfd = (struct pollfd){ .fd = lfd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(ctl_accept(lfd, &sfd, &uid, &pid), -EPERM);
	assert_int_equal(sfd, -1);
	assert_int_equal(uid, NOBODY);
	assert_int_equal(pid, fx->child);
	assert_int_equal(waitpid(fx->child, &status, 0), fx->child);
	fx->child = -1;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The client side refuses a supervisor of another uid, even in our own
 * runtime folder. */
static void
test_connect_other_uid(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *path = NULL;
	cleanup_fd int fd = -1;
	cleanup_strv char **ids = NULL;
	char *cause = NULL;
	int pipefd[2];
	size_t n = 99;
	char c;

	if (skip_unless_root())
		skip();
	path = sock_path("evil");
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	fx->child = fork();
	assert_true(fx->child >= 0);
	if (fx->child == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		/* Bound as root (the folder is root's), listening as nobody:
		 * SO_PEERCRED reports the credentials of listen(). */
		strcpy(sa.sun_path, path);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
		    setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 ||
		    setuid(NOBODY) < 0 || listen(lfd, 8) < 0)
			_exit(10);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(11);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);

	assert_int_equal(ctl_connect("evil", &fd, &cause), -EPERM);
	assert_int_equal(fd, -1);
	assert_contains(cause, "evil");
	assert_contains(cause, "uid 65534");
	free(cause);

	assert_int_equal(ctl_list(&ids, &n), 0);
	assert_int_equal(n, 0);
}

/* A stale socket goes; a live one, or a file that is not a socket, stays. */
static void
test_remove_stale(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *dead = sock_path("dead1");
	cleanup_free char *live = sock_path("live1");
	cleanup_free char *file = sock_path("file1");
	cleanup_fd int lfd = -1;
	cleanup_fd int dfd = -1;
	char *cause = NULL;
	struct stat st;
	int fd;

	(void)fx;
	assert_int_equal(ctl_listen(dead, &dfd, &cause), 0);
	close(steal_fd(&dfd));
	assert_int_equal(ctl_listen(live, &lfd, &cause), 0);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);

	assert_int_equal(ctl_remove_stale("dead1"), 1);
	assert_int_equal(lstat(dead, &st), -1);
	assert_int_equal(ctl_remove_stale("dead1"), 0);
	assert_int_equal(ctl_remove_stale("live1"), -EBUSY);
	assert_int_equal(lstat(live, &st), 0);
	assert_int_equal(ctl_remove_stale("file1"), -EPERM);
	assert_int_equal(lstat(file, &st), 0);
	assert_int_equal(ctl_remove_stale("../x"), -EINVAL);
}

/* ctl_recover: a run of the record whose supervisor is gone is marked
 * lost and its socket removed; an ownerless run with a live socket, and
 * the socket, stay. */
static void
test_recover(void **state)
{
	struct fx *fx = *state;
	cleanup_free char *dead = sock_path("gone1");
	cleanup_free char *live = sock_path("old2");
	cleanup_fd int lfd = -1;
	cleanup_fd int dfd = -1;
	struct audit *a = NULL;
	struct audit_run run = { .command = "true", .started_ms = 1 };
	struct ctl_lost *lost = NULL;
	char *cause = NULL;
	struct stat st;
	size_t n = 0;
	pid_t pid;

	(void)fx;
	assert_int_equal(ctl_listen(dead, &dfd, &cause), 0);
	close(steal_fd(&dfd));
	assert_int_equal(ctl_listen(live, &lfd, &cause), 0);
	assert_int_equal(audit_open(":memory:", &a, &cause), 0);
	assert_int_equal(audit_owner_self(&run.owner), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	run.owner.pid = pid;
	run.id = "gone1";
	assert_int_equal(audit_run_begin(a, &run, NULL), 0);
	memset(&run.owner, 0, sizeof run.owner);
	run.id = "old2";
	assert_int_equal(audit_run_begin(a, &run, NULL), 0);

	assert_int_equal(ctl_recover(a, "test", &lost, &n, &cause), 1);
	assert_null(cause);
	assert_int_equal(n, 1);
	assert_string_equal(lost[0].run, "gone1");
	assert_true(lost[0].noticed_ms > 0);
	ctl_lost_free(lost, n);
	assert_int_equal(lstat(dead, &st), -1);
	assert_int_equal(lstat(live, &st), 0);
	/* the live one's supervisor goes: its socket no longer answers */
	close(steal_fd(&lfd));
	assert_int_equal(ctl_recover(a, "test", NULL, NULL, &cause), 1);
	assert_int_equal(lstat(live, &st), -1);
	assert_int_equal(ctl_recover(a, "test", NULL, NULL, &cause), 0);
	audit_close(a);
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_socket_path),
		T(test_too_long),
		T(test_no_runtime_dir),
		T(test_listen_accept),
		T(test_listen_twice),
		T(test_stale),
		T(test_not_socket),
		T(test_list),
		T(test_connect_by_name),
		T(test_unknown_no_runs),
		T(test_accept_other_uid),
		T(test_connect_other_uid),
		T(test_remove_stale),
		T(test_recover),
	};
#undef T

	/* A fake supervisor that dies must not kill the test with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
