#!/bin/bash
# perf inject --jit reads a JIT's jitdump file, found by the MMAP2 record
# of the JIT mapping it, and writes an ELF file of each piece of code it
# names. perf once read whatever file was at that path by then: a dump
# written over it since gave its code names to these samples. It now reads
# only the inode the record names, and a dump gone, replaced or unreadable
# costs its JIT symbols, not the profile (inject used to fail). The ELF
# files inject writes keep their symbols under the series' inode rule.
# usage: replaced-jitdump.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/replaced-jitdump.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
mkdir "$t/jit"

perf record -q -k mono -e cpu-clock:u -o "$t/rec.data" -- "$w/jit-writer" jitted_v1 1 "$t/jit" >/dev/null 2>&1
rc=$?
dump=$(ls "$t"/jit/jit-*.dump 2>/dev/null)
if [ $rc -ne 0 ] || [ -z "$dump" ]; then
	why="perf record of the JIT failed here (rc $rc)"
	[ $rc -eq 77 ] && why="the JIT writes x86_64 code only"
	for c in "the jitted code's symbol" "dump replaced: none of its names" \
		 "dump replaced: inject keeps every sample" "dump replaced: perf inject says why" \
		 "dump deleted: inject keeps every sample"; do
		skip "$c" "$why"
	done
	echo "1..$n"
	exit 0
fi
nsamples() { perf script -F ip -i "$1" 2>/dev/null | wc -l; }
all=$(nsamples "$t/rec.data")
# inject OUT: perf inject --jit into OUT, then the symbols of its samples
inject() {
	perf inject --jit -i "$t/rec.data" -o "$1" 2>>"$t/inject.err" || return 1
	perf report --stdio --sort sym -i "$1" 2>/dev/null | grep -v '^#'
}
inject "$t/as-run.data" >"$t/as-run"
result "the jitted code's symbol" grep -q '\] jitted_v1$' "$t/as-run"

# the same dump, its code renamed, written over the path (a new inode)
LC_ALL=C sed 's/jitted_v1/decoy__v2/' "$dump" >"$t/new" && mv "$t/new" "$dump"
inject "$t/replaced.data" >"$t/replaced" || echo "perf inject failed" >>"$t/replaced"
result "dump replaced: none of its names" not_grep -e decoy__v2 -e 'inject failed' "$t/replaced"
result "dump replaced: inject keeps every sample" test "$(nsamples "$t/replaced.data")" -eq "$all"
result "dump replaced: perf inject says why" grep -q "not the jitdump file that was mapped" "$t/inject.err"
rm "$dump"
inject "$t/deleted.data" >/dev/null
result "dump deleted: inject keeps every sample" test "$(nsamples "$t/deleted.data")" -eq "$all"
echo "1..$n"
