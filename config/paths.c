/* SPDX-License-Identifier: MIT */
#include "config/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/util.h"

/* Where `make install` puts things; the Makefile passes its PREFIX and
 * SYSCONFDIR. */
#ifndef WARD_INSTALL_PREFIX
#define WARD_INSTALL_PREFIX "/usr/local"
#endif
#ifndef WARD_LIBEXECDIR
#define WARD_LIBEXECDIR WARD_INSTALL_PREFIX "/libexec"
#endif
#ifndef WARD_SYSCONFDIR
#define WARD_SYSCONFDIR "/etc"
#endif

/* The XDG spec: a relative path in an XDG variable is invalid; ignore it. */
static const char *
paths_env_abs(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

static char *
paths_home(void)
{
	const char *home = paths_env_abs("HOME");
	struct passwd *pw;

	if (home != NULL)
		return xstrdup(home);
	if ((pw = getpwuid(getuid())) == NULL || pw->pw_dir == NULL ||
	    pw->pw_dir[0] != '/')
		fatal("cannot find a home folder: HOME is not set and uid %u has "
		    "none in the user database", (unsigned)getuid());
	return xstrdup(pw->pw_dir);
}

/* The length of dir without trailing slashes ("/" gives 0). */
static int
paths_trim(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 0 && dir[n - 1] == '/')
		n--;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* $VAR/ward, else ~/FALLBACK/ward. */
static char *
paths_xdg(const char *var, const char *fallback)
{
	const char *base = paths_env_abs(var);
	cleanup_free char *home = NULL;

	if (base != NULL)
		return xasprintf("%.*s/ward", paths_trim(base), base);
	home = paths_home();
	return xasprintf("%.*s/%s/ward", paths_trim(home), home, fallback);
}

char *
paths_state_dir(void)
{
	return paths_xdg("XDG_STATE_HOME", ".local/state");
}

char *
paths_audit_db(void)
{
	cleanup_free char *state = paths_state_dir();

	return xasprintf("%s/audit.db", state);
}

char *
paths_runs_dir(void)
{
	cleanup_free char *state = paths_state_dir();

	return xasprintf("%s/runs", state);
}

char *
paths_config_dir(void)
{
	return paths_xdg("XDG_CONFIG_HOME", ".config");
}

/*
 * Ours but too open (or a umask got in the way of mkdir). Fixed through a
 * descriptor of the very folder lstat saw, so that a swap of the name in
 * between changes nothing. O_PATH, because a folder of mode 0000 cannot
 * be opened for reading; fchmod does not take an O_PATH descriptor, so
 * chmod goes through its /proc/self/fd link, which names that folder.
 */
static int
paths_fix_mode(const char *path, const struct stat *seen)
{
	cleanup_fd int fd = -1;
	cleanup_free char *link = NULL;
	struct stat st;

	fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino ||
	    st.st_uid != seen->st_uid)
		return -ESTALE;
	link = xasprintf("/proc/self/fd/%d", fd);
	if (chmod(link, 0700) < 0)
		return -errno;
	return 0;
}

/*
 * The one check of a folder on the way to ward's own things: created 0700
 * if missing, then a real directory (not a symlink), owned by us. ward's
 * own folders (fix) are made 0700 when they are ours but more open; the
 * user's folders above them (.local, .local/state) are left as they are
 * but refused when others may write them, since whoever can write a
 * folder can swap what is in it.
 */
static int
paths_check_dir(const char *path, bool fix, char **cause)
{
	struct stat st;
	uid_t uid = getuid();
	bool made = false;
	int r;

	/* mkdir never follows a symlink in the last component: an existing
	 * one, even dangling, is EEXIST and caught by lstat below. */
	if (mkdir(path, 0700) == 0)
		made = true;	/* ours to fix if a umask stripped our bits */
	else if (errno != EEXIST) {
		int e = errno;

		*cause = xasprintf("%s: cannot create: %s", path, strerror(e));
		return -e;
	}
	if (lstat(path, &st) < 0) {
		int e = errno;

		*cause = xasprintf("%s: %s", path, strerror(e));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		*cause = xasprintf("%s: is a symlink; refusing it (remove it)", path);
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		*cause = xasprintf("%s: not a directory; refusing it (remove it)", path);
		return -ENOTDIR;
	}
	if (st.st_uid != uid) {
		*cause = xasprintf("%s: owned by uid %u, not by us (uid %u); someone "
		    "else may control it: remove it or set %s", path,
		    (unsigned)st.st_uid, (unsigned)uid,
		    fix ? "XDG_RUNTIME_DIR or XDG_STATE_HOME" : "XDG_STATE_HOME");
		return -EPERM;
	}
	if (made)
		fix = true;
	if (!fix && (st.st_mode & 022) != 0) {
		*cause = xasprintf("%s: mode %04o: others may write it and swap "
		    "what is in it; refusing it (chmod go-w it)", path,
		    (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	if (fix && (st.st_mode & 07777) != 0700 &&
	    (r = paths_fix_mode(path, &st)) < 0) {
		*cause = xasprintf("%s: mode %04o, and cannot make it 0700: %s",
		    path, (unsigned)(st.st_mode & 07777), r == -ESTALE ?
		    "it changed while we looked" : strerror(-r));
		return r;
	}
	return 0;
}

int
paths_runtime_dir(char **ret, char **cause)
{
	const char *base = paths_env_abs("XDG_RUNTIME_DIR");
	cleanup_free char *path = NULL;
	int r;

	if (base != NULL)
		path = xasprintf("%.*s/ward", paths_trim(base), base);
	else
		path = xasprintf("/tmp/ward-%u", (unsigned)getuid());
	if ((r = paths_check_dir(path, true, cause)) < 0)
		return r;
	*ret = steal_ptr(&path);
	return 0;
}

/*
 * The state root (XDG_STATE_HOME, or the home folder) is the user's
 * choice and may be reached through symlinks; it is created if missing.
 * One that others may write without the sticky bit is refused: they could
 * rename ward's folder away and put their own in its place. Sticky (a
 * shared /tmp-like folder) is fine, since ward's folder in it is checked.
 */
static int
paths_state_root(const char *root, char **cause)
{
	struct stat st;
	int r;

	if ((r = mkdir_p(root, 0700)) < 0) {
		*cause = xasprintf("%s: cannot create: %s", root, strerror(-r));
		return r;
	}
	if (stat(root, &st) < 0) {
		r = -errno;
		*cause = xasprintf("%s: %s", root, strerror(-r));
		return r;
	}
	if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
		*cause = xasprintf("%s: mode %04o: anyone may write it and swap "
		    "ward's folder in it; refusing it (chmod o-w it or set "
		    "XDG_STATE_HOME)", root, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* state, or state/leaf: every folder after the root checked. */
static int
paths_state_walk(const char *leaf, char **ret, char **cause)
{
	const char *base = paths_env_abs("XDG_STATE_HOME");
	cleanup_free char *root = NULL;
	cleanup_free char *path = NULL;
	const char *rel, *p;
	int r;

	if (base != NULL) {
		root = xasprintf("%.*s", paths_trim(base), base);
		rel = "ward";
	} else {
		cleanup_free char *home = paths_home();

		root = xasprintf("%.*s", paths_trim(home), home);
		rel = ".local/state/ward";
	}
	if ((r = paths_state_root(root[0] != '\0' ? root : "/", cause)) < 0)
		return r;
	/* .local and .local/state are the user's; ward and below are ours. */
	for (p = rel; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		free(path);
		path = xasprintf("%s/%.*s", root, (int)(p - rel), rel);
		if ((r = paths_check_dir(path, *p == '\0', cause)) < 0)
			return r;
		if (*p == '\0')
			break;
	}
	if (leaf != NULL) {
		char *t = xasprintf("%s/%s", path, leaf);

		free(path);
		path = t;
		if ((r = paths_check_dir(path, true, cause)) < 0)
			return r;
	}
	*ret = steal_ptr(&path);
	return 0;
}

int
paths_state_make(char **ret, char **cause)
{
	return paths_state_walk(NULL, ret, cause);
}

int
paths_runs_make(char **ret, char **cause)
{
	return paths_state_walk("runs", ret, cause);
}

static bool
paths_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *
paths_self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* The folder of the running executable (or of argv0 as a fallback). */
static char *
paths_exe_dir(const char *argv0)
{
	char buf[PATH_MAX];
	cleanup_free char *self = paths_self_exe();
	char *slash;

	if (self != NULL)
		snprintf(buf, sizeof buf, "%s", self);
	else if (argv0 == NULL || strchr(argv0, '/') == NULL ||
	    realpath(argv0, buf) == NULL)
		return NULL;
	if ((slash = strrchr(buf, '/')) == NULL)
		return NULL;
	*slash = '\0';
	return xstrdup(buf);
}

const char *
paths_libexec_dir(void)
{
	return WARD_LIBEXECDIR;
}

char *
paths_helper(const char *name)
{
	cleanup_free char *dir = paths_exe_dir(NULL);
	char *p;

	if (dir != NULL) {
		/* A build tree, or both in one folder (LIBEXECDIR/ward). */
		p = xasprintf("%s/%s", dir, name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
		/* Installed, seen from PREFIX/bin. */
		p = xasprintf("%s/../libexec/ward/%s", dir, name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	/* Installed with a LIBEXECDIR of its own. */
	p = xasprintf("%s/ward/%s", WARD_LIBEXECDIR, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xstrdup(name);
}

char *
paths_supervisor(void)
{
	return paths_helper("ward-supervisor");
}

char *
paths_share_installed(const char *exe_dir)
{
	static const char libexec[] = "/libexec/ward";
	size_t n = strlen(exe_dir);
	const char *slash;

	/* PREFIX/libexec/ward/ward-tui or ward-supervisor. */
	if (n >= sizeof libexec - 1 &&
	    strcmp(exe_dir + n - (sizeof libexec - 1), libexec) == 0)
		return xasprintf("%.*s/share/ward",
		    (int)(n - (sizeof libexec - 1)), exe_dir);
	/* PREFIX/bin/ward: named without "bin/.." (inside a sandbox only
	 * the share folder is there). */
	if ((slash = strrchr(exe_dir, '/')) == NULL)
		return xstrdup(WARD_INSTALL_PREFIX "/share/ward");
	return xasprintf("%.*s/share/ward", (int)(slash - exe_dir), exe_dir);
}

char *
paths_share_dir(const char *argv0)
{
	const char *share = getenv("WARD_SHARE");
	cleanup_free char *exe = NULL;
	cleanup_free char *beside = NULL;

	if (share != NULL && share[0] != '\0')
		return xasprintf("%.*s", paths_trim(share), share);
	if ((exe = paths_exe_dir(argv0)) == NULL)
		return xstrdup(WARD_INSTALL_PREFIX "/share/ward");
	/* A build tree: the programs sit in the repository beside share/. */
	beside = xasprintf("%s/share/ward.ini", exe);
	if (paths_exists(beside))
		return xasprintf("%s/share", exe);
	return paths_share_installed(exe);
}

char *
paths_default_policy(const char *argv0)
{
	cleanup_free char *config = paths_config_dir();
	cleanup_free char *user = xasprintf("%s/ward.ini", config);
	cleanup_free char *share = NULL;
	const char *env = getenv("WARD_SHARE");

	if (paths_exists(user))
		return steal_ptr(&user);
	if (env != NULL && env[0] != '\0')
		return xasprintf("%.*s/ward.ini", paths_trim(env), env);
	/* The machine's default, set by its administrator. */
	if (paths_exists(WARD_SYSCONFDIR "/ward/ward.ini"))
		return xstrdup(WARD_SYSCONFDIR "/ward/ward.ini");
	share = paths_share_dir(argv0);
	return xasprintf("%s/ward.ini", share);
}
