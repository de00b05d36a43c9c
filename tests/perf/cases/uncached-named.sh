#!/bin/bash
# A mapping the kernel could not name by build ID (the ELF notes of the
# file not in the page cache at mmap time: map-uncached evicts them) in
# perf record --buildid-mmap: perf record reads the ID from the mapped
# inode itself, keeps the binary in the build-ID cache and fills the ID
# into that MMAP2 record, as the kernel writes it, so that the file
# replaced after recording costs no symbol. Per record: two builds run
# at one path, each so mapped, each get their own ID. Into a pipe (which
# perf cannot write into again) it writes the record anew, with the ID. A user who may
# not open /proc/PID/map_files gets the ID from the file at the path, it
# being the inode the record names. IDs and symbols
# expected are read by the test from its own copies (readelf).
# usage: uncached-named.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
src=$(cd "$(dirname "$0")/../../programs" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/uncached-named.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
chmod 755 "$t"
export HOME=$t/home
unset DEBUGINFOD_URLS
mkdir -p "$HOME" "$t/app"
lib=$t/app/libburn.so

id_of() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
# cached ID [HOME]: the ID's binary is in the build-ID cache of HOME
cached() {
	local elf=${2:-$HOME}/.debug/.build-id/${1:0:2}/${1:2}/elf
	[ -f "$elf" ] && [ "$(id_of "$elf")" = "$1" ]
}
# offset FILE SYMBOL: its file offset (a shared library: its address)
offset() { echo $((16#$(readelf -sW "$1" | awk -v s="$2" '$8 == s { print $2; exit }'))); }
# lib_ids DATA: the build ID of each MMAP2 record of the library, "-"
# for a classic one, as perf script prints them
lib_ids() {
	perf script --show-mmap-events -i "$1" 2>/dev/null |
		awk -v lib="$lib" '/PERF_RECORD_MMAP2/ && $NF == lib {
			id = "-"
			if (match($0, /<[0-9a-f]+>/)) id = substr($0, RSTART + 1, RLENGTH - 2)
			print id
		}'
}

gcc -O0 -fPIC -shared -Dburn_lib=burn_lib_v2 -Wl,--build-id=sha1 -o "$t/v2.so" "$src/libburn.c" || exit 1
id1=$(id_of "$w/libburn.so") id2=$(id_of "$t/v2.so")
off1=$(offset "$w/libburn.so" burn_lib) off2=$(offset "$t/v2.so" burn_lib_v2)
cp "$w/libburn.so" "$lib"

# -N first: the kernel's own records, to know the pages were evicted
perf record -q -N --buildid-mmap -e cpu-clock:u -o "$t/n.data" -- \
	"$w/map-uncached" "$lib" "$off1" 300 >/dev/null 2>"$t/n.err"
rc=$?
if [ $rc -ne 0 ]; then
	skip "uncached" "map-uncached or perf record failed here: $(head -1 "$t/n.err")"
	echo "1..$n"
	exit 0
fi
if [ "$(lib_ids "$t/n.data")" != "-" ]; then
	skip "uncached" "the kernel read the build ID at mmap time here"
	echo "1..$n"
	exit 0
fi
result "-N: the kernel's classic record stays classic" [ "$(lib_ids "$t/n.data")" = - ]

perf record -q --buildid-mmap -e cpu-clock:u -o "$t/one.data" -- \
	"$w/map-uncached" "$lib" "$off1" 300 >/dev/null 2>&1
result "the library's record carries readelf's build ID" [ "$(lib_ids "$t/one.data")" = "$id1" ]
result "perf buildid-list names it" grep -qx "$id1 $lib" <(perf buildid-list -i "$t/one.data")
result "the binary kept in the cache" cached "$id1"
cp "$t/v2.so" "$lib.new" && mv "$lib.new" "$lib"
perf report --stdio -q --sort sym -i "$t/one.data" 2>/dev/null | awk '{ print $NF }' >"$t/one.syms"
result "replaced after recording: the samples get burn_lib" grep -qx burn_lib "$t/one.syms"
result "replaced after recording: none of the other build's" not_grep -x burn_lib_v2 "$t/one.syms"

# two builds at one path, each mapped uncached, in one recording (the
# second a moment after its rename: perf record trusts no file whose
# ctime is within a clock tick of its reading the record)
rm -rf "$HOME/.debug"
cp "$w/libburn.so" "$lib"
perf record -q --buildid-mmap -e cpu-clock:u -o "$t/two.data" -- /bin/sh -c "
	'$w/map-uncached' '$lib' $off1 300 && cp '$t/v2.so' '$lib.new' &&
	mv '$lib.new' '$lib' && sleep 0.1 && '$w/map-uncached' '$lib' $off2 300" >/dev/null 2>&1
result "two builds at one path: each record its own build's ID" \
	[ "$(lib_ids "$t/two.data" | tr '\n' ' ')" = "$id1 $id2 " ]
rm "$lib"
perf report --stdio -q --sort sym -i "$t/two.data" 2>/dev/null | awk '{ print $NF }' >"$t/two.syms"
result "two builds, then deleted: burn_lib for the first" grep -qx burn_lib "$t/two.syms"
result "two builds, then deleted: burn_lib_v2 for the second" grep -qx burn_lib_v2 "$t/two.syms"

# a pipe: nothing to write into again; the record comes anew with the ID
rm -rf "$HOME/.debug"
cp "$w/libburn.so" "$lib"
perf record -q --buildid-mmap -e cpu-clock:u -o - -- \
	"$w/map-uncached" "$lib" "$off1" 300 2>/dev/null >"$t/pipe.data"
lib_ids - <"$t/pipe.data" >"$t/pipe.ids"
result "a pipe: the classic record, then the same with readelf's build ID" \
	[ "$(tr '\n' ' ' <"$t/pipe.ids")" = "- $id1 " ]
cp "$t/v2.so" "$lib.new" && mv "$lib.new" "$lib"
perf report --stdio -q --sort sym -i - <"$t/pipe.data" 2>/dev/null |
	awk '{ print $NF }' >"$t/pipe.syms"
result "a pipe, replaced after recording: the samples get burn_lib" grep -qx burn_lib "$t/pipe.syms"
result "a pipe, replaced after recording: none of the other build's" not_grep -x burn_lib_v2 "$t/pipe.syms"

# a user without CAP_SYS_ADMIN: /proc/PID/map_files is closed to it
u=$t/user
lib=$u/app/libburn.so
mkdir -p "$u/home" "$u/app"
cp "$w/libburn.so" "$lib"
# (this perf and the workload, wherever the build lies: nobody may not
# reach it, and would run another perf from PATH)
cp "$(command -v perf)" "$u/perf"
cp "$w/map-uncached" "$u/map-uncached"
chown -R nobody "$u"
asuser() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	env HOME="$u/home" "$@"; }
if ! command -v setpriv >/dev/null || [ "$(id -u)" != 0 ]; then
	skip "a user without capabilities" "needs root and setpriv to become one"
elif ! asuser test -x "$u/map-uncached" || ! asuser test -x "$u/perf"; then
	skip "a user without capabilities" "nobody cannot reach $u (a parent directory closed to others)"
elif ! asuser "$u/perf" record --buildid-mmap -e cpu-clock:u -o "$u/u.data" -- \
	"$u/map-uncached" "$lib" "$off1" 300 >/dev/null 2>"$u/u.err"; then
	skip "a user without capabilities" "it may not record here: $(head -1 "$u/u.err")"
else
	# (perf reads a file of another user only with -f)
	chown root "$u/u.data"
	result "a user without capabilities: the record carries readelf's build ID" \
		[ "$(lib_ids "$u/u.data")" = "$id1" ]
	result "and the binary kept in its cache" cached "$id1" "$u/home"
	result "and nothing said not kept" not_grep "could not be kept" "$u/u.err"
fi
echo "1..$n"
