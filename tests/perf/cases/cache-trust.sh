#!/bin/bash
# The build-ID cache and perf archive trust nothing that is in them:
#  1. perf buildid-cache --remove, --purge, --purge-all and --update
#     remove an entry by its .build-id link: a link that leads out of the
#     cache (../../../../victim, as an unpacked archive can carry, or an
#     absolute one, or one through a directory of the cache that is a
#     symbolic link out of it) must cost the link only, never what it
#     points to;
#  2. perf --buildid-dir D archive (and buildid.dir = D in the
#     configuration) packs the binaries from D, filling D, not ~/.debug;
#  3. a recorded name with a newline cannot add a build ID to the archive:
#     "/x\n<ID2> /y: added" once made perf archive pack the entry of ID2,
#     a binary the perf.data does not name.
# The expected IDs are readelf's; the victims are directories of the
# test outside HOME, checked by their files.
# usage: cache-trust.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/cache-trust.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t/home
unset DEBUGINFOD_URLS PERF_BUILDID_DIR
mkdir -p "$HOME" "$t/bin"
# a long name: the forged one of test 3 takes its place in the records
bin=$t/bin/spin-sha1-under-a-name-long-enough-for-a-forged-name-to-fit-in-its-place
other=$t/bin/spin-md5
cp "$w/spin-sha1" "$bin" && cp "$w/spin-md5" "$other" || exit 1
id=$(elf_id "$bin")
id2=$(elf_id "$other")
cache=$HOME/.debug

# 1. removals: a victim directory per kind of link, outside HOME
# (it looks like an entry of the binary, as --update wants one to be)
victim() { mkdir -p "$t/$1" && echo keep >"$t/$1/file" && cp "$bin" "$t/$1/elf"; }
kept() { [ "$(cat "$t/$1/file" 2>/dev/null)" = keep ] && cmp -s "$bin" "$t/$1/elf"; }
# plant KIND: the cache holds the binary, its .build-id link replaced by
# one of KIND that leads to the victim of that kind
plant() {
	local link=$cache/.build-id/${id:0:2}/${id:2} up
	rm -rf "$cache"
	perf buildid-cache -a "$bin" >/dev/null 2>&1 || return 1
	[ -L "$link" ] || return 1
	rm -f "$link"
	victim "victim-$1"
	up=$(tr -cd / <<<"$cache/.build-id/xx" | sed 's|/|../|g')
	case $1 in
	relative) ln -s "$up${t#/}/victim-$1" "$link" ;;
	absolute) ln -s "$t/victim-$1" "$link" ;;
	dotdot) ln -s "../../x/../../../../../../../../../../..$t/victim-$1" "$link" ;;
	via-dir) # a directory of the cache that is a link out of it
		ln -s "$t" "$cache/out"
		ln -s "../../out/victim-$1" "$link" ;;
	esac
}
for kind in relative absolute dotdot via-dir; do
	for op in "--remove $bin" "--purge $bin" "--purge-all" "--update $bin"; do
		if ! plant "$kind"; then
			result "${op%% *}, a cache link ($kind) out of the cache: planted" false
			continue
		fi
		# shellcheck disable=SC2086 # the option and its file
		perf buildid-cache $op >/dev/null 2>&1
		result "${op%% *}, a cache link ($kind) out of the cache: its target is kept" kept "victim-$kind"
		rm -rf "$t/victim-$kind"
	done
done
# what removing is for still works: an entry of the cache goes
rm -rf "$cache"
perf buildid-cache -a "$bin" >/dev/null 2>&1
perf buildid-cache --remove "$bin" >/dev/null 2>&1
result "--remove of a binary perf cached: its entry is gone" \
	test ! -e "$cache/.build-id/${id:0:2}/${id:2}" -a ! -e "$cache$bin/$id"

# 2. the chosen cache: perf --buildid-dir D archive and buildid.dir = D
if ! perf record -q --buildid-mmap -o "$t/rec.data" -- "$bin" 30000000 >/dev/null 2>&1; then
	skip "the archive tests" "perf record --buildid-mmap does not work here"
	echo "1..$n"
	exit 0
fi
not() { ! "$@"; }
members() { tar tjf "$1" 2>/dev/null; }
has_member() { members "$1" | grep -qxF ".build-id/${2:0:2}/${2:2}"; }
rm -rf "$cache" "$t/D" "$t/rec.data.tar.bz2"
perf --buildid-dir "$t/D" archive "$t/rec.data" >/dev/null 2>&1
result "perf --buildid-dir D archive: the archive has the binary # $id" has_member "$t/rec.data.tar.bz2" "$id"
result "perf --buildid-dir D archive: the binary is cached in D" test -e "$t/D/.build-id/${id:0:2}/${id:2}"
result "perf --buildid-dir D archive: nothing made in ~/.debug" test ! -e "$cache"
rm -rf "$cache" "$t/C" "$t/rec.data.tar.bz2"
printf '[buildid]\n\tdir = %s\n' "$t/C" >"$HOME/.perfconfig"
perf archive "$t/rec.data" >/dev/null 2>&1
result "buildid.dir = C, perf archive: the archive has the binary # $id" has_member "$t/rec.data.tar.bz2" "$id"
result "buildid.dir = C, perf archive: the binary is cached in C" test -e "$t/C/.build-id/${id:0:2}/${id:2}"
rm -f "$HOME/.perfconfig"

# 3. a name that forges a line: the recording renamed so, with the
# binary's own ID; ID2's binary is in the cache, by the user's hand
rm -rf "$cache" "$t/rec.data.tar.bz2" "$t/forged.data.tar.bz2"
perf buildid-cache -a "$other" >/dev/null 2>&1
forged=$(printf '/x\n%s /y: added z' "$id2")
if python3 "$(dirname "$0")/../perfdata-rename.py" "$t/rec.data" "$t/forged.data" "$bin" "$forged" "$id" 2>"$t/rename.err"; then
	perf archive "$t/forged.data" >/dev/null 2>&1
	result "a name with a newline and a forged line: the archive does not pack the forged ID # $id2" \
		not has_member "$t/forged.data.tar.bz2" "$id2"
	perf buildid-cache -a "$t/forged.data" --null >"$t/ids0" 2>/dev/null
	result "buildid-cache -a --null of it: never the forged ID" not grep -qaF "$id2" "$t/ids0"
else
	result "the recording renamed to a name with a newline" false
	sed 's/^/# /' "$t/rename.err"
fi
# and the plain recording: -a --null names its binary's cache link and
# entry, NUL-ended, and perf archive packs it from the cache -a filled
perf buildid-cache -a "$t/rec.data" --null >"$t/ids0" 2>/dev/null
# nul_entry_has FILE ID: FILE is paths each ended by a NUL, among them the
# cache link of ID and its entry's directory, .../ID, which are there
nul_entry_has() {
	[ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 00 ] &&
		tr '\0' '\n' <"$1" | grep -qx "\.build-id/${2:0:2}/${2:2}" &&
		[ -d "$cache/$(tr '\0' '\n' <"$1" | grep "/$2\$" | head -1)" ]
}
result "buildid-cache -a --null: the binary's cache link and entry, each ended by a NUL" nul_entry_has "$t/ids0" "$id"
perf archive "$t/rec.data" >/dev/null 2>&1
result "perf archive: the archive has the recorded binary # $id" has_member "$t/rec.data.tar.bz2" "$id"
echo "1..$n"
