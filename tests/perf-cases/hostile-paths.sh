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
# perf record -p of a process that still runs the replaced program
# (--buildid-mmap synthesis; as root, which reads /proc/PID/map_files,
# and as nobody, which opens /proc/PID/root/PATH).
# Each must end within LIMIT seconds (5: they take well under one with
# a regular file), the build-ID cache must hold no file that is not a
# regular file, and perf buildid-cache -v says what it found there.
# usage: hostile-paths.sh WORKLOAD_DIR (perf taken from PATH; TAP output)
set -u
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
result() { # result NAME CMD...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n $name"; else echo "not ok $n $name"; fi
}
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

# as nobody, for the unreadable file (root reads it whatever its mode)
can_nobody=
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
if [ "$(id -u)" = 0 ] && "${nobody[@]}" true 2>/dev/null; then
	can_nobody=1
	chmod 755 "$t" "$t/app"
	chown nobody "$t/nobody"
fi

# timed NAME CMD...: run perf CMD under timeout 20, the output in
# $t/NAME.out and .err; fine when it ended by itself within LIMIT s
timed() {
	local name=$1 start ms rc
	shift
	start=$(date +%s%N)
	timeout 20 "$@" >"$t/$name.out" 2>"$t/$name.err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	# 124: timeout ended it; 129-254: a signal (perf exits 255 on errors)
	if [ "$rc" = 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -lt 255 ]; }; then
		echo "# $name: $* did not end by itself (exit $rc, $ms ms)"
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

# start_spin AS: the program running as AS (root or nobody) from $app,
# its pid in $spin
start_spin() {
	if [ "$1" = nobody ]; then
		"${nobody[@]}" "$app" 100000000000 &
	else
		"$app" 100000000000 &
	fi
	spin=$!
	pids+=("$spin")
	for _ in $(seq 50); do
		[ "$(readlink "/proc/$spin/exe" 2>/dev/null)" = "$app" ] && return 0
		sleep 0.1
	done
	return 0
}
stop_spin() { kill -KILL "$spin" 2>/dev/null; wait "$spin" 2>/dev/null; }

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
	if [ -z "$as" ] && [ -n "$can_nobody" ]; then
		# as nobody perf cannot read /proc/PID/map_files, and opens the
		# path under /proc/PID/root
		stop_spin
		rm -rf "$app"
		cp "$w/spin-sha1" "$app"
		start_spin nobody
		make_kind "$kind" "$app"
		mkdir -p "$t/nobody/rec-$kind"
		chown nobody "$t/nobody/rec-$kind"
		result "$kind/record-p-nobody" timed "$kind-record-p-nobody" "${nobody[@]}" \
			env HOME="$t/nobody/rec-$kind" perf record -q --buildid-mmap -p "$spin" \
			-o "$t/nobody/rec-$kind/p.data" -- sleep 0.3
	fi
	stop_spin
	result "$kind/cache-has-no-special-files" cache_clean "$HOME"
	if [ -n "$(said "$kind")" ]; then
		result "$kind/buildid-cache-says-what-it-found" \
			grep -q "$app $(said "$kind"), not a regular file" "$t/$kind-bc-cl.err"
	fi
	# the program back at its path for the next kind
	rm -rf "$app"
	cp "$w/spin-sha1" "$app"
done
echo "1..$n"
