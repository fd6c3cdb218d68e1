/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The write path (files.c): every trapped call that would change a file.
 * Decoded into a struct write_call (emulate.h), continued when it lands
 * where the floor holds, else judged by the rules and [files] write, and
 * performed on the host once approved. Parks requests of kind "write".
 */
#include <stdbool.h>
#include <sys/types.h>
#include <linux/seccomp.h>

struct sup;

/* A trapped chdir or fchdir: the cached cwds forgotten, continued. */
void	files_on_chdir(struct sup *, const struct seccomp_notif *);
/* A trapped write (any syscall the dispatch in unotify.c does not take
 * elsewhere; an unknown one is answered ENOSYS): answered or parked. */
void	files_on_call(struct sup *, const struct seccomp_notif *);

enum files_where {
	WHERE_OUTSIDE,
	WHERE_WRITABLE,	/* continue, once no symlink leads elsewhere */
	WHERE_FLOOR,	/* continue as it is */
	WHERE_HOST,	/* a writable folder of the host's own: done by the
			 * supervisor, recorded, a protected name asked */
};
/* Where a normalised sandbox path lands: the deepest bind decides, then
 * the sandbox's own writable folders, then /dev and /proc. */
enum files_where files_where(const struct sup *, const char *path);
/* The hot path's answer for a normalised path: may the call go on as
 * the program made it (no symlink on the way to a writable place)? */
bool	files_fast_continue(const struct sup *, const char *lex, bool follow);
/* Forget the folder the hot path keeps as free of symlinks: called
 * before a trapped rename, folder removal or symlink that may stand on
 * its path (and by tests). */
void	files_kept_drop(void);
/* A thread's call that may make a name a symlink (rename, link, symlink)
 * came: files_on_call says so before it answers (and tests do). */
void	files_names_moving(pid_t tid, int nr);
/* A thread's next trapped call came, which shows the kernel done with
 * the one before: unotify_on_ready says so for every notification,
 * before it is handled. */
void	files_thread_seen(pid_t tid);
/* Between calls: the pages of the call last judged go back to the kernel
 * (nothing is kept in them from one call to the next). */
void	files_shed(void);
/* That folder (a normalised sandbox path), or NULL: for tests. */
const char *files_kept_folder(void);
