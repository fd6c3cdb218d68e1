/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/ca.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "config/util.h"
#include "supervisor/gate/buf.h"

struct leaf {
	char	*name;
	X509	*cert;
};

struct ca {
	EVP_PKEY	*key;
	X509		*cert;
	char		*pem;
	EVP_PKEY	*leaf_key;
	struct leaf	*leaves;
	size_t		 n_leaves;
};

static int
set_serial(X509 *x)
{
	unsigned char b[16];
	BIGNUM *bn;
	int ok;

	if (RAND_bytes(b, sizeof b) != 1)
		return 0;
	b[0] &= 0x7f;
	if ((bn = BN_bin2bn(b, sizeof b, NULL)) == NULL)
		return 0;
	ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
	BN_free(bn);
	return ok;
}

static int
add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	if ((e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)) == NULL)
		return 0;
	ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

/* One intercepted host's constraint added to b: 1, 0 for an address
 * (*any_ip set), or -1 when it cannot be said (an IPv6 address, a
 * CIDR, "*"). */
static int
constraint_add(struct buf *b, const char *h, bool *any_ip)
{
	unsigned char a[16];
	const char *sep = b->len > 0 ? "," : "";

	if (inet_pton(AF_INET, h, a) == 1) {
		buf_addf(b, "%spermitted;IP:%s/255.255.255.255", sep, h);
		*any_ip = true;
		return 0;
	}
	if (inet_pton(AF_INET6, h, a) == 1 || strchr(h, '/') ||
	    strchr(h, ':') || strcmp(h, "*") == 0)
		return -1;
	/* A DNS constraint covers the name and every name below it:
	 * "*.x.test" is said as "x.test". */
	buf_addf(b, "%spermitted;DNS:%s", sep, str_has_prefix(h, "*.") ?
	    h + 2 : h);
	return 1;
}

/* "permitted;DNS:a.test,permitted;IP:10.0.0.1/255.255.255.255", or NULL
 * when no host is intercepted or some intercepted entry cannot be said:
 * then no constraint at all, the CA stays usable. Without an address
 * among the names, every address is excluded: a DNS constraint alone
 * leaves IP names free. */
static char *
constraints(const struct policy *p)
{
	struct buf b = { 0 };
	bool any_ip = false, bad = false;
	char *out;

	for (size_t i = 0; i < p->n_net_allow && !bad; i++)
		if (policy_host_is_http(&p->net_allow[i]))
			bad = constraint_add(&b, p->net_allow[i].host,
			    &any_ip) < 0;
	for (size_t i = 0; i < p->n_secrets && !bad; i++)
		for (size_t j = 0; j < p->secrets[i].n_hosts && !bad; j++)
			bad = constraint_add(&b, p->secrets[i].hosts[j].host,
			    &any_ip) < 0;
	if (bad || b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	if (!any_ip)
		buf_addf(&b, ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::");
	out = xstrndup(buf_data(&b), b.len);
	buf_free(&b);
	return out;
}

static X509 *
cert_new(EVP_PKEY *pub, X509_NAME *subject, long not_after_days)
{
	X509 *x = X509_new();

	if (x == NULL || !X509_set_version(x, 2) || !set_serial(x) ||
	    !X509_set_subject_name(x, subject) ||
	    X509_gmtime_adj(X509_getm_notBefore(x), -3600) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(x),
	    not_after_days * 24 * 3600) == NULL ||
	    !X509_set_pubkey(x, pub)) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static const char *
ssl_why(void)
{
	unsigned long e = ERR_get_error();

	return e ? ERR_reason_error_string(e) : "failed";
}

struct ca *
ca_new(const char *label, const struct policy *p, char **cause)
{
	struct ca *ca = xcalloc(1, sizeof *ca);
	cleanup_free char *cn = xasprintf("ward run CA %s", label);
	cleanup_free char *nc = constraints(p);
	cleanup_free char *nc_crit = nc ? xasprintf("critical,%s", nc) : NULL;
	X509_NAME *name = X509_NAME_new();
	BIO *b = NULL;
	char *mem;
	long n;

	ca->key = EVP_EC_gen("P-256");
	ca->leaf_key = EVP_EC_gen("P-256");
	if (ca->key == NULL || ca->leaf_key == NULL || name == NULL ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
	    (const unsigned char *)cn, -1, -1, 0))
		goto fail;
	if ((ca->cert = cert_new(ca->key, name, 30)) == NULL ||
	    !X509_set_issuer_name(ca->cert, name) ||
	    !add_ext(ca->cert, ca->cert, NID_basic_constraints,
	    "critical,CA:TRUE,pathlen:0") ||
	    !add_ext(ca->cert, ca->cert, NID_key_usage,
	    "critical,keyCertSign,cRLSign") ||
	    !add_ext(ca->cert, ca->cert, NID_subject_key_identifier, "hash") ||
	    (nc != NULL && !add_ext(ca->cert, ca->cert, NID_name_constraints,
	    nc_crit)) ||
	    !X509_sign(ca->cert, ca->key, EVP_sha256()))
		goto fail;
	if ((b = BIO_new(BIO_s_mem())) == NULL ||
	    !PEM_write_bio_X509(b, ca->cert))
		goto fail;
	n = BIO_get_mem_data(b, &mem);
	ca->pem = xstrndup(mem, (size_t)n);
	BIO_free(b);
	X509_NAME_free(name);
	return ca;
fail:
	set_cause(cause, "the run CA: %s", ssl_why());
	BIO_free(b);
	X509_NAME_free(name);
	ca_free(ca);
	return NULL;
}

void
ca_free(struct ca *ca)
{
	if (ca == NULL)
		return;
	for (size_t i = 0; i < ca->n_leaves; i++) {
		free(ca->leaves[i].name);
		X509_free(ca->leaves[i].cert);
	}
	free(ca->leaves);
	X509_free(ca->cert);
	EVP_PKEY_free(ca->key);
	EVP_PKEY_free(ca->leaf_key);
	free(ca->pem);
	free(ca);
}

const char *
ca_pem(const struct ca *ca)
{
	return ca->pem;
}

static X509 *
leaf_new(struct ca *ca, const char *host)
{
	X509_NAME *name = X509_NAME_new();
	cleanup_free char *san = NULL;
	unsigned char a[16];
	X509 *x = NULL;
	bool ip = inet_pton(AF_INET, host, a) == 1 ||
	    inet_pton(AF_INET6, host, a) == 1;

	san = xasprintf("%s:%s", ip ? "IP" : "DNS", host);
	/* The name is in the SAN, where clients look. A CN that looked like
	 * a host name would be checked against the CA's DNS constraints
	 * too, an address's among them. */
	if (name == NULL || !X509_NAME_add_entry_by_txt(name, "CN",
	    MBSTRING_UTF8, (const unsigned char *)"ward gate leaf", -1, -1, 0))
		goto out;
	if ((x = cert_new(ca->leaf_key, name, 29)) == NULL)
		goto out;
	if (!X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) ||
	    !add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE") ||
	    !add_ext(x, ca->cert, NID_key_usage, "critical,digitalSignature") ||
	    !add_ext(x, ca->cert, NID_ext_key_usage, "serverAuth") ||
	    !add_ext(x, ca->cert, NID_authority_key_identifier, "keyid") ||
	    !add_ext(x, ca->cert, NID_subject_alt_name, san) ||
	    !X509_sign(x, ca->key, EVP_sha256())) {
		X509_free(x);
		x = NULL;
	}
out:
	X509_NAME_free(name);
	return x;
}

int
ca_use_leaf(struct ca *ca, SSL *ssl, const char *host)
{
	X509 *x = NULL;

	for (size_t i = 0; i < ca->n_leaves; i++)
		if (strcasecmp(ca->leaves[i].name, host) == 0)
			x = ca->leaves[i].cert;
	if (x == NULL) {
		if ((x = leaf_new(ca, host)) == NULL)
			return -EINVAL;
		ca->leaves = xreallocarray(ca->leaves, ca->n_leaves + 1,
		    sizeof *ca->leaves);
		ca->leaves[ca->n_leaves].name = xstrdup(host);
		ca->leaves[ca->n_leaves++].cert = x;
	}
	if (SSL_use_certificate(ssl, x) != 1 ||
	    SSL_use_PrivateKey(ssl, ca->leaf_key) != 1)
		return -EINVAL;
	return 0;
}
