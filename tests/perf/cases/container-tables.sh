#!/bin/bash
# A process in a mount namespace of its own, profiled and read while it
# runs, whose binary's path holds another build outside it (a container's
# /usr/bin/app and the host's). perf opens the container's file in the
# container's namespace, but once handed its name on to readers that
# open it again in perf's own: addr2line (perf report --sort srcline) and
# libunwind's .debug_frame reader (perf report -g of a --call-graph dwarf
# recording, with a perf built with libunwind) read the host's build and
# gave its source lines and wrong frames. With the host's file the same
# build as the container's, those readers are right either way: that
# report is the reference, and with the other build outside, the report
# must be the same. The workload has no .eh_frame (its unwinding tables
# are in .debug_frame only), as code built without unwind tables has.
# usage: container-tables.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/container-tables.XXXXXX")
pid=
trap 'kill -KILL $pid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
app=$t/c/app
mkdir "$t/c"
cp "$w/unwind-noeh-v1" "$t/v1" && cp "$w/unwind-noeh-v2" "$t/v2" || exit 1

# the container: its own tmpfs over $t/c, v1 in it as app, running
# shellcheck disable=SC2016 # expanded by the container's shell
unshare -m sh -c 'mount -t tmpfs none "$1" && cp "$2" "$1/app" && exec "$1/app" 1000000000000' \
	sh "$t/c" "$t/v1" >/dev/null 2>&1 &
disown
for _ in $(seq 50); do
	pid=$(pgrep -f -x -- "$app 1000000000000") && break
	sleep 0.1
done
if [ -z "$pid" ]; then
	skip "srcline" "unshare -m cannot mount a tmpfs here"
	skip "dwarf chains" "unshare -m cannot mount a tmpfs here"
	echo "1..$n"
	exit 0
fi
if ! perf record -q --buildid-mmap --call-graph dwarf -e cpu-clock:u -F 499 -p "$pid" \
	-o "$t/rec.data" -- sleep 0.5 >/dev/null 2>&1; then
	skip "srcline" "perf record --buildid-mmap --call-graph dwarf does not work here"
	skip "dwarf chains" "perf record --buildid-mmap --call-graph dwarf does not work here"
	echo "1..$n"
	exit 0
fi

# the source lines of the workload's samples, and the chains
srclines() {
	timeout -k 5 60 perf report --stdio --no-children --sort dso,srcline -g none -i "$t/rec.data" 2>/dev/null |
		awk '$2 == "app" { print $3 }' | sort -u
}
chains() {
	timeout -k 5 60 perf report -g caller --no-children --stdio -i "$t/rec.data" 2>/dev/null |
		grep -v '^#' | grep .
}

# the reference: the same build outside as in the container
cp "$t/v1" "$app"
srclines >"$t/lines.same"
chains >"$t/chains.same"
result "the reference: source lines of the workload" grep -q 'unwind-build\.c:[0-9]' "$t/lines.same"
result "the reference: hot_v1's chain through outer_v1" grep -q 'outer_v1' "$t/chains.same"

# another build outside: the container's file must still be what is read
cp "$t/v2" "$app.new" && mv "$app.new" "$app"
srclines >"$t/lines.other"
chains >"$t/chains.other"
result "another build outside: the container's source lines" cmp -s "$t/lines.same" "$t/lines.other"
result "another build outside: the container's chains" cmp -s "$t/chains.same" "$t/chains.other"
echo "1..$n"
