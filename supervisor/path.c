/* SPDX-License-Identifier: MIT */
#include "supervisor/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int
path_normalize(const char *base, const char *path, char *out, size_t size)
{
	char tmp[PATH_MAX * 2], *o_buf = out;
	size_t osize = size;
	char work[PATH_MAX * 2];
	size_t o = 0;
	const char *s;
	int n;

	if (path[0] == '/')
		n = snprintf(tmp, sizeof tmp, "%s", path);
	else
		n = snprintf(tmp, sizeof tmp, "%s/%s", base, path);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return -ENAMETOOLONG;
	/* Build in a buffer as large as the input: names that a later ".."
	 * removes must not count against size. */
	out = work;
	size = sizeof work;

	for (s = tmp; *s != '\0';) {
		const char *e;
		size_t len;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchrnul(s, '/');
		len = (size_t)(e - s);
		if (len == 1 && s[0] == '.') {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + 1 + len + 1 > size)
				return -ENAMETOOLONG;
			out[o++] = '/';
			memcpy(out + o, s, len);
			o += len;
		}
		s = e;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	if (o + 1 > osize)
		return -ENAMETOOLONG;
	memcpy(o_buf, work, o + 1);
	return 0;
}

bool
path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

static int
open_in_root(int rootfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		/* Symlinks met on the way stay inside the sandbox's root;
		 * /proc magic links never lead out of it. */
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, rel[0] ? rel : ".", &how,
	    sizeof how);

	return fd < 0 ? -errno : (int)fd;
}

/*
 * The common case in one call: a path already in normal form (no ".",
 * "..", "//") with no symlink on the way is its own canonical form. One
 * openat2 that refuses symlinks tells: it opens, or stops at a missing
 * component (every one before it was checked), in place of an openat2,
 * an fstat and a close per component. 1 answered in out, 0 not (a
 * symlink, a file on the way: the walk below decides).
 */
static int
resolve_plain(int rootfd, const char *abs, bool follow_last, char *out,
    size_t size)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (follow_last ? 0 : O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};
	char norm[PATH_MAX];
	long fd;

	if (abs[0] != '/' || path_normalize("/", abs, norm, sizeof norm) < 0 ||
	    strcmp(norm, abs) != 0 || strlen(abs) + 1 > size)
		return 0;
	if ((fd = syscall(SYS_openat2, rootfd, abs[1] ? abs + 1 : ".", &how,
	    sizeof how)) >= 0)
		close((int)fd);
	else if (errno != ENOENT)
		return 0;
	memcpy(out, abs, strlen(abs) + 1);
	return 1;
}

int
path_resolve(int rootfd, const char *abs, bool follow_last, char *out,
    size_t size)
{
	char rest[PATH_MAX * 2], canon[PATH_MAX], link[PATH_MAX];
	size_t clen = 0;
	int links = 0;
	bool missing = false;

	if (strlen(abs) >= sizeof rest)
		return -ENAMETOOLONG;
	if (resolve_plain(rootfd, abs, follow_last, out, size) == 1)
		return 0;
	snprintf(rest, sizeof rest, "%s", abs);
	canon[0] = '\0';

	for (char *s = rest; *s != '\0';) {
		char comp[NAME_MAX + 1];
		char *e;
		size_t len;
		bool last;
		int fd;
		struct stat st;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchrnul(s, '/');
		len = (size_t)(e - s);
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, s, len);
		comp[len] = '\0';
		s = e;
		{
			const char *t = s;

			while (*t == '/')
				t++;
			last = *t == '\0';
		}
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			while (clen > 0 && canon[clen - 1] != '/')
				clen--;
			if (clen > 0)
				clen--;
			canon[clen] = '\0';
			continue;
		}
		if (clen + 1 + len + 1 > sizeof canon)
			return -ENAMETOOLONG;
		canon[clen] = '/';
		memcpy(canon + clen + 1, comp, len + 1);
		if (missing) {
			clen += 1 + len;
			continue;
		}
		if ((fd = open_in_root(rootfd, canon + 1)) < 0) {
			if (fd != -ENOENT)
				return fd;
			/* The rest does not exist: keep it as written. */
			missing = true;
			clen += 1 + len;
			continue;
		}
		if (fstat(fd, &st) < 0 || !S_ISLNK(st.st_mode) ||
		    (last && !follow_last)) {
			close(fd);
			clen += 1 + len;
			continue;
		}
		{
			ssize_t n = readlinkat(fd, "", link, sizeof link - 1);
			char joined[PATH_MAX * 2];

			close(fd);
			if (n < 0)
				return -errno;
			link[n] = '\0';
			if (++links > 40)
				return -ELOOP;
			if ((size_t)snprintf(joined, sizeof joined, "%s%s", link,
			    s) >= sizeof joined)
				return -ENAMETOOLONG;
			snprintf(rest, sizeof rest, "%s", joined);
			s = rest;
			/* An absolute target starts again at the root; a
			 * relative one from the folder holding the link. */
			if (link[0] == '/')
				clen = 0;
			canon[clen] = '\0';
		}
	}
	if (clen == 0) {
		if (size < 2)
			return -ENAMETOOLONG;
		strcpy(out, "/");
		return 0;
	}
	if (clen + 1 > size)
		return -ENAMETOOLONG;
	memcpy(out, canon, clen + 1);
	return 0;
}
