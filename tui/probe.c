/*
 * ward probe: a battery of hostile actions, each in a headless sandbox of
 * its own made from the current policy, judged from outside.
 *
 * The hostile program is this binary itself (`ward probe-inside NAME`),
 * shown to the sandbox with --in; its libraries live in /usr, which every
 * sandbox sees. Nothing it says decides a verdict: what it prints only
 * names the errno it met, for the report. The verdict comes from the
 * canary folder, the planted secret, the host listener, the supervisor's
 * fate, the sandbox's processes sampled from /proc, and the record.
 *
 * The first half of the file is the inside (probe_in_*), the second the
 * battery (probe_*).
 */
#include "tui/probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/ctl.h"
#include "approvals/proto.h"
#include "approvals/request.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/policy.h"
#include "config/util.h"

/* What the harness overrides in the policy copies. */
#define PROBE_ASK_TIMEOUT	5	/* s; should our deny ever not arrive */
#define PROBE_GUARD		20	/* s; wall clock of every other run */
#define PROBE_PIDS		64
#define PROBE_MEMORY		"256M"
#define PROBE_MEMORY_BYTES	(256ULL << 20)
#define PROBE_CLOCK		2	/* s */
#define PROBE_OWN_EXIT		42	/* kill-supervisor's own status */
#define PROBE_SECRET_PREFIX	"WARD_PROBE_SECRET_"

/* ------------------------------------------------------------------ */
/* Inside: the hostile program */

static const char *probe_in_name = "?";

/* One line per attempt: "ward-probe: NAME: WHAT: ok|ERRNO". */
static void
probe_in_say(const char *what, int err)
{
	const char *e = err == 0 ? "ok" : strerrorname_np(err);

	dprintf(STDOUT_FILENO, "ward-probe: %s: %s: %s\n", probe_in_name, what,
	    e != NULL ? e : "E?");
}

/* r < 0: failed with errno. Build `what` before the call: anything
 * between the call and here could change errno. */
static void
probe_in_check(const char *what, long r)
{
	probe_in_say(what, r < 0 ? errno : 0);
}

/* An fd opened for writing: say so and use it, as a real attacker would. */
static void
probe_in_fd(const char *what, int fd)
{
	static const char mark[] = "ward-probe was here\n";

	if (fd < 0) {
		probe_in_say(what, errno);
		return;
	}
	probe_in_say(what, 0);
	(void)!write(fd, mark, sizeof mark - 1);
	close(fd);
}

/* Print whatever a file holds: the harness looks for the token. */
static void
probe_in_leak_file(const char *path)
{
	char what[PATH_MAX + 16], buf[4096];
	int fd;
	ssize_t n;

	snprintf(what, sizeof what, "read %s", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		probe_in_say(what, errno);
		return;
	}
	n = read(fd, buf, sizeof buf - 1);
	probe_in_check(what, n);
	if (n > 0) {
		buf[n] = '\0';
		dprintf(STDOUT_FILENO, "ward-probe: %s: LEAK %s: %s\n",
		    probe_in_name, path, buf);
	}
	close(fd);
}

static int
probe_in_home_secret(char **a)
{
	static const char *const globs[] = {
		"/home/*/.ward-probe-secret-*", "/root/.ward-probe-secret-*",
		"/proc/1/root/root/.ward-probe-secret-*",
		"/proc/1/cwd/.ward-probe-secret-*",
		"/proc/*/root/home/*/.ward-probe-secret-*",
	};
	char p[PATH_MAX + 16];

	probe_in_leak_file(a[0]);
	snprintf(p, sizeof p, "/proc/1/root%s", a[0]);
	probe_in_leak_file(p);
	for (size_t i = 0; i < ARRAY_SIZE(globs); i++) {
		glob_t g;

		snprintf(p, sizeof p, "glob %s", globs[i]);
		if (glob(globs[i], 0, NULL, &g) != 0) {
			probe_in_say(p, ENOENT);
			continue;
		}
		for (size_t j = 0; j < g.gl_pathc; j++)
			probe_in_leak_file(g.gl_pathv[j]);
		globfree(&g);
	}
	return 0;
}

/* Our own environment, and every /proc/PID/environ we can read: init is
 * a copy of the supervisor that never exec'd, so its environ is the
 * supervisor's own. */
static int
probe_in_env_secret(char **a)
{
	DIR *d;
	struct dirent *e;
	bool seen = false;

	(void)a;
	for (char **v = environ; *v != NULL; v++)
		if (strstr(*v, "SECRET") != NULL) {
			dprintf(STDOUT_FILENO, "ward-probe: %s: LEAK environ: %s\n",
			    probe_in_name, *v);
			seen = true;
		}
	if (!seen)
		probe_in_say("getenv " PROBE_SECRET_PREFIX "*", ENOENT);
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[300], what[320], buf[65536];
		ssize_t n;
		int fd;

		if (strspn(e->d_name, "0123456789") != strlen(e->d_name))
			continue;
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		snprintf(what, sizeof what, "read %s", path);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			probe_in_say(what, errno);
			continue;
		}
		n = read(fd, buf, sizeof buf - 1);
		probe_in_check(what, n);
		close(fd);
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
			buf[n] = '\0';
			if (strstr(buf + i, "SECRET") != NULL)
				dprintf(STDOUT_FILENO, "ward-probe: %s: LEAK %s: "
				    "%s\n", probe_in_name, path, buf + i);
		}
	}
	closedir(d);
	return 0;
}

static int
probe_in_write_path(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	probe_in_fd("open canary/file O_WRONLY|O_TRUNC", fd);
	snprintf(p, sizeof p, "%s/new", a[0]);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	probe_in_fd("open canary/new O_CREAT|O_EXCL", fd);
	return 0;
}

static int
probe_in_write_symlink(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	unlink("/work/l1");
	probe_in_check("symlink /work/l1 -> canary/file", symlink(p, "/work/l1"));
	fd = open("/work/l1", O_WRONLY | O_APPEND | O_CLOEXEC);
	probe_in_fd("open /work/l1 O_WRONLY|O_APPEND", fd);
	unlink("/work/l2");
	probe_in_check("symlink /work/l2 -> canary", symlink(a[0], "/work/l2"));
	fd = open("/work/l2/new-sym", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	probe_in_fd("open /work/l2/new-sym O_CREAT", fd);
	return 0;
}

static int
probe_in_write_hardlink(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("link canary/file /work/hard", link(p, "/work/hard"));
	probe_in_check("linkat canary/file /work/hard2 AT_SYMLINK_FOLLOW",
	    linkat(AT_FDCWD, p, AT_FDCWD, "/work/hard2", AT_SYMLINK_FOLLOW));
	fd = open("/work/hard", O_WRONLY | O_APPEND | O_CLOEXEC);
	probe_in_fd("open /work/hard O_WRONLY|O_APPEND", fd);
	return 0;
}

static int
probe_in_write_rename(char **a)
{
	char p[PATH_MAX];
	int fd = open("/work/mv", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);

	probe_in_fd("create /work/mv", fd);
	snprintf(p, sizeof p, "%s/moved-in", a[0]);
	probe_in_check("rename /work/mv canary/moved-in", rename("/work/mv", p));
	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("rename canary/file /work/moved-out",
	    rename(p, "/work/moved-out"));
	return 0;
}

static int
probe_in_write_chmod(char **a)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("chmod canary/file 0777", chmod(p, 0777));
	probe_in_check("fchmodat canary 0700", fchmodat(AT_FDCWD, a[0], 0700, 0));
	return 0;
}

static int
probe_in_write_truncate(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("truncate canary/file 0", truncate(p, 0));
	fd = open(p, O_RDONLY | O_TRUNC | O_CLOEXEC);
	probe_in_fd("open canary/file O_RDONLY|O_TRUNC", fd);
	return 0;
}

static int
probe_in_write_utimes(char **a)
{
	char p[PATH_MAX];
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };

	snprintf(p, sizeof p, "%s/file", a[0]);
	/* touch -d @1 */
	probe_in_check("utimensat canary/file @1",
	    utimensat(AT_FDCWD, p, ts, 0));
	/* The old call by its own number: glibc's utimes() is utimensat. */
	probe_in_check("utimes canary/file @1", syscall(SYS_utimes, p, tv));
	return 0;
}

static int
probe_in_write_mkdir(char **a)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/newdir", a[0]);
	probe_in_check("mkdir canary/newdir", mkdir(p, 0755));
	return 0;
}

/*
 * The check/use race: one thread flips the path buffer between a name in
 * /work and one in the canary while another opens it for writing, so that
 * the supervisor might read one and the kernel the other.
 */
struct probe_in_race {
	char		 buf[PATH_MAX];
	char		 a[PATH_MAX], b[PATH_MAX];
	atomic_bool	 stop;
};

static void *
probe_in_flip(void *arg)
{
	struct probe_in_race *r = arg;
	size_t la = strlen(r->a) + 1, lb = strlen(r->b) + 1;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		memcpy(r->buf, r->a, la);
		/* Keep both stores: the other reader is the kernel. */
		__asm__ volatile("" ::: "memory");
		memcpy(r->buf, r->b, lb);
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

static int
probe_in_race(char **a)
{
	static struct probe_in_race r;
	static unsigned counts[4096];
	unsigned ok = 0, won = 0, tries = 0;
	size_t clen = strlen(a[0]);
	pthread_t t;
	int64_t end;

	snprintf(r.a, sizeof r.a, "/work/race");
	snprintf(r.b, sizeof r.b, "%s/race", a[0]);
	snprintf(r.buf, sizeof r.buf, "/work/race");
	if ((errno = pthread_create(&t, NULL, probe_in_flip, &r)) != 0) {
		probe_in_say("pthread_create", errno);
		return 3;
	}
	end = now_mono_ms() + 1000;
	while (now_mono_ms() < end) {
		int fd = open(r.buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		tries++;
		if (fd < 0) {
			if (errno > 0 && errno < (int)ARRAY_SIZE(counts))
				counts[errno]++;
			continue;
		}
		ok++;
		{
			char link[64], where[PATH_MAX];
			ssize_t n;

			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			n = readlink(link, where, sizeof where - 1);
			if (n > 0 && (size_t)n >= clen &&
			    strncmp(where, a[0], clen) == 0)
				won++;
		}
		close(fd);
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	dprintf(STDOUT_FILENO, "ward-probe: %s: %u opens, %u ok, %u landed in "
	    "the canary\n", probe_in_name, tries, ok, won);
	for (size_t e = 1; e < ARRAY_SIZE(counts); e++)
		if (counts[e] > 0) {
			char what[64];

			snprintf(what, sizeof what, "open x%u", counts[e]);
			probe_in_say(what, (int)e);
		}
	return 0;
}

static int
probe_in_io_uring(char **a)
{
	unsigned char params[256] = { 0 };

	(void)a;
	probe_in_check("io_uring_setup", syscall(SYS_io_uring_setup, 8, params));
	probe_in_check("io_uring_enter", syscall(SYS_io_uring_enter, 0, 1, 0, 0,
	    NULL, 0));
	probe_in_check("io_uring_register", syscall(SYS_io_uring_register, 0, 0,
	    NULL, 0));
	return 0;
}

static int
probe_in_tiocsti(char **a)
{
	char c = 'x', sub = 6;	/* TIOCL_GETSHIFTSTATE */
	int fd;

	(void)a;
	probe_in_check("ioctl(0, TIOCSTI)", ioctl(0, TIOCSTI, &c));
	probe_in_check("ioctl(2, TIOCSTI)", ioctl(2, TIOCSTI, &c));
	probe_in_check("ioctl(0, TIOCLINUX)", ioctl(0, TIOCLINUX, &sub));
	fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	probe_in_check("open /dev/tty", fd);
	if (fd >= 0) {
		probe_in_check("ioctl(/dev/tty, TIOCSTI)", ioctl(fd, TIOCSTI, &c));
		close(fd);
	}
	return 0;
}

static int
probe_in_ptrace(char **a)
{
	char buf[16];
	struct iovec l = { buf, sizeof buf }, r = { (void *)0x400000, sizeof buf };
	pid_t pp = getppid();

	(void)a;
	probe_in_check("ptrace(PTRACE_ATTACH, 1)", ptrace(PTRACE_ATTACH, 1,
	    NULL, NULL));
	probe_in_check("ptrace(PTRACE_SEIZE, parent)", ptrace(PTRACE_SEIZE, pp,
	    NULL, NULL));
	probe_in_check("process_vm_readv(1)", process_vm_readv(1, &l, 1, &r, 1,
	    0));
	return 0;
}

/* The supervisor is not in our pid namespace: signal everything we can
 * name. The run must still end with our own status. */
static int
probe_in_kill(char **a)
{
	DIR *d;
	struct dirent *e;
	int fd;

	(void)a;
	if ((d = opendir("/proc")) != NULL) {
		while ((e = readdir(d)) != NULL) {
			char what[64];
			long pid;

			if (strspn(e->d_name, "0123456789") != strlen(e->d_name))
				continue;
			pid = strtol(e->d_name, NULL, 10);
			if (pid == getpid())
				continue;
			snprintf(what, sizeof what, "kill(%ld, SIGKILL)", pid);
			probe_in_check(what, kill((pid_t)pid, SIGKILL));
		}
		closedir(d);
	}
	probe_in_check("kill(getppid(), SIGKILL)", kill(getppid(), SIGKILL));
	probe_in_check("kill(-1, SIGKILL)", kill(-1, SIGKILL));
	fd = (int)syscall(SYS_pidfd_open, 1, 0);
	probe_in_check("pidfd_open(1)", fd);
	if (fd >= 0) {
		probe_in_check("pidfd_send_signal(1, SIGKILL)",
		    syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0));
		close(fd);
	}
	usleep(200 * 1000);
	return PROBE_OWN_EXIT;
}

static int
probe_in_mount(char **a)
{
	(void)a;
	probe_in_check("mount tmpfs on /work", mount("tmpfs", "/work", "tmpfs", 0,
	    NULL));
	probe_in_check("umount2 /work", umount2("/work", MNT_DETACH));
	return 0;
}

static int
probe_in_unshare(char **a)
{
	bool any = false;
	long r;
	int fd;

	(void)a;
	r = unshare(CLONE_NEWUSER);
	probe_in_check("unshare(CLONE_NEWUSER)", r);
	any |= r == 0;
	r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0);
	if (r == 0) {
		usleep(300 * 1000);	/* long enough to be seen from outside */
		_exit(0);
	}
	probe_in_check("clone(CLONE_NEWUSER)", r);
	if (r > 0) {
		any = true;
		waitpid((pid_t)r, NULL, 0);
	}
	fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	r = setns(fd, 0);
	probe_in_check("setns(own user ns)", r);
	if (fd >= 0)
		close(fd);
	if (any)
		usleep(300 * 1000);
	return 0;
}

static int
probe_in_open_by_handle(char **a)
{
	struct {
		struct file_handle h;
		unsigned char b[128];
	} fh;
	uint32_t ino[2] = { 2, 0 };
	int mnt, root;

	(void)a;
	memset(&fh, 0, sizeof fh);
	fh.h.handle_bytes = sizeof fh.b;
	probe_in_check("name_to_handle_at /etc/passwd",
	    name_to_handle_at(AT_FDCWD, "/etc/passwd", &fh.h, &mnt, 0));
	root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* FILEID_INO32_GEN for inode 2: the root of most file systems. */
	fh.h.handle_bytes = sizeof ino;
	fh.h.handle_type = 1;
	memcpy(fh.h.f_handle, ino, sizeof ino);
	probe_in_check("open_by_handle_at (inode 2)",
	    open_by_handle_at(root, &fh.h, O_RDONLY | O_CLOEXEC));
	if (root >= 0)
		close(root);
	return 0;
}

static int
probe_in_bpf(char **a)
{
	union bpf_attr attr;

	(void)a;
	memset(&attr, 0, sizeof attr);
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	probe_in_check("bpf(BPF_MAP_CREATE)", syscall(SYS_bpf, BPF_MAP_CREATE,
	    &attr, sizeof attr));
	return 0;
}

/* Wait for a child that did something fatal on purpose; say how it ended. */
static void
probe_in_reap(const char *what, pid_t pid)
{
	char buf[128];
	int st;

	if (pid < 0) {
		probe_in_say(what, errno);
		return;
	}
	if (waitpid(pid, &st, 0) < 0) {
		probe_in_say(what, errno);
		return;
	}
	if (WIFSIGNALED(st))
		snprintf(buf, sizeof buf, "%s: killed by %s", what,
		    sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
	else
		snprintf(buf, sizeof buf, "%s: exit %d", what, WEXITSTATUS(st));
	dprintf(STDOUT_FILENO, "ward-probe: %s: %s\n", probe_in_name, buf);
}

/* i386 open(canary/int80, O_WRONLY|O_CREAT) through int $0x80, and the
 * same through the x32 table: both past a filter written for x86-64. */
static int
probe_in_int80(char **a)
{
	pid_t pid;

	if ((pid = fork()) == 0) {
		char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		long ret;

		if (page == MAP_FAILED) {
			probe_in_say("mmap MAP_32BIT", errno);
			_exit(3);
		}
		snprintf(page, 4096, "%s/int80", a[0]);
		__asm__ volatile("int $0x80"
		    : "=a"(ret)
		    : "a"(5L), "b"((long)(uintptr_t)page), "c"(0101L), "d"(0644L)
		    : "memory", "r8", "r9", "r10", "r11");
		probe_in_say("int $0x80 open canary/int80", ret < 0 ?
		    (int)-ret : 0);
		_exit(0);
	}
	probe_in_reap("i386 child", pid);
	if ((pid = fork()) == 0) {
		char p[PATH_MAX];
		long r;

		snprintf(p, sizeof p, "%s/x32", a[0]);
		r = syscall(0x40000000L | SYS_open, p,
		    O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		probe_in_check("x32 open canary/x32", r);
		_exit(0);
	}
	probe_in_reap("x32 child", pid);
	return 0;
}

static int
probe_in_memfd_exec(char **a)
{
	char *const av[] = { (char *)"true", NULL };
	char buf[65536];
	int in, fd;
	ssize_t n;

	(void)a;
	in = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
	fd = memfd_create("ward-probe", MFD_CLOEXEC);
	if (in < 0 || fd < 0) {
		probe_in_say("memfd_create and open /usr/bin/true", errno);
		return 3;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			probe_in_say("write memfd", errno);
			return 3;
		}
	close(in);
	probe_in_say("memfd_create + copy /usr/bin/true", 0);
	fexecve(fd, av, environ);
	probe_in_say("fexecve", errno);
	return 3;
}

static int
probe_in_connect(char **a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int s;

	sa.sin_port = htons((uint16_t)atoi(a[0]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("connect tcp 127.0.0.1", connect(s, (struct sockaddr *)&sa,
	    sizeof sa));
	close(s);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	probe_in_check("connect udp 127.0.0.1", connect(s, (struct sockaddr *)&sa,
	    sizeof sa));
	close(s);
	/* The same port on an address outside (TEST-NET-1): this one
	 * leaves the sandbox's loopback, so it must be asked. */
	sa.sin_addr.s_addr = htonl(0xc0000201);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("connect tcp 192.0.2.1", connect(s, (struct sockaddr *)&sa,
	    sizeof sa));
	close(s);
	return 0;
}

static int
probe_in_fork_bomb(char **a)
{
	char what[64];
	int n, err = 0;

	(void)a;
	for (n = 0; n < 1024; n++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			err = errno;
			break;
		}
	}
	snprintf(what, sizeof what, "fork x%d, then", n);
	probe_in_say(what, err);
	/* Hold them long enough to be counted from outside. */
	usleep(300 * 1000);
	return 0;
}

static int
probe_in_memory_hog(char **a)
{
	size_t total = 0, chunk = 1 << 20;
	char what[64];
	int err = 0;

	(void)a;
	while (total < (1ULL << 30)) {
		char *p = malloc(chunk);

		if (p == NULL) {
			err = errno;
			break;
		}
		memset(p, 0xa5, chunk);
		total += chunk;
	}
	snprintf(what, sizeof what, "malloc+touch %zu MiB, then", total >> 20);
	probe_in_say(what, err);
	usleep(300 * 1000);
	return 0;
}

static int
probe_in_wall_clock(char **a)
{
	(void)a;
	sleep(30);
	probe_in_say("slept 30 s", 0);
	return 0;
}

static const struct probe_in {
	const char	*name;
	int		 nargs;
	int		(*fn)(char **);
} probe_ins[] = {
	{ "home-secret", 1, probe_in_home_secret },
	{ "env-secret", 0, probe_in_env_secret },
	{ "write-path", 1, probe_in_write_path },
	{ "write-symlink", 1, probe_in_write_symlink },
	{ "write-hardlink", 1, probe_in_write_hardlink },
	{ "write-rename", 1, probe_in_write_rename },
	{ "write-chmod", 1, probe_in_write_chmod },
	{ "write-truncate", 1, probe_in_write_truncate },
	{ "write-utimes", 1, probe_in_write_utimes },
	{ "write-mkdir", 1, probe_in_write_mkdir },
	{ "path-race", 1, probe_in_race },
	{ "io-uring", 0, probe_in_io_uring },
	{ "tiocsti", 0, probe_in_tiocsti },
	{ "ptrace", 0, probe_in_ptrace },
	{ "kill-supervisor", 0, probe_in_kill },
	{ "mount", 0, probe_in_mount },
	{ "unshare", 0, probe_in_unshare },
	{ "open-by-handle", 0, probe_in_open_by_handle },
	{ "bpf", 0, probe_in_bpf },
	{ "int80", 1, probe_in_int80 },
	{ "memfd-exec", 0, probe_in_memfd_exec },
	{ "connect", 1, probe_in_connect },
	{ "fork-bomb", 0, probe_in_fork_bomb },
	{ "memory-hog", 0, probe_in_memory_hog },
	{ "wall-clock", 0, probe_in_wall_clock },
};

int
probe_inside_main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("ward probe-inside: used by `ward probe`; see "
		    "`ward probe --help`\n", stderr);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(probe_ins); i++) {
		if (strcmp(probe_ins[i].name, argv[1]) != 0)
			continue;
		if (argc - 2 < probe_ins[i].nargs) {
			fprintf(stderr, "ward probe-inside %s: %d argument(s) "
			    "needed\n", probe_ins[i].name, probe_ins[i].nargs);
			return 2;
		}
		probe_in_name = probe_ins[i].name;
		return probe_ins[i].fn(argv + 2);
	}
	fputs("ward probe-inside: no such probe\n", stderr);
	return 2;
}

/* ------------------------------------------------------------------ */
/* Outside: the battery */

enum probe_limit { LIMIT_NONE, LIMIT_PIDS, LIMIT_MEMORY, LIMIT_CLOCK };

/* What in the record shows the attempt. */
enum probe_proof {
	PROOF_EVENTS,	/* the expected events */
	PROOF_OUTPUT,	/* not a trapped call (a read): the run's recorded output */
	PROOF_OWN_EXIT,	/* the run's end, with the program's own status */
	PROOF_LIMIT,	/* the limit in force, named in the run's row */
	PROOF_TIMEOUT,	/* the wall-clock kill */
};

enum probe_verdict {
	PV_BLOCKED,	/* stopped, and in the record */
	PV_ALLOWED,	/* allowed by design, and in the record */
	PV_ESCAPED,	/* the effect happened */
	PV_UNRECORDED,	/* stopped, but not in the record */
	PV_ERROR,	/* the harness could not judge it */
};

/* One event the record must hold: kind, verdict, and where given the
 * syscall, the rule, and the subject (or subject2). In subjects, "%c"
 * stands for the canary folder and "%p" for the listener's port. */
struct probe_expect {
	enum verdict	 verdict;	/* VERDICT_NONE ends the list */
	enum request_kind kind;
	const char	*syscall;
	const char	*subject;
	const char	*rule;
	bool		 int80;		/* only where the host kernel has int $0x80 */
};

struct probe_def {
	const char	*name;
	const char	*tried;
	const char	*args;		/* c canary, p port, s secret file */
	enum probe_limit limit;
	enum probe_proof proof;
	int		 status;	/* the run's expected exit status */
	bool		 allowed;	/* allowed by design, must be recorded */
	const char	*floor;		/* what stops it, where no event says */
	struct probe_expect expect[4];
};

#define W(sub)	{ VERDICT_DENY, KIND_WRITE, NULL, sub, NULL }
#define B(sc)	{ VERDICT_DENY, KIND_BLOCKED, sc, NULL, NULL }

static const struct probe_def probe_defs[] = {
	{ .name = "home-secret", .args = "s", .proof = PROOF_OUTPUT,
	  .tried = "read a secret planted in the host home",
	  .floor = "host home not in the sandbox" },
	{ .name = "env-secret", .proof = PROOF_OUTPUT,
	  .tried = "read a secret variable of ward's environment",
	  .floor = "not passed in" },
	{ .name = "write-path", .args = "c",
	  .tried = "write, create in the canary by path",
	  .expect = { W("%c/file"), W("%c/new") } },
	{ .name = "write-symlink", .args = "c",
	  .tried = "write via symlinks planted in /work",
	  .expect = { W("%c/file"), W("%c/new-sym") } },
	{ .name = "write-hardlink", .args = "c",
	  .tried = "hard-link a canary file into /work",
	  .expect = { W("%c/file") } },
	{ .name = "write-rename", .args = "c",
	  .tried = "rename /work -> canary, canary -> /work",
	  .expect = { W("%c/moved-in"), W("%c/file") } },
	{ .name = "write-chmod", .args = "c",
	  .tried = "chmod a canary file and the folder",
	  .expect = { W("%c/file"), W("%c") } },
	{ .name = "write-truncate", .args = "c",
	  .tried = "truncate a canary file",
	  .expect = { W("%c/file") } },
	{ .name = "write-utimes", .args = "c",
	  .tried = "set a canary file's times",
	  .expect = { { VERDICT_DENY, KIND_WRITE, "utimensat", "%c/file", NULL },
		      { VERDICT_DENY, KIND_WRITE, "utimes", "%c/file", NULL } } },
	{ .name = "write-mkdir", .args = "c",
	  .tried = "mkdir in the canary",
	  .expect = { W("%c/newdir") } },
	{ .name = "path-race", .args = "c",
	  .tried = "flip a path /work <-> canary during open, 1 s",
	  .floor = "read-only mount",
	  .expect = { W("%c/race") } },
	{ .name = "io-uring", .tried = "io_uring_setup",
	  .expect = { B("io_uring_setup") } },
	{ .name = "tiocsti", .tried = "inject input with TIOCSTI",
	  .expect = { B("ioctl (TIOCSTI/TIOCLINUX)") } },
	{ .name = "ptrace", .tried = "ptrace pid 1 and the parent",
	  .expect = { B("ptrace"), B("process_vm_readv") } },
	{ .name = "kill-supervisor", .proof = PROOF_OWN_EXIT,
	  .status = PROBE_OWN_EXIT,
	  .tried = "kill the supervisor: every pid, 1, parent, -1",
	  .floor = "supervisor not in the pid namespace" },
	{ .name = "mount", .tried = "mount a tmpfs on /work, umount",
	  .expect = { B("mount"), B("umount2") } },
	{ .name = "unshare", .tried = "new namespaces: unshare, clone, setns",
	  .expect = { B("unshare"), B("clone (new namespace)"), B("setns") } },
	{ .name = "open-by-handle", .tried = "open_by_handle_at",
	  .expect = { B("open_by_handle_at"), B("name_to_handle_at") } },
	{ .name = "bpf", .tried = "bpf(BPF_MAP_CREATE)",
	  .expect = { B("bpf") } },
	{ .name = "int80", .args = "c",
	  .tried = "open via int $0x80 (i386) and x32",
	  .expect = {
		{ VERDICT_KILL, KIND_BLOCKED, "non-native syscall",
		  "i386 syscall (int 0x80)", NULL, true },
		{ VERDICT_KILL, KIND_BLOCKED, "non-native syscall",
		  "x32 syscall", NULL } } },
	{ .name = "memfd-exec", .allowed = true,
	  .tried = "exec /usr/bin/true from a memfd",
	  .expect = { { VERDICT_ALLOW, KIND_EXEC, "execveat", NULL,
		  "exec from memory (memfd)" } } },
	/* 127.0.0.1 inside is the sandbox's own loopback: the supervisor
	 * lets it be and records nothing, so the host listener is the
	 * judge there; the connect out to 192.0.2.1 must be in the record. */
	{ .name = "connect", .args = "p",
	  .tried = "reach a host listener on 127.0.0.1; connect out",
	  .floor = "127.0.0.1 is the sandbox's own loopback",
	  .expect = { { VERDICT_DENY, KIND_CONNECT, NULL, "192.0.2.1:%p",
		  NULL } } },
	{ .name = "fork-bomb", .limit = LIMIT_PIDS, .proof = PROOF_LIMIT,
	  .tried = "fork until refused, children sleep" },
	{ .name = "memory-hog", .limit = LIMIT_MEMORY, .proof = PROOF_LIMIT,
	  .tried = "malloc and touch until refused" },
	{ .name = "wall-clock", .limit = LIMIT_CLOCK, .proof = PROOF_TIMEOUT,
	  .status = 124, .tried = "sleep 30 s past the wall clock" },
};

#undef W
#undef B

/* Set by SIGINT, SIGTERM, SIGHUP: stop the run in progress, clean up
 * (the secret in the home above all) and leave. */
static volatile sig_atomic_t probe_stop;

static void
probe_on_signal(int sig)
{
	probe_stop = sig;
}

struct probe_buf {
	char		*p;
	size_t		 len, cap;
};

struct probe_event {
	enum request_kind kind;
	enum verdict	 verdict;
	enum how	 how;
	char		*syscall, *subject, *subject2, *detail, *rule;
};

/* One run, while it goes and after. */
struct probe_run {
	const struct probe_def *def;
	char		 id[9];
	pid_t		 pid;		/* the supervisor (ward run execs it) */
	int		 pidfd;
	int		 wstatus;
	bool		 reaped, hard_killed;
	int64_t		 t0, t1;	/* monotonic: started, supervisor gone */
	struct probe_buf out, err;
	bool		 out_open, err_open;
	struct proto_conn *ctl;
	unsigned	 ctl_tries;
	unsigned	 requests;
	/* Sampled from outside. */
	pid_t		 init;
	char		 ns_pid[64], ns_user[64];
	unsigned	 samples, peak_tasks, leftover;
	uint64_t	 peak_rss, rss_over;
	bool		 new_userns;
	bool		 host_ns;	/* init shares our pid namespace */
	/* The record. */
	struct probe_event *events;
	size_t		 n_events;
	bool		 have_run;
	char		*end_reason, *limits;
	int		 exit_code;
	int64_t		 ended_ms;
	char		*output;
	size_t		 output_len;
};

struct probe_result {
	const struct probe_def *def;
	char		 run[9];
	int		 status;	/* the run's exit status, -1 if none */
	int64_t		 elapsed_ms;
	enum probe_verdict verdict;
	char		*stopped;
	char		*record;
	const char	*overrides;
	char	       **problems;
	size_t		 n_problems;
	unsigned	 requests, peak_tasks;
	uint64_t	 peak_rss;
};

struct probe {
	const char	*argv0;
	char		*self;		/* our own binary: `ward run` */
	char		*exe;		/* the program run inside */
	char		*bindir;	/* --in: the folder holding exe */
	char		*dir;		/* the temp folder */
	char		*canary;
	char		*secret_path, *secret_var;
	char		 token[33];
	char		*policy_path, *policy_text;
	struct policy	 policy;
	int		 lfd;
	unsigned	 port;
	bool		 int80;		/* the host kernel runs int $0x80 */
	bool		 json, keep;
	struct probe_result results[ARRAY_SIZE(probe_defs)];
	size_t		 n_results;
};

static void
probe_buf_add(struct probe_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
probe_buf_str(struct probe_buf *b, const char *s)
{
	probe_buf_add(b, s, strlen(s));
}

/* Text with "%c" and "%p" filled in. */
static char *
probe_expand(const struct probe *p, const char *s)
{
	struct probe_buf b = { 0 };
	char port[16];

	snprintf(port, sizeof port, "%u", p->port);
	for (; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] == 'c') {
			probe_buf_str(&b, p->canary);
			s++;
		} else if (s[0] == '%' && s[1] == 'p') {
			probe_buf_str(&b, port);
			s++;
		} else
			probe_buf_add(&b, s, 1);
	}
	if (b.p == NULL)
		return xstrdup("");
	return b.p;
}

static bool
probe_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void
probe_problem(struct probe_result *res, char *text)
{
	res->problems = xreallocarray(res->problems, res->n_problems + 1,
	    sizeof *res->problems);
	res->problems[res->n_problems++] = text;
}

/* Add s to a ", "-separated list unless it is there already. */
static void
probe_list_add(struct probe_buf *b, const char *s, const char *sep)
{
	if (b->p != NULL) {
		size_t n = strlen(s);

		for (const char *q = b->p; (q = strstr(q, s)) != NULL; q++)
			if ((q == b->p || q[-1] == ' ') &&
			    (q[n] == '\0' || q[n] == ',' || q[n] == ' '))
				return;
	}
	if (b->len > 0)
		probe_buf_str(b, sep);
	probe_buf_str(b, s);
}

/* ---- the policy copies ---- */

/* The base policy with these [run] keys set anew: their old lines are
 * dropped (a key may be set only once) and a [run] section with the new
 * values goes at the end (a section may come back). */
static char *
probe_policy_text(const char *base, const char *const *keys,
    const char *const *values, size_t n)
{
	struct probe_buf b = { 0 };
	char section[64] = "";
	const char *line = base;

	while (*line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t len = nl != NULL ? (size_t)(nl - line) + 1 : strlen(line);
		const char *s = line + strspn(line, " \t");
		bool drop = false;

		if (*s == '[') {
			size_t k = strcspn(s + 1, "]\n");

			snprintf(section, sizeof section, "%.*s", (int)k, s + 1);
		} else if (s == line && strcmp(section, "run") == 0) {
			for (size_t i = 0; i < n; i++) {
				size_t kl = strlen(keys[i]);
				const char *after = line + kl;

				if (strncmp(line, keys[i], kl) != 0)
					continue;
				after += strspn(after, " \t");
				if (*after == '=' || *after == ':')
					drop = true;
			}
		}
		if (!drop)
			probe_buf_add(&b, line, len);
		line += len;
	}
	if (b.len > 0 && b.p[b.len - 1] != '\n')
		probe_buf_str(&b, "\n");
	probe_buf_str(&b, "\n[run]\n# set by ward probe\n");
	for (size_t i = 0; i < n; i++) {
		probe_buf_str(&b, keys[i]);
		probe_buf_str(&b, " = ");
		probe_buf_str(&b, values[i]);
		probe_buf_str(&b, "\n");
	}
	return b.p;
}

/* The overrides a probe needs, as the report names them (NULL: only
 * what every run gets). */
static const char *
probe_overrides(const struct probe_def *d)
{
	switch (d->limit) {
	case LIMIT_PIDS:
		return "pids = 64";
	case LIMIT_MEMORY:
		return "memory = " PROBE_MEMORY;
	case LIMIT_CLOCK:
		return "timeout = 2s";
	case LIMIT_NONE:
		break;
	}
	return NULL;
}

static int
probe_write_policy(struct probe *p, const struct probe_def *d, char **path,
    char **cause)
{
	const char *keys[3] = { "ask_timeout", "timeout", NULL };
	char ask[16], guard[16], clock[16], pids[16];
	const char *values[3] = { ask, guard, NULL };
	size_t n = 2;
	cleanup_free char *text = NULL;
	struct policy check;
	int fd, r;

	snprintf(ask, sizeof ask, "%ds", PROBE_ASK_TIMEOUT);
	snprintf(guard, sizeof guard, "%ds", PROBE_GUARD);
	snprintf(clock, sizeof clock, "%ds", PROBE_CLOCK);
	snprintf(pids, sizeof pids, "%d", PROBE_PIDS);
	switch (d->limit) {
	case LIMIT_PIDS:
		keys[n] = "pids";
		values[n++] = pids;
		break;
	case LIMIT_MEMORY:
		keys[n] = "memory";
		values[n++] = PROBE_MEMORY;
		break;
	case LIMIT_CLOCK:
		values[1] = clock;
		break;
	case LIMIT_NONE:
		break;
	}
	text = probe_policy_text(p->policy_text, keys, values, n);
	*path = xasprintf("%s/%s.ini", p->dir, d->name);
	if ((r = policy_load_string(&check, text, *path, cause)) < 0)
		return r;
	policy_done(&check);
	fd = open(*path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, text, strlen(text)) < 0) {
		r = -errno;
		*cause = xasprintf("write %s: %s", *path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return 0;
}

/* ---- the canary ---- */

/* One line per entry (and the folder itself): everything a write could
 * change, content included for small files. */
static void
probe_snap_dir(struct probe_buf *b, const char *dir, const char *rel,
    int depth)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		cleanup_free char *path = NULL, *r = NULL, *line = NULL;
		struct stat st;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			free(ents[i]);
			continue;
		}
		path = xasprintf("%s/%s", dir, name);
		r = xasprintf("%s%s%s", rel, *rel ? "/" : "", name);
		free(ents[i]);
		if (lstat(path, &st) < 0)
			continue;
		line = xasprintf("%s\t%o %ju %u %u %jd %jd.%09ld %jd.%09ld %ju",
		    r, (unsigned)st.st_mode, (uintmax_t)st.st_nlink,
		    (unsigned)st.st_uid, (unsigned)st.st_gid,
		    (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
		    st.st_ctim.tv_nsec, (uintmax_t)st.st_ino);
		probe_buf_str(b, line);
		if (S_ISREG(st.st_mode) && st.st_size <= 65536) {
			char buf[65536];
			int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
			cleanup_free char *e = got >= 0 ?
			    escape_mem(buf, (size_t)got) : xstrdup("?");

			if (fd >= 0)
				close(fd);
			probe_buf_str(b, " ");
			probe_buf_str(b, e);
		}
		probe_buf_str(b, "\n");
		if (S_ISDIR(st.st_mode) && depth < 4)
			probe_snap_dir(b, path, r, depth + 1);
	}
	free(ents);
}

static char *
probe_snapshot(const char *dir)
{
	struct probe_buf b = { 0 };
	struct stat st;

	if (stat(dir, &st) == 0) {
		cleanup_free char *top = xasprintf(".\t%o %jd.%09ld %jd.%09ld\n",
		    (unsigned)st.st_mode, (intmax_t)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
		    st.st_ctim.tv_nsec);

		probe_buf_str(&b, top);
	} else
		probe_buf_str(&b, ".\tgone\n");
	probe_snap_dir(&b, dir, "", 0);
	return b.p;
}

/* The names whose line is in a but not in b. */
static void
probe_snap_missing(const char *a, const char *b, struct probe_buf *names,
    unsigned *count)
{
	for (const char *l = a; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);
		bool found = false;

		for (const char *m = b; *m != '\0';) {
			const char *nm = strchr(m, '\n');
			size_t mlen = nm ? (size_t)(nm - m) + 1 : strlen(m);

			if (mlen == len && memcmp(l, m, len) == 0) {
				found = true;
				break;
			}
			m += mlen;
		}
		if (!found) {
			size_t nlen = strcspn(l, "\t");
			cleanup_free char *e = escape_mem(l, nlen);

			size_t before = names->len;

			if (*count < 3)
				probe_list_add(names, e, ", ");
			if (names->len != before || *count >= 3)
				(*count)++;
		}
		l += len;
	}
}

static char *
probe_snap_diff(const char *before, const char *after)
{
	struct probe_buf names = { 0 };
	unsigned count = 0;

	probe_snap_missing(after, before, &names, &count);
	probe_snap_missing(before, after, &names, &count);
	if (count == 0) {
		free(names.p);
		return NULL;
	}
	if (count > 3)
		probe_buf_str(&names, ", ...");
	return names.p;
}

/* ---- sampling the sandbox from outside ---- */

static int
probe_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int
probe_nslink(pid_t pid, const char *ns, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns);
	if ((n = readlink(path, buf, size - 1)) < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Find the sandbox's init: the supervisor's child in a pid namespace of
 * its own. Asked only once the run said it started (the sandbox exists
 * by then). A child in our own namespace means there is no sandbox. */
static void
probe_find_init(struct probe_run *r)
{
	char path[64], buf[1024], own[64], ns[64];
	struct probe_buf kids = { 0 };
	struct dirent *e;
	pid_t first = 0;
	DIR *d;

	/* Whichever of the supervisor's threads forked it. */
	snprintf(path, sizeof path, "/proc/%d/task", (int)r->pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char cpath[300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children",
		    (int)r->pid, e->d_name);
		if (probe_read_small(cpath, buf, sizeof buf) == 0) {
			probe_buf_str(&kids, buf);
			probe_buf_str(&kids, " ");
		}
	}
	closedir(d);
	if (kids.p == NULL || probe_nslink(getpid(), "pid", own,
	    sizeof own) < 0) {
		free(kids.p);
		return;
	}
	for (char *t = strtok(kids.p, " \n"); t != NULL;
	    t = strtok(NULL, " \n")) {
		pid_t pid = (pid_t)strtol(t, NULL, 10);

		if (pid <= 0 || probe_nslink(pid, "pid", ns, sizeof ns) < 0)
			continue;
		if (first == 0)
			first = pid;
		if (strcmp(ns, own) != 0) {
			first = pid;
			break;
		}
	}
	free(kids.p);
	if (first == 0 ||
	    probe_nslink(first, "pid", r->ns_pid, sizeof r->ns_pid) < 0 ||
	    probe_nslink(first, "user", r->ns_user, sizeof r->ns_user) < 0) {
		r->ns_pid[0] = r->ns_user[0] = '\0';
		return;
	}
	r->init = first;
	r->host_ns = strcmp(r->ns_pid, own) == 0;
}

static uint64_t
probe_status_field(const char *status, const char *key)
{
	const char *s = strstr(status, key);

	return s != NULL ? strtoull(s + strlen(key), NULL, 10) : 0;
}

/* Every process in the sandbox's pid namespace: how many tasks, how much
 * resident memory, and any in a user namespace of its own. */
static unsigned
probe_scan(struct probe_run *r, uint64_t *rss, bool *new_userns)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned tasks = 0;

	*rss = 0;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char ns[64], path[64], status[4096];
		pid_t pid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = (pid_t)strtol(e->d_name, NULL, 10);
		if (probe_nslink(pid, "pid", ns, sizeof ns) < 0 ||
		    strcmp(ns, r->ns_pid) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
		if (probe_read_small(path, status, sizeof status) == 0) {
			unsigned t = (unsigned)probe_status_field(status,
			    "\nThreads:");

			tasks += t > 0 ? t : 1;
			*rss += probe_status_field(status, "\nVmRSS:") * 1024;
		} else
			tasks++;
		if (probe_nslink(pid, "user", ns, sizeof ns) == 0 &&
		    strcmp(ns, r->ns_user) != 0)
			*new_userns = true;
	}
	closedir(d);
	return tasks;
}

static void
probe_sample(const struct probe *p, struct probe_run *r)
{
	uint64_t rss, cap, slack;
	unsigned tasks;

	if (r->init == 0 && r->id[0] != '\0')
		probe_find_init(r);
	if (r->init == 0)
		return;
	tasks = probe_scan(r, &rss, &r->new_userns);
	r->samples++;
	if (tasks > r->peak_tasks)
		r->peak_tasks = tasks;
	if (rss > r->peak_rss)
		r->peak_rss = rss;
	/* Summed VmRSS counts shared pages (the binary, libc) once per
	 * process: allow 64 MiB and 16 MiB a task for them. */
	cap = r->def->limit == LIMIT_MEMORY ? PROBE_MEMORY_BYTES :
	    p->policy.memory;
	slack = (64ULL << 20) + (uint64_t)tasks * (16ULL << 20);
	if (cap > 0 && rss > cap + slack && rss - cap - slack > r->rss_over)
		r->rss_over = rss - cap - slack;
}

/* ---- the control socket: deny whatever is asked ---- */

static void
probe_deny(struct probe_run *r, json_t *id)
{
	json_t *m;

	if (!json_is_integer(id) || r->ctl == NULL)
		return;
	m = proto_msg("decide");
	json_object_set(m, "request", id);
	json_object_set_new(m, "verdict", json_string("deny"));
	json_object_set_new(m, "scope", json_string("once"));
	json_object_set_new(m, "reason", json_string("ward probe"));
	(void)proto_send(r->ctl, m);
	json_decref(m);
	r->requests++;
}

static void
probe_on_message(struct probe_run *r, json_t *m)
{
	const char *type = json_string_value(json_object_get(m, "type"));

	if (type == NULL)
		return;
	if (strcmp(type, "welcome") == 0) {
		json_t *pending = json_object_get(m, "pending"), *q;
		size_t i;

		json_array_foreach(pending, i, q)
			probe_deny(r, json_object_get(q, "id"));
	} else if (strcmp(type, "request") == 0)
		probe_deny(r, json_object_get(json_object_get(m, "request"),
		    "id"));
}

static void
probe_ctl_connect(struct probe_run *r)
{
	cleanup_free char *cause = NULL;
	json_t *hello;
	int fd = -1;

	if (r->ctl != NULL || r->id[0] == '\0' || r->reaped ||
	    r->ctl_tries >= 50)
		return;
	r->ctl_tries++;
	if (ctl_connect(r->id, &fd, &cause) < 0)
		return;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	r->ctl = proto_conn_new(fd);
	hello = proto_msg("hello");
	json_object_set_new(hello, "version", json_integer(PROTO_VERSION));
	json_object_set_new(hello, "client", json_string("cli"));
	json_object_set_new(hello, "watch", json_true());
	(void)proto_send(r->ctl, hello);
	json_decref(hello);
	(void)proto_flush(r->ctl);
}

static void
probe_ctl_read(struct probe_run *r)
{
	cleanup_free char *cause = NULL;
	json_t *m = NULL;
	ssize_t n = proto_read(r->ctl);
	int k;

	while ((k = proto_next(r->ctl, &m, &cause)) == 1) {
		probe_on_message(r, m);
		json_decref(m);
	}
	if ((n < 0 && n != -EAGAIN) || k < 0 || proto_eof(r->ctl)) {
		proto_conn_free(r->ctl);
		r->ctl = NULL;
		r->ctl_tries = 50;	/* the run is over for us */
	}
}

/* "ward: run <8 hex> started" at the start of a line. */
static void
probe_find_id(struct probe_run *r)
{
	static const char pre[] = "ward: run ";
	const char *s = r->err.p;

	while (s != NULL && r->id[0] == '\0') {
		if (strncmp(s, pre, sizeof pre - 1) == 0 &&
		    strspn(s + sizeof pre - 1, "0123456789abcdef") == 8 &&
		    strncmp(s + sizeof pre - 1 + 8, " started\n", 9) == 0)
			snprintf(r->id, sizeof r->id, "%.8s", s + sizeof pre - 1);
		if ((s = strchr(s, '\n')) != NULL)
			s++;
	}
}

/* ---- one run ---- */

/* Starts `ward run --headless ... -- ward probe-inside NAME ARGS`; r is
 * zeroed by the caller. The run's stdout and stderr come back in
 * *out_fd and *err_fd. */
static int
probe_spawn(struct probe *p, const char *policy, struct probe_run *r,
    int *out_fd, int *err_fd, char **cause)
{
	const struct probe_def *d = r->def;
	cleanup_strv char **args = NULL;
	size_t n = 0;
	char port[16];
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, e;
	pid_t parent = getpid();

	snprintf(port, sizeof port, "%u", p->port);
	strv_push(&args, &n, xstrdup(p->self));
	strv_push(&args, &n, xstrdup("run"));
	strv_push(&args, &n, xstrdup("--headless"));
	strv_push(&args, &n, xstrdup("--policy"));
	strv_push(&args, &n, xstrdup(policy));
	strv_push(&args, &n, xstrdup("--in"));
	strv_push(&args, &n, xstrdup(p->bindir));
	strv_push(&args, &n, xstrdup("--in"));
	strv_push(&args, &n, xstrdup(p->canary));
	strv_push(&args, &n, xstrdup("--"));
	strv_push(&args, &n, xstrdup(p->exe));
	strv_push(&args, &n, xstrdup("probe-inside"));
	strv_push(&args, &n, xstrdup(d->name));
	for (const char *a = d->args ? d->args : ""; *a != '\0'; a++)
		strv_push(&args, &n, xstrdup(*a == 'c' ? p->canary :
		    *a == 'p' ? port : p->secret_path));

	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		e = errno;
		*cause = xasprintf("pipe: %s", strerror(e));
		closep(&outp[0]);
		closep(&outp[1]);
		return -e;
	}
	r->t0 = now_mono_ms();
	if ((r->pid = fork()) < 0) {
		e = errno;
		*cause = xasprintf("fork: %s", strerror(e));
		for (int i = 0; i < 2; i++) {
			closep(&outp[i]);
			closep(&errp[i]);
		}
		return -e;
	}
	if (r->pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* Should ward probe die, the run ends too: the supervisor
		 * takes SIGTERM as a kill and records it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(125);
		signal(SIGPIPE, SIG_DFL);
		dup2(null, STDIN_FILENO);
		dup2(outp[1], STDOUT_FILENO);
		dup2(errp[1], STDERR_FILENO);
		execv(p->self, args);
		_exit(125);
	}
	close(outp[1]);
	close(errp[1]);
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	r->out_open = r->err_open = true;
	*out_fd = outp[0];
	*err_fd = errp[0];
	return 0;
}

static bool
probe_pump(int fd, struct probe_buf *b)
{
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof buf);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;
	probe_buf_add(b, buf, (size_t)n);
	return true;
}

/*
 * The run's loop: its output, its control socket (every request denied at
 * once), its end, and a sample of its processes every 20 ms. Ends when
 * the supervisor is gone and its pipes are closed; a run that overstays
 * the guard by far is killed and judged so.
 */
static void
probe_watch(const struct probe *p, struct probe_run *r, int out_fd, int err_fd)
{
	struct itimerspec its = {
		.it_interval = { 0, 20 * 1000 * 1000 },
		.it_value = { 0, 20 * 1000 * 1000 },
	};
	cleanup_fd int tfd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_CLOEXEC | TFD_NONBLOCK);
	int64_t hard = r->t0 + (PROBE_GUARD + 10) * 1000;
	bool stopping = false;

	timerfd_settime(tfd, 0, &its, NULL);
	for (;;) {
		struct pollfd pf[5];
		int ipid = -1, ictl = -1, iout = -1, ierr = -1, np = 0;
		int64_t now = now_mono_ms();

		if (r->reaped && ((!r->out_open && !r->err_open) ||
		    now > r->t1 + 3000))
			break;
		if (!r->reaped && now > hard && !r->hard_killed) {
			kill(r->pid, SIGKILL);
			r->hard_killed = true;
		}
		if (probe_stop && !stopping && !r->reaped) {
			/* The supervisor takes SIGTERM as a kill, records it
			 * and takes the sandbox down. */
			kill(r->pid, SIGTERM);
			stopping = true;
			hard = now + 3000;
		}
		pf[np++] = (struct pollfd){ tfd, POLLIN, 0 };
		if (r->out_open) {
			iout = np;
			pf[np++] = (struct pollfd){ out_fd, POLLIN, 0 };
		}
		if (r->err_open) {
			ierr = np;
			pf[np++] = (struct pollfd){ err_fd, POLLIN, 0 };
		}
		if (!r->reaped && r->pidfd >= 0) {
			ipid = np;
			pf[np++] = (struct pollfd){ r->pidfd, POLLIN, 0 };
		}
		if (r->ctl != NULL) {
			ictl = np;
			pf[np++] = (struct pollfd){ proto_conn_fd(r->ctl),
			    (short)(POLLIN | (proto_want_write(r->ctl) ?
			    POLLOUT : 0)), 0 };
		}
		if (poll(pf, (nfds_t)np, 200) < 0 && errno != EINTR)
			break;

		if (iout >= 0 && (pf[iout].revents & (POLLIN | POLLHUP | POLLERR)))
			r->out_open = probe_pump(out_fd, &r->out);
		if (ierr >= 0 && (pf[ierr].revents & (POLLIN | POLLHUP | POLLERR))) {
			r->err_open = probe_pump(err_fd, &r->err);
			if (r->id[0] == '\0') {
				probe_find_id(r);
				if (r->id[0] != '\0') {
					probe_sample(p, r);
					probe_ctl_connect(r);
				}
			}
		}
		if (ictl >= 0 && r->ctl != NULL) {
			if (pf[ictl].revents & (POLLIN | POLLHUP | POLLERR))
				probe_ctl_read(r);
			if (r->ctl != NULL && (pf[ictl].revents & POLLOUT))
				(void)proto_flush(r->ctl);
		}
		if (r->ctl != NULL && proto_want_write(r->ctl))
			(void)proto_flush(r->ctl);
		if (pf[0].revents & POLLIN) {
			uint64_t ticks;

			(void)!read(tfd, &ticks, sizeof ticks);
			if (!r->reaped) {
				probe_sample(p, r);
				probe_ctl_connect(r);
			}
		}
		if ((ipid >= 0 && (pf[ipid].revents & POLLIN)) ||
		    (r->pidfd < 0 && !r->reaped)) {
			if (waitpid(r->pid, &r->wstatus, r->pidfd < 0 ?
			    WNOHANG : 0) == r->pid) {
				r->reaped = true;
				r->t1 = now_mono_ms();
			}
		}
	}
	if (!r->reaped) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &r->wstatus, 0);
		r->reaped = true;
		r->t1 = now_mono_ms();
	}
	if (r->ctl != NULL) {
		proto_conn_free(r->ctl);
		r->ctl = NULL;
	}
	closep(&r->pidfd);
	close(out_fd);
	close(err_fd);

	/* Nothing of the sandbox may outlive its supervisor. */
	if (r->ns_pid[0] != '\0') {
		int64_t end = now_mono_ms() + 1000;
		uint64_t rss;
		bool other = false;

		while ((r->leftover = probe_scan(r, &rss, &other)) > 0 &&
		    now_mono_ms() < end)
			usleep(20 * 1000);
	}
}

/* ---- the record ---- */

static char *
probe_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static int
probe_on_event(const struct audit_event_row *row, void *ctx)
{
	struct probe_run *r = ctx;
	struct probe_event *e;

	r->events = xreallocarray(r->events, r->n_events + 1, sizeof *r->events);
	e = &r->events[r->n_events++];
	e->kind = row->ev.kind;
	e->verdict = row->ev.verdict;
	e->how = row->ev.how;
	e->syscall = probe_dup(row->ev.syscall);
	e->subject = probe_dup(row->ev.subject);
	e->subject2 = probe_dup(row->ev.subject2);
	e->detail = probe_dup(row->ev.detail);
	e->rule = probe_dup(row->ev.rule);
	return 0;
}

static int
probe_on_run(const struct audit_run_row *row, void *ctx)
{
	struct probe_run *r = ctx;

	if (row->run.id == NULL || strcmp(row->run.id, r->id) != 0)
		return 0;
	r->have_run = true;
	r->end_reason = probe_dup(row->end_reason);
	r->limits = probe_dup(row->run.limits);
	r->exit_code = row->exit_code;
	r->ended_ms = row->ended_ms;
	return 1;
}

static int
probe_read_record(struct probe_run *r, char **cause)
{
	cleanup_free char *db = paths_audit_db();
	struct audit *a = NULL;
	int rc;

	if ((rc = audit_open_readonly(db, &a, cause)) == -ENOENT) {
		/* No record at all: judged as such, not a harness failure. */
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if (rc < 0)
		return rc;
	if ((rc = audit_each_event(a, r->id, probe_on_event, r)) < 0 ||
	    (rc = audit_each_run(a, probe_on_run, r)) < 0 ||
	    (rc = audit_read_output(a, r->id, &r->output,
	    &r->output_len)) < 0) {
		*cause = xasprintf("reading the record %s: %s", db,
		    strerror(-rc));
		audit_close(a);
		return rc;
	}
	audit_close(a);
	return 0;
}

static void
probe_run_done(struct probe_run *r)
{
	for (size_t i = 0; i < r->n_events; i++) {
		free(r->events[i].syscall);
		free(r->events[i].subject);
		free(r->events[i].subject2);
		free(r->events[i].detail);
		free(r->events[i].rule);
	}
	free(r->events);
	free(r->end_reason);
	free(r->limits);
	free(r->output);
	free(r->out.p);
	free(r->err.p);
	memset(r, 0, sizeof *r);
}

/* ---- judging ---- */

static bool
probe_streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static bool
probe_matches(const struct probe *p, const struct probe_event *e,
    const struct probe_expect *x)
{
	cleanup_free char *subject = NULL;

	if (e->kind != x->kind || e->verdict != x->verdict)
		return false;
	if (x->syscall != NULL && !probe_streq(e->syscall, x->syscall))
		return false;
	if (x->rule != NULL && !probe_streq(e->rule, x->rule))
		return false;
	if (x->subject == NULL)
		return true;
	subject = probe_expand(p, x->subject);
	return probe_streq(e->subject, subject) ||
	    probe_streq(e->subject2, subject);
}

/* The errno names the probe met, from its own lines (for the report
 * only): "EPERM, EACCES". */
static void
probe_errnos(const struct probe_run *r, struct probe_buf *b)
{
	cleanup_free char *pre = xasprintf("ward-probe: %s: ", r->def->name);
	size_t plen = strlen(pre);

	for (const char *l = r->out.p; l != NULL && *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len > plen && strncmp(l, pre, plen) == 0) {
			const char *last = l;

			for (const char *q = l; q + 1 < l + len; q++)
				if (q[0] == ':' && q[1] == ' ')
					last = q + 2;
			if (last > l && last[0] == 'E' && l + len - last < 24 &&
			    (size_t)(l + len - last) == strspn(last,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")) {
				cleanup_free char *e = xstrndup(last,
				    (size_t)(l + len - last));

				probe_list_add(b, e, ", ");
			}
		}
		l = nl ? nl + 1 : l + len;
	}
}

static const char *
probe_how_words(const struct probe_event *e)
{
	switch (e->how) {
	case HOW_PERSON:
		return "person/deny";
	case HOW_POLICY:
		return "policy rule";
	case HOW_DEFAULT:
		return "policy (write = deny)";
	case HOW_TIMEOUT:
		return "nobody answered (ask_timeout)";
	case HOW_RUN_RULE:
		return "rule for this run";
	case HOW_FLOOR:
		return e->rule != NULL ? e->rule : "floor";
	case HOW_SUPERVISOR:
		return "supervisor (run ended)";
	}
	return "?";
}

/* The limit's item of the run's limits text: "pids=64 (rlimits)". */
static char *
probe_limit_item(const char *limits, const char *key)
{
	const char *s = limits ? strstr(limits, key) : NULL;
	const char *how = limits ? strchr(limits, '(') : NULL;
	size_t n;

	if (s == NULL)
		return NULL;
	n = strcspn(s, " ");
	if (how != NULL)
		return xasprintf("%.*s %.*s", (int)n, s,
		    (int)(strcspn(how, ")") + 1), how);
	return xstrndup(s, n);
}

static void
probe_judge(const struct probe *p, const struct probe_run *r,
    const char *before, const char *after, unsigned conns,
    struct probe_result *res)
{
	const struct probe_def *d = r->def;
	struct probe_buf stopped = { 0 }, record = { 0 }, errnos = { 0 };
	unsigned escapes = 0, errors = 0, missing = 0;
	int status = -1;
	unsigned pid_cap = d->limit == LIMIT_PIDS ? PROBE_PIDS : p->policy.pids;
	cleanup_free char *diff = probe_snap_diff(before, after);

	snprintf(res->run, sizeof res->run, "%s", r->id);
	res->elapsed_ms = r->t1 - r->t0;
	res->requests = r->requests;
	res->peak_tasks = r->peak_tasks;
	res->peak_rss = r->peak_rss;
	if (WIFEXITED(r->wstatus))
		status = WEXITSTATUS(r->wstatus);
	else if (WIFSIGNALED(r->wstatus))
		status = 128 + WTERMSIG(r->wstatus);
	res->status = status;
	probe_errnos(r, &errnos);

	/* Effects, seen from outside. */
	if (diff != NULL) {
		probe_problem(res, xasprintf("escaped: canary changed: %s", diff));
		escapes++;
	}
	if ((r->out.p && memmem(r->out.p, r->out.len, p->token,
	    strlen(p->token))) || (r->err.p && memmem(r->err.p, r->err.len,
	    p->token, strlen(p->token))) || (r->output &&
	    memmem(r->output, r->output_len, p->token, strlen(p->token)))) {
		probe_problem(res, xstrdup("escaped: the planted secret is in "
		    "the run's output"));
		escapes++;
	}
	if (conns > 0) {
		probe_problem(res, xasprintf("escaped: the host listener "
		    "accepted %u connection(s)", conns));
		escapes++;
	}
	if (r->hard_killed) {
		probe_problem(res, xasprintf("error: the run outlived its "
		    "%d s wall clock; ward probe killed it", PROBE_GUARD));
		errors++;
	} else if (WIFSIGNALED(r->wstatus)) {
		probe_problem(res, xasprintf("escaped: the supervisor died of "
		    "signal %d", WTERMSIG(r->wstatus)));
		escapes++;
	}
	if (!r->hard_killed && status != d->status) {
		/* Killed from inside (kill-supervisor), or past the clock
		 * without its 124: the effect. Anything else: the probe
		 * itself failed. */
		bool effect = (d->proof == PROOF_OWN_EXIT &&
		    (status == 128 + SIGKILL ||
		    probe_streq(r->end_reason, "killed") ||
		    probe_streq(r->end_reason, "lost"))) ||
		    (d->proof == PROOF_TIMEOUT &&
		    res->elapsed_ms >= PROBE_CLOCK * 1000);

		if (effect) {
			probe_problem(res, xasprintf("escaped: the run ended "
			    "with %d, expected %d", status, d->status));
			escapes++;
		} else {
			probe_problem(res, xasprintf("error: the probe ended "
			    "with %d, expected %d", status, d->status));
			errors++;
		}
	}
	if (r->host_ns) {
		probe_problem(res, xstrdup("escaped: the program runs in the "
		    "host's pid namespace"));
		escapes++;
	} else if (pid_cap > 0 && r->peak_tasks > pid_cap + 2) {
		probe_problem(res, xasprintf("escaped: %u tasks in the "
		    "sandbox, pids = %u", r->peak_tasks, pid_cap));
		escapes++;
	}
	if (r->rss_over > 0) {
		probe_problem(res, xasprintf("escaped: resident memory %ju MiB "
		    "past the memory limit", (uintmax_t)(r->rss_over >> 20)));
		escapes++;
	}
	if (r->new_userns) {
		probe_problem(res, xstrdup("escaped: a process in a user "
		    "namespace of its own"));
		escapes++;
	}
	if (r->leftover > 0 && !r->host_ns) {
		probe_problem(res, xasprintf("escaped: %u task(s) outlived the "
		    "run", r->leftover));
		escapes++;
	}
	if (d->limit == LIMIT_CLOCK && res->elapsed_ms > PROBE_CLOCK * 1000 +
	    2500) {
		probe_problem(res, xasprintf("escaped: ran %.1f s against a "
		    "%d s wall clock", (double)res->elapsed_ms / 1000,
		    PROBE_CLOCK));
		escapes++;
	}
	if ((d->limit == LIMIT_PIDS || d->limit == LIMIT_MEMORY) &&
	    r->samples == 0) {
		probe_problem(res, xstrdup("error: no sample of the sandbox's "
		    "processes"));
		errors++;
	}

	/* The record. */
	if (!r->have_run || r->ended_ms <= 0) {
		probe_problem(res, xstrdup("not in the record: the run's end"));
		missing++;
	}
	switch (d->proof) {
	case PROOF_EVENTS: {
		struct probe_buf how = { 0 };

		if (d->floor != NULL)
			probe_list_add(&how, d->floor, " + ");
		for (size_t i = 0; i < ARRAY_SIZE(d->expect) &&
		    d->expect[i].verdict != VERDICT_NONE; i++) {
			const struct probe_expect *x = &d->expect[i];
			unsigned n = 0;

			if (x->int80 && !p->int80) {
				/* Seen from outside: our own int $0x80 dies
				 * of SIGSEGV, so no filter ever sees one. */
				probe_list_add(&record, "no i386 entry on this "
				    "kernel (int $0x80 is SIGSEGV outside the "
				    "sandbox too)", ", ");
				continue;
			}

			for (size_t j = 0; j < r->n_events; j++) {
				const struct probe_event *e = &r->events[j];
				cleanup_free char *item = NULL, *es = NULL;

				if (!probe_matches(p, e, x))
					continue;
				n++;
				es = escape_str(e->kind == KIND_CONNECT ?
				    (e->subject ? e->subject : "?") :
				    (e->syscall ? e->syscall : "?"));
				if (e->kind == KIND_CONNECT)
					item = xasprintf("connect %s %s/%s", es,
					    verdict_name(e->verdict),
					    how_name(e->how));
				else if (e->kind == KIND_EXEC && e->rule) {
					cleanup_free char *er = escape_str(
					    e->rule);

					item = xasprintf("%s %s, rule \"%s\"",
					    es, verdict_name(e->verdict), er);
				} else
					item = xasprintf("%s %s/%s", es,
					    verdict_name(e->verdict),
					    how_name(e->how));
				probe_list_add(&record, item, ", ");
				switch (e->kind) {
				case KIND_WRITE: {
					cleanup_free char *w = escape_str(
					    probe_how_words(e));

					probe_list_add(&how, w, " + ");
					break;
				}
				case KIND_BLOCKED:
					if (e->verdict == VERDICT_KILL)
						probe_list_add(&how, "filter: "
						    "process killed", " + ");
					else {
						const char *en = e->detail ?
						    strstr(e->detail, "errno=") :
						    NULL;
						cleanup_free char *er = escape_str(
						    en ? en + 6 : "");
						cleanup_free char *f = xasprintf(
						    "filter %s", er);

						probe_list_add(&how, f, " + ");
					}
					break;
				case KIND_EXEC:
					probe_list_add(&how, "nothing: allowed "
					    "by design", " + ");
					break;
				case KIND_CONNECT: {
					cleanup_free char *hw = escape_str(
					    probe_how_words(e));
					cleanup_free char *w = xasprintf("%s "
					    "for %s", hw, es);

					probe_list_add(&how, w, " + ");
					break;
				}
				case KIND_DNS:
				case KIND_PACKAGE:
				case KIND_RUN:
					break;
				}
			}
			if (n == 0) {
				cleanup_free char *sub = x->subject ?
				    probe_expand(p, x->subject) : NULL;
				cleanup_free char *es = sub ? escape_str(sub) :
				    NULL;

				/* What the record holds instead, if anything:
				 * the same call with another verdict. */
				for (size_t j = 0; j < r->n_events; j++) {
					const struct probe_event *e =
					    &r->events[j];
					cleanup_free char *sc = NULL, *it = NULL;

					if (e->kind != x->kind ||
					    (x->syscall != NULL &&
					    !probe_streq(e->syscall, x->syscall)) ||
					    (sub != NULL &&
					    !probe_streq(e->subject, sub) &&
					    !probe_streq(e->subject2, sub)))
						continue;
					sc = escape_str(e->syscall ? e->syscall :
					    "?");
					it = xasprintf("%s %s/%s", sc,
					    verdict_name(e->verdict),
					    how_name(e->how));
					probe_list_add(&record, it, ", ");
				}

				probe_problem(res, xasprintf("not in the record: "
				    "%s %s%s%s %s", request_kind_name(x->kind),
				    x->syscall ? x->syscall : "",
				    x->syscall && es ? " " : "", es ? es : "",
				    verdict_name(x->verdict)));
				missing++;
			}
		}
		if (how.p != NULL)
			probe_buf_str(&stopped, how.p);
		free(how.p);
		if (r->requests > 0) {
			cleanup_free char *asked = xasprintf("%u request%s "
			    "denied at once", r->requests,
			    r->requests == 1 ? "" : "s");

			probe_list_add(&record, asked, ", ");
		}
		break;
	}
	case PROOF_OUTPUT: {
		cleanup_free char *pre = xasprintf("ward-probe: %s: ", d->name);

		probe_buf_str(&stopped, d->floor);
		if (r->output != NULL && memmem(r->output, r->output_len, pre,
		    strlen(pre)) != NULL)
			probe_buf_str(&record, "the attempts, in the run's "
			    "recorded output (reads are not trapped)");
		else {
			probe_problem(res, xstrdup("not in the record: the "
			    "attempts in the run's output"));
			missing++;
		}
		break;
	}
	case PROOF_OWN_EXIT:
		probe_buf_str(&stopped, d->floor);
		if (r->have_run && probe_streq(r->end_reason, "exit") &&
		    r->exit_code == d->status) {
			cleanup_free char *t = xasprintf("run ended by its own "
			    "exit %d", r->exit_code);

			probe_buf_str(&record, t);
		} else {
			probe_problem(res, xasprintf("not in the record: the "
			    "run's own exit %d", d->status));
			missing++;
		}
		break;
	case PROOF_LIMIT: {
		bool pids = d->limit == LIMIT_PIDS;
		cleanup_free char *item = probe_limit_item(r->limits,
		    pids ? "pids=" : "memory=");
		cleanup_free char *t = pids ?
		    xasprintf("pid limit at %d (peak %u tasks)", PROBE_PIDS,
		    r->peak_tasks) :
		    xasprintf("memory limit %s (peak RSS %ju MiB)",
		    PROBE_MEMORY, (uintmax_t)(r->peak_rss >> 20));

		probe_buf_str(&stopped, t);
		if (item != NULL && strstr(item, pids ? "pids=64" :
		    "memory=" PROBE_MEMORY) != NULL) {
			cleanup_free char *rec = xasprintf("limits %s", item);

			probe_buf_str(&record, rec);
		} else {
			probe_problem(res, xasprintf("not in the record: the "
			    "limit %s", pids ? "pids=64" : "memory="
			    PROBE_MEMORY));
			missing++;
		}
		break;
	}
	case PROOF_TIMEOUT: {
		bool ev = false;
		cleanup_free char *t = xasprintf("wall clock: %d after %.1f s",
		    status, (double)res->elapsed_ms / 1000);

		probe_buf_str(&stopped, t);
		for (size_t j = 0; j < r->n_events; j++)
			if (r->events[j].kind == KIND_RUN &&
			    r->events[j].verdict == VERDICT_KILL &&
			    probe_streq(r->events[j].subject, "timeout"))
				ev = true;
		if (ev && probe_streq(r->end_reason, "timeout"))
			probe_buf_str(&record, "timeout kill, run ended by "
			    "timeout");
		else {
			probe_problem(res, xstrdup("not in the record: the "
			    "timeout"));
			missing++;
		}
		break;
	}
	}
	if (errnos.p != NULL) {
		probe_buf_str(&stopped, stopped.len ? " (" : "(");
		probe_buf_str(&stopped, errnos.p);
		probe_buf_str(&stopped, ")");
	}
	free(errnos.p);
	if (escapes > 0) {
		/* Whatever should have stopped it did not. */
		free(stopped.p);
		stopped = (struct probe_buf){ 0 };
		probe_buf_str(&stopped, "NOT STOPPED");
	} else if (stopped.p == NULL)
		probe_buf_str(&stopped, "?");
	res->stopped = stopped.p;
	res->record = record.p ? record.p : xstrdup("nothing");
	if (escapes > 0)
		res->verdict = PV_ESCAPED;
	else if (errors > 0)
		res->verdict = PV_ERROR;
	else if (missing > 0)
		res->verdict = PV_UNRECORDED;
	else
		res->verdict = d->allowed ? PV_ALLOWED : PV_BLOCKED;
}

/* ---- the report ---- */

static const char *
probe_verdict_name(enum probe_verdict v)
{
	switch (v) {
	case PV_BLOCKED:
		return "blocked";
	case PV_ALLOWED:
		return "allowed";
	case PV_ESCAPED:
		return "escaped";
	case PV_UNRECORDED:
		return "unrecorded";
	case PV_ERROR:
		return "error";
	}
	return "?";
}

static void
probe_print_line(const struct probe_result *res)
{
	const char *v = probe_verdict_name(res->verdict);
	char label[16];

	snprintf(label, sizeof label, "%s", v);
	if (res->verdict != PV_BLOCKED && res->verdict != PV_ALLOWED)
		for (char *c = label; *c; c++)
			*c = (char)(*c - 'a' + 'A');
	/* stopped and record hold sandbox strings, escaped when built. */
	printf("%-10s %-15s %s: %s; record: %s", label, res->def->name,
	    res->def->tried, res->stopped, res->record);
	if (res->overrides != NULL)
		printf(" [policy copy: %s]", res->overrides);
	if (res->verdict == PV_ALLOWED)
		printf(" [allowed, recorded: counted as blocked and logged]");
	for (size_t i = 0; i < res->n_problems; i++)
		printf("%s%s", i == 0 ? " !! " : "; ", res->problems[i]);
	putchar('\n');
	fflush(stdout);
}

static void
probe_counts(const struct probe *p, unsigned *ok, unsigned *escaped,
    unsigned *unrecorded, unsigned *errors)
{
	*ok = *escaped = *unrecorded = *errors = 0;
	for (size_t i = 0; i < p->n_results; i++)
		switch (p->results[i].verdict) {
		case PV_BLOCKED:
		case PV_ALLOWED:
			(*ok)++;
			break;
		case PV_ESCAPED:
			(*escaped)++;
			break;
		case PV_UNRECORDED:
			(*unrecorded)++;
			break;
		case PV_ERROR:
			(*errors)++;
			break;
		}
}

static json_t *
probe_jstr(const char *s)
{
	cleanup_free char *e = escape_str(s != NULL ? s : "");

	return json_string(e);
}

static void
probe_print_json(const struct probe *p, const char *harness_error)
{
	json_t *o = json_object(), *arr = json_array();
	unsigned ok, escaped, unrecorded, errors;
	cleanup_free char *summary = NULL, *text = NULL;

	probe_counts(p, &ok, &escaped, &unrecorded, &errors);
	summary = xasprintf("%u blocked and logged, %u escaped", ok, escaped);
	json_object_set_new(o, "policy", probe_jstr(p->policy_path));
	json_object_set_new(o, "canary", probe_jstr(p->canary));
	json_object_set_new(o, "every_run", json_string("ask_timeout = 5s, "
	    "timeout = 20s, every request denied at once"));
	for (size_t i = 0; i < p->n_results; i++) {
		const struct probe_result *res = &p->results[i];
		json_t *j = json_object(), *pr = json_array();

		json_object_set_new(j, "name", json_string(res->def->name));
		json_object_set_new(j, "tried", json_string(res->def->tried));
		json_object_set_new(j, "verdict",
		    json_string(probe_verdict_name(res->verdict)));
		json_object_set_new(j, "stopped_by", probe_jstr(res->stopped));
		json_object_set_new(j, "recorded", json_boolean(
		    res->verdict == PV_BLOCKED || res->verdict == PV_ALLOWED));
		json_object_set_new(j, "record", probe_jstr(res->record));
		json_object_set_new(j, "policy_override", res->overrides ?
		    json_string(res->overrides) : json_null());
		json_object_set_new(j, "allowed_by_design",
		    json_boolean(res->def->allowed));
		json_object_set_new(j, "run", probe_jstr(res->run));
		json_object_set_new(j, "exit_status", json_integer(res->status));
		json_object_set_new(j, "elapsed_ms",
		    json_integer(res->elapsed_ms));
		json_object_set_new(j, "requests_denied",
		    json_integer(res->requests));
		json_object_set_new(j, "peak_tasks",
		    json_integer(res->peak_tasks));
		json_object_set_new(j, "peak_rss_bytes",
		    json_integer((json_int_t)res->peak_rss));
		for (size_t k = 0; k < res->n_problems; k++)
			json_array_append_new(pr, probe_jstr(res->problems[k]));
		json_object_set_new(j, "problems", pr);
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "probes", arr);
	json_object_set_new(o, "blocked_and_logged", json_integer(ok));
	json_object_set_new(o, "escaped", json_integer(escaped));
	json_object_set_new(o, "unrecorded", json_integer(unrecorded));
	json_object_set_new(o, "errors", json_integer(errors));
	json_object_set_new(o, "harness_error", harness_error ?
	    probe_jstr(harness_error) : json_null());
	json_object_set_new(o, "summary", json_string(summary));
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text != NULL)
		puts(text);
	json_decref(o);
}

/* ---- setup and teardown ---- */

static int
probe_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	(void)remove(path);
	return 0;
}

static int
probe_make_canary(struct probe *p, char **cause)
{
	static const char text[] = "canary: ward probe checks that this "
	    "never changes\n";
	cleanup_free char *file = xasprintf("%s/file", p->canary);
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	/* As root the program runs as another uid: let the mode not be
	 * what stops it, so that the floor is what is tested. */
	bool root = geteuid() == 0;
	cleanup_fd int fd = -1;
	int e;

	if (mkdir(p->canary, 0700) < 0 && errno != EEXIST)
		goto fail;
	if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0 || write_all(fd, text, sizeof text - 1) < 0 ||
	    fchmod(fd, root ? 0666 : 0644) < 0 || futimens(fd, ts) < 0)
		goto fail;
	if (chmod(p->canary, root ? 0777 : 0755) < 0)
		goto fail;
	return 0;
fail:
	e = errno;
	*cause = xasprintf("canary %s: %s", p->canary, strerror(e));
	return -e;
}

/* Does this kernel run i386 syscalls at all? Asked of a child of ours,
 * outside any sandbox (some VM kernels give int $0x80 a SIGSEGV). */
static bool
probe_host_int80(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct rlimit none = { 0, 0 };
		long ret;

		setrlimit(RLIMIT_CORE, &none);
		__asm__ volatile("int $0x80"
		    : "=a"(ret)
		    : "a"(20L)		/* i386 getpid */
		    : "memory", "r8", "r9", "r10", "r11");
		_exit(ret > 0 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return true;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int
probe_setup(struct probe *p, const char *policy_arg, char **cause)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	cleanup_free char *home = NULL, *given = NULL, *canary = NULL;
	const char *h = getenv("HOME"), *base;
	unsigned char rnd[16];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t slen = sizeof sa;
	FILE *f;
	int fd, r;

	if (n <= 0) {
		*cause = xasprintf("/proc/self/exe: %s", strerror(errno));
		return -errno;
	}
	buf[n] = '\0';
	p->self = xstrdup(buf);

	/* The policy, as `ward run` would take it. */
	given = policy_arg ? xstrdup(policy_arg) :
	    paths_default_policy(p->argv0);
	if ((p->policy_path = realpath(given, NULL)) == NULL) {
		r = -errno;
		*cause = xasprintf("%s: %s", given, strerror(errno));
		return r;
	}
	if ((f = fopen(p->policy_path, "re")) == NULL) {
		r = -errno;
		*cause = xasprintf("%s: %s", p->policy_path, strerror(errno));
		return r;
	}
	{
		struct probe_buf b = { 0 };
		char chunk[8192];
		size_t got;

		while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 &&
		    b.len < (1u << 20))
			probe_buf_add(&b, chunk, got);
		fclose(f);
		p->policy_text = b.p ? b.p : xstrdup("");
	}
	if ((r = policy_load_string(&p->policy, p->policy_text,
	    p->policy_path, cause)) < 0)
		return r;

	/* The temp folder: beneath /var/tmp, which the sandbox sees
	 * read-only and Landlock does not open for writing (unlike /tmp). */
	base = access("/var/tmp", W_OK | X_OK) == 0 ? "/var/tmp" : "/tmp";
	p->dir = xasprintf("%s/ward-probe-XXXXXX", base);
	if (mkdtemp(p->dir) == NULL) {
		r = -errno;
		*cause = xasprintf("mkdtemp %s: %s", p->dir, strerror(errno));
		free(p->dir);
		p->dir = NULL;
		return r;
	}
	/* The program, as another uid when we are root, must reach the
	 * canary and the binary. */
	chmod(p->dir, 0711);
	canary = xasprintf("%s/canary", p->dir);
	p->canary = canary;
	r = probe_make_canary(p, cause);
	p->canary = NULL;
	if (r < 0)
		return r;
	if ((p->canary = realpath(canary, NULL)) == NULL) {
		r = -errno;
		*cause = xasprintf("%s: %s", canary, strerror(errno));
		return r;
	}

	/* The secret: a file in the real home and a variable of ours. */
	if (h == NULL || *h == '\0') {
		struct passwd *pw = getpwuid(getuid());

		h = pw ? pw->pw_dir : NULL;
	}
	if (h == NULL || (home = realpath(h, NULL)) == NULL) {
		*cause = xasprintf("no home folder to plant the secret in%s%s",
		    h ? ": " : "", h ? strerror(errno) : "");
		return -ENOENT;
	}
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd) {
		*cause = xasprintf("getrandom: %s", strerror(errno));
		return -EIO;
	}
	for (size_t i = 0; i < sizeof rnd; i++)
		snprintf(p->token + 2 * i, 3, "%02x", rnd[i]);
	p->secret_path = xasprintf("%s/.ward-probe-secret-XXXXXX", home);
	if ((fd = mkostemp(p->secret_path, O_CLOEXEC)) < 0) {
		r = -errno;
		*cause = xasprintf("plant the secret in %s: %s", home,
		    strerror(errno));
		free(p->secret_path);
		p->secret_path = NULL;
		return r;
	}
	r = write_all(fd, p->token, strlen(p->token));
	close(fd);
	if (r < 0) {
		*cause = xasprintf("write %s: %s", p->secret_path, strerror(-r));
		return r;
	}
	p->secret_var = xasprintf("%s%s", PROBE_SECRET_PREFIX,
	    p->secret_path + strlen(p->secret_path) - 6);
	setenv(p->secret_var, p->token, 1);

	/* The program: this binary, shown read-only at its own path. Should
	 * that folder hold the home (and so the secret), a copy instead. */
	p->bindir = xstrdup(p->self);
	*strrchr(p->bindir, '/') = '\0';
	if (p->bindir[0] == '\0') {
		free(p->bindir);
		p->bindir = xstrdup("/");
	}
	if (probe_under(home, p->bindir)) {
		cleanup_fd int in = open(p->self, O_RDONLY | O_CLOEXEC);
		cleanup_fd int out = -1;
		char chunk[65536];
		ssize_t got;

		free(p->bindir);
		p->bindir = xasprintf("%s/bin", p->dir);
		p->exe = xasprintf("%s/ward", p->bindir);
		if (mkdir(p->bindir, 0755) < 0 || chmod(p->bindir, 0755) < 0 ||
		    in < 0 || (out = open(p->exe, O_WRONLY | O_CREAT |
		    O_CLOEXEC, 0755)) < 0) {
			r = -errno;
			*cause = xasprintf("copy ward to %s: %s", p->exe,
			    strerror(errno));
			return r;
		}
		while ((got = read(in, chunk, sizeof chunk)) > 0)
			if (write_all(out, chunk, (size_t)got) < 0)
				break;
		fchmod(out, 0755);
	} else
		p->exe = xstrdup(p->self);

	/* A listener on the host's loopback: nothing may reach it. */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) < 0 ||
	    bind(p->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(p->lfd, 16) < 0 ||
	    getsockname(p->lfd, (struct sockaddr *)&sa, &slen) < 0) {
		r = -errno;
		*cause = xasprintf("listen on 127.0.0.1: %s", strerror(errno));
		return r;
	}
	p->port = ntohs(sa.sin_port);
	p->int80 = probe_host_int80();
	return 0;
}

static void
probe_teardown(struct probe *p)
{
	if (p->secret_var != NULL)
		unsetenv(p->secret_var);
	if (!p->keep) {
		if (p->secret_path != NULL)
			unlink(p->secret_path);
		if (p->dir != NULL)
			nftw(p->dir, probe_rm, 16, FTW_DEPTH | FTW_PHYS);
	} else if (p->dir != NULL)
		fprintf(stderr, "ward probe: kept %s and %s\n", p->dir,
		    p->secret_path ? p->secret_path : "(no secret)");
	closep(&p->lfd);
	for (size_t i = 0; i < p->n_results; i++) {
		free(p->results[i].stopped);
		free(p->results[i].record);
		for (size_t k = 0; k < p->results[i].n_problems; k++)
			free(p->results[i].problems[k]);
		free(p->results[i].problems);
	}
	free(p->self);
	free(p->exe);
	free(p->bindir);
	free(p->dir);
	free(p->canary);
	free(p->secret_path);
	free(p->secret_var);
	free(p->policy_path);
	free(p->policy_text);
	policy_done(&p->policy);
}

/* Connections the host listener took since last asked. */
static unsigned
probe_accept_all(const struct probe *p)
{
	unsigned n = 0;
	int fd;

	while ((fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(fd);
		n++;
	}
	return n;
}

static void
probe_keep_file(const struct probe *p, const char *name, const char *ext,
    const struct probe_buf *b)
{
	cleanup_free char *path = xasprintf("%s/%s.%s", p->dir, name, ext);
	cleanup_fd int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);

	if (fd >= 0 && b->p != NULL)
		(void)write_all(fd, b->p, b->len);
}

static int
probe_one(struct probe *p, const struct probe_def *d,
    struct probe_result *res, char **cause)
{
	struct probe_run r;
	cleanup_free char *policy = NULL, *before = NULL, *after = NULL;
	int out_fd = -1, err_fd = -1, rc;
	unsigned conns;

	memset(&r, 0, sizeof r);
	r.def = d;
	r.pidfd = -1;
	r.exit_code = -1;
	memset(res, 0, sizeof *res);
	res->def = d;
	res->status = -1;
	res->overrides = probe_overrides(d);
	if ((rc = probe_write_policy(p, d, &policy, cause)) < 0)
		return rc;
	before = probe_snapshot(p->canary);
	(void)probe_accept_all(p);
	if ((rc = probe_spawn(p, policy, &r, &out_fd, &err_fd, cause)) < 0)
		return rc;
	probe_watch(p, &r, out_fd, err_fd);
	if (p->keep) {
		probe_keep_file(p, d->name, "out", &r.out);
		probe_keep_file(p, d->name, "err", &r.err);
	}
	if (r.id[0] == '\0') {
		cleanup_free char *e = escape_mem(r.err.p ? r.err.p : "",
		    r.err.len > 2000 ? 2000 : r.err.len);

		*cause = xasprintf("the %s run did not start: %s", d->name, e);
		probe_run_done(&r);
		return -EIO;
	}
	after = probe_snapshot(p->canary);
	conns = probe_accept_all(p);
	if ((rc = probe_read_record(&r, cause)) < 0) {
		probe_run_done(&r);
		return rc;
	}
	probe_judge(p, &r, before, after, conns, res);
	probe_run_done(&r);
	/* An escape must not spoil the probes after it. */
	if (strcmp(before, after) != 0) {
		nftw(p->canary, probe_rm, 16, FTW_DEPTH | FTW_PHYS);
		if ((rc = probe_make_canary(p, cause)) < 0)
			return rc;
	}
	return 0;
}

static void
probe_usage(FILE *f)
{
	fputs("usage: ward probe [--policy FILE] [--json] [--keep]\n"
	    "\n"
	    "Runs a battery of hostile actions, each in a sandbox of its own\n"
	    "made from the policy (a copy with ask_timeout = 5s and timeout =\n"
	    "20s; the pid, memory and wall-clock probes lower that limit), and\n"
	    "denies every request at once. Each result is judged from outside:\n"
	    "a canary folder, a secret planted in your home and in ward's\n"
	    "environment, a listener on 127.0.0.1, the supervisor, the\n"
	    "sandbox's processes and the record. Prints one line per probe,\n"
	    "then \"N blocked and logged, M escaped\".\n"
	    "\n"
	    "  --policy FILE  the policy to test (default: the one `ward run`\n"
	    "                 uses)\n"
	    "  --json         the report as JSON\n"
	    "  --keep         keep the temp folder (canary, policy copies,\n"
	    "                 each run's output) and the planted secret\n"
	    "\n"
	    "Exit status: 0 nothing escaped and everything is in the record;\n"
	    "1 something escaped or went unrecorded; 125 the harness failed.\n",
	    f);
}

int
probe_main(int argc, char **argv, const char *argv0)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "keep", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe *p = xcalloc(1, sizeof *p);
	cleanup_free char *cause = NULL, *harness = NULL;
	const char *policy = NULL;
	unsigned ok, escaped, unrecorded, errors;
	int opt, status;

	p->lfd = -1;
	p->argv0 = argv0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			policy = optarg;
			break;
		case 'j':
			p->json = true;
			break;
		case 'k':
			p->keep = true;
			break;
		case 'h':
			probe_usage(stdout);
			free(p);
			return 0;
		default:
			fputs("ward probe: see `ward probe --help`\n", stderr);
			free(p);
			return 2;
		}
	}
	if (optind < argc) {
		fputs("ward probe: no arguments expected; see `ward probe "
		    "--help`\n", stderr);
		free(p);
		return 2;
	}
	/* A run's control socket may close under a write. */
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction sa = { .sa_handler = probe_on_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}

	if (probe_setup(p, policy, &cause) < 0) {
		cleanup_free char *e = escape_str(cause ? cause : "setup failed");

		fprintf(stderr, "ward probe: %s\n", e);
		probe_teardown(p);
		free(p);
		return 125;
	}
	if (!p->json) {
		cleanup_free char *pol = escape_str(p->policy_path);
		cleanup_free char *can = escape_str(p->canary);

		printf("ward probe: %zu probes against %s; each run: --in %s, "
		    "ask_timeout = %ds, timeout = %ds, every request denied at "
		    "once\n", ARRAY_SIZE(probe_defs), pol, can,
		    PROBE_ASK_TIMEOUT, PROBE_GUARD);
		fflush(stdout);
	}
	for (size_t i = 0; i < ARRAY_SIZE(probe_defs); i++) {
		free(cause);
		cause = NULL;
		if (probe_stop)
			break;
		if (probe_one(p, &probe_defs[i], &p->results[i], &cause) < 0) {
			harness = cause ? steal_ptr(&cause) :
			    xstrdup("a probe failed to run");
			break;
		}
		if (probe_stop)
			break;
		p->n_results = i + 1;
		if (!p->json)
			probe_print_line(&p->results[i]);
	}
	if (probe_stop) {
		fprintf(stderr, "ward probe: interrupted by signal %d\n",
		    (int)probe_stop);
		probe_teardown(p);
		free(p);
		return 128 + (int)probe_stop;
	}
	probe_counts(p, &ok, &escaped, &unrecorded, &errors);
	if (p->json)
		probe_print_json(p, harness);
	else {
		if (harness != NULL)
			printf("ward probe: harness failed: %s\n", harness);
		if (unrecorded > 0 || errors > 0)
			printf("%u stopped but not in the record, %u not "
			    "judged\n", unrecorded, errors);
		printf("%u blocked and logged, %u escaped\n", ok, escaped);
	}
	if (escaped > 0 || unrecorded > 0)
		status = 1;
	else if (harness != NULL || errors > 0)
		status = 125;
	else
		status = 0;
	probe_teardown(p);
	free(p);
	return status;
}
