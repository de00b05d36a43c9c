// SPDX-License-Identifier: GPL-2.0
/*
 * Corrupted perf.data files, made from seed files recorded on this
 * machine, for tests that perf copes with them: a clear message or a
 * correct result, never a crash. The variants are the same for the same
 * seeds and PRNG seed.
 *
 * usage: perfdata-fuzz [-F] [-a] [-s SEED] [-f FLIPS] OUTDIR BID.data [PLAIN.data]
 *   BID.data    recorded with perf record --buildid-mmap
 *   PLAIN.data  recorded without it (a build-id table in the header)
 *   -F          the full set: every value of each field, all the variants
 *               on the other seed and byte order too (about twice as many)
 *   -a          every build_id_size 0-255 (without -F: 0-22 and a sample)
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
 * The variants: every field of an MMAP2 record with a build ID (its
 * build_id_size 0-22 and a sample of the larger ones; -F all 256), the build-ID misc bit on the other record types,
 * records whose header.size is wrong, file header fields that disagree
 * with the file, feature sections, random bit flips, truncated files, and
 * the seeds and some of those in the other byte order: the seeds
 * converted as a machine of the other byte order would have written
 * them, which perf tells by the magic it reads swapped. Feature sections
 * this program cannot convert are left out of those.
 *
 * This file holds main() and the variant being made; perfdata-fuzz.h says
 * which part of the program is in which file.
 */
#include <stdarg.h>
#include <unistd.h>
#include "perfdata-fuzz.h"

static const char *outdir;
static FILE *idx;
static unsigned int nr_out;
static uint64_t rng = 1;

uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

void die(const char *msg)
{
	fprintf(stderr, "perfdata-fuzz: %s\n", msg);
	exit(1);
}

/* the variant being made, from the seed ws, whose layout is wl */
struct pd_file w;		/* the variant being made */
static size_t w_cap;
struct layout wl;		/* the layout of the seed it is made from */
static const struct seed *ws;

void begin(const struct seed *s)
{
	ws = s;
	memcpy(w.buf, s->f.buf, s->f.len);
	memset(w.buf + s->f.len, 0, w_cap - s->f.len);
	w.len = s->f.len;
	w.swapped = s->f.swapped;
	wl = s->l;
}

void __attribute__((format(printf, 2, 3)))
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
void splice_bytes(size_t at, size_t del, const void *ins, size_t n)
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

void hex(char *out, const unsigned char *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
	if (!n)
		strcpy(out, "-");
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
	int opt, nr_seeds, i, nr_flips = -1, full = 0, all_sizes = 0, sizes[256];
	char path[4096];

	while ((opt = getopt(argc, argv, "Fas:f:")) != -1) {
		if (opt == 'a')
			all_sizes = 1;
		else if (opt == 's')
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
	/*
	 * build_id_size: every size from 0 to 22 (20 is the largest valid
	 * one, and all the record has room for); perf takes all the larger
	 * ones the same way, so without -F a sample of them
	 */
	for (i = 0; i < 256; i++)
		sizes[i] = i;
	if (full || all_sizes) {
		mmap2_sizes(&seeds[0], sizes, 256);
	} else {
		static const int large[] = { 24, 31, 32, 40, 63, 64, 127, 128, 200, 254, 255 };

		mmap2_sizes(&seeds[0], sizes, 23);
		mmap2_sizes(&seeds[0], large, sizeof(large) / sizeof(large[0]));
	}
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
