/* SPDX-License-Identifier: MIT */
/*
 * The record file's own safety: its folder, its owner and mode (and its
 * -wal's and -shm's), the reserve that keeps room for a run's last
 * events, and the check at start-up (PATH-lock, PATH-clean). Calls no
 * other file of the record (approvals/audit-int.h).
 */
#include "approvals/audit-write.h"
#include "approvals/audit-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/util.h"

/* The spare file beside the record: released when the disk is full, so
 * that the last events and the run's end still find room. */
#define AUDIT_RESERVE		(4 * 1024 * 1024)

/*
 * PRAGMA quick_check or integrity_check: 0 when sqlite says "ok", else
 * -EBADMSG and *ret says what it found, in sqlite's words (its first
 * three findings, or the error that stopped the check).
 */
int
audit_check_file(struct audit *a, const char *pragma, char **ret)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *sql = xasprintf("PRAGMA %s(3)", pragma);
	char *found = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(a->db, sql, -1, &s, NULL)) != SQLITE_OK) {
		*ret = xstrdup(sqlite3_errmsg(a->db));
		return -EBADMSG;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *row = (const char *)sqlite3_column_text(s, 0);
		char *t;

		if (row == NULL || strcmp(row, "ok") == 0)
			continue;
		t = xasprintf("%s%s%s", found ? found : "", found ? "; " : "",
		    row);
		free(found);
		found = t;
	}
	if (rc != SQLITE_DONE && found == NULL)
		found = xstrdup(sqlite3_errmsg(a->db));
	if (found == NULL)
		return 0;
	/* One line: sqlite starts with "*** in database main ***\n". */
	for (char *p = found; (p = strchr(p, '\n')) != NULL; )
		*p = ' ';
	*ret = found;
	return -EBADMSG;
}

bool
audit_is_file(const char *path)
{
	return path[0] != '\0' && strcmp(path, ":memory:") != 0 &&
	    !str_has_prefix(path, "file:");
}

int
audit_mkdir_parent(const char *path, char **cause)
{
	const char *slash = strrchr(path, '/');
	cleanup_free char *dir = NULL;
	int r;

	if (!audit_is_file(path) || slash == NULL || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	if ((r = mkdir_p(dir, 0700)) < 0 && cause != NULL)
		*cause = xasprintf("audit: cannot create %s: %s", dir,
		    strerror(-r));
	return r;
}

/*
 * The record and sqlite's -wal and -shm beside it: regular files, not
 * symlinks, owned by us, 0600. sqlite creates the file 0644 & ~umask and
 * gives -wal and -shm the mode (and, as root, the owner) of the database,
 * so creating it 0600 here first makes all three 0600. A file of ours
 * that is more open (an older ward's, a 0666 one) is made 0600; one that
 * is another user's is refused: they could rewrite the history.
 */
static int
audit_secure_one(const char *path, bool create, char **cause)
{
	cleanup_fd int fd = -1;
	struct stat st;
	int r;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    (create ? O_CREAT : 0), 0600);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT && !create)
			return 0;
		if (cause != NULL)
			*cause = r == -ELOOP ? xasprintf("audit: %s: is a "
			    "symlink; refusing it (remove it)", path) :
			    xasprintf("audit: %s: cannot open: %s", path,
			    strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		if (cause != NULL)
			*cause = xasprintf("audit: %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		if (cause != NULL)
			*cause = xasprintf("audit: %s: not a regular file; "
			    "refusing it (remove it)", path);
		return -EINVAL;
	}
	if (st.st_uid != getuid()) {
		if (cause != NULL)
			*cause = xasprintf("audit: %s: owned by uid %u, not by "
			    "us (uid %u); someone else could rewrite the "
			    "record: refusing it", path, (unsigned)st.st_uid,
			    (unsigned)getuid());
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0) {
		r = -errno;
		if (cause != NULL)
			*cause = xasprintf("audit: %s: mode %04o, and cannot "
			    "make it 0600: %s", path,
			    (unsigned)(st.st_mode & 07777), strerror(-r));
		return r;
	}
	return 0;
}

int
audit_secure(const char *path, char **cause)
{
	static const char *const sides[] = { "-wal", "-shm" };
	int r;

	if (!audit_is_file(path))
		return 0;
	if ((r = audit_secure_one(path, true, cause)) < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(sides); i++) {
		cleanup_free char *p = xasprintf("%s%s", path, sides[i]);

		if ((r = audit_secure_one(p, false, cause)) < 0)
			return r;
	}
	return 0;
}

/*
 * The spare file: PATH-reserve, AUDIT_RESERVE bytes really allocated on
 * the record's filesystem (which also holds the runs' /work and /out, so
 * that a program filling its disk fills ours). Every supervisor makes
 * sure it is there when it opens; the first one to find the disk full
 * releases it. No room for it: the record cannot be kept, refused.
 */
int
audit_keep_room(struct audit *a, char **cause)
{
	cleanup_free char *p = NULL;
	cleanup_fd int fd = -1;
	struct stat st;
	int r;

	if (!audit_is_file(a->path))
		return 0;
	p = xasprintf("%s-reserve", a->path);
	if ((fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		set_cause(cause, "audit: %s: cannot make the reserve: %s", p,
		    strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid()) {
		set_cause(cause, "audit: %s: not a regular file of ours; "
		    "refusing it (remove it)", p);
		return -EPERM;
	}
	if (st.st_blocks * 512 < AUDIT_RESERVE &&
	    (r = -posix_fallocate(fd, 0, AUDIT_RESERVE)) < 0) {
		(void)unlink(p);
		set_cause(cause, "audit: %s: no room for the record's %d MiB "
		    "reserve: %s", p, AUDIT_RESERVE >> 20, strerror(-r));
		return r;
	}
	a->reserve = steal_ptr(&p);
	return 0;
}

/* The disk is full: give the reserve back so that this write (and the
 * few after it, to the run's end) fit. false when none is left. */
bool
audit_reserve_release(struct audit *a)
{
	if (a->reserve == NULL || a->reserve_used)
		return false;
	a->reserve_used = true;
	return unlink(a->reserve) == 0;
}

bool
audit_low_space(const struct audit *a, char **cause)
{
	if (!a->reserve_used)
		return false;
	set_cause(cause, "audit: %s: database or disk is full (the reserve "
	    "%s was used for the last events)", a->path, a->reserve);
	return true;
}

/* ---- the check at start-up, only when there is a reason to doubt -- */

/*
 * PRAGMA quick_check reads every page: about 1 ms per MB, at every
 * start-up of every supervisor, on a file that only grows. So it runs
 * only when the file may have been damaged since it was last known good:
 *
 *  - PATH-clean, the marker, is written by the last writer to close the
 *    record cleanly: the identity (st_dev, st_ino, st_size, st_mtim,
 *    st_ctim) of the record and of its -wal as that writer left them,
 *    the boot, and when the last quick_check ran. The first writer to
 *    open the record again takes it away (it is never there while a
 *    writer has the file open) and skips the check when all of it still
 *    holds. Anything else is doubt, and doubt checks: no marker (a
 *    writer killed while it had the file open alone took it away and
 *    left none), one that does not parse or is not a 0600 regular file
 *    of ours, another boot (a power loss or an OS crash, which is what
 *    the check is for, reboots; the marker is not fsynced for that
 *    reason: after a crash it is either gone or from another boot), an
 *    identity that differs (another program wrote, touched, replaced or
 *    truncated the file or its -wal; the -wal's ctime is left out, see
 *    audit_idents), a check older than AUDIT_CHECK_AGE (silent damage
 *    on the disk is still found), or one in the future.
 *  - PATH-lock coordinates the writers of one user (supervisors, ward gc,
 *    the review verbs), by OFD locks (per open file, so two handles in
 *    one process count as two; released by the kernel when a process
 *    dies, so a SIGKILLed writer leaves nothing behind): byte 0 is the
 *    gate, held for the short decisions at open and close and through a
 *    first opener's check; byte 1 is held shared by every writer that
 *    opened the record and passed, and taken exclusive (without waiting)
 *    to learn "nobody else has it open". The file holds the identity
 *    (st_dev, st_ino) of the record the current writers passed and when
 *    it was last checked.
 *  - At open, under the gate: alone (byte 1 exclusive) -> the marker
 *    decides, as above. Not alone -> every other holder of byte 1 passed
 *    the check or a good marker before it let the gate go, and is alive
 *    (so no crash since), and sqlite's WAL survives a writer's death
 *    (SIGKILL, OOM) without damage: the check is skipped if PATH is the
 *    file they passed (same st_dev and st_ino; a record moved aside by
 *    hand and a new or other file put there is checked).
 *  - At close, under the gate: byte 1 made exclusive (atomically, from
 *    shared, without waiting) succeeds only for the last writer, which
 *    writes the marker, if the file at PATH is still the one it opened
 *    and it saw no damage or I/O error on the way. Closers go one at a
 *    time, so of two ending together the second is the last.
 *  - Read-only handles (ward log, the consoles) take no lock and never
 *    write the marker: they do not change the file (they cannot
 *    checkpoint, the file being open read-only).
 *  - Lock trouble (no lock file, the gate held too long by another, a
 *    stopped process): the opener checks as it always did and takes the
 *    marker away (it writes unseen by the others), and a closer leaves
 *    no marker.
 * Not seen: a change by another program while ward has the file open
 * (taken into the last closer's identity), or one after the last close
 * that keeps the size on a kernel that gives a file in the same clock
 * tick the same times (before Linux 6.13's fine-grained ctime): for
 * those the check every AUDIT_CHECK_AGE remains.
 */
#define AUDIT_CHECK_AGE		(7 * 24 * 3600)
/* How long an opener waits for the gate (another opener's check of a big
 * record), and a closer (which gives up the marker instead). */
#define AUDIT_GATE_OPEN_MS	5000
#define AUDIT_GATE_CLOSE_MS	1000
#define AUDIT_LOCK_GATE		0
#define AUDIT_LOCK_USERS	1

struct audit_ident {
	bool		 present;
	uint64_t	 dev, ino, size;
	int64_t		 mtime, mtime_ns, ctime, ctime_ns;
};

void
audit_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int
audit_lock(int fd, short type, off_t byte)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = byte,
		.l_len = 1,
	};

	return fcntl(fd, F_OFD_SETLK, &fl) < 0 ? -errno : 0;
}

/* The gate, waiting at most ms (polling: F_OFD_SETLKW has no timeout). */
static int
audit_gate(int fd, int ms)
{
	long delay = 1, waited = 0;
	int r;

	while ((r = audit_lock(fd, F_WRLCK, AUDIT_LOCK_GATE)) == -EAGAIN &&
	    waited < ms) {
		nanosleep(&(struct timespec){ .tv_nsec = delay * 1000000L },
		    NULL);
		waited += delay;
		delay = delay * 2 > 50 ? 50 : delay * 2;
	}
	return r;
}

/* A regular file of ours, by path, never followed: -ENOENT when absent. */
static int
audit_ident_of(const char *path, struct audit_ident *id)
{
	struct stat st;

	memset(id, 0, sizeof *id);
	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid())
		return -EPERM;
	*id = (struct audit_ident){
		.present = true, .dev = (uint64_t)st.st_dev,
		.ino = (uint64_t)st.st_ino, .size = (uint64_t)st.st_size,
		.mtime = (int64_t)st.st_mtim.tv_sec,
		.mtime_ns = (int64_t)st.st_mtim.tv_nsec,
		.ctime = (int64_t)st.st_ctim.tv_sec,
		.ctime_ns = (int64_t)st.st_ctim.tv_nsec,
	};
	return 0;
}

/* The record's and its -wal's identities (a -wal may be absent). */
static int
audit_idents(const char *path, struct audit_ident *db,
    struct audit_ident *wal)
{
	cleanup_free char *w = xasprintf("%s-wal", path);
	int r;

	if ((r = audit_ident_of(path, db)) < 0)
		return r;
	if ((r = audit_ident_of(w, wal)) < 0 && r != -ENOENT)
		return r;
	/* sqlite, as root, fchowns the -wal to the record's owner at every
	 * open, readers' too: its ctime says nothing (its mtime does). */
	wal->ctime = wal->ctime_ns = 0;
	return 0;
}

static bool
audit_ident_equal(const struct audit_ident *a, const struct audit_ident *b)
{
	return a->present == b->present && a->dev == b->dev &&
	    a->ino == b->ino && a->size == b->size && a->mtime == b->mtime &&
	    a->mtime_ns == b->mtime_ns && a->ctime == b->ctime &&
	    a->ctime_ns == b->ctime_ns;
}

static char *
audit_ident_text(const struct audit_ident *id)
{
	if (!id->present)
		return xstrdup("none");
	return xasprintf("%llu %llu %llu %lld.%09lld %lld.%09lld",
	    (unsigned long long)id->dev, (unsigned long long)id->ino,
	    (unsigned long long)id->size, (long long)id->mtime,
	    (long long)id->mtime_ns, (long long)id->ctime,
	    (long long)id->ctime_ns);
}

static bool
audit_ident_parse(const char *s, struct audit_ident *id)
{
	unsigned long long dev, ino, size;
	long long ms, mns, cs, cns;
	int end = -1;

	memset(id, 0, sizeof *id);
	if (strcmp(s, "none") == 0)
		return true;
	if (sscanf(s, "%llu %llu %llu %lld.%9lld %lld.%9lld%n", &dev, &ino,
	    &size, &ms, &mns, &cs, &cns, &end) != 7 || s[end] != '\0')
		return false;
	*id = (struct audit_ident){
		.present = true, .dev = dev, .ino = ino, .size = size,
		.mtime = ms, .mtime_ns = mns, .ctime = cs, .ctime_ns = cns,
	};
	return true;
}

static void
audit_boot_id(char *buf, size_t len)
{
	audit_read_line("/proc/sys/kernel/random/boot_id", buf, len);
}

/*
 * The marker's text:
 *   ward-audit-clean 1
 *   boot BOOT-ID
 *   checked UNIX-SECONDS
 *   db DEV INO SIZE MTIME CTIME
 *   wal DEV INO SIZE MTIME CTIME   (or "wal none")
 */
static char *
audit_marker_text(const char *boot, int64_t checked,
    const struct audit_ident *db, const struct audit_ident *wal)
{
	cleanup_free char *d = audit_ident_text(db);
	cleanup_free char *w = audit_ident_text(wal);

	return xasprintf("ward-audit-clean 1\nboot %s\nchecked %lld\n"
	    "db %s\nwal %s\n", boot, (long long)checked, d, w);
}

/* PATH-clean: the marker's own file, beside the record. */
static char *
audit_marker_path(const char *path)
{
	return xasprintf("%s-clean", path);
}

/*
 * The first writer's look at PATH-clean, which it takes away whatever it
 * says: true when the record can be trusted without a check (*checked:
 * when it was last checked).
 */
static bool
audit_marker_take(const char *path, int64_t *checked)
{
	cleanup_free char *p = audit_marker_path(path);
	cleanup_fd int fd = -1;
	char buf[1024], boot[64], line_boot[64];
	struct audit_ident db, wal, mdb, mwal;
	struct stat st;
	long long when;
	ssize_t n;
	char *s, *nl[5];
	int64_t now = (int64_t)time(NULL);

	fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	(void)unlink(p);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0 ||
	    (n = read(fd, buf, sizeof buf - 1)) <= 0)
		return false;
	buf[n] = '\0';
	/* Five lines, each whole. */
	s = buf;
	for (size_t i = 0; i < ARRAY_SIZE(nl); i++) {
		if ((nl[i] = strchr(s, '\n')) == NULL)
			return false;
		*nl[i] = '\0';
		s = nl[i] + 1;
	}
	if (*s != '\0' || strcmp(buf, "ward-audit-clean 1") != 0)
		return false;
	s = nl[0] + 1;
	if (!str_has_prefix(s, "boot ") ||
	    snprintf(line_boot, sizeof line_boot, "%s", s + 5) >=
	    (int)sizeof line_boot)
		return false;
	s = nl[1] + 1;
	if (sscanf(s, "checked %lld", &when) != 1)
		return false;
	s = nl[2] + 1;
	if (!str_has_prefix(s, "db ") || !audit_ident_parse(s + 3, &mdb) ||
	    !mdb.present)
		return false;
	s = nl[3] + 1;
	if (!str_has_prefix(s, "wal ") || !audit_ident_parse(s + 4, &mwal))
		return false;
	audit_boot_id(boot, sizeof boot);
	if (boot[0] == '\0' || strcmp(boot, line_boot) != 0)
		return false;
	if (when > now + 24 * 3600 || now - when > AUDIT_CHECK_AGE)
		return false;
	if (audit_idents(path, &db, &wal) < 0 ||
	    !audit_ident_equal(&db, &mdb) || !audit_ident_equal(&wal, &mwal))
		return false;
	*checked = (int64_t)when;
	return true;
}

static void
audit_marker_drop(const char *path)
{
	cleanup_free char *p = audit_marker_path(path);

	(void)unlink(p);
}

/* The last writer's marker; false when it cannot be written (no harm:
 * the next opener checks). */
static bool
audit_marker_put(const char *path, int64_t checked,
    const struct audit_ident *db, const struct audit_ident *wal)
{
	cleanup_free char *p = audit_marker_path(path);
	cleanup_free char *text = NULL;
	cleanup_fd int fd = -1;
	char boot[64];
	size_t len;

	audit_boot_id(boot, sizeof boot);
	if (boot[0] == '\0')
		return false;
	text = audit_marker_text(boot, checked, db, wal);
	len = strlen(text);
	/* Made anew, never followed, never another's: O_EXCL after unlink
	 * (under the gate, nobody else writes it meanwhile). */
	(void)unlink(p);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0)
		return false;
	if (fchmod(fd, 0600) < 0 || write(fd, text, len) != (ssize_t)len) {
		(void)unlink(p);
		return false;
	}
	return true;
}

/* PATH-lock: a regular file of ours, or -1 (lock trouble: doubt). */
static int
audit_lock_open(const char *path)
{
	cleanup_free char *p = xasprintf("%s-lock", path);
	cleanup_fd int fd = -1;
	struct stat st;

	if ((fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0600)) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != getuid())
		return -1;
	if ((st.st_mode & 077) != 0 && fchmod(fd, 0600) < 0)
		return -1;
	return steal_fd(&fd);
}

/* The lock file's text: "DEV INO CHECKED" of the record the writers that
 * have it open passed; "none" (or nothing, from an older ward) when none
 * did. */
static bool
audit_session_read(int fd, uint64_t *dev, uint64_t *ino, int64_t *checked)
{
	char buf[128];
	unsigned long long d, i;
	long long c;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	int end = -1;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %lld\n%n", &d, &i, &c, &end) != 3 ||
	    end != (int)n)
		return false;
	*dev = d;
	*ino = i;
	*checked = c;
	return true;
}

/*
 * The text written over the old in place, then the file cut to its
 * length: never emptied, so that the file keeps its block. Emptying it
 * at every start-up freed the block and the next write took one again;
 * with the filesystem's discard, each free was a trim on the start's
 * critical path (0.5 ms here). Cut short midway, the file holds the new
 * text and the old one's tail, which does not read as a session: doubt,
 * as for any text that does not read.
 */
static void
audit_lock_text(int fd, const char *text, size_t n)
{
	if (pwrite(fd, text, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0)
		(void)ftruncate(fd, 0);
}

static void
audit_session_write(int fd, uint64_t dev, uint64_t ino, int64_t checked)
{
	char buf[128];
	int n = snprintf(buf, sizeof buf, "%llu %llu %lld\n",
	    (unsigned long long)dev, (unsigned long long)ino,
	    (long long)checked);

	audit_lock_text(fd, buf, (size_t)n);
}

static void
audit_session_clear(int fd)
{
	audit_lock_text(fd, "none\n", 5);
}

static void
audit_unlock_all(int fd)
{
	(void)audit_lock(fd, F_UNLCK, AUDIT_LOCK_GATE);
	(void)audit_lock(fd, F_UNLCK, AUDIT_LOCK_USERS);
}

void
audit_vetting_done(struct audit_vetting *vt)
{
	if (vt->fd >= 0)
		close(vt->fd);	/* lets the gate and byte 1 go */
	vt->fd = -1;
}

/*
 * At open, before sqlite opens the file (which, as root, chowns the -wal
 * to the record's owner and so changes its ctime): whether the file can
 * be trusted without the check (see the comment above AUDIT_CHECK_AGE).
 */
void
audit_vet_begin(const char *path, struct audit_vetting *vt)
{
	struct audit_ident db, wal;
	uint64_t sdev = 0, sino = 0;

	*vt = (struct audit_vetting){ .fd = -1 };
	if (!audit_is_file(path))
		return;
	/* Lock trouble, or no identity to pass on: this one writes
	 * without the others knowing, so no marker may stand meanwhile (it
	 * checks, see audit_vet). */
	if ((vt->fd = audit_lock_open(path)) < 0 ||
	    audit_gate(vt->fd, AUDIT_GATE_OPEN_MS) < 0) {
		audit_marker_drop(path);
		return;
	}
	vt->gate = true;
	if (audit_idents(path, &db, &wal) < 0) {
		audit_marker_drop(path);
		return;
	}
	vt->known = true;
	vt->dev = db.dev;
	vt->ino = db.ino;
	vt->first = audit_lock(vt->fd, F_WRLCK, AUDIT_LOCK_USERS) == 0;
	if (vt->first) {
		/* What the lock file says is of writers now gone. */
		audit_session_clear(vt->fd);
		vt->trust = audit_marker_take(path, &vt->checked);
	} else {
		vt->trust = audit_session_read(vt->fd, &sdev, &sino,
		    &vt->checked) && sdev == vt->dev && sino == vt->ino;
	}
}

/* Then, with sqlite's handle: the check if it is needed, and the writer
 * joins the others. */
int
audit_vet(struct audit *a, struct audit_vetting *vt, int v, char **cause)
{
	cleanup_free char *found = NULL;
	int r;

	if (v > 0 && !vt->trust) {
		a->checked = true;
		vt->checked = (int64_t)time(NULL);
		if ((r = audit_check_file(a, "quick_check", &found)) < 0) {
			if (cause != NULL)
				*cause = xasprintf("audit: %s: the record is "
				    "damaged (quick_check: %s); move the file "
				    "aside and ward starts a new record",
				    a->path, found);
			return r;
		}
	} else if (v == 0) {
		vt->checked = (int64_t)time(NULL);
	}
	if (vt->fd < 0)
		return 0;
	if (vt->gate && vt->known) {
		if (vt->first || !vt->trust)
			audit_session_write(vt->fd, vt->dev, vt->ino,
			    vt->checked);
		/* From exclusive to shared in one step (fcntl locks convert
		 * atomically); joining others, shared at once. */
		if (audit_lock(vt->fd, F_RDLCK, AUDIT_LOCK_USERS) == 0)
			a->joined = true;
		a->db_known = true;
		a->db_dev = vt->dev;
		a->db_ino = vt->ino;
	} else {
		/* Checked without the gate (or without its file's identity):
		 * counted as a writer if it can be, so that no other leaves a
		 * marker while this one writes, but it leaves none itself. */
		(void)audit_lock(vt->fd, F_RDLCK, AUDIT_LOCK_USERS);
	}
	(void)audit_lock(vt->fd, F_UNLCK, AUDIT_LOCK_GATE);
	a->lock_fd = vt->fd;
	vt->fd = -1;
	return 0;
}

/* At close, after sqlite's: the last writer leaves the marker. */
void
audit_unvet(struct audit *a, bool clean)
{
	struct audit_ident db, wal;
	uint64_t sdev, sino;
	int64_t checked;

	if (a->lock_fd < 0)
		return;
	if (clean && a->joined && a->db_known && !a->doubt &&
	    audit_gate(a->lock_fd, AUDIT_GATE_CLOSE_MS) == 0 &&
	    audit_lock(a->lock_fd, F_WRLCK, AUDIT_LOCK_USERS) == 0 &&
	    audit_session_read(a->lock_fd, &sdev, &sino, &checked) &&
	    sdev == a->db_dev && sino == a->db_ino &&
	    audit_idents(a->path, &db, &wal) == 0 && db.dev == a->db_dev &&
	    db.ino == a->db_ino)
		(void)audit_marker_put(a->path, checked, &db, &wal);
	audit_unlock_all(a->lock_fd);
	close(a->lock_fd);
	a->lock_fd = -1;
}

bool
audit_checked(const struct audit *a)
{
	return a->checked;
}
