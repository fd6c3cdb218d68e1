/* SPDX-License-Identifier: MIT */
/*
 * ward-gate POLICY RUNDIR, the wire on fd 3 (supervisor/gate/wire.h):
 * started by ward-supervisor for a run whose policy intercepts a host
 * (a [secret] or an HTTP rule). Reads the secrets, makes the run's CA,
 * says READY, locks itself down and relays until the wire closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/gate/buf.h"
#include "supervisor/gate/ca.h"
#include "supervisor/gate/wire.h"
#include "supervisor/gate/lock.h"
#include "supervisor/gate/relay.h"
#include "supervisor/gate/login.h"
#include "supervisor/gate/secrets.h"

#define HOST_BUNDLE	"/etc/ssl/certs/ca-certificates.crt"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
/* LeakSanitizer's check at exit stops the world with clone and ptrace,
 * which the gate's filter refuses: it checks before the lock instead
 * (and not again at exit). */
#define LEAK_CHECK_NOW()	__lsan_do_leak_check()
#else
#define LEAK_CHECK_NOW()	((void)0)
#endif

static int
write_file(const char *path, const char *a, size_t na, const char *b,
    size_t nb)
{
	cleanup_fd int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0644);
	int r;

	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0)
		return -errno;
	if ((r = write_all(fd, a, na)) < 0 || (r = write_all(fd, b, nb)) < 0)
		return r;
	return 0;
}

static int
fail(const char *why)
{
	struct gate_msg m = { .type = GATE_FAIL };

	GATE_MSG_SET(m.text, why);
	(void)gate_msg_send(GATE_WIRE_FD, &m, NULL, 0);
	fprintf(stderr, "ward-gate: %s\n", why);
	return 1;
}

static int
write_ca(const char *rundir, const struct ca *ca, const char *host,
    size_t hlen, char **capath, char **bundlepath, char **cause)
{
	cleanup_free char *dir = xasprintf("%s/gate", rundir);
	const char *pem = ca_pem(ca);
	/* The host's bundle, then this CA on a line of its own. */
	cleanup_free char *tail = xasprintf("%s%s", hlen > 0 &&
	    host[hlen - 1] != '\n' ? "\n" : "", pem);
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		set_cause(cause, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	*capath = xasprintf("%s/ca.pem", dir);
	*bundlepath = xasprintf("%s/bundle.pem", dir);
	if ((r = write_file(*capath, pem, strlen(pem), "", 0)) < 0 ||
	    (r = write_file(*bundlepath, host, hlen, tail, strlen(tail))) < 0) {
		set_cause(cause, "%s/: %s", dir, strerror(-r));
		return r;
	}
	return 0;
}

/* The upstream store's certificates: upstream_ca's, else the host's
 * bundle, already read (*host is taken; host_cause: why it could not). */
static int
upstream_pem(const struct policy *p, char **host, size_t host_len,
    const char *host_cause, char **pem, size_t *len, char **cause)
{
	if (p->upstream_ca != NULL)
		return relay_read_store(p->upstream_ca, pem, len, cause);
	if (host_cause != NULL) {
		set_cause(cause, "%s", host_cause);
		return -EINVAL;
	}
	*pem = steal_ptr(host);
	*len = host_len;
	return 0;
}

static int
announce(const struct secrets *s, const char *capath, const char *bundle)
{
	struct gate_msg m;
	int r;

	for (size_t i = 0; i < s->n; i++) {
		/* A login file's tokens are in the file, not variables. */
		if (s->v[i].field >= 0)
			continue;
		m = (struct gate_msg){ .type = GATE_PHANTOM };
		GATE_MSG_SET(m.name, s->v[i].ps->name);
		GATE_MSG_SET(m.text, s->v[i].phantom);
		if ((r = gate_msg_send(GATE_WIRE_FD, &m, NULL, 0)) < 0)
			return r;
	}
	m = (struct gate_msg){ .type = GATE_READY };
	GATE_MSG_SET(m.path, capath);
	GATE_MSG_SET(m.text, bundle);
	return gate_msg_send(GATE_WIRE_FD, &m, NULL, 0);
}

int
main(int argc, char **argv)
{
	struct policy p;
	struct secrets s = { 0 };
	struct rlimit none = { 0, 0 }, nofile;
	cleanup_free char *cause = NULL, *capath = NULL, *bundle = NULL;
	cleanup_free char *label = NULL, *rundir = NULL;
	struct ca *ca = NULL;
	struct relay *relay = NULL;
	cleanup_free char *store_pem = NULL, *host_pem = NULL;
	cleanup_free char *host_cause = NULL;
	size_t store_len = 0, host_len = 0;
	X509_STORE *store = NULL;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: ward-gate POLICY RUNDIR (the wire on "
		    "fd 3); ward-supervisor starts it\n");
		return 2;
	}
	/* No core, no ptrace by our own uid, no SIGPIPE from a closed peer. */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	(void)setrlimit(RLIMIT_CORE, &none);
	signal(SIGPIPE, SIG_IGN);
	/* Two fds a connection: as many as we may. */
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
	    nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &nofile);
	}
	if (policy_load(&p, argv[1], &cause) < 0)
		return fail(cause ? cause : "the policy does not load");
	if (secrets_load(&s, &p, &cause) < 0)
		return fail(cause);
	/* READY names absolute paths: the supervisor binds them into the
	 * sandbox. */
	if ((rundir = realpath(argv[2], NULL)) == NULL) {
		cleanup_free char *why = xasprintf("%s: %s", argv[2],
		    strerror(errno));

		r = fail(why);
		goto out;
	}
	/* The login files as the sandbox reads them, and their keeper,
	 * forked before anything of the network is read. */
	if (login_write_inside(&s, rundir, &cause) < 0 ||
	    login_keeper_start(&s, &cause) < 0) {
		r = fail(cause);
		goto out;
	}
	label = xstrdup(rundir);
	/* The host's bundle read once: the sandbox's bundle is made of it,
	 * and unless upstream_ca says otherwise it is the upstream store. */
	if (relay_read_store(HOST_BUNDLE, &host_pem, &host_len,
	    &host_cause) < 0)
		host_len = 0;
	if ((ca = ca_new(basename(label), &p, &cause)) == NULL ||
	    write_ca(rundir, ca, host_len > 0 ? host_pem : "", host_len,
	    &capath, &bundle, &cause) < 0 ||
	    upstream_pem(&p, &host_pem, host_len, host_cause, &store_pem,
	    &store_len, &cause) < 0 ||
	    (store = X509_STORE_new()) == NULL ||
	    (relay = relay_new(GATE_WIRE_FD, &p, &s, ca, store, &cause)) ==
	    NULL) {
		r = fail(cause);
		goto out;
	}
	if (announce(&s, capath, bundle) < 0) {
		r = 1;
		goto out;
	}
	/* Parsed from memory at the first connection (read before READY). */
	relay_store_later(relay, steal_ptr(&store_pem), store_len);
	LEAK_CHECK_NOW();
	if (lock_apply(&cause) < 0) {
		/* Already READY: say it on stderr, and stop (the supervisor
		 * refuses every intercepted connect from here). */
		fprintf(stderr, "ward-gate: %s\n", cause);
		r = 1;
		goto out;
	}
	r = relay_run(relay) < 0 ? 1 : 0;
out:
	relay_free(relay);
	ca_free(ca);
	secrets_done(&s);
	policy_done(&p);
	return r;
}
