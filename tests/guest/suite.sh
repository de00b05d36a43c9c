#!/bin/sh
# The guest half of the debug and RT tiers: several tests in one boot
# (a boot of a KASAN kernel under TCG costs minutes).
# usage: suite.sh NAME 'COMMAND' [NAME 'COMMAND']...
# Each COMMAND runs in /scratch through sh -c, its output framed by
# "@@begin NAME" and "@@end NAME EXIT-STATUS". With kmemleak in the
# kernel, its report is cleared first and, after the last test, two scans
# (a young object is not reported until a later scan) end in
# "@@kmemleak COUNT" with the report itself on stderr.
leaks=/sys/kernel/debug/kmemleak
[ -w "$leaks" ] && echo clear >"$leaks"
while [ $# -ge 2 ]; do
	cd /scratch || exit 1
	echo "@@begin $1"
	sh -c "$2" 2>&1
	echo "@@end $1 $?"
	shift 2
done
if [ -w "$leaks" ]; then
	sleep 6
	echo scan >"$leaks"
	sleep 6
	echo scan >"$leaks"
	echo "@@kmemleak $(grep -c '^unreferenced object' "$leaks")"
	cat "$leaks" >&2
fi
