// SPDX-License-Identifier: GPL-2.0
/* The tests' own ELF build-ID reader, on the file's bytes (elf-id.h). */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf-id.h"

#define ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA	ELFDATA2LSB
#else
#define HOST_DATA	ELFDATA2MSB
#endif

static int rd(const uint8_t *b, size_t len, uint64_t off, void *dst, size_t n)
{
	if (off > len || n > len - off)
		return -1;
	memcpy(dst, b + off, n);
	return 0;
}

/* the first "GNU" NT_GNU_BUILD_ID note of 1-20 bytes in [off, end) */
static int scan_notes(const uint8_t *b, size_t len, uint64_t off, uint64_t end,
		      uint64_t align, struct elfid *e)
{
	Elf64_Nhdr nh;
	uint64_t desc;
	char name[4];

	while (off < end && end - off >= sizeof(nh)) {
		if (rd(b, len, off, &nh, sizeof(nh)))
			return -1;
		desc = off + ALIGN_UP(sizeof(nh) + nh.n_namesz, align);
		if (desc > end || nh.n_descsz > end - desc)
			return -1;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    nh.n_descsz >= 1 && nh.n_descsz <= ELF_ID_MAX) {
			if (rd(b, len, off + sizeof(nh), name, 4))
				return -1;
			if (!memcmp(name, "GNU", 4)) {
				if (rd(b, len, desc, e->id, nh.n_descsz))
					return -1;
				e->found = 1;
				e->size = nh.n_descsz;
				e->note_off = off;
				e->desc_off = desc;
				return 0;
			}
		}
		off = desc + ALIGN_UP((uint64_t)nh.n_descsz, align);
	}
	return -1;
}

/*
 * The kernel's rules: ELFCLASS32 or 64 in this machine's byte order,
 * ET_EXEC or ET_DYN, the first "GNU" NT_GNU_BUILD_ID note of 1-20 bytes
 * in the PT_NOTE segments, in program header order; notes padded to 8
 * bytes in a segment of p_align 8, to 4 in the others.
 */
void elf_read_id(const uint8_t *b, size_t len, struct elfid *e)
{
	uint64_t phoff, end, off, filesz, align;
	unsigned int i, phnum, phentsize, type, is64;
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } eh;
	union { Elf64_Phdr p64; Elf32_Phdr p32; } ph;

	memset(e, 0, sizeof(*e));
	if (len < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) ||
	    b[EI_DATA] != HOST_DATA ||
	    (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64))
		return;
	is64 = b[EI_CLASS] == ELFCLASS64;
	if (rd(b, len, 0, &eh, is64 ? sizeof(eh.e64) : sizeof(eh.e32)))
		return;
	type = is64 ? eh.e64.e_type : eh.e32.e_type;
	phoff = is64 ? eh.e64.e_phoff : eh.e32.e_phoff;
	phnum = is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	phentsize = is64 ? eh.e64.e_phentsize : eh.e32.e_phentsize;
	if ((type != ET_EXEC && type != ET_DYN) ||
	    phentsize != (is64 ? sizeof(ph.p64) : sizeof(ph.p32)) ||
	    phnum == PN_XNUM || phoff > len ||
	    (uint64_t)phnum * phentsize > len - phoff)
		return;
	for (i = 0; i < phnum; i++) {
		if (rd(b, len, phoff + (uint64_t)i * phentsize, &ph, phentsize))
			return;
		if ((is64 ? ph.p64.p_type : ph.p32.p_type) != PT_NOTE)
			continue;
		off = is64 ? ph.p64.p_offset : ph.p32.p_offset;
		filesz = is64 ? ph.p64.p_filesz : ph.p32.p_filesz;
		align = (is64 ? ph.p64.p_align : ph.p32.p_align) == 8 ? 8 : 4;
		if (__builtin_add_overflow(off, filesz, &end) || off > len)
			continue;
		if (!scan_notes(b, len, off, end, align, e))
			return;
	}
}

int elf_file_id(const char *path, struct elfid *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	void *b;

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size) {
		close(fd);
		return -1;
	}
	b = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return -1;
	elf_read_id(b, sb.st_size, e);
	munmap(b, sb.st_size);
	return 0;
}
