#!/bin/bash
# Symbols from a separate debug file when the text mapping is split: a
# program that changes part of its own code mapping before it runs its hot
# function (an mprotect() to RWX and back, as hot patching does, or an
# madvise(MADV_HUGEPAGE) of part of it) is recorded with perf record
# --buildid-mmap, launched and attached to (-p, the maps then come from
# /proc/PID/maps, pieces and all); then the binary is deleted and only its
# debug file (objcopy --only-keep-debug, in a build-ID debug tree under
# --symfs) is left. Every sample in the program must get the symbol of its
# address or none: the expected symbol is computed here, from the map the
# records give (start, pgoff), the binary's program headers (readelf -lW)
# and its symbol table (nm) of a copy kept aside. A wrong symbol fails;
# missing ones are counted and shown. The program without a split must get
# all its symbols. An address in no sized symbol (a PLT stub) that perf
# names by a symbol without a size (_init, stretched to the next symbol,
# as mainline does) is neither: counted apart, as tests/perf/oracle.sh
# counts it "unsure" (one sample in a few hundred lands there, now and
# then: it failed make check at random).
# With --check, a recording made elsewhere (another architecture, another
# page size: tier 42's arm64 guests) is checked the same way: BINARY is
# the program as recorded, APP the path it ran under there, "all" asks
# for a symbol on every sample; NM and OBJCOPY name the binutils for its
# architecture.
# usage: split-text.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
#        split-text.sh --check NAME BINARY PERF_DATA APP [all]
set -u
. "$(dirname "$0")/../tap.sh"
if [ "${1:-}" = --check ]; then
	[ $# -ge 5 ] || { echo "usage: $0 --check NAME BINARY PERF_DATA APP [all]" >&2; exit 1; }
else
	[ -d "${1:-}" ] || { echo "usage: $0 WORKLOAD_DIR" >&2; exit 1; }
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/split-text.XXXXXX")
trap 'kill "${bg:-}" 2>/dev/null; rm -rf "$t"' EXIT
export HOME=$t/home
mkdir -p "$HOME" "$t/keep" "$t/symfs/usr/lib/debug/.build-id"
n=0
finish() {
	echo "1..$n"
	exit 0
}

# prepare V: the debug file of the program $t/keep/split-V in the
# build-ID tree, its code segment and its symbols, for the arithmetic below
prepare() {
	local id dbg
	id=$(readelf -n "$t/keep/split-$1" | awk '/Build ID:/ { print $3; exit }')
	dbg=$t/symfs/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	mkdir -p "${dbg%/*}"
	result "$1: the debug file is in the build-ID tree" \
		"${OBJCOPY:-objcopy}" --only-keep-debug "$t/keep/split-$1" "$dbg"
	readelf -lW "$t/keep/split-$1" |
		awk '$1 == "LOAD" && ($7 $8) ~ /E/ { print $2, $3, $5 }' >"$t/keep/split-$1.load"
	"${NM:-nm}" -S --defined-only "$t/keep/split-$1" |
		awk 'NF == 4 && $3 ~ /^[tTiW]$/ { print $1, $2, $4 }' >"$t/keep/split-$1.syms"
}

if [ "$1" != --check ] &&
	! perf record -q --buildid-mmap -o "$t/probe.data" -- true >/dev/null 2>&1; then
	echo "ok 1 # SKIP perf record --buildid-mmap does not work here"
	echo "1..1"
	exit 0
fi

# The program: tests/programs/split-text.c (it splits its code mapping
# before it runs hot_function), built here twice, as PIE and not.
src=$(cd "$(dirname "$0")/../../programs" && pwd)
salt="\"$(date +%s%N)-$$\""
# (a recording made elsewhere brings its own)
[ "$1" = --check ] ||
for v in pie nopie; do
	flags=-pie
	[ "$v" = nopie ] && flags=-no-pie
	if ! gcc -g -O1 -fno-toplevel-reorder "$flags" -DSALT="$salt" -Wl,--build-id \
		-o "$t/keep/split-$v" "$src/split-text.c"; then
		result "build the $v test program" false
		finish
	fi
	prepare "$v"
done

# expect V ADDR: the functions of the program V at file offset ADDR (hex)
# of its code segment, from its own headers and symbols: all names the
# address has (a static libc's aliases), space-separated; "" when none
expect() {
	local off vaddr fsize va val size name names=
	read -r off vaddr fsize <"$t/keep/split-$1.load"
	if (($2 < off || $2 >= off + fsize)); then
		echo "?"
		return
	fi
	va=$(($2 - off + vaddr))
	while read -r val size name; do
		if ((va >= 0x$val && va < 0x$val + 0x$size)); then
			names+="${names:+ }$name"
		fi
	done <"$t/keep/split-$1.syms"
	echo "$names"
}

# check_case NAME V DATA APP [all]: every sample of APP in DATA (all: and
# every one with a symbol)
check_case() {
	local name=$1 v=$2 data=$3 app=$4 maps=() line ip sym cnt i s l p
	local total=0 wrong=0 missing=0 unsure=0 exp off hot=0
	# the records of APP's mappings, in order, as "start len pgoff"
	while read -r line; do
		maps+=("$line")
	done < <(perf script -i "$data" --show-mmap-events 2>/dev/null |
		grep -F "PERF_RECORD_MMAP2" | grep -F " $app" |
		sed -nE 's/.*\[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x)?([0-9a-f]+) .*/\1 \2 \4/p')
	if [ ${#maps[@]} = 0 ]; then
		result "$name: records of the program's mappings" false
		return
	fi
	: >"$t/wrong"
	while read -r cnt ip sym; do
		total=$((total + cnt))
		off=
		# the latest record that covers ip
		for ((i = ${#maps[@]} - 1; i >= 0; i--)); do
			read -r s l p <<<"${maps[i]}"
			if ((0x$ip >= 0x$s && 0x$ip < 0x$s + 0x$l)); then
				off=$((0x$ip - 0x$s + 0x$p))
				break
			fi
		done
		if [ -z "$off" ]; then
			echo "$cnt x $ip $sym: in no recorded mapping" >>"$t/wrong"
			wrong=$((wrong + cnt))
			continue
		fi
		exp=$(expect "$v" "$off")
		[[ " $exp " == *" hot_function "* ]] && hot=$((hot + cnt))
		if [ "$sym" = "[unknown]" ]; then
			missing=$((missing + cnt))
		elif [ -z "$exp" ] && ! cut -d' ' -f3 "$t/keep/split-$v.syms" | grep -qxF -- "$sym"; then
			# in no sized symbol (a PLT stub), named by one without a
			# size (_init), which perf stretches to the next symbol:
			# neither right nor wrong, as the oracle counts it
			unsure=$((unsure + cnt))
		elif [[ " $exp " != *" $sym "* ]]; then
			printf '%s x %s (file offset %#x): %s, not %s\n' "$cnt" "$ip" "$off" \
				"$sym" "${exp:-no symbol}" >>"$t/wrong"
			wrong=$((wrong + cnt))
		fi
	done < <(perf script -i "$data" --symfs "$t/symfs" -F ip,sym,dso 2>/dev/null |
		awk -v dso="($app)" '$NF == dso { print $1, $2 }' | sort | uniq -c)
	echo "# $name: $total samples in the program ($hot in hot_function), $wrong wrong, $missing without a symbol, $unsure in no sized symbol"
	sed 's/^/#   /' "$t/wrong" | head -5
	result "$name: samples in hot_function" [ "$hot" -gt 0 ]
	result "$name: no wrong symbol" [ "$wrong" = 0 ]
	[ "${5:-}" = all ] &&
		result "$name: every sample has its symbol" [ "$missing" = 0 ]
}

# run_case HOW MODE V: record the program V with HOW (none, hotpatch,
# madvise), launched or attached, then check it with the binary gone
run_case() {
	local how=$1 mode=$2 v=$3 name=$1/$2/$3 app data
	app=$t/app-$how-$mode-$v/split
	data=$t/$how-$mode-$v.data
	mkdir -p "${app%/*}"
	cp "$t/keep/split-$v" "$app"
	if [ "$mode" = launch ]; then
		HOME=$t/home-rec perf record -q --buildid-mmap -o "$data" -- \
			"$app" "$how" 300000000 >/dev/null 2>"$t/record.err"
	else
		"$app" "$how" 100000000000 "$t/ready" &
		bg=$!
		for _ in $(seq 100); do
			[ -e "$t/ready" ] && break
			sleep 0.1
		done
		HOME=$t/home-rec perf record -q --buildid-mmap -p "$bg" -o "$data" -- \
			sleep 1 >/dev/null 2>"$t/record.err"
		kill "$bg"
		wait "$bg" 2>/dev/null
		bg=
		rm -f "$t/ready"
	fi
	if [ ! -s "$data" ]; then
		sed 's/^/# /' "$t/record.err"
		result "$name: perf record --buildid-mmap" false
		return
	fi
	rm -f "$app"
	check_case "$name" "$v" "$data" "$app" "$([ "$how$mode$v" != nonelaunchpie ] || echo all)"
}

if [ "$1" = --check ]; then
	# named after the case, so that each case's results have names of
	# their own
	v=${2//\//-}
	cp "$3" "$t/keep/split-$v" && prepare "$v"
	check_case "$2" "$v" "$4" "$5" "${6:-}"
	finish
fi
mkdir -p "$t/home-rec"
run_case none launch pie
run_case hotpatch launch pie
run_case madvise launch pie
run_case hotpatch attach pie
run_case madvise attach pie
run_case hotpatch launch nopie
run_case hotpatch attach nopie
finish
