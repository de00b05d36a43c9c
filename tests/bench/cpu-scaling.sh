#!/usr/bin/env bash
# make bench's CPU scaling: what listeners bound to every CPU (perf record
# -a --buildid-mmap) add per mmap() of a data file and of libc and per
# fork+exec, in guest instructions (QEMU's instruction counter), with the
# guest booted at each CPU count, each kernel at each count. Prints, for
# scripts/lib/bench-report:
#   KERNEL scale-tag CPUS TAG NAME VARIANT KIND N
#   KERNEL scale-insns CPUS TAG SPANS MIN Q1 MEDIAN Q3
# usage: cpu-scaling.sh WORKLOAD_DIR LIBC OUTDIR KERNEL=IMAGE...
# Environment: CPU_COUNTS (1 2 8 32 64), SCALE_SPANS (200 of each kind).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib/common.sh"

w=$(realpath "$1") libc=$2 out=$(realpath "$3")
shift 3
for ki in "$@"; do
	k=${ki%%=*} image=${ki#*=}
	for n in ${CPU_COUNTS:-1 2 8 32 64}; do
		t0=$(date +%s)
		counts=$out/scale-$k-$n.txt
		rm -f "$counts"
		KERNEL=$image VM_NAME=bench-scale-$k VM_TIMEOUT=3600 VM_CPUS=$n \
			VM_PLUGIN="$w/insn-count.so,out=$counts,whole=1" \
			"$TOP/scripts/vm" run --add "$libc" --add /usr/bin/true -- /bin/sh -c \
			"head -c 65536 /dev/urandom >/scratch/data.bin && $w/cpu-listeners ${SCALE_SPANS:-200} /scratch/data.bin $libc /usr/bin/true" |
			awk -v k="$k" -v n="$n" '
				$1 == "tag" { $1 = k " scale-tag " n; print; next }
				$1 == "cpus" && $2 != n { print "cpu-scaling: the guest has " $2 " CPUs, not " n > "/dev/stderr"; exit 1 }'
		[ -s "$counts" ] || die "QEMU's instruction counter wrote nothing for $k at $n CPUs ($counts)"
		awk -v k="$k" -v n="$n" '$1 == "insns" { $1 = k " scale-insns " n; print }' "$counts"
		note "$k at $n CPUs: done in $(( $(date +%s) - t0 ))s" >&2
	done
done
