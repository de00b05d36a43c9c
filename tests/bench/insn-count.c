// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts the guest instructions executed between
 * marks the guest program puts in its code: a cost measure free of the
 * host's noise, for comparing two kernels instruction by instruction.
 *
 * A mark is the 7-byte no-op "nopl 0x??646962(%rax)", bytes
 *   0f 1f 80 62 69 64 TAG
 * ("bid" and a tag). TAG 0xff ends a span; any other tag starts one. The
 * plugin keeps the instruction count of every span by its start tag and
 * at exit writes one line per tag to its output file:
 *   insns TAG SPANS MIN Q1 MEDIAN Q3
 * The counts are of guest instructions, kernel and user, from the start
 * mark to the end mark, so a span that an interrupt hit counts more: the
 * median is the figure to read. The counter is one for the whole machine,
 * so the guest must have one vCPU (-smp 1), or, with whole=1, run its
 * vCPUs one at a time (-accel tcg,thread=single; -icount with several
 * vCPUs never brings the others up): a span then counts the instructions
 * of every vCPU while it is open (the others' interrupts and IPIs too).
 *
 * With profile=TAG (up to 4 times) it also writes, for the spans of that
 * tag, where their instructions ran: one line per translation block
 *   pc TAG ADDRESS INSTRUCTIONS
 * summed over all spans, for scripts/lib/insn-profile to put names on.
 *
 * usage: qemu-system-... -smp 1 -plugin insn-count.so,out=FILE[,profile=TAG]
 *        qemu-system-... -accel tcg,thread=single -smp N -plugin insn-count.so,out=FILE,whole=1
 *
 * QEMU's plugin API (version 1, QEMU 7.2) is declared here by hand:
 * Debian ships no qemu-plugin.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the part of QEMU's plugin API this plugin uses --- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
	void (*cb)(unsigned int vcpu, void *userdata),
	enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, void *userdata), void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int vcpu, void *userdata),
	enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;
/* --- end of the API --- */

#define MARK_END 0xff
static const unsigned char mark[] = { 0x0f, 0x1f, 0x80, 0x62, 0x69, 0x64 };

struct spans {
	uint32_t *insns;
	size_t n, alloc;
};

static uint64_t count;		/* guest instructions, at translation-block entry */
static uint64_t span_start;
static int span_tag = -1;	/* the open span's tag, -1 when none is open */
static struct spans spans[MARK_END];
static FILE *out;

/* profiles: instructions by translation-block address, open addressing */
#define MAX_PROFILES 4
#define PROFILE_SLOTS (1 << 16)
struct tb_info {
	uint64_t vaddr;
	size_t n;
};
struct profile {
	int tag;
	uint64_t *vaddr, *insns;
};
static struct profile profiles[MAX_PROFILES];
static int nr_profiles;

static void on_tb(unsigned int vcpu, void *userdata)
{
	const struct tb_info *tb = userdata;
	int i;

	(void)vcpu;
	for (i = 0; i < nr_profiles; i++) {
		struct profile *p = &profiles[i];
		size_t slot = (tb->vaddr >> 2) % PROFILE_SLOTS;

		if (p->tag != span_tag)
			continue;
		while (p->vaddr[slot] != tb->vaddr && p->vaddr[slot])
			slot = (slot + 1) % PROFILE_SLOTS;
		p->vaddr[slot] = tb->vaddr;	/* a full table would loop: 64k blocks */
		p->insns[slot] += tb->n;
	}
}

static void on_mark(unsigned int vcpu, void *userdata)
{
	int tag = (int)(uintptr_t)userdata;
	struct spans *s;

	(void)vcpu;
	if (tag != MARK_END) {
		span_tag = tag;
		span_start = count;
		return;
	}
	if (span_tag < 0)
		return;
	s = &spans[span_tag];
	span_tag = -1;
	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? 2 * s->alloc : 4096;
		uint32_t *p = realloc(s->insns, alloc * sizeof(*p));

		if (!p)
			return;
		s->insns = p;
		s->alloc = alloc;
	}
	s->insns[s->n++] = count - span_start > UINT32_MAX ?
			   UINT32_MAX : (uint32_t)(count - span_start);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &count, n);
	if (nr_profiles) {
		struct tb_info *info = malloc(sizeof(*info));

		if (info) {
			info->vaddr = qemu_plugin_tb_vaddr(tb);
			info->n = n;
			qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb,
				QEMU_PLUGIN_CB_NO_REGS, info);
		}
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const unsigned char *data = qemu_plugin_insn_data(insn);

		if (qemu_plugin_insn_size(insn) != sizeof(mark) + 1 ||
		    memcmp(data, mark, sizeof(mark)))
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
			QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)data[sizeof(mark)]);
	}
}

static void write_results(qemu_plugin_id_t id, void *userdata)
{
	int tag;

	(void)id;
	(void)userdata;
	for (tag = 0; tag < MARK_END; tag++) {
		struct spans *s = &spans[tag];

		if (!s->n)
			continue;
		qsort(s->insns, s->n, sizeof(*s->insns), cmp_u32);
		fprintf(out, "insns %d %zu %u %u %u %u\n", tag, s->n, s->insns[0],
			s->insns[s->n / 4], s->insns[s->n / 2], s->insns[3 * s->n / 4]);
		free(s->insns);
	}
	for (tag = 0; tag < nr_profiles; tag++) {
		struct profile *p = &profiles[tag];
		size_t slot;

		for (slot = 0; slot < PROFILE_SLOTS; slot++)
			if (p->vaddr[slot])
				fprintf(out, "pc %d %#llx %llu\n", p->tag,
					(unsigned long long)p->vaddr[slot],
					(unsigned long long)p->insns[slot]);
	}
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	const char *path = NULL;
	int i, whole = 0;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strcmp(argv[i], "whole=1")) {
			whole = 1;
		} else if (!strncmp(argv[i], "profile=", 8) && nr_profiles < MAX_PROFILES) {
			struct profile *p = &profiles[nr_profiles++];

			p->tag = atoi(argv[i] + 8);
			p->vaddr = calloc(PROFILE_SLOTS, sizeof(*p->vaddr));
			p->insns = calloc(PROFILE_SLOTS, sizeof(*p->insns));
			if (!p->vaddr || !p->insns)
				return -1;
		} else {
			path = NULL;
			break;
		}
	}
	if (!path) {
		qemu_plugin_outs("insn-count: usage: -plugin insn-count.so,out=FILE[,profile=TAG]...[,whole=1]\n");
		return -1;
	}
	if (!info->system_emulation || (info->system.smp_vcpus != 1 && !whole)) {
		qemu_plugin_outs("insn-count: needs a system guest with one vCPU (-smp 1), or whole=1 and -icount\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		qemu_plugin_outs("insn-count: cannot open the output file\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_results, NULL);
	return 0;
}
