#!/bin/bash
# The build-ID cache must only hold, under an ID, files with that ID. A
# program recorded with perf record --buildid-mmap (spin-sha1) is replaced
# at its path by the same code with another build ID (spin-md5); then:
#  - perf inject -b must not file the replacement under the recorded ID;
#  - perf buildid-cache -a of the original file fills the entry rightly;
#  - an entry planted by hand with the wrong file, in the layout perf uses
#    (~/.debug/PATH/ID/elf and the link .build-id/xx/yyy... to it), is not
#    used by perf annotate (objdump runs on a file with the recorded ID),
#    is not shipped by perf archive, and perf buildid-cache -a perf.data
#    replaces it once the right file is back.
# And by perf's rule that a 20-byte build ID with trailing zeros is the
# shorter ID (older perf versions wrote build-ID records without
# PERF_RECORD_MISC_BUILD_ID_SIZE, zero-padded to 20 bytes):
#  - a recording of spin-md5 (16-byte ID) with such a build-ID table entry,
#    its cache entry filed under the padded ID, the binary gone: perf
#    report takes its symbols from the cache, perf buildid-cache --missing
#    does not list it, perf buildid-cache -a perf.data fills the entry;
#  - a dangling .build-id link (its entry purged) is replaced by perf
#    buildid-cache -a;
#  - perf report of an ordinary recording opens files in the cache at most
#    twice for each of the recording's cache entries (symbol loading: the
#    binary, and its debug file if any), not again for each use.
# The IDs expected are read with readelf -n.
# usage: cache-poison.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/cache-poison.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t/home  # the build-ID cache, ~/.debug, starts empty
mkdir -p "$HOME"
unset DEBUGINFOD_URLS PERF_BUILDID_DIR
n=0
# put FILE: FILE at the program's path, replacing what is there
put() { cp "$1" "$t/spin.new" && mv "$t/spin.new" "$t/spin"; }
# entry_files ID: the files of the cache entry of ID (binary, debug file)
entry_files() {
	local link=$HOME/.debug/.build-id/${1:0:2}/${1:2} f
	[ -e "$link" ] || return 0
	if [ -f "$link" ]; then
		echo "$link"
		return 0
	fi
	for f in "$link"/elf "$link"/debug; do
		[ -e "$f" ] && echo "$f"
	done
	return 0
}
# no_other_id ID: the cache entry of ID, if any, has no file of another ID
no_other_id() {
	local f ok=0
	while read -r f; do
		[ -n "$f" ] || continue
		if [ "$(elf_id "$f")" != "$1" ]; then
			echo "# $f has the build ID $(elf_id "$f"), not $1" >&2
			ok=1
		fi
	done < <(entry_files "$1")
	return $ok
}
# has_id ID: the cache entry of ID has its binary, with that ID
has_id() {
	local elf=$HOME/.debug/.build-id/${1:0:2}/${1:2}/elf
	[ -f "$HOME/.debug/.build-id/${1:0:2}/${1:2}" ] && elf=$HOME/.debug/.build-id/${1:0:2}/${1:2}
	[ "$(elf_id "$elf")" = "$1" ] && no_other_id "$1"
}
# plant: the cache entry of the recorded ID, by hand, with spin-md5 in it
plant() {
	local dir=$HOME/.debug$t/spin/$sha1 link=$HOME/.debug/.build-id/${sha1:0:2}
	rm -rf "$HOME/.debug"
	mkdir -p "$dir" "$link" &&
		cp "$w/spin-md5" "$dir/elf" &&
		ln -s "../..$t/spin/$sha1" "$link/${sha1:2}"
}
# objdump_on_recorded ERRFILE: perf annotate -v disassembled files with
# the recorded ID only (the "filename=" it says), and one at least
objdump_on_recorded() {
	local f files
	files=$(sed -n 's/^symbol__disassemble: filename=\(.*\), sym=.*/\1/p' "$1" | sort -u)
	if [ -z "$files" ]; then
		echo "# perf annotate did not disassemble anything:" >&2
		grep -v '^ *$' "$1" | tail -5 | sed 's/^/# /' >&2
		return 1
	fi
	for f in $files; do
		if [ "$(elf_id "$f")" != "$sha1" ]; then
			echo "# perf annotate disassembled $f, build ID $(elf_id "$f"), not $sha1" >&2
			return 1
		fi
	done
}
# archive_right DATA: perf archive of DATA has, under the recorded ID,
# nothing with another ID
archive_right() {
	local x=$t/unpacked f ok=0
	rm -rf "$x" && mkdir -p "$x"
	perf archive "$1" >"$t/archive.out" 2>&1
	[ -f "$1.tar.bz2" ] && tar xjf "$1.tar.bz2" -C "$x" 2>/dev/null
	for f in "$x/.build-id/${sha1:0:2}/${sha1:2}"/* "$x/.build-id/${sha1:0:2}/${sha1:2}"; do
		[ -f "$f" ] || continue
		case ${f##*/} in probes) continue ;; esac
		if [ "$(elf_id "$f")" != "$sha1" ]; then
			echo "# perf archive shipped ${f#"$x"/}, build ID $(elf_id "$f"), as $sha1" >&2
			ok=1
		fi
	done
	return $ok
}

sha1=$(elf_id "$w/spin-sha1") md5=$(elf_id "$w/spin-md5")
ids_differ() { [ -n "$sha1" ] && [ -n "$md5" ] && [ "$sha1" != "$md5" ]; }
result "the workloads' build IDs differ # $sha1, $md5" ids_differ

put "$w/spin-sha1"
if ! perf record -q --buildid-mmap -o "$t/perf.data" -- "$t/spin" 3000000 >/dev/null 2>&1; then
	n=$((n + 1))
	echo "ok $n # SKIP perf record --buildid-mmap does not work here"
	echo "1..$n"
	exit 0
fi

# 1. perf inject -b with the replacement at the path
put "$w/spin-md5"
perf inject -b -i "$t/perf.data" -o "$t/out.data" >"$t/inject.out" 2>&1
result "perf inject -b: it ran" [ -s "$t/out.data" ]
result "perf inject -b: no cache entry for the ID with another build ID # $sha1" \
	no_other_id "$sha1"

# 2. the original back: buildid-cache -a of the file files it rightly
put "$w/spin-sha1"
perf buildid-cache -a "$t/spin" >"$t/add-file.out" 2>&1
result "perf buildid-cache -a FILE: the entry of the ID has it # $sha1" has_id "$sha1"

# 3. an entry planted with the wrong file, the right one at the path:
# perf annotate must not disassemble the planted file
plant
perf annotate -v -i "$t/perf.data" --stdio main >"$t/annotate.out" 2>"$t/annotate.err"
result "perf annotate: objdump not run on a planted file with another build ID" \
	objdump_on_recorded "$t/annotate.err"
# and perf report does not take symbols from it
perf report -v -i "$t/perf.data" --stdio -q --sort dso,sym >"$t/report.out" 2>"$t/report.err"
result "perf report: symbols of the recorded binary" \
	grep -Eq ' spin +\[\.\] main$' "$t/report.out"

# 4. planted entry, the wrong file at the path too: perf archive must not
# ship the planted file as the recorded binary
put "$w/spin-md5"
result "perf archive: nothing with another build ID under the ID # $sha1" \
	archive_right "$t/perf.data"
perf buildid-cache -a "$t/perf.data" >"$t/add-data1.out" 2>&1
result "perf buildid-cache -a perf.data: the planted entry is not 'in the cache already'" \
	not_grep "^$sha1 .*: in the cache already" "$t/add-data1.out"

# 5. planted entry, the right file back: buildid-cache -a perf.data
# replaces the planted file
plant
put "$w/spin-sha1"
perf buildid-cache -a "$t/perf.data" >"$t/add-data2.out" 2>&1
result "perf buildid-cache -a perf.data: the planted entry replaced" has_id "$sha1"

# 6. a dangling .build-id link, to an entry purged, of another path: it is
# replaced by the entry perf buildid-cache -a makes
rm -rf "$HOME/.debug"
mkdir -p "$HOME/.debug/.build-id/${sha1:0:2}"
ln -s "../..$t/gone/spin/$sha1" "$HOME/.debug/.build-id/${sha1:0:2}/${sha1:2}"
perf buildid-cache -a "$t/spin" >"$t/add-dangling.out" 2>&1
result "perf buildid-cache -a FILE: a dangling .build-id link replaced" has_id "$sha1"

# 7. a recording of spin-md5 whose build-ID table entry has the ID in 20
# bytes, zero-padded, without PERF_RECORD_MISC_BUILD_ID_SIZE
# pad_build_ids IN OUT: OUT is IN with the misc bit cleared in every
# HEADER_BUILD_ID record (the ID bytes after the size are zero already)
pad_build_ids() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
assert d[:8] == b'PERFILE2'
data_off, data_size = struct.unpack_from('<QQ', d, 40)
feats = int.from_bytes(d[72:104], 'little')
HEADER_BUILD_ID = 2
assert feats >> HEADER_BUILD_ID & 1
idx = bin(feats & ((1 << HEADER_BUILD_ID) - 1)).count('1')
off, size = struct.unpack_from('<QQ', d, data_off + data_size + 16 * idx)
pos, n = off, 0
while pos < off + size:
	typ, misc, rsize = struct.unpack_from('<IHH', d, pos)
	if misc & (1 << 15):
		struct.pack_into('<H', d, pos + 4, misc & ~(1 << 15))
		n += 1
	pos += rsize
assert n
open(sys.argv[2], 'wb').write(d)
PY
}
md5pad=${md5}$(printf '%0*d' $((40 - ${#md5})) 0)
mkdir -p "$t/m"
cp "$w/spin-md5" "$t/m/spin"
rm -rf "$HOME/.debug"
perf record -q -N -o "$t/md5.data" -- "$t/m/spin" 3000000 >/dev/null 2>&1
pad_build_ids "$t/md5.data" "$t/md5pad.data" 2>"$t/pad.err"
perf buildid-list -i "$t/md5pad.data" >"$t/md5pad.ids" 2>&1
result "a recording with the ID of spin-md5 zero-padded to 20 bytes" \
	grep -q "^$md5pad " "$t/md5pad.ids"
perf buildid-cache -a "$t/md5pad.data" >"$t/add-md5pad.out" 2>&1
result "perf buildid-cache -a perf.data: the zero-padded ID's entry filled" \
	cmp -s "$HOME/.debug/.build-id/${md5pad:0:2}/${md5pad:2}/elf" "$w/spin-md5"
# the entry as perf 5.10 made it, from the binary, then the binary gone
rm -rf "$HOME/.debug"
mkdir -p "$HOME/.debug$t/m/spin/$md5pad" "$HOME/.debug/.build-id/${md5pad:0:2}"
cp "$w/spin-md5" "$HOME/.debug$t/m/spin/$md5pad/elf"
ln -s "../..$t/m/spin/$md5pad" "$HOME/.debug/.build-id/${md5pad:0:2}/${md5pad:2}"
rm -f "$t/m/spin"
perf report -i "$t/md5pad.data" --stdio -q --sort dso,sym >"$t/report-md5.out" 2>"$t/report-md5.err"
result "perf report: symbols of a zero-padded ID's binary from the cache" \
	grep -Eq ' spin +\[\.\] main$' "$t/report-md5.out"
perf buildid-cache -M "$t/md5pad.data" >"$t/missing.out" 2>&1
result "perf buildid-cache --missing: the zero-padded ID's entry is there" \
	not_grep "^$md5pad " "$t/missing.out"

# 8. perf report of an ordinary recording, its binaries cached by perf
# record: count the opens of files in the cache. Symbol loading opens the
# entry of each DSO with samples (the binary, then a debug file if any)
# once: at most twice the entries with hits. The series' first version
# read the ID of the cache file on every dso__build_id_filename() call.
rm -rf "$HOME/.debug"
put "$w/spin-sha1"
perf record -q -o "$t/plain.data" -- "$t/spin" 3000000 >/dev/null 2>&1
entries=$(perf buildid-list -i "$t/plain.data" --with-hits 2>/dev/null | wc -l)
opens_bounded() {
	local got
	if ! command -v strace >/dev/null; then
		echo "# no strace" >&2
		return 1
	fi
	strace -f -qq -e trace=openat -o "$t/report.strace" \
		perf report -i "$t/plain.data" --stdio -q --sort dso,sym >"$t/report-plain.out" 2>&1
	got=$(grep -c "\"$HOME/.debug/[^\"]*\", O_RDONLY" "$t/report.strace")
	echo "# perf report opened files in the cache $got times, $entries entries with hits" >&2
	[ "$got" -le $((2 * entries)) ] && grep -Eq ' spin +\[\.\] main$' "$t/report-plain.out"
}
result "perf report: files in the cache opened at most twice each" opens_bounded
echo "1..$n"
