// SPDX-License-Identifier: GPL-2.0
/* churn-stress: what each path has had, and the content the writers write. */
#define _GNU_SOURCE
#include "churn-stress.h"

/* ---- what each path has had ---- */

/* IDs in the order they were noted; a repeat of the last one is dropped */
static void add_id(struct pfile *p, const struct elfid *e)
{
	struct idrec *last;

	pthread_mutex_lock(&tab_lock);
	last = p->nids ? &p->ids[p->nids - 1] : NULL;
	if (!last || last->size != e->size || memcmp(last->id, e->id, e->size)) {
		p->ids = grow(p->ids, p->nids, &p->capids, sizeof(*p->ids));
		memset(&p->ids[p->nids], 0, sizeof(p->ids[0]));
		p->ids[p->nids].size = e->size;
		memcpy(p->ids[p->nids++].id, e->id, e->size);
	}
	pthread_mutex_unlock(&tab_lock);
}

/* note the ID the reader finds in new content, before it is written */
void note_content(struct pfile *p, const uint8_t *b, size_t len)
{
	struct elfid e;

	elf_read_id(b, len, &e);
	if (e.found)
		add_id(p, &e);
}

void add_inode(struct pfile *p, int fd)
{
	struct inorec r = { 0 };
	struct stat s;
	int gen;

	if (fstat(fd, &s)) {
		report_error("fstat %s: %s", p->name, strerror(errno));
		return;
	}
	r.maj = major(s.st_dev);
	r.min = minor(s.st_dev);
	r.ino = s.st_ino;
	if (!ioctl(fd, FS_IOC_GETVERSION, &gen)) {
		r.gen = gen;
		r.gen_known = 1;
	}
	pthread_mutex_lock(&tab_lock);
	p->inos = grow(p->inos, p->ninos, &p->capinos, sizeof(*p->inos));
	p->inos[p->ninos++] = r;
	pthread_mutex_unlock(&tab_lock);
}

/*
 * 1: an ID the path had; 2: torn, each byte from one of TORN_SPAN IDs it
 * had one after the other (a read across one-byte writes); 0: neither.
 */
int id_known(struct pfile *p, unsigned int size, const uint8_t *id)
{
	size_t i, j, pos;
	int ret = 0;

	pthread_mutex_lock(&tab_lock);
	for (i = 0; i < p->nids && !ret; i++)
		ret = p->ids[i].size == size && !memcmp(p->ids[i].id, id, size);
	for (i = 0; i < p->nids && !ret; i++) {
		for (pos = 0; pos < size; pos++) {
			for (j = i; j < i + TORN_SPAN && j < p->nids; j++)
				if (p->ids[j].size == size && p->ids[j].id[pos] == id[pos])
					break;
			if (j == i + TORN_SPAN || j == p->nids)
				break;
		}
		ret = pos == size ? 2 : 0;
	}
	pthread_mutex_unlock(&tab_lock);
	return ret;
}

int classic_known(struct pfile *p, const uint8_t *area)
{
	uint32_t maj, min;
	uint64_t ino, gen;
	int ok = 0;
	size_t i;

	memcpy(&maj, area, 4);
	memcpy(&min, area + 4, 4);
	memcpy(&ino, area + 8, 8);
	memcpy(&gen, area + 16, 8);
	pthread_mutex_lock(&tab_lock);
	for (i = 0; i < p->ninos && !ok; i++)
		ok = p->inos[i].maj == maj && p->inos[i].min == min &&
		     p->inos[i].ino == ino &&
		     (!p->inos[i].gen_known || p->inos[i].gen == gen);
	pthread_mutex_unlock(&tab_lock);
	return ok;
}

/* ---- content ---- */

static __thread int gen_be;	/* the file being made is big-endian */
static uint16_t E16(uint16_t v) { return gen_be ? __builtin_bswap16(v) : v; }
static uint32_t E32(uint32_t v) { return gen_be ? __builtin_bswap32(v) : v; }
static uint64_t E64(uint64_t v) { return gen_be ? __builtin_bswap64(v) : v; }

static size_t put_note(uint8_t *b, uint32_t type, uint32_t descsz, uint64_t *rs)
{
	Elf64_Nhdr nh = { E32(4), E32(descsz), E32(type) };
	uint32_t i;

	memcpy(b, &nh, sizeof(nh));
	memcpy(b + sizeof(nh), "GNU", 4);
	for (i = 0; i < descsz; i++)
		b[16 + i] = rnd(rs);
	return 16 + ALIGN_UP(descsz, 4);
}

static void put_phdr(uint8_t *b, int is64, int i, uint32_t type, uint64_t off,
		     uint64_t size, uint64_t align)
{
	if (is64) {
		Elf64_Phdr ph = {
			.p_type = E32(type), .p_flags = E32(PF_R),
			.p_offset = E64(off), .p_vaddr = E64(off),
			.p_filesz = E64(size), .p_memsz = E64(size),
			.p_align = E64(align),
		};
		memcpy(b + sizeof(Elf64_Ehdr) + i * sizeof(ph), &ph, sizeof(ph));
	} else {
		Elf32_Phdr ph = {
			.p_type = E32(type), .p_flags = E32(PF_R),
			.p_offset = E32(off), .p_vaddr = E32(off),
			.p_filesz = E32(size), .p_memsz = E32(size),
			.p_align = E32(align),
		};
		memcpy(b + sizeof(Elf32_Ehdr) + i * sizeof(ph), &ph, sizeof(ph));
	}
}

/* a crafted file of the path's kind with a new random ID */
static void gen_crafted(struct pfile *p, uint64_t *rs, uint8_t *b)
{
	int is64 = p->kind != K_ELF32, nph = 1;
	size_t note = p->kind == K_PAGE2 ? 2 * LAYOUT_PAGE : 0x200, n1 = 0, n2 = 0, i;
	uint16_t type = p->kind == K_REL ? ET_REL : is64 ? ET_DYN : ET_EXEC;

	memset(b, 0, FLEN);
	gen_be = p->kind == K_BE;
	p->flip_off = note + 16;
	p->flip_len = p->param;
	switch (p->kind) {
	case K_SKIP:		/* a 21-byte ID is skipped, the next one found */
		n1 = put_note(b + note, NT_GNU_BUILD_ID, 21, rs);
		p->flip_off = note + n1 + 16;
		n1 += put_note(b + note + n1, NT_GNU_BUILD_ID, p->param, rs);
		break;
	case K_TWO:		/* the ID in the second PT_NOTE */
		n1 = put_note(b + note, NT_GNU_ABI_TAG, 16, rs);
		n2 = put_note(b + 0x300, NT_GNU_BUILD_ID, p->param, rs);
		p->flip_off = 0x300 + 16;
		break;
	case K_NONOTE:
		break;
	case K_DATA:
		for (i = 0; i < FLEN; i++)
			b[i] = rnd(rs);
		memcpy(b, "DATA", 4);
		p->flip_off = 4;
		p->flip_len = FLEN - 4;
		return;
	default:
		n1 = put_note(b + note, NT_GNU_BUILD_ID, p->param, rs);
	}
	if (!p->flip_len) {	/* no descriptor: bytes nobody parses */
		p->flip_off = 0x400;
		p->flip_len = 64;
	}
	put_phdr(b, is64, 0, PT_LOAD, 0, FLEN, LAYOUT_PAGE);
	if (n1)
		put_phdr(b, is64, nph++, PT_NOTE, note, n1, 4);
	if (n2)
		put_phdr(b, is64, nph++, PT_NOTE, 0x300, n2, 4);
	if (is64) {
		Elf64_Ehdr eh = {
			.e_type = E16(type), .e_machine = E16(EM_X86_64),
			.e_version = E32(EV_CURRENT),
			.e_phoff = E64(sizeof(Elf64_Ehdr)),
			.e_ehsize = E16(sizeof(Elf64_Ehdr)),
			.e_phentsize = E16(sizeof(Elf64_Phdr)),
			.e_phnum = E16(nph),
		};
		memcpy(b, &eh, sizeof(eh));
	} else {
		Elf32_Ehdr eh = {
			.e_type = E16(type), .e_machine = E16(EM_386),
			.e_version = E32(EV_CURRENT),
			.e_phoff = E32(sizeof(Elf32_Ehdr)),
			.e_ehsize = E16(sizeof(Elf32_Ehdr)),
			.e_phentsize = E16(sizeof(Elf32_Phdr)),
			.e_phnum = E16(nph),
		};
		memcpy(b, &eh, sizeof(eh));
	}
	memcpy(b, ELFMAG, SELFMAG);
	b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	b[EI_DATA] = gen_be ? ELFDATA2MSB : ELFDATA2LSB;
	b[EI_VERSION] = EV_CURRENT;
}

/*
 * New content for the path: for K_EXE, this program with an ID of a new
 * random size 1-20 (the 20-byte descriptor shrunk in place, zero-padded).
 */
uint8_t *gen_content(struct pfile *p, uint64_t *rs, size_t *len)
{
	uint32_t size = 1 + rnd(rs) % ID_MAX, i;
	uint8_t *b;

	if (p->kind != K_EXE) {
		b = xrealloc(NULL, FLEN);
		gen_crafted(p, rs, b);
		*len = FLEN;
		return b;
	}
	b = xrealloc(NULL, tmpl_len);
	memcpy(b, tmpl, tmpl_len);
	memcpy(b + tmpl_note + 4, &size, 4);
	for (i = 0; i < ID_MAX; i++)
		b[tmpl_note + 16 + i] = i < size ? rnd(rs) : 0;
	p->flip_off = tmpl_note + 16;
	p->flip_len = size;
	*len = tmpl_len;
	return b;
}

