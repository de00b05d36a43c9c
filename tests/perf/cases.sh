#!/bin/bash
# Run every test of tests/perf/cases/ (each: NAME.sh WORKLOAD_DIR, perf
# from PATH, TAP out) and print their results as one TAP stream, each
# name prefixed with its test's. A test that prints no result fails.
# usage: cases.sh WORKLOAD_DIR [NAME...]   (default: all of them)
set -u
dir=$(cd "$(dirname "$0")/cases" && pwd) || exit 1
w=$1
shift
n=0
if [ $# -eq 0 ]; then
	set -- "$dir"/*.sh
else
	set -- "${@/#/$dir/}"
	set -- "${@/%/.sh}"
fi
for c in "$@"; do
	name=$(basename "$c" .sh)
	start=$(date +%s)
	out=$(bash "$c" "$w" 2>&1)
	echo "# $name: $(($(date +%s) - start)) s" >&2
	grep -v -E '^((not )?ok [0-9]+|1\.\.[0-9]+)' <<<"$out" | sed "s/^/# $name: /" >&2
	got=0
	while read -r line; do
		n=$((n + 1))
		got=1
		sed -E "s/^(not )?ok [0-9]+ /\\1ok $n $name: /" <<<"$line"
	done < <(grep -E '^(not )?ok [0-9]+' <<<"$out")
	if [ "$got" -eq 0 ]; then
		n=$((n + 1))
		echo "not ok $n $name: no results"
	fi
done
echo "1..$n"
