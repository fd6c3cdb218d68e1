/* SPDX-License-Identifier: MIT */
/*
 * The inside: the network. The probes reach only 127.0.0.1 (the sandbox's
 * own loopback), 192.0.2.1 (TEST-NET-1), 169.254.169.254 and a made-up
 * name under .invalid.
 */
#include "probe/inside.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <resolv.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/util.h"

int
probe_in_connect(char **a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int s;

	sa.sin_port = htons((uint16_t)atoi(a[0]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("connect tcp 127.0.0.1", connect(s, (struct sockaddr *)&sa,
	    sizeof sa));
	close(s);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	probe_in_check("connect udp 127.0.0.1", connect(s, (struct sockaddr *)&sa,
	    sizeof sa));
	close(s);
	/* The same port on an address outside (TEST-NET-1): this one
	 * leaves the sandbox's loopback, so it must be asked. */
	sa.sin_addr.s_addr = htonl(0xc0000201);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("connect tcp 192.0.2.1", connect(s, (struct sockaddr *)&sa,
	    sizeof sa));
	close(s);
	return 0;
}

/*
 * The host's listener on 127.0.0.1 by other roads than the plain connect
 * probe: as an IPv4-mapped IPv6 address, at another address of 127/8,
 * with TCP Fast Open (a connect made by sendto), and a connect out that a
 * non-blocking socket makes.
 */
int
probe_in_outside_listener(char **a)
{
	unsigned port = (unsigned)atoi(a[0]);
	struct sockaddr_in lo = probe_in_sa4(INADDR_LOOPBACK, port);
	struct sockaddr_in lo2 = probe_in_sa4(0x7f000002, port);
	struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR, port);
	struct sockaddr_in6 mapped = probe_in_sa6_mapped(INADDR_LOOPBACK, port);
	int s, r, e;

	probe_in_connect_to("connect tcp [::ffff:127.0.0.1]", AF_INET6,
	    SOCK_STREAM, &mapped, sizeof mapped);
	probe_in_connect_to("connect tcp 127.0.0.2", AF_INET, SOCK_STREAM,
	    &lo2, sizeof lo2);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("sendto MSG_FASTOPEN 127.0.0.1", sendto(s, "x", 1,
	    MSG_FASTOPEN, (struct sockaddr *)&lo, sizeof lo));
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	r = connect(s, (struct sockaddr *)&out, sizeof out);
	e = errno;
	probe_in_say("connect tcp 192.0.2.1 non-blocking", r < 0 ? e : 0);
	if (r < 0 && e == EINPROGRESS) {
		struct pollfd pf = { s, POLLOUT, 0 };
		int err = 0;
		socklen_t l = sizeof err;

		(void)poll(&pf, 1, 2000);
		getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &l);
		probe_in_say("connect tcp 192.0.2.1 non-blocking, SO_ERROR",
		    err);
	}
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	probe_in_check("sendto MSG_FASTOPEN 192.0.2.1", sendto(s, "x", 1,
	    MSG_FASTOPEN, (struct sockaddr *)&out, sizeof out));
	close(s);
	return 0;
}

/* Cloud metadata: over IPv4, IPv4-mapped IPv6, and a datagram. */
int
probe_in_metadata(char **a)
{
	struct sockaddr_in m4 = probe_in_sa4(PROBE_META_ADDR, PROBE_META_PORT);
	struct sockaddr_in6 m6 = probe_in_sa6_mapped(PROBE_META_ADDR,
	    PROBE_META_PORT);
	int s;

	(void)a;
	probe_in_connect_to("connect tcp 169.254.169.254:80", AF_INET,
	    SOCK_STREAM, &m4, sizeof m4);
	probe_in_connect_to("connect tcp [::ffff:169.254.169.254]:80",
	    AF_INET6, SOCK_STREAM, &m6, sizeof m6);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	probe_in_check("sendto udp 169.254.169.254:80", sendto(s, "x", 1, 0,
	    (struct sockaddr *)&m4, sizeof m4));
	close(s);
	return 0;
}

/* A name made up for the run, carrying data out in its first label:
 * looked up as A/AAAA over UDP, and as TXT over TCP. */
int
probe_in_dns_exfil(char **a)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM }, *res = NULL;
	struct __res_state st;
	unsigned char ans[1024];
	char what[400], txt[300];
	const char *e;
	int r;

	snprintf(what, sizeof what, "getaddrinfo %s", a[0]);
	r = getaddrinfo(a[0], "443", &hints, &res);
	e = r == 0 ? "ok" : r == EAI_NONAME ? "EAI_NONAME" :
	    r == EAI_AGAIN ? "EAI_AGAIN" : r == EAI_FAIL ? "EAI_FAIL" :
	    r == EAI_NODATA ? "EAI_NODATA" : r == EAI_SYSTEM ? "EAI_SYSTEM" :
	    "EAI_OTHER";
	dprintf(STDOUT_FILENO, "ward-probe: %s: %s: %s\n", probe_in_name,
	    what, e);
	if (res != NULL) {
		for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
			char h[INET6_ADDRSTRLEN] = "?";

			if (ai->ai_family == AF_INET)
				inet_ntop(AF_INET, &((struct sockaddr_in *)
				    ai->ai_addr)->sin_addr, h, sizeof h);
			else if (ai->ai_family == AF_INET6)
				inet_ntop(AF_INET6, &((struct sockaddr_in6 *)
				    ai->ai_addr)->sin6_addr, h, sizeof h);
			dprintf(STDOUT_FILENO, "ward-probe: %s: resolved to "
			    "%s\n", probe_in_name, h);
		}
		freeaddrinfo(res);
	}
	memset(&st, 0, sizeof st);
	snprintf(txt, sizeof txt, "txt.%s", a[0]);
	snprintf(what, sizeof what, "res_nquery TXT %s over TCP", txt);
	if (res_ninit(&st) != 0) {
		probe_in_say("res_ninit", errno != 0 ? errno : EINVAL);
		return 0;
	}
	st.options |= RES_USEVC;
	r = res_nquery(&st, txt, ns_c_in, ns_t_txt, ans, sizeof ans);
	e = r >= 0 ? "ok" : st.res_h_errno == HOST_NOT_FOUND ? "NXDOMAIN" :
	    st.res_h_errno == TRY_AGAIN ? "SERVFAIL" :
	    st.res_h_errno == NO_RECOVERY ? "REFUSED" :
	    st.res_h_errno == NO_DATA ? "NODATA" : "EAI_FAIL";
	dprintf(STDOUT_FILENO, "ward-probe: %s: %s: %s\n", probe_in_name,
	    what, e);
	res_nclose(&st);
	return 0;
}

/*
 * Raw and packet sockets need CAP_NET_RAW. Should one open, hold it
 * long enough to be seen in the sandbox's socket tables from outside,
 * and try to send with it.
 */
int
probe_in_raw_socket(char **a)
{
	static const struct {
		const char	*what;
		int		 family, type, proto;
	} socks[] = {
		{ "socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)", AF_INET, SOCK_RAW,
		  IPPROTO_ICMP },
		{ "socket(AF_INET, SOCK_RAW, IPPROTO_RAW)", AF_INET, SOCK_RAW,
		  IPPROTO_RAW },
		{ "socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6)", AF_INET6,
		  SOCK_RAW, IPPROTO_ICMPV6 },
		{ "socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)", AF_PACKET, SOCK_RAW,
		  0x0300 /* htons(ETH_P_ALL) */ },
		{ "socket(AF_PACKET, SOCK_DGRAM, ETH_P_IP)", AF_PACKET,
		  SOCK_DGRAM, 0x0008 /* htons(ETH_P_IP) */ },
	};
	/* An ICMP echo request with a valid checksum. */
	unsigned char echo[8] = { 8, 0, 0xf7, 0xfe, 0, 1, 0, 0 };
	struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR, 0);
	bool held = false;

	(void)a;
	for (size_t i = 0; i < ARRAY_SIZE(socks); i++) {
		int s = socket(socks[i].family, socks[i].type | SOCK_CLOEXEC,
		    socks[i].proto);

		probe_in_check(socks[i].what, s);
		if (s < 0)
			continue;
		held = true;
		if (socks[i].family == AF_INET)
			probe_in_check("sendto 192.0.2.1 (ICMP echo)",
			    sendto(s, echo, sizeof echo, 0,
			    (struct sockaddr *)&out, sizeof out));
		/* Left open: the harness looks for it from outside. */
	}
	if (held)
		usleep(300 * 1000);
	return 0;
}

/* Datagrams out: sendto, sendmsg, sendmmsg, connect; and one to
 * the host's UDP listener's port on 127.0.0.1 (the sandbox's own). */
int
probe_in_udp(char **a)
{
	unsigned port = (unsigned)atoi(a[0]);
	struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR, port);
	struct sockaddr_in lo = probe_in_sa4(INADDR_LOOPBACK, port);
	char data[] = "ward-probe";
	struct iovec iov = { data, sizeof data - 1 };
	struct msghdr mh = { .msg_name = &out, .msg_namelen = sizeof out,
	    .msg_iov = &iov, .msg_iovlen = 1 };
	struct mmsghdr mm = { .msg_hdr = mh };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0) {
		probe_in_say("socket(AF_INET, SOCK_DGRAM)", errno);
		return 3;
	}
	probe_in_check("sendto udp 192.0.2.1", sendto(s, data, sizeof data - 1,
	    0, (struct sockaddr *)&out, sizeof out));
	probe_in_check("sendmsg udp 192.0.2.1", sendmsg(s, &mh, 0));
	probe_in_check("sendmmsg udp 192.0.2.1", sendmmsg(s, &mm, 1, 0));
	probe_in_check("sendto udp 127.0.0.1", sendto(s, data, sizeof data - 1,
	    0, (struct sockaddr *)&lo, sizeof lo));
	probe_in_check("connect udp 192.0.2.1", connect(s,
	    (struct sockaddr *)&out, sizeof out));
	close(s);
	return 0;
}
