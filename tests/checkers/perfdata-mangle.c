// SPDX-License-Identifier: GPL-2.0
/*
 * Break the MMAP2 records with a build ID in a perf.data file, for tests
 * of how perf copes with malformed input. The file layout is written out
 * in perfdata.h (perf.data of this machine's byte order), not taken from
 * perf. perfdata-fuzz makes many more kinds of broken files.
 *
 * usage: perfdata-mangle IN OUT MODE
 *   size0, size21, size255  set build_id_size to 0, 21 or 255
 *   nonul                   fill the file name to the record's end, no NUL
 * Prints how many records it changed.
 */
#include "perfdata.h"

int main(int argc, char **argv)
{
	size_t pos, size, end;
	struct pd_file f;
	long changed = 0;

	if (argc != 4 || (strcmp(argv[3], "nonul") && strcmp(argv[3], "size0") &&
			  strcmp(argv[3], "size21") && strcmp(argv[3], "size255"))) {
		fprintf(stderr, "usage: %s IN OUT size0|size21|size255|nonul\n", argv[0]);
		return 1;
	}
	if (pd_load(&f, argv[1], 0))
		return 1;
	if (f.swapped) {
		fprintf(stderr, "%s: not a perf.data file of this byte order\n", argv[1]);
		return 1;
	}
	pd_for_each_record(&f, pos, size, end) {
		unsigned char *r = f.buf + pos;

		if (pd_get32(&f, pos) == PD_MMAP2 &&
		    (pd_get16(&f, pos + 4) & PD_MISC_MMAP_BUILD_ID) &&
		    size > PD_M2_FILENAME) {
			if (!strcmp(argv[3], "nonul"))
				memset(r + PD_M2_FILENAME, 'x', size - PD_M2_FILENAME);
			else
				r[PD_M2_BUILD_ID_SIZE] = atoi(argv[3] + 4);
			changed++;
		}
	}
	if (pd_save(&f, argv[2]))
		return 1;
	printf("%ld\n", changed);
	return 0;
}
