/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The run's CA in ward-gate: an EC P-256 key made at start-up that
 * never leaves memory, its certificate (written for the sandbox to
 * trust), one leaf key for the run and a leaf certificate per name,
 * made on first use and kept.
 */
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "config/policy.h"

struct ca;

/*
 * A CA named "ward run CA <label>", valid from an hour ago for 30 days,
 * its nameConstraints permitting only the names and addresses p
 * intercepts (when every one can be said so). NULL and *cause on error.
 */
struct ca *ca_new(const char *label, const struct policy *p, char **cause);
void	ca_free(struct ca *);
/* The certificate as PEM (owned by ca). */
const char *ca_pem(const struct ca *);
/* Put the leaf for name (DNS name or address) on ssl; 0 or -errno. */
int	ca_use_leaf(struct ca *, SSL *ssl, const char *name);
