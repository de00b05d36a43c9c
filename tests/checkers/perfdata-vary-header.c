// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata-fuzz: variants of the file header, the attrs, the feature
 * sections; random bit flips and truncated files.
 */
#include "perfdata-fuzz.h"

static void header_u64(const struct seed *s, size_t at, uint64_t v, const char *what)
{
	begin(s);
	pd_put64(&w, at, v);
	emit("-", "file header: %s = %#llx", what, (unsigned long long)v);
}

void file_header(const struct seed *s, int full)
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

void attrs(const struct seed *s, int full)
{
	static const struct { size_t at; int width; uint64_t v; const char *what; } muts[] = {
		{ 4, 4, 0, "size 0 (ABI0)" }, { 4, 4, 8, "size 8" }, { 4, 4, 64, "size 64" },
		{ 4, 4, 72, "size 72" }, { 4, 4, 128, "size 128" }, { 4, 4, 4096, "size 4096" },
		{ 4, 4, 0xffffffff, "size ~0" }, { 0, 4, 1000, "type 1000" },
		{ 0, 4, 0xffffffff, "type ~0" }, { 0, 4, 65, "type 65" }, { 24, 8, ~0ULL, "sample_type ~0" },
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
		/* the type, which perf uses as an index, in every set */
		if (!full && i % 3 && muts[i].at != 0)
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
void build_id_table(const struct seed *s, size_t off)
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

void features(const struct seed *s, int full)
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
			/*
			 * version, block size, nr; the first node's number
			 * and size, then its bitmap's size in bits: 5.10's
			 * perf allocated for that size cut to an int (64
			 * bits) and read 2^26 words into it
			 */
			if (s->l.feat[k].bit == F_MEM_TOPOLOGY && size >= 48) {
				begin(s);
				pd_put64(&w, off + 40, (1ULL << 32) + 64);
				emit("-", "feature MEM_TOPOLOGY: first node's bitmap of 2^32+64 bits");
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

void flips(const struct seed *s, int count)
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

void truncations(const struct seed *s, int full)
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
