/* SPDX-License-Identifier: MIT */
#include "tui/completion.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "config/escape.h"
#include "config/util.h"

/* Options whose argument is a path: complete files (or folders). */
static const struct {
	const char	*name;
	bool		 dir;
} completion_paths[] = {
	{ "policy", false },
	{ "in", false },
	{ "project", true },
	{ "chdir", true },
};

static int
completion_path_kind(const char *opt)
{
	for (size_t i = 0; i < ARRAY_SIZE(completion_paths); i++) {
		if (strcmp(completion_paths[i].name, opt) == 0)
			return completion_paths[i].dir ? 2 : 1;
	}
	return 0;
}

/* Every option of a verb as "--name" words; --help always. */
static void
completion_opt_words(FILE *f, const struct completion_verb *v)
{
	bool help = false;

	for (const struct option *o = v->opts; o != NULL && o->name != NULL;
	    o++) {
		fprintf(f, " --%s%s", o->name, o->has_arg == required_argument ?
		    "=" : "");
		help = help || strcmp(o->name, "help") == 0;
	}
	if (!help)
		fputs(" --help", f);
}

/* A summary for a quoted shell word: no quote of the given kind. */
static void
completion_put_quoted(FILE *f, const char *s, char quote)
{
	for (; *s != '\0'; s++) {
		if (*s == quote || *s == '\\')
			continue;
		fputc(*s, f);
	}
}

static void
completion_bash(FILE *f, const struct completion_verb *v, size_t n)
{
	fputs("# bash completion for ward (ward completion bash)\n"
	    "_ward() {\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} verb= i opts=\n"
	    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	    "\t\tcase ${COMP_WORDS[i]} in\n"
	    "\t\t--) [ -n \"$verb\" ] && { COMPREPLY=($(compgen -c -- "
	    "\"$cur\")); return; } ;;\n"
	    "\t\t-*) ;;\n"
	    "\t\t*) [ -z \"$verb\" ] && verb=${COMP_WORDS[i]} ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\tif [ -z \"$verb\" ]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; i < n; i++) {
		if (v[i].summary != NULL)
			fprintf(f, "%s%s", i == 0 ? "" : " ", v[i].name);
	}
	fputs(" --help --version\" -- \"$cur\"))\n"
	    "\t\treturn\n"
	    "\tfi\n"
	    "\tcase ${COMP_WORDS[COMP_CWORD-1]} in\n", f);
	for (int kind = 1; kind <= 2; kind++) {
		bool any = false;

		for (size_t i = 0; i < ARRAY_SIZE(completion_paths); i++) {
			if (completion_path_kind(completion_paths[i].name) !=
			    kind)
				continue;
			fprintf(f, "%s--%s", any ? "|" : "\t", completion_paths[i].name);
			any = true;
		}
		fprintf(f, ") COMPREPLY=($(compgen -%c -- \"$cur\")); "
		    "return ;;\n", kind == 2 ? 'd' : 'f');
	}
	fputs("\tesac\n"
	    "\tcase $verb in\n", f);
	for (size_t i = 0; i < n; i++) {
		if (v[i].summary == NULL)
			continue;
		fprintf(f, "\t%s) opts=\"", v[i].name);
		completion_opt_words(f, &v[i]);
		fputs("\" ;;\n", f);
	}
	fputs("\tesac\n"
	    "\tif [[ $cur == -* ]]; then\n"
	    "\t\tcompopt -o nospace 2>/dev/null\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	    "\t\t[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} != *= ]] && "
	    "COMPREPLY[0]+=' '\n"
	    "\t\treturn\n"
	    "\tfi\n"
	    "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	    "}\n"
	    "complete -F _ward ward\n", f);
}

static void
completion_zsh(FILE *f, const struct completion_verb *v, size_t n)
{
	fputs("#compdef ward\n"
	    "# zsh completion for ward (ward completion zsh)\n"
	    "_ward() {\n"
	    "\tlocal -a verbs\n"
	    "\tverbs=(\n", f);
	for (size_t i = 0; i < n; i++) {
		if (v[i].summary == NULL)
			continue;
		fprintf(f, "\t\t'%s:", v[i].name);
		completion_put_quoted(f, v[i].summary, '\'');
		fputs("'\n", f);
	}
	fputs("\t)\n"
	    "\tif (( CURRENT == 2 )); then\n"
	    "\t\t_describe 'ward command' verbs\n"
	    "\t\treturn\n"
	    "\tfi\n"
	    "\tcase $words[2] in\n", f);
	for (size_t i = 0; i < n; i++) {
		if (v[i].summary == NULL)
			continue;
		fprintf(f, "\t%s) _arguments", v[i].name);
		for (const struct option *o = v[i].opts;
		    o != NULL && o->name != NULL; o++) {
			int kind = completion_path_kind(o->name);

			if (o->has_arg == required_argument)
				fprintf(f, " '--%s=[]:%s:%s'", o->name, o->name,
				    kind == 2 ? "_directories" :
				    kind == 1 ? "_files" : " ");
			else
				fprintf(f, " '--%s'", o->name);
		}
		fputs(" '*:file:_files' ;;\n", f);
	}
	fputs("\tesac\n"
	    "}\n"
	    "_ward \"$@\"\n", f);
}

static void
completion_fish(FILE *f, const struct completion_verb *v, size_t n)
{
	fputs("# fish completion for ward (ward completion fish)\n"
	    "complete -c ward -f\n", f);
	for (size_t i = 0; i < n; i++) {
		if (v[i].summary == NULL)
			continue;
		fprintf(f, "complete -c ward -n __fish_use_subcommand -a %s "
		    "-d '", v[i].name);
		completion_put_quoted(f, v[i].summary, '\'');
		fputs("'\n", f);
		for (const struct option *o = v[i].opts;
		    o != NULL && o->name != NULL; o++) {
			int kind = completion_path_kind(o->name);

			fprintf(f, "complete -c ward -n '__fish_seen_subcommand_"
			    "from %s' -l %s%s\n", v[i].name, o->name,
			    o->has_arg != required_argument ? "" :
			    kind == 2 ? " -r -a '(__fish_complete_directories)'" :
			    kind == 1 ? " -r -F" : " -r");
		}
	}
}

int
completion_print(FILE *f, const char *shell, const struct completion_verb *v,
    size_t n)
{
	if (strcmp(shell, "bash") == 0)
		completion_bash(f, v, n);
	else if (strcmp(shell, "zsh") == 0)
		completion_zsh(f, v, n);
	else if (strcmp(shell, "fish") == 0)
		completion_fish(f, v, n);
	else
		return -EINVAL;
	return 0;
}

int
completion_main(int argc, char **argv, const struct completion_verb *v,
    size_t n)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		puts("usage: ward completion bash|zsh|fish\n\n"
		    "Prints a completion script for the shell, e.g.\n"
		    "  source <(ward completion bash)\n"
		    "'make install' puts them where bash-completion, zsh and "
		    "fish look.");
		return 0;
	}
	if (argc != 2) {
		fputs("ward completion: say which shell: bash, zsh or fish; "
		    "see 'ward completion --help'\n", stderr);
		return 2;
	}
	if (completion_print(stdout, argv[1], v, n) < 0) {
		cleanup_free char *e = escape_str(argv[1]);

		fprintf(stderr, "ward completion: no completion for '%s' "
		    "(bash, zsh or fish)\n", e);
		return 2;
	}
	return 0;
}
