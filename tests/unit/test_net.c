// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "policy/netrules.h"

/* ---- helpers ---- */

/* "10.0.0.1" -> ::ffff:10.0.0.1; anything with ':' as IPv6 */
static void ip(const char *s, uint8_t a[16])
{
	memset(a, 0, 16);
	if (strchr(s, ':')) {
		cr_assert_eq(inet_pton(AF_INET6, s, a), 1, "bad test address %s", s);
	} else {
		a[10] = a[11] = 0xff;
		cr_assert_eq(inet_pton(AF_INET, s, a + 12), 1, "bad test address %s", s);
	}
}

static struct netspec parse_ok(const char *s)
{
	struct netspec ns;
	char err[256] = "";

	cr_assert_eq(netspec_parse(s, &ns, err, sizeof(err)), 0, "'%s' rejected: %s", s, err);
	return ns;
}

static void parse_err(const char *s, const char *want)
{
	struct netspec ns;
	char err[256] = "";

	cr_assert_eq(netspec_parse(s, &ns, err, sizeof(err)), -1, "'%s' accepted", s);
	cr_assert(strstr(err, want), "'%s': got error '%s', want '%s'", s, err, want);
	cr_assert(!strchr(err, '\n'), "'%s': multi-line error '%s'", s, err);
}

static void assert_addr(const struct netspec *ns, const char *addr, unsigned plen)
{
	uint8_t a[16];
	char got[64];

	ip(addr, a);
	net_format_prefix(ns->addr, ns->plen, got, sizeof(got));
	cr_assert_eq(memcmp(ns->addr, a, 16), 0, "address %s, want %s", got, addr);
	cr_assert_eq(ns->plen, plen, "plen %u, want %u", ns->plen, plen);
	cr_assert_str_empty(ns->host);
}

static void assert_ports(const struct netspec *ns, unsigned lo, unsigned hi, int has_port,
			 unsigned protos)
{
	cr_assert_eq(ns->lo, lo);
	cr_assert_eq(ns->hi, hi);
	cr_assert_eq(ns->has_port, has_port);
	cr_assert_eq(ns->protos, protos, "protos 0x%x, want 0x%x", ns->protos, protos);
}

static struct netset set;

static void teardown(void)
{
	net_free(&set);
}

#define MAXE 4096
static struct net_entry ents[MAXE];
static size_t nents;

/* add a parsed entry; hostnames are "resolved" to `resolved` */
static void add(const char *spec, int verdict, const char *resolved)
{
	struct netspec ns = parse_ok(spec);
	struct net_entry *e = &ents[nents++];

	cr_assert_lt(nents, MAXE);
	memset(e, 0, sizeof(*e));
	if (ns.host[0]) {
		cr_assert(resolved, "%s needs a resolved address", spec);
		ip(resolved, e->addr);
		e->plen = 128;
	} else {
		memcpy(e->addr, ns.addr, 16);
		e->plen = ns.plen;
	}
	e->lo = ns.lo;
	e->hi = ns.hi;
	e->protos = ns.protos;
	e->verdict = (uint8_t)verdict;
}

static void allow(const char *spec) { add(spec, AC_NET_ALLOW, NULL); }
static void deny(const char *spec) { add(spec, AC_NET_DENY, NULL); }

static void build(void)
{
	char err[256] = "";

	cr_assert_eq(net_compile(ents, nents, &set, err, sizeof(err)), 0, "%s", err);
}

static int m(const char *addr, uint8_t proto, uint16_t port)
{
	uint8_t a[16];

	ip(addr, a);
	return net_match(&set, a, proto, port);
}

#define ALLOWED(addr, proto, port) \
	cr_assert_eq(m(addr, proto, port), AC_NET_ALLOW, "%s %s:%u should be allowed", #proto, addr, port)
#define DENIED(addr, proto, port) \
	cr_assert_eq(m(addr, proto, port), AC_NET_DENY, "%s %s:%u should be denied", #proto, addr, port)

static void reset(void)
{
	nents = 0;
	net_free(&set);
}

TestSuite(net, .init = reset, .fini = teardown);

/* ---- parsing: the grammar forms ---- */

Test(net, parse_ipv4_host_port)
{
	struct netspec ns = parse_ok("127.0.0.1:8080");

	assert_addr(&ns, "127.0.0.1", 128);
	assert_ports(&ns, 8080, 8080, 1, AC_P_TCP | AC_P_UDP);
}

Test(net, parse_ipv4_prefix)
{
	struct netspec ns = parse_ok("10.0.0.0/8");

	assert_addr(&ns, "10.0.0.0", 104);
	assert_ports(&ns, 0, 65535, 0, AC_P_ANY);
	ns = parse_ok("0.0.0.0/0");
	assert_addr(&ns, "0.0.0.0", 96);
	ns = parse_ok("10.0.0.5/32");
	assert_addr(&ns, "10.0.0.5", 128);
}

Test(net, parse_ipv4_single)
{
	struct netspec ns = parse_ok("10.0.0.5");

	assert_addr(&ns, "10.0.0.5", 128);
	assert_ports(&ns, 0, 65535, 0, AC_P_ANY);
}

Test(net, parse_ipv6_brackets_prefix_port)
{
	struct netspec ns = parse_ok("[2001:db8::/32]:443");

	assert_addr(&ns, "2001:db8::", 32);
	assert_ports(&ns, 443, 443, 1, AC_P_TCP | AC_P_UDP);
	ns = parse_ok("[::1]:53/udp");
	assert_addr(&ns, "::1", 128);
	assert_ports(&ns, 53, 53, 1, AC_P_UDP);
	ns = parse_ok("[fe80::/10]:1000-2000/tcp");
	assert_addr(&ns, "fe80::", 10);
	assert_ports(&ns, 1000, 2000, 1, AC_P_TCP);
	ns = parse_ok("[2001:db8::1]");
	assert_addr(&ns, "2001:db8::1", 128);
	assert_ports(&ns, 0, 65535, 0, AC_P_ANY);
	ns = parse_ok("[2001:db8::1]/tcp");
	assert_ports(&ns, 0, 65535, 0, AC_P_TCP);
}

Test(net, parse_ipv4_prefix_range_proto)
{
	struct netspec ns = parse_ok("192.168.1.0/24:8000-8999/tcp");

	assert_addr(&ns, "192.168.1.0", 120);
	assert_ports(&ns, 8000, 8999, 1, AC_P_TCP);
}

Test(net, parse_hostname_port)
{
	struct netspec ns = parse_ok("api.example.com:443");
	static const uint8_t zero[16];

	cr_assert_str_eq(ns.host, "api.example.com");
	cr_assert_eq(memcmp(ns.addr, zero, 16), 0);
	cr_assert_eq(ns.plen, 0);
	assert_ports(&ns, 443, 443, 1, AC_P_TCP | AC_P_UDP);
}

Test(net, parse_bare_ipv6)
{
	struct netspec ns = parse_ok("2001:db8::1");

	assert_addr(&ns, "2001:db8::1", 128);
	assert_ports(&ns, 0, 65535, 0, AC_P_ANY);
	ns = parse_ok("2001:db8::/32/udp");
	assert_addr(&ns, "2001:db8::", 32);
	assert_ports(&ns, 0, 65535, 0, AC_P_UDP);
	ns = parse_ok("::1");
	assert_addr(&ns, "::1", 128);
	ns = parse_ok("::/0");
	assert_addr(&ns, "::", 0);
	/* eight groups: an address, never ADDR:PORT */
	ns = parse_ok("2001:db8::1:443");
	assert_addr(&ns, "2001:db8::1:443", 128);
	cr_assert_eq(ns.has_port, 0);
}

Test(net, parse_ipv4_mapped_and_compatible)
{
	struct netspec ns = parse_ok("::ffff:10.0.0.1");

	assert_addr(&ns, "10.0.0.1", 128);
	ns = parse_ok("::10.0.0.1");
	assert_addr(&ns, "10.0.0.1", 128);
	ns = parse_ok("[::10.0.0.0/120]:80");
	assert_addr(&ns, "10.0.0.0", 120);
	assert_ports(&ns, 80, 80, 1, AC_P_TCP | AC_P_UDP);
	ns = parse_ok("[::ffff:10.0.0.0/104]");
	assert_addr(&ns, "10.0.0.0", 104);
	/* :: and ::1 stay themselves */
	ns = parse_ok("::");
	assert_addr(&ns, "::", 128);
	ns = parse_ok("::0.0.0.1");
	assert_addr(&ns, "::1", 128);
	/* an IPv6 prefix shorter than 96 is not an IPv4 one */
	ns = parse_ok("::/64");
	assert_addr(&ns, "::", 64);
	ns = parse_ok("::/96");
	assert_addr(&ns, "::", 96);
}

Test(net, parse_protocol_defaults)
{
	struct netspec ns = parse_ok("10.0.0.1");

	assert_ports(&ns, 0, 65535, 0, AC_P_ANY);
	ns = parse_ok("10.0.0.1:80");
	assert_ports(&ns, 80, 80, 1, AC_P_TCP | AC_P_UDP);
	ns = parse_ok("10.0.0.1/udp");
	assert_ports(&ns, 0, 65535, 0, AC_P_UDP);
	ns = parse_ok("10.0.0.1/tcp");
	assert_ports(&ns, 0, 65535, 0, AC_P_TCP);
	ns = parse_ok("10.0.0.0/8/tcp");
	assert_addr(&ns, "10.0.0.0", 104);
	assert_ports(&ns, 0, 65535, 0, AC_P_TCP);
	ns = parse_ok("10.0.0.1:53/udp");
	assert_ports(&ns, 53, 53, 1, AC_P_UDP);
	ns = parse_ok("example.com/udp");
	cr_assert_str_eq(ns.host, "example.com");
	assert_ports(&ns, 0, 65535, 0, AC_P_UDP);
}

Test(net, parse_port_edges)
{
	struct netspec ns = parse_ok("10.0.0.1:0");

	assert_ports(&ns, 0, 0, 1, AC_P_TCP | AC_P_UDP);
	ns = parse_ok("10.0.0.1:65535");
	assert_ports(&ns, 65535, 65535, 1, AC_P_TCP | AC_P_UDP);
	ns = parse_ok("10.0.0.1:0-65535");
	assert_ports(&ns, 0, 65535, 1, AC_P_TCP | AC_P_UDP);
	ns = parse_ok("10.0.0.1:80-80");
	assert_ports(&ns, 80, 80, 1, AC_P_TCP | AC_P_UDP);
}

Test(net, parse_hostnames)
{
	char name[300];
	struct netspec ns = parse_ok("localhost");

	cr_assert_str_eq(ns.host, "localhost");
	assert_ports(&ns, 0, 65535, 0, AC_P_ANY);
	ns = parse_ok("Example.COM.");
	cr_assert_str_eq(ns.host, "example.com");
	ns = parse_ok("a-b.c0.d:22");
	cr_assert_str_eq(ns.host, "a-b.c0.d");
	ns = parse_ok("3com.com");
	cr_assert_str_eq(ns.host, "3com.com");

	/* 63-byte label fine, 64 not */
	memset(name, 'a', 63);
	strcpy(name + 63, ".com");
	ns = parse_ok(name);
	cr_assert_str_eq(ns.host, name);
	memset(name, 'a', 64);
	strcpy(name + 64, ".com");
	parse_err(name, "not a valid");

	/* 253 bytes fine, 254 not */
	for (int i = 0; i < 4; i++) {
		memset(name + i * 64, 'b', 63);
		name[i * 64 + 63] = '.';
	}
	name[253] = 0;   /* 4 x 63 + 3 dots = 255 -> cut to 253 ending in 'b' */
	cr_assert_neq(name[252], '.');
	ns = parse_ok(name);
	cr_assert_eq(strlen(ns.host), 253);
	name[253] = 'b';
	name[254] = 0;
	parse_err(name, "not a valid");
}

/* ---- parsing: rejections ---- */

Test(net, reject_empty_and_bad_addresses)
{
	parse_err("", "empty");
	parse_err("10.0.0.300", "not a valid IPv4 address");
	parse_err("10.0.0", "not a valid IPv4 address");
	parse_err("1.2.3.4.5", "not a valid IPv4 address");
	parse_err("10.0.0.300:80", "not a valid IPv4 address");
	parse_err("123", "not a valid IPv4 address");
	parse_err("[10.0.0.1]:80", "not a valid IPv6 address");
	parse_err("[]", "missing IPv6 address");
	parse_err("2001:db8:::1", "not a valid IPv6 address");
	parse_err("[2001:db8::g]", "not a valid IPv6 address");
	parse_err(":80", "missing address");
	parse_err("/24", "missing address");
	parse_err("/tcp", "missing address");
}

Test(net, reject_prefix_out_of_range)
{
	parse_err("10.0.0.0/33", "out of range (IPv4: 0-32)");
	parse_err("10.0.0.0/999999", "out of range");
	parse_err("[2001:db8::/129]", "out of range (IPv6: 0-128)");
	parse_err("2001:db8::/200", "out of range (IPv6: 0-128)");
	parse_err("10.0.0.0/", "prefix length");
	parse_err("10.0.0.0/-1", "prefix length");
	parse_err("10.0.0.0/8/16", "prefix length");
}

Test(net, reject_host_bits)
{
	struct netspec ns;
	char err[256];

	cr_assert_eq(netspec_parse("10.0.0.5/8", &ns, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "10.0.0.5/8 has host bits set; did you mean 10.0.0.0/8?");
	parse_err("192.168.1.1/24:80", "did you mean 192.168.1.0/24?");
	parse_err("[2001:db8::1/32]:443", "did you mean 2001:db8::/32?");
	parse_err("2001:db8::1/32", "2001:db8::1/32 has host bits set");
	parse_err("10.0.0.1/0", "did you mean 0.0.0.0/0?");
}

Test(net, reject_ports)
{
	parse_err("10.0.0.1:abc", "not a number");
	parse_err("10.0.0.1:", "missing port");
	parse_err("10.0.0.1:65536", "out of range");
	parse_err("10.0.0.1:99999999", "out of range");
	parse_err("10.0.0.1:1-65536", "out of range");
	parse_err("10.0.0.1:90-80", "reversed");
	parse_err("10.0.0.1:80-", "not a number");
	parse_err("10.0.0.1:-80", "not a number");
	parse_err("[::1]:", "missing port");
	parse_err("[::1]:http", "not a number");
	parse_err("example.com:x", "not a number");
}

Test(net, reject_protocols)
{
	parse_err("10.0.0.1/icmp", "protocol must be tcp or udp");
	parse_err("10.0.0.1:80/sctp", "protocol must be tcp or udp");
	parse_err("10.0.0.1/TCP", "protocol must be tcp or udp");
	parse_err("[::1]:53/Udp", "protocol must be tcp or udp");
	parse_err("2001:db8::/32/icmp6", "protocol must be tcp or udp");
	parse_err("example.com:443/quic", "protocol must be tcp or udp");
}

Test(net, reject_port_on_bare_ipv6)
{
	parse_err("2001:db8::/32:443", "IPv6 with a port needs brackets: [ADDR]:PORT");
	parse_err("2001:db8:1:2:3:4:5:6:443", "IPv6 with a port needs brackets");
	parse_err("::1:80-90", "IPv6 with a port needs brackets");
}

Test(net, reject_junk)
{
	parse_err("10.0.0.1 ", "unexpected");
	parse_err(" 10.0.0.1", "unexpected");
	parse_err("10.0.0.1;", "unexpected");
	parse_err("10.0.0.1:80x", "not a number");
	parse_err("[::1]x", "unexpected");
	parse_err("[::1]/", "unexpected");
	parse_err("[::1", "missing ']'");
	parse_err("[[::1]]", "unexpected");
	parse_err("::1]", "unexpected");
	parse_err("fe80::1%eth0", "unexpected");
	parse_err("10.0.0.1\n", "unexpected");
	parse_err("10.0.0.1:80:90", "not a valid IPv6 address");
}

Test(net, reject_bad_hostnames)
{
	parse_err("-a.com", "not a valid");
	parse_err("a-.com", "not a valid");
	parse_err("a..com", "not a valid");
	parse_err(".com", "not a valid");
	parse_err(".", "not a valid");
	parse_err("a.com..", "not a valid");
	parse_err("under_score.com", "unexpected");
	parse_err("example.com/24", "cannot have a prefix");
	parse_err("example.com/24:443", "cannot have a prefix");
}

/* ---- helpers exported by netrules ---- */

Test(net, normalize)
{
	uint8_t a[16], want[16];

	ip("::10.1.2.3", a);
	net_addr_normalize(a);
	ip("10.1.2.3", want);
	cr_assert_eq(memcmp(a, want, 16), 0);
	ip("::0.0.0.2", a);
	net_addr_normalize(a);
	ip("0.0.0.2", want);
	cr_assert_eq(memcmp(a, want, 16), 0);
	ip("::1", a);
	net_addr_normalize(a);
	ip("::1", want);
	cr_assert_eq(memcmp(a, want, 16), 0);
	ip("::", a);
	net_addr_normalize(a);
	ip("::", want);
	cr_assert_eq(memcmp(a, want, 16), 0);
	ip("2001:db8::10.0.0.1", a);
	memcpy(want, a, 16);
	net_addr_normalize(a);
	cr_assert_eq(memcmp(a, want, 16), 0);
	ip("::ffff:10.0.0.1", a);
	memcpy(want, a, 16);
	net_addr_normalize(a);
	cr_assert_eq(memcmp(a, want, 16), 0);
}

static void fmt(const char *addr, unsigned plen, const char *want)
{
	uint8_t a[16];
	char buf[64];

	ip(addr, a);
	net_format_prefix(a, (uint8_t)plen, buf, sizeof(buf));
	cr_assert_str_eq(buf, want);
}

Test(net, format_prefix)
{
	fmt("10.0.0.0", 104, "10.0.0.0/8");
	fmt("192.0.2.1", 128, "192.0.2.1");
	fmt("0.0.0.0", 96, "0.0.0.0/0");
	fmt("2001:db8::", 32, "2001:db8::/32");
	fmt("::1", 128, "::1");
	fmt("::", 0, "::/0");
	fmt("::ffff:0:0", 80, "::ffff:0.0.0.0/80");
}

/* ---- compiling and matching ---- */

Test(net, example_policy)
{
	allow("127.0.0.1:8080");
	allow("10.0.0.0/8");
	allow("[2001:db8::/32]:443");
	allow("192.168.1.0/24:8000-8999/tcp");
	add("api.example.com:443", AC_NET_ALLOW, "203.0.113.7");
	deny("10.0.0.5");
	build();

	ALLOWED("127.0.0.1", AC_P_TCP, 8080);
	ALLOWED("127.0.0.1", AC_P_UDP, 8080);
	DENIED("127.0.0.1", AC_P_TCP, 8081);
	DENIED("127.0.0.1", AC_P_OTHER, 0);
	DENIED("127.0.0.2", AC_P_TCP, 8080);

	ALLOWED("10.1.2.3", AC_P_TCP, 1);
	ALLOWED("10.255.255.255", AC_P_UDP, 65535);
	ALLOWED("10.0.0.1", AC_P_OTHER, 0);
	DENIED("11.0.0.0", AC_P_TCP, 80);
	DENIED("9.255.255.255", AC_P_TCP, 80);
	DENIED("10.0.0.5", AC_P_TCP, 80);
	DENIED("10.0.0.5", AC_P_OTHER, 0);
	ALLOWED("10.0.0.6", AC_P_TCP, 80);
	ALLOWED("10.0.0.4", AC_P_TCP, 80);

	ALLOWED("2001:db8::1", AC_P_TCP, 443);
	ALLOWED("2001:db8:ffff::1", AC_P_UDP, 443);
	DENIED("2001:db8::1", AC_P_TCP, 80);
	DENIED("2001:db9::1", AC_P_TCP, 443);

	ALLOWED("192.168.1.77", AC_P_TCP, 8000);
	ALLOWED("192.168.1.77", AC_P_TCP, 8999);
	DENIED("192.168.1.77", AC_P_TCP, 7999);
	DENIED("192.168.1.77", AC_P_TCP, 9000);
	DENIED("192.168.1.77", AC_P_UDP, 8500);
	DENIED("192.168.2.1", AC_P_TCP, 8500);

	ALLOWED("203.0.113.7", AC_P_TCP, 443);
	DENIED("203.0.113.7", AC_P_TCP, 80);

	/* 10.0.0.0/8 and 10.0.0.5/32 cover 10.0.0.5: both rules there, deny first */
	cr_assert_eq(set.n, 6);
	for (size_t i = 0; i < set.n; i++) {
		char pf[64];

		net_format_prefix(set.nodes[i].addr, set.nodes[i].plen, pf, sizeof(pf));
		if (strcmp(pf, "10.0.0.5"))
			continue;
		cr_assert_eq(set.nodes[i].val.n, 2);
		cr_assert_eq(set.nodes[i].val.r[0].verdict, AC_NET_DENY);
		cr_assert_eq(set.nodes[i].val.r[0].plen, 128);
		cr_assert_eq(set.nodes[i].val.r[1].verdict, AC_NET_ALLOW);
		cr_assert_eq(set.nodes[i].val.r[1].plen, 104);
		return;
	}
	cr_assert_fail("no node for 10.0.0.5");
}

Test(net, deny_inside_allow)
{
	allow("10.0.0.0/8");
	deny("10.0.0.5");
	build();
	DENIED("10.0.0.5", AC_P_TCP, 443);
	ALLOWED("10.0.0.6", AC_P_TCP, 443);
}

Test(net, allow_inside_deny)
{
	deny("10.0.0.0/8");
	allow("10.0.0.5");
	build();
	ALLOWED("10.0.0.5", AC_P_TCP, 443);
	DENIED("10.0.0.6", AC_P_TCP, 443);
}

Test(net, deny_beats_allow_on_same_prefix)
{
	allow("10.0.0.0/8");
	deny("10.0.0.0/8");
	build();
	DENIED("10.1.1.1", AC_P_TCP, 80);
	reset();
	deny("10.0.0.0/8:443");
	allow("10.0.0.0/8:443");
	allow("10.0.0.0/8:80");
	build();
	DENIED("10.1.1.1", AC_P_TCP, 443);
	ALLOWED("10.1.1.1", AC_P_TCP, 80);
}

Test(net, longer_deny_port_only_denies_that_port)
{
	allow("10.0.0.0/8");
	deny("10.1.0.0/16:22/tcp");
	build();
	DENIED("10.1.2.3", AC_P_TCP, 22);
	ALLOWED("10.1.2.3", AC_P_UDP, 22);
	ALLOWED("10.1.2.3", AC_P_TCP, 23);
	ALLOWED("10.2.0.1", AC_P_TCP, 22);
}

Test(net, longer_port_rule_does_not_hide_shorter_ports)
{
	allow("10.0.0.0/8:443");
	allow("10.1.0.0/16:80");
	build();
	ALLOWED("10.1.2.3", AC_P_TCP, 443);
	ALLOWED("10.1.2.3", AC_P_TCP, 80);
	ALLOWED("10.2.2.3", AC_P_TCP, 443);
	DENIED("10.2.2.3", AC_P_TCP, 80);
	DENIED("10.1.2.3", AC_P_TCP, 22);
}

Test(net, protocol_bits)
{
	allow("10.0.0.1:53/udp");
	allow("10.0.0.2");
	allow("10.0.0.3:80");
	allow("10.0.0.4/tcp");
	build();
	ALLOWED("10.0.0.1", AC_P_UDP, 53);
	DENIED("10.0.0.1", AC_P_TCP, 53);
	DENIED("10.0.0.1", AC_P_OTHER, 0);
	ALLOWED("10.0.0.2", AC_P_OTHER, 0);
	ALLOWED("10.0.0.2", AC_P_TCP, 1234);
	ALLOWED("10.0.0.2", AC_P_UDP, 1234);
	ALLOWED("10.0.0.3", AC_P_TCP, 80);
	ALLOWED("10.0.0.3", AC_P_UDP, 80);
	DENIED("10.0.0.3", AC_P_OTHER, 0);
	DENIED("10.0.0.3", AC_P_OTHER, 80);
	ALLOWED("10.0.0.4", AC_P_TCP, 9);
	DENIED("10.0.0.4", AC_P_UDP, 9);
	DENIED("10.0.0.4", AC_P_OTHER, 0);
}

Test(net, mapped_and_compatible_addresses_match_ipv4_rules)
{
	allow("10.0.0.0/8:443");
	allow("::10.20.0.1");
	build();
	ALLOWED("::ffff:10.1.2.3", AC_P_TCP, 443);
	ALLOWED("::10.1.2.3", AC_P_TCP, 443);
	DENIED("::10.1.2.3", AC_P_TCP, 80);
	ALLOWED("10.20.0.1", AC_P_UDP, 5);
	ALLOWED("::10.20.0.1", AC_P_UDP, 5);
	DENIED("2001:db8::10.1.2.3", AC_P_TCP, 443);
	DENIED("::1", AC_P_TCP, 443);
}

Test(net, special_addresses_denied_unless_listed)
{
	allow("10.0.0.0/8");
	allow("2001:db8::/32");
	build();
	DENIED("::1", AC_P_TCP, 80);
	DENIED("::", AC_P_TCP, 80);
	DENIED("0.0.0.0", AC_P_TCP, 80);
	DENIED("169.254.169.254", AC_P_TCP, 80);
	DENIED("127.0.0.1", AC_P_TCP, 80);
	reset();
	allow("::1");
	allow("0.0.0.0");
	allow("169.254.169.254:80");
	build();
	ALLOWED("::1", AC_P_TCP, 80);
	ALLOWED("0.0.0.0", AC_P_TCP, 80);
	ALLOWED("169.254.169.254", AC_P_TCP, 80);
	DENIED("169.254.169.254", AC_P_TCP, 443);
	DENIED("127.0.0.1", AC_P_TCP, 80);
	DENIED("::2", AC_P_TCP, 80);
}

Test(net, ipv6_and_ipv4_spaces_are_one)
{
	allow("::/0");
	deny("2001:db8::/32");
	build();
	ALLOWED("10.0.0.1", AC_P_TCP, 80);
	ALLOWED("2001:db9::1", AC_P_TCP, 80);
	DENIED("2001:db8::1", AC_P_TCP, 80);
	reset();
	allow("0.0.0.0/0");
	build();
	ALLOWED("1.2.3.4", AC_P_TCP, 80);
	DENIED("2001:db8::1", AC_P_TCP, 80);
	DENIED("::1", AC_P_TCP, 80);
}

Test(net, empty_set_denies_everything)
{
	char err[64];
	uint8_t a[16];

	cr_assert_eq(net_compile(NULL, 0, &set, err, sizeof(err)), 0);
	cr_assert_eq(set.n, 0);
	DENIED("10.0.0.1", AC_P_TCP, 80);
	DENIED("::1", AC_P_UDP, 53);
	DENIED("0.0.0.0", AC_P_OTHER, 0);
	ip("1.1.1.1", a);
	cr_assert_eq(net_match(NULL, a, AC_P_TCP, 80), AC_NET_DENY);
}

Test(net, rule_order_and_duplicates)
{
	allow("10.0.0.0/8:80");
	allow("10.1.0.0/16:81");
	deny("10.0.0.0/8:82");
	allow("10.1.0.0/16:81");    /* duplicate */
	deny("10.1.0.0/16:83");
	allow("10.0.0.0/8:84");
	allow("10.0.0.0/8:80");     /* duplicate */
	build();
	cr_assert_eq(set.n, 2);
	for (size_t i = 0; i < set.n; i++) {
		const struct ac_net_val *v = &set.nodes[i].val;

		if (set.nodes[i].plen == 104) {
			cr_assert_eq(v->n, 3);
			cr_assert_eq(v->r[0].lo, 82);
			cr_assert_eq(v->r[0].verdict, AC_NET_DENY);
			cr_assert_eq(v->r[1].lo, 80);
			cr_assert_eq(v->r[2].lo, 84);
			continue;
		}
		cr_assert_eq(set.nodes[i].plen, 112);
		cr_assert_eq(v->n, 5);
		static const unsigned want_lo[] = { 83, 81, 82, 80, 84 };
		static const unsigned want_plen[] = { 112, 112, 104, 104, 104 };
		for (int j = 0; j < 5; j++) {
			cr_assert_eq(v->r[j].lo, want_lo[j], "rule %d lo %u", j, v->r[j].lo);
			cr_assert_eq(v->r[j].hi, want_lo[j]);
			cr_assert_eq(v->r[j].plen, want_plen[j]);
			cr_assert_eq(v->r[j].protos, AC_P_TCP | AC_P_UDP);
		}
	}
}

Test(net, unmasked_entries_in_any_order)
{
	struct net_entry e[3];
	char err[128];

	memset(e, 0, sizeof(e));
	/* 10.1.2.3/16 given with host bits: compile masks it */
	ip("10.1.2.3", e[0].addr);
	e[0].plen = 112;
	e[0].lo = 0;
	e[0].hi = 65535;
	e[0].protos = AC_P_ANY;
	e[0].verdict = AC_NET_DENY;
	ip("10.200.0.0", e[1].addr);
	e[1].plen = 104;
	e[1].hi = 65535;
	e[1].protos = AC_P_ANY;
	e[1].verdict = AC_NET_ALLOW;
	ip("10.1.0.0", e[2].addr);
	e[2].plen = 112;
	e[2].lo = 0;
	e[2].hi = 65535;
	e[2].protos = AC_P_ANY;
	e[2].verdict = AC_NET_DENY;
	cr_assert_eq(net_compile(e, 3, &set, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(set.n, 2);
	for (size_t i = 0; i < set.n; i++) {
		uint8_t want[16];

		ip(set.nodes[i].plen == 104 ? "10.0.0.0" : "10.1.0.0", want);
		cr_assert_eq(memcmp(set.nodes[i].addr, want, 16), 0);
		/* the two /16 entries are one rule after masking */
		cr_assert_eq(set.nodes[i].val.n, set.nodes[i].plen == 104 ? 1u : 2u);
	}
	DENIED("10.1.99.99", AC_P_TCP, 1);
	ALLOWED("10.2.0.0", AC_P_TCP, 1);
}

Test(net, too_many_rules)
{
	char spec[64], err[256];
	int i;

	for (i = 0; i < 32; i++) {
		snprintf(spec, sizeof(spec), "10.0.0.0/8:%d", 1000 + i);
		allow(spec);
	}
	allow("10.0.0.0/8:1000");   /* a duplicate does not count */
	build();
	cr_assert_eq(set.n, 1);
	cr_assert_eq(set.nodes[0].val.n, 32);
	ALLOWED("10.9.9.9", AC_P_TCP, 1031);
	DENIED("10.9.9.9", AC_P_TCP, 1032);
	net_free(&set);

	allow("10.0.0.0/8:2000");
	cr_assert_eq(net_compile(ents, nents, &set, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "too many rules cover 10.0.0.0/8: 33, at most 32 (merge ports into ranges)");
	cr_assert_null(set.nodes);
	cr_assert_eq(set.n, 0);

	/* covering rules count on the longer prefix */
	reset();
	for (i = 0; i < 20; i++) {
		snprintf(spec, sizeof(spec), "10.0.0.0/8:%d", 1000 + i);
		allow(spec);
	}
	for (i = 0; i < 13; i++) {
		snprintf(spec, sizeof(spec), "10.1.0.0/16:%d", 2000 + i);
		deny(spec);
	}
	cr_assert_eq(net_compile(ents, nents, &set, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "too many rules cover 10.1.0.0/16: 33, at most 32 (merge ports into ranges)");
}

Test(net, free_zeroes)
{
	allow("10.0.0.0/8");
	build();
	cr_assert_not_null(set.nodes);
	net_free(&set);
	cr_assert_null(set.nodes);
	cr_assert_eq(set.n, 0);
	net_free(&set);
}

/* ---- randomized cross-check against the precedence rule ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	/* xorshift64*: fixed seed, same sequence everywhere */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static int covers(const uint8_t p[16], unsigned plen, const uint8_t a[16])
{
	for (unsigned i = 0; i < plen; i++) {
		unsigned bit = 0x80u >> (i % 8);

		if ((p[i / 8] & bit) != (a[i / 8] & bit))
			return 0;
	}
	return 1;
}

/* the policy as written: the longest covering entry matching protocol and
 * port decides, deny wins a tie; nothing matches: deny */
static int brute(const struct net_entry *e, size_t n, const uint8_t a[16], uint8_t proto, uint16_t port)
{
	int best = -1, v = AC_NET_DENY;

	for (size_t i = 0; i < n; i++) {
		if (!(e[i].protos & proto) || port < e[i].lo || port > e[i].hi ||
		    !covers(e[i].addr, e[i].plen, a))
			continue;
		if (e[i].plen > best) {
			best = e[i].plen;
			v = e[i].verdict;
		} else if (e[i].plen == best && e[i].verdict == AC_NET_DENY) {
			v = AC_NET_DENY;
		}
	}
	return v;
}

/* the distinct (prefix, rule) pairs accepted so far and the per-prefix count
 * of distinct pairs covering it, to keep every node within AC_NET_RULES */
static struct net_entry pairs[MAXE];
static size_t npairs;
static struct { uint8_t a[16]; uint8_t plen; unsigned cnt; } pfx[MAXE];
static size_t npfx;

static void masked(const uint8_t a[16], unsigned plen, uint8_t out[16])
{
	for (unsigned i = 0; i < 128; i++) {
		unsigned bit = 0x80u >> (i % 8);

		if (i < plen)
			out[i / 8] = (uint8_t)((out[i / 8] & ~bit) | (a[i / 8] & bit));
		else
			out[i / 8] &= (uint8_t)~bit;
	}
}

static int try_accept(const struct net_entry *c)
{
	struct net_entry k = *c;
	size_t i, own = npfx;
	unsigned newcnt = 0;

	masked(c->addr, c->plen, k.addr);
	for (i = 0; i < npairs; i++)
		if (!memcmp(pairs[i].addr, k.addr, 16) && pairs[i].plen == k.plen &&
		    pairs[i].lo == k.lo && pairs[i].hi == k.hi && pairs[i].protos == k.protos &&
		    pairs[i].verdict == k.verdict)
			return 1;   /* a duplicate adds no rule anywhere */
	for (i = 0; i < npfx; i++) {
		if (pfx[i].plen == k.plen && !memcmp(pfx[i].a, k.addr, 16))
			own = i;
		if (pfx[i].plen >= k.plen && covers(k.addr, k.plen, pfx[i].a) &&
		    pfx[i].cnt + 1 > AC_NET_RULES)
			return 0;
	}
	if (own == npfx) {
		for (i = 0; i < npairs; i++)
			if (pairs[i].plen <= k.plen && covers(pairs[i].addr, pairs[i].plen, k.addr))
				newcnt++;
		if (newcnt + 1 > AC_NET_RULES)
			return 0;
	}
	for (i = 0; i < npfx; i++)
		if (pfx[i].plen >= k.plen && covers(k.addr, k.plen, pfx[i].a))
			pfx[i].cnt++;
	if (own == npfx) {
		memcpy(pfx[npfx].a, k.addr, 16);
		pfx[npfx].plen = k.plen;
		pfx[npfx].cnt = newcnt + 1;
		npfx++;
	}
	pairs[npairs++] = k;
	return 1;
}

static const struct { uint16_t lo, hi; } portset[] = {
	{ 22, 22 }, { 53, 53 }, { 80, 80 }, { 443, 443 }, { 8080, 8080 },
	{ 8000, 8999 }, { 1, 1023 }, { 400, 500 }, { 0, 65535 },
};
#define NPORTS (sizeof(portset) / sizeof(portset[0]))

static void rand_v4(uint8_t a[16], unsigned third_range)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	a[12] = 10;
	a[13] = 0;
	a[14] = (uint8_t)(rnd() % third_range);
	a[15] = (uint8_t)rnd();
}

Test(net, randomized_against_brute_force)
{
	char err[256];
	size_t attempts = 0, i, nallow = 0, ndeny = 0, nmax = 0;

	npairs = npfx = 0;
	while (nents < 2000 && attempts++ < 50000) {
		struct net_entry c;
		uint32_t r = rnd();

		memset(&c, 0, sizeof(c));
		rand_v4(c.addr, 16);               /* 10.0.0.0/20, host bits left for compile to mask */
		c.plen = (uint8_t)(96 + 8 + rnd() % 25);
		if (r % 3 == 0) {                  /* no port */
			static const uint8_t pp[] = { AC_P_ANY, AC_P_TCP, AC_P_UDP, AC_P_TCP | AC_P_UDP };

			c.lo = 0;
			c.hi = 65535;
			c.protos = pp[(r >> 4) % 4];
		} else {
			static const uint8_t pp[] = { AC_P_TCP, AC_P_UDP, AC_P_TCP | AC_P_UDP };

			c.lo = portset[(r >> 4) % NPORTS].lo;
			c.hi = portset[(r >> 4) % NPORTS].hi;
			c.protos = pp[(r >> 12) % 3];
		}
		c.verdict = (r >> 20) & 1 ? AC_NET_DENY : AC_NET_ALLOW;
		if (try_accept(&c))
			ents[nents++] = c;
	}
	cr_assert_geq(nents, 1500, "only %zu entries fit", nents);
	cr_assert_eq(net_compile(ents, nents, &set, err, sizeof(err)), 0, "%s", err);

	/* every node carries exactly the distinct rules covering it */
	cr_assert_eq(set.n, npfx);
	for (i = 0; i < set.n; i++) {
		size_t j;

		for (j = 0; j < npfx; j++)
			if (pfx[j].plen == set.nodes[i].plen && !memcmp(pfx[j].a, set.nodes[i].addr, 16))
				break;
		cr_assert_lt(j, npfx, "node %zu is no entry's prefix", i);
		cr_assert_eq(set.nodes[i].val.n, pfx[j].cnt);
		if (pfx[j].cnt > nmax)
			nmax = pfx[j].cnt;
	}
	cr_assert_geq(nmax, 16, "rules too sparse to test covering (max %zu per node)", nmax);

	for (i = 0; i < 20000; i++) {
		static const uint8_t protos[] = { AC_P_TCP, AC_P_UDP, AC_P_OTHER };
		uint8_t a[16], q[16];
		uint8_t proto = protos[rnd() % 3];
		uint16_t port;
		uint32_t r = rnd();
		int want, got;

		if (r % 4 == 0)
			rand_v4(a, 24);            /* some outside every entry */
		else {
			memcpy(a, ents[rnd() % nents].addr, 16);
			if (r % 4 == 1)
				a[15] ^= (uint8_t)(1u << (rnd() % 8));
		}
		switch ((r >> 4) % 4) {
		case 0: port = (uint16_t)rnd(); break;
		case 1: port = portset[rnd() % NPORTS].lo; break;
		case 2: port = portset[rnd() % NPORTS].hi; break;
		default: port = (uint16_t)(portset[rnd() % NPORTS].hi - 1 + rnd() % 3); break;   /* hi-1..hi+1 */
		}
		if (proto == AC_P_OTHER)
			port = 0;
		want = brute(ents, nents, a, proto, port);
		memcpy(q, a, 16);
		if ((r >> 8) & 1)
			q[10] = q[11] = 0;         /* ask in the IPv4-compatible form */
		got = net_match(&set, q, proto, port);
		cr_assert_eq(got, want, "sample %zu: 10.0.%u.%u proto 0x%x port %u: got %d, want %d",
			     i, a[14], a[15], proto, port, got, want);
		if (got == AC_NET_ALLOW)
			nallow++;
		else
			ndeny++;
	}
	cr_assert_geq(nallow, 2000, "%zu allowed", nallow);
	cr_assert_geq(ndeny, 2000, "%zu denied", ndeny);
}
