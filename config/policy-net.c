/* SPDX-License-Identifier: MIT */
/*
 * [network]: hosts, addresses and networks with their ports, the never
 * list, HTTP rules (host METHOD PATH) and the gate's upstream CAs.
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/httppath.h"
#include "config/util.h"

int
policy_set_connect(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int a;

	if ((a = policy_action(v, false)) >= 0) {
		p->connect = (enum policy_action)a;
		return 0;
	}
	if (strcmp(v, "allow") == 0)
		*why = xasprintf("%s is not one of ask, deny (name hosts in "
		    "allow)", q);
	else
		*why = xasprintf("%s is not one of ask, deny", q);
	return -EINVAL;
}

/* "*" stays inside one segment, "**" crosses them; the rest is literal. */
bool
policy_http_path_match(const char *g, const char *s)
{
	if (*g == '\0')
		return *s == '\0';
	if (g[0] == '*' && g[1] == '*') {
		for (;; s++) {
			if (policy_http_path_match(g + 2, s))
				return true;
			if (*s == '\0')
				return false;
		}
	}
	if (*g == '*') {
		for (;; s++) {
			if (policy_http_path_match(g + 1, s))
				return true;
			if (*s == '\0' || *s == '/')
				return false;
		}
	}
	return *s == *g && policy_http_path_match(g + 1, s + 1);
}

/* "10.0.0.0/8" or "fd00::/8" into canonical text; host bits must be 0. */
static int
policy_cidr(const char *s, char **ret, const char **why)
{
	cleanup_free char *addr = xstrdup(s);
	char *slash = strchr(addr, '/');
	unsigned char bytes[16];
	char text[INET6_ADDRSTRLEN];
	uint64_t prefix;
	const char *end;
	int af = AF_INET;
	unsigned bits = 32;

	*slash = '\0';
	if (inet_pton(AF_INET, addr, bytes) != 1) {
		af = AF_INET6;
		bits = 128;
		if (inet_pton(AF_INET6, addr, bytes) != 1) {
			*why = "is not an address/prefix";
			return -EINVAL;
		}
	}
	if (policy_parse_uint(slash + 1, bits, &prefix, &end) < 0 || *end != '\0') {
		*why = af == AF_INET ? "needs a prefix length 0..32" :
		    "needs a prefix length 0..128";
		return -EINVAL;
	}
	for (unsigned i = (unsigned)prefix; i < bits; i++) {
		if (bytes[i / 8] & (0x80u >> (i % 8))) {
			*why = "has bits set past its prefix length";
			return -EINVAL;
		}
	}
	inet_ntop(af, bytes, text, sizeof text);
	*ret = xasprintf("%s/%u", text, (unsigned)prefix);
	return 0;
}

/* A DNS name or "*.suffix", lowercased, without a trailing dot. */
static int
policy_hostname(const char *s, char **ret, const char **why)
{
	cleanup_free char *name = NULL;
	const char *labels = s;
	size_t len = strlen(s), label = 0;
	bool digits_only = true;

	if (str_has_prefix(s, "*."))
		labels = s + 2;
	if (len > 0 && s[len - 1] == '.')
		len--;
	if (labels >= s + len) {
		*why = "is not a host name";
		return -EINVAL;
	}
	if (len > 253) {
		*why = "is longer than 253 characters";
		return -EINVAL;
	}
	name = xstrndup(s, len);
	for (char *c = name + (labels - s); *c != '\0'; c++) {
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
		if (*c == '.') {
			if (label == 0 || c[-1] == '-') {
				*why = "is not a host name";
				return -EINVAL;
			}
			label = 0;
			continue;
		}
		if (*c == '*') {
			*why = "has a * that is not a leading *. (use *.example.com)";
			return -EINVAL;
		}
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		    *c == '-' || *c == '_') || (*c == '-' && label == 0) ||
		    ++label > 63) {
			*why = "is not a host name";
			return -EINVAL;
		}
		if (*c < '0' || *c > '9')
			digits_only = false;
	}
	if (label == 0 || name[strlen(name) - 1] == '-') {
		*why = "is not a host name";
		return -EINVAL;
	}
	/* "1.2.3.256" or "10.1" is a mistyped address, not a name. */
	if (digits_only) {
		*why = "is not an IPv4 address";
		return -EINVAL;
	}
	*ret = steal_ptr(&name);
	return 0;
}

/*
 * host, host:port, host:lo-hi, *.suffix[:port], 1.2.3.4[:port],
 * 10.0.0.0/8[:port], [::1], [::1]:443, [fd00::/8]:443.
 */
static int
policy_parse_host(const char *v, struct policy_host *ret, bool is_never,
    char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *host = NULL;
	cleanup_free char *canon = NULL;
	const char *port = NULL, *problem = NULL;
	struct policy_host h = { .port_lo = 0, .port_hi = 65535 };
	unsigned char bytes[16];
	char text[INET6_ADDRSTRLEN];
	bool v6 = false;

	if (v[0] == '[') {
		const char *close = strchr(v, ']');

		if (close == NULL || (close[1] != '\0' && close[1] != ':')) {
			*why = xasprintf("%s: write [address]:port", q);
			return -EINVAL;
		}
		host = xstrndup(v + 1, (size_t)(close - v - 1));
		if (close[1] == ':')
			port = close + 2;
		v6 = true;
	} else {
		const char *colon = strchr(v, ':');

		if (colon != NULL && strchr(colon + 1, ':') != NULL) {
			/* Is "::1:443" the address ::1:443 or ::1 port 443? */
			*why = xasprintf("%s: write an IPv6 address in brackets: "
			    "[::1] or [::1]:443", q);
			return -EINVAL;
		}
		if (colon != NULL) {
			host = xstrndup(v, (size_t)(colon - v));
			port = colon + 1;
		} else {
			host = xstrdup(v);
		}
	}
	if (port != NULL && policy_ports(port, &h.port_lo, &h.port_hi) < 0) {
		*why = xasprintf("%s: the port must be 1..65535 or a range lo-hi", q);
		return -EINVAL;
	}

	if (strchr(host, '/') != NULL) {
		/* Without brackets there is no colon, so no IPv6 network. */
		if (policy_cidr(host, &canon, &problem) == 0 &&
		    v6 == (strchr(canon, ':') != NULL))
			goto done;
		if (problem == NULL)
			problem = "is not an IPv6 network";
	} else if (v6) {
		if (inet_pton(AF_INET6, host, bytes) == 1) {
			canon = xstrdup(inet_ntop(AF_INET6, bytes, text, sizeof text));
			goto done;
		}
		problem = "is not an IPv6 address";
	} else if (inet_pton(AF_INET, host, bytes) == 1) {
		canon = xstrdup(host);
		goto done;
	} else if (strcmp(host, "*") == 0) {
		problem = "would allow every host (name the hosts, or use *.example.com)";
	} else if (is_never) {
		problem = "is not an address or network (never takes 10.0.0.0/8, "
		    "169.254.169.254, [fe80::/10] ...)";
	} else if (policy_hostname(host, &canon, &problem) == 0) {
		goto done;
	}
	*why = xasprintf("%s %s", q, problem);
	return -EINVAL;

done:
	h.host = steal_ptr(&canon);
	*ret = h;
	return 0;
}

int
policy_set_net_allow(struct policy *p, const char *v, char **why)
{
	struct policy_host h;
	int r;

	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	p->net_allow = xreallocarray(p->net_allow, p->n_net_allow + 1,
	    sizeof *p->net_allow);
	p->net_allow[p->n_net_allow++] = h;
	return 0;
}

int
policy_set_net_deny(struct policy *p, const char *v, char **why)
{
	struct policy_host h;
	int r;

	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	p->net_deny = xreallocarray(p->net_deny, p->n_net_deny + 1,
	    sizeof *p->net_deny);
	p->net_deny[p->n_net_deny++] = h;
	return 0;
}

/* The first never line replaces the built-in list; "none" empties it. */
int
policy_set_net_never(struct policy *p, const char *v, char **why)
{
	struct policy_host h;
	int r;

	p->never_set = true;
	if (strcmp(v, "none") == 0)
		return 0;
	if ((r = policy_parse_host(v, &h, true, why)) < 0)
		return r;
	p->net_never = xreallocarray(p->net_never, p->n_net_never + 1,
	    sizeof *p->net_never);
	p->net_never[p->n_net_never++] = h;
	return 0;
}

int
policy_set_http(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int a;

	if ((a = policy_action(v, false)) >= 0) {
		p->http = (enum policy_action)a;
		return 0;
	}
	if (strcmp(v, "allow") == 0)
		*why = xasprintf("%s is not one of ask, deny (name the requests "
		    "in allow: api.example.com:443 GET /path)", q);
	else
		*why = xasprintf("%s is not one of ask, deny", q);
	return -EINVAL;
}

/* The CAs the gate checks upstream servers with: absolute or "~/"
 * (expanded here, as writable), a file readable now. */
int
policy_set_upstream_ca(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *path = NULL, *abs = NULL;
	struct stat sb;
	int r;

	if ((r = policy_home_or_abs(v, &path, why)) < 0 ||
	    (r = policy_expand_home(path, &abs, why)) < 0)
		return r;
	if (stat(abs, &sb) < 0 || access(abs, R_OK) < 0) {
		*why = xasprintf("%s: cannot read it: %s", q, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(sb.st_mode)) {
		*why = xasprintf("%s is not a file (name a PEM file of CA "
		    "certificates)", q);
		return -EINVAL;
	}
	free(p->upstream_ca);
	p->upstream_ca = steal_ptr(&abs);
	return 0;
}

/* ------------------------------------------------------------------ */
/* HTTP rules (issue 19) */

#define HTTP_METHOD_MAX		15	/* gate_msg's method[16] */

/*
 * A host an HTTP rule or a secret names: a name, *.suffix or an address
 * (not a network), with one port. what: "a method or path", "a [secret]"
 * for the message.
 */
int
policy_one_port_host(const char *v, const char *what, struct policy_host *ret,
    char **why)
{
	cleanup_free char *q = policy_quote(v);
	struct policy_host h;
	int r;

	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	if (strchr(h.host, '/') != NULL) {
		free(h.host);
		*why = xasprintf("%s: %s names one host (a name, *.suffix or an "
		    "address), not a network", q, what);
		return -EINVAL;
	}
	if (h.port_lo != h.port_hi) {
		bool range = h.port_lo != 0 || h.port_hi != 65535;

		bool v6 = strchr(h.host, ':') != NULL;

		*why = xasprintf("%s: %s needs one port on its host%s (say the "
		    "port: %s%s%s:443)", q, what, range ? ", not a range" : "",
		    v6 ? "[" : "", h.host, v6 ? "]" : "");
		free(h.host);
		return -EINVAL;
	}
	*ret = h;
	return 0;
}

/* A method of an HTTP rule: a token ("get" is GET) or "*". */
static int
policy_http_method(const char *v, char **ret, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char *m;

	if (strcmp(v, "*") != 0 && !policy_is_http_token(v, strlen(v))) {
		*why = xasprintf("%s is not an HTTP method (GET, POST, *)", q);
		return -EINVAL;
	}
	if (strlen(v) > HTTP_METHOD_MAX) {
		*why = xasprintf("%s: a method of at most %d characters", q,
		    HTTP_METHOD_MAX);
		return -EINVAL;
	}
	m = xstrdup(v);
	for (char *c = m; *c != '\0'; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	*ret = m;
	return 0;
}

/* A path glob of an HTTP rule: from '/', no query, nothing unprintable,
 * canonical as the gate wants a request's path (config/httppath.h): a
 * glob with a ".." or a ";" would match no request the gate lets by. */
static int
policy_http_path(const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	const char *odd;

	for (const char *c = v; *c != '\0'; c++) {
		if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the path", q);
			return -EINVAL;
		}
		if (*c == '?' || *c == '#') {
			*why = xasprintf("%s: a rule's path has no query or "
			    "fragment (it matches the path alone: /search, "
			    "not /search?q=x)", q);
			return -EINVAL;
		}
	}
	if ((odd = httppath_check(v)) != NULL) {
		*why = xasprintf("%s: %s: the gate refuses a request whose path "
		    "is not canonical, so this rule would match none", q, odd);
		return -EINVAL;
	}
	return 0;
}

/* Does a token read as a method: before a path, "*" or a token that is
 * no host:port; last on the line, one of HTTP's own methods in capitals
 * ("GET"; "get" there is a host, as it always was). */
static bool
policy_looks_like_method(const char *s, bool before_path)
{
	static const char *const methods[] = {
		"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
		"TRACE", "PATCH",
	};

	if (before_path)
		return strcmp(s, "*") == 0 ||
		    (policy_is_http_token(s, strlen(s)) &&
		    strpbrk(s, ".:[]/") == NULL);
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (strcmp(s, methods[i]) == 0)
			return true;
	return false;
}

/*
 * One [network] allow line's items: hosts ("a:443 b:443"), or one host
 * with an HTTP rule: host METHOD PATH, host PATH (any method), host
 * METHOD (any path; GET, POST ... in capitals, or it reads as a host). A
 * rule has both fields: a left-out method is "*", a left-out path "/" "**".
 * 0 or -EINVAL with *why.
 */
static int
policy_net_allow_items(struct policy *p, char **tok, size_t n, char **why)
{
	cleanup_free char *method = NULL, *path = NULL;
	struct policy_host h;
	size_t hosts = n, pi = n;
	int r;

	for (size_t i = 0; i < n; i++)
		if (tok[i][0] == '/') {
			pi = i;
			break;
		}
	if (pi == 0) {
		cleanup_free char *q = policy_quote(tok[0]);

		*why = xasprintf("%s: a path goes after its host (api.example."
		    "com:443 GET /path)", q);
		return -EINVAL;
	}
	if (pi < n) {
		if (pi != n - 1) {
			cleanup_free char *q = policy_quote(tok[pi + 1]);

			*why = xasprintf("%s after the path: a rule is host "
			    "METHOD PATH, then its (reason)", q);
			return -EINVAL;
		}
		if ((r = policy_http_path(tok[pi], why)) < 0)
			return r;
		path = xstrdup(tok[pi]);
		hosts = pi;
		if (pi >= 2 && policy_looks_like_method(tok[pi - 1], true))
			hosts = pi - 1;
	} else if (n >= 2 && policy_looks_like_method(tok[n - 1], false)) {
		hosts = n - 1;
	}
	if (hosts == n) {
		for (size_t i = 0; i < n; i++) {
			if ((r = policy_parse_host(tok[i], &h, false, why)) < 0)
				return r;
			p->net_allow = xreallocarray(p->net_allow,
			    p->n_net_allow + 1, sizeof *p->net_allow);
			p->net_allow[p->n_net_allow++] = h;
		}
		return 0;
	}
	if (hosts > 1) {
		*why = xstrdup("one rule per line: a method or path goes with "
		    "one host (write each host's rule on a line of its own)");
		return -EINVAL;
	}
	if (hosts < (path != NULL ? pi : n) &&
	    (r = policy_http_method(tok[hosts], &method, why)) < 0)
		return r;
	if ((r = policy_one_port_host(tok[0], "a method or path", &h, why)) < 0)
		return r;
	h.method = method != NULL ? steal_ptr(&method) : xstrdup("*");
	h.path = path != NULL ? steal_ptr(&path) : xstrdup("/**");
	p->net_allow = xreallocarray(p->net_allow, p->n_net_allow + 1,
	    sizeof *p->net_allow);
	p->net_allow[p->n_net_allow++] = h;
	return 0;
}

/* "api.test:443", "[::1]:443" */
static char *
policy_host_port(const struct policy_host *h)
{
	return xasprintf(strchr(h->host, ':') != NULL ? "[%s]:%u" : "%s:%u",
	    h->host, h->port_lo);
}

char **
policy_describe_http(const struct policy *p)
{
	char **lines = NULL;
	size_t n = 0;
	bool rules = false;

	for (size_t i = 0; i < p->n_secrets; i++) {
		const struct policy_secret *sc = &p->secrets[i];
		cleanup_free char *hosts = xstrdup("");

		for (size_t j = 0; j < sc->n_hosts; j++) {
			cleanup_free char *hp = policy_host_port(&sc->hosts[j]);
			char *old = hosts;

			hosts = xasprintf("%s%s%s", old, j > 0 ? " " : "", hp);
			free(old);
		}
		strv_push(&lines, &n, xasprintf("secret %s: from %s; to %s; "
		    "header %s: %s", sc->name, sc->from, hosts, sc->header,
		    sc->header_value));
	}
	for (size_t i = 0; i < p->n_net_allow; i++) {
		const struct policy_host *h = &p->net_allow[i];
		cleanup_free char *hp = NULL;

		if (!policy_host_is_http(h))
			continue;
		hp = policy_host_port(h);
		strv_push(&lines, &n, xasprintf("http %s %s %s%s%s%s", hp,
		    h->method != NULL ? h->method : "*",
		    h->path != NULL ? h->path : "/**",
		    h->reason != NULL ? " (" : "",
		    h->reason != NULL ? h->reason : "",
		    h->reason != NULL ? ")" : ""));
		rules = true;
	}
	if (rules)
		strv_push(&lines, &n, xasprintf("http other requests to these "
		    "hosts: %s", p->http == POLICY_DENY ? "deny (a 403)" :
		    "ask"));
	if (p->upstream_ca != NULL)
		strv_push(&lines, &n, xasprintf("upstream servers checked "
		    "against %s", p->upstream_ca));
	if (lines == NULL)
		lines = xcalloc(1, sizeof *lines);
	return lines;
}

int
policy_host_parse(const char *v, struct policy_host *ret, char **why)
{
	return policy_parse_host(v, ret, false, why);
}

static const char *const ca_vars[] = {
	"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	"CURL_CA_BUNDLE", "GIT_SSL_CAINFO", NULL,
};

const char *const *
policy_ca_vars(void)
{
	return ca_vars;
}

/* A [network] allow line's value (without its reason): its items,
 * which are hosts or one host and its HTTP rule. 0 or -EINVAL with *why. */
int
policy_net_allow_line(struct policy *p, const char *value, char **why)
{
	char **tok = NULL;
	size_t n = 0;
	int r;

	for (const char *c = value; *c != '\0';) {
		size_t len;

		c += strspn(c, " \t");
		if ((len = strcspn(c, " \t")) == 0)
			break;
		strv_push(&tok, &n, xstrndup(c, len));
		c += len;
	}
	r = n > 0 ? policy_net_allow_items(p, tok, n, why) : 0;
	strv_free(tok);
	return r;
}
