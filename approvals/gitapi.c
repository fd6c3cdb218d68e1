/* SPDX-License-Identifier: MIT */
#include "approvals/gitapi.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/util.h"

struct gitapi gitapi;

int
gitapi_load(char **cause)
{
	static const char *const names[] = { "libgit2.so.1.5", "libgit2.so" };
	static int state;	/* 0 not tried, 1 loaded, -errno failed */
	static char *why;
	void *h = NULL;

	if (state == 0) {
		for (size_t i = 0; h == NULL && i < ARRAY_SIZE(names); i++)
			h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h == NULL) {
			why = xasprintf("libgit2 (libgit2-dev's library) cannot "
			    "be loaded: %s", dlerror());
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
