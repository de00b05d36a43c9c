#!/bin/bash
# perf report -g of a --call-graph dwarf recording unwinds each sample
# with the tables of the binary it hit. Once another build is renamed over
# that binary, the file at its path is not the one that ran: perf once
# unwound with it, and cut the chain short or gave frames of the other
# build, and waited forever on a FIFO put there. The chains must be those
# perf gave before the file was replaced (classic: the binary is in the
# build-ID cache); with --buildid-mmap, which caches nothing, the samples
# of the binary may lose their frames, but show none of the other build.
# Without build IDs at all (perf record -B) the file at the path is the
# one that ran only when it is the inode the MMAP2 record names: the
# chains must be whole while it is, on the root file system and through
# an overlayfs mount (whose files stat() shows with the overlay's device
# and inode, not those of the file the kernel maps). Under --symfs the
# copy there is the binary, as the user says.
# usage: dwarf-replaced.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/dwarf-replaced.XXXXXX")
trap 'umount "$t/ovl" 2>/dev/null; rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/unwind-prog

# chains FILE [OPTION...]: the chains of the samples, as perf report -g
# prints them
chains() {
	timeout -k 5 30 perf report -g caller --no-children --stdio "${@:2}" -i "$1" 2>/dev/null |
		grep -v '^#' | grep .
}

for mode in classic buildid-mmap; do
	opts=(--call-graph dwarf -e cpu-clock:u)
	[ "$mode" = buildid-mmap ] && opts+=(--buildid-mmap)
	rm -rf "$t/.debug"
	cp "$w/unwind-v1" "$f" || exit 1
	if ! perf record -q "${opts[@]}" -o "$t/$mode.data" -- "$f" 50000000 >/dev/null 2>&1; then
		skip "$mode" "perf record ${opts[*]} does not work here"
		continue
	fi
	chains "$t/$mode.data" >"$t/$mode.before"
	result "$mode: hot_v1's chain before the binary is replaced" \
		grep -q 'outer_v1' "$t/$mode.before"
	cp "$w/unwind-v2" "$f.new" && mv "$f.new" "$f"
	chains "$t/$mode.data" >"$t/$mode.after"
	result "$mode, replaced: no symbol of the other build" not_grep '_v2' "$t/$mode.after"
	if [ "$mode" = classic ]; then
		result "$mode, replaced: the chains of before" cmp -s "$t/$mode.before" "$t/$mode.after"
	fi
	# a FIFO where the binary was: perf must not wait on it
	rm -f "$f" && mkfifo "$f"
	start=$SECONDS
	chains "$t/$mode.data" >"$t/$mode.fifo"
	result "$mode, a FIFO at the path: perf report -g ends on its own" \
		[ $((SECONDS - start)) -lt 25 ]
	rm -f "$f"
done
# no build IDs anywhere: the MMAP2 record's inode decides
for where in root overlay; do
	f=$t/unwind-prog
	if [ "$where" = overlay ]; then
		mkdir -p "$t/lower" "$t/upper" "$t/work" "$t/ovl"
		if ! mount -t overlay overlay -o "lowerdir=$t/lower,upperdir=$t/upper,workdir=$t/work" \
			"$t/ovl" 2>/dev/null; then
			skip "no-build-id, overlay" "cannot mount an overlay here"
			continue
		fi
		f=$t/ovl/unwind-prog
	fi
	cp "$w/unwind-v1" "$f" || exit 1
	if ! perf record -q -B --call-graph dwarf -e cpu-clock:u -o "$t/$where.data" -- \
		"$f" 50000000 >/dev/null 2>&1; then
		skip "no-build-id, $where" "perf record -B --call-graph dwarf does not work here"
		continue
	fi
	chains "$t/$where.data" >"$t/$where.before"
	result "no-build-id, $where: hot_v1's whole chain while the file is the one that ran" \
		grep -q 'outer_v1' "$t/$where.before"
	cp "$w/unwind-v2" "$f.new" && mv "$f.new" "$f"
	chains "$t/$where.data" >"$t/$where.after"
	result "no-build-id, $where, replaced: no symbol of the other build" not_grep '_v2' "$t/$where.after"
done
# --symfs: the binary's copy there is what the user gives, its path gone
f=$t/unwind-prog
rm -rf "$t/.debug"
cp "$w/unwind-v1" "$f" || exit 1
if perf record -q --buildid-mmap --call-graph dwarf -e cpu-clock:u -o "$t/symfs.data" -- \
	"$f" 50000000 >/dev/null 2>&1; then
	mkdir -p "$t/symfs$t" && mv "$f" "$t/symfs$f"
	chains "$t/symfs.data" --symfs "$t/symfs" >"$t/symfs.chains"
	result "--symfs, the binary there only: hot_v1's chain through outer_v1" \
		grep -q 'outer_v1' "$t/symfs.chains"
else
	skip "--symfs" "perf record --buildid-mmap --call-graph dwarf does not work here"
fi
echo "1..$n"
