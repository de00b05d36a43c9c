#!/bin/bash
# What perf record -a --buildid-mmap adds to the build-ID cache in a busy
# minute, for each perf given: this perf keeps every binary that runs
# while it is mapped, mainline 6.17 and later (whose default
# --buildid-mmap is) cache at their end the binaries samples hit. A first
# run into an empty cache, then a second run of the same work into the
# cache the first filled. The work: a shell loop running a mix of
# programs (coreutils, grep, sed, awk, python3, gcc) beside the burn
# workload, the same for every perf. Bytes are those of the cache's
# files (du --apparent-size; a reflink or hard link counts in full).
# Prints, for scripts/lib/bench-report:
#   host cache PERF RUN BYTES FILES
# usage: cache-bytes.sh WORKLOAD_DIR SECONDS NAME=PERF...
set -u
w=$1 secs=$2
shift 2
t=$(mktemp -d "${TMPDIR:-/tmp}/cache-bytes.XXXXXX")
trap 'rm -rf "$t"' EXIT

log() { printf '==> %s\n' "$*" >&2; }
# opts PERF: --buildid-mmap, unless it is PERF's default (6.17 and later)
opts() {
	local v
	v=$("$1" version | awk '{ print $3 }')
	[ "$(printf '%s\n6.17\n' "$v" | sort -V | head -1)" = 6.17 ] || echo --buildid-mmap
}
work() {
	local end=$((SECONDS + secs)) bg
	"$w/burn" 100000000 >/dev/null &
	bg=$!
	while [ $SECONDS -lt $end ]; do
		ls -l /usr/bin >/dev/null
		grep -c root /etc/passwd >/dev/null
		sed -n 1p /etc/os-release >/dev/null
		awk 'BEGIN { exit }'
		sort /etc/services | uniq -c >/dev/null
		python3 -c pass
		gcc --version >/dev/null
		tar cf - /etc/hostname 2>/dev/null | gzip >/dev/null
	done
	kill "$bg"
	wait
}
# bytes DIR: "BYTES FILES" of the regular files under DIR
bytes() {
	echo "$(du -s --apparent-size -B1 "$1" 2>/dev/null | cut -f1) $(find "$1" -type f 2>/dev/null | wc -l)"
}

for p in "$@"; do
	name=${p%%=*} perf=${p#*=}
	home=$t/$name
	mkdir -p "$home"
	for run in first second; do
		start=$(date +%s)
		before=$(bytes "$home/.debug")
		# shellcheck disable=SC2046 # none or one option
		HOME=$home "$perf" record -q $(opts "$perf") -a -o "$t/perf.data" -- \
			bash -c "$(declare -f work); w=$w secs=$secs work" >/dev/null 2>&1
		read -r b0 f0 <<<"$before"
		read -r b1 f1 < <(bytes "$home/.debug")
		echo "host cache $name $run $((b1 - ${b0:-0})) $((f1 - ${f0:-0}))"
		log "$name, $run run: done in $(($(date +%s) - start))s"
		rm -f "$t/perf.data"
	done
done
