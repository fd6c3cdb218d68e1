/* SPDX-License-Identifier: MIT */
/*
 * The battery's watches, from outside: the canary, the sandbox's
 * processes and sockets in /proc, the supervisor's sockets, the
 * listeners, the packet watch and the race's script.
 */
#include "probe/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/util.h"
#include "probe/common.h"
#include "probe/state.h"

/* ---- the canary ---- */

/* One line per entry (and the folder itself): everything a write could
 * change, content included for small files. */
static void
probe_snap_dir(struct probe_buf *b, const char *dir, const char *rel,
    int depth)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		cleanup_free char *path = NULL, *r = NULL, *line = NULL;
		struct stat st;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			free(ents[i]);
			continue;
		}
		path = xasprintf("%s/%s", dir, name);
		r = xasprintf("%s%s%s", rel, *rel ? "/" : "", name);
		free(ents[i]);
		if (lstat(path, &st) < 0)
			continue;
		line = xasprintf("%s\t%o %ju %u %u %jd %jd.%09ld %jd.%09ld %ju",
		    r, (unsigned)st.st_mode, (uintmax_t)st.st_nlink,
		    (unsigned)st.st_uid, (unsigned)st.st_gid,
		    (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
		    st.st_ctim.tv_nsec, (uintmax_t)st.st_ino);
		probe_buf_str(b, line);
		if (S_ISREG(st.st_mode) && st.st_size <= 65536) {
			char buf[65536];
			int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
			cleanup_free char *e = got >= 0 ?
			    escape_mem(buf, (size_t)got) : xstrdup("?");

			if (fd >= 0)
				close(fd);
			probe_buf_str(b, " ");
			probe_buf_str(b, e);
		}
		probe_buf_str(b, "\n");
		if (S_ISDIR(st.st_mode) && depth < 4)
			probe_snap_dir(b, path, r, depth + 1);
	}
	free(ents);
}

char *
probe_snapshot(const char *dir)
{
	struct probe_buf b = { 0 };
	struct stat st;

	if (stat(dir, &st) == 0) {
		cleanup_free char *top = xasprintf(".\t%o %jd.%09ld %jd.%09ld\n",
		    (unsigned)st.st_mode, (intmax_t)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
		    st.st_ctim.tv_nsec);

		probe_buf_str(&b, top);
	} else
		probe_buf_str(&b, ".\tgone\n");
	probe_snap_dir(&b, dir, "", 0);
	return b.p;
}

/* The names whose line is in a but not in b. */
static void
probe_snap_missing(const char *a, const char *b, struct probe_buf *names,
    unsigned *count)
{
	for (const char *l = a; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);
		bool found = false;

		for (const char *m = b; *m != '\0';) {
			const char *nm = strchr(m, '\n');
			size_t mlen = nm ? (size_t)(nm - m) + 1 : strlen(m);

			if (mlen == len && memcmp(l, m, len) == 0) {
				found = true;
				break;
			}
			m += mlen;
		}
		if (!found) {
			size_t nlen = strcspn(l, "\t");
			cleanup_free char *e = escape_mem(l, nlen);

			size_t before = names->len;

			if (*count < 3)
				probe_list_add(names, e, ", ");
			if (names->len != before || *count >= 3)
				(*count)++;
		}
		l += len;
	}
}

char *
probe_snap_diff(const char *before, const char *after)
{
	struct probe_buf names = { 0 };
	unsigned count = 0;

	probe_snap_missing(after, before, &names, &count);
	probe_snap_missing(before, after, &names, &count);
	if (count == 0) {
		free(names.p);
		return NULL;
	}
	if (count > 3)
		probe_buf_str(&names, ", ...");
	return names.p;
}

/* ---- sampling the sandbox from outside ---- */

static int
probe_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int
probe_nslink(pid_t pid, const char *ns, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns);
	if ((n = readlink(path, buf, size - 1)) < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Find the sandbox's init: the supervisor's child in a pid namespace of
 * its own. Asked only once the run said it started (the sandbox exists
 * by then). A child in our own namespace means there is no sandbox. */
static void
probe_find_init(struct probe_run *r)
{
	char path[64], buf[1024], own[64], ns[64];
	struct probe_buf kids = { 0 };
	struct dirent *e;
	pid_t first = 0;
	DIR *d;

	/* Whichever of the supervisor's threads forked it. */
	snprintf(path, sizeof path, "/proc/%d/task", (int)r->pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char cpath[300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children",
		    (int)r->pid, e->d_name);
		if (probe_read_small(cpath, buf, sizeof buf) == 0) {
			probe_buf_str(&kids, buf);
			probe_buf_str(&kids, " ");
		}
	}
	closedir(d);
	if (kids.p == NULL || probe_nslink(getpid(), "pid", own,
	    sizeof own) < 0) {
		free(kids.p);
		return;
	}
	for (char *t = strtok(kids.p, " \n"); t != NULL;
	    t = strtok(NULL, " \n")) {
		pid_t pid = (pid_t)strtol(t, NULL, 10);

		if (pid <= 0 || probe_nslink(pid, "pid", ns, sizeof ns) < 0)
			continue;
		if (first == 0)
			first = pid;
		if (strcmp(ns, own) != 0) {
			first = pid;
			break;
		}
	}
	free(kids.p);
	if (first == 0 ||
	    probe_nslink(first, "pid", r->ns_pid, sizeof r->ns_pid) < 0 ||
	    probe_nslink(first, "user", r->ns_user, sizeof r->ns_user) < 0) {
		r->ns_pid[0] = r->ns_user[0] = '\0';
		return;
	}
	r->init = first;
	r->o.host_ns = strcmp(r->ns_pid, own) == 0;
}

static uint64_t
probe_status_field(const char *status, const char *key)
{
	const char *s = strstr(status, key);

	return s != NULL ? strtoull(s + strlen(key), NULL, 10) : 0;
}

/* A process running the race's script: argv is [ward, probe-inside,
 * SCRIPT, ARG...] once the kernel took the #! line. Kept once per pid. */
static void
probe_note_raced(struct probe_run *r, pid_t pid)
{
	char path[64], buf[4096];
	struct probe_buf args = { 0 };
	const char *a[3] = { NULL, NULL, NULL }, *end;
	size_t i = 0;
	ssize_t n;
	int fd;

	for (size_t k = 0; k < r->o.n_raced; k++)
		if (r->o.raced[k].pid == pid)
			return;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	end = buf + n;
	for (const char *s = buf; s < end; s += strlen(s) + 1, i++) {
		if (i < 3)
			a[i] = s;
		else {
			if (args.len > 0)
				probe_buf_str(&args, " ");
			probe_buf_str(&args, s);
		}
	}
	if (a[2] == NULL || strcmp(a[1], "probe-inside") != 0 ||
	    strcmp(a[2], r->script) != 0) {
		free(args.p);
		return;
	}
	r->o.raced = xreallocarray(r->o.raced, r->o.n_raced + 1,
	    sizeof *r->o.raced);
	r->o.raced[r->o.n_raced].pid = pid;
	r->o.raced[r->o.n_raced].path = xstrdup(a[2]);
	r->o.raced[r->o.n_raced].args = args.p ? args.p : xstrdup("");
	r->o.n_raced++;
}

/* Every process in the sandbox's pid namespace: how many tasks, how much
 * resident memory, and any in a user namespace of its own. */
unsigned
probe_scan(struct probe_run *r, uint64_t *rss, bool *new_userns)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned tasks = 0;

	*rss = 0;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char ns[64], path[64], status[4096];
		pid_t pid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = (pid_t)strtol(e->d_name, NULL, 10);
		if (probe_nslink(pid, "pid", ns, sizeof ns) < 0 ||
		    strcmp(ns, r->ns_pid) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
		if (probe_read_small(path, status, sizeof status) == 0) {
			unsigned t = (unsigned)probe_status_field(status,
			    "\nThreads:");

			tasks += t > 0 ? t : 1;
			*rss += probe_status_field(status, "\nVmRSS:") * 1024;
		} else
			tasks++;
		if (probe_nslink(pid, "user", ns, sizeof ns) == 0 &&
		    strcmp(ns, r->ns_user) != 0)
			*new_userns = true;
		if (r->script != NULL)
			probe_note_raced(r, pid);
	}
	closedir(d);
	return tasks;
}

/* ---- the network, seen from outside ---- */

/* Is a /proc/net address ("0102A8C0:0050", or 32 hex digits for IPv6)
 * 192.0.2.1 or in 169.254.0.0/16, IPv4-mapped included? */
static bool
probe_watched_addr(const char *hex)
{
	size_t len = strcspn(hex, ":");

	if (len == 32 && str_has_prefix(hex, "0000000000000000FFFF0000"))
		hex += 24;
	else if (len != 8)
		return false;
	/* Host byte order: 192.0.2.1 is 010200C0, 169.254.x.y is yyxxFEA9. */
	return str_has_prefix(hex, "010200C0") || strncmp(hex + 4, "FEA9",
	    4) == 0;
}

/* The supervisor's sockets, by inode, that point at a watched address or
 * at port 53 (*dns): it is the only one that could connect out or ask a
 * resolver for the sandbox. */
static unsigned
probe_sup_sockets(pid_t sup, unsigned *dns, bool *seen)
{
	static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6" };
	char path[64];
	unsigned long *inodes = NULL;
	size_t n_inodes = 0;
	unsigned hits = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)sup);
	if ((d = opendir(path)) == NULL)
		return 0;
	*seen = true;
	while ((e = readdir(d)) != NULL) {
		char fd[64 + 256 + 2], link[64];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
		if ((n = readlink(fd, link, sizeof link - 1)) <= 0)
			continue;
		link[n] = '\0';
		if (!str_has_prefix(link, "socket:["))
			continue;
		inodes = xreallocarray(inodes, n_inodes + 1, sizeof *inodes);
		inodes[n_inodes++] = strtoul(link + 8, NULL, 10);
	}
	closedir(d);
	for (size_t t = 0; t < ARRAY_SIZE(tables) && n_inodes > 0; t++) {
		char line[512];
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)sup,
		    tables[t]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (fgets(line, sizeof line, f) != NULL) {
			char rem[64];
			unsigned long ino;
			bool ours = false;

			if (sscanf(line, "%*s %*s %63s %*s %*s %*s %*s %*s "
			    "%*s %lu", rem, &ino) != 2)
				continue;
			for (size_t i = 0; i < n_inodes && !ours; i++)
				ours = inodes[i] == ino && ino != 0;
			if (!ours)
				continue;
			if (probe_watched_addr(rem))
				hits++;
			else if (strlen(rem) > 5 && strcmp(rem + strlen(rem) -
			    5, ":0035") == 0)
				(*dns)++;
		}
		fclose(f);
	}
	free(inodes);
	return hits;
}

/* Raw and packet sockets in the sandbox's own network namespace, from
 * its tables (-1: not readable). */
static int
probe_sandbox_raw(pid_t init)
{
	static const char *const tables[] = { "raw", "raw6", "packet" };
	int n = 0;
	bool read_any = false;

	for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
		char path[64], line[512];
		FILE *f;
		bool header = true;

		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)init,
		    tables[t]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		read_any = true;
		while (fgets(line, sizeof line, f) != NULL) {
			if (!header)
				n++;
			header = false;
		}
		fclose(f);
	}
	return read_any ? n : -1;
}

static void
probe_sample_net(struct probe_run *r)
{
	char own[64], ns[64];
	unsigned dns = 0;
	int raw;

	r->o.host_socks += probe_sup_sockets(r->pid, &dns, &r->o.sup_seen);
	r->o.sup_dns += dns;
	if (r->init == 0)
		return;
	if (probe_nslink(getpid(), "net", own, sizeof own) == 0 &&
	    probe_nslink(r->init, "net", ns, sizeof ns) == 0 &&
	    strcmp(own, ns) == 0) {
		/* Its tables are ours: nothing to tell apart there. */
		r->o.net_shared = true;
		return;
	}
	if ((raw = probe_sandbox_raw(r->init)) >= 0) {
		r->o.raw_seen = true;
		if ((unsigned)raw > r->o.raw_socks)
			r->o.raw_socks = (unsigned)raw;
	}
}

void
probe_sample(const struct probe *p, struct probe_run *r)
{
	uint64_t rss, cap, slack;
	unsigned tasks;

	if (r->init == 0 && r->o.id[0] != '\0')
		probe_find_init(r);
	if (r->o.def->net && r->o.id[0] != '\0')
		probe_sample_net(r);
	if (r->init == 0)
		return;
	tasks = probe_scan(r, &rss, &r->o.new_userns);
	r->o.samples++;
	if (tasks > r->o.peak_tasks)
		r->o.peak_tasks = tasks;
	if (rss > r->o.peak_rss)
		r->o.peak_rss = rss;
	/* Summed VmRSS counts shared pages (the binary, libc) once per
	 * process: allow 64 MiB and 16 MiB a task for them. */
	cap = r->o.def->limit == LIMIT_MEMORY ? PROBE_MEMORY_BYTES :
	    p->policy.memory;
	slack = (64ULL << 20) + (uint64_t)tasks * (16ULL << 20);
	if (cap > 0 && rss > cap + slack && rss - cap - slack > r->o.rss_over)
		r->o.rss_over = rss - cap - slack;
}

/* ---- the outside's own watches ---- */

/*
 * With root, a packet socket on every interface of the host's namespace,
 * filtered in the kernel to IPv4 packets for 192.0.2.1 and DNS queries
 * (UDP or TCP to port 53, IPv4 or IPv6): what left the host is counted
 * from there. -1 without CAP_NET_RAW. 169.254.169.254 is left out: a
 * cloud VM's own agents talk to it.
 */
int
probe_packet_watch(void)
{
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS,
		    (uint32_t)(SKF_AD_OFF + SKF_AD_PROTOCOL)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 8),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc0000201, 12, 0),
		/* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 1, 0),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 10),
		/* 7 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		/* 8 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 6, 7),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 6),
		/* 11 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 1, 0),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 3),
		/* 14 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 42),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 0, 1),
		/* 16 */ BPF_STMT(BPF_RET | BPF_K, 0xffff),
		/* 17 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    htons(ETH_P_ALL));

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof prog) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Does the packet carry the label, in any case? */
static bool
probe_has_label(const unsigned char *b, size_t n, const char *label)
{
	size_t l = strlen(label);

	for (size_t i = 0; i + l <= n; i++)
		if (strncasecmp((const char *)b + i, label, l) == 0)
			return true;
	return false;
}

/* What the packet watch caught since last asked (o NULL: forget it). */
void
probe_drain_packets(const struct probe *p, struct probe_outside *o)
{
	unsigned char b[2048];

	if (p->pfd < 0)
		return;
	for (;;) {
		struct sockaddr_ll sl;
		socklen_t sl_len = sizeof sl;
		ssize_t n = recvfrom(p->pfd, b, sizeof b, 0,
		    (struct sockaddr *)&sl, &sl_len);
		uint32_t dst;

		if (n < 0)
			break;
		if (o == NULL || sl.sll_pkttype != PACKET_OUTGOING)
			continue;
		if (ntohs(sl.sll_protocol) == ETH_P_IP && n >= 20) {
			memcpy(&dst, b + 16, 4);
			if (ntohl(dst) == 0xc0000201) {
				o->to_out++;
				continue;
			}
		}
		if (probe_has_label(b, (size_t)n, p->label))
			o->dns_name++;
	}
}

/* Datagrams the host's UDP listener got since last asked. */
unsigned
probe_drain_udp(const struct probe *p)
{
	char b[2048];
	unsigned n = 0;

	while (p->ufd >= 0 && recv(p->ufd, b, sizeof b, 0) >= 0)
		n++;
	return n;
}

/* Opens of the race's script (each exec that began opens it once).
 * Watched with its closes: inotify merges an event into an identical
 * one still queued, and the close in between keeps the opens apart. */
unsigned
probe_count_opens(int ino)
{
	char b[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	unsigned n = 0;
	ssize_t got;

	while ((got = read(ino, b, sizeof b)) > 0)
		for (char *q = b; q < b + got;) {
			const struct inotify_event *e = (const void *)q;

			if (e->mask & IN_OPEN)
				n++;
			q += sizeof *e + e->len;
		}
	return n;
}

/* Connections the host listener took since last asked. */
unsigned
probe_accept_all(const struct probe *p)
{
	unsigned n = 0;
	int fd;

	while ((fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(fd);
		n++;
	}
	return n;
}
