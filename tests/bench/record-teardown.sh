#!/bin/bash
# How long perf record takes to stop, classic (a final pass over perf.data
# collects build IDs, then the build-ID cache is updated), classic with
# -N (the pass alone, no cache update) and --buildid-mmap (neither), side
# by side for growing perf.data sizes: perf records a busy workload (-p)
# for DURATION seconds, then gets SIGINT; teardown is the time from the
# signal to its exit. Prints the median over ROUNDS alternating runs per
# size, and the ratio classic / --buildid-mmap.
# usage: record-teardown.sh WORKLOAD_DIR [ROUNDS]   (perf from PATH)
#        DURATIONS="2 6 18" sets the recording times (seconds).
set -u
w=$1 rounds=${2:-3}
t=$(mktemp -d "${TMPDIR:-/tmp}/teardown.XXXXXX")
"$w/burn" 10000000 >/dev/null &
bg=$!
trap 'kill $bg 2>/dev/null; rm -rf "$t"' EXIT

ns() { date +%s%N; }
# teardown_ms SECONDS OPTS...: a sample every 5 us of the workload's CPU
# time, callchains, a small buffer so that little is left to flush
teardown_ms() {
	local secs=$1 pid t0 t1
	shift
	perf record -q "$@" -e cpu-clock -c 5000 -m 16 -g -p "$bg" -o "$t/perf.data" 2>/dev/null &
	pid=$!
	sleep "$secs"
	t0=$(ns)
	kill -INT "$pid"
	wait "$pid"
	t1=$(ns)
	echo $(( (t1 - t0) / 1000000 )) "$(stat -c %s "$t/perf.data")"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-8s %10s %12s %15s %16s %7s\n' seconds perf.data "classic ms" "classic -N ms" \
	"buildid-mmap ms" ratio
for secs in ${DURATIONS:-2 6 18}; do
	: >"$t/c"
	: >"$t/n"
	: >"$t/b"
	for _ in $(seq "$rounds"); do
		read -r ms size < <(teardown_ms "$secs")
		echo "$ms" >>"$t/c"
		read -r ms _ < <(teardown_ms "$secs" -N)
		echo "$ms" >>"$t/n"
		read -r ms _ < <(teardown_ms "$secs" --buildid-mmap)
		echo "$ms" >>"$t/b"
	done
	c=$(median <"$t/c") n=$(median <"$t/n") b=$(median <"$t/b")
	printf '%-8s %8sMB %12s %15s %16s %7s\n' "$secs" "$((size / 1000000))" "$c" "$n" "$b" \
		"$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.1f", (b > 0 ? c / b : 0) }')"
done
