/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward-gate's loop: one thread, one epoll set (the wire and both ends of
 * every connection), every fd non-blocking and every SSL_read/SSL_write
 * ready for WANT_READ/WANT_WRITE. A connection arrives as GATE_CONN with
 * its two fds: TLS is accepted on the sandbox's end (a leaf for the SNI,
 * which must be the conn's host; ALPN "http/1.1" only), then, once the
 * supervisor's connect completes, TLS made to the real host, verified
 * against the upstream store for the host's name; then flow.c judges
 * the requests and the bytes move through bounded queues.
 */
#include <openssl/x509.h>

#include "config/policy.h"
#include "supervisor/gate/ca.h"
#include "supervisor/gate/secrets.h"

struct relay;

/* The store is the relay's from here (loaded whole beforehand: the
 * loop opens no file). NULL and *cause on error. */
struct relay *relay_new(int wire, const struct policy *,
	    struct secrets *, struct ca *, X509_STORE *upstream,
	    char **cause);
void	relay_free(struct relay *);
/* How long a connection may take from GATE_CONN to relaying (both
 * handshakes, the connect): 30 s unless tests say less. */
void	relay_set_setup_ms(struct relay *, int ms);
/* Until the wire closes: 0, or -errno (-EPROTO: a bad message). */
int	relay_run(struct relay *);
/* The CAs of file, read now into a new store; NULL and *cause. */
X509_STORE *relay_load_store(const char *file, char **cause);
/*
 * The same in two steps, so that parsing (the host's bundle, some 140
 * certificates: 40-50 ms of OpenSSL 3's decoders here) waits for the
 * first connection, and a run that makes none never pays it: the file
 * read whole before READY (an error names it), its certificates added
 * to a store later, from memory (no file opened).
 */
int	relay_read_store(const char *file, char **pem, size_t *len,
	    char **cause);
int	relay_store_add(X509_STORE *, const char *pem, size_t len,
	    char **cause);
/* The upstream store's certificates, parsed into it on the first
 * GATE_CONN (relay_store_add); pem is the relay's from here. */
void	relay_store_later(struct relay *, char *pem, size_t len);
