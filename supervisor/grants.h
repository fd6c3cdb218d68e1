/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The run's grants to package installs (grants.c): what an approved
 * install opened for its process tree, and which installs were just
 * refused (kept in the run's answers, approvals/decide.h). Read by net.c
 * and install.c alike.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sup;
struct net_dest;
struct policy_host;

/* An install approved for the process of thread tid: its tree may reach
 * hosts (taken) while it runs. */
void	grants_add(struct sup *, pid_t tid, const char *manager,
	    struct policy_host *hosts, size_t n_hosts);
/* Is an approved install by manager running as tid's process? */
bool	grants_running(struct sup *, pid_t tid, const char *manager);
/* Is tid inside the process tree of a live approved install whose hosts
 * cover d? *which names the install's manager. */
bool	grants_allow(struct sup *, pid_t tid, const struct net_dest *,
	    const char **which);
/* May name be looked up because a live approved install needs it? */
bool	grants_allow_name(struct sup *, const char *name);
/* The process (thread group) of thread tid, as the grants key it. */
pid_t	grants_tgid(pid_t tid);
/* An install just refused, by tid's process and what it asked: kept in
 * the run's answers for a moment (decide_package() reads it). */
void	grants_refuse(struct sup *, pid_t tid, const char *subject);
void	grants_done(struct sup *);
