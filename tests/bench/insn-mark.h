/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Marks for QEMU's instruction counter (tests/bench/insn-count.c): mark(TAG)
 * starts a span, mark(MARK_END) ends it, and the counter tells how many
 * guest instructions each span took. A mark is the no-op
 * "nopl 0x??646962(%rax)" with the tag as the top byte of the
 * displacement; the tag is part of the instruction, so each tag has its
 * own copy, for tags 1 to MARK_MAX. Elsewhere than on x86 a mark is
 * nothing.
 */
#ifndef INSN_MARK_H
#define INSN_MARK_H

#if defined(__x86_64__) || defined(__i386__)
#define MARK(t) asm volatile(".byte 0x0f, 0x1f, 0x80, 0x62, 0x69, 0x64, " #t)
#else
#define MARK(t) do { } while (0)
#endif
#define MARK_MAX 48
#define MARK_END 255

#define MARK_CASE(t) case t: MARK(t); break
#define MARK_CASES8(t) MARK_CASE(t + 1); MARK_CASE(t + 2); MARK_CASE(t + 3); \
	MARK_CASE(t + 4); MARK_CASE(t + 5); MARK_CASE(t + 6); MARK_CASE(t + 7); \
	MARK_CASE(t + 8)

static inline void mark(int tag)
{
	switch (tag) {
	MARK_CASES8(0); MARK_CASES8(8); MARK_CASES8(16);
	MARK_CASES8(24); MARK_CASES8(32); MARK_CASES8(40);
	MARK_CASE(255);
	}
}

#endif
