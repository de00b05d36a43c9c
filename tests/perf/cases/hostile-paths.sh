#!/bin/bash
# A recorded binary's path that holds something else by now: no perf
# command may block on it, or take it for a binary. A program is
# recorded (classic, and with --buildid-mmap), then the file at its path
# is replaced by each of: a FIFO (mkfifo), a character device (a symlink
# to /dev/zero), a UNIX socket, a directory, a symlink loop, and a file
# that cannot be read (mode 000, read by the nobody user: root's reads
# ignore the mode). Each command that opens binaries by path is run on
# it under timeout 20: perf report, script, annotate, buildid-list,
# buildid-cache -a perf.data (both recordings), inject -b, archive, and
# perf record -p of a process that still runs the program
# (--buildid-mmap synthesis): once with the program deleted and replaced
# (its maps line says "(deleted)"), and once with the thing mounted over
# the program's path in the process's private mount namespace (its maps
# line names the path, which perf opens: as root through
# /proc/PID/map_files, as nobody, who may not, as /proc/PID/root/PATH).
# Each must end within LIMIT seconds (5: they take well under one with
# a regular file), the build-ID cache must hold no file that is not a
# regular file, and perf buildid-cache -v says what it found there. And
# perf annotate of a recording without build IDs, with the symbols from
# /usr/lib/debug/PATH.debug (a debug tree mounted there in a private
# mount namespace), runs no objdump on what is at the path.
# usage: hostile-paths.sh WORKLOAD_DIR (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
LIMIT=5
t=$(mktemp -d "${TMPDIR:-/tmp}/hostile-paths.XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
export HOME=$t/home
mkdir -p "$HOME" "$t/app" "$t/nobody"
n=0

# as nobody, for the unreadable file (root reads it whatever its mode)
can_nobody=
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
if [ "$(id -u)" = 0 ] && "${nobody[@]}" true 2>/dev/null; then
	can_nobody=1
	chmod 755 "$t" "$t/app"
	chown nobody "$t/nobody"
	# a copy nobody can run: the tree may be where only root enters
	mkdir -p "$t/bin"
	cp "$(command -v perf)" "$t/bin/perf"
	PATH=$t/bin:$PATH
	# else every run as nobody would "end by itself" at once, and pass
	"${nobody[@]}" perf version >/dev/null 2>&1 || can_nobody=
fi

# timed NAME CMD...: run perf CMD under timeout 20, the output in
# $t/NAME.out and .err; fine when it ended by itself within LIMIT s
timed() {
	local name=$1 start ms rc
	shift
	start=$(date +%s%N)
	# in a session of its own, killed 2 s after the TERM at 20 s if need be
	setsid -w timeout -k 2 20 "$@" >"$t/$name.out" 2>"$t/$name.err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	# 124: timeout ended it (137: with KILL); 129-254: a signal (perf
	# exits 255 on errors)
	if [ "$rc" = 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -lt 255 ]; }; then
		echo "# $name: $* did not end by itself (exit $rc, $ms ms)"
		tail -3 "$t/$name.err" | sed 's/^/#   /'
		return 1
	fi
	# 126, 127: perf did not run at all, which proves nothing
	if [ "$rc" = 126 ] || [ "$rc" = 127 ]; then
		echo "# $name: $* could not be run (exit $rc)"
		tail -3 "$t/$name.err" | sed 's/^/#   /'
		return 1
	fi
	if [ "$ms" -ge $((LIMIT * 1000)) ]; then
		echo "# $name: $* took $ms ms, more than $LIMIT s"
		return 1
	fi
	return 0
}

# no FIFO, device or socket in the build-ID cache of HOME $1
cache_clean() {
	local odd
	[ -d "$1/.debug" ] || return 0
	odd=$(find "$1/.debug" ! -type f ! -type d ! -type l)
	[ -z "$odd" ] && return 0
	echo "# in the build-ID cache: $odd"
	return 1
}

# make KIND PATH: put a KIND where the program was
make_kind() {
	rm -rf "$2"
	case $1 in
	fifo) mkfifo "$2" ;;
	chardev) ln -s /dev/zero "$2" ;;
	socket)
		python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$2"
		;;
	directory) mkdir "$2" ;;
	symlink-loop) ln -s "${2##*/}" "$2" ;;
	unreadable) cp "$w/spin-sha1" "$2" && chmod 000 "$2" ;;
	esac
}
# what perf buildid-cache -v says it found, for the kinds it can say
said() {
	case $1 in
	fifo) echo "is a FIFO" ;;
	chardev) echo "is a character device" ;;
	socket) echo "is a socket" ;;
	directory) echo "is a directory" ;;
	esac
}

app=$t/app/spin
cp "$w/spin-sha1" "$app"
if ! perf record -q -o "$t/cl.data" -- "$app" 30000000 >/dev/null 2>"$t/record.err" ||
	! perf record -q --buildid-mmap -o "$t/bm.data" -- "$app" 30000000 >/dev/null 2>>"$t/record.err"; then
	sed 's/^/# /' "$t/record.err"
	echo "not ok 1 record"
	echo "1..1"
	exit 0
fi
chmod 644 "$t/cl.data" "$t/bm.data"
# without build IDs, and symbols from a debug tree by path (bind-mounted
# over /usr/lib/debug): perf annotate runs objdump on the file at the
# program's path
perf record -q -B -o "$t/nobid.data" -- "$app" 30000000 >/dev/null 2>&1
mkdir -p "$t/dbg${app%/*}"
cp "$w/spin-sha1" "$t/dbg$app.debug"
# annotate_objdump KIND: objdump is not run on it
annotate_objdump() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	if ! timed "$1-annotate-objdump" unshare -m --propagation private -- sh -c \
		'mount --bind "$0" /usr/lib/debug && exec "$@"' "$t/dbg" \
		perf annotate -v -i "$t/nobid.data" --stdio main; then
		return 1
	fi
	grep -q '^objdump: ' "$t/$1-annotate-objdump.err" || return 0
	grep '^objdump: ' "$t/$1-annotate-objdump.err" | sed 's/^/# /'
	return 1
}

# start_spin AS: the program running as AS (root or nobody) from $app,
# its pid in $spin
start_spin() {
	if [ "$1" = nobody ]; then
		"${nobody[@]}" "$app" 0xffffffffffffffff &
	else
		"$app" 0xffffffffffffffff &
	fi
	spin=$!
	pids+=("$spin")
	for _ in $(seq 50); do
		[ "$(readlink "/proc/$spin/exe" 2>/dev/null)" = "$app" ] && return 0
		sleep 0.1
	done
	return 0
}
stop_spin() { kill -KILL "$spin" 2>/dev/null; wait 2>/dev/null; }

# mounted over $app: what is bind-mounted for KIND, none when it cannot be
can_mount=
[ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null && can_mount=1
mount_source() {
	case $1 in
	fifo) [ -p "$t/obj-fifo" ] || mkfifo "$t/obj-fifo"; echo "$t/obj-fifo" ;;
	chardev) echo /dev/zero ;;
	socket)
		[ -S "$t/obj-socket" ] || make_kind socket "$t/obj-socket"
		echo "$t/obj-socket"
		;;
	unreadable)
		[ -f "$t/obj-unreadable" ] || make_kind unreadable "$t/obj-unreadable"
		echo "$t/obj-unreadable"
		;;
	esac
}
# mounted_spin SOURCE AS: the program running as AS from $app in a private
# mount namespace, with SOURCE bind-mounted over $app there once it runs;
# its pid in $spin
mounted_spin() {
	local runner=()
	[ "$2" = nobody ] && runner=("${nobody[@]}")
	rm -f "$t/pid"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m --propagation private -- bash -c '
		"${@:4}" "$1" 0xffffffffffffffff &
		pid=$!
		sleep 0.3
		mount --bind "$2" "$1" || { kill "$pid"; exit 1; }
		echo "$pid" >"$3"
		wait "$pid"' mounted "$app" "$1" "$t/pid" "${runner[@]}" 2>/dev/null &
	pids+=($!)
	for _ in $(seq 50); do
		[ -s "$t/pid" ] && break
		sleep 0.1
	done
	spin=$(cat "$t/pid" 2>/dev/null) || return 1
	pids+=("$spin")
}

for kind in fifo chardev socket directory symlink-loop unreadable; do
	as=
	if [ "$kind" = unreadable ]; then
		if [ -z "$can_nobody" ]; then
			skip "$kind" "needs root to run perf as nobody (root reads a mode 000 file)"
			continue
		fi
		as=nobody
	fi
	# a process that still runs the program, for perf record -p
	start_spin "${as:-root}"
	make_kind "$kind" "$app"
	export HOME=$t/home-$kind
	mkdir -p "$HOME"
	d=$t
	run=()
	if [ -n "$as" ]; then
		d=$t/nobody/$kind
		"${nobody[@]}" mkdir -p "$d" "$d/home"
		cp "$t/cl.data" "$t/bm.data" "$d/"
		export HOME=$d/home
		run=("${nobody[@]}")
	fi
	result "$kind/report" timed "$kind-report" "${run[@]}" perf report -i "$d/cl.data" --stdio -q
	result "$kind/script" timed "$kind-script" "${run[@]}" perf script -i "$d/cl.data"
	result "$kind/annotate" timed "$kind-annotate" "${run[@]}" perf annotate -i "$d/cl.data" --stdio
	result "$kind/buildid-list" timed "$kind-buildid-list" "${run[@]}" perf buildid-list -i "$d/cl.data"
	result "$kind/buildid-cache-a-classic" timed "$kind-bc-cl" "${run[@]}" perf buildid-cache -v -a "$d/cl.data"
	result "$kind/buildid-cache-a-buildid-mmap" timed "$kind-bc-bm" "${run[@]}" perf buildid-cache -a "$d/bm.data"
	result "$kind/inject-b" timed "$kind-inject" "${run[@]}" perf inject -b -i "$d/cl.data" -o "$d/inj.data"
	result "$kind/archive" timed "$kind-archive" "${run[@]}" perf archive "$d/cl.data"
	result "$kind/record-p-${as:-root}" timed "$kind-record-p" "${run[@]}" \
		perf record -q --buildid-mmap -p "$spin" -o "$d/p.data" -- sleep 0.3
	stop_spin
	# the program running, and the thing mounted over its path: the maps
	# line names the path, not "(deleted)", and perf opens the path
	if [ -z "$can_mount" ]; then
		skip "$kind/record-p-mounted-over" "needs root for a private mount namespace"
	elif [ -z "$(mount_source "$kind")" ]; then
		skip "$kind/record-p-mounted-over" "a $kind cannot be mounted over a file"
	else
		for who in root nobody; do
			[ "$who" = nobody ] && [ -z "$can_nobody" ] && continue
			[ "$who" = root ] && [ "$kind" = unreadable ] && continue
			rm -rf "$app"
			cp "$w/spin-sha1" "$app"
			if ! mounted_spin "$(mount_source "$kind")" "$who"; then
				result "$kind/record-p-mounted-over-$who" false
				continue
			fi
			r=$t/nobody/mnt-$kind-$who
			mkdir -p "$r"
			chown nobody "$r" 2>/dev/null
			run=()
			[ "$who" = nobody ] && run=("${nobody[@]}")
			result "$kind/record-p-mounted-over-$who" timed "$kind-record-p-mnt-$who" \
				"${run[@]}" env HOME="$r" perf record -q --buildid-mmap -p "$spin" \
				-o "$r/p.data" -- sleep 0.3
			stop_spin
		done
	fi
	result "$kind/cache-has-no-special-files" cache_clean "$HOME"
	if [ -n "$(said "$kind")" ]; then
		result "$kind/buildid-cache-says-what-it-found" \
			grep -q "$app $(said "$kind"), not a regular file" "$t/$kind-bc-cl.err"
	fi
	if [ -n "$(said "$kind")" ]; then
		if [ -n "$can_mount" ] && [ -d /usr/lib/debug ]; then
			make_kind "$kind" "$app"
			result "$kind/annotate-runs-no-objdump-on-it" annotate_objdump "$kind"
		else
			skip "$kind/annotate-runs-no-objdump-on-it" "needs root and /usr/lib/debug to mount a debug tree there"
		fi
	fi
	# the program back at its path for the next kind
	rm -rf "$app"
	cp "$w/spin-sha1" "$app"
done
echo "1..$n"
