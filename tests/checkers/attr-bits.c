// SPDX-License-Identifier: GPL-2.0
/*
 * Which bits of the perf_event_attr flags word (the u64 at byte 40) does
 * the running kernel accept on a dummy software event? Bits 0-33 are
 * mainline 5.10's; the series adds bit 34 (build_id). Prints one line
 * per bit from 34 to 63: "bit N accepted" or "bit N rejected ERRNO".
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "listener.h"

int main(void)
{
	int bit;

	for (bit = 34; bit < 64; bit++) {
		struct perf_event_attr attr;
		int fd;

		listener_attr(&attr, 1, 0);
		attr.size = PERF_ATTR_SIZE_VER5;	/* 5.10 knows this size */
		attr_set_bit(&attr, bit);
		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd >= 0) {
			printf("bit %d accepted\n", bit);
			close(fd);
		} else {
			printf("bit %d rejected %s\n", bit, strerror(errno));
		}
	}
	return 0;
}
