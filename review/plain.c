/* SPDX-License-Identifier: MIT */
#include "review/plain.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	if ((strcmp(sc, "rename") == 0 || strncmp(sc, "renameat", 8) == 0 ||
	    strncmp(sc, "link", 4) == 0) && r->subject2 != NULL)
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

		if (strcmp(sc, "rename") == 0 || strncmp(sc, "renameat", 8) == 0)
			verb = "rename";
		else if (strncmp(sc, "unlink", 6) == 0 || strcmp(sc, "rmdir") == 0)
			verb = "delete";
		else if (strncmp(sc, "mkdir", 5) == 0)
			return xstrdup("wants to make a folder");
		else if (strncmp(sc, "fchmod", 6) == 0 ||
		    strncmp(sc, "chmod", 5) == 0)
			return xasprintf("wants to change who may use %s",
			    what);
		else if (strncmp(sc, "link", 4) == 0 ||
		    strncmp(sc, "symlink", 7) == 0)
			return xstrdup("wants to make a link");
		return xasprintf("wants to %s %s", verb, what);
	}

	if (strcmp(sc, "rename") == 0 || strncmp(sc, "renameat", 8) == 0)
		return xasprintf("wants to rename %s to %s (%s, outside its "
		    "folders)", r->subject, r->subject2 ? r->subject2 : "?",
		    what);
	if (strncmp(sc, "unlink", 6) == 0 || strcmp(sc, "rmdir") == 0)
		return xasprintf("wants to delete %s (%s, outside its folders)",
		    r->subject, what);
	if (strncmp(sc, "mkdir", 5) == 0)
		return xasprintf("wants to make the folder %s (outside its "
		    "folders)", r->subject);
	if (strncmp(sc, "fchmod", 6) == 0 || strncmp(sc, "chmod", 5) == 0)
		return xasprintf("wants to change who may use %s (%s, outside "
		    "its folders)", r->subject, what);
	if (strncmp(sc, "link", 4) == 0 || strncmp(sc, "symlink", 7) == 0)
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

static char *
plain_sentence(const struct request *r, bool brief)
{
	const char *subject = r->subject != NULL ? r->subject : "?";

	switch (r->kind) {
	case KIND_WRITE:
		return plain_write(r, brief);
	case KIND_CONNECT:
		return plain_connect(subject);
	case KIND_DNS:
		return xasprintf("wants to look up the name %s (the first "
		    "step to reaching it)", subject);
	case KIND_PACKAGE:
		return plain_package(subject);
	case KIND_EXEC:
		return xasprintf("started the program %s", subject);
	case KIND_BLOCKED:
		return xasprintf("tried %s, which the sandbox never allows",
		    subject);
	case KIND_HTTP:
		return plain_http(subject);
	case KIND_SECRET:
		return xasprintf("tried to send the phantom of the secret %s "
		    "(refused: never the value)", subject);
	case KIND_RUN:
		break;
	}
	return xasprintf("%s", subject);
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
