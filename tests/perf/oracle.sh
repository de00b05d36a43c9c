#!/bin/bash
# An independent oracle for every sample symbol perf script prints, as a
# matrix of scenarios, recording forms and readers.
#
# What it proves: for each sample (and each callchain entry) that lies in
# one of the test's own workload binaries, the symbol a reader prints is
# the one the test computes itself, from its own copy of the binary that
# was mapped there when recording:
#  - before any scenario touches a file, the test keeps a copy of every
#    workload binary it runs, filed by build ID (readelf -n; for IDs of 1
#    and 3 bytes, which readelf refuses, the note's bytes read with od);
#  - the mapping of the sample's pid holding its ip comes from the MMAP2
#    records as THIS_PERF script --show-mmap-events prints them (start,
#    len, pgoff, build ID or maj:min ino, path); the copy is the one of
#    the record's build ID, or for a classic record (no ID) the copy of
#    the file that the test put at that path before recording;
#  - ip - start + pgoff is a file offset, turned into a virtual address
#    with the copy's PT_LOAD headers (readelf -lW), and the symbol is the
#    one whose [value, value + size) holds it (nm -S --defined-only).
# Samples elsewhere (libc, ld.so, kernel, vdso, other processes) are not
# checked; nor are those at an address no sized symbol covers (_start's
# neighbours, padding). "wrong" (another symbol named) always fails; a
# "missing" symbol ([unknown]) fails unless the cell is in may_miss below,
# with the reason; a cell with nothing checked fails.
#
# Rows (scenario/form; -bm: perf record --buildid-mmap, else classic):
#   present/{plain,plain-bm,g-bm,dwarf-bm,a-bm,p,p-bm,z,z-bm,pipe,pipe-bm,
#            inject-bm,switch,switch-bm}
#   deleted/{plain,plain-bm,g-bm}         binaries deleted after recording
#   replaced/{plain,plain-bm}             another build of burn and
#                                         libburn.so (other layout, other
#                                         names) renamed over them
#   overwritten/plain                     the same, copied over them in
#                                         place (the build-ID cache's hard
#                                         link to the file is overwritten)
#   replaced-inject-b/{plain,plain-bm}    replaced, then perf inject -b;
#                                         the injected file is read
#   debug-tree/plain-bm                   deleted; objcopy --only-keep-debug
#                                         files in a build-ID tree bind-
#                                         mounted on /usr/lib/debug
#   symfs/{plain,plain-bm}                copies under --symfs, the
#                                         originals replaced
#   archive/{plain,plain-bm}              perf archive, unpacked in another
#                                         HOME, the originals deleted
#   split-{hotpatch,madvise}/{plain-bm,p-bm}  split-text, which splits its
#                                         code mapping (mprotect, or madvise
#                                         MADV_HUGEPAGE), then only its debug
#                                         file left, as in debug-tree
#   debuginfod/plain-bm                   deleted; perf buildid-cache -a
#                                         fetches them from debuginfod
#   {btrfs,overlay}/{p,p-bm,a-bm,live-bm} two containers (mount namespaces)
#                                         run two builds of burn at one path,
#                                         each on a btrfs subvolume or an
#                                         overlay of its own; the truth is
#                                         per process. live: perf record -a
#                                         started first. Classic (p) is read
#                                         after the containers and their
#                                         roots are gone, the others while
#                                         they run
#   shared/{p,p-bm}                       the same, but the first is a
#                                         process beside perf (no mount
#                                         namespace of its own), which
#                                         must get all its symbols
#   id-{1,3,8,16,20}/{plain,plain-bm,p-bm}  spin with IDs of those sizes
#   listener/{plain,plain-bm}             next to perf record -a --buildid-mmap
# plain: the workload run by perf record; g: -g; dwarf: --call-graph
# dwarf; a: -a while it runs; p: -p PID of a running one; z: -z; pipe:
# -o - into a file, read with -i - from it; inject: perf inject's output;
# switch: --switch-output=signal, a SIGUSR2 while it runs, each file read
# on its own.
# Besides the reader cells, one check per recording (".../mmap2") that
# THIS_PERF prints the workload's MMAP2 records with the kept copy's build
# ID (-bm) or with none (classic).
# Every recording is made by THIS_PERF, in a private HOME of its own (its
# build-ID cache starts empty); readers read it with that HOME, except
# archive (another HOME, holding only the unpacked archive).
# Columns: THIS_PERF ("this") and each OTHER_PERF (perf-VERSION). A known
# failure of another reader (by its version, see todo_for) is "ok ...
# # XFAIL why"; every failure of THIS_PERF is a plain "not ok".
# Each TAP line also counts the samples elsewhere (not in a workload
# mapping) and the unsure ones (in one, at an address no sized symbol
# covers, and perf names no sized symbol).
# About 100 s with three readers on a 2-core machine.
#
# usage: perf-oracle.sh WORKLOAD_DIR THIS_PERF [OTHER_PERF...]
# ORACLE_ONLY=REGEX runs only the rows (scenario/form) it matches.
# TAP on stdout; the table (markdown, cells checked/wrong/missing) on
# stderr and in $ORACLE_TABLE if set; details of failures on stderr.
set -u
. "$(dirname "$0")/tap.sh"

if [ $# -lt 2 ]; then
	echo "usage: $0 WORKLOAD_DIR THIS_PERF [OTHER_PERF...]" >&2
	exit 2
fi
w=$(cd "$1" && pwd) || exit 2
this=$(realpath "$2") || exit 2
shift 2
others=("$@")
here=$(cd "$(dirname "$0")" && pwd) || exit 2
src=$here/../programs
# not /tmp/perf-*: perf before 6.x reads any file there as a perf-PID.map
t=$(mktemp -d "${TMPDIR:-/tmp}/oracle.XXXXXX") || exit 2
bg=()
btrfs_loop=
cleanup() {
	local p
	for p in "${bg[@]}"; do
		kill -INT "$p" 2>/dev/null
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	mountpoint -q "$t/btrfs" && umount "$t/btrfs"
	[ -n "$btrfs_loop" ] && losetup -d "$btrfs_loop"
	rm -rf "$t"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
unset DEBUGINFOD_URLS PERF_BUILDID_DIR
export HOME=$t/home
mkdir -p "$HOME" "$t/keep" "$t/cells"
: >"$t/db"
n=0
rows=()
declare -A cell_val

unbg() { # unbg PID: no longer to be killed on exit
	local p keep=()
	for p in "${bg[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	bg=("${keep[@]}")
}
say() { printf '%s\n' "$*" >&2; }
tap() { # tap OK NAME [KNOWN]: KNOWN, a known failure's reason, makes a failure XFAIL
	if [ "$1" = 1 ]; then
		result "$2${3:+ # the known failure did not happen: $3}" true
	elif [ -n "${3:-}" ]; then
		xfail "$2" "$3"
	else
		result "$2" false
	fi
}
run() { timeout -k 5 120 "$@"; }

# Cells where a missing symbol is no failure, for every reader: why.
declare -A may_miss=(
	[deleted/plain-bm]="binary deleted and not in the build-ID cache (--buildid-mmap does not fill it): nothing to read symbols from"
	[deleted/g-bm]="binary deleted and not in the build-ID cache (--buildid-mmap does not fill it): nothing to read symbols from"
	[replaced/plain-bm]="recorded binary replaced and not in the build-ID cache: nothing with its build ID to read symbols from"
	[overwritten/plain]="the build-ID cache's copy is a hard link to the recorded file, which cp overwrote in place: nothing with the recorded build ID is left"
	[replaced-inject-b/plain-bm]="recorded binary replaced and not in the build-ID cache: nothing with its build ID to read symbols from"
	[split-hotpatch/p-bm]="a PIE attached to after its code mapping was split, only its debug file left: /proc/PID/maps gives pieces, none of which says where the code segment starts (the debug file's program headers do not give the binary's offsets), so its symbols are left out rather than guessed"
	[split-madvise/p-bm]="a PIE attached to after its code mapping was split, only its debug file left: /proc/PID/maps gives pieces, none of which says where the code segment starts (the debug file's program headers do not give the binary's offsets), so its symbols are left out rather than guessed"
	[btrfs/p]="two containers ran different files at one path, recorded without --buildid-mmap and read once they are gone: the build-ID table names files by path only, so no mapping can be given either ID; perf says so and shows no symbols rather than guess"
	[overlay/p]="two containers ran different files at one path, recorded without --buildid-mmap and read once they are gone: the build-ID table names files by path only, so no mapping can be given either ID; perf says so and shows no symbols rather than guess"
)

# todo_for VERSION CELL: why another reader (perf VERSION) is known to fail
# CELL (scenario/form), or nothing
todo_for() {
	case "$1|$2" in
	6.1.*"|"*/g-bm | 6.1.*"|"*/dwarf-bm)
		echo "perf 6.1 prints user callchain entries as addresses in the DSO (1176), not as ips: nothing to check them by" ;;
	6.1.*"|"debug-tree/* | 6.1.*"|"split-*/*)
		echo "perf 6.1 places a debug file's symbols by the debug file's own program headers, whose offsets are not the binary's (__TMC_END__ for burn_main_a, nothing for burn_lib)" ;;
	6.12.*"|"debug-tree/* | 6.12.*"|"split-*/*)
		echo "perf 6.12 crashes (SIGSEGV in dso__synthesize_plt_symbols) on an objcopy --only-keep-debug file, whose .plt is NOBITS" ;;
	6.*"|"id-1/* | 6.*"|"id-3/*)
		echo "mainline perf reads a build ID of 1 or 3 bytes from the file otherwise than the recorded one (symsrc__init: build id mismatch): no symbols" ;;
	6.*"|"btrfs/p | 6.*"|"overlay/p | 6.*"|"shared/p)
		echo "mainline perf gives the build-ID table's IDs by path: the files two containers ran at one path get one container's symbols" ;;
	6.*"|"listener/plain)
		echo "mainline perf reads the classic MMAP2 records this kernel gives the build-ID flag (the listener-order leak) as build IDs: assertion failed in util/build-id.c, stack smashing, no output" ;;
	esac
}

# --- the kept copies -------------------------------------------------------

# note_id FILE (tests/perf/tap.sh): the note's descriptor, for the IDs
# readelf -n refuses
# elf_id FILE: its build ID: readelf -n's, else (1 and 3 bytes) the note's
elf_id() {
	local id
	id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
	[ -n "$id" ] || id=$(note_id "$1")
	printf '%s\n' "$id"
}
# keep FILE: file a copy of FILE by build ID, with its PT_LOAD headers
# (L ID OFFSET VADDR FILESZ) and sized symbols (S ID VALUE SIZE NAME) in
# $t/db
keep() {
	local id
	id=$(elf_id "$1")
	[ -n "$id" ] || { say "no build ID in $1"; return 1; }
	[ -e "$t/keep/$id" ] && return 0
	cp "$1" "$t/keep/$id" || return 1
	readelf -lW "$t/keep/$id" | awk -v id="$id" '$1 == "LOAD" { print "L", id, $2, $3, $5 }' >>"$t/db"
	nm -S --defined-only "$t/keep/$id" | awk -v id="$id" 'NF == 4 { print "S", id, $1, $2, $4 }' >>"$t/db"
}
declare -A kept_id
for f in burn libburn.so spin-1 spin-3 spin-8 spin-md5 spin-sha1 split-text; do
	keep "$w/$f" || exit 1
	kept_id[$f]=$(elf_id "$w/$f")
done

# The replacement: burn and libburn.so built again, with another layout
# (-O0) and other names, so that any symbol read from it is wrong
mkdir -p "$t/variant"
# shellcheck disable=SC2016  # $ORIGIN is for the dynamic linker
if ! gcc -O0 -g -fPIC -shared -Dburn_lib=burn_lib_v2 -Wl,--build-id=sha1 \
	-o "$t/variant/libburn.so" "$src/libburn.c" ||
	! gcc -O0 -g -Dburn_lib=burn_lib_v2 -Dburn_main_a=burn_main_a_v2 \
		-Dburn_main_b=burn_main_b_v2 -Wl,--build-id=sha1 -o "$t/variant/burn" \
		"$src/burn.c" -L"$t/variant" -lburn -Wl,-rpath,'$ORIGIN'; then
	say "cannot build the replacement burn"
	exit 1
fi
# (kept too: the second container runs it)
for f in burn libburn.so; do
	keep "$t/variant/$f" || exit 1
	kept_id[v2-$f]=$(elf_id "$t/variant/$f")
done

# --- the oracle ---------------------------------------------------------------

# maps DATA [PIPED]: the MMAP/MMAP2 records THIS_PERF prints, as
# PID TIME START LEN PGOFF ID|- PATH (tab-separated)
maps() {
	if [ -n "${2:-}" ]; then
		run "$this" script -i - --show-mmap-events <"$1" 2>/dev/null
	else
		run "$this" script -i "$1" --show-mmap-events 2>/dev/null
	fi | awk '
	/ PERF_RECORD_MMAP2? / {
		i = index($0, " PERF_RECORD_MMAP")
		m = split(substr($0, 1, i - 1), a, " "); tm = a[m]; sub(/:$/, "", tm)
		rest = substr($0, i + 1)
		split(rest, b, " "); pid = b[2]; sub(/\/.*/, "", pid)
		j = index(rest, "["); k = index(rest, "]: ")
		split(substr(rest, j + 1, k - j - 1), c, " ")
		p = index(c[1], "("); st = substr(c[1], 1, p - 1)
		ln = substr(c[1], p + 1); sub(/\)$/, "", ln)
		id = "-"
		if (c[4] ~ /^</) { id = c[4]; gsub(/[<>]/, "", id) }
		after = substr(rest, k + 3); path = substr(after, index(after, " ") + 1)
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pid, tm, st, ln, c[3], id, path
	}'
}

# The oracle, over the db, the paths (P PATH ID [PID]: the file the test
# put at PATH, in PID's mount namespace when given; a sample's symbol is
# computed from that file, whatever ID its record names), the maps and a reader's perf script -F pid,time,ip,sym,dso
# output. Prints "CHECKED WRONG MISSING OTHER UNSURE BADID ALLOWED"
# (ALLOWED: missing where the P line of the pid says "may-miss"); the
# wrong and missing entries go to the file in -v detail.
# shellcheck disable=SC2016  # awk code
oracle_awk='
function hex(s,   v, k, d) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (k = 1; k <= length(s); k++) {
		d = index("0123456789abcdef", substr(s, k, 1))
		if (!d) break
		v = v * 16 + d - 1
	}
	return v
}
FNR == 1 { fi++ }
fi == 1 && $1 == "L" { ln_[$2]++; lo[$2, ln_[$2]] = hex($3); lv[$2, ln_[$2]] = hex($4); lz[$2, ln_[$2]] = hex($5); next }
fi == 1 && $1 == "S" && hex($4) > 0 { sn[$2]++; sv[$2, sn[$2]] = hex($3); ss[$2, sn[$2]] = hex($4); sname[$2, sn[$2]] = $5; sized[$2, $5] = 1; next }
fi == 1 { next }
fi == 2 { split($0, f, "\t"); if (f[4] != "") wantp[f[4], f[2]] = f[3]; else want[f[2]] = f[3]; if (f[5] == "may-miss") mm[f[4], f[2]] = 1; next }
fi == 3 {
	split($0, f, "\t"); p = f[1]; k = ++mn[p]
	mt[p, k] = f[2] + 0; ms[p, k] = hex(f[3]); ml[p, k] = hex(f[4]); mo[p, k] = hex(f[5])
	mid[p, k] = f[6]; path = f[7]; sub(/ \(deleted\)$/, "", path); mpath[p, k] = path
	next
}
# the reader output: a sample line "PID TIME: [IP SYM (DSO)]", then
# callchain entries "<tab>IP SYM (DSO)"
/^ *-?[0-9]+ +[0-9]+\.[0-9]+:/ {
	pid = $1; tm = $2; sub(/:$/, "", tm); tm += 0
	if (NF >= 3) check($3, NF >= 4 ? $4 : "")
	next
}
/^[ \t]+[0-9a-f]+ / && pid != "" { check($1, $2); next }
function check(ipx, sym,   ip, k, best, fb, key, off, va, i, e, found) {
	if (sym ~ /^\(/) sym = ""
	ip = hex(ipx); best = 0; fb = 0
	for (k = 1; k <= mn[pid]; k++)
		if (ip >= ms[pid, k] && ip < ms[pid, k] + ml[pid, k]) {
			if (mt[pid, k] <= tm) best = k
			else if (!fb) fb = k
		}
	if (!best) best = fb
	if (!best) { other++; return }
	# the file the test put there: for this pid, else for every pid
	if ((pid, mpath[pid, best]) in wantp) key = wantp[pid, mpath[pid, best]]
	else if (mpath[pid, best] in want) key = want[mpath[pid, best]]
	else { other++; return }
	if (mid[pid, best] != "-" && mid[pid, best] != key) badid++
	off = ip - ms[pid, best] + mo[pid, best]; va = -1
	for (i = 1; i <= ln_[key]; i++)
		if (off >= lo[key, i] && off < lo[key, i] + lz[key, i]) va = off - lo[key, i] + lv[key, i]
	if (va < 0) { unsure++; return }
	e = ""; found = 0
	for (i = 1; i <= sn[key]; i++)
		if (va >= sv[key, i] && va < sv[key, i] + ss[key, i]) {
			e = e (e == "" ? "" : "|") sname[key, i]
			if (sname[key, i] == sym) found = 1
		}
	if (e == "" && !sized[key, sym]) { unsure++; return }
	checked++
	if (found) return
	if ((sym == "" || sym == "[unknown]") && ((pid, mpath[pid, best]) in mm)) {
		allowed++
	} else if (sym == "" || sym == "[unknown]") {
		missing++
		if (nm_++ < 3) printf "missing: pid %s ip %s (%s+0x%x, va 0x%x): want %s, got %s\n", pid, ipx, mpath[pid, best], off, va, e, sym > detail
	} else {
		wrong++
		if (nw_++ < 5) printf "wrong: pid %s ip %s (%s+0x%x, va 0x%x): want %s, got %s\n", pid, ipx, mpath[pid, best], off, va, (e == "" ? "no symbol" : e), sym > detail
	}
}
END { printf "%d %d %d %d %d %d %d\n", checked, wrong, missing, other, unsure, badid, allowed }
'

# mmap_check MAPS PATHS BM: THIS_PERF's MMAP2 records of the workload
# paths: prints "RECORDS BAD" (BAD: not the kept copy's ID with --buildid-mmap,
# an ID without)
mmap_check() {
	awk -v bm="$3" 'FNR == 1 { fi++ }
		fi == 1 { split($0, f, "\t"); if (f[4] != "") wantp[f[4], f[2]] = f[3]; else want[f[2]] = f[3]; next }
		{ split($0, f, "\t"); path = f[7]; sub(/ \(deleted\)$/, "", path)
		  if ((f[1], path) in wantp) id = wantp[f[1], path]
		  else if (path in want) id = want[path]
		  else next
		  n++
		  if (bm ? f[6] != id : f[6] != "-") { bad++; print "MMAP2 of " path " (pid " f[1] "): " f[6] " (want " (bm ? id : "none") ")" > "/dev/stderr" } }
		END { print n + 0, bad + 0 }' "$2" "$1"
}

# --- the readers ------------------------------------------------------------

readers=("$this" "${others[@]}")
declare -A rname rver
rname[$this]=this
for r in "${others[@]}"; do
	rver[$r]=$("$r" version 2>/dev/null | awk '{ print $3 }')
	rname[$r]=perf-${rver[$r]:-unknown}
done

# read_cell READER: the reader's perf script of the cell's data, with the
# cell's HOME, options and debug tree (globals set by cell; the tree is
# bind-mounted on /usr/lib/debug in a private mount namespace)
read_cell() {
	local r=$1 pre=()
	local args=(script -F "pid,time,ip,sym,dso" --no-demangle "${r_opts[@]}")
	# shellcheck disable=SC2016  # expanded by the inner sh
	[ -n "$r_tree" ] && pre=(unshare -m --propagation private -- sh -c \
		'mount --bind "$0" /usr/lib/debug && exec "$@"' "$r_tree")
	if [ -n "$piped" ]; then
		HOME=$r_home run "${pre[@]}" "$r" "${args[@]}" -i - <"$data"
	else
		HOME=$r_home run "${pre[@]}" "$r" "${args[@]}" -i "$data" </dev/null
	fi
}

# judge ROW READER COUNTS ERRFILE DETAILFILE: the TAP line and table cell
judge() {
	local row=$1 r=$2 c wr m o u b a ok=1 why="" todo=""
	read -r c wr m o u b a <<<"$3"
	[ "$c" -gt 0 ] || { ok=0; why="nothing checked"; }
	[ "$wr" -eq 0 ] || { ok=0; why="$why${why:+; }wrong symbols"; }
	if [ "$m" -gt 0 ] && [ -z "${may_miss[$row]:-}" ]; then
		ok=0
		why="$why${why:+; }missing symbols"
	fi
	[ "$r" = "$this" ] || todo=$(todo_for "${rver[$r]}" "$row")
	local allowed=""
	[ "${a:-0}" -gt 0 ] && allowed=", $a missing where allowed"
	local name="$row/${rname[$r]}: $c checked, $wr wrong, $m missing ($o elsewhere, $u unsure$allowed)"
	[ "$m" -gt 0 ] && [ -n "${may_miss[$row]:-}" ] && name="$name (allowed: ${may_miss[$row]})"
	if [ "$ok" = 1 ]; then
		tap 1 "$name" "$todo"
		cell_val[$row|$r]="$c/$wr/$m"
	else
		if [ -n "$todo" ]; then cell_val[$row|$r]="$c/$wr/$m ~"; else cell_val[$row|$r]="$c/$wr/$m *"; fi
		tap 0 "$name" "$todo"
		say "# $row/${rname[$r]}: $why ($o not in the workloads, $u unsure, $b with an unknown build ID)"
		sed 's/^/#   /' "$5" >&2
		grep -v '^ *$' "$4" | head -3 | sed 's/^/#   stderr: /' >&2
	fi
}

# --- recording --------------------------------------------------------------

# running PID FILE: wait until PID runs FILE, 10 s at most
running() {
	local i
	for i in $(seq 100); do
		[ "$(readlink "/proc/$1/exe")" = "$2" ] && return 0
		sleep 0.1
	done
	say "process $1 did not exec $2 (waited $i)"
	return 1
}

# record FORM: the cell's workload, recorded by THIS_PERF in FORM; sets
# data (what readers read), rec (what the maps come from) and piped
record() {
	local form=$1 opts=() pid
	case $form in *-bm) opts+=(--buildid-mmap) ;; esac
	case $form in
	g-*) opts+=(-g) ;;
	dwarf-*) opts+=(--call-graph dwarf) ;;
	a-*) opts+=(-a) ;;
	z | z-*) opts+=(-z) ;;
	switch | switch-*) opts+=(--switch-output=signal) ;;
	esac
	rec=$cdir/rec.data data=$rec piped=
	datas=()
	case $form in
	live-*)
		# system-wide, the containers started while it runs: the
		# kernel's records, not perf's synthesis
		HOME=$r_home run "$this" record -q -a "${opts[@]}" -o "$rec" -- sleep 2 \
			>/dev/null 2>"$cdir/record.err" &
		pid=$!
		sleep 0.5
		start_containers
		wait "$pid"
		;;
	p | p-* | a-*)
		if [ -n "$ckind" ]; then
			# the containers, started before: perf's synthesis
			start_containers
			local target=(-a)
			case $form in p | p-*) target=(-p "$attach") ;; esac
			HOME=$r_home run "$this" record -q "${opts[@]}" "${target[@]}" -o "$rec" \
				-- sleep 0.5 >/dev/null 2>"$cdir/record.err"
			return
		fi
		;;&
	switch | switch-*)
		# a signal to switch files while the workload runs; each file
		# is read on its own
		# (not under timeout, which the signal would end; the workload
		# runs about 3 s)
		HOME=$r_home "$this" record -q "${opts[@]}" -o "$rec" -- "${short[0]}" 2000 \
			>/dev/null 2>"$cdir/record.err" &
		pid=$!
		sleep 1
		kill -USR2 "$pid"
		wait "$pid"
		datas=("$rec".[0-9]*)
		;;
	p | p-*)
		"${long[@]}" >/dev/null &
		pid=$!
		bg+=("$pid")
		running "$pid" "$(realpath "${long[0]}")"
		HOME=$r_home run "$this" record -q "${opts[@]}" -p "$pid" -o "$rec" -- sleep 0.1 \
			>/dev/null 2>"$cdir/record.err"
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		unbg "$pid"
		;;
	pipe | pipe-*)
		piped=1
		HOME=$r_home run "$this" record -q "${opts[@]}" -o - -- "${short[@]}" \
			>"$rec" 2>"$cdir/record.err"
		;;
	*)
		HOME=$r_home run "$this" record -q "${opts[@]}" -o "$rec" -- "${short[@]}" \
			>/dev/null 2>"$cdir/record.err"
		;;
	esac
	case $form in
	inject-*)
		data=$cdir/inject.data
		HOME=$r_home run "$this" inject -i "$rec" -o "$data" 2>>"$cdir/record.err"
		;;
	esac
}

# setup WORKLOAD: a fresh directory for the cell's binaries; sets short,
# long (the commands) and files; P lines in $cdir/paths
setup() {
	app=$cdir/app
	mkdir -p "$app"
	: >"$cdir/paths"
	case $1 in
	burn) files=(burn libburn.so) short=("$app/burn" 150) long=("$app/burn" 100000000) ;;
	split-*)
		files=(split-text)
		short=("$app/split-text" "${1#split-}" 300000000)
		long=("$app/split-text" "${1#split-}" 1000000000000) ;;
	*) files=("$1") short=("$app/$1" 150000000) long=("$app/$1" 1000000000000) ;;
	esac
	local f
	for f in "${files[@]}"; do
		cp "$w/$f" "$app/$f"
		printf 'P\t%s\t%s\n' "$app/$f" "${kept_id[$f]}" >>"$cdir/paths"
	done
}

# --- containers ---------------------------------------------------------------

# btrfs_fs: a btrfs file system at $t/btrfs (on a loop device), made once
btrfs_fs() {
	mountpoint -q "$t/btrfs" && return 0
	command -v mkfs.btrfs >/dev/null || { say "no mkfs.btrfs (btrfs-progs)"; return 1; }
	mkdir -p "$t/btrfs"
	truncate -s 256M "$t/btrfs.img"
	if ! mkfs.btrfs -q "$t/btrfs.img" >/dev/null 2>&1 ||
		! btrfs_loop=$(losetup -f --show "$t/btrfs.img") ||
		! mount -t btrfs "$btrfs_loop" "$t/btrfs"; then
		say "cannot mount btrfs"
		return 1
	fi
}

# containers KIND: the roots of two containers, which start_containers
# runs: the first holds burn and libburn.so, the second the replacement
# (other names, other layout) under the same names. KIND btrfs: a
# subvolume each, whose files /proc/PID/maps shows with one device and
# inode; overlay: an overlay each, with a lower directory of its own and
# the upper on tmpfs, as container runtimes stack them. Sets croot (the
# mount arguments of each).
containers() {
	local i f v sub
	croot=()
	for i in 1 2; do
		v=
		[ "$i" = 2 ] && v=v2-
		case $1 in
		btrfs)
			btrfs_fs || return 1
			sub=$t/btrfs/${cdir##*/}-c$i
			btrfs subvolume create "$sub" >/dev/null || return 1
			for f in "${files[@]}"; do cp "$t/keep/${kept_id[$v$f]}" "$sub/$f"; done
			croot+=("--bind $sub") ;;
		shared)
			# the first a process of perf's own mount namespace,
			# running the files at $app; the second an overlay
			if [ "$i" = 1 ]; then
				croot+=("")
				continue
			fi ;&
		overlay)
			mkdir -p "$cdir/lower$i" "$cdir/up$i"
			mount -t tmpfs tmpfs "$cdir/up$i" || return 1
			mkdir "$cdir/up$i/upper" "$cdir/up$i/work"
			for f in "${files[@]}"; do cp "$t/keep/${kept_id[$v$f]}" "$cdir/lower$i/$f"; done
			croot+=("-t overlay overlay -o lowerdir=$cdir/lower$i,upperdir=$cdir/up$i/upper,workdir=$cdir/up$i/work") ;;
		esac
	done
}

# start_containers: a process per root, in a mount namespace of its own
# where the root is mounted at $app, running ${long[@]} there; sets cpids
# and attach (their pids, for -p), adds their P lines
start_containers() {
	local i f v pid mm
	cpids=()
	for i in 1 2; do
		if [ -z "${croot[$((i - 1))]}" ]; then
			"$app/burn" 100000000 >/dev/null &
		else
			# shellcheck disable=SC2086,SC2016  # the mount arguments; expanded by sh -c
			unshare --mount --propagation private sh -c 'mount "$@" "$0" && exec "$0/burn" 100000000' \
				"$app" ${croot[$((i - 1))]} &
		fi
		pid=$!
		bg+=("$pid")
		cpids+=("$pid")
		v=
		[ "$i" = 2 ] && v=v2-
		# (the container of a classic recording read once it is gone
		# may have no symbols; the process beside it must have all)
		mm=
		[ "$ckind" = shared ] && [ "$i" = 2 ] && [ -z "$bm" ] && mm=may-miss
		for f in "${files[@]}"; do
			printf 'P\t%s\t%s\t%s\t%s\n' "$app/$f" "${kept_id[$v$f]}" "$pid" "$mm" >>"$cdir/paths"
		done
	done
	for pid in "${cpids[@]}"; do
		for i in $(seq 100); do
			grep -q " $app/burn\$" "/proc/$pid/maps" 2>/dev/null && break
			sleep 0.1
		done
	done
	attach=$(IFS=,; echo "${cpids[*]}")
}

# stop_containers: the containers' processes stopped, their roots removed
stop_containers() {
	local pid i
	for pid in "${cpids[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		unbg "$pid"
	done
	cpids=()
	for i in 1 2; do
		mountpoint -q "$cdir/up$i" && umount "$cdir/up$i"
		[ -d "$t/btrfs/${cdir##*/}-c$i" ] &&
			btrfs subvolume delete "$t/btrfs/${cdir##*/}-c$i" >/dev/null
	done
	rm -rf "$cdir"/lower*
}

# replace: the replacement over the cell's binaries, as a package manager
# installs it: a new file renamed over the old (whose inode, and the
# build-ID cache's hard link to it, keep the recorded bytes)
replace() {
	local f
	for f in "${files[@]}"; do
		cp "$t/variant/$f" "$app/.$f.new" && mv "$app/.$f.new" "$app/$f"
	done
}

# after SCENARIO: what the scenario does after recording; may set r_opts,
# r_home, r_tree, data
after() {
	local f id dbg
	case $1 in
	deleted)
		for f in "${files[@]}"; do rm -f "$app/$f"; done ;;
	replaced)
		replace ;;
	overwritten)
		for f in "${files[@]}"; do cp "$t/variant/$f" "$app/$f"; done ;;
	replaced-inject-b)
		replace
		HOME=$r_home run "$this" inject -b -i "$rec" -o "$cdir/inject-b.data" 2>>"$cdir/record.err"
		data=$cdir/inject-b.data ;;
	debug-tree | split-*)
		r_tree=$cdir/tree
		for f in "${files[@]}"; do
			id=${kept_id[$f]}
			dbg=$r_tree/.build-id/${id:0:2}/${id:2}.debug
			mkdir -p "${dbg%/*}"
			objcopy --only-keep-debug "$app/$f" "$dbg"
			rm -f "$app/$f"
		done ;;
	symfs)
		mkdir -p "$cdir/symfs$app"
		for f in "${files[@]}"; do
			cp "$app/$f" "$cdir/symfs$app/$f"
		done
		replace
		r_opts=(--symfs "$cdir/symfs") ;;
	debuginfod)
		# the binaries gone; a debuginfod server has them, and perf
		# buildid-cache -a fetches them by the recorded IDs
		mkdir -p "$cdir/srv"
		local ids=()
		for f in "${files[@]}"; do
			ids+=("${kept_id[$f]}")
			cp "$t/keep/${kept_id[$f]}" "$cdir/srv/$f"
			rm -f "$app/$f"
		done
		HOME=$r_home DEBUGINFOD_CACHE_PATH=$cdir/dfs-cache run "$here/with-debuginfod.sh" \
			"$cdir/srv" "${ids[@]}" -- "$this" buildid-cache -a "$rec" \
			>"$cdir/dfs.out" 2>&1 || sed 's/^/# debuginfod: /' "$cdir/dfs.out" >&2 ;;
	btrfs | overlay | shared)
		# a classic recording is read once the containers are gone,
		# from the build-ID cache perf record filled; with
		# --buildid-mmap (no cache) while they run
		[ -z "$bm" ] && stop_containers ;;
	archive)
		(cd "$cdir" && HOME=$r_home run "$this" archive "$rec") >"$cdir/archive.out" 2>&1 ||
			sed 's/^/# archive: /' "$cdir/archive.out" >&2
		for f in "${files[@]}"; do rm -f "$app/$f"; done
		r_home=$cdir/other
		mkdir -p "$r_home/.debug"
		tar xjf "$rec.tar.bz2" -C "$r_home/.debug" 2>/dev/null ||
			say "# archive/$2: no archive to unpack" ;;
	esac
}

# add_counts COUNTS COUNTS: their sum, field by field
add_counts() {
	local a b i
	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for i in "${!a[@]}"; do a[i]=$((a[i] + b[i])); done
	echo "${a[*]}"
}

# cell SCENARIO FORM WORKLOAD: record, change the files, read with every
# reader, judge
cell() {
	local scen=$1 form=$2 row=$1/$2 r counts bm='' d sum
	# ORACLE_ONLY=REGEX: only the rows it matches (when working on one)
	[[ $row =~ ${ORACLE_ONLY:-.} ]] || return 0
	cdir=$t/cells/${row//\//_}
	mkdir -p "$cdir/home"
	r_home=$cdir/home r_opts=() r_tree='' ckind='' cpids=()
	rows+=("$row")
	setup "$3"
	case $form in *-bm) bm=1 ;; esac
	case $scen in
	btrfs | overlay | shared)
		ckind=$scen
		if ! containers "$scen"; then
			tap 0 "$row: the containers' roots ($scen)"
			return
		fi ;;
	esac
	record "$form"
	[ ${#datas[@]} -gt 0 ] || datas=("$data")
	for d in "${datas[@]}"; do
		maps "$d" "$piped" >"$d.maps"
	done
	cat "${datas[@]/%/.maps}" >"$cdir/maps"
	after "$scen" "$form"
	local mc
	read -r -a mc <<<"$(mmap_check "$cdir/maps" "$cdir/paths" "$bm" 2>"$cdir/mmap.err")"
	if [ "${mc[0]}" -gt 0 ] && [ "${mc[1]}" -eq 0 ]; then
		tap 1 "$row/mmap2: ${mc[0]} records of the workload, each with $([ -n "$bm" ] && echo "its build ID" || echo "no build ID")"
	else
		tap 0 "$row/mmap2: ${mc[0]} records of the workload, ${mc[1]} with a wrong build ID"
		sed 's/^/#   /' "$cdir/mmap.err" >&2
		grep -v '^ *$' "$cdir/record.err" | head -3 | sed 's/^/#   record: /' >&2
	fi
	case $form in
	switch | switch-*)
		# every file has the workload's records, so that it can be
		# read on its own
		local with=0
		for d in "${datas[@]}"; do
			[ "$(mmap_check "$d.maps" "$cdir/paths" "$bm" 2>/dev/null | cut -d' ' -f1)" -gt 0 ] &&
				with=$((with + 1))
		done
		tap "$( ((${#datas[@]} >= 2 && with == ${#datas[@]})) && echo 1)" \
			"$row: ${#datas[@]} files, $with with the workload's MMAP2 records"
		;;
	esac
	for r in "${readers[@]}"; do
		: >"$cdir/detail"
		: >"$cdir/err"
		# each file on its own, with its own records
		sum="0 0 0 0 0 0 0"
		for d in "${datas[@]}"; do
			data=$d
			read_cell "$r" >"$cdir/out" 2>>"$cdir/err"
			counts=$(awk -v detail="$cdir/detail" "$oracle_awk" "$t/db" "$cdir/paths" "$d.maps" "$cdir/out")
			sum=$(add_counts "$sum" "$counts")
		done
		judge "$row" "$r" "$sum" "$cdir/err" "$cdir/detail"
	done
	[ -n "$ckind" ] && stop_containers
}

# --- the matrix ---------------------------------------------------------------

start=$(date +%s)
for r in "${others[@]}"; do
	[ -x "$r" ] || { tap 0 "reader $r exists"; exit 1; }
done

for form in plain plain-bm g-bm dwarf-bm a-bm p p-bm z z-bm pipe pipe-bm inject-bm \
	switch switch-bm; do
	cell present "$form" burn
done
for form in plain plain-bm g-bm; do cell deleted "$form" burn; done
for scen in replaced replaced-inject-b symfs archive; do
	for form in plain plain-bm; do cell "$scen" "$form" burn; done
done
cell overwritten plain burn
cell debug-tree plain-bm burn
for form in plain-bm p-bm; do
	cell split-hotpatch "$form" split-hotpatch
	cell split-madvise "$form" split-madvise
done
cell debuginfod plain-bm burn
for form in p p-bm a-bm live-bm; do
	cell btrfs "$form" burn
	cell overlay "$form" burn
done
for form in p p-bm; do cell shared "$form" burn; done
for v in 1:spin-1 3:spin-3 8:spin-8 16:spin-md5 20:spin-sha1; do
	for form in plain plain-bm p-bm; do cell "id-${v%%:*}" "$form" "${v#*:}"; done
done

# two recordings next to a system-wide --buildid-mmap listener
HOME=$t/home "$this" record -q -a --buildid-mmap -o "$t/listener.data" -- sleep 60 \
	>/dev/null 2>&1 &
listener=$!
bg+=("$listener")
sleep 2
for form in plain plain-bm; do cell listener "$form" burn; done
kill -INT "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
unbg "$listener"

# --- the table ----------------------------------------------------------------

table() {
	local row r line
	line="| scenario/form |"
	for r in "${readers[@]}"; do line="$line ${rname[$r]} |"; done
	echo "$line"
	line="|---|"
	for r in "${readers[@]}"; do line="$line---|"; done
	echo "$line"
	for row in "${rows[@]}"; do
		line="| $row |"
		for r in "${readers[@]}"; do line="$line ${cell_val[$row|$r]:-} |"; done
		echo "$line"
	done
	echo
	echo "cells: checked/wrong/missing; * not ok, ~ a known failure (XFAIL); $(($(date +%s) - start)) s"
}
table >"$t/table"
cat "$t/table" >&2
[ -n "${ORACLE_TABLE:-}" ] && cp "$t/table" "$ORACLE_TABLE"
echo "1..$n"
