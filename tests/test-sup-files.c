/* SPDX-License-Identifier: MIT */
/*
 * supervisor/files.c, sup.c and the resolution of parked requests, with
 * no kernel listener: a notification is made from this process's own
 * memory (the target is the test itself), and the answer is read from
 * what sup_respond put in s->resp before its ioctl (which fails: there is
 * no listener). Consoles are a socketpair's other end.
 *
 * tests/data/sup-writes.tsv drives files_where, files_fast_continue and
 * files_on_call; the rest checks the core: sup_record, sup_park, the ops
 * record of a parked request (resolve, remember, free) through
 * unotify_resolve and through control.c's "decide".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/audit-write.h"
#include "approvals/decide.h"
#include "config/util.h"
#include "supervisor/control.h"
#include "supervisor/emulate.h"
#include "supervisor/files.h"
#include "supervisor/sup.h"
#include "supervisor/unotify.h"

#define WRITES_TSV	"tests/data/sup-writes.tsv"

/* ---- the table -------------------------------------------------------- */

struct row {
	int	 line;
	char	*f[6];
	int	 n;
};

static struct row *rows;
static size_t n_rows;

static void
tsv_load(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int no = 0;

	if (f == NULL) {
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (getline(&line, &cap, f) >= 0) {
		struct row r = { .line = ++no };
		char *save = NULL;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		for (char *t = strtok_r(line, "\t", &save); t != NULL &&
		    r.n < 6; t = strtok_r(NULL, "\t", &save))
			r.f[r.n++] = xstrdup(t);
		rows = xreallocarray(rows, n_rows + 1, sizeof *rows);
		rows[n_rows++] = r;
	}
	free(line);
	fclose(f);
}

/* ---- the fixture ------------------------------------------------------ */

static struct sup S;
static char root[] = "/tmp/ward-test-files-XXXXXX";
static int console = -1;		/* the console's end */
static struct proto_conn *console_conn;

static void
make_tree(void)
{
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	assert_true(dfd >= 0);
	for (size_t i = 0; i < n_rows; i++) {
		struct row *r = &rows[i];

		if (strcmp(r->f[0], "tree") != 0)
			continue;
		if (strcmp(r->f[1], "dir") == 0)
			assert_int_equal(mkdirat(dfd, r->f[2], 0755), 0);
		else if (strcmp(r->f[1], "file") == 0)
			close(openat(dfd, r->f[2], O_CREAT | O_WRONLY | O_CLOEXEC,
			    0644));
		else
			assert_int_equal(symlinkat(r->f[3], dfd, r->f[2]), 0);
	}
	close(dfd);
}

static struct bind binds[] = {
	{ .host = "/nonexistent/p", .inside = "/home/p", .writable = true },
	{ .host = "/nonexistent/tro", .inside = "/tmp/ro", .writable = false },
	{ .host = "/nonexistent/wro", .inside = "/work/ro", .writable = false },
	/* A project staged in an overlay: writable at its own path. */
	{ .host = "/srv/proj", .inside = "/srv/proj", .writable = true,
	  .upper = "/nonexistent/run/projects/0/upper",
	  .workdir = "/nonexistent/run/projects/0/work" },
	/* One of the policy's writable folders: the host's own. */
	{ .host = "/srv/w", .inside = "/srv/w", .writable = true,
	  .host_write = true },
};

static int
setup(void **state)
{
	char *cause = NULL;
	int sv[2];

	(void)state;
	memset(&S, 0, sizeof S);
	snprintf(S.id, sizeof S.id, "abcd1234");
	policy_init(&S.policy);
	S.policy.write = POLICY_ASK;
	S.policy.ask_timeout = 120;
	S.rules = rules_new();
	S.answers = answers_new();
	rules_add(S.rules, KIND_WRITE, "/etc/shadow*", VERDICT_DENY,
	    RULE_POLICY);
	S.queue = queue_new(sup_parked_free, NULL);
	assert_int_equal(audit_open(":memory:", &S.audit, &cause), 0);
	S.binds = binds;
	S.n_binds = ARRAY_SIZE(binds);
	S.listener = -1;
	S.pty = -1;
	S.resp_size = sizeof *S.resp;
	S.resp = xcalloc(1, S.resp_size);
	S.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(S.rootfd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0, sv), 0);
	S.clients[0].conn = proto_conn_new(sv[0]);
	S.clients[0].watch = true;
	console = sv[1];
	console_conn = proto_conn_new(console);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	queue_free(S.queue);
	rules_free(S.rules);
	answers_free(S.answers);
	audit_close(S.audit);
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		if (S.clients[i].conn != NULL)
			sup_drop(&S, i);
	proto_conn_free(console_conn);
	console_conn = NULL;
	close(S.rootfd);
	free(S.resp);
	policy_done(&S.policy);
	return 0;
}

/* The next message the console got, or NULL. What did not fit the socket
 * is flushed first, as the loop's POLLOUT would (no loop runs here). */
static json_t *
console_next(void)
{
	json_t *m = NULL;
	char *cause = NULL;

	if (S.clients[0].conn != NULL)
		(void)proto_flush(S.clients[0].conn);
	(void)proto_read(console_conn);
	if (proto_next(console_conn, &m, &cause) != 1)
		m = NULL;
	free(cause);
	return m;
}

static const char *
str(const json_t *o, const char *path1, const char *path2)
{
	const json_t *v = json_object_get(o, path1);

	if (path2 != NULL)
		v = json_object_get(v, path2);
	return json_string_value(v);
}

/* ---- where / fast ------------------------------------------------------ */

static void
test_where(void **state)
{
	const struct row *r = *state;
	bool follow = strcmp(r->f[2], "follow") == 0;
	static const char *const names[] = {
		[WHERE_OUTSIDE] = "outside", [WHERE_WRITABLE] = "writable",
		[WHERE_HOST] = "host",
		[WHERE_FLOOR] = "floor",
	};

	assert_string_equal(names[files_where(&S, r->f[1])], r->f[3]);
	assert_int_equal(files_fast_continue(&S, r->f[1], follow),
	    strcmp(r->f[4], "fast") == 0);
}

/* The folder the hot path keeps (no_symlinks): a symlink made in it is
 * seen at the next call; a rename in it keeps it; a trapped rename of
 * the folder itself drops it, so a symlink put where it stood is seen
 * too. */
static void
test_kept_folder(void **state)
{
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct seccomp_notif req = {
		.id = 42, .pid = (uint32_t)getpid(),
		.data.arch = AUDIT_ARCH_X86_64, .data.nr = SYS_rename,
	};
	/* With "..", the rename's own paths skip the hot path, which
	 * would keep another folder (/work) in passing. */
	static char from[] = "/work/sub/../mv", to[] = "/work/sub/../mv2";
	static char in_a[] = "/work/mv/a", in_b[] = "/work/mv/b";

	(void)state;
	assert_true(dfd >= 0);
	assert_int_equal(mkdirat(dfd, "work/mv", 0755), 0);
	assert_true(files_fast_continue(&S, "/work/mv/x", true));
	assert_int_equal(symlinkat("/etc", dfd, "work/mv/lnk"), 0);
	assert_false(files_fast_continue(&S, "/work/mv/lnk", true));
	assert_true(files_fast_continue(&S, "/work/mv/lnk", false));
	assert_true(files_fast_continue(&S, "/work/mv/y", true));

	/* A rename inside the kept folder, by the hot path, keeps it. */
	req.data.args[0] = (uintptr_t)in_a;
	req.data.args[1] = (uintptr_t)in_b;
	files_on_call(&S, &req);
	assert_non_null(files_kept_folder());
	assert_string_equal(files_kept_folder(), "/work/mv");

	/* The program renames the folder and plants a symlink there. */
	req.data.args[0] = (uintptr_t)from;
	req.data.args[1] = (uintptr_t)to;
	files_on_call(&S, &req);
	assert_null(files_kept_folder());
	assert_int_equal(renameat(dfd, "work/mv", dfd, "work/mv2"), 0);
	assert_int_equal(symlinkat("/etc", dfd, "work/mv"), 0);
	assert_false(files_fast_continue(&S, "/work/mv/x", true));
	assert_false(files_fast_continue(&S, "/work/mv/passwd", false));

	assert_int_equal(unlinkat(dfd, "work/mv", 0), 0);
	assert_int_equal(unlinkat(dfd, "work/mv2/lnk", 0), 0);
	assert_int_equal(unlinkat(dfd, "work/mv2", AT_REMOVEDIR), 0);
	files_kept_drop();
	close(dfd);
}

/* A symlink put at name with no trapped call (as a process outside the
 * sandbox would): what the hot path answers shows whether it remembered
 * the name or looked again. */
static void
plant_symlink(int dfd, const char *name)
{
	(void)unlinkat(dfd, name, 0);
	assert_int_equal(symlinkat("/etc", dfd, name), 0);
}

static void
plant_file(int dfd, const char *name)
{
	int fd;

	(void)unlinkat(dfd, name, 0);
	assert_true((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644)) >= 0);
	close(fd);
}

/* The names the kept folder remembers free of symlinks: a trapped
 * symlink, link or rename forgets them, and while such a call may still
 * be in the kernel none is learned (nor trusted); a thread's next
 * trapped call, or its /proc/TID/syscall, shows it done. */
static void
test_kept_names(void **state)
{
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct seccomp_notif req = {
		.id = 42, .pid = (uint32_t)getpid(),
		.data.arch = AUDIT_ARCH_X86_64, .data.nr = SYS_symlink,
	};
	static char text[] = "/etc", name[] = "/work/nm/g";
	int pfd[2];
	pid_t pid;
	char c;

	(void)state;
	assert_true(dfd >= 0);
	/* The earlier tests' renames and symlinks came from this process:
	 * this is its next call. */
	files_thread_seen(getpid());
	assert_int_equal(mkdirat(dfd, "work/nm", 0755), 0);
	plant_file(dfd, "work/nm/f");
	assert_true(files_fast_continue(&S, "/work/nm/f", true));
	/* Remembered: a change that no trapped call made is not seen. */
	plant_symlink(dfd, "work/nm/f");
	assert_true(files_fast_continue(&S, "/work/nm/f", true));
	/* A trapped symlink (continued by the hot path: its new name is in
	 * /work) forgets every name. */
	req.data.args[0] = (uintptr_t)text;
	req.data.args[1] = (uintptr_t)name;
	files_on_call(&S, &req);
	files_thread_seen(getpid());	/* and done with it */
	assert_string_equal(files_kept_folder(), "/work/nm");
	assert_false(files_fast_continue(&S, "/work/nm/f", true));

	/* A thread still in its rename (a child blocked in read, as if
	 * read were the call): nothing learned meanwhile. */
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) == 1 ? 0 : 1);
	}
	assert_true(pid > 0);
	close(pfd[0]);
	for (int i = 0; i < 200; i++) {	/* until it is in its read */
		char path[64], buf[32] = "";
		int fd;

		snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
		if ((fd = open(path, O_RDONLY)) >= 0) {
			(void)!read(fd, buf, sizeof buf - 1);
			close(fd);
		}
		if (strtol(buf, NULL, 10) == SYS_read && buf[0] == '0')
			break;
		usleep(5000);
	}
	files_names_moving(pid, SYS_read);
	plant_file(dfd, "work/nm/h");
	usleep(15000);
	assert_true(files_fast_continue(&S, "/work/nm/h", true));
	plant_symlink(dfd, "work/nm/h");
	assert_false(files_fast_continue(&S, "/work/nm/h", true));
	/* Done (gone): learned again, after the look at /proc. */
	assert_int_equal(write(pfd[1], "x", 1), 1);
	close(pfd[1]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	plant_file(dfd, "work/nm/h");
	usleep(15000);
	assert_true(files_fast_continue(&S, "/work/nm/h", true));
	plant_symlink(dfd, "work/nm/h");
	assert_true(files_fast_continue(&S, "/work/nm/h", true));

	/* The thread's next trapped call is enough, no look needed. */
	files_names_moving(pid, SYS_rename);
	files_thread_seen(pid);
	plant_file(dfd, "work/nm/k");
	assert_true(files_fast_continue(&S, "/work/nm/k", true));
	plant_symlink(dfd, "work/nm/k");
	assert_true(files_fast_continue(&S, "/work/nm/k", true));

	/* A name the call does not follow needs no look at all; a new
	 * kept folder starts with no names. */
	assert_true(files_fast_continue(&S, "/work/nm/k", false));
	files_kept_drop();
	assert_false(files_fast_continue(&S, "/work/nm/k", true));

	for (const char *const *n = (const char *const[]){ "f", "g", "h",
	    "k", NULL }; *n != NULL; n++) {
		char p[64];

		snprintf(p, sizeof p, "work/nm/%s", *n);
		(void)unlinkat(dfd, p, 0);
	}
	assert_int_equal(unlinkat(dfd, "work/nm", AT_REMOVEDIR), 0);
	files_kept_drop();
	close(dfd);
}

/* ---- the write path ---------------------------------------------------- */

static const char *
answer(void)
{
	static char buf[32];

	if (S.resp->id == 0)
		return "ask";
	if (S.resp->flags & SECCOMP_USER_NOTIF_FLAG_CONTINUE)
		return "continue";
	if (S.resp->error == 0)
		return "0";
	snprintf(buf, sizeof buf, "-%s", strerrorname_np(-S.resp->error));
	return buf;
}

static void
test_call(void **state)
{
	const struct row *r = *state;
	const char *sc = r->f[1];
	uint64_t p = strcmp(r->f[2], "@bad") == 0 ? 1 : (uintptr_t)r->f[2];
	uint64_t p2 = strcmp(r->f[3], "-") == 0 ? 0 : (uintptr_t)r->f[3];
	struct seccomp_notif req = {
		.id = 42,
		.pid = (uint32_t)getpid(),
		.data.arch = AUDIT_ARCH_X86_64,
	};
	uint64_t *a = (uint64_t *)req.data.args;

	if (strcmp(sc, "open") == 0 || strcmp(sc, "create") == 0) {
		req.data.nr = SYS_openat;
		a[0] = (uint64_t)AT_FDCWD; a[1] = p;
		a[2] = O_WRONLY | (sc[0] == 'c' ? O_CREAT : 0); a[3] = 0644;
	} else if (strcmp(sc, "mkdir") == 0) {
		req.data.nr = SYS_mkdir; a[0] = p; a[1] = 0755;
	} else if (strcmp(sc, "unlink") == 0) {
		req.data.nr = SYS_unlink; a[0] = p;
	} else if (strcmp(sc, "rename") == 0) {
		req.data.nr = SYS_rename; a[0] = p; a[1] = p2;
	} else if (strcmp(sc, "symlink") == 0) {
		req.data.nr = SYS_symlink; a[0] = p; a[1] = p2;
	} else if (strcmp(sc, "chmod") == 0) {
		req.data.nr = SYS_chmod; a[0] = p; a[1] = 0600;
	} else if (strcmp(sc, "getpid") == 0) {
		req.data.nr = SYS_getpid;
	} else
		fail_msg("line %d: unknown syscall %s", r->line, sc);

	files_on_call(&S, &req);
	assert_string_equal(answer(), r->f[4]);
	if (strcmp(r->f[4], "-EACCES") == 0) {
		/* Denied by a rule: recorded, and the consoles told. */
		json_t *m = console_next();

		assert_non_null(m);
		assert_string_equal(str(m, "type", NULL), "event");
		assert_string_equal(str(m, "event", "kind"), "write");
		assert_string_equal(str(m, "event", "verdict"), "deny");
		assert_string_equal(str(m, "event", "how"), "policy");
		assert_true(strncmp(str(m, "event", p2 ? "subject2" :
		    "subject"), "/etc/shadow", 11) == 0);
		json_decref(m);
	}
	/* Nothing was parked: without a listener the id is never valid. */
	assert_int_equal(queue_len(S.queue), 0);
}

/* ---- the core ---------------------------------------------------------- */

static int
count_event(const struct audit_event_row *row, void *ctx)
{
	(void)row;
	++*(int *)ctx;
	return 0;
}

static void
test_record(void **state)
{
	struct sup_what w = {
		.pid = 7, .kind = KIND_CONNECT, .syscall = "connect",
		.subject = "example.org:443", .detail = "tcp, fd 3",
	};
	char *cause = NULL;
	json_t *m;
	int n = 0;

	(void)state;
	sup_record(&S, &w, VERDICT_DENY, HOW_DEFAULT,
	    "[network] connect = deny", "policy", 0, 0);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "event");
	assert_string_equal(str(m, "event", "kind"), "connect");
	assert_string_equal(str(m, "event", "syscall"), "connect");
	assert_string_equal(str(m, "event", "subject"), "example.org:443");
	assert_string_equal(str(m, "event", "detail"), "tcp, fd 3");
	assert_string_equal(str(m, "event", "rule"), "[network] connect = deny");
	assert_string_equal(str(m, "event", "by"), "policy");
	assert_true(json_is_null(json_object_get(json_object_get(m, "event"),
	    "subject2")));
	assert_int_equal(json_integer_value(json_object_get(
	    json_object_get(m, "event"), "pid")), 7);
	assert_true(json_integer_value(json_object_get(
	    json_object_get(m, "event"), "time_ms")) > 0);
	json_decref(m);

	/* A request's answer is recorded, and reaches consoles as
	 * "resolved" only (from unotify_resolve), never as an event. */
	sup_record(&S, &w, VERDICT_ALLOW, HOW_PERSON, NULL, "someone", 10, 3);
	assert_null(console_next());
	sup_record_run(&S, "kill", VERDICT_KILL, HOW_PERSON, "someone", NULL);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "event", "kind"), "run");
	assert_string_equal(str(m, "event", "subject"), "kill");
	assert_true(json_is_null(json_object_get(json_object_get(m, "event"),
	    "syscall")));
	json_decref(m);

	assert_int_equal(audit_flush(S.audit, &cause), 0);
	assert_int_equal(audit_each_event(S.audit, "abcd1234", count_event, &n, NULL),
	    0);
	assert_int_equal(n, 3);
}

static void
test_limits(void **state)
{
	char buf[256];

	(void)state;
	S.policy.memory = 1ULL << 30;
	S.policy.file_size = 3ULL << 20;
	S.policy.timeout = 0;
	S.policy.cpu = 5;
	S.policy.pids = 64;
	S.policy.open_files = 0;
	S.landlock = true;
	sup_limits(&S, buf, sizeof buf);
	assert_string_equal(buf, "timeout=none memory=1G pids=64 cpu=5s "
	    "file_size=3M open_files=host (rlimits) landlock");
}

/* A kind of its own, that counts what is done to it. */
static struct {
	int		 resolved, remembered, freed;
	enum verdict	 v;
	enum how	 how;
	char		 by[64], reason[64];
	enum verdict	 remembered_v;
	char		 remembered_subject[64];
} fake;

static enum verdict
fake_resolve(struct sup *s, struct parked *pk, enum verdict v, enum how how,
    const char *by, const char *reason, int64_t wait_ms, uint64_t request)
{
	(void)s; (void)pk; (void)request;
	assert_true(wait_ms >= 0);
	fake.resolved++;
	fake.v = v;
	fake.how = how;
	snprintf(fake.by, sizeof fake.by, "%s", by);
	snprintf(fake.reason, sizeof fake.reason, "%s", reason ? reason : "-");
	return v == VERDICT_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
}

static void
fake_remember(struct sup *s, const struct parked *pk,
    const struct request *r, enum verdict v)
{
	(void)s; (void)pk;
	fake.remembered++;
	fake.remembered_v = v;
	snprintf(fake.remembered_subject, sizeof fake.remembered_subject, "%s",
	    r->subject);
}

static void
fake_free(struct parked *pk)
{
	fake.freed++;
	free(pk->dns);
	pk->dns = NULL;
}

static const struct kind_ops fake_ops = {
	.resolve = fake_resolve,
	.remember = fake_remember,
	.free = fake_free,
};

static uint64_t
park_fake(const char *subject)
{
	struct parked *pk = xcalloc(1, sizeof *pk);
	struct sup_what w = {
		.pid = 0, .kind = KIND_DNS, .syscall = "dns", .subject = subject,
		.detail = "lookup A", .cmdline = "(the stub)", .cwd = "-",
	};

	pk->ops = &fake_ops;
	pk->dns = xmalloc(16);	/* a payload for the ops to free */
	sup_park(&S, pk, &w, "no rule");
	return S.next_request;
}

static void
test_park_resolve(void **state)
{
	const struct request *r;
	uint64_t id;
	json_t *m;

	(void)state;
	memset(&fake, 0, sizeof fake);
	id = park_fake("x.example");
	assert_int_equal(id, 1);
	assert_int_equal(queue_len(S.queue), 1);
	assert_non_null(r = queue_find(S.queue, id));
	assert_string_equal(r->run, "abcd1234");
	assert_string_equal(r->syscall, "dns");
	assert_string_equal(r->subject, "x.example");
	assert_null(r->subject2);
	assert_string_equal(r->detail, "lookup A");
	assert_string_equal(r->cmdline, "(the stub)");
	assert_string_equal(r->cwd, "-");
	assert_string_equal(r->why, "no rule");
	assert_int_equal(r->deadline_ms, r->created_ms + 120000);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "request");
	assert_string_equal(str(m, "request", "subject"), "x.example");
	json_decref(m);

	unotify_resolve(&S, id, VERDICT_DENY, HOW_PERSON, "uid 0 via cli",
	    "no");
	assert_int_equal(fake.resolved, 1);
	assert_int_equal(fake.v, VERDICT_DENY);
	assert_int_equal(fake.how, HOW_PERSON);
	assert_string_equal(fake.by, "uid 0 via cli");
	assert_string_equal(fake.reason, "no");
	assert_int_equal(fake.freed, 1);
	assert_int_equal(queue_len(S.queue), 0);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "resolved");
	assert_string_equal(str(m, "verdict", NULL), "deny");
	assert_string_equal(str(m, "by", NULL), "uid 0 via cli");
	json_decref(m);

	/* Answered once: a second answer finds nothing. */
	unotify_resolve(&S, id, VERDICT_ALLOW, HOW_PERSON, "x", NULL);
	assert_int_equal(fake.resolved, 1);
}

static int
collect_state(const struct audit_event_row *row, void *ctx)
{
	struct audit_event_row *last = ctx;

	last->seq = row->seq;
	last->state = row->state;
	last->ev.verdict = row->ev.verdict;
	last->ev.request_id = row->ev.request_id;
	return 0;
}

/* A parked request is in the record, as asked, before anyone sees it. */
static void
test_park_recorded(void **state)
{
	struct audit_event_row last = { 0 };
	json_t *m;

	(void)state;
	memset(&fake, 0, sizeof fake);
	assert_int_equal(park_fake("y.example"), 1);
	assert_int_equal(audit_pending(S.audit), 0);	/* committed */
	assert_int_equal(audit_each_event(S.audit, "abcd1234", collect_state,
	    &last, NULL), 0);
	assert_true(last.seq > 0);
	assert_int_equal(last.state, AUDIT_ASKED);
	assert_int_equal(last.ev.verdict, VERDICT_ASK);
	assert_int_equal(last.ev.request_id, 1);
	assert_non_null(m = console_next());
	json_decref(m);
}

/* ---- asker gone (issue 31) ---------------------------------------------- */

/* A kind whose resolve records as the real ones do (sup_done on its
 * asked row). */
static enum verdict
gone_resolve(struct sup *s, struct parked *pk, enum verdict v, enum how how,
    const char *by, const char *reason, int64_t wait_ms, uint64_t request)
{
	struct sup_what w = { .kind = KIND_CONNECT, .syscall = "connect",
	    .subject = "198.51.100.7:443" };

	(void)fake_resolve(s, pk, v, how, by, reason, wait_ms, request);
	sup_done(s, pk->seq, &w, VERDICT_DENY, how, reason, by, wait_ms,
	    request);
	return VERDICT_DENY;
}

/* A trapped call's: the notification checked (ID_VALID; with no
 * listener here no id is valid: the thread is gone). */
static const struct kind_ops gone_ops = {
	.resolve = gone_resolve,
	.remember = fake_remember,
	.free = fake_free,
	.gone = sup_call_gone,
};

static int
collect_decided(const struct audit_event_row *row, void *ctx)
{
	struct audit_event_row *last = ctx;

	if (row->ev.request_id != 1)
		return 0;
	last->state = row->state;
	last->ev.verdict = row->ev.verdict;
	last->ev.how = row->ev.how;
	last->ev.request_id = row->ev.request_id;
	snprintf(fake.reason, sizeof fake.reason, "%s",
	    row->ev.decided_by != NULL ? row->ev.decided_by : "-");
	return 0;
}

/* A request whose asker is gone is closed on the timer, not at once,
 * recorded denied "asker gone" and told as resolved "none"; one whose
 * kind has no check (an HTTP request the gate holds) stays; with
 * nothing parked the timer stops. */
static void
test_asker_gone(void **state)
{
	struct parked *pk = xcalloc(1, sizeof *pk);
	struct sup_what w = {
		.pid = 0, .kind = KIND_CONNECT, .syscall = "connect",
		.subject = "198.51.100.7:443", .cmdline = "curl", .cwd = "/",
	};
	struct audit_event_row last = { 0 };
	uint64_t held;
	json_t *m;

	(void)state;
	memset(&fake, 0, sizeof fake);
	pk->ops = &gone_ops;
	pk->req.id = 77;
	pk->dns = xmalloc(16);
	sup_park(&S, pk, &w, "no rule");
	assert_int_equal(S.next_request, 1);
	held = park_fake("held.example");	/* .gone NULL: never */
	json_decref(console_next());
	json_decref(console_next());

	unotify_gone(&S, 10000);	/* the first look only sets the timer */
	assert_int_equal(S.gone_at, 10000 + UNOTIFY_GONE_MS);
	assert_int_equal(queue_len(S.queue), 2);
	unotify_gone(&S, 10000 + UNOTIFY_GONE_MS - 1);
	assert_int_equal(fake.resolved, 0);
	unotify_gone(&S, 10000 + UNOTIFY_GONE_MS);
	assert_int_equal(fake.resolved, 1);
	/* Nobody decided: VERDICT_NONE (nothing remembered), by the
	 * supervisor. */
	assert_int_equal(fake.v, VERDICT_NONE);
	assert_int_equal(fake.how, HOW_SUPERVISOR);
	assert_string_equal(fake.by, "asker gone");
	assert_int_equal(fake.remembered, 0);
	assert_int_equal(queue_len(S.queue), 1);
	assert_non_null(queue_find(S.queue, held));
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "resolved");
	assert_int_equal(json_integer_value(json_object_get(m, "request")), 1);
	assert_string_equal(str(m, "verdict", NULL), "none");
	assert_string_equal(str(m, "how", NULL), "supervisor");
	assert_string_equal(str(m, "by", NULL), "asker gone");
	json_decref(m);
	/* In the record: its asked row, decided. */
	(void)sup_flush(&S);
	assert_int_equal(audit_each_event(S.audit, "abcd1234", collect_decided,
	    &last, NULL), 0);
	assert_int_equal(last.ev.request_id, 1);
	assert_int_equal(last.state, AUDIT_DONE);
	assert_int_equal(last.ev.verdict, VERDICT_DENY);
	assert_int_equal(last.ev.how, HOW_SUPERVISOR);
	assert_string_equal(fake.reason, "asker gone");

	/* The other stays however often it is looked at. */
	unotify_gone(&S, 20000);
	unotify_gone(&S, 30000);
	assert_int_equal(queue_len(S.queue), 1);
	unotify_resolve(&S, held, VERDICT_DENY, HOW_PERSON, "x", NULL);
	unotify_gone(&S, 40000);
	assert_int_equal(S.gone_at, 0);
}

/* The record cannot be kept: a request is denied at once, the way its
 * kind is answered, and never shown; an effect's intent is refused. */
static void
test_record_broken(void **state)
{
	struct sup_what w = {
		.pid = 7, .kind = KIND_WRITE, .syscall = "openat",
		.subject = "/srv/x",
	};
	int64_t seq = 0;

	(void)state;
	memset(&fake, 0, sizeof fake);
	S.record_broken = true;
	(void)park_fake("z.example");
	assert_int_equal(fake.resolved, 1);
	assert_int_equal(fake.v, VERDICT_DENY);
	assert_int_equal(fake.how, HOW_SUPERVISOR);
	assert_int_equal(fake.freed, 1);
	assert_int_equal(queue_len(S.queue), 0);
	assert_null(console_next());
	assert_int_equal(sup_intent(&S, &w, VERDICT_ALLOW, HOW_POLICY, NULL,
	    "policy", 0, 0, &seq), -EIO);
	assert_int_equal(seq, 0);
}

/* sup_intent commits before the caller acts; sup_done completes the row
 * and tells the consoles. */
static void
test_intent(void **state)
{
	struct sup_what w = {
		.pid = 7, .kind = KIND_WRITE, .syscall = "openat",
		.subject = "/srv/x",
	};
	struct audit_event_row last = { 0 };
	char *cause = NULL;
	int64_t seq = 0;
	json_t *m;

	(void)state;
	assert_int_equal(sup_intent(&S, &w, VERDICT_ALLOW, HOW_POLICY,
	    "allow /srv/*", "policy", 0, 0, &seq), 0);
	assert_true(seq > 0);
	assert_null(console_next());	/* the outcome is the event */
	assert_int_equal(audit_each_event(S.audit, "abcd1234", collect_state,
	    &last, NULL), 0);
	assert_int_equal(last.seq, seq);
	assert_int_equal(last.state, AUDIT_INTENT);
	sup_done(&S, seq, &w, VERDICT_ALLOW, HOW_POLICY, "allow /srv/*",
	    "policy", 0, 0);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "event");
	json_decref(m);
	assert_int_equal(audit_flush(S.audit, &cause), 0);
	assert_int_equal(audit_each_event(S.audit, "abcd1234", collect_state,
	    &last, NULL), 0);
	assert_int_equal(last.seq, seq);
	assert_int_equal(last.state, AUDIT_DONE);
	assert_false(S.record_broken);
}

static void
test_queue_frees_payload(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof fake);
	(void)park_fake("a.example");
	(void)park_fake("b.example");
	queue_free(S.queue);
	assert_int_equal(fake.freed, 2);
	S.queue = queue_new(sup_parked_free, NULL);
}

static void
console_say(const char *text)
{
	json_error_t e;
	json_t *m = json_loads(text, 0, &e);

	assert_non_null(m);
	assert_int_equal(proto_send(console_conn, m), 0);
	assert_int_equal(proto_flush(console_conn), 0);
	json_decref(m);
	control_on_client(&S, 0, POLLIN);
}

/* control.c's decide: "for this run" goes through the kind's ops, and
 * the answer through unotify_resolve; it never asks the kind. */
static void
test_decide_for_run(void **state)
{
	uint64_t id;
	json_t *m;
	char buf[160], first_by[64];

	(void)state;
	memset(&fake, 0, sizeof fake);
	S.clients[0].watch = false;
	id = park_fake("y.example");
	console_say("{\"type\":\"hello\",\"client\":\"cli\",\"watch\":true}");
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "welcome");
	assert_int_equal(json_array_size(json_object_get(m, "pending")), 1);
	json_decref(m);

	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"allow\",\"scope\":\"run\",\"reason\":\"ok\"}",
	    (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.remembered, 1);
	assert_int_equal(fake.remembered_v, VERDICT_ALLOW);
	assert_string_equal(fake.remembered_subject, "y.example");
	assert_int_equal(fake.resolved, 1);
	assert_int_equal(fake.v, VERDICT_ALLOW);
	assert_int_equal(fake.how, HOW_PERSON);
	assert_true(strstr(fake.by, "via cli") != NULL);
	/* The uid's name, read once for the connection and kept. */
	assert_string_not_equal(S.clients[0].user, "");
	snprintf(first_by, sizeof first_by, "%s", fake.by);
	snprintf(buf, sizeof buf, "uid %u (%s) ",
	    (unsigned)proto_conn_peer_uid(S.clients[0].conn),
	    S.clients[0].user);
	assert_true(strncmp(first_by, buf, strlen(buf)) == 0);
	assert_int_equal(fake.freed, 1);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "ack");
	assert_true(json_is_true(json_object_get(m, "ok")));
	json_decref(m);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "resolved");
	assert_string_equal(str(m, "verdict", NULL), "allow");
	json_decref(m);

	/* Once only ("once" is the default): nothing remembered. */
	id = park_fake("z.example");
	json_decref(console_next());	/* the request */
	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"deny\"}", (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.remembered, 1);
	assert_int_equal(fake.resolved, 2);
	assert_int_equal(fake.v, VERDICT_DENY);
	assert_string_equal(fake.by, first_by);	/* the same words */

	/* "Always": the record's decided_by says where the rule went; only
	 * as an answer for the run. */
	while ((m = console_next()) != NULL)	/* the deny's ack, resolved */
		json_decref(m);
	id = park_fake("w.example");
	json_decref(console_next());	/* the request */
	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"allow\",\"always\":{\"file\":\"/p/ward.ini\","
	    "\"line\":7}}", (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.resolved, 2);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "ack");
	assert_true(json_is_false(json_object_get(m, "ok")));
	assert_non_null(strstr(str(m, "error", NULL), "answer for the run"));
	json_decref(m);
	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"allow\",\"scope\":\"run\",\"always\":{\"file\":"
	    "\"/p/ward.ini\",\"line\":7}}", (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.resolved, 3);
	assert_int_equal(fake.remembered, 2);
	assert_non_null(strstr(fake.by, "via cli; always: /p/ward.ini:7"));
}

static char *
slurp_file(const char *path)
{
	char *buf = xcalloc(1, 256);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		free(buf);
		return NULL;
	}
	assert_true(read(fd, buf, 255) >= 0);
	close(fd);
	return buf;
}

static int64_t
stage_open(const char *path, uint64_t flags, int *fd)
{
	static struct write_call c;

	memset(&c, 0, sizeof c);
	c.op = OP_OPEN;
	c.name = "openat";
	c.flags = flags;
	c.mode = 0644;
	snprintf(c.path, sizeof c.path, "%s", path);
	return emulate_stage(&S, getpid(), &c, fd);
}

/*
 * emulate_call's open on this process, as for an approved or allowed
 * write: a new file gets the program's umask (read only because the call
 * creates), no before-image (nothing was there), and the fd's status
 * flags as asked, its O_NONBLOCK gone unless asked; an existing file
 * opened again gets its before-image once.
 */
static void
test_emulate_open(void **state)
{
	char *dir = xasprintf("%s/emul-host", root);
	char *before = xasprintf("%s/emul-before", root);
	char *file = xasprintf("%s/file", dir);
	char *kept = xasprintf("%s%s", before, file);
	struct bind b[] = { { .host = dir, .inside = dir, .writable = false } };
	struct write_call *c = xcalloc(1, sizeof *c);
	mode_t old = umask(027);
	struct stat st;
	int fd = -1;
	char *s;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	S.binds = b;
	S.n_binds = 1;
	S.before = before;
	c->op = OP_OPEN;
	c->name = "openat";
	c->flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
	c->mode = 0666;
	snprintf(c->path, sizeof c->path, "%s", file);
	assert_true(emulate_creates(c));
	assert_int_equal(emulate_call(&S, getpid(), c, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_APPEND | O_NONBLOCK),
	    O_APPEND);
	assert_int_equal(write(fd, "one\n", 4), 4);
	close(fd);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_not_equal(access(kept, F_OK), 0);

	/* Again, O_NONBLOCK asked, no O_CREAT: the umask is not needed, the
	 * file's bytes before are kept, the flag stays. */
	c->flags = O_WRONLY | O_TRUNC | O_NONBLOCK;
	assert_false(emulate_creates(c));
	assert_int_equal(emulate_call(&S, getpid(), c, &fd), 0);
	assert_true((fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
	close(fd);
	assert_string_equal(s = slurp_file(kept), "one\n");
	free(s);
	umask(old);

	/* Which calls can make a file. */
	c->flags = O_WRONLY | __O_TMPFILE;
	assert_true(emulate_creates(c));
	c->op = OP_MKDIR;
	assert_true(emulate_creates(c));
	c->op = OP_MKNOD;
	assert_true(emulate_creates(c));
	c->op = OP_RENAME;
	assert_false(emulate_creates(c));
	c->op = OP_UNLINK;
	assert_false(emulate_creates(c));
	c->op = OP_CHMOD;
	assert_false(emulate_creates(c));
	S.before = NULL;
	free(c);
	free(kept);
	free(file);
	free(before);
	free(dir);
}

/*
 * emulate_stage on this process (its root is the host's /, a bind of the
 * host folder at its own path): the copy in RUN/outside/upper/<path>, the
 * host's bytes in outside/base/, the host file never written; made once
 * per path; a symlink at the name is refused; a new file has no base.
 */
static void
test_stage_copy(void **state)
{
	char *dir = xasprintf("%s/stage-host", root);
	char *run = xasprintf("%s/stage-run", root);
	char *file = xasprintf("%s/file", dir);
	char *link = xasprintf("%s/link", dir);
	char *fresh = xasprintf("%s/fresh", dir);
	char *up = xasprintf("%s/outside/upper%s", run, file);
	char *base = xasprintf("%s/outside/base%s", run, file);
	char *upfresh = xasprintf("%s/outside/upper%s", run, fresh);
	char *basefresh = xasprintf("%s/outside/base%s", run, fresh);
	struct bind b[] = { { .host = dir, .inside = dir, .writable = false } };
	struct stat st;
	char *s;
	int fd = -1, hfd;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(run, 0700), 0);
	hfd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	assert_true(hfd >= 0);
	assert_int_equal(write(hfd, "old\n", 4), 4);
	close(hfd);
	assert_int_equal(symlink(file, link), 0);
	S.binds = b;
	S.n_binds = 1;
	S.run_dir = run;

	assert_int_equal(stage_open(file, O_WRONLY | O_APPEND, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new\n", 4), 4);
	close(fd);
	assert_string_equal(s = slurp_file(file), "old\n");
	free(s);
	assert_string_equal(s = slurp_file(up), "old\nnew\n");
	free(s);
	assert_string_equal(s = slurp_file(base), "old\n");
	free(s);
	assert_int_equal(stat(up, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);

	/* Again: the same copy, not a new one from the host. */
	assert_int_equal(stage_open(file, O_WRONLY | O_APPEND, &fd), 0);
	assert_int_equal(write(fd, "more\n", 5), 5);
	close(fd);
	assert_string_equal(s = slurp_file(up), "old\nnew\nmore\n");
	free(s);
	assert_string_equal(s = slurp_file(file), "old\n");
	free(s);

	/* A symlink at the name is never followed. */
	fd = -1;
	assert_int_equal(stage_open(link, O_WRONLY, &fd), -ELOOP);
	assert_int_equal(fd, -1);
	/* A file the open creates: a copy, no base; without O_CREAT,
	 * ENOENT as the host would say. */
	assert_int_equal(stage_open(fresh, O_WRONLY, &fd), -ENOENT);
	assert_int_equal(stage_open(fresh, O_WRONLY | O_CREAT, &fd), 0);
	close(fd);
	assert_int_equal(access(upfresh, F_OK), 0);
	assert_int_not_equal(access(basefresh, F_OK), 0);
	assert_int_not_equal(access(fresh, F_OK), 0);

	S.binds = binds;
	S.n_binds = ARRAY_SIZE(binds);
	S.run_dir = NULL;
	free(dir);
	free(run);
	free(file);
	free(link);
	free(fresh);
	free(up);
	free(base);
	free(upfresh);
	free(basefresh);
}

/* "stage" only for a kind whose ops say it can be: otherwise the ack
 * says why and the request stays pending, unanswered. */
static void
test_decide_stage_refused(void **state)
{
	uint64_t id;
	json_t *m;
	char buf[160];

	(void)state;
	memset(&fake, 0, sizeof fake);
	S.clients[0].watch = false;
	id = park_fake("s.example");
	console_say("{\"type\":\"hello\",\"client\":\"cli\"}");
	json_decref(console_next());	/* the welcome */
	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"stage\"}", (unsigned long long)id);
	console_say(buf);
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "ack");
	assert_true(json_is_false(json_object_get(m, "ok")));
	assert_non_null(strstr(str(m, "error", NULL),
	    "only a write that opens a file can be staged"));
	json_decref(m);
	assert_int_equal(fake.resolved, 0);
	assert_int_equal(fake.remembered, 0);
	assert_int_equal(queue_len(S.queue), 1);
	/* Still answerable. */
	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"deny\"}", (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.resolved, 1);
	assert_int_equal(fake.v, VERDICT_DENY);
}

/* Issue 15: a parked request says the rule an answer for the run
 * stores; a decide whose confirmed rule is another is refused, nothing
 * remembered or answered; rules lists the run's rules, revoke removes
 * one and is recorded. */
static void
test_decide_rule_checked(void **state)
{
	uint64_t id;
	json_t *m;
	char buf[200];

	(void)state;
	memset(&fake, 0, sizeof fake);
	id = park_fake("Y.Example*");
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "request", "rule"), "y.example\\*");
	json_decref(m);

	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"allow\",\"scope\":\"run\",\"rule\":\"y.example*\"}",
	    (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.remembered, 0);
	assert_int_equal(fake.resolved, 0);
	assert_non_null(queue_find(S.queue, id));
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "ack");
	assert_true(json_is_false(json_object_get(m, "ok")));
	assert_non_null(strstr(str(m, "error", NULL), "not the rule"));
	json_decref(m);

	snprintf(buf, sizeof buf, "{\"type\":\"decide\",\"request\":%llu,"
	    "\"verdict\":\"allow\",\"scope\":\"run\","
	    "\"rule\":\"y.example\\\\*\"}", (unsigned long long)id);
	console_say(buf);
	assert_int_equal(fake.remembered, 1);
	assert_int_equal(fake.resolved, 1);
	assert_null(queue_find(S.queue, id));
	assert_non_null(m = console_next());
	assert_true(json_is_true(json_object_get(m, "ok")));
	json_decref(m);
	json_decref(console_next());	/* resolved */

	answers_add(S.answers, KIND_WRITE, "/tmp/a", VERDICT_ALLOW);
	answers_add(S.answers, KIND_CONNECT, "b.example:443",
	    VERDICT_DENY);
	/* rules and revoke come after a hello, as everything but kill */
	console_say("{\"type\":\"rules\"}");
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "ack");
	assert_string_equal(str(m, "error", NULL), "hello first");
	json_decref(m);
	console_say("{\"type\":\"revoke\",\"rule\":1}");
	json_decref(console_next());
	assert_int_equal(answers_count(S.answers), 2);
	console_say("{\"type\":\"hello\",\"client\":\"cli\","
	    "\"watch\":true}");
	json_decref(console_next());	/* welcome */
	console_say("{\"type\":\"rules\"}");
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "rule_list");
	{
		const json_t *a = json_object_get(m, "rules");

		assert_int_equal(json_array_size(a), 2);
		assert_string_equal(json_string_value(json_object_get(
		    json_array_get(a, 1), "pattern")), "b.example:443");
	}
	json_decref(m);
	console_say("{\"type\":\"revoke\",\"rule\":1}");
	assert_non_null(m = console_next());
	assert_true(json_is_true(json_object_get(m, "ok")));
	json_decref(m);
	/* the watching console sees it recorded */
	assert_non_null(m = console_next());
	assert_string_equal(str(m, "type", NULL), "event");
	assert_string_equal(str(m, "event", "subject"),
	    "revoke allow write /tmp/a (run)");
	json_decref(m);
	assert_int_equal(answers_count(S.answers), 1);
	assert_int_equal(answers_match(S.answers, KIND_WRITE, "/tmp/a"),
	    VERDICT_NONE);
	console_say("{\"type\":\"revoke\",\"rule\":2}");
	assert_non_null(m = console_next());
	assert_true(json_is_false(json_object_get(m, "ok")));
	assert_non_null(strstr(str(m, "error", NULL), "has no rule 2"));
	json_decref(m);
}

int
main(void)
{
	struct CMUnitTest *t;
	size_t n = 0;
	char name[64];
	int r;

	tsv_load(WRITES_TSV);
	if (mkdtemp(root) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	t = xcalloc(n_rows + 17, sizeof *t);
	for (size_t i = 0; i < n_rows; i++) {
		struct row *rw = &rows[i];
		void (*fn)(void **) = NULL;

		if (strcmp(rw->f[0], "where") == 0 && rw->n == 5)
			fn = test_where;
		else if (strcmp(rw->f[0], "call") == 0 && rw->n == 5)
			fn = test_call;
		else if (strcmp(rw->f[0], "tree") == 0)
			continue;
		else {
			fprintf(stderr, "%s:%d: bad line\n", WRITES_TSV, rw->line);
			return 1;
		}
		snprintf(name, sizeof name, "%s line %d", rw->f[0], rw->line);
		t[n++] = (struct CMUnitTest){ xstrdup(name), fn, setup,
		    teardown, rw };
	}
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_kept_folder, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_kept_names, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(test_record,
	    setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(test_limits,
	    setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_park_resolve, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_asker_gone, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_queue_frees_payload, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_park_recorded, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_record_broken, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_intent, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_decide_for_run, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_decide_stage_refused, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_emulate_open, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_stage_copy, setup, teardown);
	t[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
	    test_decide_rule_checked, setup, teardown);
	/* The tree is made once; the fixture opens it for each test. */
	make_tree();
	r = _cmocka_run_group_tests("sup-files", t, n, NULL, NULL);
	{
		char cmd[64];

		snprintf(cmd, sizeof cmd, "rm -rf %s", root);
		(void)!system(cmd);
	}
	return r;
}
