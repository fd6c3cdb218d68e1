/* SPDX-License-Identifier: MIT */
/* approvals/ocistate.c: runtimes' process states read, names and
 * policies derived, and messages received on socketpairs (a real seccomp
 * listener among them). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/listener.h"

#include "approvals/ocistate.h"
#include "config/util.h"

static void
assert_contains(const char *s, const char *sub)
{
	if (s == NULL || strstr(s, sub) == NULL)
		fail_msg("\"%s\" does not contain \"%s\"", s ? s : "(null)",
		    sub);
}

/* runc 1.1's shape (libcontainer/seccomp/seccomp_linux.go). */
static const char runc_state[] =
    "{\"ociVersion\":\"1.0.2-dev\",\"fds\":[\"seccompFd\"],\"pid\":4422,"
    "\"state\":{\"ociVersion\":\"1.0.2-dev\",\"id\":\"c1\",\"status\":"
    "\"creating\",\"pid\":4422,\"bundle\":\"/run/b/c1\"}}";

/* Podman's (crun or runc under it), with listenerMetadata and
 * annotations. */
static const char podman_state[] =
    "{\"ociVersion\":\"1.0.2\",\"fds\":[\"seccompFd\"],\"pid\":77,"
    "\"metadata\":\"policy=agent\","
    "\"state\":{\"ociVersion\":\"1.0.2\",\"id\":"
    "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
    "\"status\":\"creating\",\"pid\":77,\"bundle\":"
    "\"/var/lib/containers/storage/overlay-containers/x/userdata\","
    "\"annotations\":{\"io.container.manager\":\"libpod\","
    "\"ward.name\":\"builder\",\"org.opencontainers.image.stopSignal\":"
    "\"15\"}}}";

static const char k8s_state[] =
    "{\"ociVersion\":\"1.0.2\",\"fds\":[\"seccompFd\"],\"pid\":9,"
    "\"state\":{\"ociVersion\":\"1.0.2\",\"id\":\"abc\",\"status\":"
    "\"creating\",\"pid\":9,\"bundle\":\"/b\",\"annotations\":{"
    "\"io.kubernetes.pod.namespace\":\"prod\","
    "\"io.kubernetes.pod.name\":\"web-7d9f\","
    "\"io.kubernetes.container.name\":\"nginx\"}}}";

static void
test_runc(void **state)
{
	struct ocistate *st = NULL;
	cleanup_free char *cause = NULL, *name = NULL;

	(void)state;
	assert_int_equal(ocistate_parse(runc_state, strlen(runc_state), 1,
	    &st, &cause), 0);
	assert_string_equal(st->oci_version, "1.0.2-dev");
	assert_int_equal(st->pid, 4422);
	assert_null(st->metadata);
	assert_string_equal(st->id, "c1");
	assert_string_equal(st->status, "creating");
	assert_string_equal(st->bundle, "/run/b/c1");
	assert_int_equal(st->n_annotations, 0);
	assert_int_equal(st->seccomp_fd, 0);
	name = ocistate_name(st);
	assert_string_equal(name, "c1");
	ocistate_free(st);
}

static void
test_podman(void **state)
{
	struct ocistate *st = NULL;
	cleanup_free char *cause = NULL, *name = NULL, *pol = NULL;

	(void)state;
	assert_int_equal(ocistate_parse(podman_state, strlen(podman_state), 1,
	    &st, &cause), 0);
	assert_string_equal(st->metadata, "policy=agent");
	assert_int_equal(st->n_annotations, 3);
	assert_string_equal(ocistate_annotation(st, "io.container.manager"),
	    "libpod");
	assert_null(ocistate_annotation(st, "nope"));
	name = ocistate_name(st);
	assert_string_equal(name, "builder");
	assert_int_equal(ocistate_metadata(st->metadata, &pol, &cause), 0);
	assert_string_equal(pol, "agent");
	ocistate_free(st);
}

static void
test_k8s_name(void **state)
{
	struct ocistate *st = NULL;
	cleanup_free char *cause = NULL, *name = NULL;

	(void)state;
	assert_int_equal(ocistate_parse(k8s_state, strlen(k8s_state), 1, &st,
	    &cause), 0);
	name = ocistate_name(st);
	assert_string_equal(name, "prod/web-7d9f/nginx");
	ocistate_free(st);
}

/* The name's other ways: containerd's keys, sanitizing, the cut. */
static void
test_names(void **state)
{
	static const struct {
		const char	*annotations;
		const char	*name;
	} cases[] = {
		{ "", "c1" },
		{ "\"ward.name\":\"\"", "c1" },
		{ "\"ward.name\":\"a b\\u001b[2Jc\"", "a_b__2Jc" },
		{ "\"ward.name\":\"caf\\u00e9\"", "caf__" },
		{ "\"ward.name\":\"../../etc\"", "../../etc" },
		{ "\"io.kubernetes.cri.sandbox-namespace\":\"ns\","
		  "\"io.kubernetes.cri.sandbox-name\":\"pod\","
		  "\"io.kubernetes.cri.container-name\":\"ctr\"", "ns/pod/ctr" },
		/* two of three: the id */
		{ "\"io.kubernetes.pod.namespace\":\"ns\","
		  "\"io.kubernetes.pod.name\":\"pod\"", "c1" },
		{ "\"ward.name\":\"w\",\"io.kubernetes.pod.namespace\":\"ns\","
		  "\"io.kubernetes.pod.name\":\"pod\","
		  "\"io.kubernetes.container.name\":\"c\"", "w" },
		{ "\"ward.name\":\"0123456789012345678901234567890123456789"
		  "012345678901234567890123456789\"",
		  "012345678901234567890123456789012345678901234567890123456789"
		  "012" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cleanup_free char *json = xasprintf(
		    "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":1,"
		    "\"state\":{\"ociVersion\":\"1\",\"id\":\"c1\",\"status\":"
		    "\"creating\",\"bundle\":\"/b\",\"annotations\":{%s}}}",
		    cases[i].annotations);
		cleanup_free char *cause = NULL, *name = NULL;
		struct ocistate *st = NULL;

		if (ocistate_parse(json, strlen(json), 1, &st, &cause) < 0)
			fail_msg("case %zu: %s", i, cause);
		name = ocistate_name(st);
		if (strcmp(name, cases[i].name) != 0)
			fail_msg("case %zu: %s, not %s", i, name,
			    cases[i].name);
		assert_true(strlen(name) <= OCISTATE_NAME_MAX);
		ocistate_free(st);
	}
}

/* A state with one field replaced: %s is where the hostile part goes. */
struct bad {
	const char	*json;
	size_t		 nfds;
	const char	*cause;
};

#define STATE(top, id, rest) \
	"{\"ociVersion\":\"1.0.2\",\"fds\":[\"seccompFd\"],\"pid\":5" top "," \
	"\"state\":{\"ociVersion\":\"1.0.2\",\"id\":" id ",\"status\":" \
	"\"creating\",\"bundle\":\"/b\"" rest "}}"

static const struct bad bads[] = {
	{ "", 1, "not JSON" },
	{ "hello", 1, "not JSON" },
	{ "{\"ociVersion\":\"1.0.2\",\"fds\":[\"secc", 1, "not JSON" },
	{ "[]", 1, "not an object" },
	{ "{\"ociVersion\":1,\"fds\":[\"seccompFd\"],\"pid\":5}", 1,
	  "ociVersion: not a string (a number)" },
	{ STATE("", "7", ""), 1, "state.id: not a string (a number)" },
	{ STATE("", "\"c1\"", ",\"pid\":\"5\""), 1,
	  "state.pid: not a number (a string)" },
	{ STATE("", "\"c1\"", ",\"pid\":5.5"), 1,
	  "state.pid: not a number (a fraction)" },
	{ STATE("", "\"c1\"", ",\"pid\":6"), 1, "state.pid: 6, but pid is 5" },
	{ STATE("", "\"c1\"", ",\"pid\":-5"), 1, "state.pid: -5 is not" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":-1,"
	  "\"state\":{}}", 1, "pid: -1 is not a process id" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":0,"
	  "\"state\":{}}", 1, "pid: 0 is not a process id" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":2147483648,"
	  "\"state\":{}}", 1, "pid: 2147483648 is not a process id" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],"
	  "\"pid\":99999999999999999999999,\"state\":{}}", 1, "not JSON" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"state\":{}}", 1,
	  "pid: missing" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":1,"
	  "\"pid\":2,\"state\":{}}", 1, "not JSON" },
	{ STATE("", "\"a/b\"", ""), 1, "state.id: 'a/b' is not a container id" },
	{ STATE("", "\"..\"", ""), 1, "state.id: '..' is not a container id" },
	{ STATE("", "\".\"", ""), 1, "state.id: '.' is not a container id" },
	{ STATE("", "\"\"", ""), 1, "state.id: empty" },
	{ STATE("", "\"x\\u001b[2Jy\"", ""), 1,
	  "state.id: 'x\\e[2Jy' is not a container id" },
	{ STATE("", "\"x\\u0000y\"", ""), 1, "not JSON" },
	{ STATE("", "\"a\\u202eb\"", ""), 1, "state.id: 'a\\u{202e}b'" },
	{ STATE("", "\"1234567890123456789012345678901234567890123456789012"
	  "3456789012345678901234567890123456789012345678901234567890123456"
	  "7890123456789012345678901234567890123456789012345678901234567890"
	  "1234567890123456789012345678901234567890123456789012345678901234"
	  "56789012345678901234567890123456789012345678901234567890\"", ""), 1,
	  "state.id: 300 bytes (at most 256): '12345678901234567890123456789"
	  "01234567890123456789012345678901234'..." },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
	  "\"state\":{\"ociVersion\":\"1\",\"id\":\"c\",\"status\":\"s\","
	  "\"bundle\":\"b/c\"}}", 1, "state.bundle: 'b/c' is not an absolute" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
	  "\"state\":{\"ociVersion\":\"1\",\"id\":\"c\",\"status\":\"s\"}}", 1,
	  "state.bundle: missing" },
	{ "{\"ociVersion\":\"1\",\"fds\":[],\"pid\":5,\"state\":{}}", 0,
	  "fds: no \"seccompFd\"" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"other\"],\"pid\":5,\"state\":{}}", 1,
	  "fds: no \"seccompFd\"" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\",\"seccompFd\"],"
	  "\"pid\":5,\"state\":{}}", 2, "fds: more than one" },
	{ "{\"ociVersion\":\"1\",\"fds\":\"seccompFd\",\"pid\":5,"
	  "\"state\":{}}", 1, "fds: not an array (a string)" },
	{ "{\"ociVersion\":\"1\",\"fds\":[3],\"pid\":5,\"state\":{}}", 1,
	  "fds[0]: not a string (a number)" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
	  "\"state\":{}}", 0, "fds: names 1 descriptors, the message carried 0" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
	  "\"state\":{}}", 2, "fds: names 1 descriptors, the message carried 2" },
	{ "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
	  "\"state\":[]}", 1, "state: not an object (an array)" },
	{ STATE(",\"metadata\":5", "\"c\"", ""), 1,
	  "metadata: not a string (a number)" },
	{ STATE("", "\"c\"", ",\"annotations\":[]"), 1,
	  "state.annotations: not an object (an array)" },
	{ STATE("", "\"c\"", ",\"annotations\":{\"k\":1}"), 1,
	  "state.annotations['k']: not a string (a number)" },
	{ STATE("", "\"c\"", ",\"annotations\":{\"\":\"v\"}"), 1,
	  "state.annotations: a key of 0 bytes" },
	{ STATE("", "\"c\"", ",\"annotations\":{\"k\":null}"), 1,
	  "state.annotations['k']: not a string (null)" },
};

static void
test_hostile(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bads); i++) {
		cleanup_free char *cause = NULL;
		struct ocistate *st = NULL;
		int r;

		r = ocistate_parse(bads[i].json, strlen(bads[i].json),
		    bads[i].nfds, &st, &cause);
		if (r >= 0)
			fail_msg("case %zu accepted: %s", i, bads[i].json);
		assert_null(st);
		if (cause == NULL || strstr(cause, bads[i].cause) == NULL)
			fail_msg("case %zu: \"%s\", not \"%s\"", i,
			    cause ? cause : "(null)", bads[i].cause);
	}
}

/* Causes quote at most 64 bytes of input, escaped. */
static void
test_quote_bound(void **state)
{
	cleanup_free char *big = xmalloc(200000), *cause = NULL;
	cleanup_free char *long_state = NULL;
	struct ocistate *st = NULL;
	size_t n;

	(void)state;
	n = (size_t)snprintf(big, 200000, STATE("", "\"%s\"", ""),
	    "x\\u001b[31m");
	memset(big + n, 0, 1);
	assert_int_equal(ocistate_parse(big, n, 1, &st, &cause), -EINVAL);
	assert_contains(cause, "'x\\e[31m'");
	free(cause);
	cause = NULL;
	/* a long bundle: quoted and cut */
	memset(big, 'a', 1000);
	big[1000] = '\0';
	free(long_state);
	long_state = xasprintf("{\"ociVersion\":\"1\",\"fds\":"
	    "[\"seccompFd\"],\"pid\":5,\"state\":{\"ociVersion\":\"1\","
	    "\"id\":\"c\",\"status\":\"s\",\"bundle\":\"%s\"}}", big);
	strcpy(big, long_state);
	assert_int_equal(ocistate_parse(big, strlen(big), 1, &st, &cause),
	    -EINVAL);
	assert_contains(cause, "not an absolute path");
	assert_true(strlen(cause) < 200);
}

/* 300 annotations: refused; 256: taken. */
static void
test_annotation_count(void **state)
{
	(void)state;
	for (int count = 256; count <= 300; count += 44) {
		cleanup_free char *json = NULL, *cause = NULL;
		char *a = xstrdup("");
		struct ocistate *st = NULL;
		int r;

		for (int i = 0; i < count; i++) {
			char *b = xasprintf("%s%s\"k%d\":\"v\"", a,
			    i ? "," : "", i);

			free(a);
			a = b;
		}
		json = xasprintf(STATE("", "\"c\"", ",\"annotations\":{%s}"),
		    a);
		free(a);
		r = ocistate_parse(json, strlen(json), 1, &st, &cause);
		if (count == 256) {
			assert_int_equal(r, 0);
			assert_int_equal(st->n_annotations, 256);
			ocistate_free(st);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_contains(cause, "300 of them (at most 256)");
		}
	}
}

static void
test_two_mib(void **state)
{
	size_t n = 2 * 1024 * 1024;
	cleanup_free char *big = xmalloc(n), *cause = NULL;
	struct ocistate *st = NULL;

	(void)state;
	memset(big, ' ', n);
	memcpy(big, runc_state, strlen(runc_state));
	assert_int_equal(ocistate_parse(big, n, 1, &st, &cause), -EFBIG);
	assert_contains(cause, "2097152 bytes (at most 1048576)");
}

static void
test_metadata(void **state)
{
	static const struct {
		const char	*md;
		const char	*policy;	/* NULL: none */
		const char	*cause;		/* NULL: accepted */
	} cases[] = {
		{ NULL, NULL, NULL },
		{ "", NULL, NULL },
		{ "policy=agent", "agent", NULL },
		{ "policy=a.b-c_d", "a.b-c_d", NULL },
		{ "policy=../x", NULL, "policy='../x' is not a policy name" },
		{ "policy=.hidden", NULL, "policy='.hidden' is not" },
		{ "policy=", NULL, "policy='' is not a policy name" },
		{ "policy=a/b", NULL, "is not a policy name" },
		{ "policy=a b", NULL, "is not a policy name" },
		{ "policy=a;policy=b", NULL, "policy given twice" },
		{ "policy=a;", NULL, "'' is not key=value" },
		{ "colour=red", NULL, "unknown key 'colour'" },
		{ "policy=a;colour=red", NULL, "unknown key 'colour'" },
		{ "agent", NULL, "'agent' is not key=value" },
		{ " policy=a", NULL, "unknown key ' policy'" },
		{ "policy=01234567890123456789012345678901234567890123456789"
		  "012345678901234", NULL, "is not a policy name" },
		{ "policy=01234567890123456789012345678901234567890123456789"
		  "01234567890123", "01234567890123456789012345678901234567890"
		  "12345678901234567890123", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cleanup_free char *pol = NULL, *cause = NULL;
		int r = ocistate_metadata(cases[i].md, &pol, &cause);

		if (cases[i].cause == NULL) {
			if (r != 0)
				fail_msg("case %zu: %s", i, cause);
			if (cases[i].policy == NULL)
				assert_null(pol);
			else
				assert_string_equal(pol, cases[i].policy);
			continue;
		}
		if (r != -EINVAL)
			fail_msg("case %zu accepted", i);
		assert_null(pol);
		if (strstr(cause, cases[i].cause) == NULL)
			fail_msg("case %zu: \"%s\", not \"%s\"", i, cause,
			    cases[i].cause);
	}
}

static int
rm_cb(const char *p, const struct stat *s, int f, struct FTW *w)
{
	(void)s;
	(void)f;
	(void)w;
	return remove(p);
}

static void
test_policy_file(void **state)
{
	char tmp[] = "/tmp/ward-test-oci-XXXXXX";
	cleanup_free char *dir = NULL, *agent = NULL, *fallback = NULL;
	cleanup_free char *ret = NULL, *cause = NULL;
	struct ocistate st = { .metadata = NULL };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	dir = xasprintf("%s/oci", tmp);
	assert_int_equal(mkdir(dir, 0700), 0);
	agent = xasprintf("%s/agent.ini", dir);
	fallback = xasprintf("%s/default.ini", tmp);
	assert_non_null(f = fopen(agent, "w"));
	fclose(f);

	/* no metadata, fallback missing: refused; present: taken */
	assert_int_equal(ocistate_policy_file(&st, tmp, fallback, &ret,
	    &cause), -ENOENT);
	assert_contains(cause, "default policy");
	assert_non_null(f = fopen(fallback, "w"));
	fclose(f);
	assert_int_equal(ocistate_policy_file(&st, tmp, fallback, &ret,
	    &cause), 0);
	assert_string_equal(ret, fallback);
	free(ret);
	ret = NULL;

	st.metadata = (char *)"policy=agent";
	assert_int_equal(ocistate_policy_file(&st, tmp, fallback, &ret,
	    &cause), 0);
	assert_string_equal(ret, agent);
	free(ret);
	ret = NULL;

	st.metadata = (char *)"policy=other";
	assert_int_equal(ocistate_policy_file(&st, tmp, fallback, &ret,
	    &cause), -ENOENT);
	assert_contains(cause, "oci/other.ini");
	assert_null(ret);

	/* a folder named like a policy is not one */
	free(dir);
	dir = xasprintf("%s/oci/dir.ini", tmp);
	assert_int_equal(mkdir(dir, 0700), 0);
	st.metadata = (char *)"policy=dir";
	assert_int_equal(ocistate_policy_file(&st, tmp, fallback, &ret,
	    &cause), -EINVAL);
	assert_contains(cause, "not a regular file");

	st.metadata = (char *)"policy=../default";
	assert_int_equal(ocistate_policy_file(&st, tmp, fallback, &ret,
	    &cause), -EINVAL);
	assert_null(ret);
	nftw(tmp, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
}

static void
test_bundle_args(void **state)
{
	char tmp[] = "/tmp/ward-test-oci-XXXXXX";
	cleanup_free char *cfg = NULL, *cause = NULL;
	cleanup_strv char **argv = NULL;
	size_t argc = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	cfg = xasprintf("%s/config.json", tmp);
	assert_int_equal(ocistate_bundle_args(tmp, &argv, &argc, &cause),
	    -ENOENT);
	assert_contains(cause, "/config.json': No such file");
	assert_non_null(f = fopen(cfg, "w"));
	fputs("{\"process\":{\"args\":[\"sh\",\"-c\",\"echo hi\"]}}", f);
	fclose(f);
	assert_int_equal(ocistate_bundle_args(tmp, &argv, &argc, &cause), 0);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "sh");
	assert_string_equal(argv[2], "echo hi");
	assert_null(argv[3]);
	strv_free(argv);
	argv = NULL;
	assert_non_null(f = fopen(cfg, "w"));
	fputs("{\"process\":{\"args\":[]}}", f);
	fclose(f);
	assert_int_equal(ocistate_bundle_args(tmp, &argv, &argc, &cause),
	    -EINVAL);
	assert_contains(cause, "process.args");
	assert_non_null(f = fopen(cfg, "w"));
	fputs("{\"process\":{\"args\":[\"a\",1]}}", f);
	fclose(f);
	assert_int_equal(ocistate_bundle_args(tmp, &argv, &argc, &cause),
	    -EINVAL);
	assert_contains(cause, "process.args[1]");
	nftw(tmp, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
}

/* --- receiving ----------------------------------------------------- */

static void
send_with_fds(int sock, const void *data, size_t len, const int *fds,
    size_t nfds)
{
	char ctl[CMSG_SPACE(sizeof(int) * 64)] = { 0 };
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 0) {
		struct cmsghdr *c;

		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	assert_true(sendmsg(sock, &mh, 0) == (ssize_t)len);
}

/* How many descriptors this process has open. */
static int
count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own */
}

/* A seccomp listener of a child's trivial filter, as a runtime has one:
 * the child installs it and sends it back over sk. */
static pid_t
listener_child(int sk, bool extra)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = test_listener_new();

		if (fd < 0)
			_exit(3);
		if (extra) {
			int fds[2] = { fd, -1 }, p[2];

			if (pipe(p) < 0)
				_exit(4);
			fds[1] = p[0];
			send_with_fds(sk, runc_state, strlen(runc_state), fds,
			    2);
		} else {
			send_with_fds(sk, runc_state, strlen(runc_state), &fd,
			    1);
		}
		_exit(0);
	}
	return pid;
}

static void
pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
}

static void
test_recv_listener(void **state)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	struct ocistate *st = NULL;
	int sv[2], status = 0;
	pid_t pid;

	(void)state;
	pair(sv);
	pid = listener_child(sv[1], false);
	close(sv[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (ocistate_receive(sv[0], 1000, &m, &cause) < 0)
		fail_msg("%s", cause);
	close(sv[0]);
	assert_true(m.fd >= 0);
	assert_int_equal(m.nfds, 1);
	assert_int_equal(m.peer_uid, geteuid());
	assert_true(fcntl(m.fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(ocistate_fd_is_listener(m.fd, &cause), 0);
	assert_int_equal(m.len, strlen(runc_state));
	assert_int_equal(ocistate_parse(m.buf, m.len, m.nfds, &st, &cause), 0);
	assert_int_equal(st->pid, 4422);
	ocistate_free(st);
	ocistate_msg_done(&m);
	assert_int_equal(m.fd, -1);
}

/* Each refusal: the cause, and no descriptor left behind. */
static void
refused(int nfds_kind, size_t nfds, const char *data, int timeout_ms,
    bool close_peer, const char *want)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	int sv[2], fds[64], before, r;

	pair(sv);
	for (size_t i = 0; i < nfds; i++) {
		int p[2];

		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		fds[i] = p[0];
		close(p[1]);
		(void)nfds_kind;
	}
	before = count_fds();
	send_with_fds(sv[1], data, strlen(data), fds, nfds);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	before -= (int)nfds;
	if (close_peer) {
		close(sv[1]);
		before--;
	}
	r = ocistate_receive(sv[0], timeout_ms, &m, &cause);
	if (r >= 0)
		fail_msg("accepted: %s", data);
	assert_int_equal(m.fd, -1);
	assert_null(m.buf);
	assert_int_equal(m.peer_pid, getpid());
	assert_contains(cause, want);
	assert_int_equal(count_fds(), before);
	close(sv[0]);
	if (!close_peer)
		close(sv[1]);
}

static void
test_recv_pipe(void **state)
{
	(void)state;
	refused(0, 1, runc_state, 1000, true,
	    "the descriptor is not a seccomp listener ('pipe:[");
}

/* A listener and a pipe: the listener kept, the pipe closed, and the
 * state, which names one, refused. */
static void
test_recv_two(void **state)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	struct ocistate *st = NULL;
	int sv[2], status = 0, before;
	pid_t pid;

	(void)state;
	pair(sv);
	pid = listener_child(sv[1], true);
	close(sv[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	before = count_fds();
	if (ocistate_receive(sv[0], 1000, &m, &cause) < 0)
		fail_msg("%s", cause);
	assert_int_equal(m.nfds, 2);
	assert_int_equal(count_fds(), before + 1);
	assert_int_equal(ocistate_fd_is_listener(m.fd, &cause), 0);
	assert_int_equal(ocistate_parse(m.buf, m.len, m.nfds, &st, &cause),
	    -EINVAL);
	assert_contains(cause, "fds: names 1 descriptors, the message "
	    "carried 2");
	ocistate_msg_done(&m);
	close(sv[0]);
	/* two pipes: the first is checked and refused for its kind */
	refused(0, 2, runc_state, 1000, true, "not a seccomp listener");
}

static void
test_recv_ctrunc(void **state)
{
	(void)state;
	refused(0, 20, runc_state, 1000, true, "truncated");
}

static void
test_recv_silent(void **state)
{
	int64_t t0 = now_mono_ms(), took;

	(void)state;
	refused(0, 0, "", 100, false, "no whole message within 100 ms");
	took = now_mono_ms() - t0;
	assert_true(took >= 100 && took < 1000);
}

/* A part of the message but no close: the deadline too. */
static void
test_recv_half(void **state)
{
	(void)state;
	refused(0, 0, "{\"ociVersion\"", 100, false, "within 100 ms "
	    "(13 bytes)");
	/* a bracket inside a string does not end the object */
	refused(0, 0, "{\"a\":\"}\\\"}\"", 100, false, "(11 bytes)");
}

/* runc 1.1 sends its object and keeps the connection open: the
 * object's end is the message's end. */
static void
test_recv_open(void **state)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	int sv[2];
	int64_t t0 = now_mono_ms();

	(void)state;
	pair(sv);
	send_with_fds(sv[1], runc_state, strlen(runc_state), NULL, 0);
	assert_int_equal(ocistate_receive(sv[0], 5000, &m, &cause), 0);
	assert_true(now_mono_ms() - t0 < 1000);
	assert_int_equal(m.len, strlen(runc_state));
	ocistate_msg_done(&m);
	/* not an object: whatever came is the parser's to refuse */
	send_with_fds(sv[1], "7", 1, NULL, 0);
	assert_int_equal(ocistate_receive(sv[0], 5000, &m, &cause), 0);
	assert_int_equal(m.len, 1);
	ocistate_msg_done(&m);
	close(sv[0]);
	close(sv[1]);
}

/* No descriptor: received, and the parse refuses it. */
static void
test_recv_no_fd(void **state)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	struct ocistate *st = NULL;
	int sv[2];

	(void)state;
	pair(sv);
	send_with_fds(sv[1], runc_state, strlen(runc_state), NULL, 0);
	close(sv[1]);
	assert_int_equal(ocistate_receive(sv[0], 1000, &m, &cause), 0);
	close(sv[0]);
	assert_int_equal(m.fd, -1);
	assert_int_equal(m.nfds, 0);
	assert_int_equal(ocistate_parse(m.buf, m.len, m.nfds, &st, &cause),
	    -EINVAL);
	assert_contains(cause, "the message carried 0");
	ocistate_msg_done(&m);
}

/* Descriptors in a second part of the stream: refused, closed. */
static void
test_recv_late_fd(void **state)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	int sv[2], p[2], before, status = 0;
	pid_t pid;

	(void)state;
	pair(sv);
	before = count_fds();
	/* Apart in time: the kernel hands a part without descriptors and
	 * the next one with them to one recvmsg when both wait. */
	if ((pid = fork()) == 0) {
		close(sv[0]);
		if (pipe2(p, O_CLOEXEC) < 0)
			_exit(1);
		send_with_fds(sv[1], "{", 1, NULL, 0);
		usleep(100 * 1000);
		send_with_fds(sv[1], "}", 1, p, 1);
		_exit(0);
	}
	close(sv[1]);
	assert_true(ocistate_receive(sv[0], 2000, &m, &cause) < 0);
	assert_contains(cause, "descriptors after");
	assert_int_equal(count_fds(), before - 1);
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* A peer of another uid (nobody), through an abstract socket: refused
 * before anything is read. Root only (setresuid). */
static void
test_recv_other_uid(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	socklen_t len;
	int lfd, conn, status = 0;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1,
	    "ward-test-oci-%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sa.sun_path + 1));
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, len), 0);
	assert_int_equal(listen(lfd, 1), 0);
	if ((pid = fork()) == 0) {
		int c;

		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(1);
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&sa, len) < 0)
			_exit(2);
		/* The refusal may close the connection before this. */
		(void)!write(c, runc_state, strlen(runc_state));
		_exit(0);
	}
	conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(conn >= 0);
	assert_int_equal(ocistate_receive(conn, 1000, &m, &cause), -EPERM);
	assert_contains(cause, "the peer runs as uid 65534, neither root "
	    "nor uid 0");
	assert_int_equal(m.peer_pid, pid);
	assert_int_equal(m.peer_uid, 65534);
	assert_null(m.buf);
	close(conn);
	close(lfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Over 1 MiB in the stream: refused without reading it all. */
static void
test_recv_big(void **state)
{
	struct ocistate_msg m;
	cleanup_free char *cause = NULL;
	size_t n = 2 * 1024 * 1024;
	cleanup_free char *big = xmalloc(n);
	int sv[2], status = 0;
	pid_t pid;

	(void)state;
	memset(big, ' ', n);
	pair(sv);
	if ((pid = fork()) == 0) {
		close(sv[0]);
		(void)!write_all(sv[1], big, n);
		_exit(0);
	}
	close(sv[1]);
	assert_int_equal(ocistate_receive(sv[0], 2000, &m, &cause), -EFBIG);
	assert_contains(cause, "over 1048576 bytes");
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runc),
		cmocka_unit_test(test_podman),
		cmocka_unit_test(test_k8s_name),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_quote_bound),
		cmocka_unit_test(test_annotation_count),
		cmocka_unit_test(test_two_mib),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_policy_file),
		cmocka_unit_test(test_bundle_args),
		cmocka_unit_test(test_recv_listener),
		cmocka_unit_test(test_recv_pipe),
		cmocka_unit_test(test_recv_two),
		cmocka_unit_test(test_recv_ctrunc),
		cmocka_unit_test(test_recv_silent),
		cmocka_unit_test(test_recv_half),
		cmocka_unit_test(test_recv_open),
		cmocka_unit_test(test_recv_no_fd),
		cmocka_unit_test(test_recv_late_fd),
		cmocka_unit_test(test_recv_other_uid),
		cmocka_unit_test(test_recv_big),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
