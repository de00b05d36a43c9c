#!/bin/bash
# Build IDs of every size the ABI allows, 1, 3, 8, 16 and 20 bytes, the
# first two not a multiple of 4 (the note is padded, the ID is not): the
# ID perf reads from the file, the one the kernel puts in MMAP2 records,
# the one perf record -p synthesizes and the one in the header's build-ID
# table must all be the note's descriptor, byte for byte, and samples get
# their symbols. Each is filed in the build-ID cache under that ID (a
# one-byte ID's link named "_"), listed by buildid-cache -l and removed by
# -P, and keeps its symbols from there once the binary is replaced after
# the recording. The expected IDs are read here from the note itself (od
# at the section's offset): readelf -n refuses a descriptor that is not
# padded to 4 bytes, which is how ld writes them.
# usage: odd-size-ids.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/odd-size-ids.XXXXXX")
trap 'kill "${bg:-}" 2>/dev/null; rm -rf "$t"' EXIT
export HOME=$t
n=0
gone() { ! [ -e "$1" ] && ! [ -L "$1" ] && ! [ -e "$2" ]; }
has_id() { perf buildid-list -i "$3" 2>/dev/null | awk -v id="$1" -v f="$2" '$1 == id && $2 == f { ok = 1 } END { exit !ok }'; }


if ! perf record -q --buildid-mmap -o "$t/probe.data" -- true >/dev/null 2>&1; then
	echo "ok 1 # SKIP perf record --buildid-mmap does not work here"
	echo "1..1"
	exit 0
fi

for v in 1 3 8 md5 sha1; do
	f=$t/spin-$v
	cp "$w/spin-$v" "$f"
	id=$(note_id "$f")
	result "spin-$v: the note's ID read by the test # $id" [ -n "$id" ]
	[ -n "$id" ] || continue
	# the cache: .build-id/XX/REST, where a one-byte ID's REST is "_"
	rest=${id:2}
	link=$HOME/.debug/.build-id/${id:0:2}/${rest:-_}
	perf buildid-cache -a "$f" >/dev/null 2>&1
	result "spin-$v: buildid-cache -a files it under the note's ID" \
		cmp -s "$f" "$link/elf"
	result "spin-$v: buildid-cache -l lists it" \
		grep -q "^$id " <<<"$(perf buildid-cache -l 2>/dev/null)"
	perf buildid-cache -P >/dev/null 2>&1
	result "spin-$v: buildid-cache -P removes its link and its entry" \
		gone "$link" "$HOME/.debug$f/$id"
	rm -rf "$HOME/.debug"

	perf record -q --buildid-mmap -o "$t/$v.data" -- "$f" 200000000 >/dev/null 2>&1
	result "spin-$v: the kernel's MMAP2 record carries it" \
		grep -q "<$id>\]: r-xp $f\$" <<<"$(perf script -i "$t/$v.data" --show-mmap-events 2>/dev/null)"
	result "spin-$v: no build-ID mismatch, samples in main()" \
		grep -q '\] main$' <<<"$(perf report -i "$t/$v.data" --stdio -q --sort dso,sym 2>"$t/$v.err" | grep -w "spin-$v")"
	result "spin-$v: perf says nothing of a mismatch" \
		not_grep 'mismatch' "$t/$v.err"

	# the binary replaced after the recording: its samples keep their
	# symbols, from the cache that buildid-cache -a filled by the ID
	perf buildid-cache -a "$t/$v.data" >/dev/null 2>&1
	cp "$f" "$t/keep-$v"
	cp "$w/spin-none" "$f.new" && mv -f "$f.new" "$f"
	result "spin-$v: replaced after the recording, samples in main() from the cache" \
		grep -q '\] main$' <<<"$(perf report -i "$t/$v.data" --stdio -q --sort dso,sym 2>/dev/null | grep -w "spin-$v")"
	mv -f "$t/keep-$v" "$f"
	rm -rf "$HOME/.debug"

	# (200M iterations: 20M gave as few as 14 samples under TCG; a program
	# with none of them has no entry in the table, the likely cause of
	# one failure in the VM, which three reruns did not repeat)
	perf record -q -o "$t/$v-classic.data" -- "$f" 200000000 >/dev/null 2>&1
	result "spin-$v: the header's build-ID table has it (classic record)" \
		has_id "$id" "$f" "$t/$v-classic.data"

	"$f" 2000000000 >/dev/null &
	bg=$!
	sleep 0.2
	perf record -q --buildid-mmap -p "$bg" -o "$t/$v-p.data" -- sleep 0.3 >/dev/null 2>&1
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	result "spin-$v: perf record -p synthesizes it" \
		grep -q "<$id>\]: r-xp $f\$" <<<"$(perf script -i "$t/$v-p.data" --show-mmap-events 2>/dev/null)"
done
echo "1..$n"
