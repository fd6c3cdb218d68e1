/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The inside of ward probe: the hostile program each sandbox runs
 * (`ward probe-inside NAME ARG...`). Each action tries one family of
 * escapes and says on stdout what it met, one line per attempt; nothing
 * it says decides a verdict (the battery judges from outside).
 *
 * inside.c holds the table of actions and the entry; inside-lib.c the
 * helpers below; the actions live by family in inside-files.c,
 * inside-kernel.c, inside-net.c and inside-exec.c.
 */
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* The documentation address (TEST-NET-1) and cloud metadata. */
#define PROBE_OUT_ADDR		0xc0000201U	/* 192.0.2.1 */
#define PROBE_META_ADDR		0xa9fea9feU	/* 169.254.169.254 */
#define PROBE_META_PORT		80

/* The action running, for every line it says. */
extern const char *probe_in_name;

/* One line per attempt: "ward-probe: NAME: WHAT: ok|ERRNO". */
void	probe_in_say(const char *what, int err);
/* r < 0: failed with errno. Build `what` before the call: anything
 * between the call and here could change errno. */
void	probe_in_check(const char *what, long r);
/* An fd opened for writing: say so and use it, as a real attacker would. */
void	probe_in_fd(const char *what, int fd);
/* Print whatever a file holds: the harness looks for the token. */
void	probe_in_leak_file(const char *path);
/* Wait for a child that did something fatal on purpose; say how it ended. */
void	probe_in_reap(const char *what, pid_t pid);
struct sockaddr_in  probe_in_sa4(uint32_t addr, unsigned port);
/* The same IPv4 address as an IPv4-mapped IPv6 one (::ffff:a.b.c.d). */
struct sockaddr_in6 probe_in_sa6_mapped(uint32_t addr, unsigned port);
/* A fresh socket, then connect: say how it went. */
void	probe_in_connect_to(const char *what, int family, int type,
	    const void *sa, socklen_t len);

/* The actions: a[] holds the arguments the table says they take. Each
 * returns the program's exit status. */
/* inside-files.c: secrets and writes */
int	probe_in_home_secret(char **a);
int	probe_in_store_secret(char **a);
int	probe_in_env_secret(char **a);
int	probe_in_write_path(char **a);
int	probe_in_write_symlink(char **a);
int	probe_in_write_hardlink(char **a);
int	probe_in_write_rename(char **a);
int	probe_in_write_chmod(char **a);
int	probe_in_write_truncate(char **a);
int	probe_in_write_utimes(char **a);
int	probe_in_write_mkdir(char **a);
int	probe_in_deny_reason_fd(char **a);
int	probe_in_race(char **a);
/* inside-kernel.c: the kernel's surface and the limits */
int	probe_in_io_uring(char **a);
int	probe_in_tiocsti(char **a);
int	probe_in_ptrace(char **a);
int	probe_in_kill(char **a);
int	probe_in_mount(char **a);
int	probe_in_unshare(char **a);
int	probe_in_open_by_handle(char **a);
int	probe_in_bpf(char **a);
int	probe_in_int80(char **a);
int	probe_in_fork_bomb(char **a);
int	probe_in_memory_hog(char **a);
int	probe_in_wall_clock(char **a);
/* inside-net.c: the network */
int	probe_in_connect(char **a);
int	probe_in_outside_listener(char **a);
int	probe_in_metadata(char **a);
int	probe_in_dns_exfil(char **a);
int	probe_in_raw_socket(char **a);
int	probe_in_udp(char **a);
/* inside-exec.c: exec */
int	probe_in_memfd_exec(char **a);
int	probe_in_exec_race(char **a);
/* What the race got to run, through the #! line of tools/pip. */
int	probe_in_exec_raced(int argc, char **argv);
