// SPDX-License-Identifier: GPL-2.0
/*
 * Exec-heavy work: fork() and execv() PROG N times, one after the other,
 * and print the time it took:
 *   exec N PROG NS_TOTAL
 * usage: exec-loop N PROG [ARGS...]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n, i, status;
	int64_t t0;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: %s N PROG [ARGS...]\n", argv[0]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			execv(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: run %d failed (status 0x%x)\n", argv[2], i, status);
			return 1;
		}
	}
	printf("exec %d %s %lld\n", n, argv[2], (long long)(now_ns() - t0));
	return 0;
}
