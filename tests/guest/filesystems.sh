#!/bin/sh
# Guest side of tier 43-fs-vm: build IDs of programs and libraries run
# from each file system the host attached. Prints TAP.
#
#   filesystems.sh W IDS LIBOFF SPEC...
#
# W is the workloads directory; IDS a file of "NAME ID" lines the host
# read with readelf from the files it put on the images (burn,
# libburn.so, spin-md5, spin-sha1); LIBOFF the file offset of burn_lib
# in libburn.so. Each SPEC is NAME:DEV:TYPE:MODE. MODE "ro": the image
# holds burn, libburn.so and prog (a copy of spin-sha1); "rw": the image
# is empty and the test copies them in; "share": the same, DEV being the
# mount tag of a host directory shared over virtio-9p (mounted with
# cache=loose, as virtme-ng mounts the host's files); "overlay": DEV is the lower
# layer (an ro image), the upper one is on tmpfs, as container runtimes
# stack them; "container": DEV is the root of a container (burn, its
# library, Debian's bash and sha256sum with their libraries and the
# dynamic loader), bash running sha256sum then burn, run as runc does (new
# mount and PID namespaces, an overlay root; chroot, as the initramfs
# root cannot be left by pivot_root) while
# perf record -a --buildid-mmap runs in the root namespace, started
# before it and after it. The container's files then go away; perf
# report must give its samples the symbols of the recorded IDs, from
# the debug tree the host made (DEBUG, /usr/lib/debug/.build-id), never
# those of the other files that sit at /app/burn and /app/libburn.so in
# the guest's own root (tests/guest/container-report.sh; the host reads
# the same perf.data files, /scratch/c-before.data and c-after.data, again).
# The symbols a sample may have are the host's nm of each file (SYMS.NAME),
# the IDs its records must carry those of IDS.
# With EXPECT=classic (the unpatched base kernel, which has no build-ID
# records and refuses --buildid-mmap) the same steps are recorded
# without --buildid-mmap and every record must be classic; the
# container, whose report needs the IDs, is left out.
W=$1
IDS=$2
LIBOFF=$3
DEBUG=$4
SYMS=$5
shift 5
n=0
data=/scratch/fs.data

id() {
	if [ "${EXPECT:-}" = classic ]; then
		echo classic
	else
		awk -v f="$1" '$1 == f { print $2 }' "$IDS"
	fi
}
# shellcheck source=tests/guest/result.sh
. "$(dirname "$0")/result.sh"
# the executable MMAP2 records of CMD, recorded with build IDs (classic
# ones with EXPECT=classic)
bm=--buildid-mmap
[ "${EXPECT:-}" != classic ] || bm=
mmaps() {
	# shellcheck disable=SC2086 # $bm, $NOKEEP: one option or none
	perf record -q $bm ${NOKEEP:-} -e cpu-clock:u -o $data -- "$@" \
		>/dev/null 2>/scratch/fs.err
	perf script -i $data --show-mmap-events 2>/dev/null |
		grep 'PERF_RECORD_MMAP2.* r-xp '
}
# what the record for PATH in the MMAP2 lines $m carries: an ID,
# "classic" (device and inode) or "none" (no record)
rec_id() {
	line=$(printf '%s\n' "$m" | grep " r-xp $1\$" | head -1)
	case $line in
	'') echo none ;;
	*'<'*'>'*) echo "$line" | sed 's/.*<\([0-9a-f]*\)>.*/\1/' ;;
	*) echo classic ;;
	esac
}

# exec and mmap from DIR, then eviction: the kernel's classic record while
# the library is not cached (-N: perf record, which fills in the ID of such
# a record where it can read the file, keeps nothing), its ID again once it
# is
run_and_evict() { # NAME DIR
	m=$(mmaps "$2/burn" 1)
	result "$1/exec: the program's ID" "$(rec_id "$2/burn")" "$(id burn)"
	result "$1/mmap: the library's ID" "$(rec_id "$2/libburn.so")" "$(id libburn.so)"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	m=$(NOKEEP=-N mmaps "$W/map-uncached" "$2/libburn.so" "$LIBOFF" 20)
	if grep -q 'stay cached' /scratch/fs.err; then
		n=$((n + 1))
		echo "ok $n $1/evicted library: the classic record # SKIP $(cat /scratch/fs.err)"
	else
		result "$1/evicted library: the classic record" "$(rec_id "$2/libburn.so")" classic
	fi
	m=$(mmaps "$2/burn" 1)
	result "$1/cached again: the library's ID" "$(rec_id "$2/libburn.so")" "$(id libburn.so)"
}

# container DEV: the steps above, and its report checked
container() {
	lower=/mnt/container-lower c=/tmp/container
	mkdir -p $lower $c/upper $c/work $c/root /usr/lib/debug
	mount -t squashfs -o ro "$1" $lower &&
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$c/upper,workdir=$c/work" $c/root
	result "container/root mounted" "$?" 0
	cp -a "$DEBUG/.build-id" /usr/lib/debug/
	mkdir -p /app	# other files at the container's paths here
	cp "$W/spin-md5" /app/burn
	cp "$W/libfarnote.so" /app/libburn.so
	for when in before after; do
		if [ $when = before ]; then
			perf record -q -a --buildid-mmap -e cpu-clock -o /scratch/c-$when.data \
				-- sleep 8 >/dev/null 2>&1 &
			rec=$!
			sleep 2
		fi
		# the guest's root is an initramfs, which pivot_root cannot
		# leave: chroot, as runc --no-pivot does there
		mkdir -p $c/root/proc
		unshare -m -p -f /bin/sh -c "mount -t proc proc $c/root/proc &&
			exec chroot $c/root /usr/bin/bash -c 'sha256sum /app/data >/app/data.sum &&
				i=0 && while [ \$i -lt 20000 ]; do i=\$((i + 1)); done &&
				/app/burn 20000; exit \$?'" >/scratch/c-$when.out 2>&1 &
		cpid=$!
		if [ $when = after ]; then
			# once burn runs: sha256sum and the shell's loop take
			# from 2 to over 30 s under TCG, by kernel and load
			i=0
			while ! grep -qx burn /proc/[0-9]*/comm 2>/dev/null &&
				[ $i -lt 1200 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			perf record -q -a --buildid-mmap -e cpu-clock -o /scratch/c-$when.data \
				-- sleep 3 >/dev/null 2>&1 &
			rec=$!
		fi
		start=$(date +%s)
		wait $cpid
		rc=$?
		echo "# container/$when: ran $(($(date +%s) - start)) s"
		result "container/$when: the container ran" "$rc" 0
		[ "$rc" = 0 ] || sed 's/^/# /' /scratch/c-$when.out
		wait "$rec"
	done
	umount $c/root && umount $lower && rm -rf $c
	for when in before after; do
		/bin/sh "$(dirname "$0")/container-report.sh" "container/$when" $when \
			/scratch/c-$when.data "$SYMS" "$IDS" $n
		n=$((n + 3))
	done
	rm -rf /app
}

for spec in "$@"; do
	IFS=: read -r name dev type mode <<EOF
$spec
EOF
	mnt=/mnt/$name
	mkdir -p "$mnt"
	if [ "$mode" = container ]; then
		if [ "${EXPECT:-}" = classic ]; then
			n=$((n + 1))
			echo "ok $n container/profiled from outside # SKIP its report needs build-ID records"
		else
			container "$dev"
		fi
		continue
	fi
	case $mode in
	overlay)
		mkdir -p "/mnt/$name-lower" "/tmp/$name/upper" "/tmp/$name/work"
		mount -t "$type" -o ro "$dev" "/mnt/$name-lower" &&
			mount -t overlay overlay -o "lowerdir=/mnt/$name-lower,upperdir=/tmp/$name/upper,workdir=/tmp/$name/work" "$mnt"
		;;
	ro) mount -t "$type" -o ro "$dev" "$mnt" ;;
	share) mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose "$dev" "$mnt" &&
		cp "$W/burn" "$W/libburn.so" "$mnt/" && cp "$W/spin-sha1" "$mnt/prog" ;;
	*) mount -t "$type" "$dev" "$mnt" && cp "$W/burn" "$W/libburn.so" "$mnt/" &&
		cp "$W/spin-sha1" "$mnt/prog" ;;
	esac
	rc=$?
	result "$name/mount ($type)" "$rc" 0
	[ "$rc" = 0 ] || continue
	run_and_evict "$name" "$mnt"
	case $mode in
	rw | share)
		m=$(mmaps "$mnt/prog" 1000)
		result "$name/a second program's ID" "$(rec_id "$mnt/prog")" "$(id spin-sha1)"
		cp "$W/spin-md5" "$mnt/prog.new" && mv "$mnt/prog.new" "$mnt/prog"
		m=$(mmaps "$mnt/prog" 1000)
		result "$name/replaced by rename(): the new file's ID" "$(rec_id "$mnt/prog")" "$(id spin-md5)"
		cat "$W/spin-sha1" >"$mnt/prog"
		m=$(mmaps "$mnt/prog" 1000)
		result "$name/rewritten in place: the new bytes' ID" "$(rec_id "$mnt/prog")" "$(id spin-sha1)"
		;;
	overlay)
		# what a tool sees of a merged file without build IDs
		perf record -q -e cpu-clock:u -o $data -- "$mnt/burn" 1 >/dev/null 2>&1
		echo "# $name classic record: $(perf script -i $data --show-mmap-events 2>/dev/null |
			grep -m1 "PERF_RECORD_MMAP2.* r-xp $mnt/burn\$" |
			sed 's/.* @ [^ ]* \([^]]*\)\]: \(.*\)/maj:min ino gen \1, path \2/');" \
			"the lower file: device $(stat -c %D "/mnt/$name-lower/burn") (hex), inode $(stat -c %i "/mnt/$name-lower/burn")"
		m=$(mmaps "$mnt/prog" 1000)
		result "$name/lower file: its ID" "$(rec_id "$mnt/prog")" "$(id spin-sha1)"
		cat "$W/spin-md5" >"$mnt/prog"	# copy-up, then the new bytes
		m=$(mmaps "$mnt/prog" 1000)
		result "$name/copied up and changed: the new ID" "$(rec_id "$mnt/prog")" "$(id spin-md5)"
		result "$name/copy-up is in the upper layer" "$(test -f "/tmp/$name/upper/prog" && echo yes)" yes
		rm "$mnt/prog"
		m=$(mmaps /bin/sh -c "$mnt/prog 1000 2>/dev/null; exit 0")
		result "$name/whiteout: no record" "$(rec_id "$mnt/prog")" none
		;;
	esac
	umount "$mnt"
	[ "$mode" != overlay ] || umount "/mnt/$name-lower"
done
echo "1..$n"
