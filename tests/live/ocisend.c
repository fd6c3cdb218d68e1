/* SPDX-License-Identifier: MIT */
/*
 * tests/live/ocisend: a fake OCI runtime for t-oci-serve.sh. Connects to
 * SOCKET and sends what it reads on stdin in one sendmsg, as runc does
 * (libcontainer's sendContainerProcessState), with descriptors of KIND:
 *
 *   ocisend SOCKET KIND [SECONDS]
 *     listener  a seccomp listener of its own: a filter that notifies on
 *               getppid alone (PR_SET_NO_NEW_PRIVS first)
 *     two       that listener and a pipe
 *     pipe      a pipe
 *     none      no descriptor
 *
 * then keeps the connection SECONDS (default 0) before closing it: runc
 * 1.1 keeps it open until it exits. Exits 1 when it cannot connect or
 * send.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/listener.h"

static char buf[4 << 20];

static int
listener(void)
{
	int fd = test_listener_new();

	if (fd < 0) {
		perror("ocisend: a seccomp listener");
		exit(1);
	}
	return fd;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char ctl[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = buf };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[2], n = 0, s, p[2];

	if (argc < 3 || strlen(argv[1]) >= sizeof sa.sun_path) {
		fprintf(stderr, "usage: ocisend SOCKET listener|two|pipe|none "
		    "[SECONDS]\n");
		return 2;
	}
	iov.iov_len = fread(buf, 1, sizeof buf, stdin);
	if (strcmp(argv[2], "listener") == 0 || strcmp(argv[2], "two") == 0)
		fds[n++] = listener();
	if (strcmp(argv[2], "pipe") == 0 || strcmp(argv[2], "two") == 0) {
		if (pipe(p) < 0) {
			perror("ocisend: pipe");
			return 1;
		}
		fds[n++] = p[0];
	}
	strcpy(sa.sun_path, argv[1]);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
		perror("ocisend: connect");
		return 1;
	}
	if (n > 0) {
		struct cmsghdr *c;

		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	if (sendmsg(s, &mh, 0) < 0) {
		perror("ocisend: sendmsg");
		return 1;
	}
	if (argc > 3)
		sleep((unsigned)atoi(argv[3]));
	close(s);
	return 0;
}
