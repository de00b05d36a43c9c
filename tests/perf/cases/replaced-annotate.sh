#!/bin/bash
# perf annotate runs objdump on a DSO's file. perf once checked the file
# by its name, then had objdump open that name again: a build renamed
# over the binary in between had its instructions shown for the samples
# of the one that ran. And for a recording without build IDs (perf
# record -B) it took the file at the path unchecked. The objdump given
# here renames the other build over the binary before it runs, as a
# replacement racing perf would: what perf annotate shows must still be
# the instructions of the build that ran, or none.
# usage: replaced-annotate.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/replaced-annotate.XXXXXX")
trap 'rm -rf "$t"' EXIT
unset DEBUGINFOD_URLS
f=$t/unwind-prog

# the instructions of hot_v1 in the build that ran, by the test's objdump
objdump -d --no-show-raw-insn "$w/unwind-v1" |
	awk '/^[0-9a-f]+ <hot_v1>:$/ { on = 1; next } on && /^$/ { exit }
	     on { sub(/^ *[0-9a-f]+:[ \t]*/, ""); gsub(/[ \t]+/, " "); print }' |
	sort -u >"$t/v1-insns"
# an objdump that first renames the other build over the binary
cat >"$t/swap-objdump" <<SWAP
#!/bin/sh
[ -e "$t/v2" ] && mv "$t/v2" "$f"
exec objdump "\$@"
SWAP
chmod +x "$t/swap-objdump"

# annotate DATA [OPTIONS]: the instructions perf annotate shows for hot_v1
annotate() {
	local data=$1
	shift
	perf annotate --stdio -i "$data" "$@" hot_v1 2>/dev/null |
		awk -F' : +[0-9a-f]+: +' 'NF == 2 { gsub(/[ \t]+/, " ", $2); sub(/ $/, "", $2); print $2 }' |
		sort -u
}
# only_v1 FILE: each instruction in FILE is one of hot_v1's in v1
only_v1() { [ ! -s "$1" ] || ! grep -vxFf "$t/v1-insns" "$1" >&2; }
shown_right() { [ -s "$t/before" ] && only_v1 "$t/before"; }
# the other build was renamed over the binary, and none of it shown
swapped_right() { [ ! -e "$t/v2" ] && only_v1 "$t/after"; }

# with build IDs but none cached (-N), and without build IDs (-B); each in
# a build-ID cache of its own, empty, so that the file at the path is read
for mode in build-ID no-build-ID; do
	opt=-N
	[ $mode = no-build-ID ] && opt=-B
	export HOME=$t/$mode
	mkdir "$HOME" || exit 1
	rm -f "$f"
	cp "$w/unwind-v1" "$f" || exit 1
	if ! perf record -q $opt -e cpu-clock:u -o "$t/$mode.data" -- "$f" 100000000 >/dev/null 2>&1; then
		skip "$mode: perf annotate of the file that ran" "perf record does not work here"
		skip "$mode: replaced while perf annotate runs" "perf record does not work here"
		continue
	fi
	annotate "$t/$mode.data" >"$t/before"
	result "$mode: perf annotate of the file that ran" shown_right
	cp "$w/unwind-v2" "$t/v2" || exit 1
	annotate "$t/$mode.data" --objdump="$t/swap-objdump" >"$t/after"
	result "$mode: replaced while perf annotate runs: no other build's code" swapped_right
done
echo "1..$n"
