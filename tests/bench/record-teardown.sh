#!/bin/bash
# How long perf record takes to finish after its workload has exited,
# classic (the final pass over perf.data that collects build IDs) versus
# --buildid-mmap, side by side for growing perf.data sizes. The workload
# writes its exit time; teardown = perf's exit time - that. Reports the
# median over ROUNDS alternating runs per size, and the ratio.
# usage: record-teardown.sh WORKLOAD_DIR [ROUNDS]   (perf from PATH)
set -u
w=$1 rounds=${2:-5}
t=$(mktemp -d "${TMPDIR:-/tmp}/teardown.XXXXXX")
trap 'rm -rf "$t"' EXIT

ns() { date +%s%N; }
# teardown_ms LOOPS OPTS...: record burn LOOPS, a sample every 10 us of CPU time
teardown_ms() {
	local loops=$1
	shift
	perf record -q "$@" -e cpu-clock -c 10000 -g -o "$t/perf.data" -- \
		sh -c "'$w/burn' $loops >/dev/null; date +%s%N >'$t/end'" 2>/dev/null
	local done_ns
	done_ns=$(ns)
	echo $(( (done_ns - $(cat "$t/end")) / 1000000 )) "$(stat -c %s "$t/perf.data")"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-10s %12s %14s %16s %8s\n' loops "perf.data" "classic ms" "buildid-mmap ms" ratio
for loops in ${LOOPS:-100 400 1600}; do
	: >"$t/c" ; : >"$t/b"
	for _ in $(seq "$rounds"); do
		read -r ms size < <(teardown_ms "$loops"); echo "$ms" >>"$t/c"
		read -r msb _ < <(teardown_ms "$loops" --buildid-mmap); echo "$msb" >>"$t/b"
	done
	c=$(median <"$t/c") b=$(median <"$t/b")
	printf '%-10s %10sMB %14s %16s %8s\n' "$loops" "$((size / 1000000))" "$c" "$b" \
		"$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.1f", (b > 0 ? c / b : 0) }')"
done
