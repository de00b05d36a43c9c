#!/bin/bash
# A debuginfod server that accepts connections and never answers (made
# here: a python socket on 127.0.0.1, in a private network namespace
# when root) costs one short wait, not libdebuginfod's default of three
# tries of 90 s each (271 s measured): with DEBUGINFOD_URLS set and the
# user's DEBUGINFOD_TIMEOUT and DEBUGINFOD_RETRY_LIMIT unset,
#  - perf buildid-cache -a perf.data, with the recorded program gone (it
#    asks for the binary),
#  - perf record at its end (classic: it asks for the debug files of the
#    binaries with samples), and
#  - perf archive
# each end within LIMIT seconds (10: one query with perf's default of
# 5 s, and room), connect once (no retries), and say on stderr once
# before asking which server, once that it failed, and once when done.
# A DEBUGINFOD_TIMEOUT the user set is kept, and without DEBUGINFOD_URLS
# nothing is said about debuginfod. Every perf command runs under
# timeout 20.
# usage: debuginfod-hung.sh WORKLOAD_DIR (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
LIMIT=10

if [ "${1:-}" = --in-netns ]; then
	shift
	ip link set lo up || { echo "not ok 1 loopback up in the network namespace"; echo "1..1"; exit 0; }
	in_netns=1
fi
w=$(cd "$1" && pwd) || exit 1
if [ "$(id -u)" = 0 ] && [ -z "${in_netns:-}" ] && unshare -n true 2>/dev/null; then
	exec unshare -n -- bash "$0" --in-netns "$w"
fi

n=0
if ! perf version --build-options | grep -Eq '^ *debuginfod: \[ on  \]'; then
	echo "ok 1 # SKIP perf is built without debuginfod"
	echo "1..1"
	exit 0
fi

t=$(mktemp -d "${TMPDIR:-/tmp}/debuginfod-hung.XXXXXX")
srv=
cleanup() {
	[ -n "$srv" ] && kill -KILL "$srv" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
export HOME=$t/home DEBUGINFOD_CACHE_PATH=$t/client-cache
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_PROGRESS \
	DEBUGINFOD_VERBOSE DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE
mkdir -p "$HOME"

# The hung server: accepts, never answers; counts connections in $t/conns
echo 0 >"$t/conns"
# shellcheck disable=SC2016 # python
python3 -c '
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conns = []
while True:
    c, _ = s.accept()
    conns.append(c)
    with open(sys.argv[2], "w") as f:
        f.write(str(len(conns)))
' "$t/port" "$t/conns" &
srv=$!
for _ in $(seq 50); do
	[ -s "$t/port" ] && break
	sleep 0.1
done
if ! [ -s "$t/port" ]; then
	echo "not ok 1 hung server # python3 did not listen on 127.0.0.1"
	echo "1..1"
	exit 0
fi
url=http://127.0.0.1:$(cat "$t/port")

# timed NAME CMD...: CMD under timeout 20, output in $t/NAME.out, .err,
# its time in ms in $t/NAME.ms; fine when it ended within LIMIT s
timed() {
	local name=$1 start ms rc
	shift
	cp "$t/conns" "$t/$name.conns"
	start=$(date +%s%N)
	# in a session of its own, killed 2 s after the TERM at 20 s if need be
	setsid -w timeout -k 2 20 "$@" >"$t/$name.out" 2>"$t/$name.err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "$ms" >"$t/$name.ms"
	echo "# $name: $* ended with $rc in $ms ms"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "# $name: still waiting after 20 s"
		return 1
	fi
	[ "$ms" -lt $((LIMIT * 1000)) ] && return 0
	echo "# $name: more than $LIMIT s"
	return 1
}
# once NAME: the server had one connection during NAME, no retry
once() {
	local c
	c=$(($(cat "$t/conns") - $(cat "$t/$1.conns")))
	[ "$c" = 1 ] && return 0
	echo "# $1: $c connections to the server"
	return 1
}
# said NAME: what perf said of debuginfod, each line once: whom it asks
# (before), that the server failed, and when done
said() {
	local e=$t/$1.err
	if [ "$(grep -c "^$url: asking debuginfod about" "$e")" = 1 ] &&
		[ "$(grep -c "^debuginfod: cannot fetch .* from $url: " "$e")" = 1 ] &&
		[ "$(grep -c '^debuginfod: asked about 1 build ID' "$e")" = 1 ]; then
		return 0
	fi
	sed 's/^/#   /' "$e"
	return 1
}

app=$t/app/spin
mkdir -p "$t/app"
cp "$w/spin-sha1" "$app"
if ! timeout 20 perf record -q -o "$t/rec.data" -- "$app" 3000000 >/dev/null 2>"$t/rec.err"; then
	sed 's/^/# /' "$t/rec.err"
	echo "not ok 1 record"
	echo "1..1"
	exit 0
fi
rm -f "$app"
rm -rf "$HOME/.debug"  # perf record put the program there

export DEBUGINFOD_URLS=$url
result "buildid-cache -a perf.data, binary gone: bounded" \
	timed bc perf buildid-cache -a "$t/rec.data"
result "buildid-cache -a perf.data: one connection" once bc
result "buildid-cache -a perf.data: says whom it asks, the failure, the end" said bc

cp "$w/spin-sha1" "$app"
rm -rf "$HOME/.debug"
result "record (classic), debug files asked at its end: bounded" \
	timed rec perf record -o "$t/rec2.data" -- "$app" 3000000
result "record: one connection" once rec
result "record: says whom it asks, the failure, the end" said rec

rm -f "$app"
rm -rf "$HOME/.debug"
result "archive, binary gone: bounded" timed archive perf archive "$t/rec.data"
result "archive: one connection" once archive

# the user's own timeout is kept
rm -rf "$HOME/.debug"
result "DEBUGINFOD_TIMEOUT=1 of the user: bounded" \
	timed user env DEBUGINFOD_TIMEOUT=1 perf buildid-cache -a "$t/rec.data"
user_timeout() {
	grep -q "^$url: asking debuginfod about .*(timeout 1 s" "$t/user.err" &&
		[ "$(cat "$t/user.ms")" -lt 4000 ] && return 0
	sed 's/^/#   /' "$t/user.err"
	return 1
}
result "DEBUGINFOD_TIMEOUT=1 of the user: used" user_timeout
result "DEBUGINFOD_TIMEOUT=1 of the user: one connection, no retry" once user

# no server: not a word of debuginfod
unset DEBUGINFOD_URLS
rm -rf "$HOME/.debug"
result "no DEBUGINFOD_URLS: bounded" timed none perf buildid-cache -a "$t/rec.data"
silent() {
	! grep -Eq 'debuginfod:|asking debuginfod' "$t/none.err" &&
		[ "$(cat "$t/conns")" = "$(cat "$t/none.conns")" ] && return 0
	sed 's/^/#   /' "$t/none.err"
	return 1
}
result "no DEBUGINFOD_URLS: nothing said of debuginfod, nothing asked" silent
echo "1..$n"
