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
# The IDs expected are read with readelf -n.
# usage: cache-poison.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/cache-poison.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t/home  # the build-ID cache, ~/.debug, starts empty
mkdir -p "$HOME"
unset DEBUGINFOD_URLS PERF_BUILDID_DIR
n=0
result() { # result NAME CMD...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n $name"; else echo "not ok $n $name"; fi
}
not_grep() { ! grep -q "$@"; }
elf_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }
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
result "the workloads' build IDs differ ($sha1, $md5)" ids_differ

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
result "perf inject -b: no cache entry for $sha1 with another build ID" \
	no_other_id "$sha1"

# 2. the original back: buildid-cache -a of the file files it rightly
put "$w/spin-sha1"
perf buildid-cache -a "$t/spin" >"$t/add-file.out" 2>&1
result "perf buildid-cache -a FILE: the entry of $sha1 has it" has_id "$sha1"

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
result "perf archive: nothing with another build ID under $sha1" \
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
echo "1..$n"
