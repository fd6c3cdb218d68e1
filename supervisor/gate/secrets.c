/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/secrets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/util.h"

/* One value: read into dst (SECRETS_VALUE_MAX bytes), length in *len. */
static int
read_fd(int fd, char *dst, size_t *len)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, dst + n, SECRETS_VALUE_MAX - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == SECRETS_VALUE_MAX)
			return -E2BIG;
	}
	*len = n;
	return 0;
}

static int
from_file(const char *path, char *dst, size_t *len, char **why)
{
	cleanup_free char *full = NULL;
	cleanup_fd int fd = -1;
	int r;

	if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
		const char *home = getenv("HOME");

		if (home == NULL) {
			*why = xstrdup("HOME is not set");
			return -ENOENT;
		}
		full = xasprintf("%s%s", home, path + 1);
	} else
		full = xstrdup(path);
	if ((fd = open(full, O_RDONLY | O_CLOEXEC)) < 0) {
		*why = xasprintf("%s: %s", full, strerror(errno));
		return -errno;
	}
	if ((r = read_fd(fd, dst, len)) < 0)
		*why = xasprintf("%s: %s", full, r == -E2BIG ?
		    "longer than 8 KiB" : strerror(-r));
	return r;
}

/* sh -c CMDLINE outside the sandbox, stdin /dev/null, its stdout read;
 * stderr stays ours; no other fd of ours. */
static int
from_command(const char *cmd, char *dst, size_t *len, char **why)
{
	int pfd[2], st = 0, r;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return r;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(pfd[1], 1) < 0)
			_exit(127);
		/* Nothing of the gate's past stderr: its wire (fd 3) held
		 * by the command, or by a daemon it starts (an agent of
		 * pass or gpg), could forge messages to the supervisor, and
		 * would keep the wire open after the gate died. */
		if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	r = read_fd(pfd[0], dst, len);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (r < 0) {
		*why = xstrdup(r == -E2BIG ? "output longer than 8 KiB" :
		    strerror(-r));
		return r;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		*why = WIFEXITED(st) ?
		    xasprintf("exited with %d", WEXITSTATUS(st)) :
		    xasprintf("killed by signal %d", WTERMSIG(st));
		return -EIO;
	}
	return 0;
}

static int
read_value(const char *from, char *dst, size_t *len, char **why)
{
	if (from == NULL) {
		*why = xstrdup("no from =");
		return -EINVAL;
	}
	if (strncmp(from, "env:", 4) == 0) {
		const char *v = getenv(from + 4);

		if (v == NULL) {
			*why = xstrdup("not set");
			return -ENOENT;
		}
		if ((*len = strlen(v)) >= SECRETS_VALUE_MAX) {
			*why = xstrdup("longer than 8 KiB");
			return -E2BIG;
		}
		memcpy(dst, v, *len);
		return 0;
	}
	if (strncmp(from, "file:", 5) == 0)
		return from_file(from + 5, dst, len, why);
	if (strncmp(from, "command:", 8) == 0)
		return from_command(from + 8, dst, len, why);
	*why = xstrdup("not env:, file: or command:");
	return -EINVAL;
}

static int
make_phantom(char out[SECRETS_PHANTOM_LEN + 1])
{
	unsigned char rnd[16];
	size_t got = 0;

	while (got < sizeof rnd) {
		ssize_t r = getrandom(rnd + got, sizeof rnd - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		got += (size_t)r;
	}
	memcpy(out, SECRETS_PREFIX, sizeof SECRETS_PREFIX - 1);
	hex_encode(rnd, sizeof rnd, out + sizeof SECRETS_PREFIX - 1);
	return 0;
}

/* The mapping: one slot of SECRETS_VALUE_MAX per secret, locked (never
 * swapped) and left out of core dumps. */
static int
map_values(struct secrets *s, size_t n)
{
	size_t len = (n ? n : 1) * SECRETS_VALUE_MAX;
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	(void)madvise(m, len, MADV_DONTDUMP);
	/* mlock can fail under a small RLIMIT_MEMLOCK: the value is still
	 * never dumped (PR_SET_DUMPABLE off, MADV_DONTDUMP); say nothing
	 * that names it. */
	(void)mlock(m, len);
	s->map = m;
	s->maplen = len;
	s->v = xcalloc(n ? n : 1, sizeof *s->v);
	s->n = 0;
	return 0;
}

static int
load(struct secrets *s, const struct policy *p, const char *const *values,
    char **cause)
{
	int r;

	*s = (struct secrets){ 0 };
	if ((r = map_values(s, p->n_secrets)) < 0) {
		set_cause(cause, "locked memory for secrets: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; i < p->n_secrets; i++) {
		const struct policy_secret *ps = &p->secrets[i];
		struct secret *sc = &s->v[i];
		cleanup_free char *why = NULL;

		sc->ps = ps;
		sc->value = (char *)s->map + i * SECRETS_VALUE_MAX;
		s->n = i + 1;
		if (values != NULL) {
			sc->len = strlen(values[i]);
			memcpy(sc->value, values[i], sc->len);
		} else if ((r = read_value(ps->from, sc->value, &sc->len,
		    &why)) < 0) {
			set_cause(cause, "[secret %s] from = %s: %s", ps->name,
			    ps->from ? ps->from : "", why ? why : strerror(-r));
			secrets_done(s);
			return r;
		}
		if (sc->len > 0 && sc->value[sc->len - 1] == '\n')
			sc->value[--sc->len] = '\0';
		if (sc->len == 0 || memchr(sc->value, '\n', sc->len) != NULL ||
		    memchr(sc->value, '\r', sc->len) != NULL ||
		    memchr(sc->value, '\0', sc->len) != NULL) {
			/* A header value cannot hold a line break: refusing
			 * beats a request split in two. */
			set_cause(cause, "[secret %s] from = %s: %s", ps->name,
			    ps->from, sc->len == 0 ? "empty value" :
			    "the value holds a line break or NUL");
			secrets_done(s);
			return -EINVAL;
		}
		if ((r = make_phantom(sc->phantom)) < 0) {
			set_cause(cause, "getrandom: %s", strerror(-r));
			secrets_done(s);
			return r;
		}
	}
	return 0;
}

int
secrets_load(struct secrets *s, const struct policy *p, char **cause)
{
	return load(s, p, NULL, cause);
}

int
secrets_set(struct secrets *s, const struct policy *p,
    const char *const *values, char **cause)
{
	return load(s, p, values, cause);
}

void
secrets_done(struct secrets *s)
{
	if (s->map != NULL) {
		explicit_bzero(s->map, s->maplen);
		munlock(s->map, s->maplen);
		munmap(s->map, s->maplen);
	}
	free(s->v);
	*s = (struct secrets){ 0 };
}

const struct secret *
secrets_at(const struct secrets *s, const char *p, size_t n)
{
	if (n < SECRETS_PHANTOM_LEN)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (memcmp(p, s->v[i].phantom, SECRETS_PHANTOM_LEN) == 0)
			return &s->v[i];
	return NULL;
}
