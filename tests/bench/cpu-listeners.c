// SPDX-License-Identifier: GPL-2.0
/*
 * What listeners bound to every CPU (perf record -a --buildid-mmap) add to
 * mmap() and exec, for QEMU's instruction counter at several guest CPU
 * counts: the kernel's check of whether a listener wants the build ID
 * must not cost more with more CPUs. Opens a build-ID listener (mmap2,
 * build_id, no mmap_data) on each online CPU, or none, and makes spans
 * (insn-mark.h) of mmap()+munmap() of a data file (PROT_READ, which no
 * such listener takes), of a shared library (PROT_EXEC) and of a
 * fork+exec+wait of a program. As perf record does, another process holds
 * the listeners and their ring buffers (in this one, the rings' mappings
 * would make every mmap() dearer the more CPUs there are); it does not
 * read them, so that it adds nothing to the spans, which the counter
 * counts for the whole machine: the rings are large enough to lose
 * nothing. This process runs on the first CPU. Prints, for
 * scripts/lib/bench-report:
 *   tag TAG NAME VARIANT KIND 1      (which tag counts what)
 *   cpus N                           (online CPUs, listeners per variant)
 * with VARIANT none or build_id, KIND mmap or exec.
 * usage: cpu-listeners SPANS DATA_FILE LIBRARY PROGRAM
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../checkers/listener.h"
#include "insn-mark.h"

#define TAG_BASE	40	/* after mmap-cost's and bench.sh's tags */
#define RING_PAGES	128

enum { DATA, LIBRARY, EXEC, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "data-file", "libc", "fork-exec" };

struct ring {
	int fd;
	struct perf_event_mmap_page *pc;
};

static struct ring *rings;
static int nr_rings;
static size_t ring_size;

static void open_listeners(int ncpus)
{
	struct perf_event_attr attr;
	int cpu;

	listener_attr(&attr, 1, 1);
	rings = calloc(ncpus, sizeof(*rings));
	if (!rings)
		exit(2);
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct ring *r = &rings[nr_rings];

		r->fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
		if (r->fd < 0)
			continue;	/* an offline CPU */
		r->pc = mmap(NULL, ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (r->pc == MAP_FAILED) {
			perror("mmap ring");
			exit(2);
		}
		nr_rings++;
	}
	if (!nr_rings) {
		perror("perf_event_open (build_id, one per CPU)");
		exit(2);
	}
}

/* A process that holds the listeners until it is killed */
static pid_t start_holder(int ncpus)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		exit(2);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		open_listeners(ncpus);
		if (write(ready[1], "", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		fprintf(stderr, "the listeners' process failed\n");
		exit(2);
	}
	close(ready[0]);
	return pid;
}

static void span(int kind, int tag, int fd, char *program)
{
	long page = sysconf(_SC_PAGESIZE);
	char *argv[] = { program, NULL };
	pid_t pid;
	void *p;

	mark(tag);
	if (kind == EXEC) {
		pid = fork();
		if (!pid) {
			execv(program, argv);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	} else {
		p = mmap(NULL, page, kind == DATA ? PROT_READ : PROT_READ | PROT_EXEC,
			 MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		munmap(p, page);
	}
	mark(MARK_END);
}

int main(int argc, char **argv)
{
	int spans, v, k, i, fds[NR_KINDS] = { -1, -1, -1 };
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	pid_t holder = 0;
	cpu_set_t set;

	if (argc != 5 || (spans = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: %s SPANS DATA_FILE LIBRARY PROGRAM\n", argv[0]);
		return 2;
	}
	for (k = DATA; k <= LIBRARY; k++) {
		fds[k] = open(argv[2 + k], O_RDONLY);
		if (fds[k] < 0) {
			perror(argv[2 + k]);
			return 2;
		}
	}
	ring_size = (RING_PAGES + 1) * sysconf(_SC_PAGESIZE);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 2;
	}
	for (v = 0; v < 2; v++)
		for (k = 0; k < NR_KINDS; k++)
			printf("tag %d %s %s %s 1\n", TAG_BASE + v * NR_KINDS + k,
			       kind_name[k], v ? "build_id" : "none",
			       k == EXEC ? "exec" : "mmap");
	printf("cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	for (v = 0; v < 2; v++) {
		if (v)
			holder = start_holder(ncpus);
		/* warm up: page cache, slabs, QEMU's translations */
		for (k = 0; k < NR_KINDS; k++)
			span(k, 0, fds[k], argv[4]);
		for (i = 0; i < spans; i++) {
			for (k = 0; k < NR_KINDS; k++)
				span(k, TAG_BASE + v * NR_KINDS + k, fds[k], argv[4]);
		}
		if (holder) {
			kill(holder, SIGKILL);
			waitpid(holder, NULL, 0);
		}
	}
	return 0;
}
