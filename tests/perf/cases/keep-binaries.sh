#!/bin/bash
# perf record --buildid-mmap keeps each binary a recording names by build
# ID in the build-ID cache while it is still mapped: a program that
# deletes its own file as it starts (vanish) still gets its symbols once
# the recording is over, with no other command, and one rewritten in place
# (cp over it, the inode kept) after recording keeps the recorded bytes,
# as the cache holds a copy, not a link. A user who may not open
# /proc/PID/map_files gets one line saying how many binaries could not be
# kept, and -v names them; -N keeps nothing. The IDs and symbols expected
# are read by the test from its own copies (readelf -n, nm).
# usage: keep-binaries.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/keep-binaries.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
chmod 755 "$t"
export HOME=$t/home
unset DEBUGINFOD_URLS
mkdir -p "$HOME" "$t/app"

id_of() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
# cached ID [HOME]: the cache's binary for ID, when it has that ID
cached() {
	local elf=${2:-$HOME}/.debug/.build-id/${1:0:2}/${1:2}/elf
	[ -f "$elf" ] && [ "$(id_of "$elf")" = "$1" ]
}
not_cached() { ! cached "$@"; }
# syms FILE: the symbols perf report gives the samples
syms() {
	perf report --stdio -q --sort sym -i "$1" 2>/dev/null | awk '{ print $NF }'
}

vid=$(id_of "$w/vanish")
cp "$w/vanish" "$t/app/vanish"
if ! perf record -q --buildid-mmap -e cpu-clock:u -o "$t/vanish.data" -- \
	"$t/app/vanish" 300000000 >/dev/null 2>"$t/vanish.err"; then
	skip "vanish" "perf record --buildid-mmap does not work here: $(head -1 "$t/vanish.err")"
	echo "1..$n"
	exit 0
fi
result "a program deleted as it starts: gone from its path" [ ! -e "$t/app/vanish" ]
result "its binary kept in the cache, with its build ID" cached "$vid"
result "its samples get its symbols (vanish_hot)" grep -qx vanish_hot <(syms "$t/vanish.data")
elf=$HOME/.debug/.build-id/${vid:0:2}/${vid:2}/elf
result "a copy, not a link to the mapped file" [ "$(stat -L -c %h "$elf")" = 1 ]
result "nothing said about binaries not kept" not_grep "could not be kept" "$t/vanish.err"

# rewritten in place after recording: the cache keeps the recorded bytes
cp "$w/unwind-v1" "$t/app/prog"
perf record -q --buildid-mmap -e cpu-clock:u -o "$t/inplace.data" -- \
	"$t/app/prog" 50000000 >/dev/null 2>&1
cp "$w/unwind-v2" "$t/app/prog"
syms "$t/inplace.data" >"$t/inplace.syms"
result "rewritten in place (cp) after recording: the recorded build's symbols" \
	grep -qx hot_v1 "$t/inplace.syms"
result "rewritten in place: none of the other build's" not_grep _v2 "$t/inplace.syms"

# -N: nothing kept
rm -rf "$HOME/.debug"
cp "$w/unwind-v1" "$t/app/prog"
perf record -q -N --buildid-mmap -e cpu-clock:u -o "$t/n.data" -- \
	"$t/app/prog" 50000000 >/dev/null 2>&1
result "-N: nothing kept" not_cached "$(id_of "$w/unwind-v1")"

# a user without CAP_SYS_ADMIN: /proc/PID/map_files is closed to it. The
# program is started through a descriptor of its file, deleted before
# (vanish then deletes nothing): deleted as it starts, it could still be
# at its path when perf record, slowed down on a busy machine, looked.
u=$t/user
mkdir -p "$u/home" "$u/app"
# (this perf itself, wherever its build lies: nobody may not reach it,
# and would run another perf from PATH)
cp "$(command -v perf)" "$u/perf"
chown -R nobody "$u"
asuser() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	env HOME="$u/home" "$@"; }
# record_deleted OUT ERR [OPTION...]: nobody's perf record of vanish, its
# file deleted before it starts
record_deleted() {
	local out=$1 err=$2 rc
	shift 2
	cp "$w/vanish" "$u/app/vanish"
	exec 3<"$u/app/vanish"
	rm "$u/app/vanish"
	asuser "$u/perf" record "$@" --buildid-mmap -e cpu-clock:u -o "$out" -- \
		/proc/self/fd/3 600000000 >/dev/null 2>"$err"
	rc=$?
	exec 3<&-
	return $rc
}
if ! command -v setpriv >/dev/null || [ "$(id -u)" != 0 ]; then
	skip "a user without capabilities" "needs root and setpriv to become one"
elif ! asuser test -x "$u/perf"; then
	skip "a user without capabilities" "nobody cannot reach $u (a parent directory closed to others)"
elif ! record_deleted "$u/v.data" "$u/v.err"; then
	skip "a user without capabilities" "it may not record here: $(head -1 "$u/v.err")"
else
	result "a user without capabilities: one line says a binary could not be kept" \
		grep -q "^1 binary that ran could not be kept in the build-ID cache" "$u/v.err"
	result "and nothing kept for it" not_cached "$vid" "$u/home"
	record_deleted "$u/v.data" "$u/vv.err" -v
	result "-v names it: its build ID, path and why" \
		grep -q "^  $vid $u/app/vanish: no permission" "$u/vv.err"
fi
echo "1..$n"
