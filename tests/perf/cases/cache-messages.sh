#!/bin/bash
# What perf buildid-cache -a perf.data says when it cannot add a binary,
# as a user without root meets it: the build-ID cache not writable says
# "cannot write the cache ... (Permission denied)", not that the file is
# gone or has another ID; /sys/kernel/notes not readable says that it
# cannot read the running kernel's build ID, not that the kernel is
# another one. Run as nobody (setpriv), /sys/kernel/notes hidden by a
# bind mount in a private mount namespace. Needs root.
# usage: cache-messages.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
n=0
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! unshare -m true 2>/dev/null; then
	echo "ok 1 cache messages # SKIP needs root, setpriv and unshare -m"
	echo "1..1"
	exit 0
fi
# the bind mount over /sys/kernel/notes stays in a mount namespace of its
# own, so that tests running at the same time still see the notes
if [ "${2:-}" != --in-ns ]; then
	exec unshare -m --propagation private bash "$0" "$1" --in-ns
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/cache-messages.XXXXXX")
trap 'umount /sys/kernel/notes 2>/dev/null; rm -rf "$t"' EXIT
chmod 755 "$t"
cp "$w/spin-sha1" "$t/spin"
# a copy nobody can run: the tree may be in a directory only root enters
cp "$(command -v perf)" "$t/perf"
perf=$t/perf
# the kernel needs samples too: spin alone may get none there, so the
# workload also reads 100 MB of /dev/zero (time spent in read())
# shellcheck disable=SC2016  # expanded by the inner sh
HOME=$t perf record -q -o "$t/p.data" -- sh -c \
	'"$1" 3000000; head -c 100000000 /dev/zero >/dev/null' _ "$t/spin" >/dev/null 2>&1
chmod 644 "$t/p.data"
mkdir -p "$t/home/.debug"
chown -R nobody "$t/home"
chmod 555 "$t/home/.debug"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$t/home" "$perf" "$@"; }

out=$(as_nobody buildid-cache -a "$t/p.data" 2>&1)
printf "# %s\n" "${out//$'\n'/$'\n# '}"
result "cache not writable: the binary 'cannot write the cache (Permission denied)'" \
	grep -q "$t/spin: not added: cannot write the cache in .*(Permission denied)" <<<"$out"
result "cache not writable: not said to be gone or of another build ID" \
	not_grep "$t/spin: not found" <<<"$out"

chmod 755 "$t/home/.debug"
: >"$t/notes"
chmod 000 "$t/notes"
mount --bind "$t/notes" /sys/kernel/notes
out=$(as_nobody buildid-cache -a "$t/p.data" 2>&1)
printf "# %s\n" "${out//$'\n'/$'\n# '}"
result "notes not readable: the kernel 'cannot read the running kernel's build ID'" \
	grep -q "kernel.kallsyms\]: not added: cannot read the running kernel's build ID" <<<"$out"
result "notes not readable: not said to be another kernel" \
	not_grep 'not the running kernel' <<<"$out"
result "notes not readable: the binary is added" grep -q "$t/spin: added" <<<"$out"
echo "1..$n"
