#!/bin/bash
# perf record --buildid-mmap attached to processes that already run, in
# "containers": two processes, each in its own mount namespace, run
# different binaries (spin-sha1, spin-md5) at one path. With the binaries
# on two subvolumes of one btrfs file system, /proc/PID/maps shows the same
# device and inode for both; with two overlayfs mounts, the overlay's.
# Each process's synthesized MMAP2 record must carry the build ID of its
# own file, as readelf -n reads it, not the other's.
# usage: btrfs-containers.sh WORKLOAD_DIR   (perf taken from PATH)
# Needs root; prints TAP lines, "ok N # SKIP why" for what cannot run.
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
n=0
skip_n() { # skip_n COUNT WHY
	local i
	for ((i = 0; i < $1; i++)); do
		n=$((n + 1))
		echo "ok $n # SKIP $2"
	done
}

BTRFS_TESTS=8
OVERLAY_TESTS=4
if [ "$(id -u)" != 0 ]; then
	skip_n $((BTRFS_TESTS + OVERLAY_TESTS)) "needs root"
	echo "1..$n"
	exit 0
fi

t=$(mktemp -d "${TMPDIR:-/tmp}/btrfs-containers.XXXXXX") || exit 1
export HOME=$t  # the build-ID cache, ~/.debug, starts empty
pids=()
loop=
cleanup() {
	if [ ${#pids[@]} -gt 0 ]; then
		kill "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" 2>/dev/null
	fi
	mountpoint -q "$t/fs" && umount "$t/fs"
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$t"
}
trap cleanup EXIT
mnt=$t/mnt  # where each container sees its own files
mkdir -p "$mnt"

# container MOUNT_ARGS...: runs $mnt/app/hot in a new mount namespace,
# after "mount MOUNT_ARGS... $mnt" put the container's files at $mnt
# there; the pid (unshare and sh exec) is appended to pids.
container() {
	# shellcheck disable=SC2016 # expanded by sh -c
	unshare --mount --propagation private \
		sh -c 'mount "$@" "$0" && exec "$0/app/hot" 1000000000000' "$mnt" "$@" &
	pids+=("$!")
}
# listed IDS ID: buildid-list output IDS has ID for the path (a short ID is
# padded with blanks there)
listed() { awk -v id="$2" -v f="$mnt/app/hot" '$1 == id && $2 == f { ok = 1 } END { exit !ok }' <<<"$1"; }
# both_listed IDS ID1 ID2: buildid-list output IDS has ID1 and ID2 for the path
both_listed() { listed "$1" "$2" && listed "$1" "$3"; }
# distinct ID1 ID2: two build IDs, not the same
distinct() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]; }
# maps_dev_ino PID: device and inode of $mnt/app/hot in PID's maps
maps_dev_ino() { awk -v f="$mnt/app/hot" '$NF == f { print $4, $5; exit }' "/proc/$1/maps"; }
# running PID: waits until PID runs $mnt/app/hot
running() {
	local i
	for ((i = 0; i < 50; i++)); do
		grep -q " $mnt/app/hot\$" "/proc/$1/maps" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# mmap2_id DATA PID: the build ID of the MMAP2 record of $mnt/app/hot of PID
mmap2_id() {
	perf script -i "$1" --show-mmap-events 2>/dev/null |
		awk -v pid="$2" -v f="$mnt/app/hot" '
			/PERF_RECORD_MMAP2/ && $NF == f && $(NF - 1) ~ /x/ {
				for (i = 1; i <= NF; i++)
					if ($i == pid "/" pid ":" && match($0, /<[0-9a-f]+>/)) {
						print substr($0, RSTART + 1, RLENGTH - 2)
						exit
					}
			}'
}
# check NAME DATA ID1 ID2: the MMAP2 records of pids[0] and pids[1] have
# ID1 and ID2, and perf buildid-list lists both for $mnt/app/hot
check() {
	local name=$1 data=$2 id1=$3 id2=$4 ids
	result "$name: MMAP2 of the first container has its own build ID" \
		test "$(mmap2_id "$data" "${pids[0]}")" = "$id1"
	result "$name: MMAP2 of the second container has its own build ID" \
		test "$(mmap2_id "$data" "${pids[1]}")" = "$id2"
	ids=$(perf buildid-list -i "$data" 2>/dev/null)
	result "$name: buildid-list lists both build IDs for the path" \
		both_listed "$ids" "$id1" "$id2"
}
stop() {
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
}

# 1. btrfs: a subvolume per container, bind-mounted at $mnt.
btrfs_cases() {
	local id1 id2 d
	if ! command -v mkfs.btrfs >/dev/null; then
		skip_n $BTRFS_TESTS "no mkfs.btrfs"
		return
	fi
	mkdir -p "$t/fs"
	truncate -s 256M "$t/btrfs.img"
	if ! mkfs.btrfs -q "$t/btrfs.img" >/dev/null 2>&1 ||
	   ! loop=$(losetup -f --show "$t/btrfs.img") ||
	   ! mount -t btrfs "$loop" "$t/fs" 2>/dev/null; then
		skip_n $BTRFS_TESTS "cannot mount btrfs"
		return
	fi
	for d in c1 c2; do
		btrfs subvolume create "$t/fs/$d" >/dev/null
		mkdir "$t/fs/$d/app"
	done
	cp "$w/spin-sha1" "$t/fs/c1/app/hot"
	cp "$w/spin-md5" "$t/fs/c2/app/hot"
	id1=$(elf_id "$t/fs/c1/app/hot")
	id2=$(elf_id "$t/fs/c2/app/hot")
	container --bind "$t/fs/c1"
	container --bind "$t/fs/c2"
	running "${pids[0]}" && running "${pids[1]}"
	result "btrfs: both containers run, the two binaries' IDs differ" \
		distinct "$id1" "$id2"
	# what the test is about: the maps lines are alike
	result "btrfs: /proc/PID/maps gives one device and inode for both" \
		test "$(maps_dev_ino "${pids[0]}")" = "$(maps_dev_ino "${pids[1]}")"
	perf record -q --buildid-mmap -p "${pids[0]},${pids[1]}" -o "$t/btrfs-p.data" -- sleep 0.5 >/dev/null 2>&1
	check "btrfs, -p" "$t/btrfs-p.data" "$id1" "$id2"
	perf record -q --buildid-mmap -a -o "$t/btrfs-a.data" -- sleep 0.5 >/dev/null 2>&1
	check "btrfs, -a" "$t/btrfs-a.data" "$id1" "$id2"
	stop
}

# 2. overlayfs: an overlay per container, with its own lower directory.
overlay_cases() {
	local id1 id2 d
	for d in 1 2; do
		mkdir -p "$t/lower$d/app" "$t/upper$d" "$t/work$d"
	done
	cp "$w/spin-sha1" "$t/lower1/app/hot"
	cp "$w/spin-md5" "$t/lower2/app/hot"
	id1=$(elf_id "$t/lower1/app/hot")
	id2=$(elf_id "$t/lower2/app/hot")
	for d in 1 2; do
		container -t overlay overlay \
			-o "lowerdir=$t/lower$d,upperdir=$t/upper$d,workdir=$t/work$d"
	done
	if ! running "${pids[0]}" || ! running "${pids[1]}"; then
		stop
		skip_n $OVERLAY_TESTS "cannot mount overlayfs"
		return
	fi
	result "overlayfs: both containers run, the two binaries' IDs differ" \
		distinct "$id1" "$id2"
	perf record -q --buildid-mmap -p "${pids[0]},${pids[1]}" -o "$t/overlay-p.data" -- sleep 0.5 >/dev/null 2>&1
	check "overlayfs, -p" "$t/overlay-p.data" "$id1" "$id2"
	stop
}

btrfs_cases
overlay_cases
echo "1..$n"
