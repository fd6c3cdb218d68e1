/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * XDG paths. Every function returns a malloc'd string.
 *   state:   $XDG_STATE_HOME/ward      (default ~/.local/state/ward)
 *   runtime: $XDG_RUNTIME_DIR/ward     (fallback /tmp/ward-UID), 0700
 *   config:  $XDG_CONFIG_HOME/ward     (default ~/.config/ward)
 *   data:    the default policy: $WARD_SHARE or the folder ward was
 *            installed with (share/ beside the binary in a build tree).
 */
char	*paths_state_dir(void);
char	*paths_audit_db(void);		/* state/audit.db */
char	*paths_runs_dir(void);		/* state/runs */
char	*paths_config_dir(void);
/*
 * The runtime folder for control sockets, created 0700 if missing and
 * checked: a real directory (not a symlink), owned by us, mode 0700.
 * 0 or -errno; *cause says what was wrong.
 */
int	 paths_runtime_dir(char **ret, char **cause);
/*
 * The state folder (paths_state_make) or its runs/ folder
 * (paths_runs_make), created if missing and checked as the runtime folder
 * is, every folder after the root (XDG_STATE_HOME, else the home folder):
 * no symlink, owned by us; ward's own folders made 0700, the user's
 * .local and .local/state refused if group- or world-writable, the root
 * refused if world-writable without the sticky bit. 0 or -errno; *cause
 * names the path and what was wrong.
 */
int	 paths_state_make(char **ret, char **cause);
int	 paths_runs_make(char **ret, char **cause);
/* The default policy file: $XDG_CONFIG_HOME/ward/ward.ini if it exists,
 * else $WARD_SHARE/ward.ini when set, else /etc/ward/ward.ini (the
 * machine's) if it exists, else share/ward.ini beside the executable
 * (build tree), else PREFIX/share/ward/ward.ini. */
char	*paths_default_policy(const char *argv0);
/* The folder of the shipped files (ward.ini, demo/, agents/):
 * $WARD_SHARE when set, else share/ beside the executable (a build
 * tree), else PREFIX/share/ward (paths_share_installed()). */
char	*paths_share_dir(const char *argv0);
/* PREFIX/share/ward for a program installed in exe_dir: PREFIX/bin or
 * PREFIX/libexec/ward. malloc'd. */
char	*paths_share_installed(const char *exe_dir);
/* Our own executable, from /proc/self/exe; NULL (errno set) if unread. */
char	*paths_self_exe(void);
/* One of ward's programs (name: "ward-tui", "ward-supervisor",
 * "ward-gate") beside our own executable if it is there (a build tree,
 * or LIBEXECDIR/ward, where they all are), else in ../libexec/ward/
 * (installed, seen from BINDIR), else in the LIBEXECDIR built in (one
 * apart from BINDIR), else the bare name, for execvp to find on PATH. */
char	*paths_helper(const char *name);
/* The LIBEXECDIR ward was built for (the Makefile's). */
const char *paths_libexec_dir(void);
/* paths_helper("ward-supervisor"). */
char	*paths_supervisor(void);
