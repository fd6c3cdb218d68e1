/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's messages, the JSON inside a frame (framing:
 * fuzz-proto.c). Every parser of a message a peer sends is a row of
 * fuzz_parsers: it gets the input's JSON (and, when that is a message of
 * its type, also the member it reads), and must accept it or fail with a
 * cause; what it accepts must survive a round trip through its builder
 * (request_from_json; an output message's base64). Any input also goes
 * through base64 and back.
 * New message parsers (approvals/msg.c) are new rows.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <stdbool.h>

#include "approvals/proto.h"
#include "approvals/request.h"

static bool
fuzz_same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* request_from_json; request_to_json of the result parses to the same. */
static void
fuzz_request(const json_t *j)
{
	struct request *r = NULL, *r2 = NULL;
	char *cause = NULL;
	json_t *back, *back2;

	if (request_from_json(j, &r, &cause) < 0) {
		fuzz_check(r == NULL && cause != NULL);
		free(cause);
		return;
	}
	fuzz_check(cause == NULL);
	back = request_to_json(r);
	fuzz_check(request_from_json(back, &r2, &cause) == 0);
	fuzz_check(r->id == r2->id && r->pid == r2->pid &&
	    r->kind == r2->kind && r->created_ms == r2->created_ms &&
	    r->deadline_ms == r2->deadline_ms);
	fuzz_check(fuzz_same_str(r->run, r2->run) &&
	    fuzz_same_str(r->syscall, r2->syscall) &&
	    fuzz_same_str(r->subject, r2->subject) &&
	    fuzz_same_str(r->subject2, r2->subject2) &&
	    fuzz_same_str(r->detail, r2->detail) &&
	    fuzz_same_str(r->cmdline, r2->cmdline) &&
	    fuzz_same_str(r->cwd, r2->cwd) && fuzz_same_str(r->why, r2->why));
	back2 = request_to_json(r2);
	fuzz_check(json_equal(back, back2));
	json_decref(back2);
	json_decref(back);
	request_free(r2);
	request_free(r);
}

/* An output message's data: base64 that decodes only in its one
 * canonical form, so encoding what it decodes to gives it back. */
static void
fuzz_output_data(const json_t *j)
{
	const char *s = json_string_value(j);
	void *buf = NULL;
	size_t len = 0;
	char *again;

	if (s == NULL || proto_b64_decode(s, &buf, &len) < 0)
		return;
	again = proto_b64_encode(buf, len);
	fuzz_check(strcmp(again, s) == 0);
	free(again);
	free(buf);
}

static const struct {
	const char	*type;		/* the message carrying it */
	const char	*member;	/* where in that message, or NULL */
	void		(*parse)(const json_t *);
} fuzz_parsers[] = {
	{ "request", "request", fuzz_request },
	{ "output", "data", fuzz_output_data },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
	    NULL);
	const char *type;

	/* Any bytes survive base64 both ways. */
	{
		char *b64 = proto_b64_encode(data, size);
		void *back = NULL;
		size_t back_len = 0;

		fuzz_check(proto_b64_decode(b64, &back, &back_len) == 0);
		fuzz_check(back_len == size && memcmp(back, data, size) == 0);
		free(back);
		free(b64);
	}
	if (j == NULL)
		return 0;
	type = json_string_value(json_object_get(j, "type"));
	for (size_t i = 0; i < sizeof fuzz_parsers / sizeof fuzz_parsers[0]; i++) {
		fuzz_parsers[i].parse(j);
		if (type != NULL && strcmp(type, fuzz_parsers[i].type) == 0 &&
		    fuzz_parsers[i].member != NULL)
			fuzz_parsers[i].parse(json_object_get(j,
			    fuzz_parsers[i].member));
	}
	json_decref(j);
	return 0;
}
