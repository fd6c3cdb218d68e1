/* SPDX-License-Identifier: MIT */
/*
 * "Always": one entry written into a person's own policy file, where
 * the console showed it would go (config/policyedit.h).
 */
#include "config/policyedit.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/policy.h"
#include "config/util.h"

#define POLICY_EDIT_MAX		(1u << 20)	/* policy.c's bound */
#define POLICY_EDIT_INDENT	"    "

static char *
policy_edit_dir(const char *path)
{
	cleanup_free char *copy = xstrdup(path);

	return xstrdup(dirname(copy));
}

int
policy_edit_check(const char *path, char **why)
{
	static const char *const machine[] = { "/etc/", "/usr/", "/opt/" };
	static const char *const shipped[] = { "/share/ward/", "/share/agents/" };
	cleanup_free char *real = NULL, *dir = NULL;
	struct stat st;

	if (path == NULL || *path == '\0') {
		set_cause(why, "the run did not say which policy file it read");
		return -ENOENT;
	}
	if ((real = realpath(path, NULL)) == NULL) {
		set_cause(why, "%s: %s", path, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < ARRAY_SIZE(machine); i++)
		if (str_has_prefix(real, machine[i])) {
			set_cause(why, "%s is the machine's policy, not yours: "
			    "copy it to ~/.config/ward/ward.ini and run with that",
			    real);
			return -EPERM;
		}
	for (size_t i = 0; i < ARRAY_SIZE(shipped); i++)
		if (strstr(real, shipped[i]) != NULL ||
		    str_has_suffix(real, "/share/ward.ini")) {
			set_cause(why, "%s is a policy ward ships, not yours: "
			    "copy it to ~/.config/ward/ward.ini and run with that",
			    real);
			return -EPERM;
		}
	if (stat(real, &st) < 0) {
		set_cause(why, "%s: %s", real, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		set_cause(why, "%s is not a regular file", real);
		return -EINVAL;
	}
	if (st.st_uid != getuid()) {
		set_cause(why, "%s belongs to uid %u, not to you: ward writes "
		    "only your own policy file", real, (unsigned)st.st_uid);
		return -EPERM;
	}
	dir = policy_edit_dir(real);
	if (access(real, W_OK) < 0 || access(dir, W_OK | X_OK) < 0) {
		set_cause(why, "%s: you may not write %s", real,
		    access(real, W_OK) < 0 ? "the file" : "its folder");
		return -EACCES;
	}
	return 0;
}

/* The section a "[name]" line names, or NULL. */
static char *
policy_edit_section_of(const char *s, size_t len)
{
	const char *end;

	if (len == 0 || *s != '[')
		return NULL;
	if ((end = memchr(s, ']', len)) == NULL)
		return NULL;
	return xstrndup(s + 1, (size_t)(end - s - 1));
}

/* The key of a "key = value" line (s not indented), or NULL. */
static char *
policy_edit_key_of(const char *s, size_t len)
{
	size_t k = 0;

	while (k < len && s[k] != '=' && s[k] != ':')
		k++;
	if (k == len)
		return NULL;
	while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
		k--;
	return xstrndup(s, k);
}

/* Where the entry goes: after line *after (0: at the end, a new section),
 * as a continuation (*cont) or a key line. */
struct policy_edit_spot {
	unsigned	 after;		/* line number it follows */
	size_t		 offset;	/* byte after that line */
	bool		 cont;		/* an indented line under the key */
	bool		 newline;	/* that line has no '\n' */
	bool		 section;	/* the section is there */
};

static void
policy_edit_find(const char *text, const char *section, const char *key,
    struct policy_edit_spot *spot)
{
	int in = 0;	/* 0 before the section, 1 in its first, 2 after */
	bool key_open = false, key_done = false;
	unsigned n = 0, sec_last = 0, key_last = 0;
	size_t sec_off = 0, key_off = 0;
	bool sec_nl = false, key_nl = false;

	for (const char *l = text; *l != '\0';) {
		size_t len = strcspn(l, "\n");
		const char *s = l + strspn(l, " \t");
		size_t slen = len - (size_t)(s - l);
		bool nl = l[len] == '\n';
		size_t next = (size_t)(l - text) + len + (nl ? 1 : 0);
		cleanup_free char *name = NULL;

		n++;
		while (slen > 0 && s[slen - 1] == '\r')
			slen--;
		if (slen == 0 || *s == ';' || *s == '#') {
			key_open = false;
		} else if (*s == '[' && (name = policy_edit_section_of(s,
		    slen)) != NULL) {
			key_open = false;
			if (in == 1)
				in = 2;
			if (in == 0 && strcmp(name, section) == 0) {
				in = 1;
				sec_last = n, sec_off = next, sec_nl = !nl;
			}
		} else if (s > l) {
			if (key_open)
				key_last = n, key_off = next, key_nl = !nl;
			if (in == 1)
				sec_last = n, sec_off = next, sec_nl = !nl;
		} else {
			key_open = false;
			name = policy_edit_key_of(s, slen);
			if (in == 1 && !key_done && name != NULL &&
			    strcmp(name, key) == 0) {
				key_open = key_done = true;
				key_last = n, key_off = next, key_nl = !nl;
			}
			if (in == 1)
				sec_last = n, sec_off = next, sec_nl = !nl;
		}
		l = text + next;
	}
	if (key_done)
		*spot = (struct policy_edit_spot){ .after = key_last,
		    .offset = key_off, .cont = true, .newline = key_nl,
		    .section = true };
	else if (in != 0)
		*spot = (struct policy_edit_spot){ .after = sec_last,
		    .offset = sec_off, .newline = sec_nl, .section = true };
	else
		*spot = (struct policy_edit_spot){ .after = n,
		    .offset = strlen(text),
		    .newline = *text != '\0' && text[strlen(text) - 1] != '\n' };
}

static char *
policy_edit_line(const struct policy_edit_spot *spot, const char *key,
    const char *value, const char *comment)
{
	return xasprintf("%s%s%s%s%s", spot->cont ? POLICY_EDIT_INDENT : key,
	    spot->cont ? "" : " = ", value, comment != NULL ? " ; " : "",
	    comment != NULL ? comment : "");
}

char *
policy_edit_text(const char *text, const char *section, const char *key,
    const char *value, const char *comment, unsigned *line)
{
	struct policy_edit_spot spot;
	cleanup_free char *entry = NULL;
	size_t len = strlen(text);

	policy_edit_find(text, section, key, &spot);
	entry = policy_edit_line(&spot, key, value, comment);
	if (!spot.section) {
		/* The section and the key at the end, after a blank line
		 * when the file has anything. */
		*line = spot.after + (len > 0 ? 1 : 0) + 2;
		return xasprintf("%s%s%s[%s]\n%s\n", text,
		    spot.newline ? "\n" : "", len > 0 ? "\n" : "", section,
		    entry);
	}
	*line = spot.after + 1;
	return xasprintf("%.*s%s%s\n%s", (int)spot.offset, text,
	    spot.newline ? "\n" : "", entry, text + spot.offset);
}

static int
policy_edit_read(const char *path, char **ret, char **why)
{
	cleanup_free char *buf = NULL;
	size_t n = 0;
	int r;

	if ((r = read_file_max(path, POLICY_EDIT_MAX, &buf, &n, why)) < 0)
		return r;
	if (memchr(buf, '\0', n) != NULL) {
		set_cause(why, "%s: holds a NUL byte", path);
		return -EINVAL;
	}
	*ret = steal_ptr(&buf);
	return 0;
}

/* [network] allow takes an HTTP rule as one entry: "host:port METHOD
 * PATH", its words one blank apart (policy.c reads the line). */
static bool
policy_edit_is_rule(const char *section, const char *key)
{
	return strcmp(section, "network") == 0 && strcmp(key, "allow") == 0;
}

static int
policy_edit_check_value(const char *section, const char *key,
    const char *value, const char *comment, char **why)
{
	bool rule = policy_edit_is_rule(section, key);

	if (value == NULL || *value == '\0') {
		set_cause(why, "nothing to write");
		return -EINVAL;
	}
	for (const unsigned char *c = (const unsigned char *)value; *c; c++)
		if (rule && *c == ' ' && c > (const unsigned char *)value &&
		    c[-1] != ' ' && c[1] != ' ' && c[1] != '\0')
			continue;
		else if (*c <= ' ' || *c == 0x7f || *c == ';' || *c == '#') {
			set_cause(why, "the entry holds a blank, a ';', a '#' "
			    "or a control character: it cannot be one item "
			    "of a policy line");
			return -EINVAL;
		}
	for (const unsigned char *c = (const unsigned char *)(comment != NULL ?
	    comment : ""); *c; c++)
		if (*c < ' ' || *c == 0x7f) {
			set_cause(why, "the comment holds a control character");
			return -EINVAL;
		}
	return 0;
}

/* The new text, checked: the file parses now and after. */
static int
policy_edit_prepare(const char *path, const char *section, const char *key,
    const char *value, const char *comment, unsigned *line, char **ret,
    char **why)
{
	cleanup_free char *text = NULL, *cause = NULL, *out = NULL;
	struct policy p;
	size_t entries;
	int r;

	if ((r = policy_edit_check(path, why)) < 0)
		return r;
	if ((r = policy_edit_check_value(section, key, value, comment,
	    why)) < 0)
		return r;
	if ((r = policy_edit_read(path, &text, why)) < 0)
		return r;
	if (policy_load_string(&p, text, path, &cause) < 0) {
		set_cause(why, "the policy file does not parse now, so "
		    "nothing is written: %s", cause);
		return -EINVAL;
	}
	entries = p.n_net_allow;
	policy_done(&p);
	out = policy_edit_text(text, section, key, value, comment, line);
	free(steal_ptr(&cause));
	if (policy_load_string(&p, out, path, &cause) < 0) {
		set_cause(why, "with the line added the policy file would not "
		    "parse, so nothing is written: %s", cause);
		return -EINVAL;
	}
	/* One entry: a rule, or a host, never a list of hosts. */
	if (policy_edit_is_rule(section, key) && p.n_net_allow != entries + 1) {
		policy_done(&p);
		set_cause(why, "the entry is not one host or one rule: it "
		    "cannot be one item of a policy line");
		return -EINVAL;
	}
	policy_done(&p);
	*ret = steal_ptr(&out);
	return 0;
}

int
policy_edit_plan(const char *path, const char *section, const char *key,
    const char *value, const char *comment, unsigned *line, char **shown,
    char **why)
{
	cleanup_free char *out = NULL;
	const char *l;
	int r;

	if ((r = policy_edit_prepare(path, section, key, value, comment, line,
	    &out, why)) < 0)
		return r;
	l = out;
	for (unsigned i = 1; i < *line && l != NULL; i++)
		if ((l = strchr(l, '\n')) != NULL)
			l++;
	*shown = xstrndup(l != NULL ? l : "", l != NULL ? strcspn(l, "\n") :
	    0);
	return 0;
}

/* text into a new file beside path, then renamed over it. */
static int
policy_edit_replace(const char *path, const char *text, char **why)
{
	cleanup_free char *dir = policy_edit_dir(path), *base = NULL,
	    *tmp = NULL;
	cleanup_fd int fd = -1, dfd = -1;
	struct stat st;
	int r;

	{
		cleanup_free char *copy = xstrdup(path);

		base = xstrdup(basename(copy));
	}
	if (stat(path, &st) < 0) {
		set_cause(why, "%s: %s", path, strerror(errno));
		return -errno;
	}
	tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		set_cause(why, "%s: cannot make a temporary file: %s", dir,
		    strerror(errno));
		return -errno;
	}
	r = fchmod(fd, st.st_mode & 07777) < 0 ? -errno : 0;
	if (r == 0 && geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) < 0)
		r = -errno;
	if (r == 0)
		r = write_all(fd, text, strlen(text));
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r < 0) {
		set_cause(why, "%s: %s", tmp, strerror(-r));
		unlink(tmp);
		return r;
	}
	if (close(steal_fd(&fd)) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		set_cause(why, "%s: cannot replace it: %s", path,
		    strerror(errno));
		unlink(tmp);
		return r;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		(void)fsync(dfd);
	return 0;
}

int
policy_edit_add_rule(const char *path, const char *section, const char *key,
    const char *value, const char *comment, unsigned expect_line,
    unsigned *line, char **why)
{
	cleanup_free char *real = NULL, *out = NULL;
	unsigned at = 0;
	int r;

	if (path == NULL || (real = realpath(path, NULL)) == NULL) {
		set_cause(why, "%s: %s", path != NULL ? path : "(none)",
		    strerror(path != NULL ? errno : ENOENT));
		return path != NULL ? -errno : -ENOENT;
	}
	if ((r = policy_edit_prepare(real, section, key, value, comment, &at,
	    &out, why)) < 0)
		return r;
	if (expect_line != 0 && at != expect_line) {
		set_cause(why, "%s changed since the line was shown (it would "
		    "go on line %u, not %u): nothing written, ask again", real,
		    at, expect_line);
		return -ESTALE;
	}
	if ((r = policy_edit_replace(real, out, why)) < 0)
		return r;
	*line = at;
	return 0;
}
