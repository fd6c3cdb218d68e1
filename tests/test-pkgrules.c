/* SPDX-License-Identifier: MIT */
/*
 * approvals/pkgrules.c: the [packages] verdict for one package and for a
 * whole install built by hand as plain data, without the supervisor's
 * command-line reading (tests/test-sup-packages.c judges what that reads).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/pkgrules.h"
#include "config/policy.h"
#include "config/util.h"

static void
policy_of(struct policy *p, const char *ini)
{
	char *cause = NULL;
	int r = policy_load_string(p, ini, "test.ini", &cause);

	if (r != 0)
		print_error("policy: %s\n", cause);
	assert_int_equal(r, 0);
}

static void
test_verdict(void **state)
{
	static const struct {
		const char	*manager;
		const char	*package;
		enum policy_action want;
		const char	*which;
	} t[] = {
		{ "pip", "requests", POLICY_ALLOW, "pip:requests" },
		/* PEP 503: case and - _ . fold */
		{ "pip", "Requests", POLICY_ALLOW, "pip:requests" },
		{ "pip", "zope.interface", POLICY_ALLOW, "pip:zope.*" },
		{ "pip", "Zope_Interface", POLICY_ALLOW, "pip:zope.*" },
		{ "pip3", "requests", POLICY_ALLOW, "pip:requests" },
		{ "uv", "requests", POLICY_DENY, NULL },
		/* deny first */
		{ "pip", "evil-pkg", POLICY_DENY, "pip:evil-*" },
		{ "pip", "evil_pkg", POLICY_DENY, "pip:evil-*" },
		{ "npm", "@types/node", POLICY_ALLOW, "npm:@types/*" },
		{ "npm", "@Types/node", POLICY_DENY, NULL },
		{ "npm", "lodash", POLICY_DENY, NULL },
		{ "npm", "left-pad", POLICY_DENY, "npm:left-pad" },
		{ "apt", "curl", POLICY_ALLOW, "apt:*" },
		{ "apt-get", "Curl", POLICY_ALLOW, "apt:*" },
		{ "apt", "openssh-server", POLICY_DENY, "apt:openssh-*" },
		/* crates.io: case and _ fold */
		{ "cargo", "Serde_JSON", POLICY_ALLOW, "cargo:serde_json" },
		{ "go", "golang.org/x/tools/gopls", POLICY_ALLOW, "go:golang.org/x/*" },
		{ "go", "golang.org/X/tools", POLICY_DENY, NULL },
		{ "conda", "conda-forge::numpy", POLICY_DENY, NULL },
		{ "mamba", "numpy", POLICY_ALLOW, "conda:numpy" },
		{ "gem", "rails", POLICY_DENY, NULL },
		/* allow patterns name registry packages, never paths or URLs */
		{ "pip", "./requests", POLICY_DENY, NULL },
		{ "apt", "./curl.deb", POLICY_DENY, NULL },
		{ "npm", "types/node", POLICY_DENY, NULL },
		{ "pip", "git+https://github.com/psf/requests", POLICY_DENY, NULL },
		/* ... but deny patterns still hold for them */
		{ "npm", "left-pad", POLICY_DENY, "npm:left-pad" },
		{ "nosuch", "requests", POLICY_DENY, NULL },
	};
	struct policy p;
	const char *which;

	(void)state;
	policy_of(&p, "[packages]\n"
	    "install = deny\n"
	    "deny = pip:evil-* npm:left-pad apt:openssh-*\n"
	    "allow = pip:requests pip:zope.* npm:@types/* apt:* go:golang.org/x/*\n"
	    "  cargo:serde_json conda:numpy\n");
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		enum policy_action v = packages_verdict(&p, t[i].manager,
		    t[i].package, &which);

		if (v != t[i].want || (which == NULL) != (t[i].which == NULL) ||
		    (which != NULL && strcmp(which, t[i].which) != 0))
			fail_msg("%s:%s: %s by %s, want %s by %s", t[i].manager,
			    t[i].package, policy_action_name(v),
			    which ? which : "default",
			    policy_action_name(t[i].want),
			    t[i].which ? t[i].which : "default");
	}
	/* which may be NULL; the default follows install. */
	assert_int_equal(packages_verdict(&p, "npm", "express", NULL), POLICY_DENY);
	policy_done(&p);

	policy_of(&p, "[packages]\ndeny = pip:*\n");
	assert_int_equal(packages_verdict(&p, "pip", "./local", &which), POLICY_DENY);
	assert_string_equal(which, "pip:*");
	assert_int_equal(packages_verdict(&p, "npm", "x", &which), POLICY_ASK);
	assert_null(which);
	policy_done(&p);

	policy_of(&p, "[packages]\ninstall = allow\n");
	assert_int_equal(packages_verdict(&p, "gem", "rails", &which), POLICY_ALLOW);
	assert_null(which);
	policy_done(&p);
	assert_int_equal(packages_verdict(NULL, "pip", "x", &which), POLICY_ASK);
}

/* An install as the supervisor would hand it over, built by hand. */
static void
install_add(struct pkg_install *inst, const char *name, bool local)
{
	inst->items = xreallocarray(inst->items, inst->n_items + 1,
	    sizeof *inst->items);
	inst->items[inst->n_items++] = (struct pkg_item){
		.name = xstrdup(name),
		.local = local,
	};
}

static void
test_verdict_install_plain(void **state)
{
	struct pkg_install inst = { .manager = "pip" };
	struct policy p;
	const char *which = "unset";

	(void)state;
	policy_of(&p, "[packages]\ninstall = deny\n"
	    "deny = pip:evil-*\nallow = pip:requests pip:flask\n");
	/* No items: nothing allowed by a pattern, the default. */
	assert_int_equal(packages_verdict_install(&p, &inst, &which),
	    POLICY_DENY);
	assert_null(which);
	install_add(&inst, "requests", false);
	install_add(&inst, "Flask", false);
	assert_int_equal(packages_verdict_install(&p, &inst, &which),
	    POLICY_ALLOW);
	assert_string_equal(which, "pip:requests");
	/* A name marked local is never allowed by a pattern. */
	inst.items[1].local = true;
	assert_int_equal(packages_verdict_install(&p, &inst, &which),
	    POLICY_DENY);
	assert_null(which);
	inst.items[1].local = false;
	/* Files and index URLs keep an allowed install from going alone. */
	strv_push(&inst.index_urls, &inst.n_index_urls,
	    xstrdup("https://evil.example/simple"));
	assert_int_equal(packages_verdict_install(&p, &inst, NULL),
	    POLICY_DENY);
	strv_free(inst.index_urls);
	inst.index_urls = NULL;
	inst.n_index_urls = 0;
	strv_push(&inst.files, &inst.n_files, xstrdup("req.txt"));
	assert_int_equal(packages_verdict_install(&p, &inst, NULL),
	    POLICY_DENY);
	/* A denied item decides, whatever else. */
	install_add(&inst, "evil_x", false);
	assert_int_equal(packages_verdict_install(&p, &inst, &which),
	    POLICY_DENY);
	assert_string_equal(which, "pip:evil-*");
	/* A manager the policy does not know: the default. */
	inst.manager = "nosuch";
	assert_int_equal(packages_verdict_install(&p, &inst, &which),
	    POLICY_DENY);
	assert_null(which);
	assert_int_equal(packages_verdict_install(NULL, &inst, &which),
	    POLICY_ASK);
	policy_done(&p);
	pkg_install_done(&inst);
	assert_null(inst.items);
	assert_int_equal(inst.n_items, 0);
	pkg_install_done(NULL);
}

static void
test_looks_local(void **state)
{
	static const struct {
		const char	*manager;
		const char	*name;
		bool		 local;
	} t[] = {
		{ "pip", "requests", false },
		{ "pip", "./requests", true },
		{ "pip", "../lib", true },
		{ "pip", "/abs/dir", true },
		{ "pip", "~/src/x", true },
		{ "pip", ".", true },
		{ "pip", "x-1.0-py3-none-any.whl", true },
		{ "pip", "git+https://github.com/a/b", true },
		{ "pip", "file:./x", true },
		{ "pip", "a/b", true },
		{ "pip", "a\\b", true },
		{ "uv", "a/b", true },
		{ "npm", "@types/node", false },
		{ "npm", "user/repo", true },
		{ "npm", "github:user/repo", true },
		{ "npm", "npm:lodash", true },
		{ "yarn", "workspace:*", true },
		{ "pnpm", "link:../x", true },
		{ "npx", "gist:123", true },
		{ "npm", "left-pad", false },
		{ "go", "golang.org/x/tools/gopls", false },
		{ "apt", "./curl.deb", true },
		{ "apt", "curl", false },
		{ "cargo", "x.crate", true },
		{ "gem", "rails", false },
		{ "conda", "https://x.example/y.conda", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (pkg_looks_local(t[i].manager, t[i].name) != t[i].local)
			fail_msg("%s:%s: local %d, want %d", t[i].manager,
			    t[i].name, !t[i].local, t[i].local);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_verdict_install_plain),
		cmocka_unit_test(test_looks_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
