#!/bin/bash
# Record the seeds of make check's perf.data fuzzer (tier 55) anew, into
# this directory: bid.data (perf record --buildid-mmap, MMAP2 records with
# build IDs), plain.data (without it: a build-ID table in the header) and
# ids (the build IDs readelf reads from the recorded workload, which the
# tier checks the seeds name). The seeds are committed so that every make
# check fuzzes the same bytes; make check-full's exploring tier records
# fresh ones each run. The workload (burn, libburn.so of tests/) runs
# from a copy in a directory that is removed afterwards: the seeds name
# binaries that exist nowhere, so that no machine's files change what
# perf makes of them. Needs a kernel with build IDs in MMAP2 records.
# usage: tests/perf/fuzz-seeds/record.sh PERF WORKLOAD_DIR
set -euo pipefail
perf=${1:?usage: record.sh PERF WORKLOAD_DIR}
w=${2:?usage: record.sh PERF WORKLOAD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
d=/tmp/perfdata-fuzz-seed
rm -rf "$d"
mkdir "$d"
trap 'rm -rf "$d"' EXIT
cp "$w/burn" "$w/libburn.so" "$d/"
# user-space samples only: no run of the fuzzer loads the kernel's symbols
"$perf" record -q --buildid-mmap -e cpu-clock:u -o "$here/bid.data" -- "$d/burn" 10 >/dev/null
"$perf" record -q -e cpu-clock:u -o "$here/plain.data" -- "$d/burn" 10 >/dev/null
for f in "$d/burn" "$d/libburn.so"; do
	printf '%s %s\n' "$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')" "$f"
done >"$here/ids"
chmod 644 "$here/bid.data" "$here/plain.data"
cat "$here/ids"
