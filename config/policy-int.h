/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What the parts of the policy parser share (config/policy*.c), and
 * tests/test-policy.c with them; no one else includes it. policy.c holds
 * the key table and the parser; each other part the setters of its
 * sections, which the table names; policy-value.c the values every
 * section parses. A setter returns 0, or -EINVAL with *why (malloc'd)
 * saying what is wrong with the value; the parser adds the file, line,
 * section and key. The parts call down (parser, sections, values),
 * never back up into policy.c: tests/layers.sh checks the calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* config/policy.h, which each part includes first (this header does not,
 * so that its includes draw no circle: tests/includegraph.sh). */
struct policy;
struct policy_host;
struct policy_secret;

/* Sets one value (a scalar, or one item of a list); *why explains a refusal. */
typedef int (*policy_setter)(struct policy *, const char *, char **why);
/* The same for a key of a section with an argument: [manager pip]. */
typedef int (*policy_arg_setter)(struct policy *, const char *arg,
    const char *, char **why);

struct policy_key {
	const char	*section;
	const char	*name;
	bool		 list;
	policy_setter	 set;
	policy_arg_setter set_arg;	/* instead of set */
};

/* Every key of every section (policy.c), sections in the order messages
 * list them; a section whose keys have set_arg takes a NAME. */
extern const struct policy_key policy_keys[];
extern const size_t policy_n_keys;

/* policy-value.c: values */
#define SIZE_HINT		"use 512M, 2G, 100K, a number of bytes, or none"
char	*policy_quote(const char *);	/* "\"...\"", escaped */
int	policy_parse_uint(const char *, uint64_t max, uint64_t *ret,
	    const char **end);
int	policy_size(const char *, uint64_t *ret);
int	policy_set_size(const char *v, uint64_t *ret, uint64_t floor,
	    const char *floor_name, char **why);
int	policy_yes_no(const char *v, bool *ret, char **why);
bool	policy_is_var_name(const char *);
/* "ask", "deny" or, when allow_ok, "allow": an enum policy_action (not
 * named here: see above), or -EINVAL. */
int	policy_action(const char *v, bool allow_ok);
int	policy_path(const char *v, const char *what, char **ret, char **why);
int	policy_folder(const char *v, char ***list, size_t *n,
	    const char *refuse_root, char **why);
int	policy_expand_home(const char *v, char **abs, char **why);
int	policy_home_or_abs(const char *v, char **ret, char **why);
int	policy_ports(const char *, unsigned *lo, unsigned *hi);
bool	policy_is_http_token(const char *, size_t len);

/* policy-run.c: [run], [record], [review], [console] */
int	policy_set_timeout(struct policy *, const char *, char **why);
int	policy_set_ask_timeout(struct policy *, const char *, char **why);
int	policy_set_memory(struct policy *, const char *, char **why);
int	policy_set_pids(struct policy *, const char *, char **why);
int	policy_set_cpu(struct policy *, const char *, char **why);
int	policy_set_file_size(struct policy *, const char *, char **why);
int	policy_set_open_files(struct policy *, const char *, char **why);
int	policy_set_output_max(struct policy *, const char *, char **why);
int	policy_set_env(struct policy *, const char *, char **why);
int	policy_set_journal(struct policy *, const char *, char **why);
int	policy_set_syslog(struct policy *, const char *, char **why);
int	policy_set_max_apply(struct policy *, const char *, char **why);
int	policy_set_console_prefix(struct policy *, const char *, char **why);
int	policy_set_console_notify_cmd(struct policy *, const char *,
	    char **why);
int	policy_set_console_notify_after(struct policy *, const char *,
	    char **why);

/* policy-files.c: [files] */
int	policy_set_writable(struct policy *, const char *, char **why);
int	policy_set_hidden(struct policy *, const char *, char **why);
int	policy_set_expose(struct policy *, const char *, char **why);
int	policy_set_allow(struct policy *, const char *, char **why);
int	policy_set_deny(struct policy *, const char *, char **why);
int	policy_set_write(struct policy *, const char *, char **why);
int	policy_set_protect(struct policy *, const char *, char **why);
int	policy_set_project(struct policy *, const char *, char **why);

/* policy-net.c: [network] */
int	policy_set_net_allow(struct policy *, const char *, char **why);
int	policy_set_net_never(struct policy *, const char *, char **why);
int	policy_set_net_deny(struct policy *, const char *, char **why);
int	policy_set_connect(struct policy *, const char *, char **why);
int	policy_set_http(struct policy *, const char *, char **why);
int	policy_set_upstream_ca(struct policy *, const char *, char **why);
/* A whole allow line's items (hosts, or one host and its HTTP rule),
 * its "(reason)" cut off: the parser hands it on as one. */
int	policy_net_allow_line(struct policy *, const char *value, char **why);
/* One host with one port, no network: what an HTTP rule or a [secret]
 * names ("a method or path", "a [secret]" for the message). */
int	policy_one_port_host(const char *v, const char *what,
	    struct policy_host *ret, char **why);

/* policy-secret.c: [secret NAME] */
int	policy_secret_section(const char *s, size_t len, char **name,
	    char **why);
int	policy_set_secret_from(struct policy *, const char *arg, const char *,
	    char **why);
int	policy_set_secret_hosts(struct policy *, const char *arg, const char *,
	    char **why);
int	policy_set_secret_header(struct policy *, const char *arg,
	    const char *, char **why);
int	policy_set_secret_fields(struct policy *, const char *arg,
	    const char *, char **why);
int	policy_set_secret_refresh(struct policy *, const char *arg,
	    const char *, char **why);
const char *policy_secret_missing(const struct policy_secret *);
const struct policy_secret *policy_secret_in_env(const struct policy *);

/* policy-pkg.c: [packages], [manager NAME] */
int	policy_manager_section(const char *s, size_t len, const char **canon,
	    char **why);
int	policy_set_install(struct policy *, const char *, char **why);
int	policy_set_pkg_allow(struct policy *, const char *, char **why);
int	policy_set_pkg_deny(struct policy *, const char *, char **why);
int	policy_set_mgr_hosts(struct policy *, const char *canon, const char *,
	    char **why);
