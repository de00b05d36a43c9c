/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP result lines for the checkers (Documentation/dev-tools/ktap.rst):
 * a header, a plan, "ok N name", "not ok N name # why",
 * "ok N name # SKIP why", "ok N name # XFAIL why" and the totals line of
 * kselftest ("# Totals: pass:P fail:F xfail:X xpass:0 skip:S error:0").
 * The numbers are counted here, never kept by hand. This is the form of
 * mainline kselftest.h's ksft_test_result_code(); 5.10's kselftest.h,
 * which the checkers would otherwise include, prints the name after SKIP
 * and XFAIL, where a parser takes it for the reason.
 */
#ifndef KTAP_H
#define KTAP_H

#include <stdarg.h>
#include <stdio.h>

enum ktap_result { KTAP_PASS, KTAP_FAIL, KTAP_XFAIL, KTAP_SKIP };

static struct { unsigned int n, count[4]; } ktap;

static inline void ktap_plan(unsigned int tests)
{
	printf("KTAP version 1\n1..%u\n", tests);
}

/* a plan of no tests: the program cannot test here, and says why */
static inline void __attribute__((format(printf, 1, 2))) ktap_skip_all(const char *why, ...)
{
	va_list ap;

	printf("KTAP version 1\n1..0 # SKIP ");
	va_start(ap, why);
	vprintf(why, ap);
	va_end(ap);
	putchar('\n');
}

/*
 * One result: @name, and for FAIL, SKIP and XFAIL the reason @why (a
 * format; NULL for none). Returns 1 for a failure, else 0.
 */
static inline int __attribute__((format(printf, 3, 4)))
ktap_result(enum ktap_result r, const char *name, const char *why, ...)
{
	static const char *const directive[] = { "", "", " XFAIL", " SKIP" };
	va_list ap;

	ktap.count[r]++;
	printf("%s %u %s", r == KTAP_FAIL ? "not ok" : "ok", ++ktap.n, name);
	if (why || r == KTAP_SKIP || r == KTAP_XFAIL) {
		printf(" #%s%s", directive[r], why ? " " : "");
		if (why) {
			va_start(ap, why);
			vprintf(why, ap);
			va_end(ap);
		}
	}
	putchar('\n');
	return r == KTAP_FAIL;
}

static inline void ktap_totals(void)
{
	printf("# Totals: pass:%u fail:%u xfail:%u xpass:0 skip:%u error:0\n",
	       ktap.count[KTAP_PASS], ktap.count[KTAP_FAIL],
	       ktap.count[KTAP_XFAIL], ktap.count[KTAP_SKIP]);
}

#endif
