// SPDX-License-Identifier: GPL-2.0
/* The shared-library half of the demo workload. */

unsigned long __attribute__((noinline)) burn_lib(unsigned long n)
{
	unsigned long x = 3, i;

	for (i = 0; i < n; i++)
		x += x >> 3 ^ i;
	return x;
}
