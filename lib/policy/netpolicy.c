// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "event/json.h"
#include "policy/netpolicy.h"

static struct net_host *find(const struct net_hosts *hs, const char *name)
{
	for (size_t i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name))
			return &hs->h[i];
	return NULL;
}

static int collect_list(struct net_hosts *hs, const struct plist *l)
{
	struct netspec ns;
	char why[256];

	for (size_t i = 0; i < l->n; i++) {
		struct net_host *h;

		if (netspec_parse(l->items[i], &ns, why, sizeof(why)) || !ns.host[0] ||
		    find(hs, ns.host))
			continue;
		h = realloc(hs->h, (hs->n + 1) * sizeof(*h));
		if (!h)
			return -1;
		hs->h = h;
		h = &hs->h[hs->n++];
		memset(h, 0, sizeof(*h));
		snprintf(h->name, sizeof(h->name), "%s", ns.host);
	}
	return 0;
}

int net_hosts_collect(struct net_hosts *hs, const struct policy *p)
{
	return collect_list(hs, &p->net_allow) || collect_list(hs, &p->net_deny) ? -1 : 0;
}

/* The smallest TTL of the A/AAAA (and CNAME) answers for name, or 0 when
 * DNS does not answer (a name from /etc/hosts, say). */
static uint32_t dns_ttl(const char *name)
{
	static const int types[] = { ns_t_a, ns_t_aaaa };
	unsigned char ans[4096];
	uint32_t best = 0;

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		int len = res_query(name, ns_c_in, types[t], ans, sizeof(ans));
		ns_msg msg;
		ns_rr rr;

		if (len <= 0 || ns_initparse(ans, len, &msg))
			continue;
		for (int i = 0; i < ns_msg_count(msg, ns_s_an); i++) {
			if (ns_parserr(&msg, ns_s_an, i, &rr))
				break;
			if (!best || ns_rr_ttl(rr) < best)
				best = ns_rr_ttl(rr);
		}
	}
	return best;
}

int net_host_resolve(struct net_host *h)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	int rc;

	h->n = 0;
	h->ttl = 0;
	rc = getaddrinfo(h->name, NULL, &hints, &res);
	if (rc) {
		snprintf(h->error, sizeof(h->error), "%s",
			 rc == EAI_SYSTEM ? "system error" : gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && h->n < NET_HOST_ADDRS; ai = ai->ai_next) {
		uint8_t a[16] = { 0 };

		if (ai->ai_family == AF_INET) {
			a[10] = a[11] = 0xff;
			memcpy(a + 12, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
		} else if (ai->ai_family == AF_INET6) {
			memcpy(a, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
			net_addr_normalize(a);
		} else {
			continue;
		}
		size_t i;
		for (i = 0; i < h->n && memcmp(h->addrs[i], a, 16); i++)
			;
		if (i == h->n)
			memcpy(h->addrs[h->n++], a, 16);
	}
	freeaddrinfo(res);
	h->ttl = dns_ttl(h->name);
	h->error[0] = 0;
	return 0;
}

int net_host_merge(struct net_host *into, const struct net_host *fresh)
{
	int added = 0;

	into->ttl = fresh->ttl;
	snprintf(into->error, sizeof(into->error), "%s", fresh->error);
	for (size_t i = 0; i < fresh->n; i++) {
		size_t j;

		for (j = 0; j < into->n && memcmp(into->addrs[j], fresh->addrs[i], 16); j++)
			;
		if (j < into->n)
			continue;
		if (into->n == NET_HOST_ADDRS) {
			/* full: the oldest address gives way */
			memmove(into->addrs[0], into->addrs[1], (NET_HOST_ADDRS - 1) * 16);
			into->n--;
		}
		memcpy(into->addrs[into->n++], fresh->addrs[i], 16);
		added = 1;
	}
	return added;
}

unsigned net_hosts_interval(const struct net_hosts *hs, unsigned max)
{
	unsigned best = max;

	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i].ttl && hs->h[i].ttl < best)
			best = hs->h[i].ttl;
	return best < 2 ? 2 : best;
}

void net_hosts_free(struct net_hosts *hs)
{
	free(hs->h);
	hs->h = NULL;
	hs->n = 0;
}

static int add_entry(struct net_entry **e, size_t *n, const uint8_t addr[16], uint8_t plen,
		     const struct netspec *ns, uint8_t verdict)
{
	struct net_entry *l = realloc(*e, (*n + 1) * sizeof(*l));

	if (!l)
		return -1;
	*e = l;
	memcpy(l[*n].addr, addr, 16);
	l[*n].plen = plen;
	l[*n].lo = ns->lo;
	l[*n].hi = ns->hi;
	l[*n].protos = ns->protos;
	l[*n].verdict = verdict;
	(*n)++;
	return 0;
}

static int entries(const struct plist *l, uint8_t verdict, const struct net_hosts *hs,
		   struct net_entry **e, size_t *n, char *err, size_t errlen)
{
	struct netspec ns;

	for (size_t i = 0; i < l->n; i++) {
		if (netspec_parse(l->items[i], &ns, err, errlen))
			return -1;
		if (!ns.host[0]) {
			if (add_entry(e, n, ns.addr, ns.plen, &ns, verdict))
				goto oom;
			continue;
		}
		const struct net_host *h = find(hs, ns.host);

		for (size_t j = 0; h && j < h->n; j++)
			if (add_entry(e, n, h->addrs[j], 128, &ns, verdict))
				goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int net_policy_compile(const struct policy *p, const struct net_hosts *hs, struct netset *out,
		       char *err, size_t errlen)
{
	struct net_entry *e = NULL;
	size_t n = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!entries(&p->net_allow, AC_NET_ALLOW, hs, &e, &n, err, errlen) &&
	    !entries(&p->net_deny, AC_NET_DENY, hs, &e, &n, err, errlen))
		ret = net_compile(e, n, out, err, errlen);
	free(e);
	return ret;
}

int net_policy_load(const struct policy *p, struct net_hosts *hs, struct netset *out,
		    char *err, size_t errlen)
{
	memset(hs, 0, sizeof(*hs));
	if (net_hosts_collect(hs, p)) {
		net_hosts_free(hs);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < hs->n; i++)
		net_host_resolve(&hs->h[i]);
	if (net_policy_compile(p, hs, out, err, errlen)) {
		net_hosts_free(hs);
		return -1;
	}
	return 0;
}

static void print_ports(FILE *f, const struct netspec *ns)
{
	if (ns->has_port) {
		if (ns->lo == ns->hi)
			fprintf(f, " port %u", ns->lo);
		else
			fprintf(f, " ports %u-%u", ns->lo, ns->hi);
	} else {
		fprintf(f, " any port");
	}
	if (ns->protos == AC_P_ANY)
		fprintf(f, ", any protocol");
	else
		fprintf(f, ", %s%s%s", ns->protos & AC_P_TCP ? "tcp" : "",
			(ns->protos & AC_P_TCP) && (ns->protos & AC_P_UDP) ? "+" : "",
			ns->protos & AC_P_UDP ? "udp" : "");
}

static void print_list(FILE *f, const char *what, const struct plist *l,
		       const struct net_hosts *hs)
{
	struct netspec ns;
	char buf[64], why[256];

	for (size_t i = 0; i < l->n; i++) {
		if (netspec_parse(l->items[i], &ns, why, sizeof(why)))
			continue;
		fprintf(f, "  %-6s", what);
		if (!ns.host[0]) {
			net_format_prefix(ns.addr, ns.plen, buf, sizeof(buf));
			fprintf(f, " %s", buf);
			print_ports(f, &ns);
			fputc('\n', f);
			continue;
		}
		fprintf(f, " %s", ns.host);
		print_ports(f, &ns);
		const struct net_host *h = find(hs, ns.host);

		if (!h || h->error[0]) {
			fprintf(f, " -> unresolved (%s): allows nothing until it resolves\n",
				h ? h->error : "not looked up");
			continue;
		}
		fprintf(f, " ->");
		for (size_t j = 0; j < h->n; j++) {
			net_format_prefix(h->addrs[j], 128, buf, sizeof(buf));
			fprintf(f, "%s %s", j ? "," : "", buf);
		}
		fputc('\n', f);
	}
}

void net_policy_print(FILE *f, const struct policy *p, const struct net_hosts *hs,
		      const struct netset *ns)
{
	fprintf(f, "  network (%zu trie entries):\n", ns->n);
	if (!p->net_allow.n)
		fprintf(f, "  allow  (none): no network peer is reachable, loopback included\n");
	print_list(f, "allow", &p->net_allow, hs);
	print_list(f, "deny", &p->net_deny, hs);
	fprintf(f, "  unix  ");
	if (!p->net_unix.n)
		fprintf(f, " (none)");
	for (size_t i = 0; i < p->net_unix.n; i++)
		fprintf(f, " %s", p->net_unix.items[i]);
	fprintf(f, "\n");
}

static const char *protos_name(uint8_t protos)
{
	if (protos == AC_P_ANY)
		return "any";
	if ((protos & AC_P_TCP) && (protos & AC_P_UDP))
		return "tcp+udp";
	return protos & AC_P_TCP ? "tcp" : "udp";
}

static void json_entry(FILE *f, const char *entry, const struct netspec *ns,
		       const struct net_hosts *hs)
{
	char buf[64];

	fputs("{\"entry\":", f);
	json_write_string(f, entry, -1);
	if (ns->has_port)
		fprintf(f, ",\"ports\":[%u,%u]", ns->lo, ns->hi);
	else
		fputs(",\"ports\":null", f);
	fprintf(f, ",\"protocols\":\"%s\"", protos_name(ns->protos));
	if (!ns->host[0]) {
		net_format_prefix(ns->addr, ns->plen, buf, sizeof(buf));
		fprintf(f, ",\"prefix\":\"%s\"}", buf);
		return;
	}
	const struct net_host *h = find(hs, ns->host);

	fputs(",\"host\":", f);
	json_write_string(f, ns->host, -1);
	if (!h || h->error[0]) {
		fputs(",\"addresses\":[],\"error\":", f);
		json_write_string(f, h ? h->error : "not looked up", -1);
		fputc('}', f);
		return;
	}
	fputs(",\"addresses\":[", f);
	for (size_t j = 0; j < h->n; j++) {
		net_format_prefix(h->addrs[j], 128, buf, sizeof(buf));
		fprintf(f, "%s\"%s\"", j ? "," : "", buf);
	}
	fputs("]}", f);
}

static void json_list(FILE *f, const struct plist *l, const struct net_hosts *hs)
{
	struct netspec ns;
	char why[256];
	int first = 1;

	fputc('[', f);
	for (size_t i = 0; i < l->n; i++) {
		if (netspec_parse(l->items[i], &ns, why, sizeof(why)))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		json_entry(f, l->items[i], &ns, hs);
	}
	fputc(']', f);
}

void net_policy_print_json(FILE *f, const struct policy *p, const struct net_hosts *hs,
			   const struct netset *ns)
{
	fprintf(f, "{\"trie_entries\":%zu,\"allow\":", ns->n);
	json_list(f, &p->net_allow, hs);
	fputs(",\"deny\":", f);
	json_list(f, &p->net_deny, hs);
	fputs(",\"unix\":", f);
	json_write_strings(f, p->net_unix.items, p->net_unix.n);
	fputc('}', f);
}
