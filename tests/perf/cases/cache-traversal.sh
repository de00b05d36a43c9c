#!/bin/bash
# perf buildid-cache -a perf.data, and perf archive which runs it, put a
# binary into the build-ID cache under the file name recorded for it in the
# perf.data: ~/.debug/NAME/ID/. A crafted name must not make them write
# outside ~/.debug, nor elsewhere in it than where the name would be, nor
# make perf archive ship files from outside it or with member names that
# unpack outside where the archive is unpacked.
#
# A workload is recorded with perf record --buildid-mmap, then the file
# name of its MMAP2 records is rewritten (NUL padded in the same space,
# the record sizes kept) to one with "." or ".." or empty components, and
# its build ID to that of a debug file in /usr/lib/debug/.build-id, which
# perf adds for a binary gone from its path. Also: a directory of the cache
# that is a symbolic link out of it, and a cache link planted by an older
# perf that leads out of it (perf archive only), and a name in the cache's
# own .build-id directory of links. Checked: nothing is made
# outside ~/.debug (listings of the test directory, which holds HOME and
# the directory the names lead to, before and after), a message names
# what was refused, the exit status, and the members of the archive.
# usage: cache-traversal.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/cache-traversal.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t/home # the build-ID cache, ~/.debug, starts empty
out=$t/out          # where the crafted names lead, outside HOME
work=$t/work        # the test's own files
mkdir -p "$HOME" "$out" "$work/bin"
unset DEBUGINFOD_URLS PERF_BUILDID_DIR
cache=$HOME/.debug
n=0
skip_all() {
	n=$((n + 1))
	echo "ok $n # SKIP $1"
	echo "1..$n"
	exit 0
}

# rewrite IN OUT OLD NEW ID: the MMAP2 records of the file OLD in IN named
# NEW, with the build ID ID, into OUT
rewrite() { python3 "$(dirname "$0")/../perfdata-rename.py" "$@"; }

# listing: what is in the test directory, but in ~/.debug and the test's
# own files
listing() {
	find "$t" \( -path "$cache" -o -path "$work" \) -prune -o -print | sort
}
# nothing_new BEFORE: no file or directory made outside ~/.debug
nothing_new() {
	local new f
	new=$(comm -13 "$1" <(listing))
	[ -z "$new" ] && return 0
	while read -r f; do echo "# made: $f"; done <<<"$new" >&2
	return 1
}
# says FILE TEXT: FILE (messages) has TEXT
says() {
	grep -qF -- "$2" "$1" && return 0
	echo "# no message with '$2':" >&2
	sed 's/^/#   /' "$1" >&2
	return 1
}
# archive_members_inside DATA: the members of the archive of DATA, if it
# made one, are relative, without "..", and files of ~/.debug
archive_members_inside() {
	local m ok=0
	[ -f "$1.tar.bz2" ] || return 0
	if grep -q "Removing leading" "$work/archive.out"; then
		echo "# tar: $(grep "Removing leading" "$work/archive.out" | head -1)" >&2
		ok=1
	fi
	while read -r m; do
		case "/$m/" in
		//* | */../*)
			echo "# archive member $m" >&2
			ok=1
			continue
			;;
		esac
		if [ ! -e "$cache/$m" ] && [ ! -L "$cache/$m" ]; then
			echo "# archive member $m is not a file of ~/.debug" >&2
			ok=1
		fi
	done < <(tar tjf "$1.tar.bz2" 2>/dev/null)
	return $ok
}

# The workload, under a long name for the crafted names to fit in its place
bin=$work/bin/spin-with-a-long-name-for-the-crafted-names-to-fit-in-its-place-in-the-mmap2-records-of-perf-data
cp "$w/spin-sha1" "$bin" || exit 1
if ! perf record -q --buildid-mmap -o "$work/perf.data" -- "$bin" 30000000 >/dev/null 2>&1; then
	skip_all "perf record --buildid-mmap does not work here"
fi

# A debug file perf takes for a binary gone from its path: one with a build
# ID not in the recording
recorded=$(perf buildid-list -i "$work/perf.data" 2>/dev/null)
debug_id=
for f in /usr/lib/debug/.build-id/??/*.debug; do
	[ -f "$f" ] || continue
	id=${f#/usr/lib/debug/.build-id/}
	id=${id%.debug}
	id=${id/\//}
	if [ ${#id} -eq 40 ] && [ "$(elf_id "$f")" = "$id" ] &&
		! grep -q "^$id " <<<"$recorded"; then
		debug_id=$id debug_file=$f
		break
	fi
done
[ -n "$debug_id" ] || skip_all "no debug file in /usr/lib/debug/.build-id to add"
echo "# the crafted names get the build ID $debug_id of $debug_file"

# up: enough ".." from ~/.debug to reach /
up=$(tr -cd / <<<"$cache" | sed 's|/|../|g')../

# fresh: HOME, the cache in it and the directory the names lead to as at
# the start, then the cache as the function $setup makes it
fresh() {
	rm -rf "$HOME" "$out" &&
		mkdir -p "$cache" "$out" &&
		"$setup"
}
no_setup() { :; }
# A directory of the cache that is a symbolic link out of it
link_dir() { ln -s "$out" "$cache/lnk"; }
link_build_id() { mkdir -p "$out/bid" && ln -s "$out/bid" "$cache/.build-id"; }
# A cache link, as an older perf made for a crafted name, out of the cache
# to an entry with the right debug file
planted_link() {
	local link=$cache/.build-id/${debug_id:0:2}/${debug_id:2}

	mkdir -p "$out/planted/$debug_id" "${link%/*}" &&
		cp "$debug_file" "$out/planted/$debug_id/debug" &&
		ln -s "../../$up${out#/}/planted/$debug_id" "$link"
}

# variant LABEL NAME WHAT: the workload recorded as NAME, the cache made by
# the function $setup; WHAT the text that a message about the refusal has
# to have; $archive_only set: perf buildid-cache -a is not checked
variant() {
	local label=$1 name=$2 what=$3 data=$work/$1.data before=$work/$1.before rc
	rm -f "$data.tar.bz2"
	rewrite "$work/perf.data" "$data" "$bin" "$name" "$debug_id" >&2 || {
		result "$label: perf.data with the name $name made" false
		return
	}
	fresh
	listing >"$before"
	perf buildid-cache -a "$data" >"$work/add.out" 2>"$work/add.err"
	rc=$?
	if [ -z "$archive_only" ]; then
		result "$label: buildid-cache -a: nothing made outside ~/.debug" nothing_new "$before"
		result "$label: buildid-cache -a: a message names the path # $what" says "$work/add.err" "$what"
		result "$label: buildid-cache -a: exit status not 0 # $rc" [ "$rc" -ne 0 ]
	fi
	fresh
	listing >"$before"
	perf archive "$data" >"$work/archive.out" 2>&1
	result "$label: archive: nothing made outside ~/.debug" nothing_new "$before"
	result "$label: archive: the members stay in the archive's root, all from ~/.debug" \
		archive_members_inside "$data"
	if [ -n "$archive_only" ] && [ -n "$what" ]; then
		result "$label: archive: a message names the path # $what" says "$work/archive.out" "$what"
	fi
}

setup=no_setup archive_only=
variant dotdot "/$up${out#/}/evil1" "/$up${out#/}/evil1"
variant dotdot-in-home /a/../../evil2 /a/../../evil2
variant dot /./evil3 /./evil3
variant empty //evil4/../evil4b //evil4/../evil4b
setup=link_dir
variant link-dir /lnk/evil5 "$cache/lnk"
setup=link_build_id
variant link-build-id /gone/evil6 "$cache/.build-id"
setup=planted_link archive_only=1
# (perf names the link it refuses, ~/.debug/.build-id/xx/...)
variant planted-link /gone/evil7 "${debug_id:2} is a link to ../../"
# a name in the cache's own directory of links: its entry would take the
# place of another build ID's link (that of the first .build-id link
# the recording made, here given another name)
setup=no_setup archive_only=
slot=/.build-id/${debug_id:0:2}/${debug_id:2}
variant build-id-dir "$slot" "$slot"
result "build-id-dir: no entry made in the place of the ID's link" \
	[ ! -d "$cache$slot/$debug_id" ]
# a plain absolute name whose cache entry, as an archive member, starts
# with "-": tar -T takes such a line as an option unless --null, and
# --files-from=LIST would pack what LIST names (a file outside ~/.debug,
# which archive_members_inside would find)
file_list() { echo hush >"$out/secret" && echo "$out/secret" >"$out/evil8"; }
# dash_packed: the entry is in the archive under its own name
dash_packed() {
	tar tjf "$work/dash.data.tar.bz2" 2>/dev/null |
		grep -qxF -- "--files-from=$out/evil8/$debug_id/"
}
setup=file_list archive_only=1
variant dash "/--files-from=$out/evil8" ""
result "dash: archive: the entry packed under its name, not read as an option" dash_packed
echo "1..$n"
