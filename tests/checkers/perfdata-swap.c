// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata-fuzz: a seed converted as a machine of the other byte order
 * would have written it.
 */
#include "perfdata-fuzz.h"

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

void sw64s(unsigned char *p, size_t bytes)
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
void swap_seed(const struct seed *in, struct seed *out)
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
