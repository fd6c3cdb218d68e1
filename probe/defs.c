/* SPDX-License-Identifier: MIT */
/* The battery's rows: probe_defs[]. */
#include "probe/defs.h"

#include "config/util.h"
#include "probe/common.h"
#include "probe/probe.h"

#define W(sub)	{ VERDICT_DENY, KIND_WRITE, NULL, sub, NULL }
#define B(sc)	{ VERDICT_DENY, KIND_BLOCKED, sc, NULL, NULL }

const struct probe_def probe_defs[] = {
	{ .name = "home-secret", .args = "s", .proof = PROOF_OUTPUT,
	  .tried = "read a secret planted in the host home",
	  .floor = "host home not in the sandbox" },
	{ .name = "store-secret", .args = "k", .proof = PROOF_OUTPUT,
	  .home_in = true,
	  .tried = "read a key planted in ~/.ssh, the home shown by --in",
	  .floor = "credential stores hidden in --in folders" },
	{ .name = "env-secret", .proof = PROOF_OUTPUT,
	  .tried = "read a secret variable of ward's environment",
	  .floor = "not passed in" },
	{ .name = "write-path", .args = "c",
	  .tried = "write, create in the canary by path",
	  .expect = { W("%c/file"), W("%c/new") } },
	{ .name = "write-symlink", .args = "c",
	  .tried = "write via symlinks planted in /work",
	  .expect = { W("%c/file"), W("%c/new-sym") } },
	{ .name = "write-hardlink", .args = "c",
	  .tried = "hard-link a canary file into /work",
	  .expect = { W("%c/file") } },
	{ .name = "write-rename", .args = "c",
	  .tried = "rename /work -> canary, canary -> /work",
	  .expect = { W("%c/moved-in"), W("%c/file") } },
	{ .name = "write-chmod", .args = "c",
	  .tried = "chmod a canary file and the folder",
	  .expect = { W("%c/file"), W("%c") } },
	{ .name = "write-truncate", .args = "c",
	  .tried = "truncate a canary file",
	  .expect = { W("%c/file") } },
	{ .name = "write-utimes", .args = "c",
	  .tried = "set a canary file's times",
	  .expect = { { VERDICT_DENY, KIND_WRITE, "utimensat", "%c/file", NULL },
		      { VERDICT_DENY, KIND_WRITE, "utimes", "%c/file", NULL } } },
	{ .name = "write-mkdir", .args = "c",
	  .tried = "mkdir in the canary",
	  .expect = { W("%c/newdir") } },
	/* The reason of a deny once went out through /proc/PID/fd/2, with
	 * the supervisor's credentials, into whatever fd 2 was. */
	{ .name = "deny-reason-fd", .args = "cw", .writable = true,
	  .tried = "make fd 2 an O_PATH of a 0600 file it cannot write, "
	      "then get a write denied with a reason",
	  .floor = "the reason goes on ward's own channels",
	  .expect = { W("%c/file") } },
	{ .name = "path-race", .args = "c",
	  .tried = "flip a path /work <-> canary during open, 1 s",
	  .floor = "read-only mount",
	  .expect = { W("%c/race") } },
	{ .name = "io-uring", .tried = "io_uring_setup",
	  .expect = { B("io_uring_setup") } },
	{ .name = "tiocsti", .tried = "inject input with TIOCSTI",
	  .expect = { B("ioctl (TIOCSTI/TIOCLINUX)") } },
	{ .name = "ptrace", .tried = "ptrace pid 1 and the parent",
	  .expect = { B("ptrace"), B("process_vm_readv") } },
	{ .name = "kill-supervisor", .proof = PROOF_OWN_EXIT,
	  .status = PROBE_OWN_EXIT,
	  .tried = "kill the supervisor: every pid, 1, parent, -1",
	  .floor = "supervisor not in the pid namespace" },
	{ .name = "mount", .tried = "mount a tmpfs on /work, umount",
	  .expect = { B("mount"), B("umount2") } },
	{ .name = "unshare", .tried = "new namespaces: unshare, clone, setns",
	  .expect = { B("unshare"), B("clone (new namespace)"), B("setns") } },
	{ .name = "open-by-handle", .tried = "open_by_handle_at",
	  .expect = { B("open_by_handle_at"), B("name_to_handle_at") } },
	{ .name = "bpf", .tried = "bpf(BPF_MAP_CREATE)",
	  .expect = { B("bpf") } },
	{ .name = "int80", .args = "c",
	  .tried = "open via int $0x80 (i386) and x32",
	  .expect = {
		{ VERDICT_KILL, KIND_BLOCKED, "non-native syscall",
		  "i386 syscall (int 0x80)", NULL, true },
		{ VERDICT_KILL, KIND_BLOCKED, "non-native syscall",
		  "x32 syscall", NULL } } },
	{ .name = "memfd-exec", .allowed = true,
	  .tried = "exec /usr/bin/true from a memfd",
	  .expect = { { VERDICT_ALLOW, KIND_EXEC, "execveat", NULL,
		  "exec from memory (memfd)" } } },
	/* 127.0.0.1 inside is the sandbox's own loopback: the supervisor
	 * lets it be and records nothing, so the host listener is the
	 * judge there; the connect out to 192.0.2.1 must be in the record. */
	{ .name = "connect", .args = "p", .net = true,
	  .tried = "reach a host listener on 127.0.0.1; connect out",
	  .floor = "127.0.0.1 is the sandbox's own loopback",
	  .expect = { { VERDICT_DENY, KIND_CONNECT, NULL, "192.0.2.1:%p",
		  NULL } } },
	{ .name = "outside-listener", .args = "p", .net = true,
	  .tried = "reach the host listener as ::ffff:127.0.0.1, 127.0.0.2, "
	      "by TCP Fast Open; connect out non-blocking and by Fast Open",
	  .floor = "127/8 is the sandbox's own loopback",
	  .expect = {
		{ VERDICT_DENY, KIND_CONNECT, "connect", "192.0.2.1:%p", NULL },
		{ VERDICT_DENY, KIND_CONNECT, "sendto", "192.0.2.1:%p",
		  NULL } } },
	/* Never-listed: refused at once, nobody is asked. */
	{ .name = "metadata", .net = true, .never = true,
	  .tried = "reach 169.254.169.254:80 over IPv4, IPv4-mapped IPv6, UDP",
	  .expect = {
		{ VERDICT_DENY, KIND_CONNECT, "connect", "169.254.169.254:80",
		  "never *", false, 2 },
		{ VERDICT_DENY, KIND_CONNECT, "sendto", "169.254.169.254:80",
		  "never *" } } },
	/* The made-up name is denied at once by our watcher: nothing is
	 * forwarded (with root, the packet watch checks that too). */
	{ .name = "dns-exfil", .args = "n", .net = true, .dns = true,
	  .tried = "look up a made-up name: A/AAAA over UDP, TXT over TCP",
	  .expect = {
		{ VERDICT_DENY, KIND_DNS, "dns", "%n", NULL },
		{ VERDICT_DENY, KIND_DNS, "dns", "txt.%n", NULL } } },
	{ .name = "raw-socket", .net = true,
	  .tried = "open raw and packet sockets (ICMP, IPPROTO_RAW, AF_PACKET)",
	  .floor = "filter EPERM",
	  .expect = { { VERDICT_DENY, KIND_BLOCKED,
		  "socket (raw or packet)", NULL, NULL } } },
	{ .name = "udp", .args = "u", .net = true,
	  .tried = "datagrams out by sendto, sendmsg, sendmmsg, connect; "
	      "to the host's UDP port on 127.0.0.1",
	  .floor = "127.0.0.1 is the sandbox's own loopback",
	  .untrapped = "not trapped: sendmsg, sendmmsg (refused by the "
	      "kernel: the namespace has no route out)",
	  .expect = {
		{ VERDICT_DENY, KIND_CONNECT, "sendto", "192.0.2.1:%u", NULL },
		{ VERDICT_DENY, KIND_CONNECT, "connect", "192.0.2.1:%u",
		  NULL } } },
	/* Exec can only be continued: the claim is that whatever ran is in
	 * the record and met the floor. */
	{ .name = "argv-race", .args = "tcp", .net = true, .race = true,
	  .allowed = true,
	  .tried = "exec pip install wardprobe-x while a thread flips "
	      "argv[1] to list, then the path, 1 s",
	  .expect = {
		{ VERDICT_ALLOW, KIND_EXEC, "execve", "%t/" PROBE_RACE_SCRIPT,
		  NULL },
		{ VERDICT_DENY, KIND_PACKAGE, "execve", NULL, NULL },
		{ VERDICT_DENY, KIND_WRITE, NULL, "%c/raced", NULL },
		{ VERDICT_DENY, KIND_CONNECT, "connect", "192.0.2.1:%p",
		  NULL } } },
	{ .name = "fork-bomb", .limit = LIMIT_PIDS, .proof = PROOF_LIMIT,
	  .tried = "fork until refused, children sleep" },
	{ .name = "memory-hog", .limit = LIMIT_MEMORY, .proof = PROOF_LIMIT,
	  .tried = "malloc and touch until refused" },
	{ .name = "wall-clock", .limit = LIMIT_CLOCK, .proof = PROOF_TIMEOUT,
	  .status = 124, .tried = "sleep 30 s past the wall clock" },
};

#undef W
#undef B

const size_t probe_n_defs = ARRAY_SIZE(probe_defs);
