#!/bin/bash
# with-debuginfod.sh DIR ID... -- CMD...: run CMD with elfutils' debuginfod
# serving the ELF files in DIR, in a private network namespace (debuginfod
# listens on every interface; there it is loopback only), once the server
# serves every ID's executable (30 s at most). CMD gets DEBUGINFOD_URLS;
# its exit status is returned, 125 when the server did not come up.
# Needs root (unshare -n).
set -u
if [ "${1:-}" != --in-netns ]; then
	exec unshare -n -- "$0" --in-netns "$@"
fi
shift
dir=$1
shift
ids=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	ids+=("$1")
	shift
done
shift
ip link set lo up || exit 125
port=8002
db=$(mktemp "${TMPDIR:-/tmp}/debuginfod.XXXXXX") || exit 125
debuginfod -F -p "$port" -d "$db" -t 0 -g 0 -c 1 "$dir" >"$db.log" 2>&1 &
srv=$!
trap 'kill -KILL "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; rm -f "$db" "$db".* "$db"-shm "$db"-wal' EXIT
# serves ID: the server answers 200 for ID's executable
serves() {
	local line
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
	printf 'GET /buildid/%s/executable HTTP/1.0\r\n\r\n' "$1" >&3
	read -r -t 5 line <&3
	exec 3<&-
	case $line in *" 200 "*) return 0 ;; esac
	return 1
}
for _ in $(seq 150); do
	ok=1
	for id in "${ids[@]}"; do
		serves "$id" || { ok=0; break; }
	done
	[ "$ok" = 1 ] && break
	sleep 0.2
done
if [ "$ok" != 1 ]; then
	echo "debuginfod did not serve ${ids[*]} from $dir within 30 s:" >&2
	tail -3 "$db.log" >&2
	exit 125
fi
DEBUGINFOD_URLS=http://127.0.0.1:$port "$@"
