/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file layout, written out here rather than taken from
 * perf, for the programs that break perf.data files on purpose
 * (perfdata-mangle, perfdata-fuzz). A file is read whole into memory;
 * values are read and written in the file's byte order.
 */
#ifndef PERFDATA_H
#define PERFDATA_H

#include <byteswap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* struct perf_file_header */
#define PD_MAGIC		"PERFILE2"	/* as a little-endian u64 */
#define PD_MAGIC_SWAPPED	"2ELIFREP"	/* the same u64, big-endian */
#define PD_H_SIZE		8
#define PD_H_ATTR_SIZE		16
#define PD_H_ATTRS		24	/* perf_file_section: offset, size */
#define PD_H_DATA		40
#define PD_H_EVENT_TYPES	56
#define PD_H_FEATURES		72	/* 256 bits, in u64 words */
#define PD_HEADER_SIZE		104

/* record types and misc bits */
enum {
	PD_MMAP = 1, PD_LOST, PD_COMM, PD_EXIT, PD_THROTTLE, PD_UNTHROTTLE,
	PD_FORK, PD_READ, PD_SAMPLE, PD_MMAP2, PD_AUX, PD_ITRACE_START,
	PD_LOST_SAMPLES, PD_SWITCH, PD_SWITCH_CPU_WIDE, PD_NAMESPACES,
	PD_KSYMBOL, PD_BPF_EVENT, PD_CGROUP, PD_TEXT_POKE,
	PD_THREAD_MAP = 73, PD_CPU_MAP = 74, PD_EVENT_UPDATE = 78,
};
#define PD_MISC_CPUMODE_MASK	0x7
#define PD_MISC_MMAP_BUILD_ID	0x4000

/* struct perf_record_mmap2 */
#define PD_M2_PID		8
#define PD_M2_TID		12
#define PD_M2_START		16
#define PD_M2_LEN		24
#define PD_M2_PGOFF		32
#define PD_M2_BUILD_ID_SIZE	40	/* or maj: u32 */
#define PD_M2_RESERVED_1	41
#define PD_M2_RESERVED_2	42
#define PD_M2_BUILD_ID		44	/* 20 bytes */
#define PD_M2_MIN		44
#define PD_M2_INO		48
#define PD_M2_INO_GENERATION	56
#define PD_M2_PROT		64
#define PD_M2_FLAGS		68
#define PD_M2_FILENAME		72

struct pd_file {
	unsigned char *buf;
	size_t len;
	int swapped;		/* of the other byte order than this machine */
};

static inline uint16_t pd_get16(const struct pd_file *f, size_t at)
{
	uint16_t v;

	memcpy(&v, f->buf + at, sizeof(v));
	return f->swapped ? bswap_16(v) : v;
}

static inline uint32_t pd_get32(const struct pd_file *f, size_t at)
{
	uint32_t v;

	memcpy(&v, f->buf + at, sizeof(v));
	return f->swapped ? bswap_32(v) : v;
}

static inline uint64_t pd_get64(const struct pd_file *f, size_t at)
{
	uint64_t v;

	memcpy(&v, f->buf + at, sizeof(v));
	return f->swapped ? bswap_64(v) : v;
}

static inline void pd_put16(struct pd_file *f, size_t at, uint16_t v)
{
	v = f->swapped ? bswap_16(v) : v;
	memcpy(f->buf + at, &v, sizeof(v));
}

static inline void pd_put32(struct pd_file *f, size_t at, uint32_t v)
{
	v = f->swapped ? bswap_32(v) : v;
	memcpy(f->buf + at, &v, sizeof(v));
}

static inline void pd_put64(struct pd_file *f, size_t at, uint64_t v)
{
	v = f->swapped ? bswap_64(v) : v;
	memcpy(f->buf + at, &v, sizeof(v));
}

/*
 * Read a perf.data file of either byte order; extra bytes are allocated
 * after its end for records a caller inserts. 0, or -1 with a message.
 */
static inline int pd_load(struct pd_file *f, const char *path, size_t extra)
{
	FILE *in = fopen(path, "rb");
	long len;

	if (!in || fseek(in, 0, SEEK_END) || (len = ftell(in)) < PD_HEADER_SIZE ||
	    fseek(in, 0, SEEK_SET)) {
		fprintf(stderr, "%s: not a perf.data file\n", path);
		return -1;
	}
	f->len = len;
	f->buf = calloc(1, f->len + extra);
	if (!f->buf || fread(f->buf, 1, f->len, in) != f->len) {
		fprintf(stderr, "%s: cannot read it\n", path);
		return -1;
	}
	fclose(in);
	if (!memcmp(f->buf, PD_MAGIC, 8)) {
		f->swapped = 0;
	} else if (!memcmp(f->buf, PD_MAGIC_SWAPPED, 8)) {
		f->swapped = 1;
	} else {
		fprintf(stderr, "%s: not a perf.data file (magic)\n", path);
		return -1;
	}
	if (pd_get64(f, PD_H_DATA) + pd_get64(f, PD_H_DATA + 8) > f->len) {
		fprintf(stderr, "%s: its data section is past its end\n", path);
		return -1;
	}
	return 0;
}

static inline int pd_save(const struct pd_file *f, const char *path)
{
	FILE *out = fopen(path, "wb");

	if (!out || fwrite(f->buf, 1, f->len, out) != f->len || fclose(out)) {
		fprintf(stderr, "%s: cannot write it\n", path);
		return -1;
	}
	return 0;
}

/* The data section: records from *pos to end. */
static inline size_t pd_data(const struct pd_file *f, size_t *pos)
{
	*pos = pd_get64(f, PD_H_DATA);
	return *pos + pd_get64(f, PD_H_DATA + 8);
}

/* The size of the record at pos, or 0 when it does not fit before end. */
static inline size_t pd_record_size(const struct pd_file *f, size_t pos, size_t end)
{
	size_t size;

	if (pos + 8 > end)
		return 0;
	size = pd_get16(f, pos + 6);
	return size < 8 || pos + size > end ? 0 : size;
}

#define pd_for_each_record(f, pos, size, end)				\
	for ((end) = pd_data((f), &(pos));				\
	     ((size) = pd_record_size((f), (pos), (end))) != 0;		\
	     (pos) += (size))

#endif /* PERFDATA_H */
