// SPDX-License-Identifier: GPL-2.0
/*
 * Exec-heavy work: fork() and execv() PROG N times, one after the other,
 * and print the time it took:
 *   exec N PROG NS_TOTAL
 * With INSN_TAG=TAG in the environment (1 to MARK_MAX), each fork, exec
 * and wait is a span for QEMU's instruction counter (insn-mark.h). With
 * LISTENER=mmap2 or LISTENER=build_id, it runs them under system-wide
 * listeners of its own, one per CPU, an MMAP2-only one or a build-ID one:
 * the kernel's side of perf record -a, without perf's user space.
 * usage: exec-loop N PROG [ARGS...]
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../checkers/listener.h"
#include "insn-mark.h"

#define RING_PAGES 64
#define MAX_CPUS 64

static struct perf_event_mmap_page *rings[MAX_CPUS];
static int nr_rings;

/* A listener on every CPU, or none; exits on failure */
static void open_listeners(const char *kind)
{
	long page = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_event_attr attr;
	int cpu, fd;

	if (!kind || !strcmp(kind, "none"))
		return;
	if (strcmp(kind, "mmap2") && strcmp(kind, "build_id")) {
		fprintf(stderr, "LISTENER=%s: none, mmap2 or build_id\n", kind);
		exit(2);
	}
	listener_attr(&attr, 1, !strcmp(kind, "build_id"));
	for (cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
		if (fd < 0) {
			perror("perf_event_open");
			exit(2);
		}
		rings[nr_rings] = mmap(NULL, (RING_PAGES + 1) * page,
				       PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rings[nr_rings] == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		nr_rings++;
	}
}

/* Consume what the listeners wrote, so that no record is lost */
static void drain(void)
{
	int i;

	for (i = 0; i < nr_rings; i++)
		rings[i]->data_tail = __atomic_load_n(&rings[i]->data_head,
						      __ATOMIC_ACQUIRE);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n, i, status, tag = getenv("INSN_TAG") ? atoi(getenv("INSN_TAG")) : 0;
	int64_t t0;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: %s N PROG [ARGS...]\n", argv[0]);
		return 2;
	}
	open_listeners(getenv("LISTENER"));
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		mark(tag);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			execv(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: run %d failed (status 0x%x)\n", argv[2], i, status);
			return 1;
		}
		mark(MARK_END);
		drain();
	}
	printf("exec %d %s %lld\n", n, argv[2], (long long)(now_ns() - t0));
	return 0;
}
