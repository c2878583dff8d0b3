// SPDX-License-Identifier: GPL-2.0-only
/* agentcage-nettest: the network half of a cage, for kernels that refuse BPF
 * LSM (our hosts and CI). It loads only agentcage's cgroup_skb programs and
 * attaches them to a cgroup it creates under <cgroup2>/agentcage; it is a
 * test and benchmark tool, not installed, and confines nothing but IP
 * traffic. It uses the same policy parser, compiler, loader and maps as
 * `agentcage run`.
 *
 *   nettest run [--audit] POLICY -- CMD [ARG...]
 *       CMD in the cage; events as JSON lines on stderr; CMD's exit status.
 *   nettest packets
 *       crafted IPv4/IPv6 packets through both programs (BPF_PROG_TEST_RUN).
 *   nettest pktbench N_RULES
 *       ns per packet of the egress program with an N-entry policy.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cage/cage.h"
#include "event/event.h"
#include "kernel/loader.h"
#include "policy/compile.h"

static struct loader ld;
static struct cage cage;
static int nevents;
static struct ac_event last;

static int on_event(void *ctx, void *data, size_t len)
{
	(void)ctx;
	if (len < sizeof(last) - sizeof(last.path))
		return 0;
	memcpy(&last, data, len < sizeof(last) ? len : sizeof(last));
	nevents++;
	event_write_json(stderr, data, "nettest", 0, NULL);
	return 0;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "nettest: %s: %s\n", what, err);
	cage_teardown(&cage);
	loader_close(&ld);
	exit(125);
}

/* cgroup, programs, rules of the policy file or text; cage audit or not */
static void setup(const char *file, const char *text, int audit)
{
	/* file rules are compiled, but without BPF LSM nothing enforces them */
	static const struct rule_vars vars = { .cwd = "/CWD", .cage_tmp = "/CAGE_TMP" };
	struct policy_source src = { .path = file, .text = text, .len = text ? strlen(text) : 0,
				     .name = "inline", .mode = audit ? MODE_AUDIT : MODE_UNSET,
				     .vars = &vars };
	struct compiled_policy cp;
	struct ac_error e;

	if (policy_compile(&src, &cp, &e))
		die("policy", e.msg);
	for (size_t i = 0; i < cp.hosts.n; i++)
		if (cp.hosts.h[i].error[0])
			fprintf(stderr, "nettest: cannot resolve %s: %s\n", cp.hosts.h[i].name,
				cp.hosts.h[i].error);
	if (cage_loader_open(&ld, LOADER_NO_LSM, on_event, NULL, &e))
		die("load", e.msg);
	if (cage_create(&cage, &ld, "nettest", &e))
		die("cgroup", e.msg);
	if (cage_install(&cage, &cp, &e)) {
		compiled_policy_free(&cp);
		die("rules", e.msg);
	}
}

static void teardown(void)
{
	loader_poll(&ld);
	if (loader_stat(&ld, AC_STAT_SUPPRESSED))
		fprintf(stderr, "nettest: suppressed %llu\n",
			(unsigned long long)loader_stat(&ld, AC_STAT_SUPPRESSED));
	if (loader_stat(&ld, AC_STAT_LOST))
		fprintf(stderr, "nettest: lost %llu\n",
			(unsigned long long)loader_stat(&ld, AC_STAT_LOST));
	cage_teardown(&cage);
	loader_close(&ld);
}

static pid_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int cmd_run(int argc, char **argv)
{
	int audit = 0, i = 2, sync_p[2], status;
	pid_t pid;
	char c;

	if (i < argc && !strcmp(argv[i], "--audit")) {
		audit = 1;
		i++;
	}
	if (argc < i + 3 || strcmp(argv[i + 1], "--")) {
		fprintf(stderr, "usage: nettest run [--audit] POLICY -- CMD [ARG...]\n");
		return 125;
	}
	setup(argv[i], NULL, audit);
	if (pipe(sync_p))
		die("pipe", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(sync_p[1]);
		if (read(sync_p[0], &c, 1) != 1)
			_exit(125);
		execvp(argv[i + 2], argv + i + 2);
		_exit(127);
	}
	close(sync_p[0]);
	if (pid < 0 || cgroup_move(&cage.cg, pid) || write(sync_p[1], "g", 1) != 1) {
		if (pid > 0)
			kill(pid, SIGKILL);
		die("start", strerror(errno));
	}
	close(sync_p[1]);
	/* a signal ends the command, then the cage goes: nothing is left behind */
	child_pid = pid;
	signal(SIGTERM, forward);
	signal(SIGINT, forward);
	for (;;) {
		struct pollfd p = { .fd = loader_epoll_fd(&ld), .events = POLLIN };

		poll(&p, 1, 100);
		loader_poll(&ld);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	teardown();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- BPF_PROG_TEST_RUN ---- */

static int failures, checks;

/* an Ethernet frame carrying an IP packet: v6 or v4, with L4 proto and ports */
struct frame {
	size_t len;
	unsigned char pad[2];   /* b at 2 mod 4: the IP header after 14 bytes of Ethernet is aligned */
	unsigned char b[256];
};

static void frame_v4(struct frame *f, const char *src, const char *dst, int proto,
		     uint16_t sport, uint16_t dport, int fragment)
{
	struct ethhdr *eth = (void *)f->b;
	struct iphdr *ip = (void *)(f->b + sizeof(*eth));
	uint16_t *ports = (void *)(ip + 1);

	memset(f, 0, sizeof(*f));
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->tot_len = htons(sizeof(*ip) + 40);
	if (fragment)
		ip->frag_off = htons(100);   /* offset 800 bytes: no L4 header */
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	ports[0] = htons(sport);
	ports[1] = htons(dport);
	if (proto == IPPROTO_TCP)
		((struct tcphdr *)ports)->doff = 5;
	f->len = sizeof(*eth) + sizeof(*ip) + 40;
}

static void frame_v6(struct frame *f, const char *src, const char *dst, int proto,
		     uint16_t sport, uint16_t dport, int hopopts)
{
	struct ethhdr *eth = (void *)f->b;
	struct ipv6hdr *ip6 = (void *)(f->b + sizeof(*eth));
	unsigned char *l4 = (void *)(ip6 + 1);
	uint16_t *ports;

	memset(f, 0, sizeof(*f));
	eth->h_proto = htons(ETH_P_IPV6);
	ip6->version = 6;
	ip6->hop_limit = 64;
	ip6->nexthdr = hopopts ? 0 : proto;
	ip6->payload_len = htons(48);
	inet_pton(AF_INET6, src, &ip6->saddr);
	inet_pton(AF_INET6, dst, &ip6->daddr);
	if (hopopts) {          /* a hop-by-hop header of 8 bytes, then L4 */
		l4[0] = proto;
		l4[1] = 0;
		l4[2] = 1;          /* PadN */
		l4[3] = 4;
		l4 += 8;
	}
	ports = (uint16_t *)l4;
	ports[0] = htons(sport);
	ports[1] = htons(dport);
	f->len = sizeof(*eth) + sizeof(*ip6) + 48;
}

static int test_run(int egress, struct frame *f)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = f->len, .repeat = 1);

	if (bpf_prog_test_run_opts(loader_prog_fd(&ld, egress), &o)) {
		fprintf(stderr, "nettest: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
		exit(125);
	}
	return o.retval;
}

static void expect(const char *what, int egress, struct frame *f, int want)
{
	int got, before = nevents;

	got = test_run(egress, f);
	loader_poll(&ld);
	checks++;
	if (got != want) {
		failures++;
		printf("FAIL %s: %s %s, expected %s\n", egress ? "egress" : "ingress", what,
		       got ? "passed" : "dropped", want ? "pass" : "drop");
		return;
	}
	/* a dropped packet is reported (rate limits aside: few packets here) */
	if (!want && nevents != before + 1) {
		failures++;
		printf("FAIL %s: %s dropped without an event\n", egress ? "egress" : "ingress", what);
		return;
	}
	printf("ok   %s: %s %s\n", egress ? "egress" : "ingress", what, want ? "passes" : "dropped");
}

static void expect_event(const char *what, uint32_t op, uint32_t action, const char *addr,
			 uint16_t port, uint16_t proto)
{
	char buf[INET6_ADDRSTRLEN];

	event_addr_str(&last.net, buf, sizeof(buf));
	checks++;
	if (last.op != op || last.action != action || strcmp(buf, addr) || last.net.port != port ||
	    last.net.proto != proto || !(last.flags & AC_EV_NET) || last.cgroup != cage.cg.id) {
		failures++;
		printf("FAIL event %s: op %u action %u %s:%u proto %u cgroup %llu\n", what, last.op,
		       last.action, buf, last.net.port, last.net.proto,
		       (unsigned long long)last.cgroup);
		return;
	}
	printf("ok   event %s\n", what);
}

/* The test run's socket belongs to the caller's cgroup: move into the
 * cage, and back home before the cage is removed (removal kills its tasks). */
static char home_procs[PATH_MAX * 2 + 32];

static void enter_cage(void)
{
	char line[PATH_MAX], mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/cgroup", "r");

	snprintf(mnt, sizeof(mnt), "%s", cage.cg.parent);
	*strrchr(mnt, '/') = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(home_procs, sizeof(home_procs), "%s%s/cgroup.procs", mnt, line + 3);
		}
	if (f)
		fclose(f);
	if (!home_procs[0] || cgroup_move(&cage.cg, getpid()))
		die("move into the cage", strerror(errno));
}

static void leave_cage(void)
{
	FILE *f = fopen(home_procs, "w");

	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
		die("move out of the cage", strerror(errno));
}

static const char packets_policy[] =
	"network:\n"
	"  allow:\n"
	"    - 10.0.0.0/8:443/tcp\n"
	"    - 192.0.2.1\n"
	"    - \"[2001:db8::/32]:53/udp\"\n"
	"    - 198.51.100.0/24:1000-2000\n"
	"  deny:\n"
	"    - 10.0.0.5\n";

static int cmd_packets(void)
{
	struct frame f;

	setup(NULL, packets_policy, 0);
	enter_cage();

	frame_v4(&f, "10.9.9.9", "10.1.2.3", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp to 10.1.2.3:443 (allowed /8:443/tcp)", 1, &f, 1);
	frame_v4(&f, "10.9.9.9", "10.1.2.3", IPPROTO_TCP, 40000, 80, 0);
	expect("tcp to 10.1.2.3:80 (port not allowed)", 1, &f, 0);
	expect_event("egress drop 10.1.2.3:80", AC_OP_SEND, AC_DENIED, "10.1.2.3", 80, IPPROTO_TCP);
	frame_v4(&f, "10.9.9.9", "10.1.2.3", IPPROTO_UDP, 40000, 443, 0);
	expect("udp to 10.1.2.3:443 (tcp only)", 1, &f, 0);
	frame_v4(&f, "10.9.9.9", "10.0.0.5", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp to 10.0.0.5:443 (deny beats allow)", 1, &f, 0);
	frame_v4(&f, "10.0.0.5", "10.9.9.9", IPPROTO_TCP, 443, 40000, 0);
	expect("reply from 10.0.0.5:443 (denied peer)", 0, &f, 0);
	expect_event("ingress drop from 10.0.0.5:443", AC_OP_RECV, AC_DENIED, "10.0.0.5", 443,
		     IPPROTO_TCP);
	frame_v4(&f, "10.1.2.3", "10.9.9.9", IPPROTO_TCP, 443, 40000, 0);
	expect("reply from 10.1.2.3:443 (allowed peer)", 0, &f, 1);
	frame_v4(&f, "10.1.2.3", "10.9.9.9", IPPROTO_TCP, 40001, 443, 0);
	expect("unsolicited from 10.1.2.3:40001 to our :443", 0, &f, 0);
	frame_v4(&f, "10.9.9.9", "192.0.2.1", IPPROTO_ICMP, 0, 0, 0);
	expect("icmp to 192.0.2.1 (portless allow)", 1, &f, 1);
	frame_v4(&f, "10.9.9.9", "10.1.2.3", IPPROTO_ICMP, 0, 0, 0);
	expect("icmp to 10.1.2.3 (port rules only)", 1, &f, 0);
	frame_v4(&f, "10.9.9.9", "198.51.100.7", IPPROTO_UDP, 5, 1500, 0);
	expect("udp to 198.51.100.7:1500 (in range)", 1, &f, 1);
	frame_v4(&f, "10.9.9.9", "198.51.100.7", IPPROTO_UDP, 5, 2001, 0);
	expect("udp to 198.51.100.7:2001 (out of range)", 1, &f, 0);
	frame_v4(&f, "10.9.9.9", "198.51.100.7", IPPROTO_UDP, 5, 1500, 1);
	expect("udp fragment to 198.51.100.7 (no ports)", 1, &f, 0);
	frame_v4(&f, "10.9.9.9", "127.0.0.1", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp to 127.0.0.1 (loopback not special)", 1, &f, 0);
	frame_v4(&f, "10.9.9.9", "169.254.169.254", IPPROTO_TCP, 40000, 80, 0);
	expect("tcp to 169.254.169.254 (metadata)", 1, &f, 0);
	frame_v6(&f, "2001:db8::9", "2001:db8:1::53", IPPROTO_UDP, 5353, 53, 0);
	expect("udp6 to [2001:db8:1::53]:53", 1, &f, 1);
	frame_v6(&f, "2001:db8::9", "2001:db8:1::53", IPPROTO_UDP, 5353, 53, 1);
	expect("udp6 with hop-by-hop header to [2001:db8:1::53]:53", 1, &f, 1);
	frame_v6(&f, "2001:db8::9", "2001:db8:1::53", IPPROTO_TCP, 5353, 53, 0);
	expect("tcp6 to [2001:db8:1::53]:53 (udp only)", 1, &f, 0);
	expect_event("egress drop tcp6", AC_OP_SEND, AC_DENIED, "2001:db8:1::53", 53, IPPROTO_TCP);
	frame_v6(&f, "2001:db8::9", "2001:db9::53", IPPROTO_UDP, 5353, 53, 0);
	expect("udp6 to [2001:db9::53]:53 (outside /32)", 1, &f, 0);
	frame_v6(&f, "::1", "::1", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp6 to ::1 (not special)", 1, &f, 0);
	frame_v6(&f, "::1", "::ffff:10.1.2.3", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp6 to ::ffff:10.1.2.3:443 (mapped IPv4)", 1, &f, 1);
	frame_v6(&f, "::1", "::10.1.2.3", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp6 to ::10.1.2.3:443 (IPv4-compatible)", 1, &f, 1);
	frame_v6(&f, "::1", "::ffff:10.0.0.5", IPPROTO_TCP, 40000, 443, 0);
	expect("tcp6 to ::ffff:10.0.0.5:443 (mapped, denied)", 1, &f, 0);

	/* audit: reported, not dropped */
	if (loader_set_cage(&ld, cage.cg.id, cage.policy_id, cage.net_id, cage.gen, 1, 1))
		die("cage", strerror(errno));
	frame_v4(&f, "10.9.9.9", "10.1.2.3", IPPROTO_TCP, 40000, 80, 0);
	expect("audit: tcp to 10.1.2.3:80 (not allowed)", 1, &f, 1);
	expect_event("audit 10.1.2.3:80", AC_OP_SEND, AC_AUDITED, "10.1.2.3", 80, IPPROTO_TCP);
	/* a cage whose entry is gone fails closed */
	{
		int fd = loader_net_map_fd(&ld, "cages");

		bpf_map_delete_elem(fd, &cage.cg.id);
		frame_v4(&f, "10.9.9.9", "10.1.2.3", IPPROTO_TCP, 40000, 443, 0);
		checks++;
		if (test_run(1, &f) != 0) {
			failures++;
			printf("FAIL no cage entry: packet passed\n");
		} else {
			printf("ok   no cage entry: dropped\n");
		}
	}
	leave_cage();
	teardown();
	printf("nettest packets: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

/* ns per egress run with a policy of n host entries (plus the one hit) */
static int cmd_pktbench(int n)
{
	size_t cap = 64 + (size_t)n * 40, o;
	struct frame f;
	char *text;

	text = malloc(cap);
	o = snprintf(text, cap, "network:\n  allow:\n    - 10.255.0.1:443\n");
	for (int i = 0; i < n; i++)
		o += snprintf(text + o, cap - o, "    - 10.%d.%d.%d:%d\n", (i >> 16) & 0xff,
			      (i >> 8) & 0xff, i & 0xff, 1000 + i % 50000);
	setup(NULL, text, 0);
	free(text);
	enter_cage();
	frame_v4(&f, "10.9.9.9", "10.255.0.1", IPPROTO_TCP, 40000, 443, 0);
	LIBBPF_OPTS(bpf_test_run_opts, o2, .data_in = f.b, .data_size_in = f.len, .repeat = 1000000);
	if (bpf_prog_test_run_opts(loader_prog_fd(&ld, 1), &o2) || o2.retval != 1)
		die("test run", o2.retval != 1 ? "allowed packet dropped" : strerror(errno));
	printf("%u\n", o2.duration);
	leave_cage();
	teardown();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc == 2 && !strcmp(argv[1], "packets"))
		return cmd_packets();
	if (argc == 3 && !strcmp(argv[1], "pktbench"))
		return cmd_pktbench(atoi(argv[2]));
	fprintf(stderr, "usage: nettest run [--audit] POLICY -- CMD... | packets | pktbench N\n");
	return 125;
}
