// SPDX-License-Identifier: GPL-2.0
/*
 * One program in two builds with different code and names: BUILD 1
 * (unwind-v1) spins in hot_v1() <- outer_v1() <- main(); BUILD 2
 * (unwind-v2) puts other code first, so that every function of it is at
 * another address, and names its own decoy_v2() and outer_v2(). A test
 * records v1 with --call-graph dwarf, renames v2 over it, and no frame or
 * symbol of v2 may show in v1's samples.
 * usage: unwind-vN [ITERATIONS]
 */
#include <stdlib.h>

volatile unsigned long sink;

#if BUILD == 1
__attribute__((noinline)) void hot_v1(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void outer_v1(unsigned long n)
{
	hot_v1(n);
	sink++;
}
#define OUTER outer_v1
#else
__attribute__((noinline)) void pad_v2(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		sink += i;
		sink ^= i << 3;
		sink += i * 7;
		sink -= i >> 2;
		sink *= 3;
	}
}

__attribute__((noinline)) void decoy_v2(unsigned long n)
{
	unsigned long a[64];

	for (unsigned long i = 0; i < n; i++) {
		a[i & 63] = i;
		sink += a[(i * 7) & 63];
	}
}

__attribute__((noinline)) void outer_v2(unsigned long n)
{
	pad_v2(1);
	decoy_v2(n);
	sink++;
}
#define OUTER outer_v2
#endif

int main(int argc, char **argv)
{
	OUTER(argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000UL);
	return 0;
}
