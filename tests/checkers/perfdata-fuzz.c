// SPDX-License-Identifier: GPL-2.0
/*
 * Corrupted perf.data files, made from seed files recorded on this
 * machine, for tests that perf copes with them: a clear message or a
 * correct result, never a crash. The variants are the same for the same
 * seeds and PRNG seed.
 *
 * usage: perfdata-fuzz [-F] [-s SEED] [-f FLIPS] OUTDIR BID.data [PLAIN.data]
 *   BID.data    recorded with perf record --buildid-mmap
 *   PLAIN.data  recorded without it (a build-id table in the header)
 *   -F          the full set: every value of each field, all the variants
 *               on the other seed and byte order too (about twice as many)
 *   -s SEED     the PRNG seed (default 1)
 *   -f FLIPS    how many variants with random bit flips (default 40, 100
 *               with -F)
 * It prints how many variants it wrote, and writes the seeds as it used
 * them to OUTDIR/bid.data and OUTDIR/plain.data.
 *
 * It writes OUTDIR/NNNN.data and OUTDIR/index, a line per file:
 *   NNNN <TAB> SEED <TAB> CHECK <TAB> what was changed
 * SEED is the seed the file was made from (bid or plain; its other byte
 * order too, which the description says), CHECK what perf must give:
 *   -             any result or a clear error
 *   same          the seed's buildid-list and report
 *   id:/NAME=HEX[,/NAME=HEX...]
 *                 the seed's buildid-list, but the file whose path ends in
 *                 /NAME has the build ID HEX, or is not listed for "-"
 *
 * The variants: every field of an MMAP2 record with a build ID (all 256
 * build_id_size values), the build-ID misc bit on the other record types,
 * records whose header.size is wrong, file header fields that disagree
 * with the file, feature sections, random bit flips, truncated files, and
 * the seeds and some of those in the other byte order: the seeds
 * converted as a machine of the other byte order would have written
 * them, which perf tells by the magic it reads swapped. Feature sections
 * this program cannot convert are left out of those.
 */
#include <stdarg.h>
#include <unistd.h>
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

static const char *const feat_name[F_LAST] = {
	"", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
	"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE",
	"EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK",
	"PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE",
	"SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA",
};

static const char *record_name(uint32_t type)
{
	static const char *const names[] = {
		"?", "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE",
		"FORK", "READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START",
		"LOST_SAMPLES", "SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES",
		"KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE",
	};

	if (type < sizeof(names) / sizeof(names[0]))
		return names[type];
	switch (type) {
	case 68: return "FINISHED_ROUND";
	case PD_THREAD_MAP: return "THREAD_MAP";
	case PD_CPU_MAP: return "CPU_MAP";
	default: return "other";
	}
}

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

static const char *outdir;
static FILE *idx;
static unsigned int nr_out;
static uint64_t rng = 1;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static void die(const char *msg)
{
	fprintf(stderr, "perfdata-fuzz: %s\n", msg);
	exit(1);
}

static uint8_t revbyte(uint8_t b)
{
	uint8_t r = 0;
	int i;

	for (i = 0; i < 8; i++)
		if (b & (1 << i))
			r |= 0x80 >> i;
	return r;
}

static int test_feat(const struct pd_file *f, int bit)
{
	return (pd_get64(f, PD_H_FEATURES + bit / 64 * 8) >> (bit % 64)) & 1;
}

static void set_feat(struct pd_file *f, int bit, int on)
{
	size_t at = PD_H_FEATURES + bit / 64 * 8;
	uint64_t w = pd_get64(f, at), m = 1ULL << (bit % 64);

	pd_put64(f, at, on ? w | m : w & ~m);
}

static size_t trailer_size(uint64_t st)
{
	uint64_t bits[] = { S_TID, S_TIME, S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER };
	size_t i, n = 0;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		n += (st & bits[i]) ? 8 : 0;
	return n;
}

static void parse(const struct pd_file *f, struct layout *l)
{
	size_t pos, size, end, i, at;
	int bit;

	memset(l, 0, sizeof(*l));
	l->attr_size = pd_get64(f, PD_H_ATTR_SIZE);
	l->attrs = pd_get64(f, PD_H_ATTRS);
	l->nr_attrs = l->attr_size ? pd_get64(f, PD_H_ATTRS + 8) / l->attr_size : 0;
	if (l->nr_attrs > MAX_ATTRS)
		die("too many attrs in the seed");
	for (i = 0, at = l->attrs; i < l->nr_attrs; i++) {
		l->attr_at[i] = at;
		l->attr_len[i] = pd_get32(f, at + 4);
		at += l->attr_len[i] + 16;
	}
	if (l->nr_attrs) {
		/* bit 18 of the flags: bit 2 of byte 2, bit-reversed if swapped */
		uint8_t b = f->buf[l->attrs + 40 + 2];

		l->sample_type = pd_get64(f, l->attrs + 24);
		if ((f->swapped ? revbyte(b) : b) & 4)
			l->id_size = trailer_size(l->sample_type);
	}
	pd_for_each_record(f, pos, size, end) {
		if (l->nr_rec == MAX_RECORDS)
			die("too many records in the seed");
		l->rec[l->nr_rec++] = (typeof(l->rec[0])){
			pos, size, pd_get32(f, pos), pd_get16(f, pos + 4),
		};
	}
	l->data = pd_get64(f, PD_H_DATA);
	l->data_end = end;
	for (bit = 1, at = end; bit < F_LAST; bit++) {
		if (!test_feat(f, bit))
			continue;
		if (at + 16 > f->len)
			die("feature section table past the end of the seed");
		l->feat[l->nr_feat++] = (typeof(l->feat[0])){
			bit, at, pd_get64(f, at), pd_get64(f, at + 8),
		};
		at += 16;
	}
}

/* The n-th record of a type, or -1 */
static int find_record(const struct layout *l, uint32_t type, int n)
{
	int i;

	for (i = 0; i < l->nr_rec; i++)
		if (l->rec[i].type == type && n-- == 0)
			return i;
	return -1;
}

/* The MMAP2 record of the file whose path ends in suffix, or -1 */
static int find_mmap2(const struct pd_file *f, const struct layout *l, const char *suffix)
{
	size_t n = strlen(suffix);
	int i;

	for (i = 0; i < l->nr_rec; i++) {
		const char *name = (const char *)f->buf + l->rec[i].off + PD_M2_FILENAME;
		size_t len;

		if (l->rec[i].type != PD_MMAP2)
			continue;
		len = strnlen(name, l->rec[i].size - PD_M2_FILENAME);
		if (len >= n && !memcmp(name + len - n, suffix, n))
			return i;
	}
	return -1;
}

/* A seed, the working copy made from it, and its layout */
struct seed {
	const char *name;		/* bid or plain: the result to compare with */
	const char *order;		/* "" or "other-endian: " */
	struct pd_file f;
	struct layout l;
};

static struct pd_file w;		/* the variant being made */
static size_t w_cap;
static struct layout wl;		/* the layout of the seed it is made from */
static const struct seed *ws;

static void begin(const struct seed *s)
{
	ws = s;
	memcpy(w.buf, s->f.buf, s->f.len);
	memset(w.buf + s->f.len, 0, w_cap - s->f.len);
	w.len = s->f.len;
	w.swapped = s->f.swapped;
	wl = s->l;
}

static void __attribute__((format(printf, 2, 3)))
emit(const char *check, const char *fmt, ...)
{
	char path[4096], desc[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%04u.data", outdir, ++nr_out);
	if (pd_save(&w, path))
		exit(1);
	fprintf(idx, "%04u\t%s\t%s\t%s%s\n", nr_out, ws->name, check, ws->order, desc);
}

/*
 * Replace del bytes at at by n bytes of ins, keeping the offsets in the
 * file header, the attrs and the feature section table right.
 */
static void splice_bytes(size_t at, size_t del, const void *ins, size_t n)
{
	long delta = (long)n - (long)del;
	size_t i, table;
	uint64_t v;

	if (w.len + delta > w_cap)
		die("no room to insert");
	memmove(w.buf + at + n, w.buf + at + del, w.len - at - del);
	memcpy(w.buf + at, ins, n);
	w.len += delta;
	if (at >= wl.data && at <= wl.data_end)
		pd_put64(&w, PD_H_DATA + 8, pd_get64(&w, PD_H_DATA + 8) + delta);
	for (i = PD_H_ATTRS; i <= PD_H_EVENT_TYPES; i += 16) {
		v = pd_get64(&w, i);
		if (v > at)
			pd_put64(&w, i, v + delta);
	}
	for (i = 0; i < wl.nr_attrs; i++) {
		size_t ids = wl.attr_at[i] + wl.attr_len[i];

		ids += ids >= at ? delta : 0;
		v = pd_get64(&w, ids);
		if (v > at)
			pd_put64(&w, ids, v + delta);
	}
	table = pd_get64(&w, PD_H_DATA) + pd_get64(&w, PD_H_DATA + 8);
	for (i = 0; i < (size_t)wl.nr_feat; i++) {
		v = pd_get64(&w, table + 16 * i);
		if (v > at)
			pd_put64(&w, table + 16 * i, v + delta);
	}
}

static void hex(char *out, const unsigned char *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
	if (!n)
		strcpy(out, "-");
}

/* --- byte order --------------------------------------------------------- */

/* exchange the n bytes at p with the n after them */
static void memswap_halves(unsigned char *p, size_t n)
{
	unsigned char t[8];

	memcpy(t, p, n);
	memmove(p, p + n, n);
	memcpy(p + n, t, n);
}

/* byte-swap in place, whatever the order of the file */
static void sw16(unsigned char *p)
{
	unsigned char t = p[0];

	p[0] = p[1];
	p[1] = t;
}

static void sw32(unsigned char *p)
{
	sw16(p);
	sw16(p + 2);
	memswap_halves(p, 2);
}

static void sw64(unsigned char *p)
{
	sw32(p);
	sw32(p + 4);
	memswap_halves(p, 4);
}

static void sw64s(unsigned char *p, size_t bytes)
{
	for (; bytes >= 8; bytes -= 8, p += 8)
		sw64(p);
}

/*
 * An attr as a machine of the other byte order writes it: the fields perf's
 * perf_event__attr_swap() swaps back, and the flags bitfield, whose bits
 * that machine allocates from the other end of each byte.
 */
static void swap_attr(unsigned char *a, size_t size)
{
	static const struct { size_t at, len; } fields[] = {
		{ 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 48, 4 }, { 52, 4 },
		{ 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 4 }, { 104, 4 },
		{ 108, 2 }, { 112, 4 },
	};
	size_t i;

	sw32(a);
	sw32(a + 4);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (size <= fields[i].at)
			continue;
		if (fields[i].len == 8)
			sw64(a + fields[i].at);
		else if (fields[i].len == 4)
			sw32(a + fields[i].at);
		else
			sw16(a + fields[i].at);
	}
	if (size > 40)
		for (i = 40; i < 48; i++)
			a[i] = revbyte(a[i]);
}

/* u64 fields, and pairs of u32 (pid/tid, cpu/res) swapped each */
static unsigned char *swap_sample_fields(unsigned char *p, uint64_t st, const uint64_t *order, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!(st & order[i]))
			continue;
		if (order[i] == S_TID || order[i] == S_CPU) {
			sw32(p);
			sw32(p + 4);
		} else {
			sw64(p);
		}
		p += 8;
	}
	return p;
}

static void swap_trailer(unsigned char *rec, size_t size, const struct layout *l)
{
	static const uint64_t order[] = { S_TID, S_TIME, S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER };

	if (l->id_size && size >= 8 + l->id_size)
		swap_sample_fields(rec + size - l->id_size, l->sample_type, order, 6);
}

static void swap_record(unsigned char *r, const struct pd_file *n, size_t at,
			const struct layout *l)
{
	static const uint64_t sample_order[] = {
		S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID,
		S_CPU, S_PERIOD,
	};
	uint32_t type = pd_get32(n, at);
	uint16_t misc = pd_get16(n, at + 4);
	size_t size = pd_get16(n, at + 6), i;
	unsigned char *p;

	sw32(r);
	sw16(r + 4);
	sw16(r + 6);
	switch (type) {
	case PD_SAMPLE:
		p = swap_sample_fields(r + 8, l->sample_type, sample_order, 9);
		sw64s(p, r + size - p);		/* callchains, periods */
		return;
	case PD_MMAP2:
		sw32(r + 8);
		sw32(r + 12);
		sw64s(r + 16, 24);
		if (!(misc & PD_MISC_MMAP_BUILD_ID)) {
			sw32(r + 40);
			sw32(r + 44);
			sw64s(r + 48, 16);
		}
		sw32(r + 64);
		sw32(r + 68);
		break;
	case PD_MMAP:
		sw32(r + 8);
		sw32(r + 12);
		sw64s(r + 16, 24);
		break;
	case PD_COMM:
		sw32(r + 8);
		sw32(r + 12);
		break;
	case PD_FORK:
	case PD_EXIT:
		for (i = 8; i < 24; i += 4)
			sw32(r + i);
		sw64(r + 24);
		break;
	case PD_THREAD_MAP:
		for (i = 0; i < pd_get64(n, at + 8) && 24 + 24 * i <= size; i++)
			sw64(r + 16 + 24 * i);
		sw64(r + 8);
		return;
	case PD_CPU_MAP:
		sw16(r + 8);
		if (pd_get16(n, at + 8) == 0) {		/* a list of CPUs */
			for (i = 0; i < pd_get16(n, at + 10) && 14 + 2 * i <= size; i++)
				sw16(r + 12 + 2 * i);
			sw16(r + 10);
		}
		return;
	default:			/* all u64, as perf swaps most records */
		if (type >= 64) {	/* perf's own: no sample_id */
			sw64s(r + 8, size - 8);
			return;
		}
		if (size >= 8 + l->id_size)
			sw64s(r + 8, size - 8 - l->id_size);
		break;
	}
	swap_trailer(r, size, l);
}

/* a string in a feature section: u32 length, then the bytes */
static size_t swap_string(unsigned char *s, const struct pd_file *n, size_t p)
{
	size_t len = pd_get32(n, p);

	sw32(s + p);
	return p + 4 + len;
}

/* a u32 count at *p: swapped, and *p moved past it */
static size_t swap_count(unsigned char *s, const struct pd_file *n, size_t *p)
{
	size_t nr = pd_get32(n, *p);

	sw32(s + *p);
	*p += 4;
	return nr;
}

static size_t swap_strings(unsigned char *s, const struct pd_file *n, size_t p)
{
	size_t i, nr = swap_count(s, n, &p);

	for (i = 0; i < nr; i++)
		p = swap_string(s, n, p);
	return p;
}

static size_t swap_u32s(unsigned char *s, size_t p, size_t nr)
{
	for (; nr; nr--, p += 4)
		sw32(s + p);
	return p;
}

/* 0, or -1 for a feature this program does not convert */
static int swap_feature(unsigned char *s, const struct pd_file *n, int bit,
			size_t p, size_t end, uint32_t nr_cpus)
{
	size_t i, nr, sz;

	switch (bit) {
	case F_HOSTNAME: case F_OSRELEASE: case F_VERSION: case F_ARCH:
	case F_CPUDESC: case F_CPUID:
		swap_string(s, n, p);
		return 0;
	case F_NRCPUS:
		swap_u32s(s, p, 2);
		return 0;
	case F_TOTAL_MEM: case F_CLOCKID: case F_DIR_FORMAT:
		sw64(s + p);
		return 0;
	case F_SAMPLE_TIME:
		sw64s(s + p, 16);
		return 0;
	case F_CMDLINE:
		swap_strings(s, n, p);
		return 0;
	case F_BRANCH_STACK: case F_STAT:
		return 0;
	case F_COMPRESSED:
		swap_u32s(s, p, 5);
		return 0;
	case F_CLOCK_DATA:
		swap_u32s(s, p, 2);
		sw64s(s + p + 8, 16);
		return 0;
	case F_BUILD_ID:	/* records: header, pid, the ID, the name */
		for (; p + 8 <= end && (sz = pd_get16(n, p + 6)) >= 8; p += sz) {
			sw32(s + p);
			sw16(s + p + 4);
			sw16(s + p + 6);
			sw32(s + p + 8);
		}
		return 0;
	case F_EVENT_DESC:
		nr = pd_get32(n, p);
		sz = pd_get32(n, p + 4);
		swap_u32s(s, p, 2);
		for (i = 0, p += 8; i < nr && p < end; i++) {
			size_t ids;

			swap_attr(s + p, sz);
			p += sz;
			ids = pd_get32(n, p);
			sw32(s + p);
			p = swap_string(s, n, p + 4);
			sw64s(s + p, 8 * ids);
			p += 8 * ids;
		}
		return 0;
	case F_CPU_TOPOLOGY:
		p = swap_strings(s, n, p);		/* cores */
		p = swap_strings(s, n, p);		/* threads */
		if (p < end)
			p = swap_u32s(s, p, 2 * nr_cpus);	/* core, socket ids */
		if (p < end) {
			p = swap_strings(s, n, p);	/* dies */
			swap_u32s(s, p, nr_cpus);
		}
		return 0;
	case F_NUMA_TOPOLOGY:
		nr = swap_count(s, n, &p);
		for (i = 0; i < nr && p < end; i++) {
			sw32(s + p);
			sw64s(s + p + 4, 16);
			p = swap_string(s, n, p + 20);
		}
		return 0;
	case F_PMU_MAPPINGS:
		nr = swap_count(s, n, &p);
		for (i = 0; i < nr && p < end; i++) {
			sw32(s + p);
			p = swap_string(s, n, p + 4);
		}
		return 0;
	case F_GROUP_DESC:
		nr = swap_count(s, n, &p);
		for (i = 0; i < nr && p < end; i++)
			p = swap_u32s(s, swap_string(s, n, p), 2);
		return 0;
	case F_CACHE:
		nr = pd_get32(n, p + 4);
		p = swap_u32s(s, p, 2);
		for (i = 0; i < nr && p < end; i++) {
			p = swap_u32s(s, p, 4);
			p = swap_string(s, n, swap_string(s, n, swap_string(s, n, p)));
		}
		return 0;
	case F_MEM_TOPOLOGY:
		nr = pd_get64(n, p + 16);
		sw64s(s + p, 24);
		for (i = 0, p += 24; i < nr && p < end; i++) {
			size_t words = (pd_get64(n, p + 16) + 63) / 64;

			sw64s(s + p, 24 + 8 * words);
			p += 24 + 8 * words;
		}
		return 0;
	case F_CPU_PMU_CAPS:
		nr = swap_count(s, n, &p);
		for (i = 0; i < 2 * nr && p < end; i++)
			p = swap_string(s, n, p);
		return 0;
	default:
		return -1;
	}
}

/*
 * The seed as a machine of the other byte order would have written it.
 * Feature sections it cannot convert are dropped from the table.
 */
static void swap_seed(const struct seed *in, struct seed *out)
{
	struct pd_file n = in->f;	/* native, with features dropped */
	const struct layout *l;
	uint32_t nr_cpus = 0;
	size_t i, j, table;
	unsigned char *s;
	int k, kept = 0;

	n.buf = malloc(in->f.len + EXTRA);
	if (!n.buf)
		die("out of memory");
	memcpy(n.buf, in->f.buf, in->f.len);
	table = in->l.data_end;
	for (k = 0; k < in->l.nr_feat; k++)
		if (in->l.feat[k].bit == F_NRCPUS)
			nr_cpus = pd_get32(&in->f, in->l.feat[k].off);
	/* keep the features that can be converted: probe on a scratch copy */
	for (k = 0; k < in->l.nr_feat; k++) {
		int bit = in->l.feat[k].bit;
		unsigned char *scratch = malloc(in->f.len);

		if (!scratch)
			die("out of memory");
		memcpy(scratch, in->f.buf, in->f.len);
		if (swap_feature(scratch, &in->f, bit, in->l.feat[k].off,
				 in->l.feat[k].off + in->l.feat[k].size, nr_cpus)) {
			set_feat(&n, bit, 0);
		} else {
			memcpy(n.buf + table + 16 * kept, in->f.buf + in->l.feat[k].entry, 16);
			kept++;
		}
		free(scratch);
	}
	out->f = n;
	out->f.buf = malloc(n.len + EXTRA);
	if (!out->f.buf)
		die("out of memory");
	parse(&n, &out->l);
	l = &out->l;
	s = out->f.buf;
	memcpy(s, n.buf, n.len);

	memcpy(s, PD_MAGIC_SWAPPED, 8);
	sw64s(s + PD_H_SIZE, PD_HEADER_SIZE - PD_H_SIZE);
	for (i = 0; i < l->nr_attrs; i++) {
		size_t ids = l->attr_at[i] + l->attr_len[i];
		size_t nr_ids = pd_get64(&n, ids + 8) / 8;

		swap_attr(s + l->attr_at[i], l->attr_len[i]);
		sw64s(s + ids, 16);
		for (j = 0; j < nr_ids; j++)
			sw64(s + pd_get64(&n, ids) + 8 * j);
	}
	for (k = 0; k < l->nr_rec; k++)
		swap_record(s + l->rec[k].off, &n, l->rec[k].off, l);
	for (k = 0; k < l->nr_feat; k++) {
		swap_feature(s, &n, l->feat[k].bit, l->feat[k].off,
			     l->feat[k].off + l->feat[k].size, nr_cpus);
		sw64s(s + l->feat[k].entry, 16);
	}
	out->f.swapped = 1;
	out->name = in->name;
	out->order = "other-endian: ";
	free(n.buf);
	parse(&out->f, &out->l);
}

/* --- the variants ------------------------------------------------------- */

static const uint64_t u64_values[] = {
	0, 1, 0x7fffffffffffffffULL, ~0ULL, 0xffffffff81000000ULL,
};

/*
 * build_id_size: the sizes given, on the MMAP2 records with an ID of
 * files, a size for each record in turn, as many files as needed.
 */
static void mmap2_sizes(const struct seed *s, const int *sizes, int nr_sizes)
{
	int recs[8], nr = 0, i, j;

	for (i = 0; i < s->l.nr_rec && nr < 8; i++)
		if (s->l.rec[i].type == PD_MMAP2 &&
		    (s->l.rec[i].misc & PD_MISC_MMAP_BUILD_ID) &&
		    s->f.buf[s->l.rec[i].off + PD_M2_FILENAME] == '/')
			recs[nr++] = i;
	if (!nr)
		die("the seed has no MMAP2 record with a build ID of a file");
	for (i = 0; i < nr_sizes; i += nr) {
		char check[512] = "id:", desc[512] = "MMAP2 build_id_size", h[41];

		begin(s);
		for (j = 0; j < nr && i + j < nr_sizes; j++) {
			size_t at = s->l.rec[recs[j]].off;
			const char *name = strrchr((char *)w.buf + at + PD_M2_FILENAME, '/');
			int size = sizes[i + j];

			w.buf[at + PD_M2_BUILD_ID_SIZE] = size;
			hex(h, w.buf + at + PD_M2_BUILD_ID, size <= 20 ? size : 0);
			snprintf(check + strlen(check), sizeof(check) - strlen(check),
				 "%s%s=%s", j ? "," : "", name, h);
			snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
				 " %d (%s)", size, name + 1);
		}
		emit(check, "%s", desc);
	}
}

static void mmap2_field(const struct seed *s, int r, size_t field, int width,
			uint64_t v, const char *check, const char *what)
{
	size_t at = s->l.rec[r].off + field;

	begin(s);
	if (width == 8)
		pd_put64(&w, at, v);
	else if (width == 4)
		pd_put32(&w, at, v);
	else if (width == 2)
		pd_put16(&w, at, v);
	else
		w.buf[at] = v;
	emit(check, "MMAP2 of burn: %s = %#llx", what, (unsigned long long)v);
}

/* a new MMAP2 record for r with a name of len bytes ('a's, then a NUL) */
static void mmap2_name(const struct seed *s, int r, size_t len, const char *what)
{
	size_t at = s->l.rec[r].off, size = s->l.rec[r].size, id = s->l.id_size;
	size_t nsize = PD_M2_FILENAME + ((len + 8) & ~7UL) + id;
	unsigned char *rec;

	if (nsize > NAME_MAX_U16)
		nsize = NAME_MAX_U16, len = NAME_MAX_U16 - PD_M2_FILENAME - id - 1;
	rec = calloc(1, nsize);
	if (!rec)
		die("out of memory");
	memcpy(rec, s->f.buf + at, PD_M2_FILENAME);
	memset(rec + PD_M2_FILENAME, 'a', len);
	rec[PD_M2_FILENAME] = len ? '/' : 0;
	memcpy(rec + nsize - id, s->f.buf + at + size - id, id);
	begin(s);
	splice_bytes(at, size, rec, nsize);
	pd_put16(&w, at + 6, nsize);
	free(rec);
	emit("-", "MMAP2 of burn: %s (%zu bytes, record of %zu)", what, len, nsize);
}

static void mmap2_fields(const struct seed *s, int full)
{
	static const struct { size_t at; int width; const char *name; } f32[] = {
		{ PD_M2_PID, 4, "pid" }, { PD_M2_TID, 4, "tid" },
		{ PD_M2_PROT, 4, "prot" }, { PD_M2_FLAGS, 4, "flags" },
	};
	static const struct { size_t at; const char *name; } f64[] = {
		{ PD_M2_START, "addr" }, { PD_M2_LEN, "len" }, { PD_M2_PGOFF, "pgoff" },
	};
	static const uint32_t u32_values[] = { 0, 1, 0x7fffffff, 0xffffffff };
	static const size_t sizes[] = { 0, 4, 8, 16, 40, 64, 71, 72, 73, 80, 0xfff8 };
	int r = find_mmap2(&s->f, &s->l, "/burn"), bid, i, j;
	size_t at = s->l.rec[r].off, size = s->l.rec[r].size;
	char check[64], h[41];

	bid = !!(s->l.rec[r].misc & PD_MISC_MMAP_BUILD_ID);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			/*
			 * prot changes no DSO, nor do flags without
			 * MAP_HUGETLB (then perf takes the map for
			 * anonymous memory); pid and tid may
			 */
			const char *c = bid && (i == 2 || (i == 3 && j < 2)) ? "same" : "-";

			if (!full && j != 3)
				continue;
			mmap2_field(s, r, f32[i].at, 4, u32_values[j], c, f32[i].name);
		}
	for (i = 0; i < 3; i++)
		for (j = 0; j < 5; j++)
			if (full || j == 3)
				mmap2_field(s, r, f64[i].at, 8, u64_values[j], "-", f64[i].name);
	for (i = 0; i < 4 && full; i++)
		mmap2_field(s, r, f32[i].at, 4, rnd(), "-", f32[i].name);
	if (bid) {
		mmap2_field(s, r, PD_M2_RESERVED_1, 1, 0xff, "same", "__reserved_1");
		mmap2_field(s, r, PD_M2_RESERVED_2, 2, 0xffff, "same", "__reserved_2");
		/* bytes after a shorter ID: not part of it */
		begin(s);
		w.buf[at + PD_M2_BUILD_ID_SIZE] = 8;
		memset(w.buf + at + PD_M2_BUILD_ID + 8, 0xff, 12);
		hex(h, w.buf + at + PD_M2_BUILD_ID, 8);
		snprintf(check, sizeof(check), "id:/burn=%s", h);
		emit(check, "MMAP2 of burn: build_id_size 8, bytes 8-19 of the ID 0xff");
		for (i = 0; i < 3; i++) {
			begin(s);
			for (j = 0; j < 20; j++)
				w.buf[at + PD_M2_BUILD_ID + j] = i == 0 ? 0 : i == 1 ? 0xff : rnd();
			hex(h, w.buf + at + PD_M2_BUILD_ID, 20);
			snprintf(check, sizeof(check), "id:/burn=%s", h);
			emit(check, "MMAP2 of burn: build ID bytes %s", i == 0 ? "all 0" :
			     i == 1 ? "all 0xff" : "random");
		}
	}
	/* the name: no NUL, empty, special, huge */
	begin(s);
	memset(w.buf + at + PD_M2_FILENAME, 'x', size - PD_M2_FILENAME);
	emit(bid ? "id:/burn=-" : "-", "MMAP2 of burn: file name without NUL up to the record's end");
	begin(s);
	memset(w.buf + at + PD_M2_FILENAME, 'x', size - PD_M2_FILENAME - s->l.id_size);
	emit("-", "MMAP2 of burn: file name without NUL up to the sample_id");
	if (full) {
		static const char *const names[] = {
			"", "//anon", "[vdso]", "[kernel.kallsyms]_text", "burn",
			"/work/main/build/workloads/burn (deleted)", "[heap]",
		};

		for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
			begin(s);
			memset(w.buf + at + PD_M2_FILENAME, 0, size - PD_M2_FILENAME - s->l.id_size);
			strncpy((char *)w.buf + at + PD_M2_FILENAME, names[i],
				size - PD_M2_FILENAME - s->l.id_size - 1);
			emit("-", "MMAP2 of burn: file name \"%s\"", names[i]);
		}
		mmap2_name(s, r, 4095, "file name of PATH_MAX - 1");
		mmap2_name(s, r, 4096, "file name of PATH_MAX");
		mmap2_name(s, r, 8191, "file name of 2 PATH_MAX");
		mmap2_name(s, r, NAME_MAX_U16, "file name as long as a record can be");
	}
	/* header.size */
	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		if (!full && i % 3)
			continue;
		begin(s);
		pd_put16(&w, at + 6, sizes[i]);
		emit("-", "MMAP2 of burn: header.size %zu (is %zu)", sizes[i], size);
	}
	for (i = -8; i <= 8; i += full ? 1 : 8) {
		if (!i)
			continue;
		begin(s);
		pd_put16(&w, at + 6, size + i);
		emit("-", "MMAP2 of burn: header.size %+d", i);
	}
	/* misc bits */
	begin(s);
	pd_put16(&w, at + 4, pd_get16(&w, at + 4) ^ PD_MISC_MMAP_BUILD_ID);
	emit(bid ? "id:/burn=-" : "-", "MMAP2 of burn: build-ID misc bit toggled");
	for (i = 0; i < 8 && full; i++) {
		static const uint16_t misc[] = { 0, 1, 3, 4, 5, 0x2000, 0x8000, 0xffff };

		begin(s);
		pd_put16(&w, at + 4, misc[i] | (s->l.rec[r].misc & PD_MISC_MMAP_BUILD_ID));
		emit(misc[i] == 0x2000 || misc[i] == 0x8000 ? (bid ? "same" : "-") : "-",
		     "MMAP2 of burn: misc %#x", pd_get16(&w, at + 4));
	}
}

/* the build-ID bit on every record of a type that is not MMAP2 */
static void misc_bits(const struct seed *s)
{
	static const uint32_t types[] = {
		PD_MMAP, PD_COMM, PD_EXIT, PD_SAMPLE, PD_THREAD_MAP, PD_CPU_MAP, 68,
	};
	size_t i;
	int k, n;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (find_record(&s->l, types[i], 0) < 0)
			continue;
		begin(s);
		for (k = n = 0; k < s->l.nr_rec; k++)
			if (s->l.rec[k].type == types[i]) {
				pd_put16(&w, s->l.rec[k].off + 4,
					 s->l.rec[k].misc | PD_MISC_MMAP_BUILD_ID);
				n++;
			}
		emit("same", "build-ID misc bit on all %d %s records", n, record_name(types[i]));
	}
	begin(s);
	for (k = 0; k < s->l.nr_rec; k++)
		if (s->l.rec[k].type != PD_MMAP2)
			pd_put16(&w, s->l.rec[k].off + 4, s->l.rec[k].misc | PD_MISC_MMAP_BUILD_ID);
	emit("same", "build-ID misc bit on every record but MMAP2");
	/* MMAP2 records without an ID: maj, min, ... read as an ID */
	begin(s);
	for (k = n = 0; k < s->l.nr_rec; k++)
		if (s->l.rec[k].type == PD_MMAP2 && !(s->l.rec[k].misc & PD_MISC_MMAP_BUILD_ID)) {
			pd_put16(&w, s->l.rec[k].off + 4, s->l.rec[k].misc | PD_MISC_MMAP_BUILD_ID);
			n++;
		}
	if (n)
		emit("-", "build-ID misc bit on the %d MMAP2 records without an ID", n);
}

/*
 * Records of the types the seed does not have, with the build-ID bit,
 * before its EXIT record, with that record's sample_id: well formed.
 */
static void inserted_records(const struct seed *s)
{
	static const struct { uint32_t type; size_t body; } types[] = {
		{ PD_MMAP, 48 }, { PD_LOST, 16 }, { PD_THROTTLE, 24 },
		{ PD_UNTHROTTLE, 24 }, { PD_FORK, 24 }, { PD_READ, 32 },
		{ PD_AUX, 24 }, { PD_ITRACE_START, 8 }, { PD_LOST_SAMPLES, 8 },
		{ PD_SWITCH, 0 }, { PD_SWITCH_CPU_WIDE, 8 }, { PD_NAMESPACES, 16 },
		{ PD_KSYMBOL, 24 }, { PD_BPF_EVENT, 16 }, { PD_CGROUP, 16 },
		{ PD_TEXT_POKE, 16 },
	};
	int x = find_record(&s->l, PD_EXIT, 0), c = find_record(&s->l, PD_COMM, 1);
	unsigned char rec[256];
	size_t i, at, id = s->l.id_size;
	uint32_t pid;

	if (x < 0 || c < 0)
		return;
	at = s->l.rec[x].off;
	pid = pd_get32(&s->f, s->l.rec[c].off + 8);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t size = 8 + types[i].body + id;

		if (find_record(&s->l, types[i].type, 0) >= 0)
			continue;
		begin(s);
		memset(rec, 0, sizeof(rec));
		memcpy(rec + size - id, s->f.buf + at + s->l.rec[x].size - id, id);
		splice_bytes(at, 0, rec, size);
		pd_put32(&w, at, types[i].type);
		pd_put16(&w, at + 4, PD_MISC_MMAP_BUILD_ID | 2);	/* user */
		pd_put16(&w, at + 6, size);
		if (types[i].type == PD_MMAP) {
			pd_put32(&w, at + 8, pid);
			pd_put32(&w, at + 12, pid);
			pd_put64(&w, at + 16, 0x10000);
			pd_put64(&w, at + 24, 0x1000);
			strcpy((char *)w.buf + at + 40, "/fuzz");
		} else if (types[i].type == PD_NAMESPACES) {	/* none */
			pd_put32(&w, at + 8, pid);
			pd_put32(&w, at + 12, pid);
		} else if (types[i].type == PD_FORK) {
			pd_put32(&w, at + 8, pid + 1);
			pd_put32(&w, at + 12, pid);
			pd_put32(&w, at + 16, pid + 1);
			pd_put32(&w, at + 20, pid);
		} else if (types[i].type == PD_KSYMBOL) {
			pd_put64(&w, at + 8, 0xffffffffc0000000ULL);
			pd_put32(&w, at + 16, 0x100);
			strcpy((char *)w.buf + at + 24, "fuzz");
		} else if (types[i].type == PD_CGROUP) {
			strcpy((char *)w.buf + at + 16, "/");
		}
		emit("same", "a %s record with the build-ID misc bit, inserted", record_name(types[i].type));
	}
}

/* header.size of the first record of each type */
static void record_sizes(const struct seed *s, int full)
{
	uint32_t seen[64];
	int k, i, nr_seen = 0;

	for (k = 0; k < s->l.nr_rec && nr_seen < 64; k++) {
		size_t at = s->l.rec[k].off, size = s->l.rec[k].size;
		const size_t sizes[] = {
			0, 4, 8, size - 8, size - 1, size + 1, size + 8,
			0xfff8, s->l.data_end - at + 8,
		};
		uint32_t type = s->l.rec[k].type;

		for (i = 0; i < nr_seen && seen[i] != type; i++)
			;
		if (i < nr_seen || type == PD_MMAP2)
			continue;
		seen[nr_seen++] = type;
		for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
			if ((!full && i % 2) || sizes[i] == size || sizes[i] > 0xffff)
				continue;
			begin(s);
			pd_put16(&w, at + 6, sizes[i]);
			emit("-", "first %s record: header.size %zu (is %zu)",
			     record_name(type), sizes[i], size);
		}
	}
	/* the last record cut short by the data section's end */
	begin(s);
	pd_put64(&w, PD_H_DATA + 8, pd_get64(&w, PD_H_DATA + 8) - 4);
	emit("-", "data section ends 4 bytes into the last record");
}

/* counts and strings inside records that are not MMAP2 */
static void record_contents(const struct seed *s)
{
	static const struct { uint32_t type; size_t at; int width; uint64_t v; const char *what; } muts[] = {
		{ PD_THREAD_MAP, 8, 8, 0, "nr 0" }, { PD_THREAD_MAP, 8, 8, 2, "nr 2" },
		{ PD_THREAD_MAP, 8, 8, 0x10000000, "nr 0x10000000" },
		{ PD_CPU_MAP, 10, 2, 0, "nr 0" }, { PD_CPU_MAP, 10, 2, 0xffff, "nr 0xffff" },
		{ PD_CPU_MAP, 8, 2, 1, "type 1 (mask)" }, { PD_CPU_MAP, 8, 2, 0xffff, "type 0xffff" },
		/* CPUs this machine does not have: perf must not pin to them */
		{ PD_CPU_MAP, 12, 2, 5000, "first CPU 5000" },
		{ PD_CPU_MAP, 12, 2, 0xfffe, "first CPU 0xfffe" },
		{ PD_COMM, 16, 0, 'x', "name without NUL" },
		{ PD_MMAP, 40, 0, 'x', "name without NUL" },
	};
	size_t i;

	for (i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		int r = find_record(&s->l, muts[i].type, 0);
		size_t at;

		if (r < 0)
			continue;
		at = s->l.rec[r].off;
		begin(s);
		if (muts[i].width == 8)
			pd_put64(&w, at + muts[i].at, muts[i].v);
		else if (muts[i].width == 2)
			pd_put16(&w, at + muts[i].at, muts[i].v);
		else
			memset(w.buf + at + muts[i].at, muts[i].v, s->l.rec[r].size - muts[i].at);
		emit("-", "first %s record: %s", record_name(muts[i].type), muts[i].what);
	}
}

static void header_u64(const struct seed *s, size_t at, uint64_t v, const char *what)
{
	begin(s);
	pd_put64(&w, at, v);
	emit("-", "file header: %s = %#llx", what, (unsigned long long)v);
}

static void file_header(const struct seed *s, int full)
{
	uint64_t data = s->l.data, dsize = s->l.data_end - s->l.data, len = s->f.len;
	uint64_t asize = s->l.attr_size, aoff = s->l.attrs;
	const uint64_t hsizes[] = { 0, 8, 16, 72, 103, 105, 1ULL << 32, ~0ULL };
	const uint64_t attr_sizes[] = { 0, 8, 64, asize - 8, asize - 1, asize + 1, asize + 8, 1 << 20, ~0ULL };
	const uint64_t attr_offs[] = { 0, 8, aoff + 1, len, len + 4096, ~0ULL - 8 };
	const uint64_t attrs_sizes[] = { 0, 1, asize - 1, asize + 1, 2 * asize, 1ULL << 30, ~0ULL };
	const uint64_t data_offs[] = { 0, 8, 104, data + 1, data + 4, data + 8, len, len + 1, ~0ULL - 8 };
	const uint64_t data_sizes[] = {
		0, 1, 7, 8, dsize - 1, dsize - 8, dsize + 1, dsize + 8, len, 1ULL << 63, ~0ULL,
	};
	static const char *const magics[] = { "PERFFILE", "PERFILE1", "PERFILE3", "\0\0\0\0\0\0\0\0" };
	size_t i;

#define EACH(arr, at, what)						\
	for (i = 0; i < sizeof(arr) / sizeof(arr[0]); i++)		\
		if (full || i % 2 == 0)					\
			header_u64(s, at, arr[i], what)
	EACH(hsizes, PD_H_SIZE, "size");
	EACH(attr_sizes, PD_H_ATTR_SIZE, "attr_size");
	EACH(attr_offs, PD_H_ATTRS, "attrs.offset");
	EACH(attrs_sizes, PD_H_ATTRS + 8, "attrs.size");
	EACH(data_offs, PD_H_DATA, "data.offset");
	EACH(data_sizes, PD_H_DATA + 8, "data.size");
#undef EACH
	header_u64(s, PD_H_EVENT_TYPES, ~0ULL, "event_types.offset");
	header_u64(s, PD_H_EVENT_TYPES + 8, ~0ULL, "event_types.size");
	for (i = 0; i < 4 && full; i++) {
		begin(s);
		memcpy(w.buf, magics[i], 8);
		emit("-", "file header: magic \"%.8s\"", magics[i]);
	}
	/* the feature bitmap */
	for (i = 0; i < 5; i++) {
		begin(s);
		if (i == 0)
			memset(w.buf + PD_H_FEATURES, 0, 32);
		else if (i == 1)
			memset(w.buf + PD_H_FEATURES, 0xff, 32);
		else if (i == 2)
			set_feat(&w, F_HOSTNAME, 0);
		else
			set_feat(&w, i == 3 ? F_LAST : 255, 1);
		emit("-", "file header: feature bits %s", i == 0 ? "all clear" : i == 1 ? "all set" :
		     i == 2 ? "HOSTNAME cleared" : i == 3 ? "first unknown one set" : "255 set");
	}
}

static void attrs(const struct seed *s, int full)
{
	static const struct { size_t at; int width; uint64_t v; const char *what; } muts[] = {
		{ 4, 4, 0, "size 0 (ABI0)" }, { 4, 4, 8, "size 8" }, { 4, 4, 64, "size 64" },
		{ 4, 4, 72, "size 72" }, { 4, 4, 128, "size 128" }, { 4, 4, 4096, "size 4096" },
		{ 4, 4, 0xffffffff, "size ~0" }, { 0, 4, 1000, "type 1000" },
		{ 0, 4, 0xffffffff, "type ~0" }, { 24, 8, ~0ULL, "sample_type ~0" },
		{ 24, 8, 0, "sample_type 0" }, { 24, 8, 0x107 | S_CALLCHAIN, "sample_type +CALLCHAIN" },
		{ 24, 8, 0x107 | S_RAW, "sample_type +RAW" }, { 24, 8, 0x107 | S_CPU, "sample_type +CPU" },
		{ 32, 8, ~0ULL, "read_format ~0" }, { 40, 8, 0, "flags 0 (no sample_id_all)" },
		{ 40, 8, ~0ULL, "flags ~0" }, { 16, 8, 0, "sample_period 0" },
		{ 72, 8, ~0ULL, "branch_sample_type ~0" }, { 88, 4, 0xffffffff, "sample_stack_user ~0" },
	};
	static const uint64_t ids[][2] = {
		{ 0, 0 }, { 0, 8 }, { 0, 4 }, { 0, 1ULL << 40 }, { 0, ~0ULL }, { 1, 0 }, { 2, 0 },
	};
	size_t i, at = s->l.attrs, ids_at = at + s->l.attr_len[0];

	for (i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		if (!full && i % 3)
			continue;
		begin(s);
		if (muts[i].width == 8)
			pd_put64(&w, at + muts[i].at, muts[i].v);
		else
			pd_put32(&w, at + muts[i].at, muts[i].v);
		emit("-", "attr 0: %s", muts[i].what);
	}
	/* its ids: size, or offset 0, past the end */
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		uint64_t off = ids[i][0] == 0 ? pd_get64(&s->f, ids_at) :
			       ids[i][0] == 1 ? s->f.len : 0;
		uint64_t size = ids[i][0] ? pd_get64(&s->f, ids_at + 8) : ids[i][1];

		begin(s);
		pd_put64(&w, ids_at, off);
		pd_put64(&w, ids_at + 8, size);
		emit("-", "attr 0: ids at %#llx, %#llx bytes", (unsigned long long)off,
		     (unsigned long long)size);
	}
}

/* the build-id table of a seed recorded without --buildid-mmap, at off */
static void build_id_table(const struct seed *s, size_t off)
{
	int i;

	for (i = 0; i < 4; i++) {
		static const uint16_t sz[] = { 0, 8, 12, 0xfff8 };

		begin(s);
		pd_put16(&w, off + 6, sz[i]);
		emit("-", "feature BUILD_ID: first record's header.size %u", sz[i]);
	}
	/* with data after it: a name read past a PATH_MAX buffer */
	for (i = 0; i < 2; i++) {
		begin(s);
		memset(w.buf + w.len, 'x', 65536);
		w.len += 65536;
		pd_put16(&w, off + 6, i ? 0xfff8 : 8);
		emit("-", "feature BUILD_ID: first record's header.size %u, 64 KiB after the file",
		     pd_get16(&w, off + 6));
	}
	begin(s);
	memset(w.buf + off + 36, 'x', pd_get16(&s->f, off + 6) - 36);
	emit("-", "feature BUILD_ID: first file name without NUL");
	begin(s);
	pd_put16(&w, off + 4, pd_get16(&w, off + 4) | 0x8000);
	w.buf[off + 32] = 255;
	emit("-", "feature BUILD_ID: first record with size 255");
}

static void features(const struct seed *s, int full)
{
	int k, i;

	for (k = 0; k < s->l.nr_feat; k++) {
		size_t e = s->l.feat[k].entry, off = s->l.feat[k].off, size = s->l.feat[k].size;
		const char *name = feat_name[s->l.feat[k].bit];
		const uint64_t offs[] = { 0, off + 1, s->f.len, ~0ULL };
		const uint64_t sizes[] = { 0, 1, size - 1, size + 8, 1ULL << 40, ~0ULL };
		const uint32_t firsts[] = { 0, 0xffffffff, 0x7fffffff, 0x10000, 255 };

		for (i = 0; i < 4; i++) {
			if (!full && i != k % 4)
				continue;
			begin(s);
			pd_put64(&w, e, offs[i]);
			emit("-", "feature %s: offset %#llx", name, (unsigned long long)offs[i]);
		}
		for (i = 0; i < 6; i++) {
			if (!full && i != k % 6)
				continue;
			begin(s);
			pd_put64(&w, e + 8, sizes[i]);
			emit("-", "feature %s: size %#llx", name, (unsigned long long)sizes[i]);
		}
		/* most sections start with a count or a length */
		for (i = 0; i < 5 && size >= 4; i++) {
			if (!full && i != k % 5)
				continue;
			begin(s);
			pd_put32(&w, off, firsts[i]);
			emit("-", "feature %s: first u32 %#x", name, firsts[i]);
		}
		switch (s->l.feat[k].bit) {
		case F_HOSTNAME: case F_OSRELEASE: case F_VERSION: case F_ARCH:
		case F_CPUDESC: case F_CPUID:
			begin(s);
			memset(w.buf + off + 4, 'x', size - 4);
			emit("-", "feature %s: string without NUL", name);
			break;
		case F_EVENT_DESC: case F_CACHE: case F_MEM_TOPOLOGY:
			/* the second u32: attr size, cache count, part of bsize */
			for (i = 0; i < 3; i++) {
				begin(s);
				pd_put32(&w, off + 4, i == 0 ? 0 : i == 1 ? 8 : 0xffffffff);
				emit("-", "feature %s: second u32 %#x", name, pd_get32(&w, off + 4));
			}
			if (s->l.feat[k].bit == F_MEM_TOPOLOGY) {
				begin(s);
				pd_put64(&w, off + 16, 1ULL << 40);
				emit("-", "feature MEM_TOPOLOGY: nr nodes 1<<40");
			}
			break;
		case F_BUILD_ID:
			build_id_table(s, off);
			break;
		case F_NRCPUS:
			for (i = 0; i < 2; i++) {
				begin(s);
				pd_put32(&w, off + 4 * i, 0x100000);
				emit("-", "feature NRCPUS: nr_cpus_%s 0x100000", i ? "online" : "avail");
			}
			break;
		}
	}
}

static void flips(const struct seed *s, int count)
{
	static const char *const regions[] = { "header", "attrs", "data", "features", "anywhere" };
	int v, k;

	for (v = 0; v < count; v++) {
		int region = rnd() % 5, nr = 1 + rnd() % 8;
		size_t lo = 0, hi = s->f.len, at;
		char desc[256];
		int len = 0;

		if (region == 0) {
			hi = PD_HEADER_SIZE;
		} else if (region == 1) {
			lo = PD_HEADER_SIZE;
			hi = s->l.data;
		} else if (region == 2) {
			lo = s->l.data;
			hi = s->l.data_end;
		} else if (region == 3) {
			lo = s->l.data_end;
		}
		begin(s);
		for (k = 0; k < nr; k++) {
			int bit = rnd() % 8;

			at = lo + rnd() % (hi - lo);
			w.buf[at] ^= 1 << bit;
			len += snprintf(desc + len, sizeof(desc) - len, " %#zx.%d", at, bit);
		}
		emit("-", "%d random bit flips (%s):%s", nr, regions[region], desc);
	}
}

static void truncations(const struct seed *s, int full)
{
	const struct layout *l = &s->l;
	size_t cuts[] = {
		0, 1, 8, 103, 104, l->attrs + 64, l->data, l->data + 4,
		l->data + l->rec[0].size / 2, (l->data + l->data_end) / 2,
		l->data_end - 1, l->data_end, l->data_end + 8,
		l->data_end + 16 * l->nr_feat - 1, l->feat[0].off + 2, s->f.len - 1,
	};
	size_t i;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		if (!full && i % 2)
			continue;
		begin(s);
		w.len = cuts[i] < w.len ? cuts[i] : w.len;
		emit("-", "file cut at %zu of %zu bytes", w.len, s->f.len);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: perfdata-fuzz [-F] [-s SEED] [-f FLIPS] OUTDIR BID.data [PLAIN.data]\n");
	exit(1);
}

/*
 * A seed recorded without --buildid-mmap has no MMAP2 record with the
 * build-ID bit, but for mainline's listener-order leak: while another
 * session asks for build IDs, the bit leaks into the records of the
 * others, which keep maj, min and ino. Those are the records it should
 * have had: clear the bit.
 */
static void unleak(struct seed *s)
{
	int k, n = 0;

	for (k = 0; k < s->l.nr_rec; k++)
		if (s->l.rec[k].type == PD_MMAP2 && (s->l.rec[k].misc & PD_MISC_MMAP_BUILD_ID)) {
			s->l.rec[k].misc &= ~PD_MISC_MMAP_BUILD_ID;
			pd_put16(&s->f, s->l.rec[k].off + 4, s->l.rec[k].misc);
			n++;
		}
	if (n)
		fprintf(stderr, "perfdata-fuzz: %d MMAP2 records of the plain seed had the build-ID bit (the kernel's listener-order leak): cleared\n", n);
}

int main(int argc, char **argv)
{
	struct seed seeds[2], swapped[2];
	int opt, nr_seeds, i, nr_flips = -1, full = 0, sizes[256];
	char path[4096];

	while ((opt = getopt(argc, argv, "Fs:f:")) != -1) {
		if (opt == 's')
			rng = strtoull(optarg, NULL, 0) | 1;
		else if (opt == 'f')
			nr_flips = atoi(optarg);
		else if (opt == 'F')
			full = 1;
		else
			usage();
	}
	nr_seeds = argc - optind - 1;
	if (nr_seeds < 1 || nr_seeds > 2)
		usage();
	if (nr_flips < 0)
		nr_flips = full ? 100 : 40;
	outdir = argv[optind];
	for (i = 0; i < nr_seeds; i++) {
		seeds[i].name = i ? "plain" : "bid";
		seeds[i].order = "";
		if (pd_load(&seeds[i].f, argv[optind + 1 + i], 0))
			return 1;
		if (seeds[i].f.swapped)
			die("the seeds must be of this machine's byte order");
		parse(&seeds[i].f, &seeds[i].l);
		if (!seeds[i].l.nr_rec || !seeds[i].l.nr_feat || !seeds[i].l.nr_attrs)
			die("a seed without records, features or attrs");
		if (i)
			unleak(&seeds[i]);
		/* the seeds as used: the results to compare with */
		snprintf(path, sizeof(path), "%s/%s.data", outdir, seeds[i].name);
		if (pd_save(&seeds[i].f, path))
			return 1;
		swap_seed(&seeds[i], &swapped[i]);
	}
	w_cap = seeds[0].f.len + (nr_seeds > 1 ? seeds[1].f.len : 0) + EXTRA;
	w.buf = malloc(w_cap);
	if (!w.buf)
		die("out of memory");
	snprintf(path, sizeof(path), "%s/index", outdir);
	idx = fopen(path, "w");
	if (!idx)
		die("cannot write the index");

	for (i = 0; i < nr_seeds; i++) {
		begin(&swapped[i]);
		emit("same", "the seed");
	}
	for (i = 0; i < 256; i++)
		sizes[i] = i;
	mmap2_sizes(&seeds[0], sizes, 256);
	mmap2_fields(&seeds[0], 1);
	misc_bits(&seeds[0]);
	inserted_records(&seeds[0]);
	record_sizes(&seeds[0], full);
	record_contents(&seeds[0]);
	file_header(&seeds[0], full);
	attrs(&seeds[0], full);
	features(&seeds[0], full);
	truncations(&seeds[0], full);
	flips(&seeds[0], nr_flips * 3 / 5);
	if (nr_seeds > 1) {
		mmap2_fields(&seeds[1], full);
		misc_bits(&seeds[1]);
		record_contents(&seeds[1]);
		for (i = 0; !full && i < seeds[1].l.nr_feat; i++)
			if (seeds[1].l.feat[i].bit == F_BUILD_ID)
				build_id_table(&seeds[1], seeds[1].l.feat[i].off);
		if (full) {
			record_sizes(&seeds[1], 0);
			features(&seeds[1], 0);
			truncations(&seeds[1], 0);
		}
		flips(&seeds[1], nr_flips / 5);
	}
	for (i = 0; i < nr_seeds; i++) {
		static const int some[] = { 0, 1, 8, 20, 21, 128, 255 };

		if (i == 0)
			mmap2_sizes(&swapped[0], full ? sizes : some, full ? 256 : 7);
		mmap2_fields(&swapped[i], 0);
		misc_bits(&swapped[i]);
		record_sizes(&swapped[i], 0);
		record_contents(&swapped[i]);
		if (full || i == 0) {
			file_header(&swapped[i], 0);
			attrs(&swapped[i], 0);
			features(&swapped[i], 0);
			truncations(&swapped[i], 0);
		}
		flips(&swapped[i], nr_flips / (5 * nr_seeds));
	}
	fclose(idx);
	for (i = 0; i < nr_seeds; i++) {
		free(seeds[i].f.buf);
		free(swapped[i].f.buf);
	}
	free(w.buf);
	printf("%u\n", nr_out);
	return 0;
}
