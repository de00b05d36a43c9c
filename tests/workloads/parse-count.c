// SPDX-License-Identifier: GPL-2.0
/*
 * How often does the kernel parse a mapped file for its build ID?
 * ABI.md point 5: at most once per mmap, and not at all unless a live
 * event that matches the mapping asked for build IDs in MMAP2 records.
 *
 * The count comes from a kprobe on the parser (FUNC, default
 * build_id_parse) that this program adds through tracefs and reads as a
 * perf counter on itself. For each case it opens the listeners of the
 * case, maps FILE N times and checks how often the parser ran. Prints
 * TAP; exits 4 (kselftest's skip) when it cannot add the kprobe.
 *
 * usage: parse-count FILE [FUNC]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "listener.h"

#define MAPS		100
#define PROBE		"mmap2_parse_count"

enum { BUILD_ID = 1, MMAP2 = 2, OTHER_TASK = 4, DATA = 8 };

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
};

static char tracing[64];

static int perf_open(struct perf_event_attr *attr, pid_t pid)
{
	return syscall(__NR_perf_event_open, attr, pid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int write_str(const char *file, const char *s)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", tracing, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* Add the kprobe; returns its tracepoint id, or -1 saying why. */
static long add_probe(const char *func)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char buf[128];
	unsigned int i;
	FILE *f;
	long id;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(tracing, sizeof(tracing), "%s", dirs[i]);
		snprintf(buf, sizeof(buf), "%s/kprobe_events", tracing);
		if (!access(buf, W_OK))
			break;
	}
	if (i == sizeof(dirs) / sizeof(dirs[0])) {
		printf("1..0 # SKIP no kprobe_events in tracefs (CONFIG_KPROBE_EVENTS, root)\n");
		return -1;
	}
	write_str("kprobe_events", "-:" PROBE "\n");	/* a leftover */
	snprintf(buf, sizeof(buf), "p:%s %s\n", PROBE, func);
	if (write_str("kprobe_events", buf)) {
		printf("1..0 # SKIP cannot probe %s: %s\n", func, strerror(errno));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/events/kprobes/%s/id", tracing, PROBE);
	f = fopen(buf, "r");
	if (!f || fscanf(f, "%ld", &id) != 1) {
		printf("1..0 # SKIP no id for the kprobe on %s\n", func);
		id = -1;
	}
	if (f)
		fclose(f);
	return id;
}

static int open_listener(int flags, pid_t other)
{
	struct perf_event_attr attr;

	listener_attr(&attr, !!(flags & MMAP2), !!(flags & BUILD_ID));
	attr.mmap_data = !!(flags & DATA);
	return perf_open(&attr, flags & OTHER_TASK ? other : 0);
}

int main(int argc, char **argv)
{
	const char *func = argc > 2 ? argv[2] : "build_id_parse";
	struct perf_event_attr attr;
	int counter, fd, failed = 0;
	unsigned int c, i;
	pid_t other;
	long id;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [FUNC]\n", argv[0]);
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	id = add_probe(func);
	if (id < 0)
		return 4;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	counter = perf_open(&attr, 0);
	if (counter < 0) {
		printf("1..0 # SKIP cannot count kprobe hits: %s\n", strerror(errno));
		write_str("kprobe_events", "-:" PROBE "\n");
		return 4;
	}
	other = fork();
	if (!other) {
		pause();
		_exit(0);
	}

	printf("1..%zu\n", sizeof(cases) / sizeof(cases[0]));
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t before = 0, after = 0;
		int l[2] = { -1, -1 }, err = 0;

		for (i = 0; i < 2 && cases[c].listeners[i]; i++) {
			l[i] = open_listener(cases[c].listeners[i], other);
			if (l[i] < 0)
				err = errno;
		}
		if (err) {
			printf("not ok %u %s # perf_event_open: %s\n", c + 1,
			       cases[c].name, strerror(err));
			failed = 1;
		} else if (read(counter, &before, sizeof(before)) != sizeof(before)) {
			printf("not ok %u %s # reading the counter\n", c + 1, cases[c].name);
			failed = 1;
		} else {
			for (i = 0; i < MAPS; i++) {
				void *p = mmap(NULL, 4096, cases[c].prot, MAP_PRIVATE, fd, 0);

				if (p != MAP_FAILED)
					munmap(p, 4096);
			}
			if (read(counter, &after, sizeof(after)) != sizeof(after))
				after = before - 1;
			if (after - before == (uint64_t)MAPS * cases[c].parses) {
				printf("ok %u %s\n", c + 1, cases[c].name);
			} else {
				printf("not ok %u %s # %d mappings, %llu parses, expected %d\n",
				       c + 1, cases[c].name, MAPS,
				       (unsigned long long)(after - before),
				       MAPS * cases[c].parses);
				failed = 1;
			}
		}
		for (i = 0; i < 2; i++)
			if (l[i] >= 0)
				close(l[i]);
	}
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	close(counter);
	write_str("kprobe_events", "-:" PROBE "\n");
	return failed;
}
