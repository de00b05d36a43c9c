/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of churn-stress share: the files, the counters, the
 * helpers, and each part's entry points.
 *   churn-stress.c     main: setup, the threads, watchdog, report
 *   churn-files.c      what each path has had; the content the writers write
 *   churn-workers.c    writers, mappers and the exec thread
 *   churn-listeners.c  listeners, their ring buffers and the record checks
 *   elf-id.c           the tests' own ELF build-ID reader (shared)
 */
#ifndef CHURN_STRESS_H
#define CHURN_STRESS_H

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf-id.h"
#include "listener.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the crafted files and the reader assume a little-endian kernel"
#endif

#define MISC_BUILD_ID	(1 << 14)	/* PERF_RECORD_MISC_MMAP_BUILD_ID */
#define ID_MAX		ELF_ID_MAX
#define LAYOUT_PAGE	4096		/* the crafted files' layout */
#define FLEN		(3 * LAYOUT_PAGE)	/* the crafted files */
#define PAGE		page_size	/* mappings and ring buffers */
#define ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))
#define MAPPERS		2
#define WRITERS		2
#define READERS		2
#define SLOTS		3		/* listeners per reader thread */
#define REPORT_MAX	10		/* malformed records shown */
#define TORN_SPAN	4

extern char **environ;
extern size_t page_size;		/* sysconf(_SC_PAGESIZE) */

/* ---- the files ---- */

enum kind { K_NOTE, K_ELF32, K_BAD, K_SKIP, K_PAGE2, K_TWO, K_NONOTE, K_BE,
	    K_REL, K_DATA, K_EXE };

struct idrec { uint8_t size, id[ID_MAX]; };
struct inorec { uint32_t maj, min, gen; int gen_known; uint64_t ino; };

struct pfile {
	char name[16];
	enum kind kind;
	unsigned int param;		/* descriptor size */
	pthread_mutex_t lock;		/* one writer at a time */
	uint8_t *cur;			/* what the path holds now */
	size_t len, flip_off, flip_len;
	int exists;
	double last_flip;
	/* under tab_lock: everything the path has had */
	struct idrec *ids;
	size_t nids, capids;
	struct inorec *inos;
	size_t ninos, capinos;
};

extern struct pfile files[40];
extern unsigned int nfiles;
extern pthread_mutex_t tab_lock;
extern char dir[PATH_MAX];
extern size_t dirlen;
extern uint8_t *tmpl;			/* this program, for K_EXE */
extern size_t tmpl_len, tmpl_note;

/* ---- counters ---- */

enum { S_RECORDS, S_WITH_ID, S_CLASSIC, S_LOST, S_MALFORMED, S_LEAKED,
       S_TORN, S_DIR_ID, S_OTHER, S_MMAPS, S_MPROTECTS, S_EXECS, S_EXEC_FAIL,
       S_REWRITES, S_DELETES, S_EVICTS, S_LISTENERS, S_OPEN_FAIL, S_ERRORS,
       S_N };
extern unsigned long st[S_N];
extern unsigned int sizes_seen;	/* bit N: an ID of N bytes of our files */
extern volatile int stop;
extern pid_t worker_tids[MAPPERS + 1];
extern volatile pid_t exec_child;
extern pthread_mutex_t report_lock;

/* churn-stress.c */
void *xrealloc(void *p, size_t n);
void *grow(void *a, size_t n, size_t *cap, size_t size);
void count(int i, unsigned long n);
double now(void);
void sleep_us(long us);
uint64_t rnd(uint64_t *s);
void seed(uint64_t *s);
void __attribute__((format(printf, 1, 2))) report_error(const char *fmt, ...);

/* churn-files.c */
void note_content(struct pfile *p, const uint8_t *b, size_t len);
void add_inode(struct pfile *p, int fd);
int id_known(struct pfile *p, unsigned int size, const uint8_t *id);
int classic_known(struct pfile *p, const uint8_t *area);
uint8_t *gen_content(struct pfile *p, uint64_t *rs, size_t *len);

/* churn-workers.c */
int replace(struct pfile *p, uint64_t *rs);
void *writer(void *arg);
void *mapper(void *arg);
void *execer(void *arg);

/* churn-listeners.c */
void *reader(void *arg);

#endif
