// SPDX-License-Identifier: GPL-2.0
/*
 * Write an ELF file that makes the kernel's build ID lookup do the most
 * work it is allowed to: 16 PT_NOTE segments, each on a page of its own
 * and full of notes that are not the build ID, then the GNU build ID note
 * on a 17th page, past the lookup's bound (16 page lookups, 16 KiB). The
 * benchmark maps it to measure mmap() at the parser's worst case.
 * usage: hostile-elf OUTPUT
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096
#define JUNK_SEGMENTS 16
#define SEGMENT_BYTES 1024

struct note_hdr {
	Elf64_Word namesz, descsz, type;
};

int main(int argc, char **argv)
{
	size_t size = (JUNK_SEGMENTS + 2) * PAGE, off;
	unsigned char *img = calloc(1, size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));
	struct note_hdr n;
	FILE *out;
	int i;

	if (argc != 2 || !img) {
		fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
		return 2;
	}
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = JUNK_SEGMENTS + 1;

	/* junk: notes named "XX" of type 1, 16 bytes each */
	for (i = 0; i < JUNK_SEGMENTS; i++) {
		ph[i].p_type = PT_NOTE;
		ph[i].p_offset = (i + 1) * PAGE;
		ph[i].p_filesz = SEGMENT_BYTES;
		ph[i].p_align = 4;
		n = (struct note_hdr){ .namesz = 3, .descsz = 0, .type = 1 };
		for (off = 0; off < SEGMENT_BYTES; off += sizeof(n) + 4) {
			memcpy(img + ph[i].p_offset + off, &n, sizeof(n));
			memcpy(img + ph[i].p_offset + off + sizeof(n), "XX", 3);
		}
	}
	/* the real build ID, out of the lookup's reach */
	ph[i].p_type = PT_NOTE;
	ph[i].p_offset = (i + 1) * PAGE;
	ph[i].p_filesz = sizeof(n) + 4 + 20;
	ph[i].p_align = 4;
	n = (struct note_hdr){ .namesz = 4, .descsz = 20, .type = NT_GNU_BUILD_ID };
	memcpy(img + ph[i].p_offset, &n, sizeof(n));
	memcpy(img + ph[i].p_offset + sizeof(n), "GNU", 4);
	memset(img + ph[i].p_offset + sizeof(n) + 4, 0xb1, 20);

	out = fopen(argv[1], "w");
	if (!out || fwrite(img, size, 1, out) != 1 || fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
