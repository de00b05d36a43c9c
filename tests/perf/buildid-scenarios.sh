#!/bin/bash
# perf record --buildid-mmap end to end, for make check (host and VM):
# what perf reports and injects for binaries replaced after recording,
# for a library the kernel could not read a build ID from, for malformed
# records, for threads that existed before perf started (-p) and for the
# kernel; for one path that was two binaries in one session (inject -b
# and --buildid-all, buildid-list, report --tasks --mmaps), for the
# map-parse timeout and for a binary replaced before perf attached.
# Expected build IDs come from readelf -n and /sys/kernel/notes, and the
# build-ID records perf inject writes are read from the raw bytes of
# perf report -D, not from perf's own parsing.
# usage: buildid-scenarios.sh WORKLOAD_DIR   (perf taken from PATH)
# Prints TAP lines.
set -u
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/buildid-scenarios.XXXXXX")
trap 'kill "${bg:-}" "${bg2:-}" 2>/dev/null; rm -rf "$t"' EXIT
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
#    the same place, but another build ID. (-N: perf record keeps no copy
#    of the binary in the cache, as before patch 73 or for a binary it
#    could not keep; tests/perf/cases/keep-binaries.sh tests the keeping.)
cp "$w/spin-sha1" "$t/spin"
cp "$w/spin-sha1" "$t/spin.orig"
perf record -q -N --buildid-mmap -o "$t/replaced.data" -- "$t/spin" 30000000 >/dev/null 2>&1
cp "$w/spin-md5" "$t/spin"  # same path, same code, other build ID
report() { perf report -i "$t/replaced.data" --stdio -q --sort dso,sym 2>/dev/null | grep -w spin; }
no_symbols() { [ -n "$1" ] && ! grep -q '\] main$' <<<"$1"; }
result "replaced binary: samples still in it, no symbols from the new file" \
	no_symbols "$(report)"
perf buildid-cache --add "$t/spin.orig" >/dev/null 2>&1
result "replaced binary: symbols from the build-ID cache" grep -q '\] main$' <<<"$(report)"

# 2. perf inject passes the build IDs on: as they are, and with -b as
#    build-ID records for the DSOs with samples, the recorded binary's ID
#    and not that of the file now on disk.
perf inject -i "$t/replaced.data" -o "$t/injected.data" 2>/dev/null
result "inject: MMAP2 records keep their build IDs" \
	grep -q "<$(elf_id "$t/spin.orig")>\]: r-xp $t/spin\$" \
	<<<"$(perf script -i "$t/injected.data" --show-mmap-events 2>/dev/null)"
perf inject -b -i "$t/replaced.data" -o "$t/injected-b.data" 2>/dev/null
ids=$(perf buildid-list -i "$t/injected-b.data" 2>/dev/null)
recorded_not_new() { grep -qx "$1 $t/spin" <<<"$3" && ! grep -q "$2" <<<"$3"; }
result "inject -b: the recorded build ID, not the replacement's" \
	recorded_not_new "$(elf_id "$t/spin.orig")" "$(elf_id "$t/spin")" "$ids"

# 3. A library whose pages are not cached when it is mapped: the kernel
#    cannot read its build ID and gives the classic record; perf still
#    resolves its symbols, reading the file. map-uncached evicts the file
#    and runs burn_lib from it (at its file offset, computed here).
cp "$w/libburn.so" "$t/libuncached.so"
sym=$(readelf -sW "$t/libuncached.so" | awk '$8 == "burn_lib" { print $2; exit }')
off=
while read -r o a z; do  # the executable PT_LOAD holding burn_lib
	if ((0x$sym >= a && 0x$sym < a + z)); then
		off=$((0x$sym - a + o))
	fi
done < <(readelf -lW "$t/libuncached.so" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 ~ /E/) { print $2, $3, $5 }')
if [ -n "$off" ]; then
	# -N: the kernel's own record, nothing filled in by perf record
	perf record -q -N --buildid-mmap -o "$t/uncached-n.data" -- \
		"$w/map-uncached" "$t/libuncached.so" "$off" 300 >/dev/null 2>"$t/uncached.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		perf record -q --buildid-mmap -o "$t/uncached.data" -- \
			"$w/map-uncached" "$t/libuncached.so" "$off" 300 >/dev/null 2>"$t/uncached.err"
		rc=$?
	fi
else
	echo "burn_lib not found in the program headers of libburn.so" >&2
	rc=1
fi
if [ "$rc" -eq 2 ]; then
	n=$((n + 1))
	echo "ok $n uncached library # SKIP $(cat "$t/uncached.err")"
else
	mmap_of() {
		perf script -i "$1" --show-mmap-events 2>/dev/null |
			grep "PERF_RECORD_MMAP2.* r-xp $t/libuncached.so\$"
	}
	classic() { [ -n "$1" ] && ! grep -q '<[0-9a-f]*>' <<<"$1"; }
	uid=$(readelf -n "$t/libuncached.so" | awk '/Build ID:/ { print $3 }')
	result "uncached library: the kernel's record is classic (no build ID, -N)" \
		classic "$(mmap_of "$t/uncached-n.data")"
	result "uncached library: perf record fills in readelf's build ID" \
		grep -q "<$uid>" <<<"$(mmap_of "$t/uncached.data")"
	result "uncached library: perf report still resolves its symbols" \
		grep -q 'libuncached.so *\[\.\] burn_lib' \
		<<<"$(perf report -i "$t/uncached.data" --stdio -q --sort dso,sym 2>/dev/null)"
	# then another file renamed over it (unwind-v2, whose code lies at
	# burn_lib's offset): the record names the build ID, whose binary
	# perf record kept: its symbols, none of the file now at its path
	cp "$w/unwind-v2" "$t/libuncached.so.new" && mv "$t/libuncached.so.new" "$t/libuncached.so"
	syms=$(perf report -i "$t/uncached.data" --stdio -q --sort dso,sym 2>/dev/null |
		grep 'libuncached.so *\[\.\] ' | grep -v '\[\.\] 0x' | awk '{ print $NF }' | sort -u)
	result "uncached library, replaced: the recorded build's symbols, none of the file now at its path" \
		[ "$syms" = burn_lib ]
	[ "$syms" = burn_lib ] || echo "$syms" >&2
fi

# 4. Malformed MMAP2 records (perfdata-mangle breaks those with a build
#    ID in a recorded file): every tool exits normally, warns once, and
#    uses no ID from them (an invalid size is shown as such).
perf record -q --buildid-mmap -o "$t/good.data" -- "$w/spin-sha1" 1000000 >/dev/null 2>&1
copes() { # copes MODE: perf script, report, buildid-list and inject
	local m=$1 d=$t/$1.data out err tool
	[ "$("$w/perfdata-mangle" "$t/good.data" "$d" "$m")" -gt 0 ] || return 1
	for tool in "script --show-mmap-events" "report --stdio" buildid-list \
		"inject -b -o $t/$m.injected"; do
		# shellcheck disable=SC2086  # the tool's words
		out=$(perf $tool -i "$d" 2>"$t/$m.err") || return 1
		err=$(grep -c 'PERF_RECORD_MMAP2' "$t/$m.err")
		[ "$err" -eq 1 ] || { echo "$m: perf $tool warned $err times" >&2; return 1; }
		case $tool in
		script*)
			! grep -Eq '<[0-9a-f]+>' <<<"$out" || return 1
			[ "$m" = nonul ] || grep -q "<invalid build id size ${m#size}>" <<<"$out" ||
				return 1 ;;
		buildid-list) [ -z "$out" ] || return 1 ;;
		esac
	done
}
for m in size0 size21 size255 nonul; do
	result "malformed MMAP2 records ($m): one warning, no ID used, no crash" copes "$m"
done

# 5. Threads that exist before perf starts: synthesized MMAP2 records
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

# Build-ID records (PERF_RECORD_HEADER_BUILD_ID) in a perf.data file, as
# "ID PATH", read here from perf report -D's raw dump of each record:
# the ID is build_id_size bytes long when misc has bit 15, else 20.
build_id_records() {
	perf report -D -i "$1" 2>/dev/null | awk '
		/^0x[0-9a-f]+ \[0x[0-9a-f]+\]: event: / { r = ($NF == 67); n = 0; next }
		r && /^\.  [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:  / {
			for (i = 3; i <= 18 && $i ~ /^[0-9a-f][0-9a-f]$/; i++) b[n++] = $i
			next
		}
		r && n { dump(); r = 0 }
		END { if (r && n) dump() }
		function dump(   misc, size, id, name, i) {
			misc = b[5] b[4]
			size = (substr(misc, 1, 1) ~ /[89a-f]/) ? hex(b[32]) : 20
			for (i = 0; i < size; i++) id = id b[12 + i]
			for (i = 36; i < n && b[i] != "00"; i++) name = name sprintf("%c", hex(b[i]))
			print id, name
		}
		function hex(s,   v, k) {
			for (k = 1; k <= length(s); k++)
				v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
			return v
		}'
}

# 6. One path, two files: a binary replaced between two runs in one
#    session (the recorded IDs, sha1 and md5), then replaced again on disk
#    after recording (a third ID, which no tool may report). perf inject
#    -b and --buildid-all write one build-ID record per ID, with the ID's
#    own bytes and size, and perf buildid-list lists both IDs.
sha1=$(elf_id "$w/spin-sha1") md5=$(elf_id "$w/spin-md5")
cp "$w/spin-sha1" "$t/two"
# Each run is forked and then exec()s 50 ms later: where the guest's
# clock is the jiffy (4 ms; a TCG guest whose TSC did not calibrate) the
# FORK record and the child's MMAP2 records can get one timestamp, and
# perf sorts them either way; when the FORK comes second, perf (mainline's
# as well) replaces the child by a copy of its parent without the
# binary's map, and none of its samples hit the binary. (The same for 7.)
# shellcheck disable=SC2016  # expanded by the inner bash
perf record -q --buildid-mmap -o "$t/two.data" -- bash -c \
	'run() { (sleep 0.05; exec "$@"); }
	run "$1" 30000000; cp "$2" "$1.new" && mv "$1.new" "$1" && run "$1" 30000000' \
	_ "$t/two" "$w/spin-md5" >/dev/null 2>&1
cp "$w/spin-8" "$t/two.new" && mv "$t/two.new" "$t/two"
exactly() { # exactly WANT GOT: the same lines, in any order
	[ "$(sort <<<"$1")" = "$(sort <<<"$2")" ] ||
		{ printf 'want:\n%s\ngot:\n%s\n' "$1" "$2" >&2; return 1; }
}
perf inject -b -i "$t/two.data" -o "$t/two-b.data" 2>"$t/two-b.err"
# both IDs in the injected records; on a failure also what the recording
# holds for the path, and what inject said
inject_b_both() {
	exactly "$sha1 $t/two"$'\n'"$md5 $t/two" "$(build_id_records "$t/two-b.data" | grep " $t/two\$")" &&
		return 0
	echo "# inject -b: $(tr '\n' ' ' <"$t/two-b.err")" >&2
	perf script -i "$t/two.data" --show-mmap-events -F pid,time,ip,dso 2>&1 |
		grep -E "MMAP|$t/two" | awk '/MMAP/ || !seen[$1 $NF]++' | head -20 | sed 's/^/# /' >&2
	return 1
}
result "one path, two IDs: inject -b writes a build-ID record for each, sized" inject_b_both
result "one path, two IDs: buildid-list after inject -b lists both" \
	exactly "$sha1 $t/two"$'\n'"$md5 $t/two" \
	"$(perf buildid-list -i "$t/two-b.data" 2>/dev/null | grep " $t/two\$" | tr -s ' ')"
perf inject --buildid-all -i "$t/two.data" -o "$t/two-all.data" 2>/dev/null
result "inject --buildid-all: the recorded IDs, not the file now on disk" \
	exactly "$sha1 $t/two"$'\n'"$md5 $t/two" "$(build_id_records "$t/two-all.data" | grep " $t/two\$")"
result "inject --buildid-all: buildid-list lists both, not the file on disk" \
	exactly "$sha1 $t/two"$'\n'"$md5 $t/two" \
	"$(perf buildid-list -i "$t/two-all.data" 2>/dev/null | grep " $t/two\$" | tr -s ' ')"

# 7. One path, a record with a build ID and a classic one (the binary
#    replaced by one without a build ID): perf report --tasks --mmaps
#    shows the ID for the first and the inode for the second, and after
#    inject -b only the recorded ID is listed for the path.
cp "$w/spin-sha1" "$t/mix"
cp "$w/spin-none" "$t/mix.none"
ino_none=$(stat -c %i "$t/mix.none")
# shellcheck disable=SC2016  # expanded by the inner bash
perf record -q --buildid-mmap -o "$t/mix.data" -- bash -c \
	'run() { (sleep 0.05; exec "$@"); }
	run "$1" 30000000; mv "$2" "$1" && run "$1" 30000000' \
	_ "$t/mix" "$t/mix.none" >/dev/null 2>&1
maps=$(perf report -i "$t/mix.data" --tasks --mmaps 2>/dev/null | grep " $t/mix\$")
both() { grep -q " r-xp [0-9a-f]* <$sha1> $t/mix\$" <<<"$1" &&
	 grep -q " r-xp [0-9a-f]* $ino_none $t/mix\$" <<<"$1"; }
result "ID and classic record: report --tasks --mmaps shows the ID and the inode" \
	both "$maps"
perf inject -b -i "$t/mix.data" -o "$t/mix-b.data" 2>/dev/null
result "ID and classic record: inject -b lists the recorded ID only" \
	exactly "$sha1 $t/mix" \
	"$(perf buildid-list -i "$t/mix-b.data" 2>/dev/null | grep " $t/mix\$" | tr -s ' ')"

# 8. The map-parse timeout (--proc-map-timeout=0: at the first line of
#    each process): the timed-out line of a binary without a build ID
#    keeps its classic fields, not the build ID bit of the process before.
"$w/burn" 100000000 >/dev/null &
bg=$!
cp "$w/spin-none" "$t/noid"
"$t/noid" 100000000000 &
bg2=$!
# both must have exec()ed (a slow guest may take over a second to), or
# the first line of their maps is the shell's
running() { # running PID FILE: wait until PID runs FILE, 20 s at most
	for _ in $(seq 200); do
		[ "$(readlink "/proc/$1/exe")" = "$2" ] && return 0
		sleep 0.1
	done
	echo "process $1 did not exec $2 in 20 s" >&2
	return 1
}
running "$bg" "$(realpath "$w/burn")"
running "$bg2" "$(realpath "$t/noid")"
perf record -q --buildid-mmap --proc-map-timeout=0 -p "$bg,$bg2" -o "$t/timeout.data" \
	-- sleep 0.5 >/dev/null 2>&1
kill "$bg" "$bg2" 2>/dev/null
mmaps=$(perf script -i "$t/timeout.data" --show-mmap-events 2>/dev/null | grep PERF_RECORD_MMAP2)
# Where the clock is coarse (jiffies in the TCG guest), no time may have
# passed at the first line: perf then reads on and synthesizes the
# executable mappings only (r-xp rather than the timed-out r--p line).
# Either way no line of noid may carry an ID.
inode_no_id() { # inode_no_id LINES INODE: a line with the inode, none with an ID
	grep -q " [0-9a-f]*:[0-9a-f]* $2 0\]: r-[-x]p $t/noid\$" <<<"$1" && ! grep -q "<" <<<"$1"
}
result "map-parse timeout: an ELF file's timed-out line has its build ID" \
	grep -q "<$(elf_id "$w/burn")>\]: r-[-x]p $w/burn\$" <<<"$mmaps"
result "map-parse timeout: the next process's line keeps its inode, no ID" \
	inode_no_id "$(grep " $t/noid\$" <<<"$mmaps")" "$(stat -c %i "$t/noid")"

# 9. -p with a binary replaced after it started: the synthesized record
#    has the ID of the binary that runs (read through
#    /proc/PID/map_files/, so as root), not none and not the new file's.
if [ "$(id -u)" = 0 ]; then
	cp "$w/spin-sha1" "$t/gone"
	"$t/gone" 100000000000 &
	bg=$!
	sleep 0.5
	cp "$w/spin-md5" "$t/gone.new" && mv "$t/gone.new" "$t/gone"
	perf record -q --buildid-mmap -p "$bg" -o "$t/gone.data" -- sleep 0.3 >/dev/null 2>&1
	kill "$bg" 2>/dev/null
	result "-p, binary replaced since it started: the ID of the one that runs" \
		grep -q "<$sha1>\]: r-xp $t/gone (deleted)\$" \
		<<<"$(perf script -i "$t/gone.data" --show-mmap-events 2>/dev/null)"
else
	n=$((n + 1))
	echo "ok $n -p, binary replaced since it started # SKIP not root"
fi
echo "1..$n"
