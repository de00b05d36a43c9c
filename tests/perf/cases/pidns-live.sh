#!/bin/bash
# A process in a container of its own (mount and PID namespaces, its own
# /proc), profiled from outside and read while it runs: perf enters the
# container's mount namespace to open its files, where /proc is the
# container's and has no entry for perf. The series once proved files
# through /proc/self there, found nothing, and gave the container's
# binaries no symbols (without build ID) and no bytes (perf script -F
# insn, with one). Symbols from nm of the binary, bytes as perf prints
# them with the file there.
# usage: pidns-live.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/pidns-live.XXXXXX")
pids=
# shellcheck disable=SC2086 # a list of PIDs
trap 'kill -KILL $pids 2>/dev/null; rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS

# start V: the workload V running in new mount and PID namespaces with
# their own /proc; sets pid (the workload's, as perf sees it)
start() {
	cp "$w/$1" "$t/$1" || exit 1
	unshare -m -p -f --mount-proc "$t/$1" 1000000000000 >/dev/null 2>&1 &
	pid=
	for _ in $(seq 50); do
		pid=$(pgrep -f -x -- "$t/$1 1000000000000") && break
		sleep 0.1
	done
	# the workload, which unshare's end would not end (SIGKILL: it
	# is the init of its PID namespace, which ignores SIGTERM)
	pids="$pids $! $pid"
	disown
}
if ! unshare -m -p -f --mount-proc true 2>/dev/null; then
	skip "no build ID: the container's symbols" "unshare cannot make PID namespaces here"
	skip "build ID: the container's instruction bytes" "unshare cannot make PID namespaces here"
	echo "1..$n"
	exit 0
fi

start spin-none
perf record -q -B -e cpu-clock:u -p "$pid" -o "$t/none.data" -- sleep 0.5 >/dev/null 2>&1
main=$(nm "$t/spin-none" | awk '$3 == "main" { print $3 }')
# has_main: perf report names nm's main for the container's samples
has_main() {
	[ -n "$main" ] && perf report --stdio --sort dso,sym -i "$t/none.data" 2>/dev/null |
		awk '$2 == "spin-none" { print $4 }' | grep -qx "$main"
}
result "no build ID: the container's symbols" has_main

start spin-sha1
perf record -q --buildid-mmap -e cpu-clock:u -p "$pid" -o "$t/id.data" -- sleep 0.5 >/dev/null 2>&1
# has_bytes: perf script prints bytes for the container's samples
has_bytes() {
	perf script -F ip,dso,insn -i "$t/id.data" 2>/dev/null | grep -F "($t/spin-sha1)" |
		grep -q "insn: [0-9a-f]"
}
result "build ID: the container's instruction bytes" has_bytes
echo "1..$n"
