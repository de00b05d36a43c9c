#!/bin/bash
# perf record --buildid-mmap end to end, for make check (host and VM):
# what perf reports for binaries replaced after recording, for threads
# that existed before perf started (-p) and for the kernel. Expected build
# IDs come from readelf -n and /sys/kernel/notes, not from perf.
# usage: perf-buildid-scenarios.sh WORKLOAD_DIR   (perf taken from PATH)
# Prints TAP lines.
set -u
w=$1
t=$(mktemp -d "${TMPDIR:-/tmp}/buildid-scenarios.XXXXXX")
trap 'kill "${bg:-}" 2>/dev/null; rm -rf "$t"' EXIT
export HOME=$t  # the build-ID cache, ~/.debug, starts empty
n=0
result() { # result NAME CMD...: "ok" when CMD succeeds
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n $name"; else echo "not ok $n $name"; fi
}
elf_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }

# The kernel's build ID, parsed here from the raw notes in sysfs.
kernel_id() {
	od -An -v -tx1 /sys/kernel/notes | tr -s ' \n' '\n' | grep . | awk '
		{ b[n++] = $1 }
		function hex(s,   v, k) {
			for (k = 1; k <= length(s); k++)
				v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
			return v
		}
		function le32(i) { return hex(b[i+3] b[i+2] b[i+1] b[i]) }
		END {
			for (i = 0; i + 12 <= n; ) {
				nsz = le32(i); dsz = le32(i + 4); type = le32(i + 8)
				name = i + 12; desc = name + int((nsz + 3) / 4) * 4
				if (type == 3 && nsz == 4 && b[name] == "47" && b[name+1] == "4e" && b[name+2] == "55") {
					for (j = 0; j < dsz; j++) printf "%s", b[desc + j]
					print ""; exit
				}
				i = desc + int((dsz + 3) / 4) * 4
			}
		}'
}

# 1. A binary replaced after recording is not symbolized from the new file;
#    with the recorded binary in the build-ID cache, that one is used. The
#    workload spends its time in main(); the new file has a main() too, at
#    the same place, but another build ID.
cp "$w/spin-sha1" "$t/spin"
cp "$w/spin-sha1" "$t/spin.orig"
perf record -q --buildid-mmap -o "$t/replaced.data" -- "$t/spin" 30000000 >/dev/null 2>&1
cp "$w/spin-md5" "$t/spin"  # same path, same code, other build ID
report() { perf report -i "$t/replaced.data" --stdio -q --sort dso,sym 2>/dev/null | grep -w spin; }
no_symbols() { [ -n "$1" ] && ! grep -q '\] main$' <<<"$1"; }
result "replaced binary: samples still in it, no symbols from the new file" \
	no_symbols "$(report)"
perf buildid-cache --add "$t/spin.orig" >/dev/null 2>&1
result "replaced binary: symbols from the build-ID cache" grep -q '\] main$' <<<"$(report)"

# 2. Threads that exist before perf starts: synthesized MMAP2 records
#    carry build IDs, and so does the kernel's.
"$w/burn" 100000 >/dev/null &
bg=$!
sleep 1
perf record -q --buildid-mmap -p "$bg" -o "$t/attach.data" -- sleep 1 >/dev/null 2>&1
kill "$bg" 2>/dev/null
mmaps=$(perf script -i "$t/attach.data" --show-mmap-events 2>/dev/null | grep PERF_RECORD_MMAP2)
result "-p: synthesized record of the running binary has its build ID" \
	grep -q "<$(elf_id "$w/burn")>\]: r-xp $w/burn\$" <<<"$mmaps"
result "-p: synthesized record of its library has its build ID" \
	grep -q "<$(elf_id "$w/libburn.so")>\]: r-xp $w/libburn.so\$" <<<"$mmaps"
kid=$(kernel_id)
has_kernel_id() { [ -n "$1" ] && grep -q "<$1>\]: .* \[kernel.kallsyms\]_text\$" <<<"$2"; }
result "kernel: synthesized record has the build ID of /sys/kernel/notes" \
	has_kernel_id "$kid" "$mmaps"
echo "1..$n"
