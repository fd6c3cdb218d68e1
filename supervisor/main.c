/* SPDX-License-Identifier: MIT */
/*
 * The supervisor: runs and polices one run, headless, and speaks the
 * control protocol. supervisor_main is the main of ward-supervisor and
 * of a headless `ward run` (supervisor/main.h); see ward(1).
 */
#include "supervisor/main.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
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
#include <termios.h>
#include <unistd.h>

#include "approvals/audit-write.h"
#include "approvals/launch.h"
#include "approvals/ctl.h"
#include "approvals/decide.h"
#include "approvals/staged.h"
#include "config/paths.h"
#include "config/protect.h"
#include "config/util.h"
#include "config/version.h"
#include "supervisor/compat.h"
#include "supervisor/control.h"
#include "supervisor/dns.h"
#include "supervisor/gatewire.h"
#include "supervisor/gate/wire.h"
#include "supervisor/grants.h"
#include "supervisor/intercept.h"
#include "supervisor/loop.h"
#include "supervisor/net.h"
#include "supervisor/oci.h"
#include "supervisor/path.h"
#include "supervisor/project.h"
#include "supervisor/sup.h"
#include "supervisor/unotify.h"

/* When ward runs as root, the program runs as this unprivileged id, in
 * its user namespace and on the host alike. */
#define ROOT_INNER_ID	1000000

static struct sup S;
/* The run's projects (supervisor/project.h), numbered in the order
 * given: --project first, then the policy's. */
static struct project *P;
static size_t n_P;
static struct project_opts P_opts;

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
	    "[--name NAME] [--in PATH]... [--project DIR]...\n"
	    "                       [--timeout DURATION] [--chdir DIR] "
	    "[--ready-fd FD]\n"
	    "                       [--status-fd FD] [--no-landlock] -- CMD "
	    "[ARG...]\n"
	    "       ward-supervisor --headless --oci-listener FD --oci-pid PID "
	    "--oci-container ID\n"
	    "                       [--policy FILE] [--name NAME] -- CMD "
	    "[ARG...]\n"
	    "       ward-supervisor --help | --version\n"
	    "Runs and polices one sandboxed run; normally started by "
	    "`ward run` (see ward(1)).\n", f);
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
		.tree_fd = -1,
	};
}

/*
 * A login file's copy for the sandbox (issue 33): RUNDIR/login-NAME.json,
 * made empty before the gate starts (make_login_copies, only when the
 * host's file is there: else the user is not logged in on the host, and
 * said so in gate_ready) and written by the gate; it is bound over the
 * file's path (make_binds). Its path when it was made, else NULL: the
 * one decision, taken once, that the later steps read.
 */
static char *
login_copy(const struct sup *s, const struct policy_secret *ps)
{
	struct stat st;
	char *p;

	if (ps->file == NULL)
		return NULL;
	p = xasprintf("%s/" GATE_LOGIN_FILE, s->run_dir, ps->name);
	if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
		return p;
	free(p);
	return NULL;
}

/* Does the policy's env pass this name in (and is it set)? */
static bool
env_passed(const char *name)
{
	for (size_t i = 0; i < S.policy.n_env; i++) {
		const char *e = S.policy.env[i];
		size_t len = policy_env_name_len(e);

		if (strlen(name) == len && strncmp(e, name, len) == 0)
			return e[len] == '=' || getenv(name) != NULL;
	}
	return false;
}

/*
 * Caches that toolchains write beside the sources or in the current
 * folder, whatever HOME says: into a read-only --in folder each becomes a
 * write request, and a headless run waits ask_timeout for nothing (a
 * `python3 /in/t.py` asked to write /in/__pycache__). They go into the
 * run, unless the policy passes the variable in itself.
 */
static const char *const cache_env[][2] = {
	/* Python's bytecode, beside every module it imports: read where it
	 * is, never written. Not PYTHONPYCACHEPREFIX, which made Python
	 * read bytecode from the prefix alone: every run compiled every
	 * module it imported, the standard library's too, anew (`python3
	 * -c 'import json, asyncio, http.client'` 0.25 s instead of 0.06,
	 * CPython's own tests 14% slower; issue 18). */
	{ "PYTHONDONTWRITEBYTECODE", "1" },
	/* git status refreshes .git/index when the stat data it holds
	 * differs (the owner does, as root): an optional lock and write. */
	{ "GIT_OPTIONAL_LOCKS", "0" },
};

/* Does the gate set name in the sandbox (a phantom or a CA variable),
 * or is name where a secret's value is read from (from = env:NAME)?
 * Then [run] env's value of the same name is not passed: passed, the
 * value itself would be in the sandbox. */
static bool
gate_sets(const char *name)
{
	if (S.gate == NULL)
		return false;
	for (size_t i = 0; i < S.policy.n_secrets; i++) {
		const char *from = S.policy.secrets[i].from;

		if (strcmp(S.policy.secrets[i].name, name) == 0 ||
		    (from != NULL && str_has_prefix(from, "env:") &&
		    strcmp(from + 4, name) == 0))
			return true;
	}
	for (const char *const *v = policy_ca_vars(); *v != NULL; v++)
		if (strcmp(*v, name) == 0)
			return true;
	return false;
}

/* The gate's variables: each secret's phantom under its name, the CA. */
static void
gate_env(char ***env, size_t *n)
{
	size_t np;
	const struct gatewire_phantom *ph = intercept_phantoms(&S, &np);
	struct stat st;
	const char *bundle = stat(SPAWN_SYSTEM_BUNDLE, &st) == 0 ?
	    SPAWN_SYSTEM_BUNDLE : SPAWN_GATE_BUNDLE;

	if (S.gate == NULL)
		return;
	/* Under the policy's own [secret] names only (intercept_ready). */
	for (size_t i = 0; i < np; i++)
		strv_push(env, n, xasprintf("%s=%s", ph[i].name, ph[i].value));
	/* What the clients that read these instead of the system bundle
	 * are pointed at (NODE_EXTRA_CA_CERTS adds to node's own: the CA
	 * alone). */
	for (const char *const *v = policy_ca_vars(); *v != NULL; v++)
		strv_push(env, n, xasprintf("%s=%s", *v,
		    strcmp(*v, "NODE_EXTRA_CA_CERTS") == 0 ?
		    SPAWN_GATE_CA : bundle));
}

static bool shown_inside(const struct sup *, const char *);

/* At most this many of the host's PATH entries are kept. */
#define PATH_HOST_MAX	64

/*
 * The sandbox's PATH: the host's entries the sandbox shows at the same
 * path (an npm prefix in /opt, an --in folder), in the host's order, so
 * a name finds what it finds on the host; then ward's own defaults (the
 * run's install prefixes under /work among them) not already there.
 */
static char *
sandbox_path(void)
{
	static const char *const defaults[] = {
		"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
		"/sbin", "/bin", "/work/.local/bin", "/work/.npm-global/bin",
	};
	const char *host = getenv("PATH");
	cleanup_free char *copy = xstrdup(host != NULL ? host : "");
	char **dirs = NULL, *save = NULL, *out;
	size_t n = 0, len = 1, kept = 0;

	for (char *d = strtok_r(copy, ":", &save); d != NULL &&
	    kept < PATH_HOST_MAX; d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *real = NULL;
		bool dup = false;

		/* Relative entries ("." and "") mean another folder inside. */
		if (d[0] != '/' || (real = realpath(d, NULL)) == NULL ||
		    !shown_inside(&S, d) || !shown_inside(&S, real))
			continue;
		for (size_t i = 0; i < n && !dup; i++)
			dup = strcmp(dirs[i], d) == 0;
		if (!dup) {
			strv_push(&dirs, &n, xstrdup(d));
			kept++;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++) {
		bool dup = false;

		for (size_t j = 0; j < n && !dup; j++)
			dup = strcmp(dirs[j], defaults[i]) == 0;
		if (!dup)
			strv_push(&dirs, &n, xstrdup(defaults[i]));
	}
	for (size_t i = 0; i < n; i++)
		len += strlen(dirs[i]) + 1;
	out = xmalloc(len + 5);
	strcpy(out, "PATH=");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			strcat(out, ":");
		strcat(out, dirs[i]);
	}
	strv_free(dirs);
	return out;
}

static char **
make_env(bool pty, const char *cwd)
{
	char **env = NULL;
	size_t n = 0;
	const char *term = getenv("TERM"), *lang = getenv("LANG");

	strv_push(&env, &n, xstrdup("HOME=/work"));
	strv_push(&env, &n, xasprintf("PWD=%s", cwd));
	strv_push(&env, &n, xstrdup("TMPDIR=/tmp"));
	strv_push(&env, &n, xstrdup("USER=ward"));
	strv_push(&env, &n, xstrdup("LOGNAME=ward"));
	strv_push(&env, &n, sandbox_path());
	/* Installs land in the run (DESIGN §6): user prefixes and caches
	 * under /work, whatever the manager's default. */
	strv_push(&env, &n, xstrdup("XDG_CACHE_HOME=/work/.cache"));
	strv_push(&env, &n, xstrdup("PYTHONUSERBASE=/work/.local"));
	strv_push(&env, &n, xstrdup("NPM_CONFIG_PREFIX=/work/.npm-global"));
	strv_push(&env, &n, xstrdup("NPM_CONFIG_CACHE=/work/.npm"));
	strv_push(&env, &n, xstrdup("GEM_HOME=/work/.gem"));
	strv_push(&env, &n, xstrdup("CARGO_HOME=/work/.cargo"));
	strv_push(&env, &n, xstrdup("GOPATH=/work/go"));
	for (size_t i = 0; i < ARRAY_SIZE(cache_env); i++)
		if (!env_passed(cache_env[i][0]))
			strv_push(&env, &n, xasprintf("%s=%s", cache_env[i][0],
			    cache_env[i][1]));
	strv_push(&env, &n, xasprintf("TERM=%s", term && *term ? term :
	    pty ? "xterm-256color" : "dumb"));
	strv_push(&env, &n, xasprintf("LANG=%s", lang && *lang ? lang :
	    "C.UTF-8"));
	strv_push(&env, &n, xasprintf("WARD_RUN=%s", S.id));
	/* Nothing else of the host's environment, but what the policy
	 * names (credentials enter only this way). */
	for (size_t i = 0; i < S.policy.n_env; i++) {
		const char *e = S.policy.env[i];
		cleanup_free char *name = xstrndup(e,
		    policy_env_name_len(e));
		const char *v = e[strlen(name)] == '=' ? NULL : getenv(name);

		if (gate_sets(name))
			continue;
		/* NAME=VALUE as written; NAME, the caller's when set. */
		if (e[strlen(name)] == '=')
			strv_push(&env, &n, xstrdup(e));
		else if (v != NULL)
			strv_push(&env, &n, xasprintf("%s=%s", name, v));
	}
	gate_env(&env, &n);
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

/* The record: opened while the sandbox's child builds its mount tree. */
static int
open_record(void *ctx, char **cause)
{
	struct sup *s = ctx;
	cleanup_free char *db = paths_audit_db();
	char limits[1024];
	cleanup_free char *why = NULL;
	struct audit_run ar;
	int r;

	if ((r = audit_open(db, &s->audit, cause)) < 0 ||
	    (r = audit_keep_room(s->audit, cause)) < 0)
		return r;
	audit_set_output_max(s->audit, s->policy.output_max);
	s->journal = journal_open((enum journal_want)s->policy.journal,
	    s->policy.syslog);
	/* Runs whose supervisor died before it could end them: marked lost
	 * now, and their sockets removed. The run goes on if it cannot. */
	if (ctl_recover(s->audit, "ward-supervisor", NULL, NULL, &why) < 0)
		warn_msg("record: %s (lost runs not marked)", why);
	sup_limits(s, limits, sizeof limits);
	s->started_ms = now_wall_ms();
	ar = (struct audit_run){
		.id = s->id, .name = s->name, .command = s->command,
		.policy_path = s->policy_path,
		.policy_hash = s->policy.hash, .uid = s->uid,
		.started_ms = s->started_ms, .limits = limits,
	};
	/* Who writes the run, so that the next ward can tell it is gone
	 * if it dies before its end is written. */
	if ((r = audit_owner_self(&ar.owner)) < 0) {
		set_cause(cause, "cannot read /proc/self/stat: %s",
		    strerror(-r));
		return r;
	}
	if ((r = audit_run_begin(s->audit, &ar, cause)) < 0)
		return r;
	return 0;
}

/* What the command line asks beyond struct sup. */
struct args {
	const char	*policy_path, *timeout;
	const char	*chdir;		/* --chdir, as given */
	char		*cwd;		/* where the program starts, inside */
	char	       **ins;
	size_t		 n_ins;
	char	       **projects;	/* --project, as given */
	size_t		 n_projects;
	char		*first_project;	/* the first --project, resolved */
	int		 ready_fd;
	char	       **argv;		/* the program and its arguments */
	/* A container's (ward oci serve): the runtime's listener, its
	 * init's host pid, its id; oci_fd -1 for a run of our own. */
	int		 oci_fd;
	pid_t		 oci_pid;
	const char	*oci_container;
};

/* --status-fd N: an fd we were given, past stdio; close-on-exec, so that
 * no process of the sandbox ever has it. -1 when it is not one. */
static int
status_fd_arg(const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || n < 3 || n > INT_MAX ||
	    fcntl((int)n, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return (int)n;
}

/* -1 to go on, else the exit status (--help, a usage error). */
static int
parse_args(struct sup *s, int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "headless", no_argument, NULL, 'H' },
		LAUNCH_SUP_OPTIONS,
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "oci-listener", required_argument, NULL, 'O' },
		{ "oci-pid", required_argument, NULL, 'Q' },
		{ "oci-container", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/* A full reset: in ward, the front has parsed `ward run` first. */
	optind = 0;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'H': s->headless = true; break;
		case 'p': a->policy_path = optarg; break;
		case 'n': s->name = xstrdup(optarg); break;
		case 'i': strv_push(&a->ins, &a->n_ins, xstrdup(optarg)); break;
		case 'P':
			strv_push(&a->projects, &a->n_projects, xstrdup(optarg));
			break;
		case 't': a->timeout = optarg; break;
		case 'C': a->chdir = optarg; break;
		case 'r': a->ready_fd = atoi(optarg); break;
		case 'S':
			if ((s->status_fd = status_fd_arg(optarg)) < 0) {
				fprintf(stderr, "ward-supervisor: --status-fd "
				    "%s: not an open file descriptor above 2\n",
				    optarg);
				return 125;
			}
			break;
		case 'L': s->landlock = false; break;
		case 'O':
			if ((a->oci_fd = status_fd_arg(optarg)) < 0) {
				fprintf(stderr, "ward-supervisor: --oci-listener "
				    "%s: not an open file descriptor above 2\n",
				    optarg);
				return 125;
			}
			break;
		case 'Q': {
			char *end;
			long n;

			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    n < 1 || n > INT_MAX) {
				fprintf(stderr, "ward-supervisor: --oci-pid %s: "
				    "not a process id\n", optarg);
				return 125;
			}
			a->oci_pid = (pid_t)n;
			break;
		}
		case 'X': a->oci_container = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("ward-supervisor %s\n", WARD_VERSION); return 0;
		default: usage(stderr); return 125;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 125;
	}
	if ((a->oci_fd >= 0) != (a->oci_pid > 0) ||
	    (a->oci_fd >= 0) != (a->oci_container != NULL)) {
		fprintf(stderr, "ward-supervisor: --oci-listener, --oci-pid "
		    "and --oci-container go together\n");
		return 125;
	}
	a->argv = argv + optind;
	return -1;
}

static void
load_policy(struct sup *s, const struct args *a, const char *argv0)
{
	const char *path = a->policy_path;
	cleanup_free char *cause = NULL;
	cleanup_free char *fallback = NULL;

	if (path == NULL)
		path = fallback = paths_default_policy(argv0);
	s->policy_path = realpath(path, NULL);
	if (s->policy_path == NULL)
		die("%s: cannot read: %s", path, strerror(errno));
	if (policy_load(&s->policy, s->policy_path, &cause) < 0)
		die("%s", cause);
	if (a->timeout != NULL && policy_check_duration(a->timeout,
	    &s->policy.timeout, &cause) < 0)
		die("--timeout: %s", cause);
	s->rules = rules_new();
	rules_add_policy(s->rules, &s->policy);
	s->answers = answers_new();
	s->queue = queue_new(sup_parked_free, now_mono_ms);
}

/* The run folder: work/, out/, before/, root/ and the policy's bytes. */
static void
make_run_dir(struct sup *s)
{
	cleanup_free char *runs = NULL, *why = NULL, *copy = NULL;
	cleanup_fd int fd = -1;

	/* The state folder checked (ours, no symlink): root's ward must
	 * not follow a link another user planted in it. */
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
	/* The bytes the policy was parsed from. */
	copy = xasprintf("%s/policy.ini", s->run_dir);
	fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, s->policy.text, s->policy.text_len) < 0)
		die("write %s: %s", copy, strerror(errno));
}

/*
 * The homes whose credential stores stay hidden wherever the tree shows
 * them: $HOME's, the user's own (the password file's), and root's and
 * the sudo caller's when ward runs as root. Real paths, once each.
 */
static size_t
homes(char *out[4])
{
	const char *cand[4] = { getenv("HOME"), NULL, NULL, NULL };
	const char *sudo = getenv("SUDO_UID");
	struct passwd *pw;
	size_t n = 0;

	if ((pw = getpwuid(getuid())) != NULL)
		cand[1] = pw->pw_dir;
	if (getuid() == 0 && (pw = getpwuid(0)) != NULL)
		cand[2] = pw->pw_dir;
	if (getuid() == 0 && sudo != NULL && *sudo != '\0' &&
	    (pw = getpwuid((uid_t)strtoul(sudo, NULL, 10))) != NULL)
		cand[3] = pw->pw_dir;
	for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
		char *r;
		bool dup = false;

		if (cand[i] == NULL || cand[i][0] != '/' ||
		    (r = realpath(cand[i], NULL)) == NULL)
			continue;
		for (size_t j = 0; j < n; j++)
			dup |= strcmp(out[j], r) == 0;
		if (dup || strcmp(r, "/") == 0)
			free(r);
		else
			out[n++] = r;
	}
	return n;
}

/* [files] expose: each entry in every home ("~/...") or where it says;
 * read-only binds over the hidden stores, where the host has them. */
static void
make_exposed(struct sup *s)
{
	char *home[4];
	size_t n_home = homes(home);

	for (size_t i = 0; i < s->policy.n_expose; i++) {
		const char *e = s->policy.expose[i];

		for (size_t h = 0; h < (e[0] == '~' ? n_home : 1); h++) {
			char *p = e[0] == '~' ? xasprintf("%s%s", home[h], e + 1) :
			    xstrdup(e);
			struct stat st;

			if (stat(p, &st) < 0) {
				free(p);
				continue;
			}
			s->exposed = xreallocarray(s->exposed, s->n_exposed + 1,
			    sizeof *s->exposed);
			s->exposed[s->n_exposed++] = (struct bind){
				.host = xstrdup(p), .inside = p,
				.is_dir = S_ISDIR(st.st_mode), .tree_fd = -1,
			};
		}
	}
	for (size_t h = 0; h < n_home; h++)
		free(home[h]);
}

/* One project staged (project.h) and its bind: an overlay over the
 * host folder, or its copy bound there; said in one line when a copy. */
static void
add_project(struct sup *s, const char *what, const char *given)
{
	cleanup_free char *real = NULL, *cause = NULL, *note = NULL;
	struct project *p;

	if ((real = realpath(given, NULL)) == NULL)
		die("%s %s: %s", what, given, strerror(errno));
	if (strcmp(real, "/") == 0)
		die("%s %s: cannot stage the whole host", what, given);
	for (size_t i = 0; i < n_P; i++)
		if (strcmp(P[i].host, real) == 0)
			die("%s %s: given twice", what, given);
	P = xreallocarray(P, n_P + 1, sizeof *P);
	p = &P[n_P];
	if (project_stage(p, s->run_dir, n_P, real, &P_opts, &note,
	    &cause) < 0)
		die("%s", cause);
	n_P++;
	if (note != NULL)
		warn_msg("%s", note);
	add_bind(s, p->mode == PROJECT_COPY ? p->upper : p->host, real, true);
	s->binds[s->n_binds - 1].project = true;
	if (p->mode == PROJECT_OVERLAY) {
		s->binds[s->n_binds - 1].upper = xstrdup(p->upper);
		s->binds[s->n_binds - 1].workdir = xstrdup(p->work);
	}
}

/* --project, then the policy's ([files] project, ~/ in $HOME). */
static void
make_projects(struct sup *s, struct args *a)
{
	const char *env = getenv("WARD_PROJECT_MODE"), *home = getenv("HOME");

	P_opts = (struct project_opts){
		.owner_uid = s->uid == 0 ? s->inner_uid : (uid_t)-1,
		.owner_gid = s->uid == 0 ? s->inner_gid : (gid_t)-1,
		.force_copy = env != NULL && strcmp(env, "copy") == 0,
		.started_ms = now_wall_ms(),
		.skip = s->hidden,
		.n_skip = s->n_hidden,
	};
	for (size_t i = 0; i < a->n_projects; i++)
		add_project(s, "--project", a->projects[i]);
	if (a->n_projects > 0)
		a->first_project = xstrdup(P[0].host);
	for (size_t i = 0; i < s->policy.n_project; i++) {
		const char *pr = s->policy.project[i];
		cleanup_free char *path = NULL;

		if (pr[0] == '~' && (home == NULL || home[0] != '/'))
			die("%s: [files] project %s: HOME is not set",
			    s->policy_path, pr);
		path = pr[0] == '~' ? xasprintf("%s%s", home, pr + 1) :
		    xstrdup(pr);
		add_project(s, "[files] project", path);
	}
	strv_free(a->projects);
	a->projects = NULL;
	a->n_projects = 0;
	if (n_P > 0) {
		cleanup_free char *cause = NULL;

		if (project_write_list(s->run_dir, P, n_P, &cause) < 0)
			die("%s", cause);
	}
}

/* When the run has ended: each copy reduced to what changed. */
static void
settle_projects(void)
{
	for (size_t i = 0; i < n_P; i++) {
		cleanup_free char *cause = NULL;

		if (project_settle(&P[i], &P_opts, &cause) < 0)
			warn_msg("%s", cause);
		project_done(&P[i]);
	}
	free(P);
	P = NULL;
	n_P = 0;
}

/* A git work tree's core.hooksPath, read now on the host: protected
 * as .git/hooks is (config/protect.h), wherever it points. */
static void
protect_hooks_of(struct sup *s, const char *folder)
{
	char *pattern = protect_hooks_path(folder, policy_home());

	if (pattern != NULL)
		strv_push(&s->policy.protect, &s->policy.n_protect, pattern);
}

/*
 * A writable folder the policy names that is not there yet (~/.aider
 * before aider's first run): made, 0700, when it is in the home of who
 * runs ward, and said in one line; anywhere else it is the policy's
 * mistake and add_bind stops the run naming it.
 */
static void
make_missing_writable(const char *path)
{
	const char *home = policy_home();
	size_t n = home != NULL ? strlen(home) : 0;
	struct stat st;
	int r;

	if (lstat(path, &st) == 0 || errno != ENOENT || n == 0 ||
	    strncmp(path, home, n) != 0 || path[n] != '/' ||
	    strstr(path + n, "/../") != NULL)
		return;
	if ((r = mkdir_p(path, 0700)) < 0)
		die("[files] writable %s: missing, and cannot make it: %s",
		    path, strerror(-r));
	warn_msg("[files] writable %s was missing: made it (0700)", path);
}

/* The mount map: work/ and out/, the policy's writable folders, the
 * projects, --in; the exposed entries of the credential stores apart. */
static void
make_binds(struct sup *s, struct args *a)
{
	add_bind(s, s->work, "/work", true);
	add_bind(s, s->out, "/out", true);
	for (size_t i = 0; i < s->policy.n_writable; i++) {
		make_missing_writable(s->policy.writable[i]);
		add_bind(s, s->policy.writable[i], NULL, true);
		s->binds[s->n_binds - 1].host_write = true;
	}
	/* A login file: the gate's copy over it, where the agent reads
	 * and writes it (its folder is one of the writable above). */
	for (size_t i = 0; s->gate != NULL && i < s->policy.n_secrets; i++) {
		const struct policy_secret *ps = &s->policy.secrets[i];
		cleanup_free char *copy = login_copy(s, ps);
		cleanup_free char *cause = NULL;

		if (copy == NULL)
			continue;
		add_bind(s, copy, ps->file, true);
		if (intercept_watch_login(s, ps, &cause) < 0)
			die("[secret %s] %s: %s", ps->name, ps->file, cause);
	}
	make_projects(s, a);
	for (size_t i = 2; i < s->n_binds; i++)
		if (s->binds[i].writable && s->binds[i].is_dir)
			protect_hooks_of(s, s->binds[i].inside);
	for (size_t i = 0; i < a->n_ins; i++)
		add_bind(s, a->ins[i], NULL, false);
	strv_free(a->ins);
	a->ins = NULL;
	a->n_ins = 0;
	make_exposed(s);
}

/* As root, the folders' owners shown as the program (spawn.h); a folder
 * that cannot be mapped is said now, in one line, not at its first
 * refused write. */
static void
map_owners(struct sup *s)
{
	cleanup_free char *cause = NULL;
	char **notes = NULL;
	size_t n_notes = 0;

	if (s->uid != 0)
		return;
	if (spawn_idmap_binds(s->binds, s->n_binds, s->inner_uid,
	    s->inner_gid, &notes, &n_notes, &cause) < 0 ||
	    spawn_idmap_binds(s->exposed, s->n_exposed, s->inner_uid,
	    s->inner_gid, &notes, &n_notes, &cause) < 0)
		die("%s", cause);
	for (size_t i = 0; i < n_notes; i++)
		warn_msg("%s", notes[i]);
	strv_free(notes);
}

/* The supervisor's copies of the idmapped trees, once the sandbox has
 * its own (or will never need them). */
static void
close_trees(struct bind *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		closep(&b[i].tree_fd);
}

/* The program's terminal or pipes, owned by us; the child's ends go in
 * cfg->stdio, closed by close_child_stdio() once it has them. */
static void
open_stdio(struct sup *s, struct spawn_config *cfg)
{
	if (s->headless) {
		int outp[2], errp[2];

		if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
			die("pipe: %s", strerror(errno));
		s->out_fd = outp[0];
		s->err_fd = errp[0];
		fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
		fcntl(s->err_fd, F_SETFL, O_NONBLOCK);
		/* A terminal on stdin would let the program reach the
		 * user's terminal; anything else passes through. */
		if (isatty(0))
			cfg->stdio[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		else
			cfg->stdio[0] = fcntl(0, F_DUPFD_CLOEXEC, 3);
		cfg->stdio[1] = outp[1];
		cfg->stdio[2] = errp[1];
	} else {
		int slave = -1;

		open_pty(&s->pty, &slave);
		cfg->stdio[0] = cfg->stdio[1] = cfg->stdio[2] = slave;
		cfg->set_ctty = true;
	}
	/* The program reopens its stdio by /dev/stdout and /proc/self/fd:
	 * they must be its own, not the supervisor's (root's, mode 0600). */
	if (s->uid == 0)
		for (int i = s->headless ? 1 : 0; i < 3; i++)
			if (fchown(cfg->stdio[i], s->inner_uid, s->inner_gid) < 0)
				die("chown the program's stdio: %s",
				    strerror(errno));
}

static void
close_child_stdio(struct spawn_config *cfg)
{
	int fd[3] = { cfg->stdio[0], cfg->stdio[1], cfg->stdio[2] };

	/* With a pty, the three are one fd. */
	for (int i = 0; i < 3; i++) {
		if (fd[i] >= 0 && (i == 0 || fd[i] != fd[i - 1]))
			close(fd[i]);
		cfg->stdio[i] = -1;
	}
}

/* Hidden: the policy's list, and whatever of the user's own the
 * read-only host folders would show: a home, ward's state (other runs'
 * folders), its sockets. */
static void
make_hidden(struct sup *s)
{
	const char *const *stores = policy_cred_stores();
	char *mine[2] = { paths_state_dir(), NULL }, *home[4];
	size_t n_home = homes(home);
	cleanup_free char *rt = NULL, *rtcause = NULL;

	if (paths_runtime_dir(&rt, &rtcause) == 0)
		mine[1] = realpath(rt, NULL);
	if (s->policy.n_hidden > SPAWN_MAX_HIDDEN / 2)
		die("%s: [files] hidden names %zu paths; %d at most",
		    s->policy_path, s->policy.n_hidden, SPAWN_MAX_HIDDEN / 2);
	for (size_t i = 0; i < s->policy.n_hidden; i++)
		strv_push(&s->hidden, &s->n_hidden,
		    xstrdup(s->policy.hidden[i]));
	for (size_t i = 0; i < ARRAY_SIZE(mine); i++) {
		if (mine[i] != NULL && strcmp(mine[i], "/") != 0)
			strv_push(&s->hidden, &s->n_hidden, mine[i]);
		else
			free(mine[i]);
	}
	/* The homes, and their credential stores wherever an --in or
	 * writable folder shows them (those the host has). */
	for (size_t h = 0; h < n_home; h++) {
		strv_push(&s->hidden, &s->n_hidden, home[h]);
		for (size_t i = 0; stores[i] != NULL; i++) {
			char *p = xasprintf("%s/%s", home[h], stores[i]);
			struct stat st;

			if (lstat(p, &st) < 0) {
				free(p);
				continue;
			}
			if (s->n_hidden == SPAWN_MAX_HIDDEN)
				die("too many paths to hide (%d at most)",
				    SPAWN_MAX_HIDDEN);
			strv_push(&s->hidden, &s->n_hidden, p);
		}
	}
}

/* A host folder the sandbox shows at the same path: an --in or writable
 * folder (the binds after /work and /out), or a system one. */
static bool
shown_inside(const struct sup *s, const char *real)
{
	static const char *const system[] = { "/usr", "/etc", "/opt", "/var" };

	for (size_t i = 2; i < s->n_binds; i++)
		if (path_under(real, s->binds[i].inside))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(system); i++)
		if (path_under(real, system[i]))
			return true;
	return false;
}

/*
 * --chdir DIR: where the program starts, as the sandbox names it (the
 * first --project without it, else /work). /work and /out are the
 * run's own; any other folder must be one the sandbox shows from the
 * host (an --in or writable folder, or beneath one), named as on the
 * host (a relative one against our cwd).
 */
static void
check_chdir(struct sup *s, struct args *a)
{
	cleanup_free char *real = NULL;
	struct stat st;

	/* Given a project, the person means to work in it: starting in
	 * /work would land every write where no diff looks. */
	if (a->chdir == NULL && a->first_project != NULL)
		a->chdir = a->first_project;
	if (a->chdir == NULL) {
		a->cwd = xstrdup("/work");
		return;
	}
	if (strcmp(a->chdir, "/work") == 0 || strcmp(a->chdir, "/out") == 0) {
		a->cwd = xstrdup(a->chdir);
		return;
	}
	if ((real = realpath(a->chdir, NULL)) == NULL)
		die("--chdir %s: %s", a->chdir, strerror(errno));
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		die("--chdir %s: not a folder", a->chdir);
	for (size_t i = 2; i < s->n_binds; i++)
		if (s->binds[i].is_dir && path_under(real, s->binds[i].inside)) {
			a->cwd = steal_ptr(&real);
			return;
		}
	die("--chdir %s: the sandbox does not show this folder: start in "
	    "/work, /out, or an --in, [files] writable or project folder "
	    "(add --in "
	    "%s to show it read-only)", a->chdir, real);
}

/* path as a shell word: as it is when that is safe, else in '...'. */
static char *
shell_word(const char *path)
{
	size_t n = 3;
	char *q, *o;

	if (path[0] != '\0' && strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_./-+:=@%,") == strlen(path))
		return xstrdup(path);
	for (const char *c = path; *c; c++)
		n += *c == '\'' ? 4 : 1;
	o = q = xmalloc(n);
	*o++ = '\'';
	for (const char *c = path; *c; c++) {
		if (*c == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else
			*o++ = *c;
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

/* path made absolute on the host, its folder resolved but not its last
 * name (a link such as cargo -> rustup runs by the name it is given). */
static char *
host_abs(const char *path)
{
	cleanup_free char *dir = xstrdup(path), *real = NULL;
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : path;

	if (slash == dir)
		return xstrdup(path);
	if (slash != NULL)
		*slash = '\0';
	if ((real = realpath(slash ? dir : ".", NULL)) == NULL)
		return NULL;
	return xasprintf("%s/%s", strcmp(real, "/") ? real : "", base);
}

/* The host's file a program name would run: a PATH search. */
static char *
host_which(const char *name)
{
	const char *path = getenv("PATH");
	cleanup_free char *copy = xstrdup(path ? path : "/usr/bin:/bin");
	char *save = NULL;

	for (char *d = strtok_r(copy, ":", &save); d != NULL;
	    d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *p = xasprintf("%s/%s", d, name);

		if (d[0] == '/' && access(p, X_OK) == 0)
			return host_abs(p);
	}
	return NULL;
}

/*
 * What follows "cannot run CMD: No such file or directory" when the
 * program is not found inside: the sandbox starts in an empty /work and
 * shows the host's files only through --in, so `ward run -- ./script.sh`
 * finds nothing; say so, with the --in (and the path) that would.
 */
static char *
not_found_hint(const struct sup *s, const struct args *a)
{
	const char *cmd = a->argv[0];
	cleanup_free char *real = NULL, *dir = NULL, *qdir = NULL,
	    *qreal = NULL, *joined = NULL, *target = NULL;
	char *slash;
	bool shown;

	if (strchr(cmd, '/') == NULL) {
		if ((real = host_which(cmd)) == NULL)
			return NULL;
	} else {
		if (cmd[0] != '/' && a->chdir != NULL)
			joined = xasprintf("%s/%s", a->cwd, cmd);
		if (access(joined ? joined : cmd, F_OK) < 0 ||
		    (real = host_abs(joined ? joined : cmd)) == NULL)
			return cmd[0] == '/' ? NULL : xasprintf(" (the sandbox "
			    "starts in %s; host files need --in and their "
			    "absolute path)", a->cwd);
	}
	/* The name and what it leads to must both be shown. */
	target = realpath(real, NULL);
	shown = shown_inside(s, real) && target != NULL &&
	    shown_inside(s, target);
	if (strchr(cmd, '/') == NULL && shown)
		return NULL;
	dir = xstrdup(real);
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir ? 1 : 0] = '\0';
	qdir = shell_word(dir);
	qreal = shell_word(real);
	if (shown)
		return cmd[0] == '/' ? NULL : xasprintf(" (the sandbox starts "
		    "in %s, not in %s: run %s, or add --chdir %s)", a->cwd,
		    qdir, qreal, qdir);
	if (strchr(cmd, '/') == NULL)
		return xasprintf(" (the host's PATH finds %s, in a folder the "
		    "sandbox does not show: add --in %s)", qreal, qdir);
	if (cmd[0] == '/')
		return xasprintf(" (the sandbox shows host files only through "
		    "--in: add --in %s)", qdir);
	return xasprintf(" (the sandbox starts in %s, a fresh folder of the "
	    "run, and shows host files only through --in: add --in %s and "
	    "run %s, or add --in %s --chdir %s)", a->cwd, qdir, qreal, qdir,
	    qdir);
}

/*
 * CMD found as the host finds it (issue 30: an npm prefix such as
 * /opt/agents/bin is shown by --in but was not searched): a bare name
 * on the host's PATH, run by that path when the sandbox shows it and
 * what it leads to; else NULL, and the sandbox's PATH decides.
 */
static char *
host_exec_path(const struct sup *s, const char *cmd)
{
	cleanup_free char *real = NULL, *target = NULL;

	if (strchr(cmd, '/') != NULL || (real = host_which(cmd)) == NULL)
		return NULL;
	if ((target = realpath(real, NULL)) == NULL ||
	    !shown_inside(s, real) || !shown_inside(s, target))
		return NULL;
	return steal_ptr(&real);
}

/* The sandbox's resolver asks the DNS stub, on its loopback. */
static void
write_resolv_conf(struct sup *s, struct spawn_config *cfg)
{
	cleanup_free char *rc = xasprintf("%s/resolv.conf", s->run_dir);
	FILE *f = fopen(rc, "we");

	/* The resolver's timeout and tries said, not left to its
	 * defaults: when a lookup waiting for a person has been given up
	 * (dns_asker_gone) is known. */
	if (f == NULL || fprintf(f, "# ward: the DNS stub of this run\n"
	    "nameserver 127.0.0.1\noptions edns0 timeout:%d attempts:%d\n",
	    DNS_CLIENT_TIMEOUT_S, DNS_CLIENT_ATTEMPTS) < 0 || fclose(f) != 0)
		die("write %s: %s", rc, strerror(errno));
	s->resolv_conf = steal_ptr(&rc);
	cfg->resolv_conf = s->resolv_conf;
}

/* Everything spawn_sandbox() needs but the program's stdio; the
 * environment made for it, to free once it has been spawned. */
static char **
fill_spawn_config(struct sup *s, struct spawn_config *cfg, struct args *a)
{
	char **env;

	check_chdir(s, a);
	env = make_env(!s->headless, a->cwd);

	cfg->envp = env;
	cfg->root = s->root;
	cfg->binds = s->binds;
	cfg->n_binds = s->n_binds;
	cfg->hidden = s->hidden;
	cfg->n_hidden = s->n_hidden;
	cfg->exposed = s->exposed;
	cfg->n_exposed = s->n_exposed;
	cfg->cwd = a->cwd;
	cfg->not_found = not_found_hint(s, a);
	cfg->exec_path = host_exec_path(s, a->argv[0]);
	cfg->outer_uid = s->uid;
	cfg->outer_gid = getgid();
	cfg->inner_uid = s->inner_uid;
	cfg->inner_gid = s->inner_gid;
	cfg->memory = s->policy.memory;
	cfg->pids = s->policy.pids;
	cfg->cpu = s->policy.cpu;
	cfg->file_size = s->policy.file_size;
	cfg->open_files = s->policy.open_files;
	cfg->landlock = s->landlock;
	cfg->filter = filter_program();
	cfg->meanwhile = open_record;
	cfg->ctx = s;
	ids_files(s, cfg);
	write_resolv_conf(s, cfg);
	cfg->ca_bundle = intercept_bundle(s);
	cfg->ca_cert = intercept_ca(s);
	return env;
}

static void
make_login_copies(struct sup *s)
{
	for (size_t i = 0; i < s->policy.n_secrets; i++) {
		const struct policy_secret *ps = &s->policy.secrets[i];
		cleanup_free char *p = NULL;
		struct stat st;
		int fd;

		if (ps->file == NULL || lstat(ps->file, &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		p = xasprintf("%s/" GATE_LOGIN_FILE, s->run_dir, ps->name);
		if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600)) < 0)
			die("%s: %s", p, strerror(errno));
		close(fd);
	}
}

/*
 * The TLS gate, before the sandbox exists (issue 19): only when the
 * policy names a [secret] or an HTTP rule. It reads the secrets (a
 * command: source may take a while, with no terminal to ask on); a
 * gate that cannot start stops the run before it starts, in its words.
 */
static void
start_gate(struct sup *s)
{
	cleanup_free char *exe = NULL, *cause = NULL;

	if (!intercept_wanted(&s->policy))
		return;
	make_login_copies(s);
	exe = paths_helper("ward-gate");
	if (intercept_start(s, exe, &cause) < 0)
		die("%s", cause);
}

/* Its start-up read once the sandbox's env and tree need it: the
 * hidden paths, binds and owners are made while the gate starts. */
static void
gate_ready(struct sup *s)
{
	cleanup_free char *cause = NULL;

	size_t np, n_used = 0, n_skipped = 0;
	const struct gatewire_phantom *ph;
	char **used = NULL, **skipped = NULL;

	if (intercept_ready(s, &cause) < 0)
		die("%s", cause);
	/* A secret the gate skipped (its env: unset, its file: missing):
	 * a user who logs in inside with a subscription has no key, and
	 * the run goes on without the variable. One line each. */
	ph = intercept_phantoms(s, &np);
	for (size_t i = 0; s->gate != NULL && i < s->policy.n_secrets; i++) {
		const struct policy_secret *ps = &s->policy.secrets[i];
		cleanup_free char *copy = login_copy(s, ps);
		bool made = copy != NULL;

		for (size_t j = 0; j < np && !made && ps->file == NULL; j++)
			made = strcmp(ph[j].name, ps->name) == 0;
		strv_push(made ? &used : &skipped, made ? &n_used : &n_skipped,
		    xstrdup(ps->name));
	}
	/* An agent's recipe names its key and its login: with one in use
	 * the other is said in the same line, not as a warning. */
	if (n_used > 0 && n_skipped > 0) {
		fprintf(stderr, "ward: secrets in use:");
		for (size_t i = 0; i < n_used; i++)
			fprintf(stderr, "%s %s", i ? "," : "", used[i]);
		fprintf(stderr, "; not set, skipped:");
		for (size_t i = 0; i < n_skipped; i++)
			fprintf(stderr, "%s %s", i ? "," : "", skipped[i]);
		fprintf(stderr, "\n");
	}
	for (size_t i = 0; n_used == 0 && s->gate != NULL &&
	    i < s->policy.n_secrets; i++) {
		const struct policy_secret *ps = &s->policy.secrets[i];

		if (ps->file != NULL)
			fprintf(stderr, "ward: secret %s: no login in %s: "
			    "skipped; log in on the host, not inside\n",
			    ps->name, ps->file);
		else
			fprintf(stderr, "ward: secret %s is not set: skipped; "
			    "log in on the host or set it\n", ps->name);
	}
	strv_free(used);
	strv_free(skipped);
}

/* Signals arrive on the signalfd, in the loop; blocked here, and
 * unblocked again in the child before exec (spawn.c). */
static void
open_signalfd(struct sup *s)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	spawn_forward_set(&mask);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die("signalfd: %s", strerror(errno));
}

static void learn_listener(struct sup *);

/* What the supervisor learns of the sandbox once it stands: its network
 * namespace, the DNS stub's sockets, its root, the listener's sizes. */
static void
learn_sandbox(struct sup *s)
{
	cleanup_free char *cause = NULL;
	char rp[48];

	s->listener = s->sp.listener;
	net_learn_netns(s, s->sp.dns[0]);
	if (s->netns_cookie == 0)
		die("cannot tell the sandbox's network namespace apart "
		    "(SO_NETNS_COOKIE needs Linux 5.14)");
	if (net_dns_start(s, s->sp.dns[0], s->sp.dns[1], &cause) < 0)
		die("DNS stub: %s", cause);
	/* Every process of the sandbox shares init's root (none can chroot:
	 * no capabilities after exec). */
	snprintf(rp, sizeof rp, "/proc/%d/root", (int)s->sp.init_pid);
	if ((s->rootfd = open(rp, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		die("open %s: %s", rp, strerror(errno));
	net_learn_mounts(s);
	learn_listener(s);
}

/* The listener's flags and the sizes of what it reads and writes. */
static void
learn_listener(struct sup *s)
{
	unsigned long sync_flag = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	struct seccomp_notif_sizes sz;

	s->sync_wakeup = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    sync_flag) == 0;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		die("seccomp notif sizes: %s", strerror(errno));
	s->req_size = sz.seccomp_notif > sizeof *s->req ?
	    sz.seccomp_notif : sizeof *s->req;
	s->resp_size = sz.seccomp_notif_resp > sizeof *s->resp ?
	    sz.seccomp_notif_resp : sizeof *s->resp;
	s->req = xcalloc(1, s->req_size);
	s->resp = xcalloc(1, s->resp_size);
}

/* On a terminal, a token for ward's own lines that the program cannot
 * print: it never sees our stderr, and the token is new for each run. */
static void
make_tag(struct sup *s)
{
	unsigned char r[4];

	snprintf(s->tag, sizeof s->tag, "ward");
	if (!s->headless || isatty(2) != 1 ||
	    getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		return;
	snprintf(s->tag, sizeof s->tag, "ward[%02x%02x%02x%02x]", r[0], r[1],
	    r[2], r[3]);
}

/* The control socket, the run's clock and record, then the program's
 * go: from here on everything happens in the loop. */
static void
start_run(struct sup *s, int ready_fd)
{
	cleanup_free char *cause = NULL;

	if (ctl_socket_path(s->id, &s->ctl_path, &cause) < 0 ||
	    ctl_listen(s->ctl_path, &s->ctl_fd, &cause) < 0)
		die("%s", cause);
	if (s->policy.timeout > 0)
		s->deadline_mono = now_mono_ms() +
		    (int64_t)s->policy.timeout * 1000;
	sup_record_run(s, "start", VERDICT_NONE, HOW_SUPERVISOR, "supervisor",
	    s->command);
	s->state = RUN_RUNNING;

	make_tag(s);
	if (s->headless && strcmp(s->tag, "ward") != 0)
		fprintf(stderr, "%s: run %s started; ward's own lines on this "
		    "terminal begin with %s\n", s->tag, s->id, s->tag);
	else if (s->headless)
		fprintf(stderr, "ward: run %s started\n", s->id);
	if (ready_fd >= 0) {
		dprintf(ready_fd, "%s\n", s->id);
		close(ready_fd);
	}
	if (s->oci)
		return;
	if (write(s->sp.go_fd, "g", 1) != 1)
		die("start the program: %s", strerror(errno));
	closep(&s->sp.go_fd);
}

/* Output that [run] output_max cut from the record (or that a record
 * that could not keep up lost): said in the run's events, which the
 * consoles and ward log show. At the very end: the loop reads output
 * for a moment after the program's exit. */
static void
record_output_dropped(struct sup *s)
{
	struct audit_output_counts c;
	char detail[192], what[96];

	audit_output_counts(s->audit, &c);
	if (c.dropped == 0 && c.lost == 0)
		return;
	snprintf(what, sizeof what, "output dropped: %" PRIu64 " of %" PRIu64
	    " bytes not recorded", c.dropped + c.lost, c.seen);
	snprintf(detail, sizeof detail, "%" PRIu64 " over output_max=%"
	    PRIu64 " (the first and last halves kept), %" PRIu64 " while "
	    "the record could not keep up", c.dropped, s->policy.output_max,
	    c.lost);
	sup_record_run(s, what, VERDICT_NONE, HOW_SUPERVISOR, "supervisor",
	    detail);
	if (s->headless)
		fprintf(stderr, "%s: run %s: %s: %s\n", s->tag, s->id, what,
		    detail);
}

/*
 * The last of the record: what is queued, then the run's end, each
 * retried while other supervisors hold the file (D8: under load an
 * ignored failure lost 1 run's end in 20). What still fails is said, and
 * ward-supervisor exits 125: the record does not hold the whole run.
 */
static int
end_record(struct sup *s)
{
	cleanup_free char *cause = NULL;
	int status = s->record_broken ? 125 : s->exit_code;

	/* The output's count once the last of it is in (the cap drops
	 * tail rows as they are written). */
	(void)audit_flush(s->audit, NULL);
	record_output_dropped(s);
	if (audit_drain(s->audit, &cause) < 0) {
		if (!s->record_broken)
			warn_msg("record: %s: events of run %s are not "
			    "recorded", cause, s->id);
		free(cause);
		cause = NULL;
		status = 125;
	}
	if (audit_run_end(s->audit, s->id, s->ended_ms, s->exit_code,
	    s->exit_signal, s->end_reason, &cause) < 0) {
		if (!s->record_broken)
			warn_msg("record: %s: the end of run %s is not "
			    "recorded (the next ward marks it lost)", cause,
			    s->id);
		status = 125;
	}
	audit_close(s->audit);
	s->audit = NULL;
	if (journal_dropped(s->journal) > 0)
		warn_msg("journal: %llu events of run %s not sent (the "
		    "journal or syslog was busy or gone; the record has them)",
		    (unsigned long long)journal_dropped(s->journal), s->id);
	journal_free(s->journal);
	s->journal = NULL;
	return status;
}

/*
 * Issue 30, point 1: an agent says it "updated the file", the host file
 * is unchanged until `ward apply`. A headless run that leaves files
 * staged says so in its last line, counted from the run folder as `ward
 * log --summary` counts them (approvals/staged.h; libgit2 is loaded only
 * when a project's upper folder holds a file).
 */
static void
end_staged(struct sup *s)
{
	int64_t staged = -1;
	char in[160] = "";
	cleanup_free char *cause = NULL, *text = NULL;

	if (!s->headless || s->run_dir == NULL ||
	    staged_count(s->run_dir, &staged, in, sizeof in, &cause) < 0 ||
	    (text = staged_text(staged, in, s->id)) == NULL)
		return;
	fprintf(stderr, "%s: run %s: exited %d \u2014 %s\n", s->tag, s->id,
	    s->exit_code, text);
}

static int
end_run(struct sup *s)
{
	int status;

	/* The gate's last words (intercept_stop), then the record closes. */
	intercept_stop(s);
	status = end_record(s);
	dns_free(s->dns);
	grants_done(s);
	control_close_all(s);
	unlink(s->ctl_path);
	if (s->headless && s->end_reason != NULL &&
	    strcmp(s->end_reason, "timeout") == 0)
		fprintf(stderr, "%s: run %s hit its wall-clock limit (%us)\n",
		    s->tag, s->id, s->policy.timeout);
	else if (s->headless && s->end_reason != NULL &&
	    strcmp(s->end_reason, "killed") == 0)
		fprintf(stderr, "%s: run %s killed\n", s->tag, s->id);
	end_staged(s);
	return status;
}

/*
 * A container's run (ward oci serve): the runtime's listener adopted
 * (oci.c) in place of a sandbox of ours; the DNS stub in its network
 * namespace, the record, the control socket, the loop and the end as
 * for any run. No gate, no output: the container's streams are its
 * runtime's.
 */
static int
oci_run(struct sup *s, struct args *a)
{
	cleanup_free char *cause = NULL;
	struct oci_names names = { .udp = -1, .tcp = -1 };
	int r;

	s->oci = true;
	s->headless = true;
	s->oci_container = xstrdup(a->oci_container);
	open_signalfd(s);
	if (oci_adopt(s, a->oci_fd, a->oci_pid, &names, &cause) < 0)
		die("container %s: %s", s->oci_container, cause);
	net_learn_mounts(s);
	if (names.udp >= 0) {
		/* The stub takes both sockets, also on failure. */
		if (net_dns_start(s, names.udp, names.tcp, &cause) < 0) {
			free(names.note);
			names.note = xasprintf("no names through ward: %s",
			    cause);
			free(cause);
			cause = NULL;
		} else
			(void)dns_set_upstreams(s->dns, names.up, names.n_up);
	}
	learn_listener(s);
	if (open_record(s, &cause) < 0)
		die("%s", cause);
	start_run(s, a->ready_fd);
	{
		char detail[512];

		snprintf(detail, sizeof detail, "id=%s pid=%d netns=%s ids=%s; "
		    "%s", s->oci_container, (int)a->oci_pid,
		    s->oci_own_netns ? "its own" : "the host's",
		    s->oci_ids_identity ? "the host's" : "mapped", names.note);
		sup_record_run(s, "container", VERDICT_NONE, HOW_SUPERVISOR,
		    "supervisor", detail);
	}
	fprintf(stderr, "ward: run %s supervises container %s (pid %d); %s\n",
	    s->id, s->oci_container, (int)a->oci_pid, names.note);
	free(names.note);
	if ((r = loop_run(s)) < 0)
		die("poll: %s", strerror(-r));
	r = end_run(s);
	return r < 0 ? 0 : r;
}

int
supervisor_main(int argc, char **argv)
{
	struct sup *s = &S;
	struct args a = { .ready_fd = -1 };
	struct spawn_config cfg = { .stdio = { -1, -1, -1 } };
	cleanup_free char *cause = NULL;
	char **env;
	int r;

	/* S is static, hence zero: no memset, whose 72 KiB (most of it the
	 * output backlog) would each be faulted in at every start. */
	s->pty = s->out_fd = s->err_fd = s->ctl_fd = s->sigfd = -1;
	s->rootfd = s->status_fd = s->oci_pidfd = -1;
	a.oci_fd = -1;
	for (int i = 0; i < SUP_MAX_CONNS; i++)
		s->conns[i].hostfd = -1;
	s->landlock = true;
	/* Keep 0..2 taken so that no fd we open lands on them. */
	for (int fd; (fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2;)
		;

	if ((r = parse_args(s, argc, argv, &a)) >= 0)
		return r;
	cfg.argv = a.argv;
	s->command = join_argv(a.argv);
	make_run_id(s->id);
	s->uid = getuid();
	s->inner_uid = s->uid == 0 ? ROOT_INNER_ID : s->uid;
	s->inner_gid = s->uid == 0 ? ROOT_INNER_ID : getgid();
	s->next_request = 0;

	load_policy(s, &a, argv[0]);
	make_run_dir(s);
	if (a.oci_fd >= 0)
		return oci_run(s, &a);
	start_gate(s);
	make_hidden(s);
	make_binds(s, &a);
	map_owners(s);
	if (s->landlock && spawn_landlock_abi() < 1)
		die("this kernel has no Landlock; run with --no-landlock to go "
		    "without the second wall");
	open_stdio(s, &cfg);
	gate_ready(s);
	env = fill_spawn_config(s, &cfg, &a);
	open_signalfd(s);

	if (spawn_sandbox(&cfg, &s->sp, &cause) < 0)
		die("%s", cause);
	close_trees(s->binds, s->n_binds);
	close_trees(s->exposed, s->n_exposed);
	close_child_stdio(&cfg);
	strv_free(env);
	/* init has its own copy (a clone as fork): ours goes. */
	free((char *)cfg.not_found);
	free((char *)cfg.exec_path);
	cfg.not_found = NULL;
	learn_sandbox(s);
	start_run(s, a.ready_fd);

	if ((r = loop_run(s)) < 0)
		die("poll: %s", strerror(-r));
	settle_projects();
	r = end_run(s);
	free(a.cwd);
	free(a.first_project);
	return r;
}
