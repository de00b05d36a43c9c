// SPDX-License-Identifier: GPL-2.0
/*
 * What a build-ID listener adds to mmap(): time mmap()+munmap() of ELF
 * files (PROT_EXEC) with no listener, under a listener with mmap2 only and
 * under one with mmap2 and build_id. A round measures each file under the
 * three variants in blocks of BLOCK pairs, the variants taking turns block
 * by block (in an order that rotates), so that the noise of a shared
 * machine falls on all of them alike. Prints one line per file, round and
 * variant, for scripts/lib/bench-report:
 *   mmap ROUND FILE VARIANT NS_PER_PAIR
 * with VARIANT none, mmap2 or build_id.
 *
 * Each mmap()+munmap() pair is also a span for QEMU's instruction
 * counter (insn-mark.h), tagged 1 + VARIANT + 3 * FILE_INDEX. A line
 *   tag TAG FILE VARIANT mmap 1
 * per file and variant says which tag counts what (one mmap() a span).
 * usage: mmap-cost ROUNDS MAPS_PER_ROUND FILE...
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

#include "../checkers/listener.h"
#include "insn-mark.h"

#define RING_PAGES 256
#define BLOCK 2000

#define MAX_FILES 8	/* 3 tags each, within MARK_MAX */

enum variant { NONE, MMAP2, BUILD_ID, NR_VARIANTS };
static const char *const variant_name[NR_VARIANTS] = { "none", "mmap2", "build_id" };

static int open_listener(int build_id, void **ring, size_t ring_size)
{
	struct perf_event_attr attr;
	int fd;

	listener_attr(&attr, 1, build_id);
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror(build_id ? "perf_event_open (build_id)" : "perf_event_open");
		exit(2);
	}
	*ring = mmap(NULL, ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED) {
		perror("mmap ring");
		exit(2);
	}
	return fd;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Nanoseconds for @n mmap()+munmap() pairs of @file under @v, each
 * bracketed by marks with @tag (0: none; an end mark without a start
 * mark counts nothing).
 */
static int64_t pairs_ns(enum variant v, int file, int n, int tag)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t ring_size = (RING_PAGES + 1) * page;
	struct perf_event_mmap_page *pc = NULL;
	void *ring = NULL;
	int64_t t0, t;
	int fd = -1, i;

	if (v != NONE) {
		fd = open_listener(v == BUILD_ID, &ring, ring_size);
		pc = ring;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		void *p;

		mark(tag);
		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, file, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		munmap(p, page);
		mark(MARK_END);
		if (pc && !(i % 64))	/* consume, so that no record is lost */
			pc->data_tail = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	}
	t = now_ns() - t0;
	if (fd >= 0) {
		munmap(ring, ring_size);
		close(fd);
	}
	return t;
}

int main(int argc, char **argv)
{
	int rounds, n, r, f, k;

	if (argc < 4 || argc > 3 + MAX_FILES ||
	    (rounds = atoi(argv[1])) < 1 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: %s ROUNDS MAPS_PER_ROUND FILE... (at most %d)\n",
			argv[0], MAX_FILES);
		return 2;
	}
	for (f = 3; f < argc; f++) {
		int file = open(argv[f], O_RDONLY);

		if (file < 0) {
			perror(argv[f]);
			return 2;
		}
		pairs_ns(BUILD_ID, file, BLOCK, 0);	/* warm up: page cache, slabs */
		close(file);
		for (k = 0; k < NR_VARIANTS; k++)
			printf("tag %d %s %s mmap 1\n", 1 + k + NR_VARIANTS * (f - 3),
			       argv[f], variant_name[k]);
	}
	for (r = 0; r < rounds; r++) {
		for (f = 3; f < argc; f++) {
			int64_t ns[NR_VARIANTS] = { 0 };
			int file = open(argv[f], O_RDONLY);
			int done, b;

			if (file < 0) {
				perror(argv[f]);
				return 2;
			}
			for (done = 0, b = 0; done < n; done += BLOCK, b++) {
				int len = n - done < BLOCK ? n - done : BLOCK;

				for (k = 0; k < NR_VARIANTS; k++) {
					enum variant v = (r + b + k) % NR_VARIANTS;

					ns[v] += pairs_ns(v, file, len,
							  1 + v + NR_VARIANTS * (f - 3));
				}
			}
			for (k = 0; k < NR_VARIANTS; k++)
				printf("mmap %d %s %s %.0f\n", r, argv[f], variant_name[k],
				       (double)ns[k] / n);
			fflush(stdout);
			close(file);
		}
	}
	return 0;
}
