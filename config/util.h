/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The few helpers every layer uses: allocation that cannot fail, cleanup
 * attributes for owned locals, and time.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* Set *cause (when cause is not NULL) to a new message, freeing the old:
 * the one way libraries say why they failed. */
void	set_cause(char **cause, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* "ward: MESSAGE" and a newline on stderr: how programs (never the
 * libraries) report. */
void	warn_msg(const char *, ...) __attribute__((format(printf, 1, 2)));
void	warn_msgv(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* Only before a sandbox runs, for out-of-memory, or for impossible states. */
void	fatal(const char *, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));

static inline void
freep(void *p)
{
	free(*(void **)p);
}
/* Closes *fd if >= 0 and sets it to -1. */
void	closep(int *);
void	strvfreep(char ***);
void	fclosep(FILE **);
void	closedirp(DIR **);

#define cleanup_free  __attribute__((cleanup(freep)))
#define cleanup_fd    __attribute__((cleanup(closep)))
#define cleanup_strv  __attribute__((cleanup(strvfreep)))
#define cleanup_file  __attribute__((cleanup(fclosep)))
#define cleanup_dir   __attribute__((cleanup(closedirp)))

static inline void *
steal_ptr_impl(void **pp)
{
	void *p = *pp;

	*pp = NULL;
	return p;
}
#define steal_ptr(pp) steal_ptr_impl((void **)(pp))

static inline int
steal_fd(int *fdp)
{
	int fd = *fdp;

	*fdp = -1;
	return fd;
}

/* NULL-terminated string vectors. */
size_t	 strv_len(char *const *);
void	 strv_push(char ***, size_t *, char *);	/* takes the string */
void	 strv_free(char **);

/* Milliseconds: CLOCK_MONOTONIC for deadlines, CLOCK_REALTIME for records. */
int64_t	 now_mono_ms(void);
int64_t	 now_wall_ms(void);

/* Does s begin, or end, with the given string? ("" always does.) */
bool	 str_has_prefix(const char *s, const char *prefix);
bool	 str_has_suffix(const char *s, const char *suffix);

/*
 * The whole of a file, at most max bytes: a malloc'd buffer in *ret with a
 * NUL after its *len bytes (the file may hold NULs of its own). 0;
 * -EFBIG when it holds more than max bytes; or -errno. read_fd_max reads
 * fd from its offset (the caller's fd, left open); read_file_max opens
 * path and sets *cause (may be NULL) to "PATH: why" on failure.
 */
int	 read_fd_max(int fd, size_t max, char **ret, size_t *len);
int	 read_file_max(const char *path, size_t max, char **ret, size_t *len,
	    char **cause);

/* Write all of buf, retrying on EINTR; 0 or -errno. */
int	 write_all(int, const void *, size_t);
/* The whole pages inside [p, p + len) of private anonymous memory (a
 * static buffer, say) given back to the kernel: they read as zeros when
 * next touched, and the bytes of the partial pages at either end stay. */
void	 pages_release(void *p, size_t len);
/* n bytes as 2n lower-case hex digits and a NUL. */
void	 hex_encode(const uint8_t *, size_t n, char *out);
/* mkdir -p with mode for the folders it creates; 0 or -errno. */
int	 mkdir_p(const char *, unsigned int);

/*
 * The name of uid in a passwd-format file (/etc/passwd), copied into name;
 * 0 if found, -ENOENT if not, or -errno. The file alone, not NSS: the
 * sandbox sees that file and nothing else, and NSS modules (systemd,
 * LDAP) would cost a run a millisecond and half a megabyte to load.
 */
int	 passwd_file_name(const char *file, unsigned int uid, char *name,
	    size_t size);

/* ms since the epoch as RFC 3339 UTC with milliseconds,
 * "2026-12-01T11:03:38.123Z" (24 characters and a NUL). */
#define TIME_RFC3339_LEN 64
void	 time_rfc3339(int64_t ms, char buf[TIME_RFC3339_LEN]);
/* ms since the epoch as RFC 3339 local time to the second with its
 * offset, "2026-12-01T12:03:38+01:00" ("Z" where local time is UTC):
 * what a person reads in `ward log` and `ward gc`, never ambiguous. */
void	 time_local_rfc3339(int64_t ms, char buf[TIME_RFC3339_LEN]);
/* A size as a person reads it: "512 B", "12.3 KiB", "4.0 GiB". */
void	 size_human(int64_t n, char *buf, size_t len);
