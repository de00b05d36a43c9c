// SPDX-License-Identifier: GPL-2.0
/*
 * Break the MMAP2 records with a build ID in a perf.data file, for tests
 * of how perf copes with malformed input. The file layout is written out
 * here (perf.data of this machine's byte order), not taken from perf.
 *
 * usage: perfdata-mangle IN OUT MODE
 *   size0, size21, size255  set build_id_size to 0, 21 or 255
 *   nonul                   fill the file name to the record's end, no NUL
 * Prints how many records it changed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_SECTION		40	/* offset, size: u64 each */
#define RECORD_MMAP2		10
#define MISC_MMAP_BUILD_ID	0x4000
#define BUILD_ID_SIZE_AT	40	/* in the record */
#define FILENAME_AT		72

struct header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

int main(int argc, char **argv)
{
	uint64_t data[2], pos, end;
	unsigned char *buf;
	long len, changed = 0;
	FILE *f;

	if (argc != 4 || (strcmp(argv[3], "nonul") && strcmp(argv[3], "size0") &&
			  strcmp(argv[3], "size21") && strcmp(argv[3], "size255"))) {
		fprintf(stderr, "usage: %s IN OUT size0|size21|size255|nonul\n", argv[0]);
		return 1;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 104 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "%s: not a perf.data file\n", argv[1]);
		return 1;
	}
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read it\n", argv[1]);
		return 1;
	}
	fclose(f);
	memcpy(data, buf + DATA_SECTION, sizeof(data));
	end = data[0] + data[1];
	if (memcmp(buf, "PERFILE2", 8) || end > (uint64_t)len) {
		fprintf(stderr, "%s: not a perf.data file of this byte order\n", argv[1]);
		return 1;
	}
	for (pos = data[0]; pos + sizeof(struct header) <= end;) {
		struct header h;
		unsigned char *r = buf + pos;

		memcpy(&h, r, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > end)
			break;
		if (h.type == RECORD_MMAP2 && (h.misc & MISC_MMAP_BUILD_ID) &&
		    h.size > FILENAME_AT) {
			if (!strcmp(argv[3], "nonul"))
				memset(r + FILENAME_AT, 'x', h.size - FILENAME_AT);
			else
				r[BUILD_ID_SIZE_AT] = atoi(argv[3] + 4);
			changed++;
		}
		pos += h.size;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf, 1, len, f) != (size_t)len || fclose(f)) {
		fprintf(stderr, "%s: cannot write it\n", argv[2]);
		return 1;
	}
	printf("%ld\n", changed);
	return 0;
}
