/* SPDX-License-Identifier: MIT */
/*
 * supervisor/packages.c: recognition from the table in
 * tests/data/sup-packages.tsv, then verdicts on what was recognised
 * (approvals/pkgrules.c on its own: tests/test-pkgrules.c), registry
 * hosts, reading requirement files and package.json from real temp files,
 * and the one-line description.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/packages.h"

#define PKG_TSV		"tests/data/sup-packages.tsv"

/* ---- the table ---------------------------------------------------------- */

/* "a\sb" -> "a b", "\\" -> "\" */
static char *
unescape(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	for (; *s != '\0'; s++) {
		if (*s == '\\' && s[1] == 's') {
			*o++ = ' ';
			s++;
		} else if (*s == '\\' && s[1] == '\\') {
			*o++ = '\\';
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

static char *
join(char *const *v, size_t n)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *old = s;

		s = xasprintf("%s%s%s", old, i ? " " : "", v[i]);
		free(old);
	}
	return *s ? s : (free(s), xstrdup("-"));
}

/* Items as the table spells them: [!]name[|version], blank-separated. */
static char *
items_text(const struct pkg_install *p)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < p->n_items; i++) {
		const struct pkg_item *it = &p->items[i];
		char *old = s;
		char *name = xstrdup(it->name);

		for (char *c = name; *c; c++)
			if (*c == ' ')
				*c = '\x01';	/* shown as \s below */
		s = xasprintf("%s%s%s%s%s%s", old, i ? " " : "",
		    it->local ? "!" : "", name, it->version ? "|" : "",
		    it->version ? it->version : "");
		free(name);
		free(old);
	}
	if (*s == '\0') {
		free(s);
		return xstrdup("-");
	}
	/* Back to the table's escapes, for comparing. */
	{
		char *out = xmalloc(strlen(s) * 2 + 1), *o = out;

		for (char *c = s; *c; c++) {
			if (*c == '\x01') {
				*o++ = '\\';
				*o++ = 's';
			} else {
				*o++ = *c;
			}
		}
		*o = '\0';
		free(s);
		return out;
	}
}

static unsigned
check_field(unsigned line, const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return 0;
	print_error(PKG_TSV ":%u: %s is \"%s\", want \"%s\"\n", line, what,
	    got, want);
	return 1;
}

static unsigned
table_row(unsigned line, char **f, size_t n)
{
	struct pkg_install p;
	char **argv = NULL;
	size_t argc = 0;
	char *path = NULL, *got;
	unsigned failed = 0;
	int r;

	if (n != 3 && n != 8)
		fail_msg(PKG_TSV ":%u: %zu fields, want 3 or 8", line, n);
	if (strcmp(f[0], "\"\"") == 0)
		path = xstrdup("");
	else if (strcmp(f[0], "-") != 0)
		path = xstrdup(f[0]);
	if (strcmp(f[1], "\"\"") == 0) {
		strv_push(&argv, &argc, xstrdup(""));
	} else if (strcmp(f[1], "-") != 0) {
		char *save = NULL, *copy = xstrdup(f[1]);

		for (char *w = strtok_r(copy, " ", &save); w != NULL;
		    w = strtok_r(NULL, " ", &save))
			strv_push(&argv, &argc, unescape(w));
		free(copy);
	}

	r = packages_parse(path, argv, &p);
	if (n == 3) {
		if (strcmp(f[2], "no") != 0)
			fail_msg(PKG_TSV ":%u: 3 fields but not \"no\"", line);
		if (r != 0) {
			print_error(PKG_TSV ":%u: %d (%s %s), want not an install\n",
			    line, r, p.manager, p.action);
			failed++;
		}
		/* Not an install leaves nothing behind. */
		assert_null(p.manager);
		assert_null(p.action);
		assert_null(p.items);
		assert_null(p.files);
		assert_null(p.target);
		assert_null(p.index_urls);
	} else if (r != 1) {
		print_error(PKG_TSV ":%u: %d, want an install\n", line, r);
		failed++;
	} else {
		failed += check_field(line, "manager", p.manager, f[2]);
		failed += check_field(line, "action", p.action, f[3]);
		got = items_text(&p);
		failed += check_field(line, "items", got, f[4]);
		free(got);
		got = join(p.files, p.n_files);
		failed += check_field(line, "files", got, f[5]);
		free(got);
		failed += check_field(line, "target", p.target ? p.target : "-",
		    f[6]);
		got = join(p.index_urls, p.n_index_urls);
		failed += check_field(line, "index urls", got, f[7]);
		free(got);
		/* Lists stay NULL-terminated, for strv_free. */
		if (p.files != NULL)
			assert_null(p.files[p.n_files]);
		if (p.index_urls != NULL)
			assert_null(p.index_urls[p.n_index_urls]);
	}
	pkg_install_done(&p);
	strv_free(argv);
	free(path);
	return failed;
}

static void
test_table(void **state)
{
	FILE *fp = fopen(PKG_TSV, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0, failed = 0, rows = 0;
	bool managers[12] = { false };
	static const char *const names[12] = {
		"pip", "uv", "npm", "pnpm", "yarn", "npx", "apt", "dpkg", "gem",
		"cargo", "go", "conda",
	};

	(void)state;
	if (fp == NULL)
		fail_msg("%s: %s (run the tests from the repository root)",
		    PKG_TSV, strerror(errno));
	while ((len = getline(&line, &cap, fp)) >= 0) {
		char **f = NULL, *save = NULL;
		size_t n = 0;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		for (char *tok = strtok_r(line, "\t", &save); tok != NULL;
		    tok = strtok_r(NULL, "\t", &save))
			strv_push(&f, &n, xstrdup(tok));
		failed += table_row(lineno, f, n);
		for (size_t i = 0; n == 8 && i < 12; i++)
			if (strcmp(f[2], names[i]) == 0)
				managers[i] = true;
		strv_free(f);
		rows++;
	}
	free(line);
	fclose(fp);
	print_message("%u rows\n", rows);
	assert_true(rows >= 60);
	for (size_t i = 0; i < 12; i++)
		if (!managers[i])
			fail_msg(PKG_TSV ": no install row for %s", names[i]);
	assert_int_equal(failed, 0);
}

/* ---- the API's edges ---------------------------------------------------- */

static void
test_parse_edges(void **state)
{
	char *argv[] = { "pip", "install", "x", NULL };
	struct pkg_install p;

	(void)state;
	assert_int_equal(packages_parse("/usr/bin/pip", argv, NULL), -EINVAL);
	/* A failed parse leaves *out zeroed, safe to release twice. */
	memset(&p, 0xa5, sizeof p);
	assert_int_equal(packages_parse("/usr/bin/ls", argv, &p), 0);
	assert_null(p.manager);
	pkg_install_done(&p);
	pkg_install_done(&p);
	pkg_install_done(NULL);

	assert_int_equal(packages_parse(NULL, argv, &p), 1);
	assert_string_equal(p.manager, "pip");
	assert_string_equal(p.action, "install");
	assert_int_equal(p.n_items, 1);
	assert_false(p.items[0].local);
	assert_null(p.items[0].version);
	pkg_install_done(&p);
	assert_null(p.items);
	assert_int_equal(p.n_items, 0);
}

/* ---- verdicts ----------------------------------------------------------- */

static void
policy_from(struct policy *p, const char *ini)
{
	char *cause = NULL;

	if (policy_load_string(p, ini, "test.ini", &cause) != 0)
		fail_msg("policy: %s", cause);
}

static enum policy_action
verdict_of(const struct policy *p, const char *argv_text, const char **which)
{
	char *copy = xstrdup(argv_text), *save = NULL;
	char **argv = NULL;
	size_t argc = 0;
	struct pkg_install inst;
	enum policy_action v;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		strv_push(&argv, &argc, xstrdup(w));
	free(copy);
	if (packages_parse(NULL, argv, &inst) != 1)
		fail_msg("%s: not an install", argv_text);
	v = packages_verdict_install(p, &inst, which);
	pkg_install_done(&inst);
	strv_free(argv);
	return v;
}

static void
test_verdict_install(void **state)
{
	static const struct {
		const char	*argv;
		enum policy_action want;
		const char	*which;
	} t[] = {
		{ "pip install requests flask", POLICY_ALLOW, "pip:requests" },
		{ "pip install requests flask evil-x", POLICY_DENY, "pip:evil-*" },
		{ "pip install requests numpy", POLICY_ASK, NULL },
		/* Files may change after the check; other indexes are other code. */
		{ "pip install requests -r req.txt", POLICY_ASK, NULL },
		{ "pip install -i https://evil.example/simple requests", POLICY_ASK, NULL },
		{ "pip install -e ./requests", POLICY_ASK, NULL },
		{ "npm install", POLICY_ASK, NULL },
		{ "npm install flask@npm:evil", POLICY_ASK, NULL },
		{ "npm install flask", POLICY_ALLOW, "npm:*" },
		{ "cargo install --git https://g.example/x ripgrep", POLICY_ASK, NULL },
		{ "cargo install --path . ripgrep", POLICY_ASK, NULL },
		{ "cargo install ripgrep", POLICY_ALLOW, "cargo:ripgrep" },
		{ "conda install -c evil numpy", POLICY_ASK, NULL },
		{ "apt-get update", POLICY_ASK, NULL },
		{ "dpkg -i x.deb", POLICY_ASK, NULL },
	};
	struct policy p;
	const char *which;

	(void)state;
	policy_from(&p, "[packages]\n"
	    "deny = pip:evil-*\n"
	    "allow = pip:requests pip:flask npm:* cargo:ripgrep conda:numpy\n");
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		enum policy_action v = verdict_of(&p, t[i].argv, &which);

		if (v != t[i].want || (which == NULL) != (t[i].which == NULL) ||
		    (which != NULL && strcmp(which, t[i].which) != 0))
			fail_msg("%s: %s by %s, want %s by %s", t[i].argv,
			    policy_action_name(v), which ? which : "default",
			    policy_action_name(t[i].want),
			    t[i].which ? t[i].which : "default");
	}
	policy_done(&p);

	/* install = allow lets all through but what is denied. */
	policy_from(&p, "[packages]\ninstall = allow\ndeny = npm:left-pad\n");
	assert_int_equal(verdict_of(&p, "npm install -r x left-pad", &which),
	    POLICY_DENY);
	assert_string_equal(which, "npm:left-pad");
	assert_int_equal(verdict_of(&p, "npm ci", &which), POLICY_ALLOW);
	assert_null(which);
	policy_done(&p);

	/* install = deny: a fully allowed install still goes. */
	policy_from(&p, "[packages]\ninstall = deny\nallow = gem:rails\n");
	assert_int_equal(verdict_of(&p, "gem install rails", NULL), POLICY_ALLOW);
	assert_int_equal(verdict_of(&p, "gem install rails rake", NULL), POLICY_DENY);
	policy_done(&p);
}

/* ---- hosts -------------------------------------------------------------- */

static char *
hosts_text(const struct policy *p, const struct pkg_install *inst)
{
	struct policy_host *h = NULL;
	size_t n = packages_hosts(p, inst, &h);
	char *s = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *old = s;

		s = xasprintf("%s%s%s@%u-%u", old, i ? " " : "", h[i].host,
		    h[i].port_lo, h[i].port_hi);
		free(old);
	}
	if (n == 0)
		assert_null(h);
	packages_hosts_free(h, n);
	return s;
}

static void
test_hosts_defaults(void **state)
{
	static const struct {
		const char	*manager;
		const char	*hosts;
	} t[] = {
		{ "pip", "pypi.org@443-443 files.pythonhosted.org@443-443" },
		{ "uv", "pypi.org@443-443 files.pythonhosted.org@443-443" },
		{ "npm", "registry.npmjs.org@443-443" },
		{ "npx", "registry.npmjs.org@443-443" },
		{ "pnpm", "registry.npmjs.org@443-443" },
		{ "yarn", "registry.yarnpkg.com@443-443 registry.npmjs.org@443-443" },
		{ "apt", "deb.debian.org@80-80 deb.debian.org@443-443 "
		    "security.debian.org@80-80 security.debian.org@443-443" },
		{ "dpkg", "" },
		{ "gem", "rubygems.org@443-443" },
		{ "cargo", "crates.io@443-443 static.crates.io@443-443 "
		    "index.crates.io@443-443" },
		{ "go", "proxy.golang.org@443-443 sum.golang.org@443-443" },
		{ "conda", "conda.anaconda.org@443-443 repo.anaconda.com@443-443" },
	};
	struct policy p;

	(void)state;
	policy_init(&p);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pkg_install inst = { .manager = t[i].manager };
		char *got = hosts_text(&p, &inst);

		if (strcmp(got, t[i].hosts) != 0)
			fail_msg("%s: \"%s\", want \"%s\"", t[i].manager, got,
			    t[i].hosts);
		free(got);
		/* No policy: the same built-in hosts. */
		got = hosts_text(NULL, &inst);
		assert_string_equal(got, t[i].hosts);
		free(got);
	}
	policy_done(&p);
}

static void
test_hosts_policy_and_urls(void **state)
{
	struct policy p;
	char *urls[] = {
		"https://pypi.internal:8443/simple",
		"http://User:pw@Mirror.Example/simple/",
		"https://pypi.org/simple",		/* already there */
		"./wheels",				/* not a URL */
		"ftp://x.example/",			/* not a scheme we open */
		"https://[2001:db8::1]/simple",
		"https://*.evil.example/",		/* no wildcards from argv */
		"https://x.example:80-90/",		/* no ranges either */
		"sparse+https://idx.example/",
		"conda-forge",
		NULL,
	};
	struct pkg_item items[] = {
		{ .name = "git+https://github.com/a/b@main", .local = true },
		{ .name = "requests @ https://files.example/r.whl", .local = true },
		{ .name = "x", .version = "git+ssh://git@git.example/x.git", .local = true },
		{ .name = "requests" },
	};
	struct pkg_install inst = {
		.manager = "pip",
		.index_urls = urls,
		.n_index_urls = ARRAY_SIZE(urls) - 1,
	};
	char *got;

	(void)state;
	/* [manager pip] hosts replace the built-in ones. */
	policy_from(&p, "[manager pip]\nhosts = pypi.org:443 10.0.0.0/8:3141\n"
	    "[manager npm]\nhosts = none\n");
	got = hosts_text(&p, &inst);
	assert_string_equal(got, "pypi.org@443-443 10.0.0.0/8@3141-3141 "
	    "pypi.internal@8443-8443 mirror.example@80-80 2001:db8::1@443-443 "
	    "idx.example@443-443");
	free(got);

	inst.items = items;
	inst.n_items = ARRAY_SIZE(items);
	got = hosts_text(&p, &inst);
	assert_string_equal(got, "pypi.org@443-443 10.0.0.0/8@3141-3141 "
	    "pypi.internal@8443-8443 mirror.example@80-80 2001:db8::1@443-443 "
	    "idx.example@443-443 github.com@443-443 files.example@443-443 "
	    "git.example@22-22");
	free(got);

	/* "none": no hosts but what the command line names. */
	inst = (struct pkg_install){ .manager = "npm" };
	got = hosts_text(&p, &inst);
	assert_string_equal(got, "");
	free(got);
	inst.index_urls = urls;
	inst.n_index_urls = 1;
	got = hosts_text(&p, &inst);
	assert_string_equal(got, "pypi.internal@8443-8443");
	free(got);
	/* Others keep their built-in hosts; aliases name the same section. */
	inst = (struct pkg_install){ .manager = "yarn" };
	got = hosts_text(&p, &inst);
	assert_string_equal(got, "registry.yarnpkg.com@443-443 "
	    "registry.npmjs.org@443-443");
	free(got);
	policy_done(&p);

	policy_from(&p, "[manager apt-get]\nhosts = 192.168.1.5:3142\n");
	inst = (struct pkg_install){ .manager = "apt" };
	got = hosts_text(&p, &inst);
	assert_string_equal(got, "192.168.1.5@3142-3142");
	free(got);
	policy_done(&p);
}

/* ---- files -------------------------------------------------------------- */

static char *tmpdir;

static int
files_setup(void **state)
{
	char tmpl[] = "/tmp/test-sup-packages.XXXXXX";

	(void)state;
	if (mkdtemp(tmpl) == NULL)
		return -1;
	tmpdir = xstrdup(tmpl);
	return 0;
}

static int
files_teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);

	(void)state;
	free(cmd);
	free(tmpdir);
	return r == 0 ? 0 : -1;
}

static int
file_with(const char *name, const void *text, size_t len)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, len), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	free(path);
	return fd;
}

static int
read_into(struct pkg_install *inst, const char *name, const char *text)
{
	int fd = file_with("f", text, strlen(text));
	int r = packages_read_file(fd, name, inst);

	close(fd);
	return r;
}

static void
test_read_requirements(void **state)
{
	static const char req[] =
	    "# a comment line\n"
	    "requests==2.32.3   # pinned\n"
	    "\n"
	    "   \n"
	    "Flask[async]>=2.0,<3 ; python_version >= \"3.8\"\n"
	    "numpy; sys_platform == 'linux'\n"
	    "urllib3 \\\n"
	    "    >=1.26 \\\n"
	    "    --hash=sha256:abc\r\n"
	    "six --hash=sha256:def --hash=sha256:0123\n"
	    "-r base.txt\n"
	    "--requirement=/abs/other.txt\n"
	    "-c constraints.txt\n"
	    "-rnested.txt\n"
	    "-i https://pypi.internal/simple\n"
	    "--extra-index-url https://extra.example/simple  # mirror\n"
	    "--find-links=./wheels\n"
	    "-e ./local/pkg\n"
	    "--editable git+https://github.com/a/b#egg=b\n"
	    "--pre\n"
	    "--trusted-host pypi.internal\n"
	    "git+https://github.com/c/d@v1#egg=d\n"
	    "pkg @ https://files.example/pkg-1.0.whl\n"
	    "./vendored/x-1.0.tar.gz\n";
	struct pkg_install inst = { .manager = "pip" };
	char *got;

	(void)state;
	strv_push(&inst.files, &inst.n_files, xstrdup("reqs/dev.txt"));
	assert_int_equal(read_into(&inst, "reqs/dev.txt", req), 0);
	got = items_text(&inst);
	assert_string_equal(got, "requests|2.32.3 Flask|>=2.0,<3 numpy "
	    "urllib3|>=1.26 six !./local/pkg !git+https://github.com/a/b#egg=b "
	    "!git+https://github.com/c/d@v1#egg=d "
	    "!pkg\\s@\\shttps://files.example/pkg-1.0.whl "
	    "!./vendored/x-1.0.tar.gz");
	free(got);
	/* Nested files, relative to the including file's folder, for the
	 * caller to read in turn; the first one is not repeated. */
	got = join(inst.files, inst.n_files);
	assert_string_equal(got, "reqs/dev.txt reqs/base.txt /abs/other.txt "
	    "reqs/constraints.txt reqs/nested.txt");
	free(got);
	got = join(inst.index_urls, inst.n_index_urls);
	assert_string_equal(got, "https://pypi.internal/simple "
	    "https://extra.example/simple ./wheels");
	free(got);

	/* A second file adds to the first; known files are not repeated. */
	assert_int_equal(read_into(&inst, "reqs/base.txt",
	    "-r dev.txt\nattrs\n"), 0);
	assert_int_equal(inst.n_items, 11);
	assert_string_equal(inst.items[10].name, "attrs");
	assert_int_equal(inst.n_files, 5);
	pkg_install_done(&inst);
}

static void
test_read_package_json(void **state)
{
	static const char pj[] =
	    "{ \"name\": \"app\", \"version\": \"1.0.0\",\n"
	    "  \"scripts\": { \"test\": \"jest\" },\n"
	    "  \"dependencies\": { \"express\": \"^4.18.2\", \"@types/node\": \"20\",\n"
	    "     \"local\": \"file:../local\", \"gh\": \"user/repo\",\n"
	    "     \"alias\": \"npm:lodash@4\", \"ws\": \"workspace:*\", \"odd\": 7 },\n"
	    "  \"devDependencies\": { \"jest\": \"~29.7.0\" },\n"
	    "  \"optionalDependencies\": { \"fsevents\": \"*\" },\n"
	    "  \"peerDependencies\": { \"react\": \"18\" } }\n";
	struct pkg_install inst = { .manager = "npm" };
	char *got;

	(void)state;
	assert_int_equal(read_into(&inst, "package.json", pj), 0);
	got = items_text(&inst);
	assert_string_equal(got, "express|^4.18.2 @types/node|20 "
	    "!local|file:../local !gh|user/repo !alias|npm:lodash@4 "
	    "!ws|workspace:* odd jest|~29.7.0 fsevents|*");
	free(got);
	pkg_install_done(&inst);

	/* Not JSON, not an object: -EINVAL, nothing added. */
	inst = (struct pkg_install){ .manager = "npm" };
	assert_int_equal(read_into(&inst, "package.json", "{ \"dependencies\": "),
	    -EINVAL);
	assert_int_equal(read_into(&inst, "package.json", "[1, 2]"), -EINVAL);
	assert_int_equal(read_into(&inst, "package.json", "{}"), 0);
	assert_int_equal(inst.n_items, 0);
	assert_null(inst.items);
	pkg_install_done(&inst);
}

static void
test_read_limits(void **state)
{
	struct pkg_install inst = { .manager = "pip" };
	char *big, *many;
	size_t n = 0;
	int fd;

	(void)state;
	/* Exactly 64 KiB reads; one byte more does not. */
	big = xmalloc(PACKAGES_FILE_MAX + 2);
	memset(big, '#', PACKAGES_FILE_MAX + 1);
	big[PACKAGES_FILE_MAX + 1] = '\0';
	big[PACKAGES_FILE_MAX - 1] = '\n';
	fd = file_with("big", big, PACKAGES_FILE_MAX);
	assert_int_equal(packages_read_file(fd, "big.txt", &inst), 0);
	close(fd);
	fd = file_with("big", big, PACKAGES_FILE_MAX + 1);
	assert_int_equal(packages_read_file(fd, "big.txt", &inst), -EFBIG);
	close(fd);
	free(big);
	assert_int_equal(inst.n_items, 0);

	/* 500 items in all; over that, nothing is added. */
	many = xmalloc(600 * 16);
	many[0] = '\0';
	for (unsigned i = 0; i < 501; i++)
		n += (size_t)sprintf(many + n, "p%u\n", i);
	assert_int_equal(read_into(&inst, "r.txt", many), -E2BIG);
	assert_int_equal(inst.n_items, 0);
	assert_null(inst.items);
	many[strlen(many) - strlen("p500\n")] = '\0';
	assert_int_equal(read_into(&inst, "r.txt", many), 0);
	assert_int_equal(inst.n_items, 500);
	assert_int_equal(read_into(&inst, "r.txt", "one-more\n"), -E2BIG);
	assert_int_equal(read_into(&inst, "r.txt", "# only comments\n"), -E2BIG);
	assert_int_equal(inst.n_items, 500);
	pkg_install_done(&inst);
	free(many);

	inst = (struct pkg_install){ .manager = "npm" };
	many = xstrdup("{ \"dependencies\": {");
	for (unsigned i = 0; i < 501; i++) {
		char *old = many;

		many = xasprintf("%s%s\"p%u\": \"1\"", old, i ? ", " : "", i);
		free(old);
	}
	big = xasprintf("%s } }", many);
	assert_int_equal(read_into(&inst, "package.json", big), -E2BIG);
	assert_int_equal(inst.n_items, 0);
	free(big);
	free(many);
	pkg_install_done(&inst);
}

static void
test_read_formats(void **state)
{
	static const char nul[] = "requests\0evil\n";
	struct pkg_install inst = { .manager = "pip" };
	int fd;

	(void)state;
	assert_int_equal(read_into(&inst, "pyproject.toml", "[project]\n"),
	    -EOPNOTSUPP);
	assert_int_equal(read_into(&inst, "environment.yml", "deps:\n"),
	    -EOPNOTSUPP);
	fd = file_with("nul", nul, sizeof nul - 1);
	assert_int_equal(packages_read_file(fd, "r.txt", &inst), -EINVAL);
	close(fd);
	/* A file it cannot read: -errno. */
	assert_int_equal(packages_read_file(-1, "r.txt", &inst), -EBADF);
	assert_int_equal(inst.n_items, 0);
	pkg_install_done(&inst);

	/* npm reads only JSON; dpkg's .deb is not read at all. */
	inst = (struct pkg_install){ .manager = "npm" };
	assert_int_equal(read_into(&inst, "requirements.txt", "x\n"), -EOPNOTSUPP);
	pkg_install_done(&inst);
	inst = (struct pkg_install){ .manager = "dpkg" };
	assert_int_equal(read_into(&inst, "x.deb", "!<arch>\n"), -EOPNOTSUPP);
	pkg_install_done(&inst);
	inst = (struct pkg_install){ 0 };
	assert_int_equal(read_into(&inst, "r.txt", "x\n"), -EINVAL);

	/* conda --file: conda's spec syntax, @EXPLICIT and comments skipped. */
	inst = (struct pkg_install){ .manager = "conda" };
	assert_int_equal(read_into(&inst, "spec.txt",
	    "# conda list --export\n@EXPLICIT\nnumpy=1.24.3=py311_0\n"
	    "scipy >=1.10\nconda-forge::pandas\n"), 0);
	{
		char *got = items_text(&inst);

		assert_string_equal(got, "numpy|1.24.3=py311_0 scipy|>=1.10 "
		    "conda-forge::pandas");
		free(got);
	}
	pkg_install_done(&inst);
}

/* ---- description -------------------------------------------------------- */

static char *
describe_argv(const struct policy *p, char **argv)
{
	struct pkg_install inst;
	struct policy_host *h = NULL;
	size_t n;
	char *s;

	assert_int_equal(packages_parse(NULL, argv, &inst), 1);
	n = packages_hosts(p, &inst, &h);
	s = packages_describe(&inst, h, n);
	packages_hosts_free(h, n);
	pkg_install_done(&inst);
	return s;
}

static void
test_describe(void **state)
{
	char *a1[] = { "pip", "install", "--target", "/work/.local",
	    "requests==2.32.3", "flask", NULL };
	char *a2[] = { "npm", "ci", NULL };
	char *a3[] = { "dpkg", "-i", "x.deb", NULL };
	char *a4[] = { "apt-get", "install", "nginx/bookworm-backports",
	    "git=1:2.39", NULL };
	char *a5[] = { "pip", "install", "-i", "https://[2001:db8::1]:8443/s",
	    "ev\x1b[31mil", "x>=1", NULL };
	char *a6[] = { "conda", "install", "-n", "ml", "numpy=1.24", "-c",
	    "conda-forge", NULL };
	char *a7[] = { "gem", "install", "rails", "-v", "7.1", NULL };
	char *many[20] = { "npm", "install" };
	struct policy p;
	char *s;

	(void)state;
	policy_init(&p);
	s = describe_argv(&p, a1);
	assert_string_equal(s, "pip install requests==2.32.3 flask (2 packages) "
	    "-> /work/.local; hosts pypi.org:443 files.pythonhosted.org:443");
	free(s);
	s = describe_argv(&p, a2);
	assert_string_equal(s, "npm ci from package.json; hosts "
	    "registry.npmjs.org:443");
	free(s);
	s = describe_argv(&p, a3);
	assert_string_equal(s, "dpkg install from x.deb; no hosts");
	free(s);
	s = describe_argv(&p, a4);
	assert_string_equal(s, "apt install nginx/bookworm-backports git=1:2.39 "
	    "(2 packages); hosts deb.debian.org:80 deb.debian.org:443 "
	    "security.debian.org:80 security.debian.org:443");
	free(s);
	/* Control bytes from argv are shown escaped; IPv6 in brackets. */
	s = describe_argv(&p, a5);
	/* A named index replaces the built-in registries. */
	assert_string_equal(s, "pip install ev\\e[31mil x>=1 (2 packages); index "
	    "https://[2001:db8::1]:8443/s; hosts [2001:db8::1]:8443");
	free(s);
	s = describe_argv(&p, a6);
	assert_string_equal(s, "conda install numpy=1.24 (1 package) -> env:ml; "
	    "index conda-forge; hosts conda.anaconda.org:443 repo.anaconda.com:443");
	free(s);
	s = describe_argv(&p, a7);
	assert_string_equal(s, "gem install rails:7.1 (1 package); hosts "
	    "rubygems.org:443");
	free(s);
	policy_done(&p);

	/* Past 12 items: "+N more"; hosts with any port, or a range. */
	policy_from(&p, "[manager npm]\nhosts = r.example [fd00::1]:4873-4874\n");
	for (unsigned i = 0; i < 15; i++)
		many[2 + i] = xasprintf("p%u", i);
	s = describe_argv(&p, many);
	assert_string_equal(s, "npm install p0 p1 p2 p3 p4 p5 p6 p7 p8 p9 p10 "
	    "p11 +3 more (15 packages); hosts r.example [fd00::1]:4873-4874");
	free(s);
	for (unsigned i = 0; i < 15; i++)
		free(many[2 + i]);
	policy_done(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_parse_edges),
		cmocka_unit_test(test_verdict_install),
		cmocka_unit_test(test_hosts_defaults),
		cmocka_unit_test(test_hosts_policy_and_urls),
		cmocka_unit_test_setup_teardown(test_read_requirements,
		    files_setup, files_teardown),
		cmocka_unit_test_setup_teardown(test_read_package_json,
		    files_setup, files_teardown),
		cmocka_unit_test_setup_teardown(test_read_limits,
		    files_setup, files_teardown),
		cmocka_unit_test_setup_teardown(test_read_formats,
		    files_setup, files_teardown),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
