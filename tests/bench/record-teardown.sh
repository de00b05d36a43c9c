#!/bin/bash
# How long perf record takes to stop, and how long perf report then takes
# to start, classic (a final pass over perf.data collects build IDs, then
# the build-ID cache is updated), classic with -N (the pass alone),
# --buildid-mmap (this perf keeps each binary in the cache while it is
# mapped, and waits at its end for the copies still queued; mainline
# 6.17 and later, whose default it is, cache the binaries samples hit at
# the end) and --buildid-mmap with -N (neither), for growing perf.data
# sizes and for each perf given. Each recording starts with an empty
# build-ID cache (a HOME of its own): the first run, when everything is
# still to be copied. perf records the whole system (-a, a sample every
# 10 us of each CPU, callchains) while a busy workload runs, for SECONDS,
# then gets SIGINT; teardown is the time from the signal to its exit,
# and the PERF_RECORD_LOST records (each for samples the kernel could not
# hand over; "LOST events" of perf report --stats) are counted, by the
# first perf given for every file.
# --no-bpf-event: perf's side-band thread (BPF program events) notices
# the end only when its poll() times out, which adds 0 to 1000 ms at
# random to every teardown, whatever the variant.
# Then perf report --stdio reads the last round's files: build IDs from
# the perf.data header (classic) or from the MMAP2 records. Variants
# alternate within a round. Prints, for scripts/lib/bench-report:
#   host teardown PERF SECONDS ROUND VARIANT MS BYTES
#   host lost PERF SECONDS ROUND VARIANT EVENTS
#   host report PERF SECONDS ROUND VARIANT MS
# usage: record-teardown.sh WORKLOAD_DIR ROUNDS NAME=PERF...
#        DURATIONS="1 4 16" sets the recording times (seconds).
set -u
w=$1 rounds=$2
shift 2
t=$(mktemp -d "${TMPDIR:-/tmp}/teardown.XXXXXX")
"$w/burn" 100000000 >/dev/null &
bg=$!
trap 'kill $bg 2>/dev/null; rm -rf "$t"' EXIT

reader=${1#*=}
ns() { date +%s%N; }
log() { printf '==> %s\n' "$*" >&2; }
variants=(classic classic-N buildid-mmap buildid-mmap-N)
ids_from=(classic buildid-mmap)
# opts PERF VARIANT: its options for PERF (--buildid-mmap is the default
# of perf 6.17 and later, whose classic recording is --no-buildid-mmap)
opts() {
	local v bm_default=
	v=$("$1" version | awk '{ print $3 }')
	[ "$(printf '%s\n6.17\n' "$v" | sort -V | head -1)" = 6.17 ] && bm_default=1
	case $2 in
	classic*) [ -n "$bm_default" ] && echo --no-buildid-mmap ;;
	buildid-mmap*) [ -z "$bm_default" ] && echo --buildid-mmap ;;
	esac
	case $2 in *-N) echo -N ;; esac
}

# teardown PERF SECONDS VARIANT OUT: print "MS BYTES"
teardown() {
	local perf=$1 secs=$2 out=$4 pid t0 t1
	rm -rf "${t:?}/home"
	mkdir "$t/home"
	# shellcheck disable=SC2046 # the variant's options, words without spaces
	HOME=$t/home "$perf" record -q $(opts "$perf" "$3") --no-bpf-event -a -e cpu-clock \
		-c 10000 -m 64 -g -o "$out" 2>/dev/null &
	pid=$!
	sleep "$secs"
	t0=$(ns)
	kill -INT "$pid"
	wait "$pid"
	t1=$(ns)
	echo $(( (t1 - t0) / 1000000 )) "$(stat -c %s "$out")"
}

# lost FILE: the LOST events perf report --stats of the first perf counts
lost() {
	HOME=$t/home "$reader" report --stats -i "$1" 2>/dev/null |
		awk '$1 == "LOST" && $2 == "events:" { n = $3 } END { print n + 0 }'
}

for secs in ${DURATIONS:-1 4 16}; do
	start=$(date +%s)
	log "perf record teardown, $secs s of recording, $rounds rounds"
	for r in $(seq 0 $((rounds - 1))); do
		for k in 0 1 2 3; do
			v=${variants[(r + k) % 4]}
			for p in "$@"; do
				out=$t/${p%%=*}-$v.data
				read -r ms size < <(teardown "${p#*=}" "$secs" "$v" "$out")
				echo "host teardown ${p%%=*} $secs $r $v $ms $size"
				echo "host lost ${p%%=*} $secs $r $v $(lost "$out")"
			done
		done
	done
	log "perf report start-up on the same files"
	for r in $(seq 0 $((rounds - 1))); do
		for k in 0 1; do
			v=${ids_from[(r + k) % 2]}
			for p in "$@"; do
				t0=$(ns)
				"${p#*=}" report -i "$t/${p%%=*}-$v.data" --stdio -q --sort dso >/dev/null 2>&1
				echo "host report ${p%%=*} $secs $r $v $(( ($(ns) - t0) / 1000000 ))"
			done
		done
	done
	rm -f "$t"/*.data
	log "$secs s of recording: done in $(( $(date +%s) - start ))s"
done
