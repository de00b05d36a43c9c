// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny JIT, as perf inject --jit expects one (tools/perf/util/jitdump.h,
 * the public jitdump format): it writes DIR/jit-PID.dump with one
 * JIT_CODE_LOAD record naming its code NAME, maps that file executable
 * (the marker perf record sees as an MMAP2 record), and runs the code it
 * generated in anonymous memory for about SECONDS. x86_64 only (its code
 * is written as bytes); elsewhere it exits 77. Record it with perf record
 * -k mono: the record's timestamps are CLOCK_MONOTONIC.
 * usage: jit-writer NAME SECONDS DIR
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct jitheader {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct jr_code_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void write_all(int fd, const void *buf, size_t size)
{
	if (write(fd, buf, size) != (ssize_t)size) {
		perror("jit-writer: write");
		exit(1);
	}
}

int main(int argc, char **argv)
{
#ifdef __x86_64__
	/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
	static const unsigned char code[] = {
		0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
	};
	struct jitheader h = {
		.magic = 0x4A695444, .version = 1, .total_size = sizeof(h),
		.elf_mach = 62 /* EM_X86_64 */,
	};
	struct jr_code_load rec = { .id = 0 /* JIT_CODE_LOAD */ };
	char path[4096];
	void (*fn)(unsigned long);
	uint64_t end;
	void *mem, *marker;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: jit-writer NAME SECONDS DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/jit-%d.dump", argv[3], getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	h.pid = getpid();
	h.timestamp = now_ns();
	write_all(fd, &h, sizeof(h));
	/* the marker: perf finds the dump by this mapping's record */
	marker = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE, fd, 0);
	mem = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (marker == MAP_FAILED || mem == MAP_FAILED) {
		perror("jit-writer: mmap");
		return 1;
	}
	memcpy(mem, code, sizeof(code));

	rec.total_size = sizeof(rec) + strlen(argv[1]) + 1 + sizeof(code);
	rec.timestamp = now_ns();
	rec.pid = getpid();
	rec.tid = getpid();
	rec.vma = rec.code_addr = (uintptr_t)mem;
	rec.code_size = sizeof(code);
	write_all(fd, &rec, sizeof(rec));
	write_all(fd, argv[1], strlen(argv[1]) + 1);
	write_all(fd, code, sizeof(code));

	fn = (void (*)(unsigned long))mem;
	end = now_ns() + strtoull(argv[2], NULL, 0) * 1000000000ull;
	while (now_ns() < end)
		fn(1000000);
	munmap(marker, sysconf(_SC_PAGESIZE));
	close(fd);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit-writer: x86_64 only\n");
	return 77;
#endif
}
