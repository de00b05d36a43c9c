// SPDX-License-Identifier: GPL-2.0
/*
 * How often does the kernel parse a mapped file for its build ID?
 * The series parses a file at most once per mmap, and not at all unless a live
 * event that matches the mapping, and may get its record, asked for build
 * IDs in MMAP2 records. A listener bound to another CPU may: the task can
 * move there before the record is written (the lookup runs with
 * preemption enabled, before the output pass).
 *
 * The count comes from a kprobe on the parser (FUNC, default
 * build_id_parse) that this program adds through tracefs and reads as a
 * perf counter on itself. For each case it opens the listeners of the
 * case, maps FILE N times and checks how often the parser ran. Prints
 * KTAP; exits 4 (kselftest's skip) when it cannot add the kprobe.
 *
 * usage: parse-count FILE [FUNC]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kprobe-count.h"
#include "ktap.h"
#include "listener.h"

#define MAPS		100

enum { BUILD_ID = 1, MMAP2 = 2, OTHER_TASK = 4, DATA = 8, THIS_CPU = 16, OTHER_CPU = 32 };

static const struct {
	const char *name;
	int listeners[2];	/* flags of up to two listeners, 0: none */
	int prot;		/* of the mappings */
	int parses;		/* per mapping */
} cases[] = {
	{ "no listener", { 0, 0 }, PROT_READ | PROT_EXEC, 0 },
	{ "MMAP2 listener without build_id", { MMAP2, 0 }, PROT_READ | PROT_EXEC, 0 },
	{ "build_id without mmap2 (plain MMAP records)", { BUILD_ID, 0 },
	  PROT_READ | PROT_EXEC, 0 },
	{ "build_id listener on another task", { BUILD_ID | MMAP2 | OTHER_TASK, 0 },
	  PROT_READ | PROT_EXEC, 0 },
	{ "build_id listener, data mapping it does not watch", { BUILD_ID | MMAP2, 0 },
	  PROT_READ, 0 },
	{ "one build_id listener", { BUILD_ID | MMAP2, 0 }, PROT_READ | PROT_EXEC, 1 },
	{ "two build_id listeners: parsed once", { BUILD_ID | MMAP2, BUILD_ID | MMAP2 },
	  PROT_READ | PROT_EXEC, 1 },
	{ "build_id and MMAP2-only listeners: parsed once", { MMAP2, BUILD_ID | MMAP2 },
	  PROT_READ | PROT_EXEC, 1 },
	{ "build_id listener watching data mappings", { BUILD_ID | MMAP2 | DATA, 0 },
	  PROT_READ, 1 },
	{ "build_id listener bound to the task's CPU", { BUILD_ID | MMAP2 | THIS_CPU, 0 },
	  PROT_READ | PROT_EXEC, 1 },
	{ "build_id listener bound to another CPU: the task may move there",
	  { BUILD_ID | MMAP2 | OTHER_CPU, 0 }, PROT_READ | PROT_EXEC, 1 },
	{ "build_id listener bound to another CPU, data mapping it does not watch",
	  { BUILD_ID | MMAP2 | OTHER_CPU, 0 }, PROT_READ, 0 },
	{ "build_id listener bound to another CPU watching data mappings",
	  { BUILD_ID | MMAP2 | OTHER_CPU | DATA, 0 }, PROT_READ, 1 },
};

/* the task runs on cpus[0] while a case has a listener bound to a CPU */
static int cpus[2] = { -1, -1 };

static void find_cpus(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_listener(int flags, pid_t other)
{
	struct perf_event_attr attr;

	listener_attr(&attr, !!(flags & MMAP2), !!(flags & BUILD_ID));
	attr.mmap_data = !!(flags & DATA);
	if (flags & (THIS_CPU | OTHER_CPU))
		return syscall(__NR_perf_event_open, &attr, -1,
			       cpus[flags & THIS_CPU ? 0 : 1], -1,
			       PERF_FLAG_FD_CLOEXEC);
	return perf_open(&attr, flags & OTHER_TASK ? other : 0);
}

int main(int argc, char **argv)
{
	const char *func = argc > 2 ? argv[2] : "build_id_parse";
	int counter, fd, failed = 0;
	unsigned int c, i;
	char why[160];
	pid_t other;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [FUNC]\n", argv[0]);
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	counter = kprobe_counter(func, why, sizeof(why));
	if (counter < 0) {
		ktap_skip_all("%s", why);
		return 4;
	}
	other = fork();
	if (!other) {
		pause();
		_exit(0);
	}

	find_cpus();
	ktap_plan(sizeof(cases) / sizeof(cases[0]));
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t before = 0, after = 0;
		int l[2] = { -1, -1 }, err = 0;
		int bound = cases[c].listeners[0] & (THIS_CPU | OTHER_CPU);

		if (bound && cpus[1] < 0) {
			ktap_result(KTAP_SKIP, cases[c].name, "one CPU only");
			continue;
		}
		if (bound && pin(cpus[0])) {
			failed |= ktap_result(KTAP_FAIL, cases[c].name,
					      "sched_setaffinity: %s", strerror(errno));
			continue;
		}
		for (i = 0; i < 2 && cases[c].listeners[i]; i++) {
			l[i] = open_listener(cases[c].listeners[i], other);
			if (l[i] < 0)
				err = errno;
		}
		if (err) {
			failed |= ktap_result(KTAP_FAIL, cases[c].name,
					      "perf_event_open: %s", strerror(err));
		} else if (read(counter, &before, sizeof(before)) != sizeof(before)) {
			failed |= ktap_result(KTAP_FAIL, cases[c].name, "reading the counter");
		} else {
			for (i = 0; i < MAPS; i++) {
				void *p = mmap(NULL, 4096, cases[c].prot, MAP_PRIVATE, fd, 0);

				if (p != MAP_FAILED)
					munmap(p, 4096);
			}
			if (read(counter, &after, sizeof(after)) != sizeof(after))
				after = before - 1;
			if (after - before == (uint64_t)MAPS * cases[c].parses) {
				ktap_result(KTAP_PASS, cases[c].name, NULL);
			} else {
				failed |= ktap_result(KTAP_FAIL, cases[c].name,
						      "%d mappings, %llu parses, expected %d", MAPS,
						      (unsigned long long)(after - before),
						      MAPS * cases[c].parses);
			}
		}
		for (i = 0; i < 2; i++)
			if (l[i] >= 0)
				close(l[i]);
	}
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	close(counter);
	kprobe_remove();
	ktap_totals();
	return failed;
}
