#!/bin/bash
# The build-ID cache keeps, beside each binary, the probes of its SDT
# notes (the "probes" file perf probe places sdt_ events by). perf read
# those notes from the file at the recorded path, not from the cached
# binary: once another build was renamed over it, perf inject -b of the
# recording (the cache holding the binary already) gave the recorded
# build ID's probes the other build's addresses, where a uprobe would
# land in the middle of other code. The probes of the recorded ID must
# stay at its own notes' addresses, as readelf -n reads them from the
# test's copy of that build.
# usage: replaced-sdt.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/replaced-sdt.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/app

# locations FILE: the addresses of FILE's SDT notes, as readelf -n gives them
locations() {
	readelf -n "$1" | awk '/Location:/ { sub(",", "", $2); print $2 }' | sed 's/^0x0*/0x/' | sort -u
}
# probes ID: the addresses the cache's probes of ID give for the path
probes() {
	sed -n "s@^p:sdt_oracle/tick $f:@@p" "$t/.debug$f/$1/probes" 2>/dev/null | sort -u
}
id=$(readelf -n "$w/sdt-v1" | awk '/Build ID:/ { print $3 }')
locations "$w/sdt-v1" >"$t/v1"
locations "$w/sdt-v2" >"$t/v2"
cp "$w/sdt-v1" "$f" || exit 1
if ! perf record -q -e cpu-clock:u -o "$t/rec.data" -- "$f" spin >/dev/null 2>&1; then
	skip "the probes of the recorded build" "perf record does not work here"
	skip "replaced, perf inject -b: the probes of the recorded build" "perf record does not work here"
	echo "1..$n"
	exit 0
fi
# the two builds' probes are apart, or the test would prove nothing
if cmp -s "$t/v1" "$t/v2" || [ ! -s "$t/v1" ]; then
	echo "not ok 1 the two builds' SDT notes differ (readelf -n)"
	echo "1..1"
	exit 0
fi
probes "$id" >"$t/before"
result "the probes of the recorded build: its notes' addresses" cmp -s "$t/v1" "$t/before"
cp "$w/sdt-v2" "$f.new" && mv "$f.new" "$f"
perf inject -b -i "$t/rec.data" -o "$t/inject.data" >/dev/null 2>&1
probes "$id" >"$t/after"
result "replaced, perf inject -b: the probes of the recorded build, none of the other's" \
	cmp -s "$t/v1" "$t/after"
echo "1..$n"
