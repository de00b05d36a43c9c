#!/bin/bash
# Compressed recordings (perf record -z): the records perf looks into for
# build IDs, MMAP2 and samples, sit inside PERF_RECORD_COMPRESSED records.
# Recorded with --buildid-mmap (the IDs in the MMAP2 records) and without
# it (the classic form: the IDs in the header's build-ID table, found by
# perf record's pass over the data at its end), every tool that reads
# build IDs must find those of the workload, a program and its library:
#  - perf buildid-list -i lists each ID with its path;
#  - perf buildid-cache -a perf.data exits 0 and puts each binary under
#    ~/.debug/.build-id/xx/rest;
#  - perf inject -b writes a readable perf.data whose buildid-list has the
#    IDs, from a file and in a pipe (perf record -z -o - | perf inject -b);
#  - perf archive packs the binaries.
# The expected IDs are read here with readelf -n. ~/.debug is emptied
# before each check that fills it (perf record fills it in the classic
# form), in a private HOME.
# usage: compressed.sh WORKLOAD_DIR   (perf taken from PATH; TAP output,
# the details of failures on stderr)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "${1:?usage: compressed.sh WORKLOAD_DIR}" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/compressed.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t/home
mkdir -p "$HOME" "$t/app"
n=0

# cached_id DIR ID: the ID of the binary that DIR/.build-id/xx/rest names
# (a link to the cache's directory of the file, with the copy in elf)
cached_id() {
	local l=$1/.build-id/${2:0:2}/${2:2}
	if [ -d "$l" ]; then elf_id "$l/elf"; else elf_id "$l"; fi
}
say() { printf '%s\n' "$*" >&2; }

# has_ids LIST: LIST (perf buildid-list output) has each binary's ID with
# its path
has_ids() {
	local f ok=0
	for f in burn libburn.so; do
		if ! awk -v id="${id[$f]}" -v f="$t/app/$f" '$1 == id && $2 == f { ok = 1 }
			END { exit !ok }' <<<"$1"; then
			say "$label: no ${id[$f]} $t/app/$f in:"
			say "${1:-(nothing)}"
			ok=1
		fi
	done
	return $ok
}
# in_cache: ~/.debug/.build-id/xx/rest of each ID names the binary with it
in_cache() {
	local f i ok=0
	for f in burn libburn.so; do
		i=${id[$f]}
		if [ "$(cached_id "$HOME/.debug" "$i")" != "$i" ]; then
			say "$label: $f ($i) is not in the build-ID cache"
			ok=1
		fi
	done
	[ $ok = 0 ] || find "$HOME/.debug" -path '*/.build-id/*' >&2 2>/dev/null
	return $ok
}
# in_archive TARBALL: the archive has each ID's link and the binary
in_archive() {
	local f i ok=0
	for f in burn libburn.so; do
		i=${id[$f]}
		rm -rf "$t/x"
		mkdir -p "$t/x"
		if ! tar xjf "$1" -C "$t/x" 2>/dev/null ||
			[ "$(cached_id "$t/x" "$i")" != "$i" ]; then
			say "$label: $f ($i) is not in the archive:"
			tar tjf "$1" >&2 2>/dev/null
			ok=1
		fi
	done
	return $ok
}
exits_0() { # exits_0 ERRFILE CMD...: CMD exits 0, else say why
	local err=$1 rc
	shift
	"$@" >"$err" 2>&1
	rc=$?
	[ $rc = 0 ] && return 0
	say "$label: $* exited $rc:"
	tail -5 "$err" >&2
	return 1
}
samples_of_burn() { # the report of a perf.data has the program's samples
	perf report -i "$1" --stdio -q --sort dso 2>"$t/report.err" | grep -q ' burn *$' && return 0
	say "$label: perf report -i $1 has no samples in burn:"
	tail -5 "$t/report.err" >&2
	return 1
}

cp "$w/burn" "$w/libburn.so" "$t/app/" || exit 1
declare -A id
for f in burn libburn.so; do
	id[$f]=$(elf_id "$t/app/$f")
	[ -n "${id[$f]}" ] || { echo "not ok 1 $f has a build ID"; echo 1..1; exit 1; }
done
run=("$t/app/burn" 400)

can_mmap=
perf record -q --buildid-mmap -o "$t/probe.data" true >/dev/null 2>"$t/probe.err" && can_mmap=1

for form in buildid-mmap classic; do
	label=$form
	opts=(-z)
	[ $form = buildid-mmap ] && opts+=(--buildid-mmap)
	d=$t/$form.data
	names=(record buildid-list buildid-cache-exit buildid-cache-has-ids inject-exit
		inject-output-buildid-list inject-output-report pipe-inject-buildid-list
		archive-exit archive-has-binaries)
	if [ $form = buildid-mmap ] && [ -z "$can_mmap" ]; then
		why="the kernel cannot put build IDs in MMAP2 records: $(head -1 "$t/probe.err")"
		for name in "${names[@]}"; do skip "$form/$name" "$why"; done
		continue
	fi
	rm -rf "$HOME/.debug"
	result $form/record exits_0 "$t/record.err" perf record -q "${opts[@]}" -o "$d" -- "${run[@]}"

	# perf record -z makes no build-ID table, as in mainline: its pass
	# would decompress the whole recording and keep it in memory
	nopass="perf record -z collects no build IDs at its end (as mainline); record with --buildid-mmap"
	if [ $form = classic ]; then
		skip $form/buildid-list "$nopass"
	else
		result $form/buildid-list has_ids "$(perf buildid-list -i "$d" 2>"$t/list.err")"
	fi

	rm -rf "$HOME/.debug"
	result $form/buildid-cache-exit exits_0 "$t/cache.err" perf buildid-cache -a "$d"
	if [ $form = classic ]; then
		skip $form/buildid-cache-has-ids "$nopass"
	else
		result $form/buildid-cache-has-ids in_cache
	fi

	result $form/inject-exit exits_0 "$t/inject.err" perf inject -b -i "$d" -o "$t/inj.data"
	result $form/inject-output-buildid-list has_ids "$(perf buildid-list -i "$t/inj.data" 2>/dev/null)"
	result $form/inject-output-report samples_of_burn "$t/inj.data"

	# a pipe: perf record -z -o - | perf inject -b | perf buildid-list -i -
	result $form/pipe-inject-buildid-list has_ids "$(perf record -q "${opts[@]}" -o - -- "${run[@]}" \
		2>"$t/pipe-record.err" | perf inject -b 2>"$t/pipe-inject.err" |
		perf buildid-list -i - 2>"$t/pipe-list.err")"

	rm -rf "$HOME/.debug" "$d.tar.bz2"
	(cd "$t" && perf archive "$d") >"$t/archive.out" 2>&1
	rc=$?
	if grep -q "'archive' is not a perf-command" "$t/archive.out"; then
		skip "$form/archive-exit" "this perf has no perf archive"
		skip "$form/archive-has-binaries" "this perf has no perf archive"
		continue
	fi
	if [ $form = classic ]; then
		# with no build IDs, it says so and fails
		result $form/archive-says-no-build-ids grep -q 'no build-ids found' "$t/archive.out"
		skip $form/archive-has-binaries "$nopass"
		continue
	fi
	if [ $rc != 0 ]; then
		say "$label: perf archive exited $rc:"
		tail -5 "$t/archive.out" >&2
	fi
	result $form/archive-exit [ $rc = 0 ]
	result $form/archive-has-binaries in_archive "$d.tar.bz2"
done
echo "1..$n"
