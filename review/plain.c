/* SPDX-License-Identifier: MIT */
#include "review/plain.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/kind.h"
#include "config/protect.h"
#include "config/util.h"

static bool
plain_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' ||
	    path[n] == '\0');
}

static const char *
plain_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* The kinds, most telling first. */
const char *
plain_path_kind(const char *path)
{
	static const char *const rc[] = {
		".bashrc", ".bash_profile", ".bash_login", ".profile",
		".zshrc", ".zprofile", ".zshenv", ".bash_logout", ".cshrc",
		".tcshrc", ".kshrc",
	};
	const char *base;

	if (path == NULL || path[0] != '/')
		return "a file";
	base = plain_base(path);
	if (strstr(path, "/.ssh/") != NULL)
		return "an SSH key file";
	for (size_t i = 0; i < ARRAY_SIZE(rc); i++) {
		if (strcmp(base, rc[i]) == 0)
			return "a shell start-up file";
	}
	if (plain_under(path, "/etc"))
		return "a system file";
	if (plain_under(path, "/usr") || plain_under(path, "/bin") ||
	    plain_under(path, "/sbin") || plain_under(path, "/lib") ||
	    plain_under(path, "/lib64") || plain_under(path, "/opt"))
		return "a program file";
	if (plain_under(path, "/home") || plain_under(path, "/root")) {
		if (strstr(path, "/.") != NULL)
			return "a settings file in a home folder";
		return "a file in a home folder";
	}
	return "a file";
}

/* A protected path (config/protect.h): what it is before how it is
 * written, since that is what a person weighs. */
static char *
plain_protected(const struct request *r, const char *words, bool brief)
{
	static const char later[] = "a file that runs code on your machine "
	    "later";
	const char *sc = r->syscall != NULL ? r->syscall : "";

	if (brief)
		return xasprintf("wants to change %s", later);
	if ((strcmp(sc, "rename") == 0 || str_has_prefix(sc, "renameat") ||
	    str_has_prefix(sc, "link")) && r->subject2 != NULL)
		return xasprintf("wants to change %s: %s -> %s (%s)", later,
		    r->subject, r->subject2, words);
	return xasprintf("wants to change %s: %s (%s)", later, r->subject,
	    words);
}

/* brief: the path left out (it is shown beside the sentence). */
static char *
plain_write(const struct request *r, bool brief)
{
	const char *what = plain_path_kind(r->subject);
	const char *sc = r->syscall != NULL ? r->syscall : "";
	char buf[256];
	const char *words = protect_why_words(r->why, buf, sizeof buf);

	if (words != NULL)
		return plain_protected(r, words, brief);

	if (brief) {
		const char *verb = "change";

		if (strcmp(sc, "rename") == 0 || str_has_prefix(sc, "renameat"))
			verb = "rename";
		else if (str_has_prefix(sc, "unlink") || strcmp(sc, "rmdir") == 0)
			verb = "delete";
		else if (str_has_prefix(sc, "mkdir"))
			return xstrdup("wants to make a folder");
		else if (str_has_prefix(sc, "fchmod") ||
		    str_has_prefix(sc, "chmod"))
			return xasprintf("wants to change who may use %s",
			    what);
		else if (str_has_prefix(sc, "link") ||
		    str_has_prefix(sc, "symlink"))
			return xstrdup("wants to make a link");
		return xasprintf("wants to %s %s", verb, what);
	}

	if (strcmp(sc, "rename") == 0 || str_has_prefix(sc, "renameat"))
		return xasprintf("wants to rename %s to %s (%s, outside its "
		    "folders)", r->subject, r->subject2 ? r->subject2 : "?",
		    what);
	if (str_has_prefix(sc, "unlink") || strcmp(sc, "rmdir") == 0)
		return xasprintf("wants to delete %s (%s, outside its folders)",
		    r->subject, what);
	if (str_has_prefix(sc, "mkdir"))
		return xasprintf("wants to make the folder %s (outside its "
		    "folders)", r->subject);
	if (str_has_prefix(sc, "fchmod") || str_has_prefix(sc, "chmod"))
		return xasprintf("wants to change who may use %s (%s, outside "
		    "its folders)", r->subject, what);
	if (str_has_prefix(sc, "link") || str_has_prefix(sc, "symlink"))
		return xasprintf("wants to make a link %s (outside its "
		    "folders)", r->subject2 ? r->subject2 : r->subject);
	return xasprintf("wants to change %s (%s, outside its folders)",
	    r->subject, what);
}

/* "host (addr):port" or "addr:port" -> "host (addr) on port N". */
static char *
plain_connect(const char *subject)
{
	const char *colon = strrchr(subject, ':');

	if (colon == NULL || colon[1] == '\0' || colon == subject)
		return xasprintf("wants to connect to %s", subject);
	return xasprintf("wants to connect to %.*s on port %s",
	    (int)(colon - subject), subject, colon + 1);
}

/* "host:port METHOD PATH" -> "wants to send METHOD PATH to host:port". */
static char *
plain_http(const char *subject)
{
	const char *sp = strchr(subject, ' ');

	if (sp == NULL || sp[1] == '\0')
		return xasprintf("wants to send an HTTP request to %s", subject);
	return xasprintf("wants to send %s to %.*s", sp + 1,
	    (int)(sp - subject), subject);
}

/* The word after key in s up to a space or ';', or NULL. */
static char *
plain_field(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	size_t n;

	if (p == NULL)
		return NULL;
	p += strlen(key);
	n = strcspn(p, " ;");
	return n > 0 ? xstrndup(p, n) : NULL;
}

/* "pip install a b (2 packages) -> /work/lib; index U; hosts h:443 ..."
 * -> "wants to install a b with pip, from h". */
static char *
plain_package(const char *subject)
{
	cleanup_free char *manager = NULL, *host = NULL, *pkgs = NULL;
	const char *sp = strchr(subject, ' '), *p, *end;

	if (sp == NULL)
		return xasprintf("wants to install %s", subject);
	manager = xstrndup(subject, (size_t)(sp - subject));
	p = strchr(sp + 1, ' ');
	if (p == NULL)
		return xasprintf("wants to run %s", subject);
	p++;
	end = p + strcspn(p, "(;");
	while (end > p && end[-1] == ' ')
		end--;
	pkgs = xstrndup(p, (size_t)(end - p));
	if (strstr(pkgs, " -> ") != NULL)
		*strstr(pkgs, " -> ") = '\0';
	if ((host = plain_field(subject, "; hosts ")) != NULL) {
		char *colon = strrchr(host, ':');

		if (colon != NULL && colon != host && host[0] != '[')
			*colon = '\0';
	}
	if (*pkgs == '\0')
		return xasprintf("wants to run %s (a package manager)", subject);
	if (host != NULL)
		return xasprintf("wants to install %s with %s, from %s", pkgs,
		    manager, host);
	return xasprintf("wants to install %s with %s", pkgs, manager);
}

/* The row's sentence with subject where its "%s" is (a table's string
 * is no format for printf: -Wformat-nonliteral). */
static char *
plain_fill(const char *words, const char *subject)
{
	const char *at = strstr(words, "%s");

	if (at == NULL)
		return xstrdup(words);
	return xasprintf("%.*s%s%s", (int)(at - words), words, subject, at + 2);
}

static char *
plain_sentence(const struct request *r, bool brief)
{
	const struct kind_info *k = kind_info(r->kind);
	const char *subject = r->subject != NULL ? r->subject : "?";

	switch (k->sentence) {
	case SENTENCE_WRITE:
		return plain_write(r, brief);
	case SENTENCE_CONNECT:
		return plain_connect(subject);
	case SENTENCE_INSTALL:
		return plain_package(subject);
	case SENTENCE_HTTP:
		return plain_http(subject);
	case SENTENCE_FORMAT:
		break;
	}
	return plain_fill(k->plain, subject);
}

char *
plain_request(const struct request *r)
{
	return plain_sentence(r, false);
}

char *
plain_request_brief(const struct request *r)
{
	return plain_sentence(r, true);
}
