// SPDX-License-Identifier: GPL-2.0
/*
 * Demo workload: spends its time in two functions of its own and one of
 * libburn.so, so that perf report has symbols from two DSOs to resolve.
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long burn_lib(unsigned long n);

static unsigned long __attribute__((noinline)) burn_main_a(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

static unsigned long __attribute__((noinline)) burn_main_b(unsigned long n)
{
	unsigned long x = 1, i;

	for (i = 0; i < n; i++)
		x ^= x << 7 ^ i;
	return x;
}

int main(int argc, char **argv)
{
	unsigned long loops = argc > 1 ? strtoul(argv[1], NULL, 0) : 200;
	unsigned long sum = 0, i;

	for (i = 0; i < loops; i++)
		sum += burn_main_a(1000000) + 2 * burn_main_b(500000) +
		       burn_lib(700000);
	printf("burn: %lu loops, checksum %lx\n", loops, sum);
	return 0;
}
