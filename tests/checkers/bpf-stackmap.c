// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF stack map with BPF_F_STACK_BUILD_ID at run time: the build ID
 * and file offset it stores for each user frame, checked against this
 * program's own build ID note (read from /proc/self/exe by the program
 * itself) and its own return addresses.
 *
 * A perf-event program (cpu-clock samples of this thread: interrupt
 * context) and a kprobe program (on the getppid syscall: process
 * context) call bpf_get_stackid() while this program is DEPTH calls
 * deep in a recursion. The BPF programs are a few hand-assembled
 * instructions loaded with bpf(2), so no compiler for BPF is needed.
 *
 * The innermost frames pass through libfarnote.so, whose build ID note
 * lies beyond its first page: the stack map must store its ID there too,
 * while 5.10 without the series read the first page only and stored an
 * IP (--first-page-only expects that, for the unpatched kernel).
 *
 * With FUNC (the parser, build_id_parse), a kprobe counts how often the
 * kernel parses a file during the perf-event stack walks: consecutive
 * frames in one mapping must share one lookup, so a walk of DEPTH frames
 * through two or three mappings parses a handful of times, not DEPTH.
 *
 * usage: bpf-stackmap [--first-page-only] [FUNC]. Prints KTAP; exits 4 (kselftest's skip)
 * when the kernel cannot load the programs.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "elf-id.h"
#include "kprobe-count.h"
#include "ktap.h"

#define DEPTH		32
#define MAX_FRAMES	64
#define MAX_STACKS	256

static uint8_t self_id[20];
static int self_id_size;
static uintptr_t ret_addr[DEPTH];	/* deep()'s return addresses */
static uint64_t ret_off[DEPTH];		/* and their file offsets */
static uint8_t far_id[20];
static int far_id_size;
static uintptr_t far_ret;		/* work()'s return address in the library */
static uint64_t far_off;
static int first_page_only;

int far_call(int (*fn)(int), int arg);	/* libfarnote.so */

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* The build ID of the file at @path, by the tests' own reader: its size, or -1 */
static int read_build_id(const char *path, uint8_t *id)
{
	struct elfid e;

	if (elf_file_id(path, &e) || !e.found)
		return -1;
	memcpy(id, e.id, e.size);
	return e.size;
}

/*
 * The file offset of @addr and the path of the file mapped there, from
 * /proc/self/maps; -1 when no file is mapped there.
 */
static int64_t file_offset(uintptr_t addr, char *path, size_t path_len)
{
	unsigned long start, end, pgoff;
	char line[512], name[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int64_t off = -1;

	while (f && off < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &pgoff,
			   name) == 4 && addr >= start && addr < end) {
			off = addr - start + pgoff;
			snprintf(path, path_len, "%s", name);
		}
	}
	if (f)
		fclose(f);
	return off;
}

static void spin(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 400000000L);
}

/* The work, called through libfarnote.so: a spin or getppid() calls */
static int __attribute__((noinline)) work(int spinning)
{
	int r;

	far_ret = (uintptr_t)__builtin_return_address(0);
	if (spinning)
		spin();
	else
		for (r = 0; r < 20; r++)
			syscall(SYS_getppid);
	return 0;
}

/* DEPTH frames of deep(), then the work */
static int __attribute__((noinline)) deep(int n, int spinning)
{
	int r;

	if (n == DEPTH)
		return far_call(work, spinning);
	r = deep(n + 1, spinning);
	ret_addr[n] = (uintptr_t)__builtin_return_address(0);
	return r + 1;
}

/*
 * bpf_get_stackid(ctx, stack map, BPF_F_USER_STACK), then count the run
 * in element 0 of the array map @runs_fd.
 */
static int load_prog(int type, int map_fd, int runs_fd, char *log, size_t log_len)
{
	struct bpf_insn insns[] = {
		/* r1 is the context; r2 = the stack map; r3 = the flags */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3,
		  .imm = BPF_F_USER_STACK },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_stackid },
		/* key 0 at fp - 4; r0 = lookup(runs, &key) */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = runs_fd },
		{ 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if (r0) atomically *(u64 *)r0 += 1 */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_XADD | BPF_DW, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = log_len;
	attr.log_level = 1;
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int new_map(int type, uint32_t value_size, uint32_t entries, uint32_t flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = value_size;
	attr.max_entries = entries;
	attr.map_flags = flags;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

/* Element 0 of the array map @fd, read and reset */
static uint64_t take_runs(int fd)
{
	uint64_t runs = 0, zero = 0;
	uint32_t key = 0;
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&runs;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return 0;
	attr.value = (uintptr_t)&zero;
	sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
	return runs;
}

/* An event on this thread that runs @prog: cpu-clock samples or a kprobe */
static int attach(int prog, int kprobe)
{
	struct perf_event_attr attr;
	int fd, type = -1;
	FILE *f;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	if (kprobe) {
		f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
		if (!f || fscanf(f, "%d", &type) != 1)
			type = -1;
		if (f)
			fclose(f);
		if (type < 0) {
			errno = ENOENT;
			return -1;
		}
		attr.type = type;
		attr.config1 = (uintptr_t)"__x64_sys_getppid";
	} else {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = 200000;	/* 200 us */
	}
	attr.disabled = 1;
	fd = perf_open(&attr, 0);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog)) {
		close(fd);
		return -1;
	}
	return fd;
}

struct tally {
	unsigned int stacks, frames, right, ip_fallback, whole, far_id, far_ip;
};

/* Is this frame one of deep()'s, with this program's build ID? */
static int deep_frame(const struct bpf_stack_build_id *f)
{
	int i;

	if (f->status != BPF_STACK_BUILD_ID_VALID ||
	    memcmp(f->build_id, self_id, self_id_size))
		return 0;
	for (i = self_id_size; i < 20; i++)
		if (f->build_id[i])
			return 0;	/* padding must be zero */
	for (i = 0; i < DEPTH; i++)
		if (f->offset == ret_off[i])
			return 1;
	return 0;
}

/* Count the frame at work()'s return address in libfarnote.so. */
static void far_frame(const struct bpf_stack_build_id *f, struct tally *t)
{
	if (f->status == BPF_STACK_BUILD_ID_IP && f->ip == far_ret)
		t->far_ip++;
	if (f->status == BPF_STACK_BUILD_ID_VALID && f->offset == far_off &&
	    !memcmp(f->build_id, far_id, far_id_size))
		t->far_id++;
}

/* Check every stack in the map, then empty it. */
static void check_map(int map_fd, struct tally *t)
{
	static struct bpf_stack_build_id frames[MAX_FRAMES];
	uint32_t key, next;
	union bpf_attr attr;
	int first = 1, i, n;

	memset(t, 0, sizeof(*t));
	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map_fd;
		attr.key = first ? 0 : (uintptr_t)&key;
		attr.next_key = (uintptr_t)&next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		first = 0;
		key = next;
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map_fd;
		attr.key = (uintptr_t)&key;
		attr.value = (uintptr_t)frames;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			continue;
		t->stacks++;
		for (i = 0, n = 0; i < MAX_FRAMES; i++) {
			if (frames[i].status == BPF_STACK_BUILD_ID_EMPTY)
				break;
			t->frames++;
			t->ip_fallback += frames[i].status == BPF_STACK_BUILD_ID_IP;
			n += deep_frame(&frames[i]);
			far_frame(&frames[i], t);
		}
		t->right += n;
		/* deep(1..DEPTH) return into deep(), deep(0) into main() */
		t->whole += n >= DEPTH;
	}
	/* empty it for the next program */
	while (1) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map_fd;
		attr.next_key = (uintptr_t)&next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		attr.key = (uintptr_t)&next;
		if (sys_bpf(BPF_MAP_DELETE_ELEM, &attr))
			break;
	}
}

/* the name of test @which (0: the kind alone, 1: its library note, 2: its frames) */
static const char *test_name(const char *kind, int which)
{
	static const char *const what[] = {
		"", ": library note beyond page 0", ": build IDs and offsets of deep()'s frames",
	};
	static char name[128];

	snprintf(name, sizeof(name), "%s%s", kind, what[which]);
	return name;
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "perf-event program", "kprobe program" };
	int map_fd, runs_fd, prog, ev, counter = -1, failed = 0, k, i;
	static char log[65536], path[256];
	const char *func;
	unsigned int far;
	int64_t off;
	uint64_t parses = 0, runs;
	char why[160] = "";
	struct tally t;

	first_page_only = argc > 1 && !strcmp(argv[1], "--first-page-only");
	func = argc > 1 + first_page_only ? argv[1 + first_page_only] : NULL;
	self_id_size = read_build_id("/proc/self/exe", self_id);
	if (self_id_size <= 0) {
		ktap_skip_all("this program has no build ID note");
		return 4;
	}
	/* deep()'s return addresses as file offsets, as the map gives them */
	deep(0, 0);
	for (i = 0; i < DEPTH; i++) {
		off = file_offset(ret_addr[i], path, sizeof(path));
		if (off < 0) {
			ktap_skip_all("no mapping for this program's text");
			return 4;
		}
		ret_off[i] = off;
	}
	off = file_offset(far_ret, path, sizeof(path));
	far_id_size = off < 0 ? -1 : read_build_id(path, far_id);
	if (far_id_size <= 0) {
		ktap_skip_all("no build ID note in the library at %s", path);
		return 4;
	}
	far_off = off;

	/* 5.10 charges BPF maps to RLIMIT_MEMLOCK */
	setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){ RLIM_INFINITY, RLIM_INFINITY });
	map_fd = new_map(BPF_MAP_TYPE_STACK_TRACE,
			 MAX_FRAMES * sizeof(struct bpf_stack_build_id), MAX_STACKS,
			 BPF_F_STACK_BUILD_ID);
	runs_fd = new_map(BPF_MAP_TYPE_ARRAY, sizeof(uint64_t), 1, 0);
	if (map_fd < 0 || runs_fd < 0) {
		ktap_skip_all("cannot create a build-ID stack map: %s", strerror(errno));
		return 4;
	}
	ktap_plan(func ? 5 : 4);
	for (k = 0; k < 2; k++) {
		prog = load_prog(k ? BPF_PROG_TYPE_KPROBE : BPF_PROG_TYPE_PERF_EVENT,
				 map_fd, runs_fd, log, sizeof(log));
		ev = prog < 0 ? -1 : attach(prog, k);
		if (ev < 0 && k && errno == ENOENT) {
			for (i = 0; i < 2; i++)
				ktap_result(KTAP_SKIP, test_name(kinds[k], i), "no kprobe PMU (CONFIG_KPROBE_EVENTS)");
		} else if (ev < 0) {
			int err = errno;

			for (i = 0; i < 2; i++)
				failed |= ktap_result(KTAP_FAIL, test_name(kinds[k], i),
						      "cannot load or attach it: %s", strerror(err));
			fprintf(stderr, "%s", log);
		}
		if (ev < 0) {
			if (prog >= 0)
				close(prog);
			continue;
		}
		if (!k && func) {
			counter = kprobe_counter(func, why, sizeof(why));
			parses = counter < 0 ? 0 : counter_read(counter);
		}
		ioctl(ev, PERF_EVENT_IOC_ENABLE, 0);
		deep(0, !k);
		ioctl(ev, PERF_EVENT_IOC_DISABLE, 0);
		if (counter >= 0)
			parses = counter_read(counter) - parses;
		runs = take_runs(runs_fd);
		check_map(map_fd, &t);
		fprintf(stderr, "# %s: %llu runs, %u stacks, %u frames, %u at deep()'s return addresses with this program's ID, %u IP fallbacks; libfarnote.so frame: %u with its ID, %u as an IP\n",
			kinds[k], (unsigned long long)runs, t.stacks, t.frames, t.right,
			t.ip_fallback, t.far_id, t.far_ip);
		/*
		 * Every stack runs through deep(): DEPTH frames with this
		 * program's build ID at deep()'s return addresses. The frame
		 * pointer walk may stop early in a library that uses the
		 * frame pointer register, so most stacks, not all, must.
		 */
		if (runs && t.whole && t.whole * 2 >= t.stacks)
			ktap_result(KTAP_PASS, test_name(kinds[k], 2), NULL);
		else
			failed |= ktap_result(KTAP_FAIL, test_name(kinds[k], 2),
					      "%llu runs, %u of %u stacks with %d frames",
					      (unsigned long long)runs, t.whole, t.stacks, DEPTH);
		/*
		 * The frame in libfarnote.so: its build ID, read beyond the
		 * first page; an IP only where the first page is all the
		 * stack map reads (5.10 without the series). With the series
		 * a lookup may still fail now and then (a page just evicted,
		 * seen once on the slow debug guest) and give an IP, as the
		 * stack map does on every kernel: its ID must then still be
		 * the more frequent.
		 */
		far = first_page_only ? t.far_ip : t.far_id;
		if (runs && far && (first_page_only ? far * 2 >= t.stacks :
				    far >= t.far_ip && far * 3 >= t.stacks))
			ktap_result(KTAP_PASS, test_name(kinds[k], 1), "%s in %u of %u stacks",
				    first_page_only ? "an IP" : "its build ID", far, t.stacks);
		else
			failed |= ktap_result(KTAP_FAIL, test_name(kinds[k], 1),
					      "expected %s: %u stacks, %u with its ID, %u with an IP",
					      first_page_only ? "an IP" : "its build ID",
					      t.stacks, t.far_id, t.far_ip);
		if (!k && func) {
			/*
			 * One lookup per run of consecutive frames in one
			 * mapping: this program, libc, the vDSO, this program
			 * again... a handful per walk, not one per frame.
			 */
			if (counter < 0)
				ktap_result(KTAP_SKIP, "parses per stack walk", "%s", why);
			else if (runs && parses <= 8 * runs && parses >= runs)
				ktap_result(KTAP_PASS, "parses per stack walk",
					    "%llu parses in %llu walks", (unsigned long long)parses,
					    (unsigned long long)runs);
			else
				failed |= ktap_result(KTAP_FAIL, "parses per stack walk",
						      "%llu parses in %llu walks of %d frames",
						      (unsigned long long)parses,
						      (unsigned long long)runs, DEPTH + 6);
			if (counter >= 0) {
				close(counter);
				kprobe_remove();
			}
		}
		close(ev);
		close(prog);
	}
	close(map_fd);
	close(runs_fd);
	ktap_totals();
	return failed;
}
