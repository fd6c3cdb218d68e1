/* SPDX-License-Identifier: MIT */
/*
 * The setters of [run] (limits, time, the environment), [record],
 * [review] and [console]: a key each, on the values of policy-value.c.
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/settings.h"
#include "config/util.h"

int
policy_set_timeout(struct policy *p, const char *v, char **why)
{
	return policy_check_duration(v, &p->timeout, why);
}

int
policy_set_ask_timeout(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int r;

	if ((r = policy_check_duration(v, &p->ask_timeout, why)) < 0)
		return r;
	if (p->ask_timeout == 0) {
		/* Fail closed: a request nobody answers is denied at its
		 * deadline, so there must be one. */
		*why = xasprintf("%s: a request must have a deadline (at least 1s)", q);
		return -EINVAL;
	}
	return 0;
}

int
policy_set_memory(struct policy *p, const char *v, char **why)
{
	/* Below 16 MiB of address space the loader and libc alone fail. */
	return policy_set_size(v, &p->memory, POLICY_MIN_MEMORY, "16M", why);
}

int
policy_set_pids(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	uint64_t n = 0;
	const char *end = v;

	if (strcmp(v, "none") != 0 &&
	    (policy_parse_uint(v, UINT_MAX, &n, &end) < 0 || *end != '\0')) {
		*why = xasprintf("%s is not a number of tasks (use 512, or none)", q);
		return -EINVAL;
	}
	/* Tasks count threads: a shell, a pipeline, a runtime's workers. */
	if (n > 0 && n < POLICY_MIN_PIDS) {
		*why = xasprintf("%s is below the %u minimum: a shell and a "
		    "pipeline or a runtime's threads need more (use 512, or "
		    "none)", q, POLICY_MIN_PIDS);
		return -EINVAL;
	}
	p->pids = (unsigned)n;
	return 0;
}

int
policy_set_cpu(struct policy *p, const char *v, char **why)
{
	/* Whole seconds: any value but 0 ("none") is at least 1 s. */
	return policy_check_duration(v, &p->cpu, why);
}

int
policy_set_file_size(struct policy *p, const char *v, char **why)
{
	/* Below 1 MiB a compiler's object or a log cannot be written. */
	return policy_set_size(v, &p->file_size, POLICY_MIN_FILE_SIZE, "1M",
	    why);
}

int
policy_set_max_apply(struct policy *p, const char *v, char **why)
{
	/* Below 1 MiB every source file would wait to be named: a value
	 * there is a unit slip ("1024" meant 1024M), refused. */
	return policy_set_size(v, &p->max_apply, POLICY_MIN_MAX_APPLY, "1M",
	    why);
}

int
policy_set_journal(struct policy *p, const char *v, char **why)
{
	bool on;
	int r;

	if (strcmp(v, "auto") == 0) {
		p->journal = POLICY_JOURNAL_AUTO;
		return 0;
	}
	if ((r = policy_yes_no(v, &on, why)) < 0)
		return r;
	p->journal = on ? POLICY_JOURNAL_ON : POLICY_JOURNAL_OFF;
	return 0;
}

int
policy_set_syslog(struct policy *p, const char *v, char **why)
{
	return policy_yes_no(v, &p->syslog, why);
}

int
policy_set_output_max(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int r;

	if ((r = policy_size(v, &p->output_max)) == -ERANGE)
		*why = xasprintf("%s is too large", q);
	else if (r < 0)
		*why = xasprintf("%s is not a size (" SIZE_HINT ")", q);
	return r;
}

int
policy_set_open_files(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	uint64_t n = 0;
	const char *end = v;

	/* stdio, the loader's libraries, a few pipes and sockets: a
	 * runtime opens dozens before it runs a line. */
	if (strcmp(v, "none") != 0 &&
	    (policy_parse_uint(v, 1u << 20, &n, &end) < 0 || *end != '\0' ||
	    (n > 0 && n < POLICY_MIN_OPEN_FILES))) {
		*why = xasprintf("%s is not a number of open files (%u to "
		    "1048576, or none)", q, POLICY_MIN_OPEN_FILES);
		return -EINVAL;
	}
	p->open_files = (unsigned)n;
	return 0;
}

int
policy_set_env(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *name = xstrndup(v, strcspn(v, "="));
	const char *eq = strchr(v, '=');

	if (!policy_is_var_name(name)) {
		*why = xasprintf("%s is not an environment variable name "
		    "(NAME, or NAME=VALUE)", q);
		return -EINVAL;
	}
	/* NAME=VALUE: set in the sandbox as written (an agent's telemetry
	 * off); the value printable, no quoting. */
	for (const char *c = eq != NULL ? eq + 1 : ""; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the "
			    "value", q);
			return -EINVAL;
		}
	/* NAME=~/path or NAME=~: the home of who runs ward, as the policy's
	 * paths (an agent's config folder, shown at its host path). */
	if (eq != NULL && (strcmp(eq + 1, "~") == 0 ||
	    str_has_prefix(eq + 1, "~/"))) {
		cleanup_free char *abs = NULL;
		const char *home = policy_home();

		if (home == NULL) {
			*why = xasprintf("%s: no home folder to expand ~ in "
			    "(HOME is not an absolute path)", q);
			return -EINVAL;
		}
		abs = xasprintf("%s%s", home, eq + 2);
		strv_push(&p->env, &p->n_env, xasprintf("%s=%s", name, abs));
		return 0;
	}
	strv_push(&p->env, &p->n_env, xstrdup(v));
	return 0;
}

size_t
policy_env_name_len(const char *entry)
{
	return strcspn(entry, "=");
}

int
policy_set_console_prefix(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int c;

	if (settings_prefix_parse(v, &c) < 0) {
		*why = xasprintf("%s names no control key (say ^] or C-a)", q);
		return -EINVAL;
	}
	free(p->console_prefix);
	p->console_prefix = xasprintf("^%c", c);
	return 0;
}

/* [console] notify_cmd and notify_after: the console's settings
 * (config/settings.h), checked here as settings_load() checks them. */
static int
policy_set_console_setting(const char *name, const char *v, char **why)
{
	return settings_value(NULL, name, v, why) < 0 ? -EINVAL : 0;
}

int
policy_set_console_notify_cmd(struct policy *p, const char *v, char **why)
{
	(void)p;
	return policy_set_console_setting("notify_cmd", v, why);
}

int
policy_set_console_notify_after(struct policy *p, const char *v, char **why)
{
	(void)p;
	return policy_set_console_setting("notify_after", v, why);
}
