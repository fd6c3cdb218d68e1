/* SPDX-License-Identifier: MIT */
/*
 * supervisor/packages.c (only what packages.h declares, so that a split
 * of the module into files changes nothing here): the installs read from
 * a sandboxed program's exec and from the files it names. The first byte
 * picks the input's kind, the rest is:
 *   0  an exec: path, then argv, separated by NUL bytes
 *   1  a pip requirements file     2  a conda spec file (conda --file)
 *   3  a package.json (npm)
 * Properties: a file that is refused leaves the install unchanged; the
 * verdict is one of ask / deny / allow; the description is escaped (no
 * control byte, no DEL); every host has a name and a port range.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "supervisor/packages.h"

#define FUZZ_ARGS_MAX	128

static struct policy fuzz_policy;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char text[] =
	    "[packages]\n"
	    "install = ask\n"
	    "allow = pip:requests pip:zope.* npm:@types/* apt:* cargo:serde*\n"
	    "deny = pip:evil-* npm:left-pad conda:bad*\n"
	    "[manager pip]\n"
	    "hosts = pypi.internal.example:443\n"
	    "[manager npm]\n"
	    "hosts = none\n";
	char *cause = NULL;

	(void)argc;
	(void)argv;
	if (policy_load_string(&fuzz_policy, text, "fuzz.ini", &cause) < 0) {
		fprintf(stderr, "fuzz-packages: %s\n", cause);
		abort();
	}
	return 0;
}

static void
fuzz_exec(const uint8_t *data, size_t size, struct pkg_install *inst)
{
	char *buf = malloc(size + 1), *argv[FUZZ_ARGS_MAX + 1], *path, *p;
	size_t n = 0;
	int r;

	fuzz_check(buf != NULL);
	memcpy(buf, data, size);
	buf[size] = '\0';
	path = buf;
	p = buf + strlen(buf) + 1;
	while (p <= buf + size && n < FUZZ_ARGS_MAX) {
		argv[n++] = p;
		p += strlen(p) + 1;
	}
	argv[n] = NULL;
	r = packages_parse(*path != '\0' ? path : NULL, argv, inst);
	fuzz_check(r == 0 || r == 1);
	if (r == 0)
		fuzz_check(inst->manager == NULL && inst->n_items == 0);
	else
		fuzz_check(inst->manager != NULL &&
		    policy_manager_name(inst->manager) != NULL &&
		    strcmp(policy_manager_name(inst->manager),
		    inst->manager) == 0);
	free(buf);
}

static void
fuzz_file(const uint8_t *data, size_t size, const char *manager,
    const char *name, struct pkg_install *inst)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC), r;

	fuzz_check(fd >= 0);
	fuzz_check(size == 0 || write(fd, data, size) == (ssize_t)size);
	fuzz_check(lseek(fd, 0, SEEK_SET) == 0);
	inst->manager = manager;
	inst->action = strdup("install");
	r = packages_read_file(fd, name, inst);
	if (r < 0) {
		fuzz_check(r == -EFBIG || r == -E2BIG || r == -EINVAL ||
		    r == -EOPNOTSUPP);
		fuzz_check(inst->n_items == 0 && inst->n_files == 0 &&
		    inst->n_index_urls == 0);
	} else {
		fuzz_check(r == 0 && inst->n_items <= PACKAGES_ITEMS_MAX);
	}
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkg_install inst = { 0 };
	struct policy_host *hosts = NULL;
	const char *which;
	enum policy_action v;
	bool any_deny, all_allow;
	size_t n_hosts;
	char *line;

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_exec(data + 1, size - 1, &inst);
		break;
	case 1:
		fuzz_file(data + 1, size - 1, "pip", "requirements.txt", &inst);
		break;
	case 2:
		fuzz_file(data + 1, size - 1, "conda", "env.txt", &inst);
		break;
	default:
		fuzz_file(data + 1, size - 1, "npm", "package.json", &inst);
		break;
	}
	if (inst.manager == NULL)
		return 0;

	/* packages.h's rules for a whole install, under install = ask: any
	 * item denied denies it; it is allowed only when every item is a
	 * registry package an allow pattern names, with no file and no index
	 * URL. (packages_verdict sees a name only: that it allows a name
	 * that came with a local source is the install's business.) */
	any_deny = false;
	all_allow = inst.n_items > 0;
	for (size_t i = 0; i < inst.n_items; i++) {
		fuzz_check(inst.items[i].name != NULL);
		v = packages_verdict(&fuzz_policy, inst.manager,
		    inst.items[i].name, &which);
		fuzz_check(v == POLICY_ASK || v == POLICY_DENY ||
		    v == POLICY_ALLOW);
		fuzz_check((v == POLICY_ASK) == (which == NULL));
		any_deny |= v == POLICY_DENY;
		all_allow &= v == POLICY_ALLOW && !inst.items[i].local;
	}
	v = packages_verdict_install(&fuzz_policy, &inst, &which);
	if (any_deny)
		fuzz_check(v == POLICY_DENY && which != NULL);
	else if (all_allow && inst.n_files == 0 && inst.n_index_urls == 0)
		fuzz_check(v == POLICY_ALLOW);
	else
		fuzz_check(v == POLICY_ASK);
	n_hosts = packages_hosts(&fuzz_policy, &inst, &hosts);
	for (size_t i = 0; i < n_hosts; i++)
		fuzz_check(hosts[i].host != NULL &&
		    hosts[i].port_lo <= hosts[i].port_hi &&
		    hosts[i].port_hi <= 65535);
	line = packages_describe(&inst, hosts, n_hosts);
	for (const unsigned char *s = (const unsigned char *)line; *s; s++)
		fuzz_check(*s >= 0x20 && *s != 0x7f);
	free(line);
	packages_hosts_free(hosts, n_hosts);
	/* One more time without a policy: the built-in hosts. */
	n_hosts = packages_hosts(NULL, &inst, &hosts);
	packages_hosts_free(hosts, n_hosts);
	pkg_install_done(&inst);
	return 0;
}
