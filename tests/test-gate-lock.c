/* SPDX-License-Identifier: MIT */
/* supervisor/gate/lock.c: once locked, the gate cannot open, connect,
 * make a socket, exec or fork, nor map executable memory; the loop's
 * calls still work. In a forked child, each check a bit of its exit. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervisor/gate/lock.h"

static int
locked_child(int sv)
{
	char *cause = NULL;
	int bad = 0, ep;
	char c = 'x';
	void *m;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };

	if (lock_apply(&cause) < 0)
		return 100;
	/* Refused: EPERM. Raw syscalls: libc may map open to openat. */
	if (syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY) != -1 ||
	    errno != EPERM)
		bad |= 1;
	if (syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM)
		bad |= 2;
	if (syscall(SYS_connect, sv, &a, sizeof a) != -1 || errno != EPERM)
		bad |= 4;
	if (syscall(SYS_execve, "/bin/true", NULL, NULL) != -1 || errno != EPERM)
		bad |= 8;
	if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) != -1 || errno != EPERM)
		bad |= 16;
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (m != MAP_FAILED || errno != EPERM)
		bad |= 32;
	/* Allowed: what the loop needs. */
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) >= 0)
		bad |= 64;	/* made before the lock only */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || write(sv, &c, 1) != 1 || read(sv, &c, 1) != 1 ||
	    malloc(1 << 20) == NULL)
		bad |= 128;
	return bad;
}

static void
test_lock_holds(void **state)
{
	int sv[2], st = 0;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if ((pid = fork()) == 0)
		_exit(locked_child(sv[1]));
	assert_int_equal(read(sv[0], &c, 1), 1);
	assert_int_equal(write(sv[0], &c, 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("locked child: check mask %d failed", WEXITSTATUS(st));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
