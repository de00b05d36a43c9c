// SPDX-License-Identifier: GPL-2.0
/*
 * Delete this program's own file as it starts, then run: a profiler sees
 * its mapping only once nothing is left at its path, and can keep the
 * binary only through the mapping itself (/proc/PID/map_files). Started
 * through a descriptor of its file deleted before (/proc/self/fd/N), it
 * deletes nothing: no profiler ever saw the file at its path.
 *
 * usage: vanish LOOPS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) unsigned long vanish_hot(unsigned long n)
{
	unsigned long i, s = 0;

	for (i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}

int main(int argc, char **argv)
{
	char path[4096];
	ssize_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: %s LOOPS\n", argv[0]);
		return 1;
	}
	len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (len < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	path[len] = '\0';
	/* (started through a descriptor of its file, deleted already) */
	if (!(len > 10 && !strcmp(path + len - 10, " (deleted)")) && unlink(path)) {
		perror(path);
		return 1;
	}
	printf("%lu\n", vanish_hot(strtoul(argv[1], NULL, 0)));
	return 0;
}
