/* SPDX-License-Identifier: MIT */
#include "supervisor/journal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/util.h"

/* How often a sink whose daemon was gone is tried again. */
#define JOURNAL_RETRY_MS	1000

struct journal_sink {
	int		 fd;		/* -1: not connected */
	const char	*path;
	int64_t		 retry_ms;	/* mono: no connect before this */
	bool		 on;
};

struct journal {
	struct journal_sink native;
	struct journal_sink syslog;
	char		 host[256];
	int		 pid;
	uint64_t	 dropped;
	uint64_t	 sent;
};

static const char *
journal_path(const char *var, const char *dflt)
{
	const char *p = getenv(var);

	return p != NULL && *p != '\0' ? p : dflt;
}

static void
journal_connect(struct journal_sink *k)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (k->fd >= 0 || now_mono_ms() < k->retry_ms)
		return;
	k->retry_ms = now_mono_ms() + JOURNAL_RETRY_MS;
	if (strlen(k->path) >= sizeof sa.sun_path)
		return;
	strcpy(sa.sun_path, k->path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return;
	}
	k->fd = fd;
}

struct journal *
journal_open(enum journal_want want, bool syslog)
{
	struct journal *j;
	const char *jpath = journal_path("WARD_JOURNAL_SOCKET",
	    JOURNAL_SOCKET);

	if (want == JOURNAL_AUTO)
		want = access(jpath, F_OK) == 0 ? JOURNAL_ON : JOURNAL_OFF;
	if (want == JOURNAL_OFF && !syslog)
		return NULL;
	j = xcalloc(1, sizeof *j);
	j->native = (struct journal_sink){ .fd = -1, .path = jpath,
	    .on = want == JOURNAL_ON };
	j->syslog = (struct journal_sink){ .fd = -1,
	    .path = journal_path("WARD_SYSLOG_SOCKET", SYSLOG_SOCKET),
	    .on = syslog };
	if (gethostname(j->host, sizeof j->host - 1) < 0 || j->host[0] == '\0')
		strcpy(j->host, "-");
	j->pid = (int)getpid();
	if (j->native.on)
		journal_connect(&j->native);
	if (j->syslog.on)
		journal_connect(&j->syslog);
	return j;
}

void
journal_free(struct journal *j)
{
	if (j == NULL)
		return;
	if (j->native.fd >= 0)
		close(j->native.fd);
	if (j->syslog.fd >= 0)
		close(j->syslog.fd);
	free(j);
}

uint64_t
journal_dropped(const struct journal *j)
{
	return j != NULL ? j->dropped : 0;
}

uint64_t
journal_sent(const struct journal *j)
{
	return j != NULL ? j->sent : 0;
}

/* ------------------------------------------------------------------ */

struct journal_buf {
	char	*p;
	size_t	 len, cap;
};

static void
jb_add(struct journal_buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
jb_str(struct journal_buf *b, const char *s)
{
	jb_add(b, s, strlen(s));
}

/* One field of the native protocol: KEY=value\n, or, for a value with a
 * newline (a hostile path may hold one), KEY\n, its length as 64-bit
 * little endian, the bytes, \n: a value can never forge a field. */
static void
jb_field(struct journal_buf *b, const char *key, const char *v)
{
	size_t n;

	if (v == NULL)
		return;
	n = strlen(v);
	jb_str(b, key);
	if (memchr(v, '\n', n) == NULL) {
		jb_add(b, "=", 1);
	} else {
		unsigned char le[8];

		for (int i = 0; i < 8; i++)
			le[i] = (unsigned char)((uint64_t)n >> (8 * i));
		jb_add(b, "\n", 1);
		jb_add(b, le, sizeof le);
	}
	jb_add(b, v, n);
	jb_add(b, "\n", 1);
}

/* "run 1a2b3c4d write deny: /etc/passwd (policy, policy)" on one line,
 * every byte of the program's escaped. */
static char *
journal_message(const struct audit_event *ev, const char *state)
{
	cleanup_free char *subj = escape_str(ev->subject != NULL ?
	    ev->subject : "");
	cleanup_free char *by = escape_str(ev->decided_by != NULL ?
	    ev->decided_by : "-");
	cleanup_free char *run = escape_str(ev->run != NULL ? ev->run : "-");

	return xasprintf("run %s %s %s: %s (%s, %s)%s%s", run,
	    request_kind_name(ev->kind), verdict_name(ev->verdict), subj,
	    how_name(ev->how), by, state != NULL ? " " : "",
	    state != NULL ? state : "");
}

/* syslog severity: notice for what was refused or killed, info else. */
static int
journal_priority(const struct audit_event *ev)
{
	return ev->verdict == VERDICT_DENY || ev->verdict == VERDICT_KILL ?
	    5 : 6;
}

char *
journal_native(const struct audit_event *ev, const char *state,
    size_t *len)
{
	struct journal_buf b = { 0 };
	cleanup_free char *msg = journal_message(ev, state);
	char num[32];

	jb_field(&b, "MESSAGE", msg);
	snprintf(num, sizeof num, "%d", journal_priority(ev));
	jb_field(&b, "PRIORITY", num);
	jb_field(&b, "SYSLOG_IDENTIFIER", "ward");
	jb_field(&b, "WARD_RUN", ev->run);
	jb_field(&b, "WARD_KIND", request_kind_name(ev->kind));
	jb_field(&b, "WARD_VERDICT", verdict_name(ev->verdict));
	jb_field(&b, "WARD_HOW", how_name(ev->how));
	jb_field(&b, "WARD_SUBJECT", ev->subject);
	jb_field(&b, "WARD_SUBJECT2", ev->subject2);
	jb_field(&b, "WARD_SYSCALL", ev->syscall);
	jb_field(&b, "WARD_RULE", ev->rule);
	jb_field(&b, "WARD_DECIDED_BY", ev->decided_by);
	snprintf(num, sizeof num, "%" PRId64, ev->wait_ms);
	jb_field(&b, "WARD_WAIT_MS", num);
	snprintf(num, sizeof num, "%" PRIu64, ev->request_id);
	jb_field(&b, "WARD_REQUEST", num);
	snprintf(num, sizeof num, "%d", (int)ev->pid);
	jb_field(&b, "WARD_PID", num);
	snprintf(num, sizeof num, "%" PRId64, ev->time_ms);
	jb_field(&b, "WARD_TIME_MS", num);
	jb_field(&b, "WARD_STATE", state);
	*len = b.len;
	return b.p;
}

/* An RFC 5424 PARAM-VALUE: '"', '\' and ']' escaped; the program's
 * bytes escaped first (one line, printable). */
static void
jb_param(struct journal_buf *b, const char *name, const char *v)
{
	cleanup_free char *e = NULL;

	if (v == NULL)
		return;
	e = escape_str(v);
	jb_str(b, " ");
	jb_str(b, name);
	jb_str(b, "=\"");
	for (const char *s = e; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\' || *s == ']')
			jb_add(b, "\\", 1);
		jb_add(b, s, 1);
	}
	jb_str(b, "\"");
}

/*
 * <PRI>1 TIMESTAMP HOST ward PID - [ward@32473 ...] MESSAGE
 * Facility user (1); 32473 is the private enterprise number RFC 5612
 * sets aside for examples, as ward has none of its own.
 */
char *
journal_rfc5424(const struct audit_event *ev, const char *state,
    const char *host, int pid, size_t *len)
{
	struct journal_buf b = { 0 };
	cleanup_free char *msg = journal_message(ev, state);
	char ts[TIME_RFC3339_LEN], num[32], *head;

	time_rfc3339(ev->time_ms, ts);
	head = xasprintf("<%d>1 %s %s ward %d - [ward@32473", 8 +
	    journal_priority(ev), ts, host, pid);
	jb_str(&b, head);
	free(head);
	jb_param(&b, "run", ev->run);
	jb_param(&b, "kind", request_kind_name(ev->kind));
	jb_param(&b, "verdict", verdict_name(ev->verdict));
	jb_param(&b, "how", how_name(ev->how));
	jb_param(&b, "subject", ev->subject);
	jb_param(&b, "decided_by", ev->decided_by);
	snprintf(num, sizeof num, "%" PRId64, ev->wait_ms);
	jb_param(&b, "wait_ms", num);
	snprintf(num, sizeof num, "%" PRIu64, ev->request_id);
	jb_param(&b, "request", num);
	jb_param(&b, "state", state);
	jb_str(&b, "] ");
	jb_str(&b, msg);
	*len = b.len;
	return b.p;
}

static void
journal_emit(struct journal *j, struct journal_sink *k, const char *buf,
    size_t len)
{
	journal_connect(k);
	if (k->fd < 0) {
		j->dropped++;
		return;
	}
	if (send(k->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    (ssize_t)len) {
		j->sent++;
		return;
	}
	j->dropped++;
	/* The daemon restarted (or went): connect again, later. */
	if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS &&
	    errno != EMSGSIZE) {
		close(k->fd);
		k->fd = -1;
	}
}

void
journal_send(struct journal *j, const struct audit_event *ev,
    const char *state)
{
	char *buf;
	size_t len;

	if (j == NULL)
		return;
	if (j->native.on) {
		buf = journal_native(ev, state, &len);
		journal_emit(j, &j->native, buf, len);
		free(buf);
	}
	if (j->syslog.on) {
		buf = journal_rfc5424(ev, state, j->host, j->pid, &len);
		journal_emit(j, &j->syslog, buf, len);
		free(buf);
	}
}
