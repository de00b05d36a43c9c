// SPDX-License-Identifier: GPL-2.0
/*
 * What a build-ID listener adds to mmap(): time mmap()+munmap() of an ELF
 * file (PROT_EXEC) under a listener with mmap2 and build_id, and under one
 * with mmap2 only, in alternating rounds, and print the median of the
 * per-round ratios. Ratios, not absolute times: the machine is shared.
 * usage: mmap-cost FILE [ROUNDS [MAPS_PER_ROUND]]
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../workloads/listener.h"

#define RING_PAGES 256

static int open_listener(int build_id, void **ring)
{
	struct perf_event_attr attr;
	int fd;

	listener_attr(&attr, 1, build_id);
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		exit(2);
	}
	*ring = mmap(NULL, (RING_PAGES + 1) * sysconf(_SC_PAGESIZE),
		     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED) {
		perror("mmap ring");
		exit(2);
	}
	return fd;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds for @n mmap()+munmap() pairs under the listener. */
static double round_time(int build_id, int file, int n)
{
	struct perf_event_mmap_page *pc;
	long page = sysconf(_SC_PAGESIZE);
	void *ring;
	double t0, t;
	int fd, i;

	fd = open_listener(build_id, &ring);
	pc = ring;
	t0 = now();
	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, file, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		munmap(p, page);
		if (!(i % 64))	/* consume, so that no record is lost */
			pc->data_tail = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	}
	t = now() - t0;
	munmap(ring, (RING_PAGES + 1) * page);
	close(fd);
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 21;
	int n = argc > 3 ? atoi(argv[3]) : 2000;
	double *ratio, with = 0, without = 0;
	int file, r;

	if (argc < 2 || rounds < 1 || n < 1) {
		fprintf(stderr, "usage: %s FILE [ROUNDS [MAPS_PER_ROUND]]\n", argv[0]);
		return 2;
	}
	file = open(argv[1], O_RDONLY);
	if (file < 0) {
		perror(argv[1]);
		return 2;
	}
	ratio = calloc(rounds, sizeof(*ratio));
	round_time(1, file, n);	/* warm up */
	for (r = 0; r < rounds; r++) {
		/* alternate which goes first */
		double a = r & 1 ? round_time(0, file, n) : 0;
		double b = round_time(1, file, n);

		if (!(r & 1))
			a = round_time(0, file, n);
		ratio[r] = b / a;
		with += b;
		without += a;
	}
	qsort(ratio, rounds, sizeof(*ratio), cmp);
	printf("mmap()+munmap() of %s, %d rounds of %d: build_id/mmap2-only median ratio %.3f (min %.3f, max %.3f; %.2f vs %.2f us per pair)\n",
	       argv[1], rounds, n, ratio[rounds / 2], ratio[0], ratio[rounds - 1],
	       with / rounds / n * 1e6, without / rounds / n * 1e6);
	return 0;
}
