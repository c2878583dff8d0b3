// SPDX-License-Identifier: GPL-2.0
/* agentcage: network policy per cage.
 *
 * cgroup_skb programs, attached to each cage's cgroup, drop every packet to
 * or from a peer the policy does not allow: they see all IP traffic of the
 * cage's sockets, whatever API sent it. BPF LSM socket hooks refuse the same
 * peers up front with EPERM (connect, bind, sendmsg with a destination), so
 * clients fail fast; they also guard unix sockets, socket families and
 * netlink. Both decide from the same trie. */
#include "cage_common.bpf.h"
#include <bpf/bpf_endian.h>
#include "agentcage/net.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_UNSPEC_ 0
#define AF_UNIX_ 1
#define AF_INET_ 2
#define AF_INET6_ 10
#define AF_NETLINK_ 16
#define NETLINK_ROUTE_ 0
#define ETH_P_IP_ 0x0800
#define ETH_P_IPV6_ 0x86DD
#define IP_OFFSET_ 0x1fff
#define IP6_OFFSET_ 0xfff8
#define RTM_BASE_ 16
/* IPv6 extension headers (netinet/in.h, not in vmlinux.h) */
#define IPPROTO_HOPOPTS 0
#define IPPROTO_ROUTING 43
#define IPPROTO_FRAGMENT 44
#define IPPROTO_DSTOPTS 60
#define NLMSG_MAX 8            /* netlink messages checked in one send */

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 16384);
	__type(key, struct ac_net_key);
	__type(value, struct ac_net_val);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} net_rules SEC(".maps");

/* unix socket peers: paths as in the file tries (path + '/'), abstract names
 * as '@', length (2 bytes, big endian), name: an exact match */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 4096);
	__type(key, struct ac_key);
	__type(value, __u32);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} unix_rules SEC(".maps");

/* Unix sockets no caged task may reach, whatever its unix list names: the
 * daemon's control socket. Keyed by the socket's sockfs inode number (what
 * fstat of its descriptor gives), set before it listens. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u8);
} guarded_socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);             /* cgroup id of the cage */
	__type(value, struct ac_budget);
} pkt_events SEC(".maps");

static __always_inline __u8 proto_bit(__u16 proto)
{
	if (proto == IPPROTO_TCP || proto == IPPROTO_MPTCP)
		return AC_P_TCP;
	if (proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE)
		return AC_P_UDP;
	return AC_P_OTHER;
}

/* The policy's word on a peer: AC_NET_ALLOW or AC_NET_DENY. */
static __always_inline int net_decide(__u32 policy, const struct ac_event_net *peer, int noports)
{
	struct ac_net_key k = { .prefixlen = 32 + 128, .policy = policy };
	__u8 bit = noports ? AC_P_OTHER : proto_bit(peer->proto);
	__u16 port = bit == AC_P_OTHER ? 0 : peer->port;
	struct ac_net_val *v;

	__builtin_memcpy(k.addr, peer->addr, 16);
	ac_addr_normalize(k.addr);
	v = bpf_map_lookup_elem(&net_rules, &k);
	if (!v)
		return AC_NET_DENY;
	for (int i = 0; i < AC_NET_RULES; i++) {
		struct ac_port_rule *r = &v->r[i];

		if (i >= v->n)
			break;
		if ((r->protos & bit) && port >= r->lo && port <= r->hi)
			return r->verdict;
	}
	return AC_NET_DENY;
}

/* ---- packets: cgroup_skb ---- */

struct pkt {
	struct ac_event_net peer;
	int ok;
	int noports;    /* a later fragment: only portless rules can match */
};

static __always_inline void set_v4(__u8 *a, __u32 be_addr)
{
	__builtin_memset(a, 0, 10);
	a[10] = 0xff;
	a[11] = 0xff;
	__builtin_memcpy(a + 12, &be_addr, 4);
}

/* The peer of a packet: destination on egress, source on ingress. */
static __always_inline void parse(struct __sk_buff *skb, int egress, struct pkt *p)
{
	__u32 off;
	__u8 nh;
	int first = 1;

	if (skb->protocol == bpf_htons(ETH_P_IP_)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, 0, &ip, sizeof(ip)))
			return;
		set_v4(p->peer.addr, egress ? ip.daddr : ip.saddr);
		p->peer.family = AF_INET_;
		nh = ip.protocol;
		off = ip.ihl * 4;
		if (ip.frag_off & bpf_htons(IP_OFFSET_))
			first = 0;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6_)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, 0, &ip6, sizeof(ip6)))
			return;
		__builtin_memcpy(p->peer.addr, egress ? &ip6.daddr : &ip6.saddr, 16);
		p->peer.family = AF_INET6_;
		nh = ip6.nexthdr;
		off = sizeof(ip6);
		for (int i = 0; i < 8; i++) {
			struct { __u8 nexthdr, len; __be16 frag; } h;

			if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING && nh != IPPROTO_DSTOPTS &&
			    nh != IPPROTO_FRAGMENT && nh != IPPROTO_AH)
				break;
			if (bpf_skb_load_bytes(skb, off, &h, sizeof(h)))
				return;
			if (nh == IPPROTO_FRAGMENT) {
				if (h.frag & bpf_htons(IP6_OFFSET_))
					first = 0;
				off += 8;
			} else if (nh == IPPROTO_AH) {
				off += (h.len + 2) * 4;
			} else {
				off += (h.len + 1) * 8;
			}
			nh = h.nexthdr;
		}
	} else {
		return;     /* not IP: p->ok stays 0 and the packet is dropped */
	}
	p->peer.proto = nh;
	if (proto_bit(nh) != AC_P_OTHER) {
		__be16 ports[2];

		if (!first) {
			p->noports = 1;
		} else {
			if (bpf_skb_load_bytes(skb, off, ports, sizeof(ports)))
				return;
			p->peer.port = bpf_ntohs(egress ? ports[1] : ports[0]);
		}
	}
	p->ok = 1;
}

static __always_inline struct ac_cage *skb_cage(struct __sk_buff *skb, __u64 *cgid)
{
	if (bpf_skb_ancestor_cgroup_id(skb, cage_parent_level) != cage_parent_cgid)
		return NULL;
	*cgid = bpf_skb_ancestor_cgroup_id(skb, cage_parent_level + 1);
	return bpf_map_lookup_elem(&cages, cgid);
}

/* Packet events are limited per cage and second; the rest are counted. */
static __always_inline bool pkt_event_allowed(__u64 cgid)
{
	return window_take(&pkt_events, cgid, AC_PKT_EVENTS_PER_SEC, AC_STAT_SUPPRESSED);
}

static __always_inline void emit_pkt(struct __sk_buff *skb, __u64 cgid, __u32 op, __u32 action,
				     const struct ac_event_net *peer)
{
	struct ac_event *e;

	if (!pkt_event_allowed(cgid) || !(e = event_reserve(cgid, op, action)))
		return;
	/* softirq context: no task to name; the socket's owner is known */
	e->pid = 0;
	e->uid = bpf_get_socket_uid(skb);
	e->flags = AC_EV_NET;
	__builtin_memset(e->comm, 0, sizeof(e->comm));
	__builtin_memcpy(e->net.addr, peer->addr, sizeof(e->net.addr));
	e->net.port = peer->port;
	e->net.family = peer->family;
	e->net.proto = peer->proto;
	e->net.type = peer->type;
	bpf_ringbuf_submit(e, 0);
}

/* 1 lets the packet through, 0 drops it. */
static __always_inline int skb_verdict(struct __sk_buff *skb, int egress)
{
	struct pkt p = {};
	struct ac_cage *c;
	__u64 cgid = 0;

	c = skb_cage(skb, &cgid);
	if (!c)
		return 0;   /* attached to a cage whose entry is gone: fail closed */
	parse(skb, egress, &p);
	if (p.ok && net_decide(c->net_policy, &p.peer, p.noports) == AC_NET_ALLOW)
		return 1;
	emit_pkt(skb, cgid, egress ? AC_OP_SEND : AC_OP_RECV, c->audit ? AC_AUDITED : AC_DENIED,
		 &p.peer);
	return c->audit ? 1 : 0;
}

SEC("cgroup_skb/egress")
int ac_egress(struct __sk_buff *skb)
{
	return skb_verdict(skb, 1);
}

SEC("cgroup_skb/ingress")
int ac_ingress(struct __sk_buff *skb)
{
	return skb_verdict(skb, 0);
}

/* -EPERM (an event), or 0 in audit mode (an event too) */
static __always_inline int net_verdict(struct ac_cage *c, __u64 cgid, __u32 op,
				       const struct ac_event_net *peer)
{
	return verdict_net(c, NULL, cgid, op, 0, 0, peer);
}

/* ---- socket addresses: cgroup sock_addr, where BPF LSM is not loaded ----
 *
 * The Landlock enforcer's counterpart of the socket_connect, socket_bind
 * and socket_sendmsg hooks below: attached to the cage's cgroup (with
 * LOADER_SOCK_ADDR), they refuse a peer the policy does not allow up front,
 * EPERM and an event with the task's pid, instead of a packet dropped and a
 * connect that times out. The packet programs still hold what these do not
 * see: connections made before a reload narrowed the policy, and datagrams
 * of sockets with no sendmsg hook (ping). Both run on the socket's cgroup,
 * so a socket made outside the cage and handed in is neither's. 1 lets the
 * call through, 0 fails it with EPERM. */
static __always_inline int addr_verdict(struct bpf_sock_addr *ctx, __u32 op, int v6)
{
	struct ac_event_net peer = {};
	struct ac_cage *c;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c)
		return 1;   /* a task outside the cages on a caged socket: the packets decide */
	peer.proto = ctx->protocol;
	peer.type = ctx->type;
	peer.port = bpf_ntohs(ctx->user_port);
	if (v6) {
		__u32 a[4] = { ctx->user_ip6[0], ctx->user_ip6[1], ctx->user_ip6[2],
			       ctx->user_ip6[3] };

		__builtin_memcpy(peer.addr, a, 16);
		peer.family = AF_INET6_;
	} else {
		set_v4(peer.addr, ctx->user_ip4);
		peer.family = AF_INET_;
	}
	if (net_decide(c->net_policy, &peer, 0) == AC_NET_ALLOW)
		return 1;
	return net_verdict(c, cgid, op, &peer) ? 0 : 1;
}

/* one program a hook: cgroup/connect4 ac_connect4, ... */
#define ADDR_PROG(hook, op, v6)						\
	SEC("cgroup/" #hook)						\
	int ac_##hook(struct bpf_sock_addr *ctx)			\
	{								\
		return addr_verdict(ctx, op, v6);			\
	}

ADDR_PROG(connect4, AC_OP_CONNECT, 0)
ADDR_PROG(connect6, AC_OP_CONNECT, 1)
ADDR_PROG(sendmsg4, AC_OP_SEND, 0)
ADDR_PROG(sendmsg6, AC_OP_SEND, 1)
ADDR_PROG(bind4, AC_OP_BIND, 0)
ADDR_PROG(bind6, AC_OP_BIND, 1)

/* ---- sockets: BPF LSM ---- */

static __always_inline int check_unix_bind(struct ac_cage *c, __u64 cgid, struct sockaddr *sa,
					   int addrlen);

/* Check a socket address given to connect, bind or sendmsg on an IP socket
 * (and bind on a unix one: check_unix_bind). */
static __always_inline int check_sockaddr(struct socket *sock, struct sockaddr *sa, int addrlen,
					  __u32 op)
{
	struct ac_event_net peer = {};
	struct ac_cage *c;
	struct sock *sk;
	__u16 family, sk_family;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c)
		return 0;
	sk = BPF_CORE_READ(sock, sk);
	sk_family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (sk_family == AF_UNIX_ && op == AC_OP_BIND)
		return check_unix_bind(c, cgid, sa, addrlen);
	if (sk_family != AF_INET_ && sk_family != AF_INET6_)
		return 0;       /* unix and netlink have hooks of their own */
	peer.proto = BPF_CORE_READ(sk, sk_protocol);
	if (!sa || addrlen < (int)sizeof(family))
		return net_verdict(c, cgid, op, &peer);
	bpf_probe_read_kernel(&family, sizeof(family), sa);
	if (family == AF_UNSPEC_ && op == AC_OP_CONNECT)
		return 0;       /* dissolves an association, reaches nobody */
	if (family == AF_INET_ || family == AF_UNSPEC_) {
		struct sockaddr_in sin = {};

		if (addrlen < (int)sizeof(sin))
			return net_verdict(c, cgid, op, &peer);
		bpf_probe_read_kernel(&sin, sizeof(sin), sa);
		set_v4(peer.addr, sin.sin_addr.s_addr);
		peer.port = bpf_ntohs(sin.sin_port);
		peer.family = AF_INET_;
	} else if (family == AF_INET6_) {
		struct sockaddr_in6 sin6 = {};

		if (addrlen < 24)   /* SIN6_LEN_RFC2133: without the scope id */
			return net_verdict(c, cgid, op, &peer);
		bpf_probe_read_kernel(&sin6, 24, sa);
		__builtin_memcpy(peer.addr, &sin6.sin6_addr, 16);
		peer.port = bpf_ntohs(sin6.sin6_port);
		peer.family = AF_INET6_;
	} else {
		peer.family = family;
		return net_verdict(c, cgid, op, &peer);
	}
	if (net_decide(c->net_policy, &peer, 0) == AC_NET_ALLOW)
		return 0;
	return net_verdict(c, cgid, op, &peer);
}

SEC("lsm/socket_connect")
int BPF_PROG(ac_socket_connect, struct socket *sock, struct sockaddr *address, int addrlen,
	     int ret)
{
	if (ret)
		return ret;
	return check_sockaddr(sock, address, addrlen, AC_OP_CONNECT);
}

SEC("lsm/socket_bind")
int BPF_PROG(ac_socket_bind, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	if (ret)
		return ret;
	return check_sockaddr(sock, address, addrlen, AC_OP_BIND);
}

SEC("lsm/socket_sendmsg")
int BPF_PROG(ac_socket_sendmsg, struct socket *sock, struct msghdr *msg, int size, int ret)
{
	void *name;

	if (ret)
		return ret;
	name = msg->msg_name;
	if (!name)
		return 0;   /* to the connected peer, checked at connect */
	return check_sockaddr(sock, name, msg->msg_namelen, AC_OP_SEND);
}

/* Families a cage may create: unix, IPv4, IPv6 (their peers are checked),
 * and netlink for routing queries only. Packet, vsock and the rest are
 * refused: packet sockets would bypass the IP layer the cgroup programs see. */
SEC("lsm/socket_create")
int BPF_PROG(ac_socket_create, int family, int type, int protocol, int kern, int ret)
{
	struct ac_event_net peer = {};
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (kern)
		return 0;
	if (family == AF_UNIX_ || family == AF_INET_ || family == AF_INET6_)
		return 0;
	if (family == AF_NETLINK_ && protocol == NETLINK_ROUTE_)
		return 0;
	c = current_cage(&cgid);
	if (!c)
		return 0;
	peer.family = family;
	peer.proto = protocol;
	peer.type = type & 0xf;   /* without SOCK_NONBLOCK / SOCK_CLOEXEC */
	return net_verdict(c, cgid, AC_OP_SOCKET, &peer);
}

/* Route netlink may be queried (RTM_GET*), not changed. */
SEC("lsm/netlink_send")
int BPF_PROG(ac_netlink_send, struct sock *sk, struct sk_buff *skb, int ret)
{
	struct ac_event_net peer = { .family = AF_NETLINK_ };
	struct ac_cage *c;
	unsigned char *data;
	__u32 len, off = 0;
	__u64 cgid;
	int allowed = 0;

	if (ret)
		return ret;
	c = current_cage(&cgid);
	if (!c)
		return 0;
	data = BPF_CORE_READ(skb, data);
	len = BPF_CORE_READ(skb, len);
	/* the messages the kernel will act on, as netlink_rcv_skb walks them:
	 * it stops at a header shorter than itself or longer than what is left */
	for (int i = 0; i < NLMSG_MAX; i++) {
		struct nlmsghdr h = {};

		if (off + sizeof(h) > len) {
			allowed = 1;      /* every message was a query */
			break;
		}
		if (bpf_probe_read_kernel(&h, sizeof(h), data + off))
			break;            /* unreadable: refused */
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - off) {
			allowed = 1;      /* the kernel ignores the rest */
			break;
		}
		peer.proto = h.nlmsg_type;
		if (h.nlmsg_type < RTM_BASE_ || (((__u32)h.nlmsg_type - RTM_BASE_) & 3) != 2)
			break;            /* not an RTM_GET*: refused */
		off += (h.nlmsg_len + 3) & ~3u;
	}
	/* more messages than checked are refused too */
	if (allowed)
		return 0;
	return net_verdict(c, cgid, AC_OP_SEND, &peer);
}

/* The trie key of an abstract name of n bytes (after its leading NUL) at
 * kernel address name, in s->key under policy, and its event form '@' + name
 * in s->buf[0..n]; 0, or -1 when it cannot be read. */
static __always_inline int abstract_key(struct scratch *s, __u32 policy, const char *name, __u32 n)
{
	s->buf[0] = '@';
	barrier_var(n);
	if (bpf_core_read(&s->buf[1], n & 127, name))
		return -1;
	__builtin_memset(&s->key, 0, sizeof(s->key));
	s->key.policy = policy;
	s->key.prefixlen = 32 + (AC_ABSTRACT_HDR + n) * 8;
	ac_abstract_hdr(s->key.path, n);
	if (bpf_core_read(&s->key.path[AC_ABSTRACT_HDR], n & 127, name))
		return -1;
	return 0;
}

/* The abstract name socket sk is bound to: its length after the leading NUL
 * (at most AC_UNIX_NAME_MAX) in *n, the name in *name; 0 when it has one,
 * 1 when it has none (unnamed, or a path socket), -1 when it is unreadable. */
static __always_inline int unix_abstract_name(struct sock *sk, const char **name, __u32 *n)
{
	struct unix_address *a = BPF_CORE_READ((struct unix_sock *)sk, addr);
	int len;

	if (!a)
		return 1;
	len = BPF_CORE_READ(a, len);   /* sa_family, then the name */
	if (len < 3)
		return 1;
	if (BPF_CORE_READ(a, name[0].sun_path[0]) != 0)
		return BPF_CORE_READ((struct unix_sock *)sk, path.dentry) ? 1 : -1;
	*n = len - 3;                   /* abstract: a NUL, then n bytes */
	if (*n > AC_UNIX_NAME_MAX)
		return -1;
	*name = (const char *)&a->name[0].sun_path[1];
	return 0;
}

/* Is sk a guarded socket? Its sockfs inode follows its struct socket
 * (struct socket_alloc, include/linux/net.h SOCK_INODE). */
static __always_inline int guarded(struct sock *sk)
{
	struct socket_alloc *so = (struct socket_alloc *)BPF_CORE_READ(sk, sk_socket);
	__u64 ino;

	if (!so)
		return 0;
	ino = BPF_CORE_READ(so, vfs_inode.i_ino);
	return bpf_map_lookup_elem(&guarded_socks, &ino) != NULL;
}

/* A unix socket peer must be listed under network.unix: a path socket by the
 * path of its inode, an abstract one by its exact name. Unnamed peers
 * (socketpair, inherited) have no name anyone could reach: allowed. */
static __always_inline int check_unix_in(struct ac_cage *c, __u64 cgid, struct scratch *s,
					 struct sock *other)
{
	struct ac_event_net peer = { .family = AF_UNIX_ };
	struct unix_sock *u = (struct unix_sock *)other;
	const char *name = NULL;
	struct dentry *d;
	__u32 start = 0, n = 0;
	int len, r;

	d = BPF_CORE_READ(u, path.dentry);
	if (d) {
		len = resolve(s, d, BPF_CORE_READ(u, path.mnt), &start);
		if (len < 0 || guarded(other))
			goto deny;
		make_key(s, c->net_policy, start, len);
		if (bpf_map_lookup_elem(&unix_rules, &s->key))
			return 0;
		goto deny;
	}
	if (guarded(other))
		goto unresolved;
	r = unix_abstract_name(other, &name, &n);
	if (r > 0)
		return 0;
	if (r < 0 || abstract_key(s, c->net_policy, name, n))
		goto unresolved;
	if (bpf_map_lookup_elem(&unix_rules, &s->key))
		return 0;
	len = n + 1;
	goto deny;
unresolved:
	len = -1;
deny:
	return verdict_net(c, s, cgid, AC_OP_UNIX_CONNECT, start, len, &peer);
}

/* The cage whose task created socket sk (the cgroup v2 the kernel records in
 * sk_cgrp_data when the socket is made), or NULL: two reads and a compare
 * for a socket of a cgroup no deeper than agentcage's parent. */
static __always_inline struct ac_cage *sock_cage(struct sock *sk, __u64 *cgid)
{
	struct cgroup *cg = BPF_CORE_READ(sk, sk_cgrp_data.cgroup);
	struct cgroup *up;

	if (!cg || BPF_CORE_READ(cg, level) <= (int)cage_parent_level)
		return NULL;
	up = BPF_CORE_READ(cg, ancestors[cage_parent_level & 63]);
	if (BPF_CORE_READ(up, kn, id) != cage_parent_cgid)
		return NULL;
	up = BPF_CORE_READ(cg, ancestors[(cage_parent_level + 1) & 63]);
	*cgid = BPF_CORE_READ(up, kn, id);
	return bpf_map_lookup_elem(&cages, cgid);
}

/* A socket bound in a cage is reachable from outside it (an uncaged task,
 * another cage) only under a name that cage's unix list names: abstract
 * names have no permissions of their own. Path sockets are files, whose
 * permissions and place the cage's file rules govern. own: the caller's
 * cage, 0 outside every cage. The refusal is reported in the socket's cage. */
static __always_inline int check_unix_out(struct sock *other, __u64 own)
{
	struct ac_event_net peer = { .family = AF_UNIX_ };
	struct scratch_cpu *pc;
	const char *name = NULL;
	struct scratch *s;
	struct ac_cage *oc;
	__u64 ocgid = 0;
	__u32 n = 0;
	int r;

	oc = sock_cage(other, &ocgid);
	if (!oc || ocgid == own)
		return 0;
	r = unix_abstract_name(other, &name, &n);
	if (r > 0)
		return 0;
	s = scratch_get(&pc);
	if (!s || r < 0 || abstract_key(s, oc->net_policy, name, n))
		r = verdict_net(oc, s, ocgid, AC_OP_UNIX_CONNECT, 0, -1, &peer);
	else if (bpf_map_lookup_elem(&unix_rules, &s->key))
		r = 0;
	else
		r = verdict_net(oc, s, ocgid, AC_OP_UNIX_CONNECT, 0, n + 1, &peer);
	scratch_put(pc);
	return r;
}

static __always_inline int check_unix(struct sock *other)
{
	struct ac_event_net peer = { .family = AF_UNIX_ };
	struct scratch_cpu *pc;
	struct scratch *s;
	struct ac_cage *c;
	__u64 cgid;
	int r;

	c = current_cage(&cgid);
	if (!c)
		return check_unix_out(other, 0);
	s = scratch_get(&pc);
	if (!s)
		return verdict_net(c, s, cgid, AC_OP_UNIX_CONNECT, 0, -1, &peer);
	r = check_unix_in(c, cgid, s, other);
	scratch_put(pc);
	if (r)
		return r;
	return check_unix_out(other, cgid);
}

/* bind of an abstract name by a caged task: only names its unix list names
 * (a name is a rendezvous anyone in the network namespace can reach).
 * Autobind (no name given) draws a random name, which check_unix_out guards;
 * a path name is a file creation that path_mknod checks; a malformed address
 * is the kernel's to refuse. 0 or the verdict. */
static __always_inline int check_unix_bind(struct ac_cage *c, __u64 cgid, struct sockaddr *sa,
					   int addrlen)
{
	struct ac_event_net peer = { .family = AF_UNIX_ };
	const char *name = (const char *)sa + 3;   /* sun_family, the NUL */
	struct scratch_cpu *pc;
	struct scratch *s;
	__u16 family = 0;
	__u8 first = 1;
	__u32 n;
	int r;

	if (!sa || addrlen <= 2 || addrlen > 3 + AC_UNIX_NAME_MAX)
		return 0;
	bpf_probe_read_kernel(&family, sizeof(family), sa);
	bpf_probe_read_kernel(&first, 1, (const char *)sa + 2);
	if (family != AF_UNIX_ || first)
		return 0;
	n = addrlen - 3;
	s = scratch_get(&pc);
	if (!s || abstract_key(s, c->net_policy, name, n))
		r = verdict_net(c, s, cgid, AC_OP_BIND, 0, -1, &peer);
	else if (bpf_map_lookup_elem(&unix_rules, &s->key))
		r = 0;
	else
		r = verdict_net(c, s, cgid, AC_OP_BIND, 0, n + 1, &peer);
	scratch_put(pc);
	return r;
}

SEC("lsm/unix_stream_connect")
int BPF_PROG(ac_unix_stream_connect, struct sock *sock, struct sock *other, struct sock *newsk,
	     int ret)
{
	if (ret)
		return ret;
	return check_unix(other);
}

SEC("lsm/unix_may_send")
int BPF_PROG(ac_unix_may_send, struct socket *sock, struct socket *other, int ret)
{
	if (ret)
		return ret;
	return check_unix(other->sk);
}
