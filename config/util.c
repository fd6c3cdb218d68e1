/* SPDX-License-Identifier: MIT */
#include "config/util.h"

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xreallocarray(void *old, size_t n, size_t size)
{
	void *p = reallocarray(old, n ? n : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fatal("out of memory");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		fatal("out of memory");
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		fatal("out of memory");
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
set_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	free(*cause);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
}

void
warn_msgv(const char *fmt, va_list ap)
{
	fputs("ward: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_msgv(fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_msgv(fmt, ap);
	va_end(ap);
	exit(125);
}

void
closep(int *fdp)
{
	if (*fdp >= 0) {
		int saved = errno;

		close(*fdp);
		*fdp = -1;
		errno = saved;
	}
}

size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

void
strv_push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof **v);
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

void
strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
strvfreep(char ***v)
{
	strv_free(*v);
}

void
fclosep(FILE **fp)
{
	if (*fp != NULL)
		fclose(*fp);
}

void
closedirp(DIR **dp)
{
	if (*dp != NULL)
		closedir(*dp);
}

static int64_t
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
now_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

int64_t
now_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

void
pages_release(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(page - 1);

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

int
write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
mkdir_p(const char *path, unsigned int mode)
{
	cleanup_free char *p = xstrdup(path);

	for (char *s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int
passwd_file_name(const char *file, unsigned int uid, char *name, size_t size)
{
	FILE *f = fopen(file, "re");
	char line[1024];
	int r = -ENOENT;

	if (f == NULL)
		return -errno;
	while (r == -ENOENT && fgets(line, sizeof line, f) != NULL) {
		char *colon1 = strchr(line, ':'), *colon2, *end;
		size_t len = strlen(line);
		unsigned long v;
		int ch;

		/* A line too long to read whole is skipped, tail and all. */
		if (len > 0 && line[len - 1] != '\n' && !feof(f)) {
			while ((ch = getc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		/* name:password:uid:... */
		if (colon1 == NULL || colon1 == line ||
		    (colon2 = strchr(colon1 + 1, ':')) == NULL)
			continue;
		errno = 0;
		v = strtoul(colon2 + 1, &end, 10);
		if (errno != 0 || end == colon2 + 1 || *end != ':' ||
		    v != uid || colon2[1] < '0' || colon2[1] > '9')
			continue;
		*colon1 = '\0';
		if ((size_t)(colon1 - line) >= size)
			r = -ENAMETOOLONG;
		else {
			memcpy(name, line, (size_t)(colon1 - line) + 1);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

void
hex_encode(const uint8_t *d, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * n] = '\0';
}

void
time_local_rfc3339(int64_t ms, char buf[TIME_RFC3339_LEN])
{
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	struct tm tm;
	long off;

	if (localtime_r(&t, &tm) == NULL) {
		snprintf(buf, TIME_RFC3339_LEN, "-");
		return;
	}
	off = tm.tm_gmtoff / 60;
	snprintf(buf, TIME_RFC3339_LEN, "%04d-%02d-%02dT%02d:%02d:%02d",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec);
	if (off == 0)
		strcat(buf, "Z");
	else
		snprintf(buf + strlen(buf), TIME_RFC3339_LEN - strlen(buf),
		    "%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 60,
		    labs(off) % 60);
}

void
time_rfc3339(int64_t ms, char buf[TIME_RFC3339_LEN])
{
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int frac = (int)(ms - (int64_t)t * 1000);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL) {
		snprintf(buf, TIME_RFC3339_LEN, "1970-01-01T00:00:00.000Z");
		return;
	}
	snprintf(buf, TIME_RFC3339_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, frac);
}

void
size_human(int64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	size_t u = 0;

	if (n < 1024) {
		snprintf(buf, len, "%" PRId64 " B", n);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

bool
str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int
read_fd_max(int fd, size_t max, char **ret, size_t *len)
{
	cleanup_free char *buf = NULL;
	size_t n = 0, cap = 0;

	/* Room for one byte over max (to see it is there) and the NUL. */
	if (max > SIZE_MAX - 2)
		max = SIZE_MAX - 2;
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			cap = cap == 0 ? 4096 : cap * 2;
			if (cap > max + 2)
				cap = max + 2;
			buf = xrealloc(buf, cap);
		}
		got = read(fd, buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max)
			return -EFBIG;
	}
	buf[n] = '\0';
	*len = n;
	*ret = steal_ptr(&buf);
	return 0;
}

int
read_file_max(const char *path, size_t max, char **ret, size_t *len,
    char **cause)
{
	cleanup_fd int fd = -1;
	int r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		r = -errno;
	else
		r = read_fd_max(fd, max, ret, len);
	if (r == -EFBIG)
		set_cause(cause, "%s: larger than %zu bytes", path, max);
	else if (r < 0)
		set_cause(cause, "%s: %s", path, strerror(-r));
	return r;
}
