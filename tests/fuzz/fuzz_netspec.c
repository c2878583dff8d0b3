// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: network entries, one a line ("!ENTRY": a deny entry),
 * through netspec_parse and net_compile; net_match of the compiled trie is
 * checked against the rule it implements, evaluated directly on the entries:
 * of the entries covering the address and matching protocol and port, the
 * longest prefix decides, deny winning a tie; none: deny. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_hosts.h"
#include "policy/netrules.h"

#define MAX_ENTRIES 64

static int covers(const struct net_entry *e, const uint8_t a[16])
{
	unsigned full = e->plen / 8, rest = e->plen % 8;

	if (memcmp(e->addr, a, full))
		return 0;
	return !rest || !((e->addr[full] ^ a[full]) & (0xff00u >> rest));
}

static int reference(const struct net_entry *e, size_t n, const uint8_t addr[16],
		     uint8_t proto, uint16_t port)
{
	uint8_t a[16];
	int best = -1, verdict = AC_NET_DENY;

	memcpy(a, addr, 16);
	net_addr_normalize(a);
	for (size_t i = 0; i < n; i++) {
		if (!covers(&e[i], a) || !(e[i].protos & proto) || port < e[i].lo || port > e[i].hi)
			continue;
		if (e[i].plen > best || (e[i].plen == best && e[i].verdict == AC_NET_DENY)) {
			best = e[i].plen;
			verdict = e[i].verdict;
		}
	}
	return verdict;
}

/* a parsed entry printed by net_format_prefix reads back the same */
static void round_trip(const struct netspec *ns)
{
	struct netspec back;
	char buf[64], err[256];

	net_format_prefix(ns->addr, ns->plen, buf, sizeof(buf));
	if (netspec_parse(buf, &back, err, sizeof(err)) || back.host[0] ||
	    memcmp(back.addr, ns->addr, 16) || back.plen != ns->plen)
		abort();
}

static void probe(const struct net_entry *e, size_t n, const struct netset *s,
		  const uint8_t addr[16], uint16_t port)
{
	static const uint8_t protos[] = { AC_P_TCP, AC_P_UDP, AC_P_OTHER };
	const uint16_t ports[] = { port, (uint16_t)(port - 1), (uint16_t)(port + 1), 0, 65535 };

	for (size_t p = 0; p < sizeof(protos); p++)
		for (size_t q = 0; q < sizeof(ports) / sizeof(ports[0]); q++)
			if (net_match(s, addr, protos[p], ports[q]) !=
			    reference(e, n, addr, protos[p], ports[q]))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct net_entry e[MAX_ENTRIES * 3];
	struct netset s;
	size_t n = 0, lines = 0;
	char *text = malloc(size + 1), *line, *next;
	char err[256];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	for (line = text; line && lines < MAX_ENTRIES; line = next, lines++) {
		struct netspec ns;
		uint8_t verdict = AC_NET_ALLOW;

		if ((next = strchr(line, '\n')))
			*next++ = 0;
		if (*line == '!')
			verdict = AC_NET_DENY, line++;
		if (netspec_parse(line, &ns, err, sizeof(err)))
			continue;
		if (ns.lo > ns.hi || ns.plen > 128 || !ns.protos ||
		    (!ns.has_port && (ns.lo || ns.hi != 65535)))
			abort();
		struct net_host h = { 0 };

		if (ns.host[0]) {
			snprintf(h.name, sizeof(h.name), "%s", ns.host);
			fuzz_fake_resolve(&h);
		} else {
			round_trip(&ns);
			memcpy(h.addrs[0], ns.addr, 16);
			h.n = 1;
		}
		for (size_t i = 0; i < h.n; i++) {
			memcpy(e[n].addr, h.addrs[i], 16);
			e[n].plen = ns.host[0] ? 128 : ns.plen;
			e[n].lo = ns.lo;
			e[n].hi = ns.hi;
			e[n].protos = ns.protos;
			e[n].verdict = verdict;
			n++;
		}
	}
	free(text);
	if (net_compile(e, n, &s, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t a[16];

		memcpy(a, e[i].addr, 16);
		probe(e, n, &s, a, e[i].lo);
		probe(e, n, &s, a, e[i].hi);
		a[15] ^= 1;                 /* the last bit: inside unless the prefix is /128 */
		probe(e, n, &s, a, e[i].lo);
		if (e[i].plen) {            /* the prefix's last bit flipped: outside */
			unsigned b = e[i].plen - 1u;

			memcpy(a, e[i].addr, 16);
			a[b / 8] ^= 0x80 >> (b % 8);
			probe(e, n, &s, a, e[i].hi);
		}
	}
	net_free(&s);
	return 0;
}
