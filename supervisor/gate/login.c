/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/login.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nettle/hmac.h>

#include "config/util.h"
#include "supervisor/gate/buf.h"
#include "supervisor/gate/lock.h"
#include "supervisor/gate/wire.h"

/* The keeper's messages: the secret's index in the policy, then
 * NUL-terminated field path and token pairs; its reply a status and
 * text. */
#define KEEPER_MSG_MAX	(64 * 1024)

void
login_phantom(const unsigned char *key, const char *name, const char *field,
    const char *value, size_t n, char out[SECRETS_PHANTOM_LEN + 1])
{
	/* Its own label: these never equal a variable's phantom. */
	static const char label[] = "ward login phantom v1";
	struct hmac_sha256_ctx ctx;
	uint8_t mac[SHA256_DIGEST_SIZE];

	hmac_sha256_set_key(&ctx, SECRETS_KEY_LEN, key);
	hmac_sha256_update(&ctx, sizeof label, (const uint8_t *)label);
	hmac_sha256_update(&ctx, strlen(name) + 1, (const uint8_t *)name);
	hmac_sha256_update(&ctx, strlen(field) + 1, (const uint8_t *)field);
	hmac_sha256_update(&ctx, n, (const uint8_t *)value);
	hmac_sha256_digest(&ctx, sizeof mac, mac);
	memcpy(out, SECRETS_PREFIX, sizeof SECRETS_PREFIX - 1);
	hex_encode(mac, 16, out + sizeof SECRETS_PREFIX - 1);
	explicit_bzero(&ctx, sizeof ctx);
	explicit_bzero(mac, sizeof mac);
}

static bool
b64url(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

size_t
login_jwt_sig(const char *v, size_t n)
{
	size_t dots = 0, sig = 0;

	/* A JOSE header is a JSON object: base64url of "{" ... is "eyJ". */
	if (n < 8 || strncmp(v, "eyJ", 3) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '.') {
			if (++dots > 2 || i == 0 || v[i - 1] == '.')
				return 0;
			sig = i + 1;
		} else if (!b64url(v[i]))
			return 0;
	}
	return dots == 2 && sig < n ? sig : 0;
}

/* The node at a dotted path of object keys, or NULL. */
static json_t *
json_at(json_t *root, const char *path)
{
	cleanup_free char *p = xstrdup(path);
	char *save = NULL;
	json_t *j = root;

	for (char *k = strtok_r(p, ".", &save); k != NULL && j != NULL;
	    k = strtok_r(NULL, ".", &save))
		j = json_is_object(j) ? json_object_get(j, k) : NULL;
	return j;
}

/* A token goes in a header and in JSON as it is: no line break, NUL,
 * quote, backslash or control character. */
static bool
token_ok(const char *v, size_t n)
{
	if (n == 0 || n >= SECRETS_VALUE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == '"' || v[i] == '\\' ||
		    v[i] == 0x7f)
			return false;
	return true;
}

/* b's bytes as a NUL-terminated string (*len bytes); b wiped, freed. */
static char *
buf_take(struct buf *b, size_t *len)
{
	char *out = xmalloc(b->len + 1);

	memcpy(out, buf_data(b), b->len);
	out[b->len] = '\0';
	*len = b->len;
	if (b->p != NULL)
		explicit_bzero(b->p, b->cap);
	buf_free(b);
	return out;
}

/* text with each "from[i]" (quoted, as JSON holds a string that needs
 * no escape) made "to[i]"; NULL when some from[i] is not there. */
static char *
swap_strings(const char *text, size_t len, const char *const *from,
    const char *const *to, size_t n, size_t *outlen)
{
	struct buf b = { 0 };
	size_t pos = 0;
	bool *seen = xcalloc(n ? n : 1, sizeof *seen);

	while (pos < len) {
		const char *q = memchr(text + pos, '"', len - pos);
		size_t at, k;

		if (q == NULL)
			break;
		at = (size_t)(q - text);
		for (k = 0; k < n; k++) {
			size_t fl = strlen(from[k]);

			if (at + fl + 2 <= len &&
			    memcmp(text + at + 1, from[k], fl) == 0 &&
			    text[at + 1 + fl] == '"')
				break;
		}
		buf_add(&b, text + pos, at - pos);
		if (k == n) {
			buf_add(&b, "\"", 1);
			pos = at + 1;
			continue;
		}
		buf_addf(&b, "\"%s\"", to[k]);
		seen[k] = true;
		pos = at + strlen(from[k]) + 2;
	}
	buf_add(&b, text + pos, len - pos);
	for (size_t k = 0; k < n; k++)
		if (!seen[k]) {
			explicit_bzero(b.p, b.cap);
			buf_free(&b);
			free(seen);
			return NULL;
		}
	free(seen);
	return buf_take(&b, outlen);
}

/*
 * text (a JSON object) with the field paths set to the given strings:
 * the same bytes where each old string is found quoted as it was (the
 * file reads as the agent wrote it), else jansson's dump of it.
 */
static char *
json_replaced(const char *text, size_t len, json_t *root,
    const char *const *paths, const char *const *to, size_t n,
    size_t *outlen)
{
	const char **from = xcalloc(n ? n : 1, sizeof *from);
	char *out = NULL;
	bool all = true;

	for (size_t i = 0; i < n; i++) {
		json_t *j = json_at(root, paths[i]);

		from[i] = json_is_string(j) ? json_string_value(j) : NULL;
		all = all && from[i] != NULL;
	}
	if (all)
		out = swap_strings(text, len, from, to, n, outlen);
	free(from);
	if (out != NULL)
		return out;
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *p = xstrdup(paths[i]);
		char *dot = strrchr(p, '.');
		json_t *parent = root;

		if (dot != NULL) {
			*dot = '\0';
			parent = json_at(root, p);
		}
		if (json_is_object(parent))
			json_object_set_new(parent, dot ? dot + 1 : p,
			    json_string(to[i]));
	}
	out = json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(2));
	*outlen = out != NULL ? strlen(out) : 0;
	return out;
}

/* What the file reads inside for the value v of field sc: a JWT's
 * header and payload with the phantom as its signature. */
static char *
inside_token(const struct secret *sc, const char *v, size_t n)
{
	size_t sig = login_jwt_sig(v, n);

	return xasprintf("%.*s%s", (int)sig, v, sc->phantom);
}

/* Set sc's value to token v[0..n) and make its phantom. */
static void
set_token(struct secrets *s, struct secret *sc, const char *v, size_t n)
{
	size_t sig = login_jwt_sig(v, n);

	explicit_bzero(sc->value, SECRETS_VALUE_MAX);
	memcpy(sc->value, v + sig, n - sig);
	sc->len = n - sig;
	login_phantom(s->key, sc->ps->name, sc->ps->fields[sc->field].path, v,
	    n, sc->phantom);
}

/*
 * The copy's tokens made phantoms where the file holds them as other
 * strings' parts too ("Bearer TOKEN" in a header a file keeps): every
 * value of the secrets from s->v[first] on found anywhere in out. out is
 * freed; the new text is returned.
 */
static char *
phantoms_elsewhere(const struct secrets *s, size_t first, char *out,
    size_t *olen)
{
	struct buf b = { 0 };
	size_t pos = 0;

	while (pos < *olen) {
		const struct secret *best = NULL;
		const char *at = NULL;

		for (size_t i = first; i < s->n; i++) {
			const char *hit;

			if (s->v[i].len == 0 || (hit = memmem(out + pos,
			    *olen - pos, s->v[i].value, s->v[i].len)) == NULL)
				continue;
			if (at == NULL || hit < at ||
			    (hit == at && s->v[i].len > best->len)) {
				at = hit;
				best = &s->v[i];
			}
		}
		if (best == NULL)
			break;
		buf_add(&b, out + pos, (size_t)(at - out) - pos);
		buf_add(&b, best->phantom, SECRETS_PHANTOM_LEN);
		pos = (size_t)(at - out) + best->len;
	}
	if (pos == 0 && b.len == 0)
		return out;	/* none: as it was */
	buf_add(&b, out + pos, *olen - pos);
	explicit_bzero(out, *olen);
	free(out);
	return buf_take(&b, olen);
}

static int
read_login(const char *path, char **text, size_t *len, char **why)
{
	cleanup_fd int fd = -1;
	struct stat st;
	int r;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		*why = xasprintf("%s: %s", path, errno == ELOOP ?
		    "a symbolic link (ward rewrites the file on a refresh: "
		    "name the file itself)" : strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = xasprintf("%s: not a regular file", path);
		return -EINVAL;
	}
	if ((r = read_fd_max(fd, LOGIN_FILE_MAX, text, len)) < 0)
		*why = xasprintf("%s: %s", path, r == -EFBIG ?
		    "longer than 256 KiB" : strerror(-r));
	return r;
}

int
login_load(struct secrets *s, const struct policy_secret *ps,
    const char *given, char **cause)
{
	cleanup_free char *text = NULL, *why = NULL;
	const char **paths = NULL, **to = NULL;
	char **made = NULL;
	size_t len = 0, first = s->n, n_to = 0;
	json_error_t jerr;
	json_t *root;
	int r = 0;

	if (given != NULL) {
		text = xstrdup(given);
		len = strlen(given);
	} else if ((r = read_login(ps->file, &text, &len, &why)) < 0) {
		if (r == -ENOENT)
			r = 0;	/* not logged in on the host: skipped */
		else
			set_cause(cause, "[secret %s] from = %s: %s", ps->name,
			    ps->from, why);
		/* Its fields' slots all the same, empty: a refresh never
		 * comes, and scrub and phantom_in skip them. */
		for (size_t i = 0; i < ps->n_fields; i++)
			s->v[s->n++] = (struct secret){ .ps = ps,
			    .field = (int)i, .value = (char *)s->map +
			    (first + i) * SECRETS_VALUE_MAX };
		return r;
	}
	if ((root = json_loadb(text, len, 0, &jerr)) == NULL ||
	    !json_is_object(root)) {
		/* Not jerr.text: it quotes the text near the error, which
		 * may be a token ("near '"sk-ant-..."). */
		if (root == NULL)
			set_cause(cause, "[secret %s] from = %s: not JSON "
			    "(line %d, column %d)", ps->name, ps->from,
			    jerr.line, jerr.column);
		else
			set_cause(cause, "[secret %s] from = %s: not a JSON "
			    "object", ps->name, ps->from);
		json_decref(root);
		explicit_bzero(text, len);
		return -EINVAL;
	}
	paths = xcalloc(ps->n_fields, sizeof *paths);
	to = xcalloc(ps->n_fields, sizeof *to);
	made = xcalloc(ps->n_fields, sizeof *made);
	for (size_t i = 0; i < ps->n_fields; i++) {
		struct secret *sc = &s->v[s->n++];
		json_t *j = json_at(root, ps->fields[i].path);
		const char *v = json_is_string(j) ? json_string_value(j) : NULL;
		size_t vn = v != NULL ? json_string_length(j) : 0;

		*sc = (struct secret){ .ps = ps, .field = (int)i,
		    .value = (char *)s->map + (first + i) * SECRETS_VALUE_MAX };
		/* Not a string (absent, null: Codex's OPENAI_API_KEY with a
		 * ChatGPT login): nothing to keep, until a refresh. */
		if (v == NULL || vn == 0)
			continue;
		if (!token_ok(v, vn)) {
			set_cause(cause, "[secret %s] from = %s: %s holds a "
			    "token ward cannot carry (a quote, backslash or "
			    "control character, or over 8 KiB)", ps->name,
			    ps->from, ps->fields[i].path);
			r = -EINVAL;
			break;
		}
		set_token(s, sc, v, vn);
		paths[n_to] = ps->fields[i].path;
		made[n_to] = inside_token(sc, v, vn);
		to[n_to] = made[n_to];
		n_to++;
	}
	if (r == 0) {
		struct secret_file *sf;
		size_t olen = 0;
		char *out = json_replaced(text, len, root, paths, to, n_to,
		    &olen);

		if (out == NULL) {
			set_cause(cause, "[secret %s] from = %s: cannot write "
			    "its copy for the sandbox", ps->name, ps->from);
			r = -ENOMEM;
		} else {
			out = phantoms_elsewhere(s, first, out, &olen);
			s->files = xreallocarray(s->files, s->n_files + 1,
			    sizeof *s->files);
			sf = &s->files[s->n_files++];
			*sf = (struct secret_file){ ps, out, olen };
		}
	}
	for (size_t i = 0; i < n_to; i++)
		free(made[i]);
	free(made);
	free(paths);
	free(to);
	json_decref(root);
	explicit_bzero(text, len);
	return r;
}

int
login_write_inside(const struct secrets *s, const char *rundir, char **cause)
{
	for (size_t i = 0; i < s->n_files; i++) {
		const struct secret_file *sf = &s->files[i];
		cleanup_free char *path = xasprintf("%s/" GATE_LOGIN_FILE,
		    rundir, sf->ps->name);
		cleanup_fd int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC);

		if (fd < 0 || write_all(fd, sf->inside, sf->len) < 0) {
			set_cause(cause, "[secret %s]: %s: %s", sf->ps->name,
			    path, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* ---- the keeper ---- */

/*
 * Write the fields into the host's file ps->file: read it again (the
 * host's own agent may have changed it), each field set, written over
 * the same file, in place. Not renamed over it: a rename deletes the
 * name the sandbox's copy is mounted on, and the kernel then drops that
 * mount in every namespace, showing the sandbox the host's file. So a
 * whole copy goes first into a new file beside it (O_EXCL, the file's
 * mode, synced), then the file is rewritten and synced, then the copy
 * removed: a crash between leaves the new tokens whole beside it.
 */
static int
keep(const struct policy_secret *ps, const char *const *paths,
    const char *const *vals, size_t n, char **why)
{
	cleanup_free char *dir = xstrdup(ps->file), *base = xstrdup(ps->file);
	cleanup_free char *text = NULL, *out = NULL, *tmp = NULL;
	cleanup_fd int dfd = -1, fd = -1, tfd = -1;
	json_error_t jerr;
	json_t *root = NULL;
	struct stat st;
	size_t len = 0, olen = 0;
	int r;

	if ((dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		goto sys;
	if ((fd = openat(dfd, basename(base), O_RDWR | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		goto sys;
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid()) {
		*why = xstrdup("not a regular file of ours");
		return -EPERM;
	}
	if ((r = read_fd_max(fd, LOGIN_FILE_MAX, &text, &len)) < 0) {
		*why = xstrdup(strerror(-r));
		return r;
	}
	if ((root = json_loadb(text, len, 0, &jerr)) == NULL ||
	    !json_is_object(root)) {
		/* jerr.text may quote a token: its place only. */
		*why = root == NULL ? xasprintf("not JSON now (line %d, "
		    "column %d)", jerr.line, jerr.column) :
		    xstrdup("not a JSON object now");
		json_decref(root);
		explicit_bzero(text, len);
		return -EINVAL;
	}
	out = json_replaced(text, len, root, paths, vals, n, &olen);
	json_decref(root);
	explicit_bzero(text, len);
	if (out == NULL) {
		*why = xstrdup("cannot make its new text");
		return -ENOMEM;
	}
	for (int tries = 0; tfd < 0 && tries < 8; tries++) {
		unsigned char rnd[6];
		char hex[13];

		if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
			goto sys_out;
		hex_encode(rnd, sizeof rnd, hex);
		free(tmp);
		tmp = xasprintf(".%s.ward-%s", basename(base), hex);
		tfd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, st.st_mode & 0600);
		if (tfd < 0 && errno != EEXIST)
			break;
	}
	if (tfd < 0)
		goto sys_out;
	if (write_all(tfd, out, olen) < 0 || fsync(tfd) < 0 ||
	    pwrite(fd, out, olen, 0) != (ssize_t)olen ||
	    ftruncate(fd, (off_t)olen) < 0 || fsync(fd) < 0) {
		r = -errno;
		*why = xasprintf("%s (the new tokens are whole in %s)",
		    strerror(errno), tmp);
		explicit_bzero(out, olen);
		return r;
	}
	(void)unlinkat(dfd, tmp, 0);
	explicit_bzero(out, olen);
	return 0;
sys_out:
	explicit_bzero(out, olen);
sys:
	r = -errno;
	*why = xstrdup(strerror(errno));
	return r;
}

/* The keeper's loop: one message, one write, one reply; the gate's end
 * closed, it exits. */
static void __attribute__((noreturn))
keeper_main(int sock, const struct secrets *s)
{
	char *msg = xmalloc(KEEPER_MSG_MAX + 1);

	for (;;) {
		ssize_t n = recv(sock, msg, KEEPER_MSG_MAX, 0);
		const char *paths[64], *vals[64];
		size_t k = 0, at = sizeof(uint32_t);
		uint32_t idx;
		cleanup_free char *why = NULL;
		const struct policy_secret *ps = NULL;
		char reply[512];
		int r = -EPROTO;

		if (n <= 0)
			_exit(0);
		msg[n] = '\0';
		if ((size_t)n >= sizeof idx) {
			memcpy(&idx, msg, sizeof idx);
			for (size_t i = 0; i < s->n_files; i++)
				if (i == idx)
					ps = s->files[i].ps;
		}
		while (ps != NULL && at < (size_t)n && k < ARRAY_SIZE(paths)) {
			const char *p = msg + at, *v;

			at += strlen(p) + 1;
			if (at >= (size_t)n)
				break;
			v = msg + at;
			at += strlen(v) + 1;
			/* Only the secret's own fields, never another key. */
			for (size_t i = 0; i < ps->n_fields; i++)
				if (strcmp(ps->fields[i].path, p) == 0) {
					paths[k] = ps->fields[i].path;
					vals[k++] = v;
					break;
				}
		}
		if (ps != NULL && k > 0)
			r = keep(ps, paths, vals, k, &why);
		explicit_bzero(msg, (size_t)n);
		snprintf(reply, sizeof reply, "%d %s", r, r == 0 ? "" :
		    why != NULL ? why : "a malformed message");
		(void)send(sock, reply, strlen(reply), MSG_NOSIGNAL);
	}
}

int
login_keeper_start(struct secrets *s, char **cause)
{
	char *why = NULL;
	bool wanted = false;
	int sv[2];
	pid_t pid;

	for (size_t i = 0; i < s->n_files; i++)
		wanted = wanted || s->files[i].ps->refresh.host != NULL;
	if (!wanted)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		set_cause(cause, "the login keeper: socketpair: %s",
		    strerror(errno));
		return -errno;
	}
	if ((pid = fork()) < 0) {
		set_cause(cause, "the login keeper: fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() == 1)
			_exit(0);
		/* Nothing of the gate's but this socket: not the wire,
		 * not a connection. */
		if (dup2(sv[1], 3) < 0)
			_exit(1);
		(void)close_range(4, ~0U, 0);
		/* The gate's own lock, and the file calls its work needs. */
		if (lock_apply_keeper(&why) < 0)
			_exit(1);
		keeper_main(3, s);
	}
	close(sv[1]);
	s->keeper = sv[0];
	return 0;
}

void
login_done(struct secrets *s)
{
	for (size_t i = 0; i < s->n_files; i++) {
		explicit_bzero(s->files[i].inside, s->files[i].len);
		free(s->files[i].inside);
	}
	free(s->files);
	s->files = NULL;
	s->n_files = 0;
	if (s->keeper >= 0)
		close(s->keeper);
	s->keeper = -1;
}

/* ---- a refresh ---- */

int
login_renew(struct secrets *s, const struct policy_secret *ps,
    const char *body, size_t n, char **out, size_t *outlen, char **what)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, n, 0, &jerr);
	struct buf m = { 0 }, names = { 0 };
	const char **replies = xcalloc(ps->n_fields + 1, sizeof *replies);
	char **inside = xcalloc(ps->n_fields + 1, sizeof *inside);
	uint32_t idx = UINT32_MAX;
	size_t renewed = 0;
	char reply[512];
	ssize_t got;
	int r = 1;

	*out = NULL;
	*outlen = 0;
	if (!json_is_object(root)) {
		*what = xstrdup("the token endpoint's reply is not a JSON "
		    "object");
		r = -EPROTO;
		goto done;
	}
	for (size_t i = 0; i < s->n_files; i++)
		if (s->files[i].ps == ps)
			idx = (uint32_t)i;
	buf_add(&m, &idx, sizeof idx);
	for (size_t i = 0; i < s->n; i++) {
		struct secret *sc = &s->v[i];
		const struct policy_secret_field *fl;
		json_t *j;
		const char *v;
		size_t vn;

		if (sc->ps != ps || sc->field < 0)
			continue;
		fl = &ps->fields[sc->field];
		if (fl->reply == NULL ||
		    !json_is_string(j = json_at(root, fl->reply)))
			continue;
		v = json_string_value(j);
		vn = json_string_length(j);
		/* One ward cannot carry must not reach the sandbox as it
		 * is: the reply is not passed on. */
		if (!token_ok(v, vn)) {
			*what = xasprintf("the reply's %s is no token ward can "
			    "carry (a quote, backslash or control character, "
			    "or over 8 KiB)", fl->reply);
			r = -EPROTO;
			goto done;
		}
		set_token(s, sc, v, vn);
		buf_add(&m, fl->path, strlen(fl->path) + 1);
		buf_add(&m, v, vn);
		buf_add(&m, "", 1);
		buf_addf(&names, "%s%s", renewed ? ", " : "", fl->reply);
		replies[renewed] = fl->reply;
		inside[renewed] = inside_token(sc, v, vn);
		renewed++;
	}
	if (renewed == 0) {
		*what = xstrdup("the reply renews no token");
		r = 0;
		goto done;
	}
	/* The reply as the sandbox reads it: each new token its phantom,
	 * however the upstream spelled it (an escaped "\/" too). */
	*out = json_replaced(body, n, root, replies,
	    (const char *const *)inside, renewed, outlen);
	if (*out == NULL) {
		*what = xstrdup("cannot make the reply with phantoms");
		r = -EPROTO;
		goto done;
	}
	buf_add(&names, "", 1);
	if (s->keeper < 0 || idx == UINT32_MAX)
		*what = xasprintf("%s renewed for this run; %s not written "
		    "(no keeper)", buf_data(&names), ps->file);
	else if (send(s->keeper, buf_data(&m), m.len, MSG_NOSIGNAL) < 0 ||
	    (got = recv(s->keeper, reply, sizeof reply - 1, 0)) <= 0)
		*what = xasprintf("%s renewed for this run; %s not written "
		    "(the keeper is gone)", buf_data(&names), ps->file);
	else {
		reply[got] = '\0';
		*what = strncmp(reply, "0 ", 2) == 0 ?
		    xasprintf("%s written to %s", buf_data(&names), ps->file) :
		    xasprintf("%s renewed for this run; %s not written: %s",
		    buf_data(&names), ps->file, strchr(reply, ' ') ?
		    strchr(reply, ' ') + 1 : reply);
	}
done:
	json_decref(root);
	for (size_t i = 0; i < renewed; i++)
		free(inside[i]);
	free(inside);
	free(replies);
	if (m.p != NULL)
		explicit_bzero(m.p, m.cap);
	buf_free(&m);
	buf_free(&names);
	return r;
}
