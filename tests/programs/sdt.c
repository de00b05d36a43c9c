// SPDX-License-Identifier: GPL-2.0
/*
 * A program with one SDT probe (provider oracle, name tick), its note
 * written here as <sys/sdt.h> would, without needing that header. BUILD 2
 * puts other code before the probe, so that its address differs. A test
 * records BUILD 1, renames BUILD 2 over it, and the build-ID cache's
 * probes of BUILD 1's ID must keep BUILD 1's address.
 * usage: sdt-vN [any argument: spin long]
 */
volatile unsigned long sink;

#define SDT_PROBE(provider, name)					\
	__asm__ volatile("990: nop\n"					\
		".pushsection .note.stapsdt,\"?\",\"note\"\n"		\
		".balign 4\n"						\
		".4byte 992f-991f, 994f-993f, 3\n"			\
		"991: .asciz \"stapsdt\"\n"				\
		"992: .balign 4\n"					\
		"993: .8byte 990b\n"					\
		".8byte _.stapsdt.base\n"				\
		".8byte 0\n"						\
		".asciz \"" #provider "\"\n"				\
		".asciz \"" #name "\"\n"				\
		".asciz \"\"\n"						\
		"994: .balign 4\n"					\
		".popsection\n"						\
		".ifndef _.stapsdt.base\n"				\
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		".weak _.stapsdt.base\n"				\
		".hidden _.stapsdt.base\n"				\
		"_.stapsdt.base: .space 1\n"				\
		".size _.stapsdt.base, 1\n"				\
		".popsection\n"						\
		".endif\n")

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? 100000000UL : 10;
	unsigned long i;

	(void)argv;
#if BUILD == 2
	for (i = 0; i < 1000; i++)
		sink += i * 3;
#endif
	for (i = 0; i < n; i++) {
		sink += i;
		SDT_PROBE(oracle, tick);
	}
	return 0;
}
