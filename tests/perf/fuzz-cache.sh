#!/bin/bash
# What perf buildid-cache -a and perf archive do with the names a perf.data
# from elsewhere carries: a recording whose MMAP2 records are renamed to
# generated hostile names (".." and "." components, empty ones, leading
# "-", control bytes, long ones, names through symbolic links out of the
# cache, and names of a FIFO, a character and a block device, a socket, a
# directory and a symbolic link loop that the test places there), each
# with the recorded build ID or another (names with newlines, tabs and
# bytes that are not UTF-8 among them). For each variant: buildid-cache
# -a and archive, then --purge-all, into ~/.debug or in turn the cache
# of perf --buildid-dir or of the buildid.dir setting; and once per
# name a hostile cache, whose .build-id link of the binary leads to ../..NAME,
# under --remove, --purge-all and --update (a victim directory outside
# HOME waits where the traversal names lead). Each variant is run under a
# private HOME, chrooted into an overlay of the root file system (a
# private mount namespace; the overlay's upper layer shows every file
# made or changed anywhere). Fails when
#  - a file outside that HOME (and the archive perf archive writes next to
#    the perf.data) appears or changes;
#  - a command takes longer than the limit (a hang on a special file);
#  - a command crashes or the sanitizers report (the perf given is the
#    sanitized one in tier 55).
# The detector is checked first: a canary written outside HOME must be
# found.
#
# (perf exits with -errno, above 128 too: a signal is told by its number
# or by the sanitizers' report.)
# usage: fuzz-cache.sh PERF RECORDING_PERF WORKLOAD_DIR OUTDIR [COUNT]
# COUNT: the generated names beside the fixed ones (default 16); the seed of
# the generator is FUZZ_SEED (default 1). Needs root; TAP on stdout.
set -u
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
limit=${FUZZ_TIMEOUT:-10}

if [ "${1:-}" = --inside ]; then
	# in the chroot: run every variant, one after the other; after each,
	# what the upper layer (seen at $t/upper, the root file system itself
	# at $t/lower) has anew goes to its .made file, as "made PATH",
	# "changed PATH" or "removed PATH". A file copied up with the same
	# bytes and mode (a hard link to it was made: perf's cache links
	# binaries where it can) and a directory copied up on the way to one
	# are not changes.
	shift
	perf=$1 t=$2 bin=$3 id=$4
	classify() {
		local up=$t/upper/$1 low=$t/lower/$1
		if [ -c "$up" ] && [ "$(stat -c %t:%T "$up")" = 0:0 ]; then
			echo "removed ${1#.}"
		elif [ ! -e "$low" ] && [ ! -L "$low" ]; then
			echo "made ${1#.}"
		elif [ -d "$up" ] && [ ! -L "$up" ] && [ -d "$low" ] && [ ! -L "$low" ]; then
			:
		elif [ -f "$up" ] && [ ! -L "$up" ] && [ -f "$low" ] && [ ! -L "$low" ] &&
			cmp -s "$up" "$low" &&
			[ "$(stat -c %a:%u:%g "$up")" = "$(stat -c %a:%u:%g "$low")" ]; then
			:
		else
			echo "changed ${1#.}"
		fi
	}
	asan="exitcode=99:detect_leaks=0:allocator_may_return_null=1:handle_abort=1:handle_sigill=1"
	ubsan="exitcode=98:halt_on_error=1:print_stacktrace=1"
	listing() { (cd "$t/upper" && find . -mindepth 1 | sort); }
	listing >"$t/run/start.list"
	# the canary: the detector must see it
	echo canary >"$t/outside/canary"
	listing >"$t/run/canary.list"
	comm -13 "$t/run/start.list" "$t/run/canary.list" |
		while read -r p; do classify "$p"; done >"$t/run/canary.made"
	rm -f "$t/outside/canary"
	prev=$t/run/canary.list
	# run CMD HOME ARGS...: perf ARGS with that HOME, as command CMD of $v
	run() {
		local cmd=$1 start
		start=$(date +%s%N)
		HOME=$2 ASAN_OPTIONS="$asan:log_path=$o.$cmd.san" \
			UBSAN_OPTIONS="$ubsan:log_path=$o.$cmd.san" \
			timeout -k 5 "$limit" "$perf" "${@:3}" >"$o.$cmd.out" 2>&1 </dev/null
		echo "$? $((($(date +%s%N) - start) / 1000000))" >"$o.$cmd.rc"
	}
	while read -r v; do
		o=$t/run/$v
		h=$t/home/$v
		eval "name=$(grep -P "^$v\t" "$t/v/names" | cut -f2)" # printf %q
		mkdir -p "$h"
		# the cache: ~/.debug, or in turn the one perf --buildid-dir or
		# the buildid.dir setting chooses (in HOME too)
		dir=()
		case $((10#$v % 3)) in
		1) dir=(--buildid-dir "$h/chosen") ;;
		2) printf '[buildid]\n\tdir = %s\n' "$h/configured" >"$h/.perfconfig" ;;
		esac
		run buildid-cache "$h" "${dir[@]}" buildid-cache -a "$t/v/$v.data"
		run archive "$h" "${dir[@]}" archive "$t/v/$v.data"
		# and then out of the cache again, whatever the names made there
		run purge-all "$h" "${dir[@]}" buildid-cache --purge-all
		# a hostile cache, once per name (the variants below 500 have the
		# binary's ID): the binary's .build-id link replaced by one to
		# ../..NAME (an entry's link is to ../../NAME/ID), then each
		# command that removes an entry by its link
		hostile=(remove purge update)
		[ $((10#$v)) -lt 500 ] || hostile=()
		for cmd in "${hostile[@]}"; do
			hh=$h-hostile-$cmd # as deep as $h: the traversal names fit it
			link=$hh/.debug/.build-id/${id:0:2}/${id:2}
			mkdir -p "${link%/*}" && ln -sfn "../..$name" "$link"
			case $cmd in
			remove) run remove "$hh" buildid-cache --remove "$bin" ;;
			purge) run purge "$hh" buildid-cache --purge-all ;;
			update) run update "$hh" buildid-cache --update "$bin" ;;
			esac
		done
		listing >"$o.list"
		comm -13 "$prev" "$o.list" | while read -r p; do classify "$p"; done >"$o.made"
		prev=$o.list
	done <"$t/v/list"
	exit 0
fi

if [ $# -lt 4 ]; then
	echo "usage: $0 PERF RECORDING_PERF WORKLOAD_DIR OUTDIR [COUNT]" >&2
	exit 2
fi
perf=$(realpath "$1") rec=$(realpath "$2") w=$(realpath "$3") t=$4 count=${5:-16}
n=0
skip_all() {
	echo "ok 1 # SKIP $1"
	echo "1..1"
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "needs root (a mount namespace, an overlay, a chroot)"
rm -rf "$t"
mkdir -p "$t" && t=$(realpath "$t")
[ "$(findmnt -no TARGET -T "$t")" = / ] ||
	skip_all "$t is not on the root file system, which the overlay covers"
mkdir -p "$t/v" "$t/run" "$t/home" "$t/outside" "$t/spec" "$t/upper" "$t/lower" "$t/bin"

# The workload, under a long name that the generated names fit in
bin=$t/bin/spin-with-a-long-name-for-generated-names-to-fit-in-its-place-in-the-mmap2-records-of-the-perf-data-file-that-perf-record-writes-for-it-here-and-a-little-more-to-make-room-for-long-components
cp "$w/spin-sha1" "$bin" || exit 1
if ! "$rec" record -q --buildid-mmap -o "$t/seed.data" -- "$bin" 30000000 >/dev/null 2>&1; then
	skip_all "perf record --buildid-mmap does not work here"
fi
id=$(elf_id "$bin")

# What the names lead to: special files, a link out of the test, a loop
mkfifo "$t/spec/fifo"
mknod "$t/spec/chr" c 1 3
mknod "$t/spec/blk" b 7 0
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$t/spec/sock"
mkdir "$t/spec/dir"
ln -s loop "$t/spec/loop"
ln -s "$t/outside" "$t/spec/out"
cp "$bin" "$t/outside/copy"
# a directory a removal that follows a link out of the cache would delete
# (with the binary as its elf: --update removes only an entry it finds)
mkdir -p "$t/outside/victim/$id"
echo keep >"$t/outside/victim/$id/file"
cp "$bin" "$t/outside/victim/elf"

# The names: fixed ones, then generated from components
up=$(tr -cd / <<<"$t/home/x/.debug" | sed 's|/|../|g')
names=(
	"$t/spec/fifo" "$t/spec/chr" "$t/spec/blk" "$t/spec/sock" "$t/spec/dir"
	"$t/spec/loop" "$t/spec/loop/x" "$t/spec/out/copy" "$t/spec/out/new"
	"/$up${t#/}/outside/e1" "/a/../../e2" "/./e3" "//e4/../e5" "/-e6"
	"/--files-from=$t/outside/e7" "/../../../..$t/outside/copy" "relative/e8"
	"" "/" "/.." "/e9/." "$(printf '/e10\nnext')" "$(printf '/e11\001\033[2J')"
	"/.debug/../../e12" "/$(printf 'x%.0s' {1..120})/e13"
	# names that lead to a copy of the binary (the recorded ID) outside
	"$t/bin/../outside/copy" "$t/./outside/copy" "$t//outside//copy"
	"$t/spec/out/../outside/copy" "/-$t/outside/copy"
	# tabs, bytes that are not UTF-8, and ways to the victim
	"$(printf '/e14\tx')" "$(printf '/e15\377\376')" "/$up${t#/}/outside/victim"
	"/../../../..$t/outside/victim" "$(printf '/x\n%s /y: added z' "$id")"
)
fixed=${#names[@]}
parts=(.. . "" x -x --x .debug .build-id "$t/spec/fifo" "$t/spec/out" "$t/outside"
	"$(printf '\001')" "a b" "*" "?" "\\" "$(printf 'y%.0s' {1..60})" "$up"
	"$(printf '\t')" "$(printf '\377')" "$(printf '\n')" victim)
RANDOM=${FUZZ_SEED:-1}
for ((i = 0; i < count; i++)); do
	name=
	for ((k = 0; k < 1 + RANDOM % 6; k++)); do
		name=$name/${parts[RANDOM % ${#parts[@]}]}
	done
	names+=("$name")
done
: >"$t/v/list"
made=0
# variant V NAME ID: the recording, renamed NAME, with the build ID ID
variant() {
	python3 "$here/perfdata-rename.py" "$t/seed.data" "$t/v/$1.data" "$bin" "$2" "$3" \
		2>>"$t/rename.err" || return 1
	printf '%s\n' "$1" >>"$t/v/list"
	printf '%s\t%q\n' "$1" "$2" >>"$t/v/names"
}
# each fixed name with the binary's build ID and with one nothing has (so
# that only the path is tried); the generated ones with either in turn
for i in "${!names[@]}"; do
	variant "$(printf '%03d' "$i")" "${names[$i]}" "$id" && made=$((made + 1))
	if [ "$i" -lt "$fixed" ] || [ $((i % 2)) = 1 ]; then
		variant "$(printf '%03d' "$((i + 500))")" "${names[$i]}" "$(printf '%040x' $((i + 1)))" &&
			made=$((made + 1))
	fi
done
total=$((${#names[@]} + fixed + count / 2))
result "$made perf.data files with hostile names (of $total)" [ "$made" -ge $((total * 3 / 4)) ]

# The overlay: lower /, upper on a tmpfs, mounted at $t/root; /proc, /dev
# and /sys from the host; $t/upper shows the upper layer inside
# shellcheck disable=SC2016 # expanded by the inner bash
unshare -m --propagation private -- bash -c '
	set -e
	t=$1 perf=$2 script=$3 bin=$4 id=$5
	mkdir -p "$t/ovl" "$t/root"
	mount -t tmpfs tmpfs "$t/ovl"
	mkdir "$t/ovl/up" "$t/ovl/work"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$t/ovl/up,workdir=$t/ovl/work" "$t/root"
	for m in proc dev sys; do mount --rbind "/$m" "$t/root/$m"; done
	mount --bind "$t/run" "$t/root$t/run"
	mount --bind "$t/ovl/up" "$t/root$t/upper"
	mount --bind / "$t/root$t/lower"
	chroot "$t/root" /bin/bash "$script" --inside "$perf" "$t" "$bin" "$id"
' - "$t" "$perf" "$here/fuzz-cache.sh" "$bin" "$id" 2>"$t/inside.err"
rc=$?
if ! result "the variants ran in the overlay (exit $rc)" [ "$rc" = 0 ]; then
	sed 's/^/# /' "$t/inside.err" >&2
	echo "1..$n"
	exit 0
fi
result "the detector sees a file made outside HOME" grep -qx "made $t/outside/canary" "$t/run/canary.made"

# allowed V PATH: PATH may be made in variant V: HOME and the archive
allowed() {
	case $2 in
	"$t/home/$1" | "$t/home/$1"/* | "$t/home/$1"-hostile-* | "$t/v/$1.data.tar.bz2") return 0 ;;
	esac
	return 1
}
cmds=(buildid-cache archive purge-all remove purge update)
outside=0 slow=0 bad=0
while read -r v; do
	while read -r what p; do
		[ -n "$p" ] || continue
		allowed "$v" "$p" && continue
		outside=$((outside + 1))
		echo "# $v ($(grep -P "^$v\t" "$t/v/names" | cut -f2)): $what $p" >&2
	done <"$t/run/$v.made"
	for cmd in "${cmds[@]}"; do
		[ -f "$t/run/$v.$cmd.rc" ] || continue
		read -r rc _ <"$t/run/$v.$cmd.rc"
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			slow=$((slow + 1))
			echo "# $v ($(grep -P "^$v\t" "$t/v/names" | cut -f2)): perf $cmd did not end within ${limit}s" >&2
		elif [ "$rc" = 98 ] || [ "$rc" = 99 ] || [[ " 132 134 135 136 139 " == *" $rc "* ]] ||
			grep -Eqs 'ERROR: AddressSanitizer|runtime error:|DEADLYSIGNAL' "$t/run/$v.$cmd".san* "$t/run/$v.$cmd.out"; then
			bad=$((bad + 1))
			echo "# $v ($(grep -P "^$v\t" "$t/v/names" | cut -f2)): perf $cmd exit $rc, sanitizer or signal:" >&2
			grep -hE 'ERROR|runtime error|^ +#[0-9] ' "$t/run/$v.$cmd".san* "$t/run/$v.$cmd.out" 2>/dev/null |
				head -8 | sed 's/^/#   /' >&2
		fi
	done
done <"$t/v/list"
what="buildid-cache -a, --purge-all, --remove, --update and archive, with --buildid-dir and buildid.dir too"
result "$what: no file made, changed or removed outside HOME ($outside)" [ "$outside" = 0 ]
result "$what: each ended within ${limit}s ($slow did not)" [ "$slow" = 0 ]
result "$what: no crash, signal or sanitizer report ($bad)" [ "$bad" = 0 ]
max=$(cat "$t"/run/*.rc | awk '$2 > m { m = $2 } END { print m + 0 }')
echo "# the slowest command took ${max} ms"
echo "1..$n"
