// SPDX-License-Identifier: GPL-2.0
/*
 * A library whose build ID note is not on its first page: an 8 KiB note
 * of another owner comes first, in the same PT_NOTE segment. Linked
 * with --build-id=none, so this is its only build ID note. The 5.10
 * stack map read the first page only and stored an IP for its frames.
 */
asm(".pushsection .note.farnote.pad, \"a\", @note\n"
    "	.balign 4\n"
    "	.long 5, 8192, 1\n"		/* namesz, descsz, type */
    "	.asciz \"FILL\"\n"
    "	.balign 4\n"
    "	.fill 8192, 1, 0\n"
    ".popsection\n"
    ".pushsection .note.farnote.id, \"a\", @note\n"
    "	.balign 4\n"
    "	.long 4, 20, 3\n"		/* NT_GNU_BUILD_ID */
    "	.asciz \"GNU\"\n"
    "	.byte 0xfa, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01\n"
    "	.byte 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfa, 0x2f, 0xa2\n"
    ".popsection\n");

/* Call @fn from this library, so that a stack walk passes through it. */
int far_call(int (*fn)(int), int arg)
{
	return fn(arg) + 1;
}
