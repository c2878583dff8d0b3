// SPDX-License-Identifier: GPL-2.0-only
/* Loopback TCP connection rate, for make bench.
 *   connrate serve PORT             accept and close, forever
 *   connrate client PORT SECONDS    connect/close to 127.0.0.1:PORT; prints connections/s
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: connrate serve PORT | client PORT SECONDS\n");
		return 2;
	}
	a.sin_port = htons(atoi(argv[2]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!strcmp(argv[1], "serve")) {
		int s = socket(AF_INET, SOCK_STREAM, 0);

		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, (void *)&a, sizeof(a)) || listen(s, 4096)) {
			perror("connrate: bind/listen");
			return 1;
		}
		for (;;) {
			int c = accept(s, NULL, NULL);

			if (c >= 0)
				close(c);
		}
	}
	if (argc < 4)
		return 2;
	double secs = atof(argv[3]), t0 = now(), t;
	long n = 0;
	struct linger l = { 1, 0 };   /* RST on close: no TIME_WAIT pile-up */

	do {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		if (connect(c, (void *)&a, sizeof(a))) {
			perror("connrate: connect");
			return 1;
		}
		close(c);
		n++;
	} while ((t = now()) - t0 < secs);
	printf("%.0f\n", n / (t - t0));
	return 0;
}
