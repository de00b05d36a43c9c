// SPDX-License-Identifier: GPL-2.0
/*
 * A program that splits its own code mapping before it runs its hot
 * function: "split-text hotpatch|madvise|none [N [READY_FILE]]".
 * Padding functions of several pages (never run) come first, then
 * hot_function; main() changes the pages from the first whole one of
 * innocent_pad1 to the one before hot_function (an mprotect() to RWX and
 * back, as hot patching does, or an madvise(MADV_HUGEPAGE)), which splits
 * the mapping there, then creates READY_FILE and runs hot_function N
 * times. Built with -fno-toplevel-reorder, so that the functions stay in
 * this order. SALT gives a copy a build ID of its own, PAD_BYTES pads
 * of another size (three pads of at least one page each leave a whole
 * page to split off at any page size).
 */
#ifndef SALT
#define SALT "split-text"
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char salt[] __attribute__((used)) = SALT;

/* each pad's size: -DPAD_BYTES=65536 for pages of up to 64 KiB */
#ifndef PAD_BYTES
#define PAD_BYTES 12288
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#define PAD(n) __attribute__((noinline, used)) void innocent_pad##n(void) \
	{ asm volatile(".skip " STR(PAD_BYTES) ", 0x90"); }
PAD(1)
PAD(2)
PAD(3)
static volatile unsigned long sink;

__attribute__((noinline)) void hot_function(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "none";
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 300000000;
	uintptr_t pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)innocent_pad1 + pg - 1) & ~(pg - 1);
	uintptr_t b = (uintptr_t)hot_function & ~(pg - 1);
	int err = 0;

	if (b <= a) {
		fprintf(stderr, "no whole page before hot_function\n");
		return 1;
	}
	if (!strcmp(how, "hotpatch"))
		err = mprotect((void *)a, b - a, PROT_READ | PROT_WRITE | PROT_EXEC) ||
		      mprotect((void *)a, b - a, PROT_READ | PROT_EXEC);
	else if (!strcmp(how, "madvise"))
		err = madvise((void *)a, b - a, MADV_HUGEPAGE);
	if (err) {
		perror(how);
		return 1;
	}
	if (argc > 3)
		fclose(fopen(argv[3], "w"));
	hot_function(n);
	return 0;
}
