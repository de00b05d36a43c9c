// SPDX-License-Identifier: GPL-2.0
/* perfdata-fuzz: variants of the records of the data section. */
#include "perfdata-fuzz.h"

static const uint64_t u64_values[] = {
	0, 1, 0x7fffffffffffffffULL, ~0ULL, 0xffffffff81000000ULL,
};

/*
 * build_id_size: the sizes given, on the MMAP2 records with an ID of
 * files, a size for each record in turn, as many files as needed.
 */
void mmap2_sizes(const struct seed *s, const int *sizes, int nr_sizes)
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

void mmap2_fields(const struct seed *s, int full)
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
void misc_bits(const struct seed *s)
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
void inserted_records(const struct seed *s)
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
void record_sizes(const struct seed *s, int full)
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
/*
 * The first EVENT_UPDATE record (a unit or scale in the seeds) made a CPU
 * map (PERF_EVENT_UPDATE__CPUS) whose count its few bytes cannot hold: a
 * list of 65535 CPUs, and a mask of 65535 longs of 65535 bytes (whose
 * size in bits overflows an int). 5.10's perf read as many as counted.
 */
static void event_update_cpus(const struct seed *s)
{
	int r = find_record(&s->l, PD_EVENT_UPDATE, 0);
	size_t at;
	int mask;

	if (r < 0 || s->l.rec[r].size < 32)
		return;
	at = s->l.rec[r].off;
	for (mask = 0; mask <= 1; mask++) {
		begin(s);
		pd_put64(&w, at + 8, 3);		/* type: CPUS */
		pd_put16(&w, at + 24, mask);		/* a list, or a mask */
		pd_put16(&w, at + 26, 0xffff);		/* nr */
		if (mask)
			pd_put16(&w, at + 28, 0xffff);	/* long_size */
		emit("-", "first EVENT_UPDATE record: CPUs, %s", mask ?
		     "a mask of 65535 x 65535 bytes" : "a list of 65535");
	}
}

void record_contents(const struct seed *s)
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
	event_update_cpus(s);
}
