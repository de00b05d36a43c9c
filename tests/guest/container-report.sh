#!/bin/sh
# The checks of a container's profile (tier 43-fs-vm), run in the guest
# by tests/guest/filesystems.sh and on the host on the copied perf.data:
#
#   container-report.sh NAME WHEN DATA SYMS IDS N [PERF-REPORT-OPTION]...
#
# The container ran Debian's bash, which ran sha256sum, then burn (with
# libburn.so) as its child; DATA was recorded from outside it, started
# before it (WHEN "before": the kernel's records) or after sha256sum had
# finished (WHEN "after": perf's synthesis). With the perf in PATH, or
# $PERF:
# - the executable MMAP2 records of the container's processes carry,
#   for each of its files, the ID the host's readelf read (IDS: "NAME ID"
#   lines), and each of those files has a record;
# - perf report gives the samples in burn, libburn.so, bash and
#   sha256sum only names perf may take from those files (SYMS.NAME: the
#   host's nm of them), and libburn.so's burn_lib.
# Prints TAP results N+1 to N+3, named NAME: ...
name=$1 when=$2 data=$3 syms=$4 ids=$5 n=$6
shift 6
# shellcheck source=tests/guest/result.sh
. "$(dirname "$0")/result.sh"
perf=${PERF:-perf}

need="bash libtinfo.so.6 libc.so.6 ld-linux-x86-64.so.2 burn libburn.so"
[ "$when" = after ] || need="$need sha256sum"
maps=$($perf script -i "$data" --show-mmap-events 2>/dev/null |
	awk '$1 ~ /^(bash|sha256sum|burn)$/ && / PERF_RECORD_MMAP2 .* r-xp /')
bad=
for f in $need; do
	want=$(awk -v f="$f" '$1 == f { print $2 }' "$ids")
	# the ID of each record of the file named f, or "classic"
	got=$(printf '%s\n' "$maps" | awk -v f="$f" '{
		p = $NF; sub(/.*\//, "", p)
		if (p != f) next
		if (match($0, /<[0-9a-f]+>/)) print substr($0, RSTART + 1, RLENGTH - 2)
		else print "classic"
	}')
	[ -n "$got" ] || got=none
	for g in $got; do
		[ "$g" = "$want" ] || bad="$bad $f:$g"
	done
done
result "$name: each file's MMAP2 records carry its ID" "${bad:-none}" none
[ -z "$bad" ] || printf '%s\n' "$maps" | sed 's/^/# /' | head -20

report=$data.report
$perf report -i "$data" --stdio -q --comm bash,sha256sum,burn --sort dso,sym "$@" \
	2>/dev/null >"$report"
# every name of a sample in those files is one perf may take from the
# file (an address, no symbol, is allowed: not a wrong answer)
bad=$(awk '$3 == "[.]" && $4 !~ /^0x/ { print $2, $4 }' "$report" |
	sed -E 's/@@?[A-Z][A-Za-z0-9_.]*//' | while read -r dso sym; do
	[ -f "$syms.$dso" ] || continue
	grep -qxF "$sym" "$syms.$dso" || echo "$dso:$sym"
done | sort -u | tr '\n' ' ')
result "$name: no symbol from another file" "${bad:-none}" none
# burn spends its time in burn_lib; its own functions get too few
# samples under TCG to be asked for
got=$(awk '$2 == "libburn.so" && $4 == "burn_lib" { print "yes"; exit }' "$report")
result "$name: libburn.so's symbols by ID" "${got:-no}" yes
[ "$got" = yes ] || sed 's/^/# /' "$report" | head -20
