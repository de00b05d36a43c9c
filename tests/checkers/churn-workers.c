// SPDX-License-Identifier: GPL-2.0
/* churn-stress: the writers, the mappers and the exec thread. */
#define _GNU_SOURCE
#include "churn-stress.h"

/* ---- writers ---- */

static void path_of(char *buf, size_t n, const struct pfile *p, const char *pre)
{
	snprintf(buf, n, "%s/%s%s", dir, pre, p->name);
}

static void set_cur(struct pfile *p, uint8_t *b, size_t len)
{
	free(p->cur);
	p->cur = b;
	p->len = len;
	count(S_REWRITES, 1);
}

/* write new content to a new inode, note it, rename it over the path */
int replace(struct pfile *p, uint64_t *rs)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	size_t len;
	uint8_t *b = gen_content(p, rs, &len);
	int fd, ok;

	path_of(tmp, sizeof(tmp), p, ".new-");
	path_of(path, sizeof(path), p, "");
	note_content(p, b, len);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  p->kind == K_EXE ? 0755 : 0644);
	if (fd >= 0)
		add_inode(p, fd);
	ok = fd >= 0 && pwrite(fd, b, len, 0) == (ssize_t)len;
	if (fd >= 0)
		close(fd);
	if (!ok || rename(tmp, path)) {
		report_error("creating %s: %s", tmp, strerror(errno));
		free(b);
		return -1;
	}
	p->exists = 1;
	set_cur(p, b, len);
	return 0;
}

/*
 * Change the path in place: new content @b of @len bytes (noted first),
 * written as one byte at @off, or by truncating to @len and, if @full,
 * writing it all. One byte is atomic for a reader; a truncated page is
 * never rewritten in place.
 */
static void in_place(struct pfile *p, uint8_t *b, size_t len, size_t off,
		     int full)
{
	char path[PATH_MAX];
	int fd, ok;

	note_content(p, b, len);
	path_of(path, sizeof(path), p, "");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {	/* ETXTBSY: running */
		free(b);
		return;
	}
	if (off != SIZE_MAX)
		ok = pwrite(fd, b + off, 1, off) == 1;
	else
		ok = !ftruncate(fd, full ? 0 : len) &&
		     (!full || pwrite(fd, b, len, 0) == (ssize_t)len);
	close(fd);
	if (!ok) {
		report_error("changing %s: %s", p->name, strerror(errno));
		free(b);
		return;
	}
	set_cur(p, b, len);
}

static uint8_t *dup_cur(const struct pfile *p, size_t len)
{
	uint8_t *b = xrealloc(NULL, len);

	memset(b, 0, len);
	memcpy(b, p->cur, len < p->len ? len : p->len);
	return b;
}

static void evict(struct pfile *p)
{
	char path[PATH_MAX];
	int fd;

	path_of(path, sizeof(path), p, "");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	fdatasync(fd);
	if (!posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		count(S_EVICTS, 1);
	close(fd);
}

static void writer_op(struct pfile *p, uint64_t *rs)
{
	unsigned int op = rnd(rs) % 100;
	char path[PATH_MAX];
	size_t len, k;
	uint8_t *b;

	if (!p->exists || op < 20) {
		replace(p, rs);
	} else if (op < 50 && p->flip_off + p->flip_len <= p->len &&
		   now() - p->last_flip > 0.02) {
		/* one byte of the ID (or of bytes no parser looks at) */
		k = p->flip_off + rnd(rs) % p->flip_len;
		b = dup_cur(p, p->len);
		b[k] ^= 1 + rnd(rs) % 255;
		p->last_flip = now();
		in_place(p, b, p->len, k, 0);
	} else if (op < 60 && p->kind != K_EXE) {
		/* same layout, new ID: truncate and write */
		b = gen_content(p, rs, &len);
		in_place(p, b, len, SIZE_MAX, 1);
	} else if (op < 68 && p->kind != K_EXE && p->len >= PAGE) {
		/* truncate to whole pages, so that no cached page changes */
		len = rnd(rs) % (p->len / PAGE) * PAGE;
		in_place(p, dup_cur(p, len), len, SIZE_MAX, 0);
	} else if (op < 76 && p->kind != K_EXE && p->len <= 6 * PAGE) {
		len = p->len + PAGE * (1 + rnd(rs) % 2);
		in_place(p, dup_cur(p, len), len, SIZE_MAX, 0);
	} else if (op < 84) {
		path_of(path, sizeof(path), p, "");
		if (!unlink(path))
			count(S_DELETES, 1);
		p->exists = 0;
	} else {
		evict(p);
	}
}

void *writer(void *arg)
{
	uint64_t rs;
	struct pfile *p;

	(void)arg;
	seed(&rs);
	while (!stop) {
		p = &files[rnd(&rs) % nfiles];
		if (pthread_mutex_trylock(&p->lock))
			continue;
		writer_op(p, &rs);
		pthread_mutex_unlock(&p->lock);
		sleep_us(rnd(&rs) % 2000);
	}
	return NULL;
}

/* ---- mappers and exec ---- */

void *mapper(void *arg)
{
	struct { void *addr; size_t len; } slot[8] = { { 0 } };
	char path[PATH_MAX], page[LAYOUT_PAGE];
	unsigned int s, prot, flags;
	size_t len;
	uint64_t rs;
	void *a;
	int fd;

	worker_tids[(long)arg] = syscall(SYS_gettid);
	seed(&rs);
	while (!stop) {
		struct pfile *p = &files[rnd(&rs) % nfiles];

		len = PAGE * (1 + rnd(&rs) % 3);
		prot = PROT_READ | (rnd(&rs) % 2 ? PROT_EXEC : 0);
		flags = rnd(&rs) % 4 ? MAP_PRIVATE : MAP_SHARED;
		if (rnd(&rs) % 10 == 0) {
			a = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		} else {
			path_of(path, sizeof(path), p, "");
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			if (rnd(&rs) % 3 == 0)	/* bring evicted pages back */
				(void)!pread(fd, page, sizeof(page), 0);
			a = mmap(NULL, len, prot, flags, fd,
				 rnd(&rs) % 4 ? 0 : PAGE);
			close(fd);
		}
		if (a == MAP_FAILED)
			continue;
		count(S_MMAPS, 1);
		if (len > PAGE && rnd(&rs) % 2 &&
		    !mprotect(a, PAGE, prot ^ PROT_EXEC))
			count(S_MPROTECTS, 1);
		s = rnd(&rs) % 8;
		if (slot[s].addr)
			munmap(slot[s].addr, slot[s].len);
		slot[s].addr = a;
		slot[s].len = len;
		if (rnd(&rs) % 16 == 0)
			sleep_us(1000);
	}
	for (s = 0; s < 8; s++)
		if (slot[s].addr)
			munmap(slot[s].addr, slot[s].len);
	return NULL;
}

void *execer(void *arg)
{
	char path[PATH_MAX], *argv[] = { path, "--exec-child", NULL };
	struct pfile *exe[8];
	unsigned int n = 0, i;
	int status, err;
	double deadline;
	uint64_t rs;
	pid_t pid;

	worker_tids[(long)arg] = syscall(SYS_gettid);
	seed(&rs);
	for (i = 0; i < nfiles; i++)
		if (files[i].kind == K_EXE && n < 8)
			exe[n++] = &files[i];
	while (!stop) {
		path_of(path, sizeof(path), exe[rnd(&rs) % n], "");
		err = posix_spawn(&pid, path, NULL, NULL, argv, environ);
		if (err) {
			count(S_EXEC_FAIL, 1);
			sleep_us(1000);
			continue;
		}
		exec_child = pid;
		status = -1;	/* a failure, should waitpid() fail */
		deadline = now() + 30;
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (now() > deadline) {
				report_error("exec child %d hangs: killed", pid);
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				break;
			}
			sleep_us(500);
		}
		exec_child = 0;
		count(WIFEXITED(status) && !WEXITSTATUS(status) ? S_EXECS :
		      S_EXEC_FAIL, 1);
	}
	return NULL;
}

