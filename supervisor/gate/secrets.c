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

#include <nettle/hmac.h>
#include <sys/stat.h>

#include "config/paths.h"
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

/* n random bytes. */
static int
fill_random(unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		got += (size_t)r;
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
	if (str_has_prefix(from, "env:")) {
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
	if (str_has_prefix(from, "file:"))
		return from_file(from + 5, dst, len, why);
	if (str_has_prefix(from, "command:"))
		return from_command(from + 8, dst, len, why);
	*why = xstrdup("not env:, file: or command:");
	return -EINVAL;
}

/*
 * The user's phantom key: STATE/phantom.key, 32 random bytes made on
 * first use. It is what makes a phantom stable across runs (an agent
 * that asks once to approve "this key" is not asked each run) yet
 * different for every user, and it never depends on a secret's value.
 * Made under a temporary name and linked into place, so that two runs
 * starting at once read one key, never half of one.
 */
static int
key_make(int dirfd, const char *dir, char **cause)
{
	unsigned char key[SECRETS_KEY_LEN];
	char tmp[64];
	cleanup_fd int fd = -1;
	int r;

	if ((r = fill_random(key, sizeof key)) < 0) {
		set_cause(cause, "getrandom: %s", strerror(-r));
		return r;
	}
	snprintf(tmp, sizeof tmp, ".phantom.key.%d", (int)getpid());
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0 ||
	    (r = write_all(fd, (const char *)key, sizeof key)) < 0 ||
	    fsync(fd) < 0) {
		r = -errno;
		set_cause(cause, "%s/%s: %s", dir, tmp, strerror(errno));
		explicit_bzero(key, sizeof key);
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	explicit_bzero(key, sizeof key);
	/* EEXIST: another run made it first; theirs is read. */
	if (linkat(dirfd, tmp, dirfd, SECRETS_KEY_FILE, 0) < 0 &&
	    errno != EEXIST) {
		r = -errno;
		set_cause(cause, "%s/%s: %s", dir, SECRETS_KEY_FILE,
		    strerror(errno));
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	(void)unlinkat(dirfd, tmp, 0);
	return 0;
}

int
secrets_key(unsigned char key[SECRETS_KEY_LEN], char **cause)
{
	cleanup_free char *dir = NULL;
	cleanup_fd int dirfd = -1, fd = -1;
	struct stat st;
	size_t n = 0;
	int r;

	if ((r = paths_state_make(&dir, cause)) < 0)
		return r;
	if ((dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		set_cause(cause, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	fd = openat(dirfd, SECRETS_KEY_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if ((r = key_make(dirfd, dir, cause)) < 0)
			return r;
		fd = openat(dirfd, SECRETS_KEY_FILE, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC);
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		set_cause(cause, "%s/%s: %s", dir, SECRETS_KEY_FILE,
		    strerror(errno));
		return r;
	}
	/* Whoever else could read it could make this user's phantoms;
	 * whoever else owns it chose them. */
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0 || st.st_size != SECRETS_KEY_LEN) {
		set_cause(cause, "%s/%s: %s; refusing it (remove it: a new "
		    "one is made)", dir, SECRETS_KEY_FILE,
		    !S_ISREG(st.st_mode) ? "not a regular file" :
		    st.st_uid != getuid() ? "not owned by us" :
		    (st.st_mode & 077) != 0 ? "others may read it" :
		    "not 32 bytes long");
		return -EPERM;
	}
	while (n < SECRETS_KEY_LEN) {
		ssize_t got = read(fd, key + n, SECRETS_KEY_LEN - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			set_cause(cause, "%s/%s: %s", dir, SECRETS_KEY_FILE,
			    got < 0 ? strerror(errno) : "short read");
			return got < 0 ? -errno : -EIO;
		}
		n += (size_t)got;
	}
	return 0;
}

void
secrets_phantom(const unsigned char key[SECRETS_KEY_LEN], const char *name,
    char out[SECRETS_PHANTOM_LEN + 1])
{
	/* A label first, so that this key's HMACs mean phantoms only. */
	static const char label[] = "ward phantom v1";
	struct hmac_sha256_ctx ctx;
	uint8_t mac[SHA256_DIGEST_SIZE];

	hmac_sha256_set_key(&ctx, SECRETS_KEY_LEN, key);
	hmac_sha256_update(&ctx, sizeof label, (const uint8_t *)label);
	hmac_sha256_update(&ctx, strlen(name), (const uint8_t *)name);
	hmac_sha256_digest(&ctx, sizeof mac, mac);
	memcpy(out, SECRETS_PREFIX, sizeof SECRETS_PREFIX - 1);
	/* 16 bytes, 32 hex digits: the length phantoms always had. */
	hex_encode(mac, 16, out + sizeof SECRETS_PREFIX - 1);
	explicit_bzero(&ctx, sizeof ctx);
	explicit_bzero(mac, sizeof mac);
}

/* The mapping: one slot of SECRETS_VALUE_MAX per secret, locked (never
 * swapped) and left out of core dumps. */
static int
map_values(struct secrets *s, size_t n)
{
	/* and one more for the key */
	size_t len = (n + 1) * SECRETS_VALUE_MAX;
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
	s->keeper = -1;
	return 0;
}

/* The slots p's secrets take: a login file's, one per field. */
static size_t
slots(const struct policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_secrets; i++)
		n += p->secrets[i].file != NULL ? p->secrets[i].n_fields : 1;
	return n;
}

/* A secret whose source is simply absent (env: unset, file: missing):
 * its user may log in inside instead (a subscription, not a key). */
static bool
absent(const char *from, int r)
{
	return r == -ENOENT && from != NULL &&
	    (str_has_prefix(from, "env:") || str_has_prefix(from, "file:"));
}

static int
load(struct secrets *s, const struct policy *p, const char *const *values,
    char **cause)
{
	unsigned char key[SECRETS_KEY_LEN];
	int r;

	*s = (struct secrets){ 0 };
	/* Tests (values given) get a key of their own, not the user's. */
	r = values != NULL ? fill_random(key, sizeof key) :
	    p->n_secrets > 0 ? secrets_key(key, cause) : 0;
	if (r < 0) {
		if (values != NULL)
			set_cause(cause, "getrandom: %s", strerror(-r));
		return r;
	}
	if ((r = map_values(s, slots(p))) < 0) {
		set_cause(cause, "locked memory for secrets: %s", strerror(-r));
		explicit_bzero(key, sizeof key);
		return r;
	}
	/* The last slot: the key, for a refresh's phantoms. */
	s->key = (unsigned char *)s->map + s->maplen - SECRETS_VALUE_MAX;
	memcpy(s->key, key, sizeof key);
	for (size_t i = 0; i < p->n_secrets; i++) {
		const struct policy_secret *ps = &p->secrets[i];
		struct secret *sc = &s->v[s->n];
		cleanup_free char *why = NULL;

		sc->ps = ps;
		sc->field = -1;
		sc->value = (char *)s->map + s->n * SECRETS_VALUE_MAX;
		if (ps->file != NULL) {
			*sc = (struct secret){ 0 };
			if ((r = login_load(s, ps, values != NULL ? values[i] :
			    NULL, cause)) < 0)
				goto fail;
			continue;
		}
		if (values != NULL) {
			sc->len = strlen(values[i]);
			memcpy(sc->value, values[i], sc->len);
		} else if ((r = read_value(ps->from, sc->value, &sc->len,
		    &why)) < 0 && absent(ps->from, r)) {
			/* Skipped: no phantom, so the sandbox has no such
			 * variable and the agent asks for its login; the
			 * supervisor says so (our stderr is /dev/null). */
			*sc = (struct secret){ 0 };
			continue;
		} else if (r < 0) {
			set_cause(cause, "[secret %s] from = %s: %s", ps->name,
			    ps->from ? ps->from : "", why ? why : strerror(-r));
			goto fail;
		}
		s->n++;
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
			r = -EINVAL;
			goto fail;
		}
		secrets_phantom(key, ps->name, sc->phantom);
	}
	explicit_bzero(key, sizeof key);
	return 0;
fail:
	explicit_bzero(key, sizeof key);
	secrets_done(s);
	return r;
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
	login_done(s);
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
		if (s->v[i].len > 0 &&
		    memcmp(p, s->v[i].phantom, SECRETS_PHANTOM_LEN) == 0)
			return &s->v[i];
	return NULL;
}
