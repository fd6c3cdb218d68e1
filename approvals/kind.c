/* SPDX-License-Identifier: MIT */
#include "approvals/kind.h"

#include "config/util.h"

/* One row per enum request_kind (tests/test-kind.c checks them against
 * tests/data/kind.tsv). */
static const struct kind_info kind_rows[] = {
	[KIND_WRITE] = {
		.kind = KIND_WRITE, .name = "write", .label = "path",
		.surface = SURFACE_FILES,
		.rank = GROUP_BULK, .why = "", .by_path = true,
		.place = PLACE_FOLDER, .sentence = SENTENCE_WRITE,
	},
	[KIND_CONNECT] = {
		.kind = KIND_CONNECT, .name = "connect", .label = "host",
		.surface = SURFACE_NETWORK,
		.rank = GROUP_NETWORK, .why = "a new host",
		.place = PLACE_HOST, .sentence = SENTENCE_CONNECT,
	},
	[KIND_DNS] = {
		.kind = KIND_DNS, .name = "dns", .label = "name",
		.surface = SURFACE_NETWORK,
		.rank = GROUP_NETWORK, .why = "a new host",
		.place = PLACE_WHOLE, .sentence = SENTENCE_FORMAT,
		.plain = "wants to look up the name %s (the first step "
		    "to reaching it)",
	},
	[KIND_PACKAGE] = {
		.kind = KIND_PACKAGE, .name = "package", .label = "package",
		.surface = SURFACE_PACKAGES,
		.rank = GROUP_INSTALL, .why = "an install",
		.place = PLACE_WORD, .sentence = SENTENCE_INSTALL,
	},
	[KIND_EXEC] = {
		.kind = KIND_EXEC, .name = "exec", .label = "program",
		.surface = SURFACE_EXEC,
		.rank = GROUP_BULK, .why = "",
		.place = PLACE_WHOLE, .sentence = SENTENCE_FORMAT,
		.plain = "started the program %s",
	},
	[KIND_BLOCKED] = {
		.kind = KIND_BLOCKED, .name = "blocked", .label = "subject",
		.surface = SURFACE_SYSCALLS,
		.rank = GROUP_BULK, .why = "",
		.place = PLACE_WHOLE, .sentence = SENTENCE_FORMAT,
		.plain = "tried %s, which the sandbox never allows",
	},
	[KIND_RUN] = {
		.kind = KIND_RUN, .name = "run", .label = "subject",
		.surface = SURFACE_NONE,
		.rank = GROUP_BULK, .why = "",
		.place = PLACE_WHOLE, .sentence = SENTENCE_FORMAT,
		.plain = "%s",
	},
	[KIND_HTTP] = {
		.kind = KIND_HTTP, .name = "http", .label = "request",
		.surface = SURFACE_NETWORK,
		.rank = GROUP_NETWORK, .why = "an HTTP request",
		.place = PLACE_WORD, .sentence = SENTENCE_HTTP,
	},
	[KIND_SECRET] = {
		.kind = KIND_SECRET, .name = "secret", .label = "secret",
		.surface = SURFACE_NETWORK,
		.rank = GROUP_BULK, .why = "",
		.place = PLACE_WHOLE, .sentence = SENTENCE_FORMAT,
		.plain = "tried to send the phantom of the secret %s "
		    "(refused: never the value)",
	},
};

/* A kind off the wire or out of the database that this build does not
 * know: its subject as it is, counted nowhere, ranked with the bulk. */
static const struct kind_info kind_unknown = {
	.kind = (enum request_kind)-1, .name = "unknown", .label = "subject",
	.surface = SURFACE_NONE, .rank = GROUP_BULK, .why = "",
	.by_path = false, .place = PLACE_WHOLE, .sentence = SENTENCE_FORMAT,
	.plain = "%s",
};

/* The one switch on the kinds outside the supervisor's handlers: every
 * value listed, so that -Wswitch-enum makes a new kind without a row a
 * warning (an error with WERROR=1, as CI builds). */
const struct kind_info *
kind_info(enum request_kind k)
{
	switch (k) {
	case KIND_WRITE:
	case KIND_CONNECT:
	case KIND_DNS:
	case KIND_PACKAGE:
	case KIND_EXEC:
	case KIND_BLOCKED:
	case KIND_RUN:
	case KIND_HTTP:
	case KIND_SECRET:
		if ((size_t)k < ARRAY_SIZE(kind_rows) &&
		    kind_rows[k].name != NULL)
			return &kind_rows[k];
		break;
	}
	return &kind_unknown;
}

unsigned
kind_count(void)
{
	return ARRAY_SIZE(kind_rows);
}

static const char *
kind_pick(const char *const *names, size_t n, unsigned i, const char *none)
{
	return i < n && names[i] != NULL ? names[i] : none;
}

const char *
kind_surface_name(enum summary_surface s)
{
	static const char *const names[SURFACE_COUNT] = {
		[SURFACE_FILES] = "files", [SURFACE_NETWORK] = "network",
		[SURFACE_PACKAGES] = "packages", [SURFACE_EXEC] = "exec",
		[SURFACE_SYSCALLS] = "syscalls",
	};

	return kind_pick(names, ARRAY_SIZE(names), (unsigned)s, "unknown");
}

const char *
kind_surface_word(enum summary_surface s)
{
	static const char *const words[SURFACE_COUNT] = {
		[SURFACE_FILES] = "files", [SURFACE_NETWORK] = "network",
		[SURFACE_PACKAGES] = "packages", [SURFACE_EXEC] = "programs",
		[SURFACE_SYSCALLS] = "system",
	};

	return kind_pick(words, ARRAY_SIZE(words), (unsigned)s, "run");
}

const char *
kind_rank_name(enum group_rank r)
{
	static const char *const names[] = {
		[GROUP_BULK] = "bulk", [GROUP_HOME] = "home",
		[GROUP_NETWORK] = "network", [GROUP_INSTALL] = "install",
		[GROUP_CRITICAL] = "critical",
	};

	return kind_pick(names, ARRAY_SIZE(names), (unsigned)r, "?");
}

const char *
kind_place_name(enum kind_place p)
{
	static const char *const names[] = {
		[PLACE_WHOLE] = "whole", [PLACE_FOLDER] = "folder",
		[PLACE_HOST] = "host", [PLACE_WORD] = "word",
	};

	return kind_pick(names, ARRAY_SIZE(names), (unsigned)p, "?");
}

const char *
kind_sentence_name(enum kind_sentence s)
{
	static const char *const names[] = {
		[SENTENCE_FORMAT] = "format", [SENTENCE_WRITE] = "write",
		[SENTENCE_CONNECT] = "connect", [SENTENCE_INSTALL] = "install",
		[SENTENCE_HTTP] = "http",
	};

	return kind_pick(names, ARRAY_SIZE(names), (unsigned)s, "?");
}
