// SPDX-License-Identifier: GPL-2.0
/*
 * A short-lived program built with several --build-id styles (sha1,
 * md5, an 8-byte hex ID, none), for tests that compare the build IDs in
 * MMAP2 records with what readelf -n reads from the file.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	unsigned long i, n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;

	for (i = 0; i < n; i++)
		x += i;
	return 0;
}
