/* SPDX-License-Identifier: MIT */
/*
 * The battery's setup and teardown, and the policy copy each probe runs
 * under: the base policy with its [run] limits set for the probe.
 */
#include "probe/setup.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/paths.h"
#include "config/util.h"
#include "probe/common.h"
#include "probe/probe.h"
#include "probe/watch.h"

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
const char *
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

int
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
	if (d->writable) {
		char *t = xasprintf("%s\n[files]\nwritable = %s\n", text,
		    p->wr);

		free(text);
		text = t;
	}
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


static int
probe_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	(void)remove(path);
	return 0;
}

void
probe_remove_tree(const char *dir)
{
	nftw(dir, probe_rm, 16, FTW_DEPTH | FTW_PHYS);
}

int
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

int
probe_make_wr(struct probe *p, char **cause)
{
	static const char text[] = "target: no deny's reason may land "
	    "here\n";
	cleanup_free char *file = xasprintf("%s/target", p->wr);
	cleanup_fd int fd = -1;
	int e;

	if (mkdir(p->wr, 0711) < 0 && errno != EEXIST)
		goto fail;
	if (chmod(p->wr, 0711) < 0)
		goto fail;
	if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0 || write_all(fd, text, sizeof text - 1) < 0 ||
	    fchmod(fd, 0600) < 0)
		goto fail;
	return 0;
fail:
	e = errno;
	*cause = xasprintf("writable folder %s: %s", p->wr, strerror(e));
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

/* The policy, as `ward run` would take it. */
static int
probe_setup_policy(struct probe *p, const char *policy_arg, char **cause)
{
	cleanup_free char *given = NULL;
	size_t len = 0;
	int r;

	given = policy_arg ? xstrdup(policy_arg) :
	    paths_default_policy(p->argv0);
	if ((p->policy_path = realpath(given, NULL)) == NULL) {
		r = -errno;
		*cause = xasprintf("%s: %s", given, strerror(errno));
		return r;
	}
	/* policy_load's bound: 1 MiB. */
	if ((r = read_file_max(p->policy_path, 1u << 20, &p->policy_text,
	    &len, cause)) < 0)
		return r;
	return policy_load_string(&p->policy, p->policy_text, p->policy_path,
	    cause);
}

/* The temp folder and the canary in it. */
static int
probe_setup_dir(struct probe *p, char **cause)
{
	cleanup_free char *canary = NULL;
	const char *base;
	int r;

	/* Beneath /var/tmp, which the sandbox sees read-only and Landlock
	 * does not open for writing (unlike /tmp). */
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
	p->wr = xasprintf("%s/wr", p->dir);
	return probe_make_wr(p, cause);
}

/* The secret: a file in the real home (*home) and a variable of ours. */
static int
probe_setup_secret(struct probe *p, char **home, char **cause)
{
	const char *h = getenv("HOME");
	unsigned char rnd[16];
	int fd, r;

	if (h == NULL || *h == '\0') {
		struct passwd *pw = getpwuid(getuid());

		h = pw ? pw->pw_dir : NULL;
	}
	if (h == NULL || (*home = realpath(h, NULL)) == NULL) {
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
	p->secret_path = xasprintf("%s/.ward-probe-secret-XXXXXX", *home);
	if ((fd = mkostemp(p->secret_path, O_CLOEXEC)) < 0) {
		r = -errno;
		*cause = xasprintf("plant the secret in %s: %s", *home,
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
	return 0;
}

/* The key: the same token in ~/.ssh (made for it, 0700, when there is
 * none), which --in ~ must not show. */
static int
probe_setup_store(struct probe *p, const char *home, char **cause)
{
	cleanup_free char *ssh = xasprintf("%s/.ssh", home);
	int fd, r;

	p->home = xstrdup(home);
	if (mkdir(ssh, 0700) == 0)
		p->made_ssh = true;
	else if (errno != EEXIST) {
		r = -errno;
		*cause = xasprintf("mkdir %s: %s", ssh, strerror(errno));
		return r;
	}
	p->store_key = xasprintf("%s/ward-probe-key-XXXXXX", ssh);
	if ((fd = mkostemp(p->store_key, O_CLOEXEC)) < 0) {
		r = -errno;
		*cause = xasprintf("plant the key in %s: %s", ssh,
		    strerror(errno));
		free(p->store_key);
		p->store_key = NULL;
		return r;
	}
	r = write_all(fd, p->token, strlen(p->token));
	close(fd);
	if (r < 0)
		*cause = xasprintf("write %s: %s", p->store_key, strerror(-r));
	return r;
}

/* The program: this binary, shown read-only at its own path. Should that
 * folder hold the home (and so the secret), a copy instead. */
static int
probe_setup_exe(struct probe *p, const char *home, char **cause)
{
	cleanup_fd int in = -1, out = -1;
	char chunk[65536];
	ssize_t got;
	int r;

	p->bindir = xstrdup(p->self);
	*strrchr(p->bindir, '/') = '\0';
	if (p->bindir[0] == '\0') {
		free(p->bindir);
		p->bindir = xstrdup("/");
	}
	if (!probe_under(home, p->bindir)) {
		p->exe = xstrdup(p->self);
		return 0;
	}
	in = open(p->self, O_RDONLY | O_CLOEXEC);
	free(p->bindir);
	p->bindir = xasprintf("%s/bin", p->dir);
	p->exe = xasprintf("%s/ward", p->bindir);
	if (mkdir(p->bindir, 0755) < 0 || chmod(p->bindir, 0755) < 0 ||
	    in < 0 || (out = open(p->exe, O_WRONLY | O_CREAT | O_CLOEXEC,
	    0755)) < 0) {
		r = -errno;
		*cause = xasprintf("copy ward to %s: %s", p->exe,
		    strerror(errno));
		return r;
	}
	while ((got = read(in, chunk, sizeof chunk)) > 0)
		if (write_all(out, chunk, (size_t)got) < 0)
			break;
	fchmod(out, 0755);
	return 0;
}

/* Listeners on the host's loopback, TCP and UDP: nothing may reach them. */
static int
probe_setup_listeners(struct probe *p, char **cause)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t slen = sizeof sa;
	int r;

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
	return 0;
}

/* The race's pip: a script whose #! line runs this binary. */
static int
probe_setup_tools(struct probe *p, char **cause)
{
	cleanup_free char *script = NULL, *line = NULL;
	cleanup_fd int sfd = -1;
	int r;

	p->tools = xasprintf("%s/tools", p->dir);
	script = xasprintf("%s/%s", p->tools, PROBE_RACE_SCRIPT);
	line = xasprintf("#!%s probe-inside\n", p->exe);
	if (strlen(line) > 250) {
		*cause = xasprintf("%s: too long a path for a #! line", p->exe);
		return -ENAMETOOLONG;
	}
	if (mkdir(p->tools, 0755) < 0 || chmod(p->tools, 0755) < 0 ||
	    (sfd = open(script, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0755)) < 0 || write_all(sfd, line, strlen(line)) < 0 ||
	    fchmod(sfd, 0755) < 0) {
		r = -errno;
		*cause = xasprintf("%s: %s", script, strerror(errno));
		return r;
	}
	return 0;
}

int
probe_setup(struct probe *p, const char *policy_arg, char **cause)
{
	cleanup_free char *home = NULL;
	unsigned char rnd[8];
	int r;

	p->results = xcalloc(probe_n_defs, sizeof *p->results);
	if ((p->self = paths_self_exe()) == NULL) {
		r = -errno;
		*cause = xasprintf("/proc/self/exe: %s", strerror(errno));
		return r;
	}
	if ((r = probe_setup_policy(p, policy_arg, cause)) < 0 ||
	    (r = probe_setup_dir(p, cause)) < 0 ||
	    (r = probe_setup_secret(p, &home, cause)) < 0 ||
	    (r = probe_setup_store(p, home, cause)) < 0 ||
	    (r = probe_setup_exe(p, home, cause)) < 0 ||
	    (r = probe_setup_listeners(p, cause)) < 0)
		return r;

	/* The name the DNS probe makes up: its first label is fresh. */
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd) {
		*cause = xasprintf("getrandom: %s", strerror(errno));
		return -EIO;
	}
	snprintf(p->label, sizeof p->label, "wp");
	for (size_t i = 0; i < sizeof rnd; i++)
		snprintf(p->label + 2 + 2 * i, 3, "%02x", rnd[i]);
	p->dnsname = xasprintf("%s.exfil.invalid", p->label);

	if ((r = probe_setup_tools(p, cause)) < 0)
		return r;
	p->int80 = probe_host_int80();
	return 0;
}

void
probe_teardown(struct probe *p)
{
	if (p->secret_var != NULL)
		unsetenv(p->secret_var);
	if (!p->keep) {
		if (p->secret_path != NULL)
			unlink(p->secret_path);
		if (p->store_key != NULL)
			unlink(p->store_key);
		if (p->made_ssh) {
			cleanup_free char *ssh = xasprintf("%s/.ssh", p->home);

			rmdir(ssh);
		}
		if (p->dir != NULL)
			probe_remove_tree(p->dir);
	} else if (p->dir != NULL)
		fprintf(stderr, "ward probe: kept %s and %s\n", p->dir,
		    p->secret_path ? p->secret_path : "(no secret)");
	closep(&p->lfd);
	closep(&p->ufd);
	closep(&p->pfd);
	free(p->tools);
	free(p->dnsname);
	for (size_t i = 0; i < p->n_results; i++)
		probe_result_done(&p->results[i]);
	free(p->results);
	free(p->self);
	free(p->exe);
	free(p->bindir);
	free(p->dir);
	free(p->canary);
	free(p->wr);
	free(p->secret_path);
	free(p->secret_var);
	free(p->home);
	free(p->store_key);
	free(p->policy_path);
	free(p->policy_text);
	policy_done(&p->policy);
}

struct probe_env
probe_env_of(const struct probe *p)
{
	return (struct probe_env){
		.canary = p->canary, .tools = p->tools, .dnsname = p->dnsname,
		.port = p->port, .uport = p->uport, .token = p->token,
		.pids = p->policy.pids, .int80 = p->int80,
		.packet_watch = p->pfd >= 0,
	};
}

void
probe_keep_file(const struct probe *p, const char *name, const char *ext,
    const struct probe_buf *b)
{
	cleanup_free char *path = xasprintf("%s/%s.%s", p->dir, name, ext);
	cleanup_fd int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);

	if (fd >= 0 && b->p != NULL)
		(void)write_all(fd, b->p, b->len);
}
