#!/bin/bash
# perf record -o - | perf report -i -, between this perf and others: a
# pipe written by one perf is read by each (this perf and every perf in
# OTHER_PERFS, such as Debian's 6.1 and mainline 6.12), in both
# directions, and shows the workload's samples in main() with readelf's
# build ID; the classic and the --buildid-mmap forms, and perf inject -b
# in the pipe.
# usage: [OTHER_PERFS="PERF..."] pipe-mode.sh WORKLOAD_DIR
#        (this perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/pipe-mode.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
n=0
# check NAME CMD...: as result, but a failure where another perf (not
# this one) crashed, as Debian's 6.1 now and then does on pipes it wrote
# itself too ("assertion failed at util/build-id.c", "stack smashing
# detected"), is a known failure of that perf: XFAIL, with its message
check() {
	local name=$1 crash
	shift
	if "$@"; then
		result "$name" true
		return
	fi
	sed 's/^/# /' "$t/err"
	crash=$(grep -m1 -E 'assertion failed|stack smashing|Segmentation fault|Aborted' "$t/err")
	if [ -n "$crash" ] && [ "$writer$reader" != "$self$self" ]; then
		xfail "$name" "the other perf crashed: $crash"
	else
		result "$name" false
	fi
}
self=$(command -v perf)
name() { if [ "$1" = "$self" ]; then echo this; else "$1" version | awk '{ print "perf-" $3 }'; fi; }
in_main() { grep -q ' spin *\[\.\] main$' <<<"$1"; }
has_id() { awk -v id="$1" -v f="$2" '$1 == id && $2 == f { ok = 1 } END { exit !ok }' <<<"$3"; }

f=$t/spin
cp "$w/spin-sha1" "$f"
id=$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')
forms="classic"
perf record -q --buildid-mmap -o "$t/probe.data" -- true >/dev/null 2>&1 && forms="$forms buildid-mmap"
# shellcheck disable=SC2086 # a list of paths
for writer in "$self" ${OTHER_PERFS:-}; do
	for reader in "$self" ${OTHER_PERFS:-}; do
		# between two other perfs: not this tree's business
		[ "$writer" = "$self" ] || [ "$reader" = "$self" ] || continue
		for form in $forms; do
			opt=
			[ "$form" = classic ] || opt=--buildid-mmap
			pair="$(name "$writer") | $(name "$reader") ($form)"
			"$writer" record -q $opt -o - -- "$f" 20000000 2>/dev/null >"$t/pipe"
			out=$("$reader" report -i - --stdio -q --sort comm,dso,sym <"$t/pipe" 2>"$t/err")
			check "$pair: report reads the pipe, samples in main()" in_main "$out"
			ids=$("$writer" inject -b -i - -o - <"$t/pipe" 2>"$t/err" |
				"$reader" buildid-list -i - 2>>"$t/err")
			check "$pair: inject -b in the pipe, buildid-list has readelf's ID" \
				has_id "$id" "$f" "$ids"
		done
	done
done
echo "1..$n"
