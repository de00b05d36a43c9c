#!/bin/bash
# The guest half of make demo: record the bundled workload and show the
# build IDs perf got next to the ones readelf reads from the same files.
# usage: demo.sh WORKLOAD_DIR [PERF_RECORD_OPTIONS...]
set -eu
w=$1
shift
cd /scratch

echo "### perf record $* -- burn"
perf record -q "$@" -o perf.data -- "$w/burn" 300

echo
echo "### MMAP2 records of the workload (perf script --show-mmap-events)"
perf script -i perf.data --show-mmap-events 2>/dev/null | grep 'PERF_RECORD_MMAP2' |
	grep -E 'burn|libc|kernel' | sed 's/^ *//'

echo
echo "### build IDs perf found (perf buildid-list)"
perf buildid-list -i perf.data 2>/dev/null | tee buildids

echo
echo "### build IDs readelf -n reads from the same files"
awk '$2 ~ /^\// { print $2 }' buildids | while read -r f; do
	printf '%s %s\n' "$(readelf -n "$f" | awk '/Build ID:/ { print $3; exit }')" "$f"
done

echo
echo "### perf report (top)"
perf report -i perf.data --stdio -q --sort dso,sym 2>/dev/null | grep -v '^$' | head -8
