/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count how often a kernel function runs in this task: a kprobe added
 * through tracefs, read as a perf counter on the calling thread. Used by
 * parse-count and bpf-stackmap to count the build ID parser.
 */
#ifndef WORKLOADS_KPROBE_COUNT_H
#define WORKLOADS_KPROBE_COUNT_H

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KPROBE_NAME	"mmap2_parse_count"

static char kprobe_tracing[64];

static inline int perf_open(struct perf_event_attr *attr, pid_t pid)
{
	return syscall(__NR_perf_event_open, attr, pid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static inline int tracefs_write(const char *file, const char *s)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", kprobe_tracing, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static inline void kprobe_remove(void)
{
	tracefs_write("kprobe_events", "-:" KPROBE_NAME "\n");
}

/*
 * A counter of the calls of @func in this thread, or -1 after writing
 * why not to @why (@len bytes).
 */
static inline int kprobe_counter(const char *func, char *why, size_t len)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	struct perf_event_attr attr;
	char buf[128];
	unsigned int i;
	long id = -1;
	FILE *f;
	int fd;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(kprobe_tracing, sizeof(kprobe_tracing), "%s", dirs[i]);
		snprintf(buf, sizeof(buf), "%s/kprobe_events", kprobe_tracing);
		if (!access(buf, W_OK))
			break;
	}
	if (i == sizeof(dirs) / sizeof(dirs[0])) {
		snprintf(why, len, "no kprobe_events in tracefs (CONFIG_KPROBE_EVENTS, root)");
		return -1;
	}
	kprobe_remove();	/* a leftover */
	snprintf(buf, sizeof(buf), "p:%s %s\n", KPROBE_NAME, func);
	if (tracefs_write("kprobe_events", buf)) {
		snprintf(why, len, "cannot probe %s: %s", func, strerror(errno));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/events/kprobes/%s/id", kprobe_tracing,
		 KPROBE_NAME);
	f = fopen(buf, "r");
	if (!f || fscanf(f, "%ld", &id) != 1)
		id = -1;
	if (f)
		fclose(f);
	if (id < 0) {
		snprintf(why, len, "no id for the kprobe on %s", func);
		kprobe_remove();
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	fd = perf_open(&attr, 0);
	if (fd < 0) {
		snprintf(why, len, "cannot count kprobe hits: %s", strerror(errno));
		kprobe_remove();
	}
	return fd;
}

static inline uint64_t counter_read(int fd)
{
	uint64_t n = 0;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return UINT64_MAX;
	return n;
}

#endif
