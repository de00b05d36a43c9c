#!/bin/sh
# The checks of a container's profile (tier 43-fs-vm), run in the guest
# by tests/guest/filesystems.sh and on the host on the copied perf.data:
#
#   container-report.sh NAME DATA SYMS N [PERF-REPORT-OPTION]...
#
# perf report (the perf in PATH, or $PERF) of the samples of comm burn
# in DATA must give burn's and libburn.so's samples only symbols of
# those files (SYMS.burn, SYMS.libburn.so: the host's nm of them), and
# libburn.so's burn_lib. Prints TAP results N+1 and N+2, named NAME: ...
name=$1 data=$2 syms=$3 n=$4
shift 4
report=$data.report
${PERF:-perf} report -i "$data" --stdio -q --comm burn --sort dso,sym "$@" \
	2>/dev/null >"$report"
# shellcheck source=tests/guest/result.sh
. "$(dirname "$0")/result.sh"
# every symbol of burn's own samples is one of the file's own (an
# address, no symbol, is allowed: not a wrong answer)
bad=$(awk '$3 == "[.]" && ($2 == "burn" || $2 == "libburn.so") && $4 !~ /^0x/ {
	print $2, $4 }' "$report" | while read -r dso sym; do
	grep -qx "$sym" "$syms.$dso" 2>/dev/null || echo "$dso:$sym"
done | sort -u | tr '\n' ' ')
result "$name: no symbol from another file" "${bad:-none}" none
# burn spends its time in burn_lib; its own functions get too few
# samples under TCG to be asked for
got=$(awk '$2 == "libburn.so" && $4 == "burn_lib" { print "yes"; exit }' "$report")
result "$name: libburn.so's symbols by ID" "${got:-no}" yes
[ "$got" = yes ] || sed 's/^/# /' "$report" | head -20
