// SPDX-License-Identifier: GPL-2.0
/*
 * Churn stress for build IDs in MMAP2 records: usage churn-stress
 * [--allow-leak] [SECONDS] (default 60), run where posix_fadvise() evicts
 * (a disk file system); it works in a directory it creates and removes.
 *
 * Mapper threads mmap, mprotect and munmap the files, an exec thread runs
 * copies of this program; writer threads replace (rename), change in
 * place, truncate, extend, delete and evict them: crafted ELF files with a
 * "GNU" build ID note of every size 1-20, of size 0, 21 and 32, none,
 * ELF32, big-endian, ET_REL, the note on page 3, non-ELF files, and the
 * copies, whose ID gets a new size 1-20 at every replacement. Reader
 * threads open and close listeners (dummy or cpu-clock, with and without
 * mmap2, build_id, mmap_data and inherit, on a worker thread or a CPU)
 * with ring buffers of one or two pages that overflow, and check each
 * record: the flag only for a listener that asked (build_id and mmap2);
 * with it, size 1-20, reserved bytes and padding zero, and for our files
 * an ID the file has had (the writers run their own ELF reader on new
 * content and note its ID before writing it); without it, the maj, min,
 * ino and ino_generation the path has had.
 *
 * The flag over classic fields on a listener that did not ask is
 * mainline's listener-order leak: "leaked", a failure unless --allow-leak
 * (KTAP XFAIL). An ID that mixes, byte by byte, IDs the file had is an
 * in-place write seen halfway (lib/buildid.c says it may happen): "torn",
 * not malformed; the writers change one byte at a time so it stays rare.
 * Prints KTAP and "@@stress seconds=N records=N ...". Exits 0 when all is
 * well, 1 on a failure or hang, 4 (skip) without the build_id bit.
 */
#define _GNU_SOURCE
#include "churn-stress.h"
#include "ktap.h"

struct pfile files[40];
unsigned int nfiles;
size_t page_size;
pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
char dir[PATH_MAX];
size_t dirlen;
uint8_t *tmpl;			/* this program, for K_EXE */
size_t tmpl_len, tmpl_note;
unsigned long st[S_N];
unsigned int sizes_seen;	/* bit N: an ID of N bytes of our files */
volatile int stop;
pid_t worker_tids[MAPPERS + 1];
volatile pid_t exec_child;
pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* room for one more element in *a, which holds n of *cap */
void *grow(void *a, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return a;
	*cap = *cap ? 2 * *cap : 16;
	return xrealloc(a, *cap * size);
}

void count(int i, unsigned long n)
{
	__atomic_fetch_add(&st[i], n, __ATOMIC_RELAXED);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void seed(uint64_t *s)
{
	*s = ((uint64_t)syscall(SYS_gettid) * 0x9e3779b97f4a7c15ULL ^
	      (uint64_t)(now() * 1e9)) | 1;
}

void report_error(const char *fmt, ...)
{
	va_list ap;

	count(S_ERRORS, 1);
	va_start(ap, fmt);
	pthread_mutex_lock(&report_lock);
	fprintf(stderr, "churn-stress: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&report_lock);
	va_end(ap);
}

/* ---- setup, watchdog, report ---- */

static int setup_files(void)
{
	static const struct { const char *name; enum kind kind; unsigned int param; } spec[] = {
		{ "elf32-20", K_ELF32, 20 }, { "elf32-8", K_ELF32, 8 },
		{ "desc0", K_BAD, 0 }, { "desc21", K_BAD, 21 },
		{ "desc32", K_BAD, 32 }, { "skip21", K_SKIP, 12 },
		{ "page2", K_PAGE2, 20 }, { "two-notes", K_TWO, 16 },
		{ "no-note", K_NONOTE, 0 }, { "big-endian", K_BE, 20 },
		{ "et-rel", K_REL, 20 }, { "data1", K_DATA, 0 },
		{ "data2", K_DATA, 0 }, { "exe1", K_EXE, 0 },
		{ "exe2", K_EXE, 0 }, { "exe3", K_EXE, 0 },
	};
	struct elfid e;
	unsigned int i;
	uint64_t rs;
	ssize_t n;
	int fd;

	/* this program, to run under other IDs */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	tmpl = malloc(64 << 20);
	n = fd < 0 || !tmpl ? -1 : read(fd, tmpl, 64 << 20);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return report_error("reading /proc/self/exe"), -1;
	tmpl_len = n;
	tmpl = realloc(tmpl, n);
	elf_read_id(tmpl, tmpl_len, &e);
	if (!e.found || e.size != ID_MAX || e.desc_off != e.note_off + 16)
		return report_error("this program has no 20-byte build ID (--build-id=sha1)"), -1;
	tmpl_note = e.note_off;

	for (i = 1; i <= ID_MAX; i++) {
		snprintf(files[nfiles].name, sizeof(files[0].name), "id%02u", i);
		files[nfiles].kind = K_NOTE;
		files[nfiles++].param = i;
	}
	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		snprintf(files[nfiles].name, sizeof(files[0].name), "%s", spec[i].name);
		files[nfiles].kind = spec[i].kind;
		files[nfiles++].param = spec[i].param;
	}
	seed(&rs);
	for (i = 0; i < nfiles; i++) {
		pthread_mutex_init(&files[i].lock, NULL);
		if (replace(&files[i], &rs))
			return -1;
	}
	return 0;
}

static void cleanup(void)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			unlinkat(dirfd(dp), d->d_name, 0);
	if (dp)
		closedir(dp);
	rmdir(dir);
}

#define T_END	"churn ends, every thread and child finished"
#define T_LEAK	"build ID flag only for listeners that asked"

static void on_alarm(int sig)
{
	static const char msg[] = "not ok 1 " T_END " # watchdog: the run hangs\n";
	pid_t pid = exec_child;

	(void)sig;
	(void)!write(1, msg, sizeof(msg) - 1);
	if (pid > 0)
		kill(pid, SIGKILL);
	_exit(1);
}

int main(int argc, char **argv)
{
	pthread_t th[MAPPERS + 1 + WRITERS + READERS];
	unsigned int seconds = 60, nth = 0, i, sizes;
	int allow_leak = 0, failed = 0, hung = 0, fd;
	struct perf_event_attr attr;
	struct timespec deadline;
	double end;

	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return 0;
	page_size = sysconf(_SC_PAGESIZE);
	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--allow-leak"))
			allow_leak = 1;
		else if (atoi(argv[i]) > 0)
			seconds = atoi(argv[i]);
		else
			return fprintf(stderr, "usage: %s [--allow-leak] [SECONDS]\n",
				       argv[0]), 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	listener_attr(&attr, 1, 1);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		ktap_skip_all("no build_id listener: %s", strerror(errno));
		return 4;
	}
	close(fd);
	if (!getcwd(dir, sizeof(dir) - 64))
		return perror("getcwd"), 1;
	dirlen = strlen(dir);
	dirlen += snprintf(dir + dirlen, sizeof(dir) - dirlen, "/churn-stress.%d",
			   getpid());
	if (mkdir(dir, 0755))
		return perror(dir), 1;

	ktap_plan(5);
	signal(SIGALRM, on_alarm);
	alarm(seconds + 180);
	if (setup_files()) {
		cleanup();
		return ktap_result(KTAP_FAIL, T_END, "setup failed");
	}
	for (i = 0; i < MAPPERS; i++)
		pthread_create(&th[nth++], NULL, mapper, (void *)(long)i);
	pthread_create(&th[nth++], NULL, execer, (void *)(long)MAPPERS);
	for (i = 0; i < WRITERS; i++)
		pthread_create(&th[nth++], NULL, writer, NULL);
	while (!worker_tids[0] || !worker_tids[1] || !worker_tids[MAPPERS])
		sleep_us(1000);
	for (i = 0; i < READERS; i++)
		pthread_create(&th[nth++], NULL, reader, NULL);

	end = now() + seconds;
	while (now() < end)
		sleep_us(100000);
	stop = 1;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 60;
	for (i = 0; i < nth; i++)
		hung |= pthread_timedjoin_np(th[i], NULL, &deadline) != 0;
	if (hung && exec_child > 0)
		kill(exec_child, SIGKILL);
	if (!hung) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		cleanup();
	}
	alarm(0);

	if (hung)
		failed |= ktap_result(KTAP_FAIL, T_END, "a thread hangs 60 s after the end");
	else if (st[S_ERRORS])
		failed |= ktap_result(KTAP_FAIL, T_END, "%lu errors (stderr)", st[S_ERRORS]);
	else
		ktap_result(KTAP_PASS, T_END, NULL);
	if (st[S_MALFORMED])
		failed |= ktap_result(KTAP_FAIL, "every record well formed",
				      "%lu malformed of %lu (stderr)", st[S_MALFORMED], st[S_RECORDS]);
	else
		ktap_result(KTAP_PASS, "every record well formed", NULL);
	if (!st[S_LEAKED])
		ktap_result(KTAP_PASS, T_LEAK, NULL);
	else if (allow_leak)
		ktap_result(KTAP_XFAIL, T_LEAK, "known mainline bug (listener-order leak): %lu records",
			    st[S_LEAKED]);
	else
		failed |= ktap_result(KTAP_FAIL, T_LEAK,
				      "%lu records of listeners without build_id flagged",
				      st[S_LEAKED]);
	for (sizes = 0, i = 1; i <= ID_MAX; i++)
		sizes += !!(sizes_seen & 1U << i);
	if (sizes < ID_MAX)
		failed |= ktap_result(KTAP_FAIL, "build IDs of every size 1-20 checked",
				      "%u sizes of 20", sizes);
	else
		ktap_result(KTAP_PASS, "build IDs of every size 1-20 checked", NULL);
	if (st[S_LOST])
		ktap_result(KTAP_PASS, "ring buffers overflowed", NULL);
	else
		ktap_result(KTAP_SKIP, "ring buffers overflowed", "no record lost");
	printf("# stress_file_ids=%lu torn=%lu other_records=%lu mprotects=%lu exec_failures=%lu deletes=%lu evicts=%lu open_failures=%lu\n",
	       st[S_DIR_ID], st[S_TORN], st[S_OTHER], st[S_MPROTECTS],
	       st[S_EXEC_FAIL], st[S_DELETES], st[S_EVICTS], st[S_OPEN_FAIL]);
	printf("@@stress seconds=%u records=%lu with_id=%lu classic=%lu lost=%lu malformed=%lu leaked=%lu mmaps=%lu execs=%lu rewrites=%lu listeners=%lu\n",
	       seconds, st[S_RECORDS], st[S_WITH_ID], st[S_CLASSIC], st[S_LOST],
	       st[S_MALFORMED], st[S_LEAKED], st[S_MMAPS], st[S_EXECS],
	       st[S_REWRITES], st[S_LISTENERS]);
	ktap_totals();
	fflush(stdout);
	if (hung)
		_exit(1);
	return failed;
}

