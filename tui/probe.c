/*
 * ward probe: a battery of hostile actions, each in a headless sandbox of
 * its own made from the current policy, judged from outside.
 *
 * The hostile program is this binary itself (`ward probe-inside NAME`),
 * shown to the sandbox with --in; its libraries live in /usr, which every
 * sandbox sees. Nothing it says decides a verdict: what it prints only
 * names the errno it met, for the report. The verdict comes from the
 * canary folder, the planted secret, the host's TCP and UDP listeners,
 * the supervisor's fate and its sockets, the sandbox's processes and
 * socket tables sampled from /proc, the opens of the race's script
 * (inotify), with root a packet watch on the host's interfaces, and the
 * record.
 *
 * The network probes reach only 127.0.0.1 (the sandbox's own loopback,
 * where the host's listeners must hear nothing), 192.0.2.1 (TEST-NET-1,
 * denied before any packet), 169.254.169.254 (refused by the never list)
 * and a made-up name under .invalid (denied, so never forwarded).
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
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <resolv.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>
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

/* ---- the network ---- */

/* The documentation address (TEST-NET-1) and cloud metadata. */
#define PROBE_OUT_ADDR		0xc0000201U	/* 192.0.2.1 */
#define PROBE_META_ADDR		0xa9fea9feU	/* 169.254.169.254 */
#define PROBE_META_PORT		80

static struct sockaddr_in
probe_in_sa4(uint32_t addr, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };

	sa.sin_addr.s_addr = htonl(addr);
	sa.sin_port = htons((uint16_t)port);
	return sa;
}

/* The same IPv4 address as an IPv4-mapped IPv6 one (::ffff:a.b.c.d). */
static struct sockaddr_in6
probe_in_sa6_mapped(uint32_t addr, unsigned port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	uint32_t be = htonl(addr);

	sa.sin6_port = htons((uint16_t)port);
	sa.sin6_addr.s6_addr[10] = 0xff;
	sa.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&sa.sin6_addr.s6_addr[12], &be, 4);
	return sa;
}

/* A fresh socket, then connect: say how it went. */
static void
probe_in_connect_to(const char *what, int family, int type,
    const void *sa, socklen_t len)
{
	int s = socket(family, type | SOCK_CLOEXEC, 0);

	if (s < 0) {
		probe_in_say(what, errno);
		return;
	}
	probe_in_check(what, connect(s, sa, len));
	close(s);
}

/*
 * The host's listener on 127.0.0.1 by other roads than the plain connect
 * probe: as an IPv4-mapped IPv6 address, at another address of 127/8,
 * with TCP Fast Open (a connect made by sendto), and a connect out that a
 * non-blocking socket makes.
 */
static int
probe_in_outside_listener(char **a)
{
	unsigned port = (unsigned)atoi(a[0]);
	struct sockaddr_in lo = probe_in_sa4(INADDR_LOOPBACK, port);
	struct sockaddr_in lo2 = probe_in_sa4(0x7f000002, port);
	struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR, port);
	struct sockaddr_in6 mapped = probe_in_sa6_mapped(INADDR_LOOPBACK, port);
	int s, r, e;

	probe_in_connect_to("connect tcp [::ffff:127.0.0.1]", AF_INET6,
	    SOCK_STREAM, &mapped, sizeof mapped);
	probe_in_connect_to("connect tcp 127.0.0.2", AF_INET, SOCK_STREAM,
	    &lo2, sizeof lo2);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("sendto MSG_FASTOPEN 127.0.0.1", sendto(s, "x", 1,
	    MSG_FASTOPEN, (struct sockaddr *)&lo, sizeof lo));
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	r = connect(s, (struct sockaddr *)&out, sizeof out);
	e = errno;
	probe_in_say("connect tcp 192.0.2.1 non-blocking", r < 0 ? e : 0);
	if (r < 0 && e == EINPROGRESS) {
		struct pollfd pf = { s, POLLOUT, 0 };
		int err = 0;
		socklen_t l = sizeof err;

		(void)poll(&pf, 1, 2000);
		getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &l);
		probe_in_say("connect tcp 192.0.2.1 non-blocking, SO_ERROR",
		    err);
	}
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("sendto MSG_FASTOPEN 192.0.2.1", sendto(s, "x", 1,
	    MSG_FASTOPEN, (struct sockaddr *)&out, sizeof out));
	close(s);
	return 0;
}

/* Cloud metadata: over IPv4, IPv4-mapped IPv6, and a datagram. */
static int
probe_in_metadata(char **a)
{
	struct sockaddr_in m4 = probe_in_sa4(PROBE_META_ADDR, PROBE_META_PORT);
	struct sockaddr_in6 m6 = probe_in_sa6_mapped(PROBE_META_ADDR,
	    PROBE_META_PORT);
	int s;

	(void)a;
	probe_in_connect_to("connect tcp 169.254.169.254:80", AF_INET,
	    SOCK_STREAM, &m4, sizeof m4);
	probe_in_connect_to("connect tcp [::ffff:169.254.169.254]:80",
	    AF_INET6, SOCK_STREAM, &m6, sizeof m6);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	probe_in_check("sendto udp 169.254.169.254:80", sendto(s, "x", 1, 0,
	    (struct sockaddr *)&m4, sizeof m4));
	close(s);
	return 0;
}

/* A name made up for the run, carrying data out in its first label:
 * looked up as A/AAAA over UDP, and as TXT over TCP. */
static int
probe_in_dns_exfil(char **a)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM }, *res = NULL;
	struct __res_state st;
	unsigned char ans[1024];
	char what[400], txt[300];
	const char *e;
	int r;

	snprintf(what, sizeof what, "getaddrinfo %s", a[0]);
	r = getaddrinfo(a[0], "443", &hints, &res);
	e = r == 0 ? "ok" : r == EAI_NONAME ? "EAI_NONAME" :
	    r == EAI_AGAIN ? "EAI_AGAIN" : r == EAI_FAIL ? "EAI_FAIL" :
	    r == EAI_NODATA ? "EAI_NODATA" : r == EAI_SYSTEM ? "EAI_SYSTEM" :
	    "EAI_OTHER";
	dprintf(STDOUT_FILENO, "ward-probe: %s: %s: %s\n", probe_in_name,
	    what, e);
	if (res != NULL) {
		for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
			char h[INET6_ADDRSTRLEN] = "?";

			if (ai->ai_family == AF_INET)
				inet_ntop(AF_INET, &((struct sockaddr_in *)
				    ai->ai_addr)->sin_addr, h, sizeof h);
			else if (ai->ai_family == AF_INET6)
				inet_ntop(AF_INET6, &((struct sockaddr_in6 *)
				    ai->ai_addr)->sin6_addr, h, sizeof h);
			dprintf(STDOUT_FILENO, "ward-probe: %s: resolved to "
			    "%s\n", probe_in_name, h);
		}
		freeaddrinfo(res);
	}
	memset(&st, 0, sizeof st);
	snprintf(txt, sizeof txt, "txt.%s", a[0]);
	snprintf(what, sizeof what, "res_nquery TXT %s over TCP", txt);
	if (res_ninit(&st) != 0) {
		probe_in_say("res_ninit", errno != 0 ? errno : EINVAL);
		return 0;
	}
	st.options |= RES_USEVC;
	r = res_nquery(&st, txt, ns_c_in, ns_t_txt, ans, sizeof ans);
	e = r >= 0 ? "ok" : st.res_h_errno == HOST_NOT_FOUND ? "NXDOMAIN" :
	    st.res_h_errno == TRY_AGAIN ? "SERVFAIL" :
	    st.res_h_errno == NO_RECOVERY ? "REFUSED" :
	    st.res_h_errno == NO_DATA ? "NODATA" : "EAI_FAIL";
	dprintf(STDOUT_FILENO, "ward-probe: %s: %s: %s\n", probe_in_name,
	    what, e);
	res_nclose(&st);
	return 0;
}

/*
 * Raw and packet sockets need CAP_NET_RAW. Should one open, hold it
 * long enough to be seen in the sandbox's socket tables from outside,
 * and try to send with it.
 */
static int
probe_in_raw_socket(char **a)
{
	static const struct {
		const char	*what;
		int		 family, type, proto;
	} socks[] = {
		{ "socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)", AF_INET, SOCK_RAW,
		  IPPROTO_ICMP },
		{ "socket(AF_INET, SOCK_RAW, IPPROTO_RAW)", AF_INET, SOCK_RAW,
		  IPPROTO_RAW },
		{ "socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6)", AF_INET6,
		  SOCK_RAW, IPPROTO_ICMPV6 },
		{ "socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)", AF_PACKET, SOCK_RAW,
		  0x0300 /* htons(ETH_P_ALL) */ },
		{ "socket(AF_PACKET, SOCK_DGRAM, ETH_P_IP)", AF_PACKET,
		  SOCK_DGRAM, 0x0008 /* htons(ETH_P_IP) */ },
	};
	/* An ICMP echo request with a valid checksum. */
	unsigned char echo[8] = { 8, 0, 0xf7, 0xfe, 0, 1, 0, 0 };
	struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR, 0);
	bool held = false;

	(void)a;
	for (size_t i = 0; i < ARRAY_SIZE(socks); i++) {
		int s = socket(socks[i].family, socks[i].type | SOCK_CLOEXEC,
		    socks[i].proto);

		probe_in_check(socks[i].what, s);
		if (s < 0)
			continue;
		held = true;
		if (socks[i].family == AF_INET)
			probe_in_check("sendto 192.0.2.1 (ICMP echo)",
			    sendto(s, echo, sizeof echo, 0,
			    (struct sockaddr *)&out, sizeof out));
		/* Left open: the harness looks for it from outside. */
	}
	if (held)
		usleep(300 * 1000);
	return 0;
}

/* Datagrams out: sendto, sendmsg, sendmmsg, connect; and one to
 * the host's UDP listener's port on 127.0.0.1 (the sandbox's own). */
static int
probe_in_udp(char **a)
{
	unsigned port = (unsigned)atoi(a[0]);
	struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR, port);
	struct sockaddr_in lo = probe_in_sa4(INADDR_LOOPBACK, port);
	char data[] = "ward-probe";
	struct iovec iov = { data, sizeof data - 1 };
	struct msghdr mh = { .msg_name = &out, .msg_namelen = sizeof out,
	    .msg_iov = &iov, .msg_iovlen = 1 };
	struct mmsghdr mm = { .msg_hdr = mh };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0) {
		probe_in_say("socket(AF_INET, SOCK_DGRAM)", errno);
		return 3;
	}
	probe_in_check("sendto udp 192.0.2.1", sendto(s, data, sizeof data - 1,
	    0, (struct sockaddr *)&out, sizeof out));
	probe_in_check("sendmsg udp 192.0.2.1", sendmsg(s, &mh, 0));
	probe_in_check("sendmmsg udp 192.0.2.1", sendmmsg(s, &mm, 1, 0));
	probe_in_check("sendto udp 127.0.0.1", sendto(s, data, sizeof data - 1,
	    0, (struct sockaddr *)&lo, sizeof lo));
	probe_in_check("connect udp 192.0.2.1", connect(s,
	    (struct sockaddr *)&out, sizeof out));
	close(s);
	return 0;
}

/* ---- the exec argv-swap race ---- */

#define PROBE_RACE_ARGV_MS	400	/* flip argv[1] install <-> list */
#define PROBE_RACE_PATH_MS	600	/* flip the path pip <-> pix */
#define PROBE_RACE_LIVE_MS	80	/* each exec that ran lives this long */
#define PROBE_RACE_PACKAGE	"wardprobe-x"
#define PROBE_RACE_SCRIPT	"pip"	/* in the tools folder: #!ward probe-inside */

struct probe_in_exec {
	char		 path[PATH_MAX];
	size_t		 last;		/* the path's last byte: 'p' or 'x' */
	char		*argv[4];
	int		 mode;		/* 0: flip argv[1], 1: flip the path */
	atomic_bool	 stop;
};

/* Shared with the children: what they met, for the report. */
struct probe_in_exec_counts {
	atomic_uint	 attempts[2], runs[2], errs[2][160];
};

static void *
probe_in_exec_flip(void *arg)
{
	static char install[] = "install", list[] = "list";
	struct probe_in_exec *x = arg;
	char *volatile *slot = (char *volatile *)&x->argv[1];
	volatile char *last = &x->path[x->last];

	while (!atomic_load_explicit(&x->stop, memory_order_relaxed)) {
		if (x->mode == 0) {
			*slot = install;
			*slot = list;
		} else {
			*last = 'p';
			*last = 'x';
		}
	}
	return NULL;
}

/* One child: a flipping thread, and execve until one runs or the phase
 * ends (exit 3). */
static void
probe_in_exec_child(struct probe_in_exec *x,
    struct probe_in_exec_counts *c, int64_t end)
{
	pthread_t t;

	if (pthread_create(&t, NULL, probe_in_exec_flip, x) != 0)
		_exit(4);
	while (now_mono_ms() < end) {
		int e;

		atomic_fetch_add(&c->attempts[x->mode], 1);
		execve(x->path, x->argv, environ);
		e = errno;
		if (e > 0 && e < (int)ARRAY_SIZE(c->errs[0]))
			atomic_fetch_add(&c->errs[x->mode][e], 1);
	}
	_exit(3);
}

/*
 * The race: while the main thread execs `pip install wardprobe-x` (pip
 * being a script in a folder of ours whose #! line runs this binary),
 * another flips argv[1] to "list", or the path's last letter to a name
 * that does not exist, so that the supervisor may judge one exec and the
 * kernel run another. Each exec that runs lives a moment, so that the
 * harness sees it from outside, and meets the floor meanwhile.
 */
static int
probe_in_exec_race(char **a)
{
	static char arg0[] = "pip", pkg[] = PROBE_RACE_PACKAGE,
	    install[] = "install";
	static const char *const phase[] = { "argv[1] install/list",
	    "path pip/pix" };
	struct probe_in_exec_counts *c;
	struct probe_in_exec x;

	memset(&x, 0, sizeof x);
	snprintf(x.path, sizeof x.path, "%s/%s", a[0], PROBE_RACE_SCRIPT);
	x.last = strlen(x.path) - 1;
	x.argv[0] = arg0;
	x.argv[1] = install;
	x.argv[2] = pkg;
	c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		probe_in_say("mmap", errno);
		return 3;
	}
	setenv("WARD_PROBE_CANARY", a[1], 1);
	setenv("WARD_PROBE_PORT", a[2], 1);
	for (x.mode = 0; x.mode < 2; x.mode++) {
		int64_t end = now_mono_ms() + (x.mode == 0 ?
		    PROBE_RACE_ARGV_MS : PROBE_RACE_PATH_MS);
		char what[96];

		x.argv[1] = install;
		x.path[x.last] = 'p';
		while (now_mono_ms() < end) {
			pid_t pid = fork();
			int st;

			if (pid == 0)
				probe_in_exec_child(&x, c, end);
			if (pid < 0) {
				probe_in_say("fork", errno);
				break;
			}
			if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			    WEXITSTATUS(st) == 0)
				atomic_fetch_add(&c->runs[x.mode], 1);
		}
		dprintf(STDOUT_FILENO, "ward-probe: %s: flip %s: %u execve, "
		    "%u ran\n", probe_in_name, phase[x.mode],
		    atomic_load(&c->attempts[x.mode]),
		    atomic_load(&c->runs[x.mode]));
		for (size_t e = 1; e < ARRAY_SIZE(c->errs[0]); e++)
			if (atomic_load(&c->errs[x.mode][e]) > 0) {
				snprintf(what, sizeof what, "flip %s: execve "
				    "x%u", phase[x.mode],
				    atomic_load(&c->errs[x.mode][e]));
				probe_in_say(what, (int)e);
			}
	}
	return 0;
}

/* What the race got to run (through the #! line of tools/pip): it tries
 * the canary and the outside, then lives a moment to be seen. */
static int
probe_in_exec_raced(int argc, char **argv)
{
	const char *canary = getenv("WARD_PROBE_CANARY");
	const char *port = getenv("WARD_PROBE_PORT");
	int64_t t0 = now_mono_ms();
	char what[PATH_MAX + 64], args[256] = "";
	size_t used = 0;

	probe_in_name = "argv-race";
	for (int i = 0; i < argc && used + 2 < sizeof args; i++)
		used += (size_t)snprintf(args + used, sizeof args - used, "%s%s",
		    i ? " " : "", argv[i]);
	if (canary != NULL) {
		char p[PATH_MAX];

		snprintf(what, sizeof what, "ran (pip %s): open canary/raced "
		    "O_CREAT", args);
		snprintf(p, sizeof p, "%s/raced", canary);
		probe_in_fd(what, open(p, O_WRONLY | O_CREAT | O_CLOEXEC,
		    0644));
	}
	if (port != NULL) {
		struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR,
		    (unsigned)atoi(port));

		snprintf(what, sizeof what, "ran (pip %s): connect tcp "
		    "192.0.2.1", args);
		probe_in_connect_to(what, AF_INET, SOCK_STREAM, &out,
		    sizeof out);
	}
	while (now_mono_ms() < t0 + PROBE_RACE_LIVE_MS)
		usleep(5 * 1000);
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
	{ "outside-listener", 1, probe_in_outside_listener },
	{ "metadata", 0, probe_in_metadata },
	{ "dns-exfil", 1, probe_in_dns_exfil },
	{ "raw-socket", 0, probe_in_raw_socket },
	{ "udp", 1, probe_in_udp },
	{ "argv-race", 3, probe_in_exec_race },
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
	/* The argv-race's tools/pip, run by its #! line: NAME is the
	 * script's path. */
	if (strchr(argv[1], '/') != NULL) {
		const char *base = strrchr(argv[1], '/') + 1;

		if (strcmp(base, PROBE_RACE_SCRIPT) == 0)
			return probe_in_exec_raced(argc - 2, argv + 2);
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
 * syscall, the rule (a final '*' matches any end), and the subject (or
 * subject2). In subjects, "%c" stands for the canary folder, "%p" for
 * the TCP listener's port, "%u" for the UDP listener's, "%t" for the
 * tools folder and "%n" for the made-up DNS name. */
struct probe_expect {
	enum verdict	 verdict;	/* VERDICT_NONE ends the list */
	enum request_kind kind;
	const char	*syscall;
	const char	*subject;
	const char	*rule;
	bool		 int80;		/* only where the host kernel has int $0x80 */
	unsigned	 count;		/* at least this many (0: one) */
};

struct probe_def {
	const char	*name;
	const char	*tried;
	/* c canary, p TCP port, u UDP port, s secret file, t tools
	 * folder, n made-up DNS name */
	const char	*args;
	enum probe_limit limit;
	enum probe_proof proof;
	int		 status;	/* the run's expected exit status */
	bool		 allowed;	/* allowed by design, must be recorded */
	const char	*floor;		/* what stops it, where no event says */
	/* Attempts no trap sees (the kernel refuses them): named in the
	 * record column as such. */
	const char	*untrapped;
	bool		 net;		/* watch the network from outside */
	bool		 never;		/* refused by the never list: nobody asked */
	bool		 dns;		/* looks up the made-up name */
	bool		 race;		/* the exec race: every exec that ran */
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
	{ .name = "connect", .args = "p", .net = true,
	  .tried = "reach a host listener on 127.0.0.1; connect out",
	  .floor = "127.0.0.1 is the sandbox's own loopback",
	  .expect = { { VERDICT_DENY, KIND_CONNECT, NULL, "192.0.2.1:%p",
		  NULL } } },
	{ .name = "outside-listener", .args = "p", .net = true,
	  .tried = "reach the host listener as ::ffff:127.0.0.1, 127.0.0.2, "
	      "by TCP Fast Open; connect out non-blocking and by Fast Open",
	  .floor = "127/8 is the sandbox's own loopback",
	  .expect = {
		{ VERDICT_DENY, KIND_CONNECT, "connect", "192.0.2.1:%p", NULL },
		{ VERDICT_DENY, KIND_CONNECT, "sendto", "192.0.2.1:%p",
		  NULL } } },
	/* Never-listed: refused at once, nobody is asked. */
	{ .name = "metadata", .net = true, .never = true,
	  .tried = "reach 169.254.169.254:80 over IPv4, IPv4-mapped IPv6, UDP",
	  .expect = {
		{ VERDICT_DENY, KIND_CONNECT, "connect", "169.254.169.254:80",
		  "never *", false, 2 },
		{ VERDICT_DENY, KIND_CONNECT, "sendto", "169.254.169.254:80",
		  "never *" } } },
	/* The made-up name is denied at once by our watcher: nothing is
	 * forwarded (with root, the packet watch checks that too). */
	{ .name = "dns-exfil", .args = "n", .net = true, .dns = true,
	  .tried = "look up a made-up name: A/AAAA over UDP, TXT over TCP",
	  .expect = {
		{ VERDICT_DENY, KIND_DNS, "dns", "%n", NULL },
		{ VERDICT_DENY, KIND_DNS, "dns", "txt.%n", NULL } } },
	{ .name = "raw-socket", .net = true,
	  .tried = "open raw and packet sockets (ICMP, IPPROTO_RAW, AF_PACKET)",
	  .floor = "filter EPERM",
	  .expect = { { VERDICT_DENY, KIND_BLOCKED,
		  "socket (raw or packet)", NULL, NULL } } },
	{ .name = "udp", .args = "u", .net = true,
	  .tried = "datagrams out by sendto, sendmsg, sendmmsg, connect; "
	      "to the host's UDP port on 127.0.0.1",
	  .floor = "127.0.0.1 is the sandbox's own loopback",
	  .untrapped = "not trapped: sendmsg, sendmmsg (refused by the "
	      "kernel: the namespace has no route out)",
	  .expect = {
		{ VERDICT_DENY, KIND_CONNECT, "sendto", "192.0.2.1:%u", NULL },
		{ VERDICT_DENY, KIND_CONNECT, "connect", "192.0.2.1:%u",
		  NULL } } },
	/* Exec can only be continued: the claim is that whatever ran is in
	 * the record and met the floor. */
	{ .name = "argv-race", .args = "tcp", .net = true, .race = true,
	  .allowed = true,
	  .tried = "exec pip install wardprobe-x while a thread flips "
	      "argv[1] to list, then the path, 1 s",
	  .expect = {
		{ VERDICT_ALLOW, KIND_EXEC, "execve", "%t/" PROBE_RACE_SCRIPT,
		  NULL },
		{ VERDICT_DENY, KIND_PACKAGE, "execve", NULL, NULL },
		{ VERDICT_DENY, KIND_WRITE, NULL, "%c/raced", NULL },
		{ VERDICT_DENY, KIND_CONNECT, "connect", "192.0.2.1:%p",
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
	pid_t		 pid;
	char		*syscall, *subject, *subject2, *detail, *rule;
};

/* An exec of the race's script, seen running from outside: its pid,
 * and the path and arguments the kernel took (from /proc/PID/cmdline,
 * past the #! interpreter and its argument). */
struct probe_raced {
	pid_t		 pid;
	char		*path, *args;
};

/* What the outside saw of one run's network. */
struct probe_outside {
	unsigned	 conns;		/* the TCP listener accepted */
	unsigned	 dgrams;	/* the UDP listener received */
	unsigned	 to_out;	/* packets to 192.0.2.1 */
	unsigned	 dns_name;	/* DNS packets carrying the made-up name */
	unsigned	 exec_opens;	/* the race's script opened for exec */
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
	/* The network, sampled from outside. */
	unsigned	 host_socks;	/* supervisor sockets to 192.0.2.1/169.254/16 */
	unsigned	 sup_dns;	/* supervisor sockets to a port 53 */
	bool		 sup_seen;	/* its fd table was read */
	unsigned	 raw_socks;	/* raw/packet sockets in the sandbox */
	bool		 raw_seen;	/* the sandbox's tables were read */
	struct probe_raced *raced;
	size_t		 n_raced;
	const char	*script;	/* the race's tools/pip */
	bool		 net_shared;	/* the sandbox has the host's network */
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
	int		 ufd;		/* a UDP listener on 127.0.0.1 */
	unsigned	 uport;
	int		 pfd;		/* the packet watch (root), or -1 */
	char		*tools;		/* the race's folder: tools/pip */
	char		 label[24];	/* the made-up DNS name's first label */
	char		*dnsname;
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

/* Text with "%c", "%p", "%u", "%t" and "%n" filled in. */
static char *
probe_expand(const struct probe *p, const char *s)
{
	struct probe_buf b = { 0 };
	char port[16], uport[16];

	snprintf(port, sizeof port, "%u", p->port);
	snprintf(uport, sizeof uport, "%u", p->uport);
	for (; *s != '\0'; s++) {
		const char *v = NULL;

		if (s[0] == '%')
			switch (s[1]) {
			case 'c':
				v = p->canary;
				break;
			case 'p':
				v = port;
				break;
			case 'u':
				v = uport;
				break;
			case 't':
				v = p->tools;
				break;
			case 'n':
				v = p->dnsname;
				break;
			default:
				break;
			}
		if (v != NULL) {
			probe_buf_str(&b, v);
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

/* A process running the race's script: argv is [ward, probe-inside,
 * SCRIPT, ARG...] once the kernel took the #! line. Kept once per pid. */
static void
probe_note_raced(struct probe_run *r, pid_t pid)
{
	char path[64], buf[4096];
	struct probe_buf args = { 0 };
	const char *a[3] = { NULL, NULL, NULL }, *end;
	size_t i = 0;
	ssize_t n;
	int fd;

	for (size_t k = 0; k < r->n_raced; k++)
		if (r->raced[k].pid == pid)
			return;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	end = buf + n;
	for (const char *s = buf; s < end; s += strlen(s) + 1, i++) {
		if (i < 3)
			a[i] = s;
		else {
			if (args.len > 0)
				probe_buf_str(&args, " ");
			probe_buf_str(&args, s);
		}
	}
	if (a[2] == NULL || strcmp(a[1], "probe-inside") != 0 ||
	    strcmp(a[2], r->script) != 0) {
		free(args.p);
		return;
	}
	r->raced = xreallocarray(r->raced, r->n_raced + 1, sizeof *r->raced);
	r->raced[r->n_raced].pid = pid;
	r->raced[r->n_raced].path = xstrdup(a[2]);
	r->raced[r->n_raced].args = args.p ? args.p : xstrdup("");
	r->n_raced++;
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
		if (r->script != NULL)
			probe_note_raced(r, pid);
	}
	closedir(d);
	return tasks;
}

/* ---- the network, seen from outside ---- */

/* Is a /proc/net address ("0102A8C0:0050", or 32 hex digits for IPv6)
 * 192.0.2.1 or in 169.254.0.0/16, IPv4-mapped included? */
static bool
probe_watched_addr(const char *hex)
{
	size_t len = strcspn(hex, ":");

	if (len == 32 && strncmp(hex, "0000000000000000FFFF0000", 24) == 0)
		hex += 24;
	else if (len != 8)
		return false;
	/* Host byte order: 192.0.2.1 is 010200C0, 169.254.x.y is yyxxFEA9. */
	return strncmp(hex, "010200C0", 8) == 0 || strncmp(hex + 4, "FEA9",
	    4) == 0;
}

/* The supervisor's sockets, by inode, that point at a watched address or
 * at port 53 (*dns): it is the only one that could connect out or ask a
 * resolver for the sandbox. */
static unsigned
probe_sup_sockets(pid_t sup, unsigned *dns, bool *seen)
{
	static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6" };
	char path[64];
	unsigned long *inodes = NULL;
	size_t n_inodes = 0;
	unsigned hits = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)sup);
	if ((d = opendir(path)) == NULL)
		return 0;
	*seen = true;
	while ((e = readdir(d)) != NULL) {
		char fd[64 + 256 + 2], link[64];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
		if ((n = readlink(fd, link, sizeof link - 1)) <= 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "socket:[", 8) != 0)
			continue;
		inodes = xreallocarray(inodes, n_inodes + 1, sizeof *inodes);
		inodes[n_inodes++] = strtoul(link + 8, NULL, 10);
	}
	closedir(d);
	for (size_t t = 0; t < ARRAY_SIZE(tables) && n_inodes > 0; t++) {
		char line[512];
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)sup,
		    tables[t]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (fgets(line, sizeof line, f) != NULL) {
			char rem[64];
			unsigned long ino;
			bool ours = false;

			if (sscanf(line, "%*s %*s %63s %*s %*s %*s %*s %*s "
			    "%*s %lu", rem, &ino) != 2)
				continue;
			for (size_t i = 0; i < n_inodes && !ours; i++)
				ours = inodes[i] == ino && ino != 0;
			if (!ours)
				continue;
			if (probe_watched_addr(rem))
				hits++;
			else if (strlen(rem) > 5 && strcmp(rem + strlen(rem) -
			    5, ":0035") == 0)
				(*dns)++;
		}
		fclose(f);
	}
	free(inodes);
	return hits;
}

/* Raw and packet sockets in the sandbox's own network namespace, from
 * its tables (-1: not readable). */
static int
probe_sandbox_raw(pid_t init)
{
	static const char *const tables[] = { "raw", "raw6", "packet" };
	int n = 0;
	bool read_any = false;

	for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
		char path[64], line[512];
		FILE *f;
		bool header = true;

		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)init,
		    tables[t]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		read_any = true;
		while (fgets(line, sizeof line, f) != NULL) {
			if (!header)
				n++;
			header = false;
		}
		fclose(f);
	}
	return read_any ? n : -1;
}

static void
probe_sample_net(struct probe_run *r)
{
	char own[64], ns[64];
	unsigned dns = 0;
	int raw;

	r->host_socks += probe_sup_sockets(r->pid, &dns, &r->sup_seen);
	r->sup_dns += dns;
	if (r->init == 0)
		return;
	if (probe_nslink(getpid(), "net", own, sizeof own) == 0 &&
	    probe_nslink(r->init, "net", ns, sizeof ns) == 0 &&
	    strcmp(own, ns) == 0) {
		/* Its tables are ours: nothing to tell apart there. */
		r->net_shared = true;
		return;
	}
	if ((raw = probe_sandbox_raw(r->init)) >= 0) {
		r->raw_seen = true;
		if ((unsigned)raw > r->raw_socks)
			r->raw_socks = (unsigned)raw;
	}
}

static void
probe_sample(const struct probe *p, struct probe_run *r)
{
	uint64_t rss, cap, slack;
	unsigned tasks;

	if (r->init == 0 && r->id[0] != '\0')
		probe_find_init(r);
	if (r->def->net && r->id[0] != '\0')
		probe_sample_net(r);
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
	char port[16], uport[16];
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, e;
	pid_t parent = getpid();

	snprintf(port, sizeof port, "%u", p->port);
	snprintf(uport, sizeof uport, "%u", p->uport);
	strv_push(&args, &n, xstrdup(p->self));
	strv_push(&args, &n, xstrdup("run"));
	strv_push(&args, &n, xstrdup("--headless"));
	strv_push(&args, &n, xstrdup("--policy"));
	strv_push(&args, &n, xstrdup(policy));
	strv_push(&args, &n, xstrdup("--in"));
	strv_push(&args, &n, xstrdup(p->bindir));
	strv_push(&args, &n, xstrdup("--in"));
	strv_push(&args, &n, xstrdup(p->canary));
	if (d->race) {
		strv_push(&args, &n, xstrdup("--in"));
		strv_push(&args, &n, xstrdup(p->tools));
	}
	strv_push(&args, &n, xstrdup("--"));
	strv_push(&args, &n, xstrdup(p->exe));
	strv_push(&args, &n, xstrdup("probe-inside"));
	strv_push(&args, &n, xstrdup(d->name));
	for (const char *a = d->args ? d->args : ""; *a != '\0'; a++)
		strv_push(&args, &n, xstrdup(*a == 'c' ? p->canary :
		    *a == 'p' ? port : *a == 'u' ? uport : *a == 't' ?
		    p->tools : *a == 'n' ? p->dnsname : p->secret_path));

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
	e->pid = row->ev.pid;
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
	for (size_t i = 0; i < r->n_raced; i++) {
		free(r->raced[i].path);
		free(r->raced[i].args);
	}
	free(r->raced);
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
	if (x->rule != NULL) {
		size_t n = strlen(x->rule);

		if (n > 0 && x->rule[n - 1] == '*' ? e->rule == NULL ||
		    strncmp(e->rule, x->rule, n - 1) != 0 :
		    !probe_streq(e->rule, x->rule))
			return false;
	}
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
			size_t tl = (size_t)(l + len - last);

			/* An errno name, a resolver's (EAI_NONAME) or a DNS
			 * answer's. */
			if (last > l && tl < 24 && ((last[0] == 'E' &&
			    tl == strspn(last,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")) ||
			    (tl == 8 && strncmp(last, "NXDOMAIN", 8) == 0) ||
			    (tl == 8 && strncmp(last, "SERVFAIL", 8) == 0) ||
			    (tl == 7 && strncmp(last, "REFUSED", 7) == 0))) {
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
	/* An install refused again at once says so in its rule. */
	if (e->kind == KIND_PACKAGE && e->how == HOW_RUN_RULE &&
	    e->rule != NULL)
		return e->rule;
	switch (e->how) {
	case HOW_PERSON:
		return "person/deny";
	case HOW_POLICY:
		/* The network's rules say which: "never 169.254.0.0/16". */
		if ((e->kind == KIND_CONNECT || e->kind == KIND_DNS) &&
		    e->rule != NULL)
			return e->rule;
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

/*
 * The race: every exec of the script that ran, seen from outside, must be
 * in the record by its pid (an exec, or an install let through). What
 * the record shows of its argv may differ from what ran: exec can only
 * be continued, and the floor is what holds for what runs.
 */
static void
probe_judge_race(const struct probe_run *r, const struct probe_outside *o,
    struct probe_buf *record, struct probe_result *res, unsigned *missing,
    unsigned *errors)
{
	const struct probe_raced *unrec = NULL, *other = NULL;
	const struct probe_event *other_ev = NULL;
	size_t n_unrec = 0, n_other = 0;
	cleanup_free char *item = NULL;

	for (size_t i = 0; i < r->n_raced; i++) {
		const struct probe_raced *rc = &r->raced[i];
		const struct probe_event *ev = NULL;
		const char *rargs;

		for (size_t j = 0; j < r->n_events && ev == NULL; j++) {
			const struct probe_event *e = &r->events[j];

			if (e->pid == rc->pid && (e->kind == KIND_EXEC ||
			    (e->kind == KIND_PACKAGE &&
			    e->verdict == VERDICT_ALLOW)))
				ev = e;
		}
		if (ev == NULL) {
			if (n_unrec++ == 0)
				unrec = rc;
			continue;
		}
		/* The record's argv, past argv[0] (the kernel's is gone:
		 * the #! line replaced it). */
		rargs = ev->detail ? strchr(ev->detail, ' ') : NULL;
		rargs = rargs ? rargs + 1 : "";
		if (!probe_streq(ev->subject, rc->path) ||
		    strcmp(rargs, rc->args) != 0) {
			if (n_other++ == 0) {
				other = rc;
				other_ev = ev;
			}
		}
	}
	item = xasprintf("%zu exec%s of the script ran (seen from outside; "
	    "%u by inotify), %zu in the record by pid", r->n_raced,
	    r->n_raced == 1 ? "" : "s", o->exec_opens, r->n_raced - n_unrec);
	probe_buf_str(record, item);
	if (other != NULL) {
		cleanup_free char *ra = escape_str(other->args);
		cleanup_free char *rd = escape_str(other_ev->detail ?
		    other_ev->detail : "?");
		cleanup_free char *t = xasprintf(", %zu of them ran another "
		    "argv or path than recorded (ran \"pip %s\", recorded "
		    "\"%s\"): exec is continued by design", n_other, ra, rd);

		probe_buf_str(record, t);
	}
	if (unrec != NULL) {
		cleanup_free char *ep = escape_str(unrec->path);
		cleanup_free char *ea = escape_str(unrec->args);

		probe_problem(res, xasprintf("not in the record: %zu of %zu "
		    "execs that ran (seen from outside), e.g. pid %d ran %s %s",
		    n_unrec, r->n_raced, (int)unrec->pid, ep, ea));
		(*missing)++;
	}
	if (o->exec_opens > r->n_raced) {
		probe_problem(res, xasprintf("error: %u execs of the script "
		    "began (inotify) but %zu were seen running: the rest "
		    "cannot be judged", o->exec_opens, r->n_raced));
		(*errors)++;
	}
}

/* What the outside saw of the network, and what it means. */
static void
probe_judge_net(const struct probe *p, const struct probe_run *r,
    const struct probe_outside *o, struct probe_buf *outside,
    struct probe_result *res, unsigned *escapes, unsigned *missing)
{
	const struct probe_def *d = r->def;

	if (o->dgrams > 0) {
		probe_problem(res, xasprintf("escaped: the host's UDP listener "
		    "received %u datagram(s)", o->dgrams));
		(*escapes)++;
	}
	if (o->to_out > 0) {
		probe_problem(res, xasprintf("escaped: %u packet(s) to "
		    "192.0.2.1 left this host (packet watch)", o->to_out));
		(*escapes)++;
	}
	if (o->dns_name > 0) {
		probe_problem(res, xasprintf("escaped: %u DNS packet(s) "
		    "carrying the made-up name left this host (packet watch)",
		    o->dns_name));
		(*escapes)++;
	}
	if (r->host_socks > 0) {
		probe_problem(res, xstrdup("escaped: the supervisor held a "
		    "socket to 192.0.2.1 or 169.254.0.0/16"));
		(*escapes)++;
	}
	if (d->dns && r->sup_dns > 0) {
		probe_problem(res, xstrdup("escaped: the supervisor held a "
		    "socket to a DNS server: the name was forwarded"));
		(*escapes)++;
	}
	if (r->net_shared) {
		probe_problem(res, xstrdup("escaped: the sandbox is in the "
		    "host's network namespace"));
		(*escapes)++;
	}
	if (r->raw_socks > 0) {
		probe_problem(res, xasprintf("escaped: %u raw or packet "
		    "socket(s) open in the sandbox's namespace", r->raw_socks));
		(*escapes)++;
	}
	if (d->never && r->requests > 0) {
		probe_problem(res, xasprintf("asked a person %u time(s): a "
		    "never-listed destination must be refused at once",
		    r->requests));
		(*missing)++;
	}
	probe_list_add(outside, "listeners empty", ", ");
	if (p->pfd >= 0) {
		probe_list_add(outside, "no packet to 192.0.2.1", ", ");
		if (d->dns)
			probe_list_add(outside, "no DNS packet with the name",
			    ", ");
	}
	if (r->sup_seen)
		probe_list_add(outside, "no supervisor socket out", ", ");
	if (d->proof == PROOF_OUTPUT && r->raw_seen)
		probe_list_add(outside, "no raw socket in the sandbox", ", ");
	if (p->pfd < 0)
		probe_list_add(outside, "no packet watch (needs root)", ", ");
}

static void
probe_judge(const struct probe *p, const struct probe_run *r,
    const char *before, const char *after, const struct probe_outside *o,
    struct probe_result *res)
{
	const struct probe_def *d = r->def;
	struct probe_buf stopped = { 0 }, record = { 0 }, errnos = { 0 };
	struct probe_buf outside = { 0 };
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
	if (o->conns > 0) {
		probe_problem(res, xasprintf("escaped: the host listener "
		    "accepted %u connection(s)", o->conns));
		escapes++;
	}
	if (d->net)
		probe_judge_net(p, r, o, &outside, res, &escapes, &missing);
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

		if (d->race)
			probe_judge_race(r, o, &record, res, &missing, &errors);
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
				es = escape_str(e->kind == KIND_CONNECT ||
				    e->kind == KIND_DNS ?
				    (e->subject ? e->subject : "?") :
				    (e->syscall ? e->syscall : "?"));
				if (e->kind == KIND_CONNECT ||
				    e->kind == KIND_DNS) {
					cleanup_free char *sc = escape_str(
					    e->syscall ? e->syscall : "?");

					item = xasprintf("%s %s %s/%s", sc, es,
					    verdict_name(e->verdict),
					    how_name(e->how));
				} else if (e->kind == KIND_PACKAGE)
					item = xasprintf("package %s %s/%s", es,
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
				case KIND_PACKAGE: {
					cleanup_free char *hw = escape_str(
					    probe_how_words(e));
					cleanup_free char *w = xasprintf("%s%s",
					    hw, e->kind == KIND_DNS ?
					    " for the names" : e->how ==
					    HOW_RUN_RULE ? "" :
					    " for the install");

					probe_list_add(&how, w, " + ");
					break;
				}
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
			} else if (n < x->count) {
				cleanup_free char *sub = x->subject ?
				    probe_expand(p, x->subject) : NULL;
				cleanup_free char *es = sub ? escape_str(sub) :
				    NULL;

				probe_problem(res, xasprintf("not in the record: "
				    "%u of %u %s %s %s %s", x->count - n,
				    x->count, request_kind_name(x->kind),
				    x->syscall ? x->syscall : "",
				    es ? es : "", verdict_name(x->verdict)));
				missing++;
			}
		}
		if (d->untrapped != NULL)
			probe_list_add(&record, d->untrapped, ", ");
		if (how.p != NULL)
			probe_buf_str(&stopped, how.p);
		free(how.p);
		if (r->requests > 0) {
			cleanup_free char *asked = xasprintf("%u request%s "
			    "denied at once", r->requests,
			    r->requests == 1 ? "" : "s");

			probe_list_add(&record, asked, ", ");
		} else if (d->never)
			probe_list_add(&record, "nobody asked", ", ");
		break;
	}
	case PROOF_OUTPUT: {
		cleanup_free char *pre = xasprintf("ward-probe: %s: ", d->name);

		probe_buf_str(&stopped, d->floor);
		if (r->output != NULL && memmem(r->output, r->output_len, pre,
		    strlen(pre)) != NULL) {
			cleanup_free char *t = xasprintf("the attempts, in the "
			    "run's recorded output (%s)", d->untrapped ?
			    d->untrapped : "reads are not trapped");

			probe_buf_str(&record, t);
		}
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
	if (outside.p != NULL) {
		probe_buf_str(&stopped, "; outside: ");
		probe_buf_str(&stopped, outside.p);
	}
	free(outside.p);
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

/* ---- the outside's own watches ---- */

/*
 * With root, a packet socket on every interface of the host's namespace,
 * filtered in the kernel to IPv4 packets for 192.0.2.1 and DNS queries
 * (UDP or TCP to port 53, IPv4 or IPv6): what left the host is counted
 * from there. -1 without CAP_NET_RAW. 169.254.169.254 is left out: a
 * cloud VM's own agents talk to it.
 */
static int
probe_packet_watch(void)
{
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS,
		    (uint32_t)(SKF_AD_OFF + SKF_AD_PROTOCOL)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 8),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc0000201, 12, 0),
		/* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 1, 0),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 10),
		/* 7 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		/* 8 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 6, 7),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 6),
		/* 11 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 1, 0),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 3),
		/* 14 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 42),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 0, 1),
		/* 16 */ BPF_STMT(BPF_RET | BPF_K, 0xffff),
		/* 17 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    htons(ETH_P_ALL));

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof prog) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Does the packet carry the label, in any case? */
static bool
probe_has_label(const unsigned char *b, size_t n, const char *label)
{
	size_t l = strlen(label);

	for (size_t i = 0; i + l <= n; i++)
		if (strncasecmp((const char *)b + i, label, l) == 0)
			return true;
	return false;
}

/* What the packet watch caught since last asked (o NULL: forget it). */
static void
probe_drain_packets(const struct probe *p, struct probe_outside *o)
{
	unsigned char b[2048];

	if (p->pfd < 0)
		return;
	for (;;) {
		struct sockaddr_ll sl;
		socklen_t sl_len = sizeof sl;
		ssize_t n = recvfrom(p->pfd, b, sizeof b, 0,
		    (struct sockaddr *)&sl, &sl_len);
		uint32_t dst;

		if (n < 0)
			break;
		if (o == NULL || sl.sll_pkttype != PACKET_OUTGOING)
			continue;
		if (ntohs(sl.sll_protocol) == ETH_P_IP && n >= 20) {
			memcpy(&dst, b + 16, 4);
			if (ntohl(dst) == 0xc0000201) {
				o->to_out++;
				continue;
			}
		}
		if (probe_has_label(b, (size_t)n, p->label))
			o->dns_name++;
	}
}

/* Datagrams the host's UDP listener got since last asked. */
static unsigned
probe_drain_udp(const struct probe *p)
{
	char b[2048];
	unsigned n = 0;

	while (p->ufd >= 0 && recv(p->ufd, b, sizeof b, 0) >= 0)
		n++;
	return n;
}

/* Opens of the race's script (each exec that began opens it once).
 * Watched with its closes: inotify merges an event into an identical
 * one still queued, and the close in between keeps the opens apart. */
static unsigned
probe_count_opens(int ino)
{
	char b[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	unsigned n = 0;
	ssize_t got;

	while ((got = read(ino, b, sizeof b)) > 0)
		for (char *q = b; q < b + got;) {
			const struct inotify_event *e = (const void *)q;

			if (e->mask & IN_OPEN)
				n++;
			q += sizeof *e + e->len;
		}
	return n;
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

	/* And a UDP one: no datagram may reach it either. */
	sa.sin_port = 0;
	slen = sizeof sa;
	if ((p->ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) < 0 ||
	    bind(p->ufd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    getsockname(p->ufd, (struct sockaddr *)&sa, &slen) < 0) {
		r = -errno;
		*cause = xasprintf("udp on 127.0.0.1: %s", strerror(errno));
		return r;
	}
	p->uport = ntohs(sa.sin_port);
	p->pfd = probe_packet_watch();

	/* The name the DNS probe makes up: its first label is fresh. */
	if (getrandom(rnd, 8, 0) != 8) {
		*cause = xasprintf("getrandom: %s", strerror(errno));
		return -EIO;
	}
	snprintf(p->label, sizeof p->label, "wp");
	for (size_t i = 0; i < 8; i++)
		snprintf(p->label + 2 + 2 * i, 3, "%02x", rnd[i]);
	p->dnsname = xasprintf("%s.exfil.invalid", p->label);

	/* The race's pip: a script whose #! line runs this binary. */
	p->tools = xasprintf("%s/tools", p->dir);
	{
		cleanup_free char *script = xasprintf("%s/%s", p->tools,
		    PROBE_RACE_SCRIPT);
		cleanup_free char *line = xasprintf("#!%s probe-inside\n",
		    p->exe);
		cleanup_fd int sfd = -1;

		if (strlen(line) > 250) {
			*cause = xasprintf("%s: too long a path for a #! line",
			    p->exe);
			return -ENAMETOOLONG;
		}
		if (mkdir(p->tools, 0755) < 0 || chmod(p->tools, 0755) < 0 ||
		    (sfd = open(script, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0755)) < 0 ||
		    write_all(sfd, line, strlen(line)) < 0 ||
		    fchmod(sfd, 0755) < 0) {
			r = -errno;
			*cause = xasprintf("%s: %s", script, strerror(errno));
			return r;
		}
	}
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
	closep(&p->ufd);
	closep(&p->pfd);
	free(p->tools);
	free(p->dnsname);
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
	cleanup_free char *script = NULL;
	cleanup_fd int ino = -1;
	struct probe_outside o = { 0 };
	int out_fd = -1, err_fd = -1, rc;

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
	(void)probe_drain_udp(p);
	probe_drain_packets(p, NULL);
	if (d->race) {
		script = xasprintf("%s/%s", p->tools, PROBE_RACE_SCRIPT);
		if ((ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0 ||
		    inotify_add_watch(ino, script, IN_OPEN |
		    IN_CLOSE_NOWRITE) < 0) {
			rc = -errno;
			*cause = xasprintf("inotify on %s: %s", script,
			    strerror(errno));
			return rc;
		}
		r.script = script;
	}
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
	o.conns = probe_accept_all(p);
	o.dgrams = probe_drain_udp(p);
	probe_drain_packets(p, &o);
	if (ino >= 0)
		o.exec_opens = probe_count_opens(ino);
	if ((rc = probe_read_record(&r, cause)) < 0) {
		probe_run_done(&r);
		return rc;
	}
	probe_judge(p, &r, before, after, &o, res);
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
	    "environment, TCP and UDP listeners on 127.0.0.1, the supervisor\n"
	    "and its sockets, the sandbox's processes and sockets, the execs\n"
	    "the argv race got to run, with root a packet watch on the host's\n"
	    "interfaces, and the record. The network probes reach only\n"
	    "127.0.0.1, 192.0.2.1 and 169.254.169.254 (both refused before any\n"
	    "packet) and a made-up name under .invalid. Prints one line per\n"
	    "probe, then \"N blocked and logged, M escaped\".\n"
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

	p->lfd = p->ufd = p->pfd = -1;
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
