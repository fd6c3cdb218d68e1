/* SPDX-License-Identifier: MIT */
#include "approvals/gitapi.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/util.h"

/* The Makefile reads it from libgit2.so; a compile outside it (the
 * bench's compile workload) falls back to the development symlink, and
 * test-tui-diff's test_soname fails should the Makefile ever lose it. */
#ifndef WARD_LIBGIT2_SONAME
#define WARD_LIBGIT2_SONAME "libgit2.so"
#endif

struct gitapi gitapi;
static const char *gitapi_loaded;

const char *
gitapi_name(void)
{
	return gitapi_loaded;
}

int
gitapi_load(char **cause)
{
	/* The library built against, then the development symlink (a
	 * libgit2 upgraded since the build, its headers too). */
	static const char *const names[] = { WARD_LIBGIT2_SONAME,
	    "libgit2.so" };
	static int state;	/* 0 not tried, 1 loaded, -errno failed */
	static char *why;
	void *h = NULL;

	if (state == 0) {
		for (size_t i = 0; h == NULL && i < ARRAY_SIZE(names); i++) {
			if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
				gitapi_loaded = names[i];
		}
		if (h == NULL) {
			why = xasprintf("libgit2 (%s, the version ward was "
			    "built with) cannot be loaded: %s",
			    WARD_LIBGIT2_SONAME, dlerror());
			state = -ENOENT;
		}
#define X(f) \
		if (state == 0 && (gitapi.f = (__typeof__(gitapi.f))dlsym(h, #f)) == NULL) { \
			why = xasprintf("libgit2 has no %s", #f); \
			state = -ENOENT; \
		}
		GITAPI_FUNCS(X)
#undef X
		if (state == 0) {
			gitapi.git_libgit2_init();
			state = 1;
		}
	}
	if (state < 0 && cause != NULL)
		*cause = xstrdup(why);
	return state < 0 ? state : 0;
}
