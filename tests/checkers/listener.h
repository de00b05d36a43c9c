/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf_event_attr of the workloads' listeners: a dummy software
 * event that reports user-space mappings. The ABI under test is written
 * out here rather than taken from the headers the workloads are built
 * with: build_id is bit 34 of the flags word at byte 40.
 */
#ifndef WORKLOADS_LISTENER_H
#define WORKLOADS_LISTENER_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#define ATTR_FLAGS_OFFSET	40
#define ATTR_BUILD_ID_BIT	34

/*
 * Bit-fields fill the word from its least significant bit on little-endian
 * ABIs and from its most significant bit on big-endian ones (s390x,
 * ppc64): bit 34 of the ABI is 1 << 34 on x86_64 and 1 << 29 on s390x.
 */
static inline void attr_set_bit(struct perf_event_attr *attr, int bit)
{
	uint64_t flags;

	memcpy(&flags, (char *)attr + ATTR_FLAGS_OFFSET, sizeof(flags));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	flags |= 1ULL << (63 - bit);
#else
	flags |= 1ULL << bit;
#endif
	memcpy((char *)attr + ATTR_FLAGS_OFFSET, &flags, sizeof(flags));
}

static inline void listener_attr(struct perf_event_attr *attr, int mmap2,
				 int build_id)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->mmap = 1;
	attr->mmap2 = mmap2;
	attr->exclude_kernel = 1;
	if (build_id)
		attr_set_bit(attr, ATTR_BUILD_ID_BIT);
}

#endif
