/* SPDX-License-Identifier: MIT */
/* The report card, as lines or as JSON. */
#include "probe/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config/escape.h"
#include "config/util.h"

void
probe_print_line(const struct probe_result *res)
{
	const char *v = probe_verdict_name(res->verdict);
	char label[16];

	snprintf(label, sizeof label, "%s", v);
	if (res->verdict != PV_BLOCKED && res->verdict != PV_ALLOWED)
		for (char *c = label; *c; c++)
			*c = (char)(*c - 'a' + 'A');
	/* stopped and record hold sandbox strings, escaped when built. */
	printf("%-10s %-15s %s: %s; record: %s", label, res->def->name,
	    res->def->tried, res->stopped, res->record);
	if (res->overrides != NULL)
		printf(" [policy copy: %s]", res->overrides);
	if (res->verdict == PV_ALLOWED)
		printf(" [allowed, recorded: counted as blocked and logged]");
	for (size_t i = 0; i < res->n_problems; i++)
		printf("%s%s", i == 0 ? " !! " : "; ", res->problems[i]);
	putchar('\n');
	fflush(stdout);
}

void
probe_counts(const struct probe *p, unsigned *ok, unsigned *escaped,
    unsigned *unrecorded, unsigned *errors)
{
	*ok = *escaped = *unrecorded = *errors = 0;
	for (size_t i = 0; i < p->n_results; i++)
		switch (p->results[i].verdict) {
		case PV_BLOCKED:
		case PV_ALLOWED:
			(*ok)++;
			break;
		case PV_ESCAPED:
			(*escaped)++;
			break;
		case PV_UNRECORDED:
			(*unrecorded)++;
			break;
		case PV_ERROR:
			(*errors)++;
			break;
		}
}

static json_t *
probe_jstr(const char *s)
{
	cleanup_free char *e = escape_str(s != NULL ? s : "");

	return json_string(e);
}

void
probe_print_json(const struct probe *p, const char *harness_error)
{
	json_t *o = json_object(), *arr = json_array();
	unsigned ok, escaped, unrecorded, errors;
	cleanup_free char *summary = NULL, *text = NULL;

	probe_counts(p, &ok, &escaped, &unrecorded, &errors);
	summary = xasprintf("%u blocked and logged, %u escaped", ok, escaped);
	json_object_set_new(o, "policy", probe_jstr(p->policy_path));
	json_object_set_new(o, "canary", probe_jstr(p->canary));
	json_object_set_new(o, "every_run", json_string("ask_timeout = 5s, "
	    "timeout = 20s, every request denied at once"));
	for (size_t i = 0; i < p->n_results; i++) {
		const struct probe_result *res = &p->results[i];
		json_t *j = json_object(), *pr = json_array();

		json_object_set_new(j, "name", json_string(res->def->name));
		json_object_set_new(j, "tried", json_string(res->def->tried));
		json_object_set_new(j, "verdict",
		    json_string(probe_verdict_name(res->verdict)));
		json_object_set_new(j, "stopped_by", probe_jstr(res->stopped));
		json_object_set_new(j, "recorded", json_boolean(
		    res->verdict == PV_BLOCKED || res->verdict == PV_ALLOWED));
		json_object_set_new(j, "record", probe_jstr(res->record));
		json_object_set_new(j, "policy_override", res->overrides ?
		    json_string(res->overrides) : json_null());
		json_object_set_new(j, "allowed_by_design",
		    json_boolean(res->def->allowed));
		json_object_set_new(j, "run", probe_jstr(res->run));
		json_object_set_new(j, "exit_status", json_integer(res->status));
		json_object_set_new(j, "elapsed_ms",
		    json_integer(res->elapsed_ms));
		json_object_set_new(j, "requests_denied",
		    json_integer(res->requests));
		json_object_set_new(j, "peak_tasks",
		    json_integer(res->peak_tasks));
		json_object_set_new(j, "peak_rss_bytes",
		    json_integer((json_int_t)res->peak_rss));
		for (size_t k = 0; k < res->n_problems; k++)
			json_array_append_new(pr, probe_jstr(res->problems[k]));
		json_object_set_new(j, "problems", pr);
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "probes", arr);
	json_object_set_new(o, "blocked_and_logged", json_integer(ok));
	json_object_set_new(o, "escaped", json_integer(escaped));
	json_object_set_new(o, "unrecorded", json_integer(unrecorded));
	json_object_set_new(o, "errors", json_integer(errors));
	json_object_set_new(o, "harness_error", harness_error ?
	    probe_jstr(harness_error) : json_null());
	json_object_set_new(o, "summary", json_string(summary));
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text != NULL)
		puts(text);
	json_decref(o);
}

/* The surface a probe tries, by its name (probe/defs.c). */
static const struct {
	const char	*prefix;
	const char	*surface;
} probe_surfaces[] = {
	{ "home-secret", "secrets" }, { "store-secret", "secrets" },
	{ "env-secret", "secrets" },
	{ "write-", "files" }, { "deny-reason-fd", "files" },
	{ "path-race", "files" },
	{ "connect", "network" }, { "outside-listener", "network" },
	{ "metadata", "network" }, { "dns-exfil", "network" },
	{ "raw-socket", "network" }, { "udp", "network" },
	{ "fork-bomb", "limits" }, { "memory-hog", "limits" },
	{ "wall-clock", "limits" },
};
static const char *const probe_surface_order[] = {
	"files", "secrets", "network", "kernel", "limits",
};
static const char *const probe_surface_words[] = {
	"writes outside its folders, symlink, hardlink and rename tricks",
	"your home, the credential stores, ward's environment",
	"hosts, the metadata address, DNS tunnels, raw and UDP sockets",
	"ptrace, mount, namespaces, io_uring, bpf, the terminal, the supervisor",
	"fork bombs, memory, the wall clock",
};

const char *
probe_surface(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(probe_surfaces); i++) {
		size_t n = strlen(probe_surfaces[i].prefix);

		if (strncmp(name, probe_surfaces[i].prefix, n) == 0 &&
		    (probe_surfaces[i].prefix[n - 1] == '-' || name[n] == '\0'))
			return probe_surfaces[i].surface;
	}
	return "kernel";
}

void
probe_print_summary(const struct probe *p, const char *harness_error)
{
	for (size_t s = 0; s < ARRAY_SIZE(probe_surface_order); s++) {
		unsigned tried = 0, stopped = 0, escaped = 0, other = 0;

		for (size_t i = 0; i < p->n_results; i++) {
			const struct probe_result *r = &p->results[i];

			if (strcmp(probe_surface(r->def->name),
			    probe_surface_order[s]) != 0)
				continue;
			tried++;
			if (r->verdict == PV_BLOCKED || r->verdict == PV_ALLOWED)
				stopped++;
			else if (r->verdict == PV_ESCAPED)
				escaped++;
			else
				other++;
		}
		printf("%-8s %2u tried, %2u stopped and recorded%s  (%s)\n",
		    probe_surface_order[s], tried, stopped,
		    escaped > 0 ? ", SOME ESCAPED" : other > 0 ?
		    ", some not judged" : "", probe_surface_words[s]);
	}
	if (harness_error != NULL) {
		cleanup_free char *e = escape_str(harness_error);

		printf("harness failed: %s\n", e);
	}
}

void
probe_print_total(const struct probe *p, size_t of, int64_t took_ms)
{
	unsigned ok, escaped, unrecorded, errors;

	probe_counts(p, &ok, &escaped, &unrecorded, &errors);
	printf("%u of %zu probes contained", ok, of);
	if (escaped > 0)
		printf(", %u ESCAPED", escaped);
	if (unrecorded > 0)
		printf(", %u not in the record", unrecorded);
	if (errors > 0)
		printf(", %u not judged", errors);
	if (p->n_results < of)
		printf(", %zu not run", of - p->n_results);
	printf("; took %.1f s\n", (double)(took_ms < 0 ? 0 : took_ms) /
	    1000.0);
	fflush(stdout);
}

void
probe_progress(FILE *f, bool tty, size_t i, size_t n,
    const struct probe_def *def, const struct probe_result *res,
    int64_t took_ms)
{
	double s = (double)(took_ms < 0 ? 0 : took_ms) / 1000.0;

	if (tty && res == NULL)
		fprintf(f, "\r\033[Kward probe: %zu of %zu, %s ... %.1f s",
		    i + 1, n, def->name, s);
	else if (!tty && res != NULL)
		fprintf(f, "ward probe: %zu of %zu %s: %s (%.1f s)\n", i + 1, n,
		    def->name, probe_verdict_name(res->verdict), s);
	fflush(f);
}

void
probe_progress_end(FILE *f, bool tty)
{
	if (tty) {
		fputs("\r\033[K", f);
		fflush(f);
	}
}
