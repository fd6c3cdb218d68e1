/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward-gate's own seccomp filter, installed once start-up is done (the
 * secrets read, the CA written, the trust store loaded): from then on
 * the gate can only move bytes on the fds it has or is handed. No
 * socket, connect, bind, open, exec, fork, ptrace: everything else fails
 * with EPERM. mmap and mprotect never with PROT_EXEC.
 */

/* PR_SET_NO_NEW_PRIVS and the filter; 0 or -errno and *cause. */
int	lock_apply(char **cause);
/* The same for the login keeper (login.c), which also opens, rewrites,
 * syncs and removes files: by openat, in the folder it opened first. */
int	lock_apply_keeper(char **cause);
