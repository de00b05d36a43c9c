// SPDX-License-Identifier: GPL-2.0
/* Where things are in a (valid) perf.data file: the parts of perfdata-fuzz read it so. */
#include "perfdata-fuzz.h"

const char *const feat_name[F_LAST] = {
	"", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
	"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE",
	"EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK",
	"PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE",
	"SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA",
};

const char *record_name(uint32_t type)
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

uint8_t revbyte(uint8_t b)
{
	uint8_t r = 0;
	int i;

	for (i = 0; i < 8; i++)
		if (b & (1 << i))
			r |= 0x80 >> i;
	return r;
}

int test_feat(const struct pd_file *f, int bit)
{
	return (pd_get64(f, PD_H_FEATURES + bit / 64 * 8) >> (bit % 64)) & 1;
}

void set_feat(struct pd_file *f, int bit, int on)
{
	size_t at = PD_H_FEATURES + bit / 64 * 8;
	uint64_t w = pd_get64(f, at), m = 1ULL << (bit % 64);

	pd_put64(f, at, on ? w | m : w & ~m);
}

size_t trailer_size(uint64_t st)
{
	uint64_t bits[] = { S_TID, S_TIME, S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER };
	size_t i, n = 0;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		n += (st & bits[i]) ? 8 : 0;
	return n;
}

void parse(const struct pd_file *f, struct layout *l)
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
int find_record(const struct layout *l, uint32_t type, int n)
{
	int i;

	for (i = 0; i < l->nr_rec; i++)
		if (l->rec[i].type == type && n-- == 0)
			return i;
	return -1;
}

/* The MMAP2 record of the file whose path ends in suffix, or -1 */
int find_mmap2(const struct pd_file *f, const struct layout *l, const char *suffix)
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

