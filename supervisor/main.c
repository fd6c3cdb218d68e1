/*
 * ward-supervisor: runs and polices one run, headless, and speaks the
 * control protocol. Started by `ward run`; see ward(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/decide.h"
#include "config/paths.h"
#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/dns.h"
#include "supervisor/sup.h"

/* When ward runs as root, the program runs as this unprivileged id, in
 * its user namespace and on the host alike. */
#define ROOT_INNER_ID	1000000

static struct sup S;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_msgv(fmt, ap);
	va_end(ap);
	if (S.sp.init_pid > 0)
		kill(S.sp.init_pid, SIGKILL);
	if (S.ctl_path != NULL)
		unlink(S.ctl_path);
	exit(125);
}

static void
usage(FILE *f)
{
	fputs("usage: ward-supervisor [--headless] [--policy FILE] "
	    "[--name NAME] [--in PATH]...\n"
	    "                       [--timeout SECONDS] [--ready-fd FD] "
	    "[--no-landlock] -- CMD [ARG...]\n"
	    "Runs and polices one sandboxed run; normally started by "
	    "`ward run` (see ward(1)).\n", f);
}

void
sup_event(struct sup *s, const struct audit_event *ev)
{
	json_t *m, *e;

	audit_event(s->audit, ev);
	s->dirty = true;
	/* A request's answer reaches consoles as "resolved"; "event" is
	 * for what was decided without asking. */
	if (ev->request_id != 0)
		return;
	m = proto_msg("event");
	e = json_object();
	json_object_set_new(e, "kind", json_string(request_kind_name(ev->kind)));
	json_object_set_new(e, "syscall", ev->syscall ?
	    json_string(ev->syscall) : json_null());
	json_object_set_new(e, "subject", json_string(ev->subject ?
	    ev->subject : ""));
	json_object_set_new(e, "subject2", ev->subject2 ?
	    json_string(ev->subject2) : json_null());
	json_object_set_new(e, "detail", ev->detail ? json_string(ev->detail) :
	    json_null());
	json_object_set_new(e, "verdict", json_string(verdict_name(ev->verdict)));
	json_object_set_new(e, "how", json_string(how_name(ev->how)));
	json_object_set_new(e, "rule", ev->rule ? json_string(ev->rule) :
	    json_null());
	json_object_set_new(e, "by", ev->decided_by ?
	    json_string(ev->decided_by) : json_null());
	json_object_set_new(e, "pid", json_integer(ev->pid));
	json_object_set_new(e, "time_ms", json_integer(ev->time_ms));
	json_object_set_new(e, "request", json_integer((json_int_t)ev->request_id));
	json_object_set_new(m, "event", e);
	control_broadcast(s, m);
}

void
sup_kill(struct sup *s, const char *reason)
{
	if (s->state == RUN_EXITED || s->end_reason != NULL)
		return;
	s->end_reason = reason;
	/* The init is pid 1 of the sandbox: with it, everything inside
	 * dies, whatever it forked or detached. */
	if (s->sp.init_pid > 0)
		kill(s->sp.init_pid, SIGKILL);
}

static void
size_text(char *buf, size_t size, uint64_t n)
{
	if (n == 0)
		snprintf(buf, size, "none");
	else if (n % (1ULL << 30) == 0)
		snprintf(buf, size, "%lluG", (unsigned long long)(n >> 30));
	else if (n % (1ULL << 20) == 0)
		snprintf(buf, size, "%lluM", (unsigned long long)(n >> 20));
	else
		snprintf(buf, size, "%llu", (unsigned long long)n);
}

/* The limits in force, as the console and `ward log` show them. */
void
sup_limits(const struct sup *s, char *buf, size_t size)
{
	char mem[32], fsz[32], t[32], cpu[32], nof[32];

	size_text(mem, sizeof mem, s->policy.memory);
	size_text(fsz, sizeof fsz, s->policy.file_size);
	snprintf(t, sizeof t, s->policy.timeout ? "%us" : "none",
	    s->policy.timeout);
	snprintf(cpu, sizeof cpu, s->policy.cpu ? "%us" : "none",
	    s->policy.cpu);
	snprintf(nof, sizeof nof, s->policy.open_files ? "%u" : "host",
	    s->policy.open_files);
	snprintf(buf, size, "timeout=%s memory=%s pids=%u cpu=%s file_size=%s "
	    "open_files=%s (rlimits) %s", t, mem, s->policy.pids, cpu, fsz,
	    nof, s->landlock ? "landlock" : "NO-LANDLOCK");
}

/*
 * When ward runs as root the program's uid (ROOT_INNER_ID) is nobody in
 * the host's /etc/passwd: `id -un`, `whoami`, git, ssh and Python's
 * pwd-based home lookup all stumble. The run gets copies of passwd and
 * group that name it.
 */
static void
ids_files(struct sup *s, struct spawn_config *cfg)
{
	static const char *const files[2][2] = {
		{ "/etc/passwd", "passwd" }, { "/etc/group", "group" },
	};
	char name[64];

	if (s->uid != 0 || passwd_file_name("/etc/passwd", s->inner_uid, name,
	    sizeof name) != -ENOENT)
		return;
	for (int i = 0; i < 2; i++) {
		cleanup_free char *dest = xasprintf("%s/%s", s->run_dir,
		    files[i][1]);
		FILE *in = fopen(files[i][0], "re"), *out = fopen(dest, "we");
		char buf[8192];
		size_t n;

		if (out == NULL)
			die("write %s: %s", dest, strerror(errno));
		while (in != NULL && (n = fread(buf, 1, sizeof buf, in)) > 0)
			fwrite(buf, 1, n, out);
		if (i == 0)
			fprintf(out, "ward:x:%u:%u:ward sandbox:/work:/bin/sh\n",
			    (unsigned)s->inner_uid, (unsigned)s->inner_gid);
		else
			fprintf(out, "ward:x:%u:\n", (unsigned)s->inner_gid);
		if (in != NULL)
			fclose(in);
		if (fclose(out) != 0)
			die("write %s: %s", dest, strerror(errno));
		if (i == 0)
			cfg->passwd = s->passwd = steal_ptr(&dest);
		else
			cfg->group = s->group = steal_ptr(&dest);
	}
}

static void
make_run_id(char id[9])
{
	unsigned char b[4];

	if (getrandom(b, sizeof b, 0) != sizeof b)
		fatal("getrandom: %s", strerror(errno));
	snprintf(id, 9, "%02x%02x%02x%02x", b[0], b[1], b[2], b[3]);
}

static char *
join_argv(char *const *argv)
{
	size_t n = 1;
	char *s;

	for (size_t i = 0; argv[i] != NULL; i++)
		n += strlen(argv[i]) + 1;
	s = xmalloc(n);
	s[0] = '\0';
	for (size_t i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static void
add_bind(struct sup *s, const char *host, const char *inside, bool writable)
{
	struct stat st;
	char *real;

	if ((real = realpath(host, NULL)) == NULL)
		die("%s: %s", host, strerror(errno));
	if (stat(real, &st) < 0)
		die("%s: %s", real, strerror(errno));
	s->binds = xreallocarray(s->binds, s->n_binds + 1, sizeof *s->binds);
	s->binds[s->n_binds++] = (struct bind){
		.host = real,
		.inside = xstrdup(inside ? inside : real),
		.writable = writable,
		.is_dir = S_ISDIR(st.st_mode),
	};
}

static char **
make_env(bool pty)
{
	char **env = NULL;
	size_t n = 0;
	const char *term = getenv("TERM"), *lang = getenv("LANG");

	strv_push(&env, &n, xstrdup("HOME=/work"));
	strv_push(&env, &n, xstrdup("PWD=/work"));
	strv_push(&env, &n, xstrdup("TMPDIR=/tmp"));
	strv_push(&env, &n, xstrdup("USER=ward"));
	strv_push(&env, &n, xstrdup("LOGNAME=ward"));
	strv_push(&env, &n, xstrdup("PATH=/usr/local/sbin:/usr/local/bin:"
	    "/usr/sbin:/usr/bin:/sbin:/bin:/work/.local/bin:"
	    "/work/.npm-global/bin"));
	/* Installs land in the run (DESIGN §6): user prefixes and caches
	 * under /work, whatever the manager's default. */
	strv_push(&env, &n, xstrdup("XDG_CACHE_HOME=/work/.cache"));
	strv_push(&env, &n, xstrdup("PYTHONUSERBASE=/work/.local"));
	strv_push(&env, &n, xstrdup("NPM_CONFIG_PREFIX=/work/.npm-global"));
	strv_push(&env, &n, xstrdup("NPM_CONFIG_CACHE=/work/.npm"));
	strv_push(&env, &n, xstrdup("GEM_HOME=/work/.gem"));
	strv_push(&env, &n, xstrdup("CARGO_HOME=/work/.cargo"));
	strv_push(&env, &n, xstrdup("GOPATH=/work/go"));
	strv_push(&env, &n, xasprintf("TERM=%s", term && *term ? term :
	    pty ? "xterm-256color" : "dumb"));
	strv_push(&env, &n, xasprintf("LANG=%s", lang && *lang ? lang :
	    "C.UTF-8"));
	strv_push(&env, &n, xasprintf("WARD_RUN=%s", S.id));
	/* Nothing else of the host's environment, but what the policy
	 * names (credentials enter only this way). */
	for (size_t i = 0; i < S.policy.n_env; i++) {
		const char *v = getenv(S.policy.env[i]);

		if (v != NULL)
			strv_push(&env, &n, xasprintf("%s=%s", S.policy.env[i], v));
	}
	return env;
}

static void
open_pty(int *master, int *slave)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	char *name;

	if ((*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    grantpt(*master) < 0 || unlockpt(*master) < 0 ||
	    (name = ptsname(*master)) == NULL)
		die("pty: %s", strerror(errno));
	if ((*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		die("open %s: %s", name, strerror(errno));
	ioctl(*slave, TIOCSWINSZ, &ws);
	fcntl(*master, F_SETFL, fcntl(*master, F_GETFL) | O_NONBLOCK);
}

static void
record_run_event(struct sup *s, const char *what, enum verdict v,
    enum how how, const char *by, const char *detail)
{
	struct audit_event ev = {
		.run = s->id, .time_ms = now_wall_ms(), .pid = s->sp.init_pid,
		.kind = KIND_RUN, .subject = what, .detail = detail,
		.verdict = v, .how = how, .decided_by = by,
	};

	sup_event(s, &ev);
}

/* Read the program's output; false at EOF. */
static bool
pump(struct sup *s, int fd, const char *stream, enum audit_stream as,
    int host_fd)
{
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof buf);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;	/* EOF, or EIO once every pty slave is closed */
	if (host_fd >= 0)
		(void)write_all(host_fd, buf, (size_t)n);
	audit_output(s->audit, s->id, as, now_wall_ms(), buf, (size_t)n);
	control_output(s, stream, buf, (size_t)n);
	return true;
}

static void
finish(struct sup *s, int status, bool have_status)
{
	char detail[96];

	s->state = RUN_EXITED;
	s->ended_ms = now_wall_ms();
	s->exit_signal = 0;
	if (s->end_reason != NULL && strcmp(s->end_reason, "timeout") == 0) {
		s->exit_code = 124;
	} else if (s->end_reason != NULL) {
		s->exit_code = 128 + SIGKILL;
		s->exit_signal = SIGKILL;
	} else if (have_status && WIFEXITED(status)) {
		s->exit_code = WEXITSTATUS(status);
		s->end_reason = "exit";
	} else if (have_status && WIFSIGNALED(status)) {
		s->exit_signal = WTERMSIG(status);
		s->exit_code = 128 + s->exit_signal;
		s->end_reason = "signal";
	} else {
		s->exit_code = 125;
		s->end_reason = "lost";
	}
	/* Whatever still waits gets no answer from anybody now. */
	while (queue_len(s->queue) > 0)
		unotify_resolve(s, queue_at(s->queue, 0)->id, VERDICT_DENY,
		    HOW_SUPERVISOR, "run ended", NULL);
	snprintf(detail, sizeof detail, "exit_code=%d signal=%d",
	    s->exit_code, s->exit_signal);
	record_run_event(s, s->end_reason, VERDICT_NONE, HOW_SUPERVISOR,
	    "supervisor", detail);
	{
		json_t *m = proto_msg("state");

		json_object_set_new(m, "run", control_run_json(s));
		control_broadcast(s, m);
	}
}

/* The record: opened while the sandbox's child builds its mount tree. */
static int
open_record(void *ctx, char **cause)
{
	struct sup *s = ctx;
	cleanup_free char *db = paths_audit_db();
	char limits[256];
	struct audit_run ar;
	int r;

	if ((r = audit_open(db, &s->audit, cause)) < 0)
		return r;
	sup_limits(s, limits, sizeof limits);
	s->started_ms = now_wall_ms();
	ar = (struct audit_run){
		.id = s->id, .name = s->name, .command = s->command,
		.policy_path = s->policy_path,
		.policy_hash = s->policy.hash, .uid = s->uid,
		.started_ms = s->started_ms, .limits = limits,
	};
	if ((r = audit_run_begin(s->audit, &ar, cause)) < 0)
		return r;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "headless", no_argument, NULL, 'H' },
		{ "policy", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "in", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "no-landlock", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sup *s = &S;
	const char *policy_path = NULL, *timeout = NULL;
	char **ins = NULL;
	size_t n_ins = 0;
	int ready_fd = -1, opt, slave = -1, outp[2] = { -1, -1 },
	    errp[2] = { -1, -1 }, in_fd = -1;
	cleanup_free char *cause = NULL;
	struct spawn_config cfg = { 0 };
	char **env;
	sigset_t mask;
	bool listener_open = true, status_seen = false, init_gone = false;
	bool out_open = true, err_open = true;
	int status = 0;
	int64_t drain_until = 0, last_flush = 0;
	unsigned long sync_flag = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	/* S is static, hence zero: no memset, whose 72 KiB (most of it the
	 * output backlog) would each be faulted in at every start. */
	s->pty = s->out_fd = s->err_fd = s->ctl_fd = s->sigfd = -1;
	s->rootfd = -1;
	for (int i = 0; i < SUP_MAX_CONNS; i++)
		s->conns[i].hostfd = -1;
	s->timerfd = -1;
	s->landlock = true;
	/* Keep 0..2 taken so that no fd we open lands on them. */
	for (int fd; (fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2;)
		;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'H': s->headless = true; break;
		case 'p': policy_path = optarg; break;
		case 'n': s->name = xstrdup(optarg); break;
		case 'i': strv_push(&ins, &n_ins, xstrdup(optarg)); break;
		case 't': timeout = optarg; break;
		case 'r': ready_fd = atoi(optarg); break;
		case 'L': s->landlock = false; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 125;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 125;
	}
	cfg.argv = argv + optind;
	s->command = join_argv(argv + optind);
	make_run_id(s->id);
	s->uid = getuid();
	s->inner_uid = s->uid == 0 ? ROOT_INNER_ID : s->uid;
	s->inner_gid = s->uid == 0 ? ROOT_INNER_ID : getgid();
	s->next_request = 0;

	/* The policy. */
	if (policy_path == NULL)
		policy_path = paths_default_policy(argv[0]);
	s->policy_path = realpath(policy_path, NULL);
	if (s->policy_path == NULL)
		die("%s: cannot read: %s", policy_path, strerror(errno));
	if (policy_load(&s->policy, s->policy_path, &cause) < 0)
		die("%s", cause);
	if (timeout != NULL && policy_parse_duration(timeout,
	    &s->policy.timeout) < 0)
		die("--timeout: \"%s\" is not a duration (use 90, 90s, 5m, 2h)",
		    timeout);
	s->rules = rules_new();
	rules_add_policy(s->rules, &s->policy);
	s->run_grants = run_grants_new();
	s->queue = queue_new(unotify_parked_free);

	/* The run folder. */
	{
		cleanup_free char *runs = NULL;
		cleanup_free char *why = NULL;

		/* The state folder checked (ours, no symlink): root's ward
		 * must not follow a link another user planted in it. */
		if (paths_runs_make(&runs, &why) < 0)
			die("the state folder: %s", why);
		s->run_dir = xasprintf("%s/%s", runs, s->id);
		s->work = xasprintf("%s/work", s->run_dir);
		s->out = xasprintf("%s/out", s->run_dir);
		s->before = xasprintf("%s/before", s->run_dir);
		s->root = xasprintf("%s/root", s->run_dir);
		if (mkdir(s->run_dir, 0700) < 0)
			die("create %s: %s", s->run_dir, strerror(errno));
		if (mkdir(s->work, 0755) < 0 || mkdir(s->out, 0755) < 0 ||
		    mkdir(s->before, 0700) < 0 || mkdir(s->root, 0755) < 0)
			die("create %s: %s", s->run_dir, strerror(errno));
		if (s->uid == 0 && (chown(s->work, s->inner_uid, s->inner_gid) < 0 ||
		    chown(s->out, s->inner_uid, s->inner_gid) < 0))
			die("chown %s: %s", s->run_dir, strerror(errno));
		{
			/* The bytes the policy was parsed from. */
			cleanup_free char *copy = xasprintf("%s/policy.ini",
			    s->run_dir);
			cleanup_fd int fd = open(copy, O_WRONLY | O_CREAT |
			    O_EXCL | O_CLOEXEC, 0600);

			if (fd < 0 || write_all(fd, s->policy.text,
			    s->policy.text_len) < 0)
				die("write %s: %s", copy, strerror(errno));
		}
	}
	add_bind(s, s->work, "/work", true);
	add_bind(s, s->out, "/out", true);
	for (size_t i = 0; i < s->policy.n_writable; i++)
		add_bind(s, s->policy.writable[i], NULL, true);
	for (size_t i = 0; i < n_ins; i++)
		add_bind(s, ins[i], NULL, false);
	strv_free(ins);

	if (s->landlock && spawn_landlock_abi() < 1)
		die("this kernel has no Landlock; run with --no-landlock to go "
		    "without the second wall");

	/* The program's terminal or pipes, owned by us. */
	if (s->headless) {
		if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
			die("pipe: %s", strerror(errno));
		s->out_fd = outp[0];
		s->err_fd = errp[0];
		fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
		fcntl(s->err_fd, F_SETFL, O_NONBLOCK);
		/* A terminal on stdin would let the program reach the
		 * user's terminal; anything else passes through. */
		if (isatty(0))
			in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		else
			in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
		cfg.stdio[0] = in_fd;
		cfg.stdio[1] = outp[1];
		cfg.stdio[2] = errp[1];
	} else {
		open_pty(&s->pty, &slave);
		cfg.stdio[0] = cfg.stdio[1] = cfg.stdio[2] = slave;
		cfg.set_ctty = true;
	}
	/* The program reopens its stdio by /dev/stdout and /proc/self/fd:
	 * they must be its own, not the supervisor's (root's, mode 0600). */
	if (s->uid == 0)
		for (int i = s->headless ? 1 : 0; i < 3; i++)
			if (fchown(cfg.stdio[i], s->inner_uid, s->inner_gid) < 0)
				die("chown the program's stdio: %s",
				    strerror(errno));
	env = make_env(!s->headless);
	cfg.envp = env;
	cfg.root = s->root;
	cfg.binds = s->binds;
	cfg.n_binds = s->n_binds;
	/* Hidden: the policy's list, and whatever of the user's own the
	 * read-only host folders would show: a home, ward's state (other
	 * runs' folders), its sockets. */
	{
		const char *home = getenv("HOME");
		char *mine[] = {
			home != NULL && home[0] == '/' ? realpath(home, NULL) : NULL,
			paths_state_dir(),
			NULL,
		};
		cleanup_free char *rt = NULL, *rtcause = NULL;

		if (paths_runtime_dir(&rt, &rtcause) == 0)
			mine[2] = realpath(rt, NULL);
		for (size_t i = 0; i < s->policy.n_hidden; i++)
			strv_push(&s->hidden, &s->n_hidden,
			    xstrdup(s->policy.hidden[i]));
		for (size_t i = 0; i < ARRAY_SIZE(mine); i++) {
			if (mine[i] != NULL && strcmp(mine[i], "/") != 0)
				strv_push(&s->hidden, &s->n_hidden, mine[i]);
			else
				free(mine[i]);
		}
	}
	if (s->n_hidden > SPAWN_MAX_HIDDEN)
		die("%s: [files] hidden names %zu paths; %d at most",
		    s->policy_path, s->policy.n_hidden, SPAWN_MAX_HIDDEN - 3);
	cfg.hidden = s->hidden;
	cfg.n_hidden = s->n_hidden;
	cfg.cwd = "/work";
	cfg.outer_uid = s->uid;
	cfg.outer_gid = getgid();
	cfg.inner_uid = s->inner_uid;
	cfg.inner_gid = s->inner_gid;
	cfg.memory = s->policy.memory;
	cfg.pids = s->policy.pids;
	cfg.cpu = s->policy.cpu;
	cfg.file_size = s->policy.file_size;
	cfg.open_files = s->policy.open_files;
	cfg.landlock = s->landlock;
	cfg.filter = filter_program();
	cfg.meanwhile = open_record;
	cfg.ctx = s;
	ids_files(s, &cfg);
	{
		/* The sandbox's resolver asks the DNS stub, on its loopback. */
		cleanup_free char *rc = xasprintf("%s/resolv.conf", s->run_dir);
		FILE *f = fopen(rc, "we");

		if (f == NULL || fputs("# ward: the DNS stub of this run\n"
		    "nameserver 127.0.0.1\noptions edns0\n", f) < 0 ||
		    fclose(f) != 0)
			die("write %s: %s", rc, strerror(errno));
		s->resolv_conf = steal_ptr(&rc);
		cfg.resolv_conf = s->resolv_conf;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die("signalfd: %s", strerror(errno));

	if (spawn_sandbox(&cfg, &s->sp, &cause) < 0)
		die("%s", cause);
	closep(&slave);
	closep(&outp[1]);
	closep(&errp[1]);
	closep(&in_fd);
	strv_free(env);
	s->listener = s->sp.listener;
	net_learn_netns(s, s->sp.dns[0]);
	if (s->netns_cookie == 0)
		die("cannot tell the sandbox's network namespace apart "
		    "(SO_NETNS_COOKIE needs Linux 5.14)");
	if (net_dns_start(s, s->sp.dns[0], s->sp.dns[1], &cause) < 0)
		die("DNS stub: %s", cause);
	{
		char rp[48];

		/* Every process of the sandbox shares init's root (none can
		 * chroot: no capabilities after exec). */
		snprintf(rp, sizeof rp, "/proc/%d/root", (int)s->sp.init_pid);
		if ((s->rootfd = open(rp, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			die("open %s: %s", rp, strerror(errno));
		net_learn_mounts(s);
	}
	s->sync_wakeup = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    sync_flag) == 0;
	{
		struct seccomp_notif_sizes sz;

		if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
			die("seccomp notif sizes: %s", strerror(errno));
		s->req_size = sz.seccomp_notif > sizeof *s->req ?
		    sz.seccomp_notif : sizeof *s->req;
		s->resp_size = sz.seccomp_notif_resp > sizeof *s->resp ?
		    sz.seccomp_notif_resp : sizeof *s->resp;
		s->req = xcalloc(1, s->req_size);
		s->resp = xcalloc(1, s->resp_size);
	}

	if (ctl_socket_path(s->id, &s->ctl_path, &cause) < 0 ||
	    ctl_listen(s->ctl_path, &s->ctl_fd, &cause) < 0)
		die("%s", cause);
	if (s->policy.timeout > 0)
		s->deadline_mono = now_mono_ms() +
		    (int64_t)s->policy.timeout * 1000;
	record_run_event(s, "start", VERDICT_NONE, HOW_SUPERVISOR, "supervisor",
	    s->command);
	s->state = RUN_RUNNING;

	if (s->headless)
		fprintf(stderr, "ward: run %s started\n", s->id);
	if (ready_fd >= 0) {
		dprintf(ready_fd, "%s\n", s->id);
		close(ready_fd);
	}
	if (write(s->sp.go_fd, "g", 1) != 1)
		die("start the program: %s", strerror(errno));
	closep(&s->sp.go_fd);

	/* The loop. */
	for (;;) {
		struct pollfd p[8 + SUP_MAX_CLIENTS + SUP_MAX_CONNS +
		    DNS_POLLFDS_MAX];
		size_t n_dns;
		int idx_dns;
		int idx_listener = -1, idx_out = -1, idx_err = -1,
		    idx_status = -1, idx_cerr = -1, idx_ctl = -1, idx_sig = -1;
		int client_idx[SUP_MAX_CLIENTS], conn_slot[SUP_MAX_CONNS];
		int np = 0, timeout_ms = -1, idx_conns, n_conns;
		int64_t now, next;

		if (listener_open) {
			idx_listener = np;
			p[np++] = (struct pollfd){ s->listener, POLLIN, 0 };
		}
		if (s->pty >= 0 && out_open) {
			idx_out = np;
			p[np++] = (struct pollfd){ s->pty, POLLIN, 0 };
		}
		if (s->out_fd >= 0 && out_open) {
			idx_out = np;
			p[np++] = (struct pollfd){ s->out_fd, POLLIN, 0 };
		}
		if (s->err_fd >= 0 && err_open) {
			idx_err = np;
			p[np++] = (struct pollfd){ s->err_fd, POLLIN, 0 };
		}
		if (s->sp.status_fd >= 0) {
			idx_status = np;
			p[np++] = (struct pollfd){ s->sp.status_fd, POLLIN, 0 };
		}
		if (s->sp.err_fd >= 0) {
			idx_cerr = np;
			p[np++] = (struct pollfd){ s->sp.err_fd, POLLIN, 0 };
		}
		idx_ctl = np;
		p[np++] = (struct pollfd){ s->ctl_fd, POLLIN, 0 };
		idx_sig = np;
		p[np++] = (struct pollfd){ s->sigfd, POLLIN, 0 };
		for (int i = 0; i < SUP_MAX_CLIENTS; i++) {
			client_idx[i] = -1;
			if (s->clients[i].conn == NULL)
				continue;
			client_idx[i] = np;
			p[np++] = (struct pollfd){
				proto_conn_fd(s->clients[i].conn),
				(short)(POLLIN | (proto_want_write(
				    s->clients[i].conn) ? POLLOUT : 0)), 0 };
		}

		idx_conns = np;
		n_conns = (int)net_pollfds(s, p + np, conn_slot, SUP_MAX_CONNS);
		np += n_conns;
		idx_dns = np;
		n_dns = s->dns != NULL ? dns_pollfds(s->dns, p + np,
		    DNS_POLLFDS_MAX) : 0;
		np += (int)n_dns;

		now = now_mono_ms();
		if ((next = net_next_deadline(s)) > 0) {
			int64_t d = next - now;

			timeout_ms = d < 0 ? 0 : (int)d;
		}
		if (s->dns != NULL && (next = dns_next_deadline(s->dns)) > 0) {
			int64_t d = next - now;

			d = d < 0 ? 0 : d;
			if (timeout_ms < 0 || d < timeout_ms)
				timeout_ms = (int)d;
		}
		next = queue_next_deadline(s->queue);
		if (next > 0) {
			int64_t d = next - now_wall_ms();

			d = d < 0 ? 0 : (d > 60000 ? 60000 : d);
			if (timeout_ms < 0 || d < timeout_ms)
				timeout_ms = (int)d;
		}
		if (s->deadline_mono > 0 && s->state == RUN_RUNNING) {
			int64_t d = s->deadline_mono - now;

			d = d < 0 ? 0 : d;
			if (timeout_ms < 0 || d < timeout_ms)
				timeout_ms = (int)d;
		}
		if (drain_until > 0) {
			int64_t d = drain_until - now;

			d = d < 0 ? 0 : d;
			if (timeout_ms < 0 || d < timeout_ms)
				timeout_ms = (int)d;
		}
		if (audit_pending(s->audit) > 0 &&
		    (timeout_ms < 0 || timeout_ms > 100))
			timeout_ms = 100;

		if (poll(p, (nfds_t)np, timeout_ms) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));

		if (idx_listener >= 0) {
			if (p[idx_listener].revents & POLLIN)
				unotify_on_ready(s);
			/* POLLHUP: every process under the filter is gone. */
			else if (p[idx_listener].revents & (POLLHUP | POLLERR))
				listener_open = false;
		}
		if (idx_out >= 0 && (p[idx_out].revents & (POLLIN | POLLHUP |
		    POLLERR)))
			out_open = s->pty >= 0 ?
			    pump(s, s->pty, "pty", AUDIT_PTY, s->headless ? 1 : -1) :
			    pump(s, s->out_fd, "stdout", AUDIT_STDOUT, 1);
		if (idx_err >= 0 && (p[idx_err].revents & (POLLIN | POLLHUP |
		    POLLERR)))
			err_open = pump(s, s->err_fd, "stderr", AUDIT_STDERR, 2);
		if (idx_cerr >= 0 && (p[idx_cerr].revents & (POLLIN | POLLHUP))) {
			char buf[600];
			ssize_t n = read(s->sp.err_fd, buf, sizeof buf - 1);

			if (n > 0) {
				buf[n] = '\0';
				fprintf(stderr, "ward: %s\n", buf);
				control_output(s, "stderr", "ward: ", 6);
				control_output(s, "stderr", buf, (size_t)n);
				control_output(s, "stderr", "\r\n", 2);
			} else
				closep(&s->sp.err_fd);
		}
		if (idx_status >= 0 && (p[idx_status].revents & (POLLIN |
		    POLLHUP))) {
			ssize_t n = read(s->sp.status_fd, &status, sizeof status);

			status_seen = n == sizeof status;
			closep(&s->sp.status_fd);
		}
		if (p[idx_sig].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(s->sigfd, &si, sizeof si) == sizeof si) {
				if (si.ssi_signo == SIGCHLD) {
					if (waitpid(s->sp.init_pid, NULL,
					    WNOHANG) == s->sp.init_pid)
						init_gone = true;
				} else if (s->state == RUN_RUNNING) {
					char what[32];

					snprintf(what, sizeof what, "signal %u",
					    si.ssi_signo);
					record_run_event(s, "kill", VERDICT_KILL,
					    HOW_PERSON, what, NULL);
					sup_kill(s, "killed");
				}
			}
		}
		if (p[idx_ctl].revents & POLLIN)
			control_on_accept(s);
		for (int i = 0; i < SUP_MAX_CLIENTS; i++)
			if (client_idx[i] >= 0 && s->clients[i].conn != NULL &&
			    p[client_idx[i]].revents)
				control_on_client(s, i, p[client_idx[i]].revents);

		for (int i = 0; i < n_conns; i++)
			if (p[idx_conns + i].revents)
				net_on_ready(s, conn_slot[i], p[idx_conns + i].revents);
		net_tick(s);
		if (s->dns != NULL) {
			dns_on_ready(s->dns, p + idx_dns, n_dns);
			dns_tick(s->dns, now_mono_ms());
		}
		unotify_expire(s);
		now = now_mono_ms();
		if (s->state == RUN_RUNNING && s->deadline_mono > 0 &&
		    now >= s->deadline_mono) {
			/* Once: the run's end is in hand, the clock is done. */
			s->deadline_mono = 0;
			if (s->end_reason == NULL)
				record_run_event(s, "timeout", VERDICT_KILL,
				    HOW_SUPERVISOR, "wall-clock limit", NULL);
			sup_kill(s, "timeout");
		}

		/* The end: init reaped; keep reading output a moment so
		 * that nothing the program wrote is lost. */
		if (init_gone && s->state == RUN_RUNNING) {
			if (s->sp.status_fd >= 0) {
				ssize_t n = read(s->sp.status_fd, &status,
				    sizeof status);

				status_seen = n == sizeof status;
				closep(&s->sp.status_fd);
			}
			finish(s, status, status_seen);
			drain_until = now + 2000;
		}
		if (s->state == RUN_EXITED && ((!out_open && !err_open) ||
		    now >= drain_until))
			break;
		/* Batched: one transaction per 100 ms (or 512 events), not
		 * one per event; never on the hot path of a notification. */
		if (audit_pending(s->audit) > 0 && (audit_pending(s->audit) >=
		    512 || now_mono_ms() - last_flush >= 100)) {
			cleanup_free char *fcause = NULL;

			if (audit_flush(s->audit, &fcause) < 0 && fcause)
				fprintf(stderr, "ward: record: %s (kept, will "
				    "retry)\n", fcause);
			last_flush = now_mono_ms();
		}
	}

	audit_run_end(s->audit, s->id, s->ended_ms, s->exit_code,
	    s->exit_signal, s->end_reason, NULL);
	audit_close(s->audit);
	dns_free(s->dns);
	install_done(s);
	control_close_all(s);
	unlink(s->ctl_path);
	if (s->headless && s->end_reason != NULL &&
	    strcmp(s->end_reason, "timeout") == 0)
		fprintf(stderr, "ward: run %s hit its wall-clock limit (%us)\n",
		    s->id, s->policy.timeout);
	else if (s->headless && s->end_reason != NULL &&
	    strcmp(s->end_reason, "killed") == 0)
		fprintf(stderr, "ward: run %s killed\n", s->id);
	return s->exit_code;
}
