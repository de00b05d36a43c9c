#!/bin/bash
# Profile now, symbolize later: a profile recorded with perf record
# --buildid-mmap names the binaries that ran by build ID, so it can be
# symbolized after they are deleted or replaced:
#  1. from a build-ID debug tree, as Debian's dbgsym packages install it
#     (/usr/lib/debug/.build-id/xx/rest.debug, here bind-mounted in a
#     private mount namespace, and under --symfs);
#  2. from elfutils' debuginfod, started here in a private network
#     namespace (loopback only) over the binaries and debug files, through
#     perf buildid-cache -a perf.data; and with the server hung or down: a
#     clear message, a bounded wait, and a report with what is known;
#  3. from perf archive, unpacked under another HOME.
# The test binaries (a program and a library, stripped as dbgsym packages
# do) are built here, with a fresh build ID each run; the symbols expected
# are their own function names, the build IDs are read with readelf -n.
# The replacement is the same code with other names (_v2), so that any
# symbol from it shows.
# usage: symbolize-later.sh [--mainline] PERF LABEL
# --mainline: PERF is a mainline perf; a check it is known to fail is
# XFAIL, with the reason, instead of FAIL. Prints PASS|FAIL|SKIP|XFAIL
# lines named LABEL/...; the details of failures go to stderr.
set -u

# check NAME CMD...: PASS when CMD succeeds, else FAIL (or XFAIL, with
# $cannot, for a mainline perf)
check() {
	local name=$1
	shift
	if "$@"; then
		echo "PASS $label/$name"
	elif [ -n "$mainline" ] && [ -n "$cannot" ]; then
		echo "XFAIL $label/$name # $cannot"
	else
		echo "FAIL $label/$name"
	fi
}
elf_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }

# report DATA [ARGS...], script DATA [ARGS...]: the symbols perf shows
report() {
	local data=$1
	shift
	"$perf" report -i "$data" --stdio -q --sort dso,sym "$@" 2>/dev/null
}
script() {
	local data=$1
	shift
	"$perf" script -i "$data" -F ip,sym,dso "$@" 2>/dev/null
}
# v1_symbols OUTPUT: the recorded binaries' functions, in their DSOs,
# and nothing of the replacement
v1_symbols() {
	if grep -Eq 'symlater +\[\.\] symlater_main_hot_v1$' <<<"$1" &&
		grep -Eq 'libsymlater\.so +\[\.\] symlater_lib_hot_v1$' <<<"$1" &&
		! grep -q '_v2' <<<"$1"; then
		return 0
	fi
	printf '%s: not the symbols of the recorded binaries:\n%s\n' "$label" "$1" | head -20 >&2
	return 1
}
v1_script() {
	if grep -Eq ' symlater_main_hot_v1 \(.*/app/symlater\)$' <<<"$1" &&
		grep -Eq ' symlater_lib_hot_v1 \(.*/app/libsymlater\.so\)$' <<<"$1" &&
		! grep -q '_v2' <<<"$1"; then
		return 0
	fi
	printf '%s: perf script: not the symbols of the recorded binaries:\n%s\n' \
		"$label" "$(sort <<<"$1" | uniq -c | sort -rn | head -10)" >&2
	return 1
}
# cached_id HOME ID: the build-ID cache under HOME has a file with ID
cached_id() {
	local f
	for f in "$1/.debug/.build-id/${2:0:2}/${2:2}"/{elf,debug}; do
		[ "$(elf_id "$f")" = "$2" ] && return 0
	done
	echo "$label: $2 is not in the build-ID cache of $1" >&2
	return 1
}

# one_message COUNT ERRFILE: perf said once that the server failed
one_message() {
	[ "$1" = 1 ] && return 0
	printf '%s: %s messages about the server:\n' "$label" "$1" >&2
	cat "$2" >&2
	return 1
}
# bounded SECONDS STATE: one query's wait at most
bounded() {
	[ "$1" -lt 9 ] && return 0
	echo "$label: perf buildid-cache took $1 s with the server $2" >&2
	return 1
}
# shows_what_it_can REPORT STATE: the library's symbols (it is at its
# path), the program's samples (it is gone), nothing of the replacement
shows_what_it_can() {
	if grep -Eq 'libsymlater\.so +\[\.\] symlater_lib_hot_v1$' <<<"$1" &&
		grep -Eq ' symlater +\[\.\] 0x[0-9a-f]+$' <<<"$1" && ! grep -q '_v2' <<<"$1"; then
		return 0
	fi
	printf '%s: with the server %s:\n%s\n' "$label" "$2" "$1" >&2
	return 1
}

# The debuginfod scenario, in the network namespace: serve $t/srv on a
# free port, then symbolize $t/rec.data with the binaries gone (the
# library) and replaced (the program), with the server up, hung and down.
debuginfod_part() {
	t=$1 perf=$2 label=$3 mainline=$4 cannot=$5
	local port ok id out err start secs timeout=2
	for port in $(shuf -i 20000-60000 -n 20); do
		# free when nothing answers there
		(: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
	done
	debuginfod -F -p "$port" -d "$t/debuginfod.sqlite" -t 0 -g 0 -c 1 \
		"$t/srv" >"$t/debuginfod.log" 2>&1 &
	srv=$!
	trap 'kill -CONT "$srv" 2>/dev/null; kill -KILL "$srv" 2>/dev/null' EXIT
	# ready when it serves both executables: at most 30 s
	for _ in $(seq 150); do
		ok=0
		for id in "$id_prog" "$id_lib"; do
			{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || continue
			printf 'GET /buildid/%s/executable HTTP/1.0\r\n\r\n' "$id" >&3
			read -r -t 5 out <&3
			exec 3<&-
			case $out in *" 200 "*) ok=$((ok + 1)) ;; esac
		done
		[ "$ok" = 2 ] && break
		sleep 0.2
	done
	if [ "$ok" != 2 ]; then
		tail -5 "$t/debuginfod.log" >&2
		echo "FAIL $label/debuginfod/server # did not serve the binaries within 30 s"
		return
	fi
	export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_TIMEOUT=$timeout

	# up: both binaries come from the server, and so do their debug files
	export HOME=$t/home-dfs DEBUGINFOD_CACHE_PATH=$t/dfs-cache
	mkdir -p "$HOME"
	"$perf" buildid-cache -a "$t/rec.data" >"$t/dfs.out" 2>&1
	check debuginfod/cache-has-the-recorded-program \
		cached_id "$HOME" "$id_prog"
	check debuginfod/cache-has-the-recorded-library \
		cached_id "$HOME" "$id_lib"
	check debuginfod/report-symbols v1_symbols "$(report "$t/rec.data")"
	check debuginfod/script-symbols v1_script "$(script "$t/rec.data")"

	# hung (stopped: connections are accepted, never answered) and down
	# (killed: refused). The library is back at its path, unstripped; the
	# program is not. One clear message, one wait at most (the client
	# tries 3 times by default, each up to DEBUGINFOD_TIMEOUT seconds, so
	# 9 s is one query with room, two would be 12 s), and the report has
	# the library's symbols and the program's samples.
	cp "$t/v1/libsymlater.so" "$t/app/libsymlater.so"
	rm -f "$t/app/symlater"
	kill -STOP "$srv"
	for state in hung down; do
		[ "$state" = down ] && { kill -CONT "$srv"; kill -KILL "$srv"; wait "$srv" 2>/dev/null; }
		export HOME=$t/home-$state DEBUGINFOD_CACHE_PATH=$t/$state-cache
		mkdir -p "$HOME"
		start=$(date +%s%N)
		"$perf" buildid-cache -a "$t/rec.data" >"$t/$state.out" 2>"$t/$state.err"
		secs=$((($(date +%s%N) - start) / 1000000000))
		err=$(grep -c "debuginfod.*$DEBUGINFOD_URLS" "$t/$state.err")
		check "debuginfod/server-$state/one-message" one_message "$err" "$t/$state.err"
		check "debuginfod/server-$state/bounded-wait" bounded "$secs" "$state"
		check "debuginfod/server-$state/report-shows-what-it-can" \
			shows_what_it_can "$(report "$t/rec.data")" "$state"
	done
}

# The debuginfod part runs in its own network namespace, where the
# server's port is on loopback only: the script runs itself there.
if [ "${1:-}" = --in-netns ]; then
	shift
	ip link set lo up || exit 1
	debuginfod_part "$@"
	exit 0
fi

mainline=
if [ "${1:-}" = --mainline ]; then
	mainline=1
	shift
fi
perf=$(command -v "$1") || { echo "FAIL ${2:-perf}/perf # $1 not found"; exit 0; }
label=$2
cannot=  # why a mainline perf is known to fail the checks that follow


t=$(mktemp -d "${TMPDIR:-/tmp}/symbolize-later.XXXXXX")
trap 'rm -rf "$t"' EXIT
unset DEBUGINFOD_URLS
export HOME=$t/home  # the build-ID cache, ~/.debug, starts empty
mkdir -p "$HOME" "$t/src" "$t/v1" "$t/v2" "$t/app" "$t/tree" "$t/srv"

# The program and its library, as version 1 and as a replacement (the
# same code, other names). SALT gives each run its own build IDs.
cat >"$t/src/lib.c" <<'EOF'
#define CAT(a, b) a##b
#define NAME(a, b) CAT(a, b)
static const char salt[] __attribute__((used)) = SALT;
static volatile unsigned long sink;

__attribute__((noinline)) static void NAME(symlater_lib_hot_, TAG)(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

void symlater_lib_run(unsigned long n)
{
	NAME(symlater_lib_hot_, TAG)(n);
}
EOF
cat >"$t/src/main.c" <<'EOF'
#include <stdlib.h>
#define CAT(a, b) a##b
#define NAME(a, b) CAT(a, b)
static const char salt[] __attribute__((used)) = SALT;
static volatile unsigned long sink;
void symlater_lib_run(unsigned long n);

__attribute__((noinline)) static void NAME(symlater_main_hot_, TAG)(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000;

	NAME(symlater_main_hot_, TAG)(n);
	symlater_lib_run(n);
	return 0;
}
EOF
salt="\"$(date +%s%N)-$$\""
for v in v1 v2; do
	# shellcheck disable=SC2016  # $ORIGIN is for the dynamic linker
	if ! gcc -g -O1 -fPIC -shared -DTAG="$v" -DSALT="$salt" -Wl,--build-id \
		-Wl,-soname,libsymlater.so -o "$t/$v/libsymlater.so" "$t/src/lib.c" ||
		! gcc -g -O1 -DTAG="$v" -DSALT="$salt" -Wl,--build-id -o "$t/$v/symlater" \
			"$t/src/main.c" -L"$t/$v" -lsymlater -Wl,-rpath,'$ORIGIN'; then
		echo "FAIL $label/build # gcc could not build the test binaries"
		exit 0
	fi
done
# dbgsym packaging: the debug file in the build-ID tree $t/tree (a copy
# of /usr/lib/debug) and in $t/srv for debuginfod; the binary stripped
# (dh_strip: --strip-unneeded for a library, all symbols for a program),
# with a debuglink.
for v in v1 v2; do
	mkdir -p "$t/$v/stripped"
	for f in symlater libsymlater.so; do
		id=$(elf_id "$t/$v/$f")
		dbg=$t/tree/.build-id/${id:0:2}/${id:2}.debug
		mkdir -p "${dbg%/*}"
		opt=--strip-all
		[ "$f" = symlater ] || opt=--strip-unneeded
		if ! objcopy --only-keep-debug "$t/$v/$f" "$dbg" ||
			! strip "$opt" -R .comment -o "$t/$v/stripped/$f" "$t/$v/$f" ||
			! objcopy --add-gnu-debuglink="$dbg" "$t/$v/stripped/$f"; then
			echo "FAIL $label/build # objcopy/strip failed"
			exit 0
		fi
	done
done
id_prog=$(elf_id "$t/v1/symlater") id_lib=$(elf_id "$t/v1/libsymlater.so")
if [ -z "$id_prog" ] || [ -z "$id_lib" ] || [ "$id_prog" = "$(elf_id "$t/v2/symlater")" ]; then
	echo "FAIL $label/build # no distinct build IDs in the test binaries"
	exit 0
fi
cp "$t/v1/stripped/symlater" "$t/v1/stripped/libsymlater.so" "$t/srv/"
cp "$t/tree/.build-id/${id_prog:0:2}/${id_prog:2}.debug" "$t/srv/symlater.debug"
cp "$t/tree/.build-id/${id_lib:0:2}/${id_lib:2}.debug" "$t/srv/libsymlater.so.debug"

install_v1() { cp "$t/v1/stripped/symlater" "$t/v1/stripped/libsymlater.so" "$t/app/"; }
install_v2() { cp "$t/v2/stripped/symlater" "$t/v2/stripped/libsymlater.so" "$t/app/"; }
# with_tree DIR CMD...: run CMD with DIR as /usr/lib/debug, in a private
# mount namespace (the system's tree is not touched)
with_tree() {
	# shellcheck disable=SC2016  # expanded by the inner sh
	unshare -m --propagation private -- \
		sh -c 'mount --bind "$0" /usr/lib/debug && exec "$@"' "$@"
}
can_tree=
if [ -d /usr/lib/debug ] && with_tree "$t/tree" true 2>/dev/null; then
	can_tree=1
fi

install_v1
if ! "$perf" record -q --buildid-mmap -o "$t/rec.data" -- \
	"$t/app/symlater" 300000000 >/dev/null 2>"$t/record.err"; then
	cat "$t/record.err" >&2
	echo "FAIL $label/record # perf record --buildid-mmap failed"
	exit 0
fi

# 3a. perf archive on the recording machine (binaries there, debug files
#     in /usr/lib/debug), and what report shows there: the symbols, from
#     the binaries and their debug files
if [ -n "$can_tree" ]; then
	mkdir -p "$t/home-rec"
	ref=$(HOME=$t/home-rec with_tree "$t/tree" "$perf" report -i "$t/rec.data" --stdio -q \
		--sort dso,sym 2>/dev/null)
	HOME=$t/home-rec with_tree "$t/tree" "$perf" archive "$t/rec.data" >"$t/archive.out" 2>&1
	# what mainline perf can do too: the stripped binaries are there
	check debug-tree/binaries-there/report v1_symbols "$ref"
fi

# 1. The binaries deleted, then replaced: symbols from the debug files of
#    the recorded build IDs, under --symfs and in /usr/lib/debug.
[ -n "$mainline" ] &&
	cannot="places a debug file's symbols by its own program headers, whose offsets are not the binary's"
rm -f "$t/app/symlater" "$t/app/libsymlater.so"
mkdir -p "$t/symfs/usr/lib/debug" "$t/symfs$t/app"
cp -a "$t/tree/.build-id" "$t/symfs/usr/lib/debug/"
cp "$t/v2/stripped/symlater" "$t/v2/stripped/libsymlater.so" "$t/symfs$t/app/"
check debug-tree/symfs-replaced/report v1_symbols "$(report "$t/rec.data" --symfs "$t/symfs")"
check debug-tree/symfs-replaced/script v1_script "$(script "$t/rec.data" --symfs "$t/symfs")"
if [ -n "$can_tree" ]; then
	check debug-tree/deleted/report v1_symbols "$(with_tree "$t/tree" "$perf" report -i "$t/rec.data" \
		--stdio -q --sort dso,sym 2>/dev/null)"
	check debug-tree/deleted/script v1_script "$(with_tree "$t/tree" "$perf" script -i "$t/rec.data" \
		-F ip,sym,dso 2>/dev/null)"
	install_v2
	check debug-tree/replaced/report v1_symbols "$(with_tree "$t/tree" "$perf" report -i "$t/rec.data" \
		--stdio -q --sort dso,sym 2>/dev/null)"
	check debug-tree/replaced/script v1_script "$(with_tree "$t/tree" "$perf" script -i "$t/rec.data" \
		-F ip,sym,dso 2>/dev/null)"
else
	echo "SKIP $label/debug-tree/usr-lib-debug # cannot bind-mount over /usr/lib/debug in a private mount namespace (needs root and /usr/lib/debug)"
fi

# 3b. The archive unpacked under another HOME, the binaries replaced and
#     an empty debug tree, as on another machine: the same report as on
#     the recording machine.
[ -n "$mainline" ] &&
	cannot="perf archive packs the build-ID cache only, which perf record --buildid-mmap does not fill"
if [ -n "$can_tree" ]; then
	install_v2
	in_archive() { # the binary and the debug file of each recorded ID
		local id f n=0
		for id in "$id_prog" "$id_lib"; do
			for f in elf debug; do
				tar xjf "$t/rec.data.tar.bz2" -O --wildcards "*/$id/$f" >"$t/x" 2>/dev/null &&
					[ "$(elf_id "$t/x")" = "$id" ] && n=$((n + 1))
			done
		done
		[ "$n" = 4 ] && return 0
		cat "$t/archive.out" >&2
		tar tjf "$t/rec.data.tar.bz2" >&2
		return 1
	}
	same_report() {
		[ -n "$1" ] && [ "$1" = "$2" ] && v1_symbols "$2" && return 0
		printf '%s: recording machine:\n%s\n-- archive:\n%s\n' "$label" "$1" "$2" >&2
		return 1
	}
	check archive/has-the-recorded-binaries-and-debug-files in_archive
	mkdir -p "$t/other/.debug"
	tar xjf "$t/rec.data.tar.bz2" -C "$t/other/.debug" 2>/dev/null
	mkdir -p "$t/no-tree"
	check archive/same-report-elsewhere same_report "$ref" \
		"$(HOME=$t/other with_tree "$t/no-tree" "$perf" report -i "$t/rec.data" \
			--stdio -q --sort dso,sym 2>/dev/null)"
else
	echo "SKIP $label/archive # the recording machine's debug tree needs a private mount namespace"
fi

# 2. debuginfod, in a private network namespace: the program replaced,
#    the library deleted
[ -n "$mainline" ] && cannot=
if [ -n "$mainline" ] && ! "$perf" version --build-options | grep -Eq '^ *debuginfod: \[ on  \]'; then
	echo "SKIP $label/debuginfod # $("$perf" version) is built without debuginfod, and its perf buildid-cache -a takes no perf.data"
elif ! command -v debuginfod >/dev/null; then
	echo "FAIL $label/debuginfod # no debuginfod server: apt-get install debuginfod"
elif ! unshare -n true 2>/dev/null; then
	echo "SKIP $label/debuginfod # cannot make a private network namespace (needs root), and debuginfod cannot listen on loopback only"
else
	install_v2
	rm -f "$t/app/libsymlater.so"
	id_prog=$id_prog id_lib=$id_lib unshare -n -- bash "$0" --in-netns "$t" "$perf" "$label" \
		"$mainline" "$cannot"
fi
