#!/bin/bash
# perf report --header-only prints the feature sections of a perf.data.
# The event description is read again from the file for it, and the
# bounds this series puts on the feature counts took that read's size as
# 0: every file showed "event desc: not available". Each line must hold
# what the test finds itself: the event it recorded, this machine's host
# name, release and CPU count, the command line it ran.
# usage: header-info.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/header-info.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t

if ! perf record -q -e cpu-clock:u -o "$t/perf.data" -- "$w/burn" 5 >/dev/null 2>&1; then
	skip "header" "perf record does not work here"
	echo "1..$n"
	exit 0
fi
perf report --header-only -i "$t/perf.data" >"$t/header" 2>&1
result "event description: the recorded event with its IDs" \
	grep -q '^# event : name = cpu-clock:u, .*id = { [0-9]' "$t/header"
result "no 'event desc: not available'" not_grep 'event desc: not available' "$t/header"
result "hostname: uname -n" grep -qxF "# hostname : $(uname -n)" "$t/header"
result "os release: uname -r" grep -qxF "# os release : $(uname -r)" "$t/header"
result "CPUs online: getconf" grep -qx "# nrcpus online : $(getconf _NPROCESSORS_ONLN)" "$t/header"
result "cmdline: the recording's" grep -qF "record -q -e cpu-clock:u -o $t/perf.data -- $w/burn 5" "$t/header"
echo "1..$n"
