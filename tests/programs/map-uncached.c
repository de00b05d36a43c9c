// SPDX-License-Identifier: GPL-2.0
/*
 * Map a file whose pages are not in the page cache, so that the kernel
 * cannot read its build ID at mmap() time and reports the classic
 * MMAP2 fields, then run code from it.
 *
 * usage: map-uncached FILE OFFSET LOOPS
 *   FILE    a shared library, on a file system that can evict its pages
 *   OFFSET  file offset of a function "unsigned long f(unsigned long)"
 *           that needs no relocation (burn_lib in libburn.so)
 *   LOOPS   how many times to call it
 * Exits 2, saying why, when the pages cannot be evicted (tmpfs, or a
 * kernel without posix_fadvise).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long off, loops, i, sum = 0;
	unsigned long (*fn)(unsigned long);
	unsigned char resident;
	struct stat st;
	char *base;
	int fd, err;

	if (argc != 4) {
		fprintf(stderr, "usage: %s FILE OFFSET LOOPS\n", argv[0]);
		return 1;
	}
	off = strtoul(argv[2], NULL, 0);
	loops = strtoul(argv[3], NULL, 0);
	fd = open(argv[1], O_RDONLY);
	/* read-only file systems (squashfs, erofs) have nothing to sync */
	if (fd < 0 || fstat(fd, &st) ||
	    (fsync(fd) && errno != EINVAL && errno != EROFS)) {
		perror(argv[1]);
		return 1;
	}
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err) {
		fprintf(stderr, "posix_fadvise: %s%s\n", strerror(err),
			err == ENOSYS ? " (a kernel without CONFIG_ADVISE_SYSCALLS)" : "");
		return err == ENOSYS ? 2 : 1;
	}
	if ((unsigned long)st.st_size <= off) {
		fprintf(stderr, "%s: offset %#lx is past the end\n", argv[1], off);
		return 1;
	}
	/* mmap() reads nothing: mincore() on a throw-away mapping tells */
	base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED || mincore(base, 1, &resident)) {
		perror("mmap");
		return 1;
	}
	munmap(base, st.st_size);
	if (resident & 1) {
		fprintf(stderr, "%s: its pages stay cached (tmpfs?)\n", argv[1]);
		return 2;
	}
	base = mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	fn = (unsigned long (*)(unsigned long))(base + off);
	for (i = 0; i < loops; i++)
		sum += fn(700000);
	printf("map-uncached: %lu loops, checksum %lx\n", loops, sum);
	return 0;
}
