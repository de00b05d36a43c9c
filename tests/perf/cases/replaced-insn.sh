#!/bin/bash
# perf script -F insn prints the bytes of each sampled instruction, read
# from the DSO's file (dso__data). For a recording without build IDs
# (perf record -B), once another build is renamed over the binary, perf
# once printed that build's bytes at the samples' offsets: instructions
# that never ran. The bytes must be those printed while the file was the
# one that ran, or none.
# usage: replaced-insn.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/replaced-insn.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/unwind-prog

cp "$w/unwind-v1" "$f" || exit 1
if ! perf record -q -B -e cpu-clock:u -o "$t/rec.data" -- "$f" 300000000 >/dev/null 2>&1; then
	skip "replaced, perf script -F insn" "perf record -B does not work here"
	echo "1..$n"
	exit 0
fi
# ip and bytes of the samples in the workload's binary
insns() { perf script -F ip,dso,insn -i "$t/rec.data" 2>/dev/null | grep -F "($f)" | sed "s/^ *//; s/ *$//" | sort -u; }
insns >"$t/before"
result "the bytes of the samples while the file is the one that ran" grep -q 'insn: [0-9a-f]' "$t/before"
cp "$w/unwind-v2" "$f.new" && mv "$f.new" "$f"
insns >"$t/after"
# each line after: the same as before, or the same without bytes
only_right() {
	local ip rest
	while read -r ip rest; do
		grep -qxF "$ip $rest" "$t/before" && continue
		[[ $rest != *insn:* ]] && grep -q "^$ip " "$t/before" && continue
		echo "$ip $rest: not as before" >&2
		return 1
	done <"$t/after"
}
result "replaced: no bytes of the other build" only_right
echo "1..$n"
