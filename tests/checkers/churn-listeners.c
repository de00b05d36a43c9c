// SPDX-License-Identifier: GPL-2.0
/* churn-stress: the listeners, their ring buffers and the checks of each record. */
#define _GNU_SOURCE
#include "churn-stress.h"

/* ---- listeners ---- */

enum { L_MMAP2 = 1, L_BUILD_ID = 2, L_DATA = 4, L_INHERIT = 8, L_CLOCK = 16 };

struct lsn {
	int fd, cpu;
	pid_t tid;
	unsigned int flags;
	struct perf_event_mmap_page *pg;
	size_t data_size;
	double until;
};

static void malformed(const struct lsn *l, const uint8_t *r, const char *why)
{
	const struct perf_event_header *h = (const void *)r;
	int i, mmap2 = h->type == PERF_RECORD_MMAP2 && h->size > 72;

	if (__atomic_fetch_add(&st[S_MALFORMED], 1, __ATOMIC_RELAXED) >= REPORT_MAX)
		return;
	pthread_mutex_lock(&report_lock);
	fprintf(stderr, "malformed: %s\n  listener mmap2=%d build_id=%d mmap_data=%d inherit=%d cpu-clock=%d tid=%d cpu=%d\n  record type=%u misc=%#x size=%u\n",
		why, !!(l->flags & L_MMAP2), !!(l->flags & L_BUILD_ID),
		!!(l->flags & L_DATA), !!(l->flags & L_INHERIT),
		!!(l->flags & L_CLOCK), l->tid, l->cpu, h->type, h->misc, h->size);
	for (i = 40; mmap2 && i < 64; i++)
		fprintf(stderr, "%s%02x", i == 40 ? "  area " : i == 44 ? " " : "", r[i]);
	if (h->type == PERF_RECORD_MMAP || mmap2)
		fprintf(stderr, "%sname %s\n", mmap2 ? " " : "  ",
			(const char *)r + (mmap2 ? 72 : 40));
	pthread_mutex_unlock(&report_lock);
}

/* the path of a record's file name, *in_dir if it is in our directory */
static struct pfile *lookup(const char *name, int *in_dir)
{
	static const char deleted[] = " (deleted)";
	size_t n, dl = sizeof(deleted) - 1;
	unsigned int i;

	*in_dir = !strncmp(name, dir, dirlen) && name[dirlen] == '/';
	if (!*in_dir)
		return NULL;
	name += dirlen + 1;
	n = strlen(name);
	if (n > dl && !strcmp(name + n - dl, deleted))
		n -= dl;
	for (i = 0; i < nfiles; i++)
		if (strlen(files[i].name) == n && !strncmp(files[i].name, name, n))
			return &files[i];
	return NULL;
}

static const char *check_mmap(const struct lsn *l, const uint8_t *r, size_t size)
{
	const struct perf_event_header *h = (const void *)r;
	int mmap2 = h->type == PERF_RECORD_MMAP2, in_dir, data, known;
	int asked = (l->flags & (L_MMAP2 | L_BUILD_ID)) == (L_MMAP2 | L_BUILD_ID);
	size_t fixed = mmap2 ? 72 : 40, n, i;
	const uint8_t *area = r + 40;
	const char *name = (const char *)r + fixed;
	struct pfile *p;
	uint32_t prot;

	count(S_RECORDS, 1);
	if (size <= fixed)
		return "short record";
	n = strnlen(name, size - fixed);
	if (n == size - fixed || size != fixed + ALIGN_UP(n + 1, 8))
		return "size does not fit the file name";
	for (i = n; i < size - fixed; i++)
		if (name[i])
			return "file name padding not zero";
	if (mmap2 != !!(l->flags & L_MMAP2))
		return "record type not the one the listener asked for";
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    (h->misc & ~(PERF_RECORD_MISC_CPUMODE_MASK |
			 PERF_RECORD_MISC_MMAP_DATA | MISC_BUILD_ID)))
		return "unexpected misc bits";
	data = !!(h->misc & PERF_RECORD_MISC_MMAP_DATA);
	if (data && !(l->flags & L_DATA))
		return "data mapping for a listener without mmap_data";
	if (mmap2)
		memcpy(&prot, r + 64, 4);
	if (mmap2 && data == !!(prot & PROT_EXEC))
		return "MMAP_DATA and PROT_EXEC disagree";
	p = lookup(name, &in_dir);
	if (in_dir && !p)
		return "a file of the stress directory never mapped";

	if ((h->misc & MISC_BUILD_ID) && !asked) {
		/* mainline's listener-order leak: the flag over classic data */
		if (mmap2 && p && !classic_known(p, area))
			return "flag for a listener that did not ask, over unknown data";
		count(S_LEAKED, 1);
		return NULL;
	}
	if (!(h->misc & MISC_BUILD_ID)) {
		count(S_CLASSIC, 1);
		if (mmap2 && p && !classic_known(p, area))
			return "maj/min/ino/ino_generation the file never had";
		return NULL;
	}
	if (area[1] || area[2] || area[3])
		return "reserved bytes not zero";
	if (area[0] < 1 || area[0] > ID_MAX)
		return "build_id_size not 1-20";
	for (i = 4 + area[0]; i < 24; i++)
		if (area[i])
			return "build ID padding not zero";
	if (name[0] == '[' || !strncmp(name, "//anon", 6))
		return "a build ID for a mapping without a file";
	if (p) {
		known = id_known(p, area[0], area + 4);
		if (!known)
			return "an ID the file never had";
		count(known == 2 ? S_TORN : S_DIR_ID, 1);
		__atomic_fetch_or(&sizes_seen, 1U << area[0], __ATOMIC_RELAXED);
	}
	count(S_WITH_ID, 1);
	return NULL;
}

static void check_record(const struct lsn *l, const uint8_t *r, size_t size)
{
	const struct perf_event_header *h = (const void *)r;
	const char *why = NULL;
	uint64_t lost;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		why = check_mmap(l, r, size);
		break;
	case PERF_RECORD_LOST:
		memcpy(&lost, r + 16, 8);
		count(S_LOST, size < 24 ? 0 : lost);
		why = size < 24 ? "short LOST record" : NULL;
		break;
	case PERF_RECORD_FORK:		/* for all mmap listeners */
	case PERF_RECORD_EXIT:
		count(S_OTHER, 1);
		break;
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		count(S_OTHER, 1);
		why = l->flags & L_CLOCK ? NULL : "a sample record for a dummy event";
		break;
	default:
		why = "unexpected record type";
	}
	if (why)
		malformed(l, r, why);
}

static void drain(struct lsn *l)
{
	static __thread uint8_t rec[65536];
	uint64_t head = __atomic_load_n(&l->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = l->pg->data_tail;
	const uint8_t *data = (const uint8_t *)l->pg + l->pg->data_offset;
	struct perf_event_header h;
	size_t off, first;

	while (tail < head) {
		off = tail % l->data_size;
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail) {
			memcpy(rec, &h, sizeof(h));
			malformed(l, rec, "bad record size in the ring buffer");
			break;
		}
		first = l->data_size - off < h.size ? l->data_size - off : h.size;
		memcpy(rec, data + off, first);
		memcpy(rec + first, data, h.size - first);
		check_record(l, rec, h.size);
		tail += h.size;
	}
	__atomic_store_n(&l->pg->data_tail, head, __ATOMIC_RELEASE);
}

static void close_listener(struct lsn *l)
{
	if (l->fd < 0)
		return;
	drain(l);
	munmap(l->pg, PAGE + l->data_size);
	close(l->fd);
	l->fd = -1;
}

static int open_listener(struct lsn *l, unsigned int flags, pid_t tid, int cpu,
			 size_t pages)
{
	struct perf_event_attr attr;

	listener_attr(&attr, !!(flags & L_MMAP2), !!(flags & L_BUILD_ID));
	attr.mmap_data = !!(flags & L_DATA);
	attr.inherit = !!(flags & L_INHERIT);
	if (flags & L_CLOCK) {
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = 10000000;
		attr.sample_type = PERF_SAMPLE_TID;
	}
	l->fd = syscall(SYS_perf_event_open, &attr, tid, cpu,
			-1, PERF_FLAG_FD_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	l->data_size = pages * PAGE;
	l->pg = mmap(NULL, PAGE + l->data_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, l->fd, 0);
	if (l->pg == MAP_FAILED) {
		close(l->fd);
		l->fd = -1;
		return -errno;
	}
	l->flags = flags;
	l->tid = tid;
	l->cpu = cpu;
	return 0;
}

void *reader(void *arg)
{
	struct lsn l[SLOTS];
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, err, cpu;
	unsigned int flags;
	pid_t tid;
	uint64_t rs;

	(void)arg;
	seed(&rs);
	for (i = 0; i < SLOTS; i++)
		l[i].fd = -1;
	while (!stop) {
		for (i = 0; i < SLOTS; i++) {
			if (l[i].fd >= 0 && now() < l[i].until)
				continue;
			close_listener(&l[i]);
			flags = rnd(&rs) & (L_MMAP2 | L_BUILD_ID | L_DATA | L_INHERIT);
			if (rnd(&rs) % 4 == 0)	/* mostly the interesting one */
				flags |= L_MMAP2 | L_BUILD_ID;
			if (rnd(&rs) % 5 == 0)
				flags |= L_CLOCK;
			/*
			 * On a CPU, or on a worker thread; an inherited event
			 * has a ring buffer only on one CPU (perf_mmap()).
			 */
			tid = -1;
			cpu = -1;
			if (rnd(&rs) % 3 == 0)
				flags &= ~L_INHERIT;
			else
				tid = worker_tids[rnd(&rs) % (MAPPERS + 1)];
			if (tid < 0 || flags & L_INHERIT)
				cpu = rnd(&rs) % ncpu;
			err = open_listener(&l[i], flags, tid, cpu, 1 + rnd(&rs) % 2);
			if (err) {
				count(S_OPEN_FAIL, 1);
				/* a worker that just ended is no error */
				if (err != -EMFILE && err != -ENOMEM && err != -ESRCH)
					report_error("perf_event_open: %s", strerror(-err));
				continue;
			}
			count(S_LISTENERS, 1);
			l[i].until = now() + (20 + rnd(&rs) % 400) / 1000.0;
		}
		for (i = 0; i < SLOTS; i++)
			if (l[i].fd >= 0)
				drain(&l[i]);
		sleep_us(rnd(&rs) % 15000);	/* let the buffers overflow */
	}
	for (i = 0; i < SLOTS; i++)
		close_listener(&l[i]);
	return NULL;
}

