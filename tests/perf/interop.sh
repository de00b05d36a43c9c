#!/bin/bash
# perf.data made with perf record --buildid-mmap moves freely between this
# tree's perf and a mainline perf (Debian's linux-perf), both ways: each
# reads the other's file with the same build IDs and the same top symbols
# as the perf that wrote it.
# usage: interop.sh OUR_PERF MAINLINE_PERF WORKLOAD_DIR
# Prints result lines for make check.
set -u
ours=$1 theirs=$2 w=$(realpath "$3")
t=$(mktemp -d "${TMPDIR:-/tmp}/perf-interop.XXXXXX")
trap 'rm -rf "$t"' EXIT

if [ ! -x "$theirs" ]; then
	echo "FAIL interop/mainline-perf # $theirs not found: apt-get install linux-perf"
	exit 0
fi
ver=$("$theirs" version 2>/dev/null | awk '{ print $3 }')

ids() { "$1" buildid-list -i "$2" 2>/dev/null | grep -E ' [^ ]*/(burn|libburn\.so)$' | sort; }
top() { "$1" report -i "$2" --stdio -q --sort sym 2>/dev/null | awk 'NF { print $NF }' | head -3 | sort; }
check() { # check NAME A B
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		echo "PASS interop/$1"
	else
		printf '%s:\n%s\n-- versus --\n%s\n' "$1" "$2" "$3" >&2
		echo "FAIL interop/$1"
	fi
}

for writer in ours theirs; do
	if [ $writer = ours ]; then wp=$ours rp=$theirs; else wp=$theirs rp=$ours; fi
	data=$t/$writer.data
	if ! "$wp" record -q --buildid-mmap -o "$data" -- "$w/burn" 30 >/dev/null 2>"$t/err"; then
		cat "$t/err" >&2
		echo "FAIL interop/$writer-records # perf record --buildid-mmap failed"
		continue
	fi
	expect=$(for f in "$w/burn" "$w/libburn.so"; do
		printf '%s %s\n' "$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')" "$f"
	done | sort)
	name=$([ $writer = ours ] && echo "patched-to-$ver" || echo "$ver-to-patched")
	check "$name/build-ids-as-readelf" "$(ids "$rp" "$data")" "$expect"
	check "$name/same-top-symbols" "$(top "$rp" "$data")" "$(top "$wp" "$data")"
done

# Mainline perf adds sample fields this tree's perf does not parse: -W
# sets WEIGHT_STRUCT, --data-page-size and --code-page-size add fields.
# Reading such a file must fail and name the bits (mainline's perf
# evlist says which are set), never print samples read from the wrong
# places. -d --phys-data only add fields both know.
data=$t/newer-bits.data
if ! "$theirs" record -q -W -d --phys-data --data-page-size --code-page-size \
	-o "$data" -- "$w/burn" 30 >/dev/null 2>"$t/err"; then
	echo "SKIP interop/$ver-newer-sample-bits # $theirs record -W -d --phys-data failed: $(head -1 "$t/err")"
else
	set_bits=$("$theirs" evlist -v -i "$data" 2>/dev/null | grep -o 'sample_type: [^,]*' |
		tr '|' '\n' | grep -xE 'WEIGHT_STRUCT|DATA_PAGE_SIZE|CODE_PAGE_SIZE' | sort -u)
	if [ -z "$set_bits" ]; then
		echo "SKIP interop/$ver-newer-sample-bits # no bit unknown to the patched perf was set"
	elif out=$("$ours" report -i "$data" --stdio 2>"$t/err"); then
		printf 'the patched perf read a file with %s:\n%s\n' "$set_bits" "$out" >&2
		echo "FAIL interop/$ver-newer-sample-bits"
	else
		named=$(for b in $set_bits; do grep -qw "$b" "$t/err" && echo "$b"; done)
		if [ "$named" = "$set_bits" ] && ! grep -q '%' <<<"$out"; then
			echo "PASS interop/$ver-newer-sample-bits"
		else
			cat "$t/err" >&2
			echo "FAIL interop/$ver-newer-sample-bits # refused without naming $set_bits"
		fi
	fi
fi
