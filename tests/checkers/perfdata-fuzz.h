/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of perfdata-fuzz share: the layout of a seed file, the
 * variant being made, and the functions of each part.
 *   perfdata-fuzz.c         main, the variant being made and its output
 *   perfdata-layout.c       where things are in a (valid) perf.data
 *   perfdata-swap.c         a seed as a machine of the other byte order writes it
 *   perfdata-vary-records.c variants of the data section's records
 *   perfdata-vary-header.c  variants of the file header, attrs, features;
 *                           bit flips and truncations
 */
#ifndef PERFDATA_FUZZ_H
#define PERFDATA_FUZZ_H

#include "perfdata.h"

#define EXTRA		(128 * 1024)	/* room for inserted bytes */
#define MAX_RECORDS	4096
#define MAX_ATTRS	64
#define NAME_MAX_U16	65528		/* the longest record, 8-byte aligned */

/* sample_type bits */
#define S_IP		(1ULL << 0)
#define S_TID		(1ULL << 1)
#define S_TIME		(1ULL << 2)
#define S_ADDR		(1ULL << 3)
#define S_CALLCHAIN	(1ULL << 5)
#define S_ID		(1ULL << 6)
#define S_CPU		(1ULL << 7)
#define S_PERIOD	(1ULL << 8)
#define S_STREAM_ID	(1ULL << 9)
#define S_RAW		(1ULL << 10)
#define S_IDENTIFIER	(1ULL << 16)

/* feature bits (enum HEADER_*) */
enum {
	F_TRACING_DATA = 1, F_BUILD_ID, F_HOSTNAME, F_OSRELEASE, F_VERSION,
	F_ARCH, F_NRCPUS, F_CPUDESC, F_CPUID, F_TOTAL_MEM, F_CMDLINE,
	F_EVENT_DESC, F_CPU_TOPOLOGY, F_NUMA_TOPOLOGY, F_BRANCH_STACK,
	F_PMU_MAPPINGS, F_GROUP_DESC, F_AUXTRACE, F_STAT, F_CACHE,
	F_SAMPLE_TIME, F_MEM_TOPOLOGY, F_CLOCKID, F_DIR_FORMAT,
	F_BPF_PROG_INFO, F_BPF_BTF, F_COMPRESSED, F_CPU_PMU_CAPS,
	F_CLOCK_DATA, F_LAST,
};

extern const char *const feat_name[F_LAST];

/* Where things are in a (valid) file */
struct layout {
	size_t data, data_end, attr_size, attrs, nr_attrs;
	size_t attr_at[MAX_ATTRS], attr_len[MAX_ATTRS];
	uint64_t sample_type;
	size_t id_size;			/* of the sample_id trailer */
	int nr_feat;
	struct { int bit; size_t entry, off, size; } feat[F_LAST];
	int nr_rec;
	struct { size_t off, size; uint32_t type; uint16_t misc; } rec[MAX_RECORDS];
};

/* A seed, the working copy made from it, and its layout */
struct seed {
	const char *name;		/* bid or plain: the result to compare with */
	const char *order;		/* "" or "other-endian: " */
	struct pd_file f;
	struct layout l;
};

/* perfdata-fuzz.c: the variant being made from a seed */
extern struct pd_file w;		/* the variant being made */
extern struct layout wl;		/* the layout of the seed it is made from */
uint64_t rnd(void);
void die(const char *msg);
void begin(const struct seed *s);
void __attribute__((format(printf, 2, 3))) emit(const char *check, const char *fmt, ...);
void splice_bytes(size_t at, size_t del, const void *ins, size_t n);
void hex(char *out, const unsigned char *id, size_t n);

/* perfdata-layout.c */
const char *record_name(uint32_t type);
uint8_t revbyte(uint8_t b);
int test_feat(const struct pd_file *f, int bit);
void set_feat(struct pd_file *f, int bit, int on);
size_t trailer_size(uint64_t st);
void parse(const struct pd_file *f, struct layout *l);
int find_record(const struct layout *l, uint32_t type, int n);
int find_mmap2(const struct pd_file *f, const struct layout *l, const char *suffix);

/* perfdata-swap.c */
void sw64s(unsigned char *p, size_t bytes);
void swap_seed(const struct seed *in, struct seed *out);

/* perfdata-vary-records.c */
void mmap2_sizes(const struct seed *s, const int *sizes, int nr_sizes);
void mmap2_fields(const struct seed *s, int full);
void misc_bits(const struct seed *s);
void inserted_records(const struct seed *s);
void record_sizes(const struct seed *s, int full);
void record_contents(const struct seed *s);

/* perfdata-vary-header.c */
void file_header(const struct seed *s, int full);
void attrs(const struct seed *s, int full);
void build_id_table(const struct seed *s, size_t off);
void features(const struct seed *s, int full);
void flips(const struct seed *s, int count);
void truncations(const struct seed *s, int full);

#endif
