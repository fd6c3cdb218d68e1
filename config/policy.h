/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The policy file (inih) read into plain structs. Callers fill or read the
 * fields directly; policy_load*() is the only parser. See share/ward.ini.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

enum policy_action {
	POLICY_ASK,
	POLICY_DENY,
	POLICY_ALLOW,
};

/* One [network] allow entry: host (name, *.suffix, address or CIDR) and port. */
struct policy_host {
	char		*host;
	unsigned	 port_lo;	/* 0..65535; lo=0,hi=65535 = any */
	unsigned	 port_hi;
	char		*reason;	/* [network] allow: "(why)" on its line, or NULL */
	/* [network] allow "host:port METHOD PATH": an HTTP rule (issue 19).
	 * NULL/NULL: a plain host entry. method is upper case or "*";
	 * path a glob on the request's path without its query, where "*"
	 * is any run of characters but '/', "**" any run at all. A host:port
	 * with one such rule is intercepted and filtered by its rules. The
	 * parser sets both or neither (a rule written without a method has
	 * "*", without a path "/" "**"), its host one port, never a network. */
	char		*method;
	char		*path;
};

/* Is h an HTTP rule (a method or a path), not a plain host entry? */
static inline bool
policy_host_is_http(const struct policy_host *h)
{
	return h->method != NULL || h->path != NULL;
}

/* A token of a login file: where it is, and its name in the reply of the
 * token endpoint ("access_token"), or NULL (never refreshed). */
struct policy_secret_field {
	char		*path;		/* dotted object keys: "tokens.id_token" */
	char		*reply;
};

/* A [secret NAME] section (issue 19): a credential the sandbox never
 * sees. The sandbox's NAME holds a per-run phantom; the gate puts the
 * value in place of the phantom in the named header of requests to
 * hosts. */
struct policy_secret {
	char		*name;		/* the variable: [A-Za-z_][A-Za-z0-9_]* */
	/* Where the value comes from, read when the run starts (by the
	 * gate, never at `ward check`): "env:NAME", "file:PATH" (~ kept:
	 * the home of who runs ward), "command:CMDLINE" (run by sh -c
	 * outside the sandbox; its stdout, one trailing newline cut). */
	char		*from;
	struct policy_host *hosts;	/* where it may go; each a single port */
	size_t		 n_hosts;
	char		*header;	/* the header's name, lower case: "x-api-key" */
	char		*header_value;	/* its value with "{}": "Bearer {}" */
	/*
	 * from = file-json:PATH (issue 33): an agent's login file. from is
	 * "file-json:PATH"; file is PATH (absolute, ~ expanded), else NULL.
	 * Its tokens are fields (fields = PATH[=REPLY] ...); NAME is then a
	 * label, no variable. refresh = HOST:PORT/PATH: the token endpoint,
	 * a POST there the refresh (its host is one of hosts too); or none.
	 */
	char		*file;
	struct policy_secret_field *fields;
	size_t		 n_fields;
	struct policy_host refresh;	/* host NULL: none */
	char		*refresh_path;
};


struct policy {
	char		*path;		/* the file it came from, for messages */
	char		*text;		/* the bytes parsed, for the run's copy */
	size_t		 text_len;
	char		*hash;		/* policy_hash() of text */

	/* [run] */
	unsigned	 timeout;	/* wall clock, seconds; 0 = none */
	unsigned	 ask_timeout;	/* seconds a request waits before deny */
	uint64_t	 memory;	/* bytes; 0 = no limit */
	unsigned	 pids;		/* max tasks; 0 = no limit */
	unsigned	 cpu;		/* CPU seconds; 0 = no limit */
	uint64_t	 file_size;	/* largest file written; 0 = no limit */
	unsigned	 open_files;	/* max open fds; 0 = the host's */
	uint64_t	 output_max;	/* output kept in the record per run
					 * (head and tail); 0 = all */
	char	       **env;		/* host variables passed in by name */

	/* [record]: the record mirrored to journald / syslog as well
	 * (supervisor/journal.h; the values are its enum journal_want's) */
	enum policy_journal {
		POLICY_JOURNAL_OFF = 0,
		POLICY_JOURNAL_ON,
		POLICY_JOURNAL_AUTO,	/* on when the journal's socket exists */
	}		 journal;
	bool		 syslog;
	size_t		 n_env;

	/* [files] */
	char	       **writable;	/* host folders bound read-write */
	size_t		 n_writable;
	char	       **hidden;	/* host paths hidden from the sandbox */
	size_t		 n_hidden;
	/* Entries of the credential stores (policy_cred_stores()) shown
	 * read-only all the same: "~/.ssh/known_hosts" (the ~ kept, each
	 * home's) or an absolute path through a store. */
	char	       **expose;
	size_t		 n_expose;
	/* Projects: host folders shown at their own path, writable, every
	 * write staged in the run ("~/src/app" keeps its ~: the home of who
	 * runs ward, $HOME). */
	char	       **project;
	size_t		 n_project;
	char	       **allow;		/* globs: writes outside allowed w/o asking */
	size_t		 n_allow;
	char	       **deny;		/* globs: writes outside denied w/o asking */
	size_t		 n_deny;
	enum policy_action write;	/* other writes outside: ASK or DENY */
	/* Protected paths (config/protect.h): globs added to the built-in
	 * list; a write to one is always asked, never staged silently. */
	char	       **protect;
	size_t		 n_protect;

	/* [network]: where the sandbox may connect and which names it may
	 * look up, beyond its own loopback; the order they are judged in
	 * is share/ward.ini's (approvals/netrules.h, supervisor/net.c). */
	struct policy_host *net_allow;	/* let through without asking */
	size_t		 n_net_allow;
	/* Refused without asking (a recipe's hosts its agent contacts at
	 * start for nothing the person needs): judged after allow and the
	 * run's own answers, before connect =. "(a reason)" as allow's. */
	struct policy_host *net_deny;
	size_t		 n_net_deny;
	enum policy_action connect;	/* the rest: ASK or DENY */
	/* Never reachable, whatever a person says. Empty and !never_set:
	 * the built-in list (link-local, the host's loopback, private
	 * ranges; see approvals/netrules.h). */
	struct policy_host *net_never;
	size_t		 n_net_never;
	bool		 never_set;
	/* On an intercepted host, a request no HTTP rule allows: ASK (a
	 * request of kind "http" for the person) or DENY (a 403 saying
	 * why). [network] http = ask | deny; default ask. */
	enum policy_action http;
	/* [network] upstream_ca = FILE: the CAs the gate verifies upstream
	 * servers with instead of the host's trust store (tests); NULL. */
	char		*upstream_ca;

	/* [secret NAME] sections, in file order, one per NAME. */
	struct policy_secret *secrets;
	size_t		 n_secrets;

	/* [packages] */
	enum policy_action install;	/* ASK, DENY or ALLOW */
	char	       **pkg_allow;	/* "manager:glob", manager canonical */
	size_t		 n_pkg_allow;
	char	       **pkg_deny;
	size_t		 n_pkg_deny;
	/* [manager NAME] sections, one per manager named (canonical, once
	 * each however often the section appears). */
	struct policy_manager *managers;
	size_t		 n_managers;

	/* [review]: the largest file `ward apply` writes unless it is
	 * named by path (issue 29: a sparse file of terabytes fills the
	 * host's disk); 0 = no cap, the room check still runs. */
	uint64_t	 max_apply;

	/* [console]: the agent pane's prefix key, "^]" spelled as a caret
	 * and the character (canonical: "C-a" is "^A"); NULL when not set. */
	char		*console_prefix;
};

/* A [manager NAME] section: its hosts replace the built-in registry hosts
 * of that manager (supervisor/packages.c); "hosts = none" leaves none. */
struct policy_manager {
	char		*name;		/* canonical: "pip", "npm", ... */
	struct policy_host *hosts;
	size_t		 n_hosts;
};

/* The floors of [run]'s limits: below them no program runs, so a value
 * there is a mistake (`memory = 1024` meant 1024M), refused; 0 is none. */
#define POLICY_MIN_MEMORY	(16ULL << 20)
#define POLICY_MIN_FILE_SIZE	(1ULL << 20)
#define POLICY_MIN_PIDS		16u
#define POLICY_MIN_OPEN_FILES	64u
#define POLICY_MIN_MAX_APPLY	(1ULL << 20)
#define POLICY_MAX_APPLY	(1ULL << 30)	/* [review] max_apply's default */

/* Defaults as documented in share/ward.ini. */
void	policy_init(struct policy *);
void	policy_done(struct policy *);

/*
 * Parse a file / a string into *p (which policy_load* initialises).
 * On error returns -EINVAL (or -errno for I/O) and sets *cause to a
 * message naming file, line and key: "ward.ini:12: [run] timeout: ...".
 * name is used in messages for policy_load_string.
 */
int	policy_load(struct policy *, const char *path, char **cause);
int	policy_load_string(struct policy *, const char *text, const char *name,
	    char **cause);

/* Parse "90", "90s", "5m", "2h" into seconds; 0 or -EINVAL. */
int	policy_parse_duration(const char *, unsigned *);
/* The same, and on -EINVAL *why says what is wrong with the value (and
 * the likely intent: "5M" did you mean 5m?), to follow "KEY: ". */
int	policy_check_duration(const char *, unsigned *, char **why);
/* Parse "512M", "2G", "1048576", "none" into bytes; 0 or -EINVAL. */
int	policy_parse_size(const char *, uint64_t *);
/* "ask", "deny", "allow" */
const char *policy_action_name(enum policy_action);
/*
 * Every name a package manager goes by, in one table (config/policy.c):
 * the names a policy may use ([manager NAME], "NAME:glob"), the programs
 * an exec is recognised by (supervisor/packages.c), the scripts node is
 * seen to run for them. A name may count in one of these and not another.
 */
enum policy_manager_as {
	MANAGER_AS_POLICY	= 1 << 0,	/* [manager NAME], "NAME:glob" */
	MANAGER_AS_PROGRAM	= 1 << 1,	/* the basename of the exec */
	MANAGER_AS_SCRIPT	= 1 << 2,	/* node SCRIPT: its basename */
	/* As a program also with a version after it: pip3.11, go1.22.0. */
	MANAGER_VERSIONED	= 1 << 3,
};

struct policy_manager_alias {
	const char	*name;
	const char	*canonical;	/* the manager: "pip", "npm", ... */
	/* The command line it takes: the canonical's own, or "uvx" and
	 * "pnpx" (fetch a package and run it). */
	const char	*command;
	unsigned	 seen;		/* enum policy_manager_as */
};

/* The row for name as it is seen: as is one MANAGER_AS_*; or NULL. */
const struct policy_manager_alias *policy_manager_alias(const char *name,
	    unsigned as);
/*
 * The canonical name ("pip", "npm", "conda" ...) of a name the policy may
 * use for a manager: the canonical one or another (pip3, apt-get, mamba
 * ...) from the table above; NULL for anything else.
 */
const char *policy_manager_name(const char *);
/* The canonical names, "pip, uv, npm, ...", for messages. */
const char *policy_manager_names(void);
/* The [manager NAME] section of a manager (canonical or alias), or NULL. */
const struct policy_manager *policy_manager_find(const struct policy *,
	    const char *name);
/*
 * One host pattern as [network] allow takes it (host, host:port,
 * host:lo-hi, *.suffix, address, CIDR, [IPv6]...) into *ret, the host
 * canonical (lower case, no brackets); 0, or -EINVAL and *why.
 */
int	policy_host_parse(const char *, struct policy_host *ret, char **why);

/* The home "~/" stands for (of who runs ward): $HOME when it is
 * absolute, else the password file's; NULL when neither is. */
const char *policy_home(void);
/* The NAME of a [run] env entry, "NAME" or "NAME=VALUE": its length. */
size_t	policy_env_name_len(const char *entry);

/* Does glob (the path part of an HTTP rule) match path (no query)? */
bool	policy_http_path_match(const char *glob, const char *path);
/*
 * What the [secret] sections and HTTP rules say, a line each, for a
 * person (NULL-terminated strv, never NULL, empty when there are none):
 *   secret GITHUB_TOKEN: from command:gh auth token; to api.github.com:443;
 *     header authorization: Bearer {}
 *   http api.github.com:443 GET /repos/acme/issues (reads)
 *   http other requests to these hosts: ask
 *   upstream servers checked against /etc/ward/test-ca.pem
 * Where a value comes from, never a value (the policy holds none).
 */
char  **policy_describe_http(const struct policy *);

/* The variables that point the sandbox's TLS clients at the run's CA
 * bundle while a host is intercepted (share/man/ward.ini.5): no
 * [secret] may be named so, the supervisor sets them. NULL-terminated. */
const char *const *policy_ca_vars(void);

/* The credential stores ward hides in every home the tree shows, as
 * paths below a home (".ssh", ".config/gcloud"); NULL-terminated. */
const char *const *policy_cred_stores(void);
/* The store path names (the home's part stripped: "~/.ssh/x" or
 * "/root/.ssh/x" -> ".ssh"), or NULL when it names no store or entry of
 * one. */
const char *policy_cred_store_of(const char *path);
/* A short stable hash (hex) of the file contents, for the record. */
char	*policy_hash(const char *text, size_t len);
