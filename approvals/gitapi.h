/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * libgit2, loaded when it is first needed (dlopen), never at start: its
 * chain of shared libraries (krb5, mbedtls, libssh2 ...) cost every
 * `ward run` 3 ms before the supervisor was even exec'd, and only the
 * review verbs (diff, apply --commit) and the console's diff pane use it.
 * Call through GIT(name)(...) after gitapi_load() said 0.
 */
#include <git2.h>
#include <git2/sys/hashsig.h>

#define GITAPI_FUNCS(X) \
	X(git_blob_create_from_buffer) \
	X(git_blob_data_is_binary) \
	X(git_branch_create) \
	X(git_commit_create) \
	X(git_commit_free) \
	X(git_commit_lookup) \
	X(git_commit_tree) \
	X(git_diff_options_init) \
	X(git_error_last) \
	X(git_hashsig_compare) \
	X(git_hashsig_create) \
	X(git_hashsig_free) \
	X(git_index_add) \
	X(git_index_free) \
	X(git_index_new) \
	X(git_index_read_tree) \
	X(git_index_remove) \
	X(git_index_write_tree_to) \
	X(git_libgit2_init) \
	X(git_libgit2_shutdown) \
	X(git_odb_hash) \
	X(git_oid_tostr) \
	X(git_patch_free) \
	X(git_patch_from_buffers) \
	X(git_patch_get_delta) \
	X(git_patch_line_stats) \
	X(git_patch_print) \
	X(git_reference_free) \
	X(git_reference_name_to_id) \
	X(git_repository_free) \
	X(git_repository_open_ext) \
	X(git_repository_workdir) \
	X(git_signature_default) \
	X(git_signature_free) \
	X(git_signature_now) \
	X(git_tree_free) \
	X(git_tree_lookup)

struct gitapi {
#define X(f) __typeof__(f) *f;
	GITAPI_FUNCS(X)
#undef X
};

extern struct gitapi gitapi;
#define GIT(f) (gitapi.f)

/* Loads libgit2 once and calls git_libgit2_init(); 0, or -ENOENT with
 * *cause (may be NULL) naming what is missing. */
int	gitapi_load(char **cause);
/* The file name it was loaded by (the build's soname), NULL before. */
const char *gitapi_name(void);
