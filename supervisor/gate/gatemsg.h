/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The gate's end of the wire (wire.h): one struct gate_msg a datagram,
 * fds by SCM_RIGHTS with GATE_CONN.
 */
#include <stddef.h>

#include "supervisor/gate/wire.h"

/* Copy s into a field of cap bytes, NUL-terminated; a string too long
 * is cut on a UTF-8 boundary and ends in "...". */
void	gatemsg_set(char *field, size_t cap, const char *s);
#define GATEMSG_SET(field, s) gatemsg_set((field), sizeof(field), (s))
/* Send m (with up to two fds); 0 or -errno. */
int	gatemsg_send(int wire, const struct gate_msg *m, const int *fds,
	    size_t n_fds);
/* Receive one message and its fds (fds[0..1] = -1 when none); 0, -EPIPE
 * at the end, -EPROTO for a datagram of the wrong size, -EMFILE for a
 * message whole but its fds lost (none free: m is read), or -errno. */
int	gatemsg_recv(int wire, struct gate_msg *m, int fds[2]);
