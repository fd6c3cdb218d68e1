/* SPDX-License-Identifier: MIT */
/*
 * approvals/ocistate.c: what an OCI runtime sends `ward oci serve`. The
 * first byte of an input is how many descriptors came with it (0 to 3);
 * the rest is the message. Properties:
 *   - ocistate_parse accepts, or refuses with a cause of at most 512
 *     bytes and no control character (the input is quoted escaped and
 *     cut at 64 bytes);
 *   - what it accepts holds its invariants: an id ocistate_id_valid
 *     takes, an absolute bundle, a pid in 1..INT_MAX, at most 256
 *     annotations, "seccompFd" at an index below the count; its name is
 *     1 to 63 bytes of [A-Za-z0-9._/-]; a policy its metadata names has
 *     no '/' and no leading dot;
 *   - the message received through a socket pair (written whole, then
 *     closed) is a prefix of the input: all of it, or up to where its
 *     top-level value ends.
 */
#include "tests/fuzz/fuzz.h"

#include <limits.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "approvals/ocistate.h"

static bool
fuzz_printable(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

static void
fuzz_parse(const char *buf, size_t len, size_t nfds)
{
	struct ocistate *st = NULL;
	char *cause = NULL, *name, *policy = NULL;

	if (ocistate_parse(buf, len, nfds, &st, &cause) < 0) {
		fuzz_check(st == NULL && cause != NULL);
		fuzz_check(strlen(cause) <= 512 && fuzz_printable(cause));
		free(cause);
		return;
	}
	fuzz_check(ocistate_id_valid(st->id));
	fuzz_check(st->bundle[0] == '/');
	fuzz_check(st->pid >= 1);
	fuzz_check(st->n_annotations <= OCISTATE_MAX_ANNOTATIONS);
	fuzz_check(st->seccomp_fd < nfds);
	name = ocistate_name(st);
	fuzz_check(name[0] != '\0' && strlen(name) <= OCISTATE_NAME_MAX);
	fuzz_check(strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") == strlen(name));
	free(name);
	if (ocistate_metadata(st->metadata, &policy, &cause) == 0) {
		fuzz_check(policy == NULL || (strchr(policy, '/') == NULL &&
		    policy[0] != '.' && policy[0] != '\0'));
		free(policy);
	} else {
		fuzz_check(policy == NULL && cause != NULL);
		fuzz_check(fuzz_printable(cause));
		free(cause);
	}
	ocistate_free(st);
}

static void
fuzz_receive(const char *buf, size_t len)
{
	struct ocistate_msg m;
	char *cause = NULL;
	int sv[2];

	/* Inputs bigger than a socket pair's buffer would need a writer
	 * apart; libFuzzer's inputs here are a few KiB. */
	if (len > 64 * 1024)
		return;
	fuzz_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	if (len > 0)
		fuzz_check(write(sv[1], buf, len) == (ssize_t)len);
	close(sv[1]);
	if (ocistate_receive(sv[0], 1000, &m, &cause) == 0) {
		fuzz_check(m.len <= len && memcmp(m.buf, buf, m.len) == 0);
		fuzz_check(m.fd == -1 && m.nfds == 0);
		ocistate_msg_done(&m);
	} else {
		free(cause);
	}
	close(sv[0]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_parse((const char *)data + 1, size - 1, data[0] % 4);
	fuzz_receive((const char *)data + 1, size - 1);
	return 0;
}
