#!/bin/bash
# The guest half of make bench, run in the VM on each kernel: prints
# result lines for scripts/lib/bench-report (the host half).
#   mmap ROUND FILE VARIANT NS_PER_PAIR       (tests/bench/mmap-cost)
#   exec ROUND WORKLOAD VARIANT NS EXECS      (no profiler, perf record -a,
#                                              perf record -a --buildid-mmap)
#   cover WORKLOAD FILE_MAPS WITH_ID NO_NOTE NOT_FOUND ANON
#   tag TAG NAME VARIANT KIND N     (what each tag of QEMU's instruction
#                                    counter counts, when it runs: N
#                                    mmap()s of file NAME or N execs of
#                                    workload NAME (KIND mmap or exec) a
#                                    span, under VARIANT)
# usage: bench.sh WORKLOAD_DIR BENCH_DIR LIBC
# (LIBC: the C library /usr/bin/true links, its path on the host)
# Environment (per boot; scripts/bench boots each kernel BOOTS times):
# MMAP_ROUNDS (3), MMAPS (20000 pairs per round and variant),
# EXEC_ROUNDS (3), EXECS (150 fork+execs per round and variant),
# SHELL_ROUNDS (12 rounds of the script, 5 execs each), LISTENER_EXECS
# (unset: fork+execs under exec-loop's own listeners, for the instruction
# counter: the kernel's part of the cost alone). Many short rounds
# rather than a few long ones: the variants take turns, and the median of
# the per-round ratios is robust to a round that the machine slowed down.
set -eu
w=$1 b=$2 libc=$3
cd /scratch
# progress on stderr, with the seconds since the previous line
t=$(date +%s)
progress() {
	echo "==> $* ($(( $(date +%s) - t ))s since the last step)" >&2
	t=$(date +%s)
}

# the files to map, on the ext4 disk: real shared libraries and a file at
# the parser's bound (its build ID is out of the kernel's reach)
cp "$libc" libc.so.6
cp "$(command -v perf)" perf.elf
"$w/hostile-elf" hostile.elf
progress "$(uname -r): mmap cost, ${MMAP_ROUNDS:-3} rounds"
"$w/mmap-cost" "${MMAP_ROUNDS:-3}" "${MMAPS:-20000}" libc.so.6 perf.elf hostile.elf

execs=${EXECS:-150} shell_rounds=${SHELL_ROUNDS:-12}
variants=(none mmap2 build_id)
# the instruction counter's tags (tests/bench/insn-mark.h): 25 and up,
# after mmap-cost's; exec-loop makes each fork+exec+wait a span
declare -A tags=()
tag=25
for name in fork-exec shell fork-exec-listener; do
	for v in "${variants[@]}"; do
		tags[$name.$v]=$tag
		per_span=1
		[ "$name" != shell ] || per_span=$((shell_rounds * 5))
		echo "tag $tag $name $v exec $per_span"
		tag=$((tag + 1))
	done
done
# run_variant ROUND NAME VARIANT EXECS CMD...: CMD prints "exec N PROG NS"
run_variant() {
	local round=$1 name=$2 variant=$3 n=$4 out
	shift 4
	export INSN_TAG=${tags[$name.$variant]}
	case $variant in
	none) out=$("$@") ;;
	mmap2) out=$(perf record -q -a -e cpu-clock -o "$name.mmap2.data" -- "$@" 2>/dev/null) ;;
	build_id) out=$(perf record -q -a -e cpu-clock --buildid-mmap -o "$name.build_id.data" -- "$@" 2>/dev/null) ;;
	esac
	unset INSN_TAG
	echo "exec $round $name $variant $(echo "$out" | awk '/^exec / { print $4 }') $n"
}
# warm up: the page cache, and QEMU's translations of the programs
"$w/exec-loop" 50 /usr/bin/true >/dev/null
"$w/exec-loop" 1 /bin/bash "$b/short-commands.sh" 10 >/dev/null
progress "$(uname -r): exec-heavy work, ${EXEC_ROUNDS:-3} rounds"
for ((r = 0; r < ${EXEC_ROUNDS:-3}; r++)); do
	for k in 0 1 2; do
		v=${variants[(r + k) % 3]}
		run_variant "$r" fork-exec "$v" "$execs" "$w/exec-loop" "$execs" /usr/bin/true
		run_variant "$r" shell "$v" $((shell_rounds * 5)) \
			"$w/exec-loop" 1 /bin/bash "$b/short-commands.sh" "$shell_rounds"
	done
done

if [ -n "${LISTENER_EXECS:-}" ]; then
	progress "$(uname -r): fork+exec under the kernel's listeners alone"
	for ((r = 0; r < ${EXEC_ROUNDS:-3}; r++)); do
		for k in 0 1 2; do
			v=${variants[(r + k) % 3]}
			LISTENER=$v INSN_TAG=${tags[fork-exec-listener.$v]} \
				"$w/exec-loop" "$LISTENER_EXECS" /usr/bin/true >/dev/null
		done
	done
fi

# coverage: the executable mappings the kernel reported during the last
# --buildid-mmap run of each workload (synthesized records, of processes
# that were there before perf started, have time 0 and are left out)
progress "$(uname -r): coverage"
declare -A has_note
for name in fork-exec shell; do
	perf script -i "$name.build_id.data" --show-mmap-events 2>/dev/null |
		grep -v ' 0\.000000: PERF_RECORD_MMAP2 ' | grep -E 'PERF_RECORD_MMAP2 .*\]: ..x. ' >maps.txt || true
	files=0 with=0 nonote=0 notfound=0 anon=0
	while read -r line; do
		f=${line#*]: }
		f=${f#* }
		if [[ $f != /* ]]; then
			anon=$((anon + 1))
			continue
		fi
		files=$((files + 1))
		if [[ $line == *" <"*">]: "* ]]; then
			with=$((with + 1))
			continue
		fi
		if [ -z "${has_note[$f]:-}" ]; then
			has_note[$f]=no
			readelf -n "$f" 2>/dev/null | grep -q 'Build ID:' && has_note[$f]=yes
		fi
		if [ "${has_note[$f]}" = yes ]; then
			notfound=$((notfound + 1))
			echo "no ID in the record, but a note in the file: $line" >&2
		else
			nonote=$((nonote + 1))
		fi
	done <maps.txt
	echo "cover $name $files $with $nonote $notfound $anon"
done
progress "$(uname -r): done"
