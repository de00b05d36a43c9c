#!/bin/bash
# A mapping the kernel could not name by build ID (the ELF notes of the
# file not in the page cache at mmap time: map-uncached evicts them) in
# perf record --buildid-mmap: perf record reads the ID from the mapped
# file itself, keeps the binary in the build-ID cache and names the path
# by that ID in the perf.data's build-ID table, so that the file replaced
# after recording costs no symbol. A path that ran as two builds, each so
# mapped, is named by neither: no reader may give one build's samples the
# other's symbols. IDs and symbols expected are read by the test from its
# own copies (readelf).
# usage: uncached-named.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
src=$(cd "$(dirname "$0")/../../programs" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/uncached-named.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
export HOME=$t/home
unset DEBUGINFOD_URLS
mkdir -p "$HOME" "$t/app"
lib=$t/app/libburn.so

id_of() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
cached() {
	local elf=$HOME/.debug/.build-id/${1:0:2}/${1:2}/elf
	[ -f "$elf" ] && [ "$(id_of "$elf")" = "$1" ]
}
# offset FILE SYMBOL: its file offset (a shared library: its address)
offset() { echo $((16#$(readelf -sW "$1" | awk -v s="$2" '$8 == s { print $2; exit }'))); }
# the MMAP2 records of the library, as perf script prints them
lib_mmaps() { perf script --show-mmap-events -i "$1" 2>/dev/null | grep "PERF_RECORD_MMAP2.* $lib\$"; }
syms() { perf report --stdio -q --sort sym -i "$1" 2>/dev/null | awk '{ print $NF }'; }

gcc -O0 -fPIC -shared -Dburn_lib=burn_lib_v2 -Wl,--build-id=sha1 -o "$t/v2.so" "$src/libburn.c" || exit 1
id1=$(id_of "$w/libburn.so") id2=$(id_of "$t/v2.so")
off1=$(offset "$w/libburn.so" burn_lib) off2=$(offset "$t/v2.so" burn_lib_v2)
cp "$w/libburn.so" "$lib"

perf record -q --buildid-mmap -e cpu-clock:u -o "$t/one.data" -- \
	"$w/map-uncached" "$lib" "$off1" 300 >/dev/null 2>"$t/one.err"
rc=$?
if [ $rc -eq 2 ] || [ $rc -ne 0 ] && grep -q "map-uncached:" "$t/one.err"; then
	skip "uncached" "the library's pages cannot be evicted here: $(grep -m1 map-uncached: "$t/one.err")"
	echo "1..$n"
	exit 0
fi
result "perf record --buildid-mmap of map-uncached ends well" [ $rc -eq 0 ]
if lib_mmaps "$t/one.data" | grep -q build_id; then
	skip "uncached: named by perf" "the kernel read the build ID at mmap time here"
else
	result "uncached: the build-ID table names the path by readelf's ID" \
		grep -qx "$id1 $lib" <(perf buildid-list -i "$t/one.data")
	result "uncached: the binary kept in the cache" cached "$id1"
	mv "$t/v2.so" "$lib.new"
	mv "$lib.new" "$lib"
	syms "$t/one.data" >"$t/one.syms"
	result "replaced after recording: the samples get burn_lib" grep -qx burn_lib "$t/one.syms"
	result "replaced after recording: none of the other build's" not_grep burn_lib_v2 "$t/one.syms"
	cp "$lib" "$t/v2.so"
fi

# two builds at one path, each mapped uncached, in one recording
rm -rf "$HOME/.debug"
cp "$w/libburn.so" "$lib"
perf record -q --buildid-mmap -e cpu-clock:u -o "$t/two.data" -- /bin/sh -c "
	'$w/map-uncached' '$lib' $off1 300 && cp '$t/v2.so' '$lib.new' &&
	mv '$lib.new' '$lib' && '$w/map-uncached' '$lib' $off2 300" >/dev/null 2>&1
if [ "$(lib_mmaps "$t/two.data" | grep -vc build_id)" != 2 ]; then
	skip "two builds" "not both mappings were uncached"
else
	perf buildid-list -i "$t/two.data" >"$t/two.ids"
	result "two builds at one path: named by neither" not_grep " $lib\$" "$t/two.ids"
	result "two builds: the first one kept" cached "$id1"
	result "two builds: the second one kept" cached "$id2"
	# the first build back at the path (another inode): a reader that
	# trusted the path would give it to the second build's samples
	pid2=$(lib_mmaps "$t/two.data" | awk 'NR == 2 { print $2 }')
	cp "$w/libburn.so" "$lib.new"
	mv "$lib.new" "$lib"
	perf report --stdio -q --sort pid,sym -i "$t/two.data" 2>/dev/null |
		awk -v p="$pid2" 'index($2, p ":") == 1 { print $NF }' >"$t/two.syms"
	result "two builds: the second one's samples found" [ -s "$t/two.syms" ]
	result "two builds, the first back at the path: never burn_lib for the second's samples" \
		not_grep -x burn_lib "$t/two.syms"
fi
echo "1..$n"
