/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' own reader of ELF build IDs, written from the ELF format
 * rather than taken from the kernel or perf, so that the tests check
 * those against an independent answer (elf-id.c).
 */
#ifndef ELF_ID_H
#define ELF_ID_H

#include <stddef.h>
#include <stdint.h>

#define ELF_ID_MAX	20

struct elfid {
	int found;
	unsigned int size;
	uint8_t id[ELF_ID_MAX];
	size_t note_off, desc_off;	/* of the note and its descriptor in the file */
};

/* The build ID of the ELF file image b[0..len) */
void elf_read_id(const uint8_t *b, size_t len, struct elfid *e);
/* The build ID of the file at path: 0, or -1 when it cannot be read */
int elf_file_id(const char *path, struct elfid *e);

#endif
