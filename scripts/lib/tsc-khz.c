// SPDX-License-Identifier: GPL-2.0
/*
 * Print the frequency of this x86 machine's TSC in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms. Each end of the interval is a TSC read
 * between two clock reads no more than 20 us apart (retried when the
 * process was preempted in between), so the error is below 0.02%.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* a TSC read and the time it was made, to 20 us */
static int sample(unsigned long long *tsc, double *t)
{
	double a, b;
	int i;

	for (i = 0; i < 1000; i++) {
		a = now();
		*tsc = __rdtsc();
		b = now();
		if (b - a < 20e-6) {
			*t = (a + b) / 2;
			return 0;
		}
	}
	return -1;
}

int main(void)
{
	struct timespec d = { 0, 200000000 };
	unsigned long long c0, c1;
	double t0, t1;

	if (sample(&c0, &t0))
		return 1;
	nanosleep(&d, NULL);
	if (sample(&c1, &t1))
		return 1;
	printf("%.0f\n", (c1 - c0) / (t1 - t0) / 1000);
	return 0;
}
