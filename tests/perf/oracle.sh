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
#   deleted/{plain,plain-bm,g-bm,z-bm,pipe-bm,switch-bm,p-bm,a-bm}
#                                         binaries deleted after recording
#   replaced/{plain,plain-bm,plain-B}     another build of burn and
#                                         libburn.so (other layout, other
#                                         names) renamed over them
#   evicted/{plain,plain-bm,z-bm,pipe-bm} libburn.so mapped with its pages
#                                         evicted (map-uncached: the kernel
#                                         writes the classic record, also
#                                         with --buildid-mmap), then replaced
#   replaced-running/{plain,plain-bm,dwarf-bm}  the same, renamed over
#                                         them while the workload runs
#                                         under perf record (half a second
#                                         in), which ends it a second in
#   deleted-running/{plain,plain-bm}      deleted so, while it runs
#   overwritten/{plain,plain-bm}          the same, copied over them in
#                                         place (the build-ID cache's hard
#                                         link to the file is overwritten;
#                                         --buildid-mmap keeps a copy)
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
#   gone/{p,p-bm}                         the same, but the container's
#                                         process ends, and its root goes,
#                                         before perf record does: the file
#                                         at its path is then the other one
#   id-{1,3,8,16,20}/{plain,plain-bm,p-bm}  spin with IDs of those sizes
#   listener/{plain,plain-bm}             next to perf record -a --buildid-mmap
# plain: the workload run by perf record; -B: perf record -B (no build
# IDs at all); g: -g; dwarf: --call-graph
# dwarf; a: -a while it runs; p: -p PID of a running one; z: -z; pipe:
# -o - into a file, read with -i - from it; inject: perf inject's output;
# switch: --switch-output=signal, a SIGUSR2 while it runs, each file read
# on its own.
# Besides the reader cells, one check per recording (".../mmap2") that
# THIS_PERF prints the workload's MMAP2 records with the kept copy's build
# ID (-bm) or with none (classic).
# Every recording is made by THIS_PERF, in a private HOME of its own (its
# build-ID cache starts empty); readers read it with that HOME, except
# archive (another HOME, holding only the unpacked archive). With
# ORACLE_PEER=PERF (another perf, mainline's newest), the peer forms are
# recorded by that perf as its users run it, its own defaults (since 6.17
# --buildid-mmap, the binaries samples hit cached at the end, no build-ID
# table since 6.19): peer (a file), peer-z (-z), peer-pipe (a pipe into a
# file), for the binaries present, and (a file) deleted, replaced,
# overwritten after recording, the note page evicted, replaced or
# deleted while it runs.
# Columns: THIS_PERF ("this") and each OTHER_PERF (perf-VERSION). A known
# failure of another reader (by its version, see todo_for) is "ok ...
# # XFAIL why"; every failure of THIS_PERF is a plain "not ok".
# Each TAP line also counts the samples elsewhere (not in a workload
# mapping) and the unsure ones (in one, at an address no sized symbol
# covers, and perf names no sized symbol).
# About 100 s with three readers on a 2-core machine.
#
# usage: oracle.sh WORKLOAD_DIR THIS_PERF [OTHER_PERF...]
# ORACLE_ONLY=REGEX runs only the rows (scenario/form) it matches;
# ORACLE_PEER=PERF adds the rows that PERF records (see above).
# KTAP on stdout; the table (markdown, cells checked/wrong/missing) on
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
peer=
if [ -n "${ORACLE_PEER:-}" ]; then
	peer=$(realpath "$ORACLE_PEER") || exit 2
fi
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
	[replaced/plain-B]="recorded without any build ID (perf record -B; the same for a --buildid-mmap record the kernel wrote without one, the note page not in memory at mmap time), then replaced: the file at the path is not the inode the MMAP2 record names, and nothing else is"
	[replaced-running/plain]="binary replaced while perf record ran: at its end perf finds another file at the path, so it writes no build ID for it (not the other build's) and caches nothing; nothing with the recorded bytes is left to read symbols from"
	[deleted-running/plain]="binary deleted while perf record ran: nothing left to read its build ID or symbols from"
	[overwritten/plain]="the build-ID cache's copy is a hard link to the recorded file, which cp overwrote in place: nothing with the recorded build ID is left"
	[split-hotpatch/p-bm]="a PIE attached to after its code mapping was split, only its debug file left: /proc/PID/maps gives pieces, none of which says where the code segment starts (the debug file's program headers do not give the binary's offsets), so its symbols are left out rather than guessed"
	[split-madvise/p-bm]="a PIE attached to after its code mapping was split, only its debug file left: /proc/PID/maps gives pieces, none of which says where the code segment starts (the debug file's program headers do not give the binary's offsets), so its symbols are left out rather than guessed"
	[overwritten/peer]="recorded by mainline perf 7.3, whose end pass hard-links the binary into the build-ID cache: cp over it in place after recording overwrote the cache's copy too, and nothing with the recorded bytes is left (this perf's --buildid-mmap keeps a copy: overwritten/plain-bm)"
	[evicted/peer]="recorded by mainline perf 7.3: the kernel wrote the classic record (the note page not in memory at mmap time) and 7.3 names no build ID for it, so once replaced the file at the path is not the inode the record names (this perf's --buildid-mmap reads the ID and fills it in: evicted/plain-bm)"
	[replaced-running/peer]="recorded by mainline perf 7.3, whose end pass finds another build at the path and caches nothing: nothing with the recorded bytes is left (this perf's --buildid-mmap keeps the binary while it runs: replaced-running/plain-bm)"
	[deleted-running/peer]="recorded by mainline perf 7.3, whose end pass finds no file at the path: nothing with the recorded bytes is left (this perf's --buildid-mmap keeps the binary while it runs: deleted-running/plain-bm)"
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
	6.12.*"|"debug-tree/* | 6.12.*"|"split-*/* | 7.*"|"debug-tree/* | 7.*"|"split-*/*)
		echo "perf $1 crashes (SIGSEGV in dso__synthesize_plt_symbols) on an objcopy --only-keep-debug file, whose .plt is NOBITS" ;;
	6.1.*"|"*/peer | 6.1.*"|"*/peer-z | 6.12.*"|"*/peer | 6.12.*"|"*/peer-z)
		echo "perf $1 cannot read a perf.data file perf 7.3 wrote (incompatible file format); its pipe it reads" ;;
	[67].*"|"id-1/* | [67].*"|"id-3/*)
		echo "mainline perf reads a build ID of 1 or 3 bytes from the file otherwise than the recorded one (symsrc__init: build id mismatch): no symbols" ;;
	[67].*"|"btrfs/p | [67].*"|"overlay/p | [67].*"|"shared/p)
		echo "mainline perf gives the build-ID table's IDs by path: the files two containers ran at one path get one container's symbols" ;;
	[67].*"|"replaced/plain-B | 7.*"|"evicted/peer)
		echo "mainline perf reads the file at the path of a record without build ID whatever inode it is: the replacement's symbols for every sample" ;;
	[67].*"|"gone/p)
		echo "mainline perf reads the build ID at the path when perf record ends; with the container gone, that is the file outside it, whose symbols it then gives to the container's samples" ;;
	[67].*"|"replaced-running/plain)
		echo "mainline perf reads the build ID of the file at the path when perf record ends, the replacement's, and caches that file as the recorded one: the other build's symbols for every sample" ;;
	6.*"|"listener/plain)
		echo "mainline perf reads the classic MMAP2 records this kernel gives the build-ID flag (the listener-order leak) as build IDs: assertion failed in util/build-id.c, stack smashing, no output" ;;
	7.*"|"listener/plain)
		echo "mainline perf reads the classic MMAP2 records this kernel gives the build-ID flag (the listener-order leak) as build IDs: no symbols" ;;
	esac
}

# the parts, each a section of what it does
. "$(dirname "$0")/oracle-symbols.sh"
. "$(dirname "$0")/oracle-record.sh"
. "$(dirname "$0")/oracle-cells.sh"

# --- the matrix ---------------------------------------------------------------

start=$(date +%s)
for r in "${others[@]}"; do
	[ -x "$r" ] || { tap 0 "reader $r exists"; exit 1; }
done

for form in plain plain-bm g-bm dwarf-bm a-bm p p-bm z z-bm pipe pipe-bm inject-bm \
	switch switch-bm; do
	cell present "$form" burn
done
# (--buildid-mmap in every form keeps the binaries while they run)
for form in plain plain-bm g-bm z-bm pipe-bm switch-bm p-bm a-bm; do cell deleted "$form" burn; done
for scen in replaced replaced-inject-b symfs archive; do
	for form in plain plain-bm; do cell "$scen" "$form" burn; done
done
# no build ID anywhere (-B), as for a file whose note page was not in
# memory when it was mapped: the kernel writes a classic record, and
# --buildid-mmap no build-ID table
cell replaced plain-B burn
# and a real one: the note page not in memory when the library is mapped
# (map-uncached evicts it), then the file replaced
for form in plain plain-bm z-bm pipe-bm; do cell evicted "$form" uncached; done
# (classic: the cache's hard link to it is overwritten too; --buildid-mmap
# keeps a copy)
for form in plain plain-bm; do cell overwritten "$form" burn; done
# recorded by the peer perf, its own defaults
if [ -n "$peer" ]; then
	for form in peer peer-z peer-pipe; do cell present "$form" burn; done
	for scen in deleted replaced overwritten; do cell "$scen" peer burn; done
	cell evicted peer uncached
fi
# the binaries replaced or deleted while the workload runs under perf
# record: before the end of a classic recording, with the ID in the
# kernel's records (-bm), and with DWARF callchains
for form in plain plain-bm dwarf-bm; do cell replaced-running "$form" burn; done
for form in plain plain-bm; do cell deleted-running "$form" burn; done
if [ -n "$peer" ]; then
	cell replaced-running peer burn
	cell deleted-running peer burn
fi
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
for form in p p-bm; do
	cell shared "$form" burn
	cell gone "$form" burn
done
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
