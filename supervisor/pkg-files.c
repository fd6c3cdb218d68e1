/* SPDX-License-Identifier: MIT */
#include "supervisor/packages.h"
#include "supervisor/pkg-int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "config/util.h"

static int
pkg_read_json(const char *buf, size_t len, struct pkg_install *add, size_t room)
{
	static const char *const keys[] = {
		"dependencies", "devDependencies", "optionalDependencies",
	};
	json_error_t err;
	json_t *root = json_loadb(buf, len, 0, &err);
	int r = 0;

	if (root == NULL || !json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	for (size_t k = 0; k < ARRAY_SIZE(keys) && r == 0; k++) {
		json_t *deps = json_object_get(root, keys[k]), *v;
		const char *name;

		if (!json_is_object(deps))
			continue;
		json_object_foreach(deps, name, v) {
			pkg_npm_spec(add, name,
			    json_is_string(v) ? json_string_value(v) : NULL);
			if (add->n_items > room) {
				r = -E2BIG;
				break;
			}
		}
	}
	json_decref(root);
	return r;
}

/* A file named in file "name": relative to its folder, as pip reads it. */
static char *
pkg_req_relative(const char *name, const char *file)
{
	const char *slash = strrchr(name, '/');

	if (file[0] == '/' || slash == NULL || strstr(file, "://") != NULL)
		return xstrdup(file);
	return xasprintf("%.*s/%s", (int)(slash - name), name, file);
}

/* One "-x value" / "--xx=value" line of a requirements file. */
static void
pkg_req_option(const char *name, char *line, struct pkg_install *add)
{
	static const struct {
		const char	*opt;
		enum pkg_opt_kind kind;
	} opts[] = {
		{ "-r", OPT_FILE }, { "--requirement", OPT_FILE },
		{ "-c", OPT_FILE }, { "--constraint", OPT_FILE },
		{ "-e", OPT_LOCAL }, { "--editable", OPT_LOCAL },
		{ "-i", OPT_INDEX }, { "--index-url", OPT_INDEX },
		{ "--extra-index-url", OPT_INDEX },
		{ "-f", OPT_INDEX }, { "--find-links", OPT_INDEX },
	};
	size_t n = strcspn(line, " \t=");
	const char *value = NULL;
	char *v;

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		size_t m = strlen(opts[i].opt);

		if (n == m && strncmp(line, opts[i].opt, m) == 0)
			value = line + n;
		else if (m == 2 && n > 2 && strncmp(line, opts[i].opt, 2) == 0)
			value = line + 2;	/* -rbase.txt */
		else
			continue;
		value += strspn(value, " \t=");
		v = xstrndup(value, strcspn(value, " \t"));
		if (*v == '\0') {
			free(v);
			return;
		}
		if (opts[i].kind == OPT_FILE) {
			strv_push(&add->files, &add->n_files,
			    pkg_req_relative(name, v));
			free(v);
		} else if (opts[i].kind == OPT_LOCAL) {
			pkg_item_add(add, v, NULL, true);
		} else {
			strv_push(&add->index_urls, &add->n_index_urls, v);
		}
		return;
	}
}

static int
pkg_read_requirements(const char *name, char *buf, struct pkg_install *add,
    size_t room)
{
	bool conda = strcmp(add->manager, "conda") == 0;
	char *line = buf;

	while (line != NULL && *line != '\0') {
		char *end = line, *next, *o;
		size_t len;

		/* A line, joined with the next ones while it ends in "\". */
		for (;;) {
			char *e;

			end += strcspn(end, "\n");
			e = end;
			if (e > line && e[-1] == '\r')
				*--e = ' ';
			if (e > line && e[-1] == '\\' && *end == '\n') {
				e[-1] = ' ';
				*end = ' ';
				continue;
			}
			break;
		}
		next = *end ? end + 1 : NULL;
		*end = '\0';
		/* "#" at the start or after a blank starts a comment. */
		for (o = line; *o != '\0'; o++)
			if (*o == '#' && (o == line || o[-1] == ' ' || o[-1] == '\t')) {
				*o = '\0';
				break;
			}
		line += strspn(line, " \t");
		len = strlen(line);
		while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		if (len == 0 || (conda && line[0] == '@')) {
			line = next;
			continue;
		}
		if (line[0] == '-') {
			pkg_req_option(name, line, add);
		} else if (conda) {
			pkg_conda(add, line);
		} else {
			/* Per-requirement options: "pkg==1 --hash=sha256:..." */
			for (o = line; *o != '\0'; o++)
				if ((*o == ' ' || *o == '\t') && o[1] == '-' &&
				    o[2] == '-') {
					*o = '\0';
					break;
				}
			pkg_pep508(add, line);
		}
		if (add->n_items > room)
			return -E2BIG;
		line = next;
	}
	return 0;
}

static void
pkg_strv_add_new(char ***v, size_t *n, char *s)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*v)[i], s) == 0) {
			free(s);
			return;
		}
	}
	strv_push(v, n, s);
}

int
packages_read_file(int fd, const char *name, struct pkg_install *inout)
{
	static const char *const unread[] = {
		".toml", ".yml", ".yaml", ".lock", ".deb", ".gem", ".crate",
	};
	cleanup_free char *buf = NULL;
	struct pkg_install add = { .manager = inout->manager };
	size_t len = 0, room;
	bool json = str_has_suffix(name, ".json");
	int r;

	if (inout->manager == NULL)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(unread); i++)
		if (str_has_suffix(name, unread[i]))
			return -EOPNOTSUPP;
	if (!json && strcmp(inout->manager, "pip") != 0 &&
	    strcmp(inout->manager, "uv") != 0 &&
	    strcmp(inout->manager, "conda") != 0)
		return -EOPNOTSUPP;
	if (inout->n_items >= PACKAGES_ITEMS_MAX)
		return -E2BIG;
	room = PACKAGES_ITEMS_MAX - inout->n_items;
	if ((r = read_fd_max(fd, PACKAGES_FILE_MAX, &buf, &len)) < 0)
		return r;
	if (memchr(buf, '\0', len) != NULL)
		return -EINVAL;
	if (json)
		r = pkg_read_json(buf, len, &add, room);
	else
		r = pkg_read_requirements(name, buf, &add, room);
	if (r == 0 && add.n_items > room)
		r = -E2BIG;
	if (r < 0) {
		pkg_install_done(&add);
		return r;
	}
	for (size_t i = 0; i < add.n_items; i++)
		pkg_item_add(inout, add.items[i].name, add.items[i].version,
		    add.items[i].local);
	free(add.items);
	add.items = NULL;
	add.n_items = 0;
	for (size_t i = 0; i < add.n_files; i++)
		pkg_strv_add_new(&inout->files, &inout->n_files, steal_ptr(&add.files[i]));
	for (size_t i = 0; i < add.n_index_urls; i++)
		pkg_strv_add_new(&inout->index_urls, &inout->n_index_urls,
		    steal_ptr(&add.index_urls[i]));
	pkg_install_done(&add);
	return 0;
}
