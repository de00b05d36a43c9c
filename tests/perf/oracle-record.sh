# shellcheck shell=bash
# Sourced by tests/perf/oracle.sh: making the recordings of each form, and the containers of the btrfs and overlay scenarios.
# It uses and sets the globals oracle.sh makes (t, w, this, others, n, ...).
# shellcheck disable=SC2154 # the globals are oracle.sh's

# --- recording --------------------------------------------------------------

# running PID FILE: wait until PID runs FILE, 10 s at most
running() {
	local i
	for i in $(seq 100); do
		[ "$(readlink "/proc/$1/exe")" = "$2" ] && return 0
		sleep 0.1
	done
	say "process $1 did not exec $2 (waited $i)"
	return 1
}

# writing FILE: wait until perf record has written 64 KiB to FILE (its
# header, the synthesized records and some samples), 10 s at most
writing() {
	local i
	for i in $(seq 100); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge 65536 ] && return 0
		sleep 0.1
	done
	say "perf record wrote less than 64 KiB to $1 in 10 s"
}

# record FORM: the cell's workload, recorded by THIS_PERF in FORM; sets
# data (what readers read), rec (what the maps come from) and piped
record() {
	local form=$1 opts=() pid
	case $form in
	*-bm) opts+=(--buildid-mmap) ;;
	*-B) opts+=(-B) ;;
	esac
	case $form in
	g-*) opts+=(-g) ;;
	dwarf-*) opts+=(--call-graph dwarf) ;;
	a-*) opts+=(-a) ;;
	z | z-*) opts+=(-z) ;;
	switch | switch-*) opts+=(--switch-output=signal) ;;
	esac
	rec=$cdir/rec.data data=$rec piped=
	datas=()
	case $form in
	peer | peer-*)
		# the peer perf as its users run it: its defaults
		opts=()
		[ "$form" = peer-z ] && opts=(-z)
		if [ -n "$during" ]; then
			recorder=$peer record_during "${opts[@]}"
			return
		fi
		if [ "$form" = peer-pipe ]; then
			piped=1
			HOME=$r_home run "$peer" record -q -o - -- "${short[@]}" \
				>"$rec" 2>"$cdir/record.err"
		else
			HOME=$r_home run "$peer" record -q "${opts[@]}" -o "$rec" -- "${short[@]}" \
				>/dev/null 2>"$cdir/record.err"
		fi
		;;
	live-*)
		# system-wide, the containers started while it runs: the
		# kernel's records, not perf's synthesis
		HOME=$r_home run "$this" record -q -a "${opts[@]}" -o "$rec" -- sleep 2 \
			>/dev/null 2>"$cdir/record.err" &
		pid=$!
		sleep 0.5
		start_containers
		wait "$pid"
		;;
	p | p-* | a-*)
		if [ -n "$ckind" ]; then
			# the containers, started before: perf's synthesis
			start_containers
			local target=(-a)
			case $form in p | p-*) target=(-p "$attach") ;; esac
			local secs=0.5
			[ "$ckind" = gone ] && secs=2
			HOME=$r_home run "$this" record -q "${opts[@]}" "${target[@]}" -o "$rec" \
				-- sleep "$secs" >/dev/null 2>"$cdir/record.err" &
			pid=$!
			# gone: the container's process ends, and its root
			# goes, before perf record does, once perf record has
			# started (its events open, the maps read: samples
			# written), however loaded the machine
			if [ "$ckind" = gone ]; then
				writing "$rec"
				stop_container 2
			fi
			wait "$pid"
			return
		fi
		;;&
	switch | switch-*)
		# a signal to switch files while the workload runs; each file
		# is read on its own
		# (not under timeout, which the signal would end; the workload
		# runs about 3 s)
		HOME=$r_home "$this" record -q "${opts[@]}" -o "$rec" -- "${short[0]}" 2000 \
			>/dev/null 2>"$cdir/record.err" &
		pid=$!
		sleep 1
		kill -USR2 "$pid"
		wait "$pid"
		datas=("$rec".[0-9]*)
		;;
	p | p-*)
		"${long[@]}" >/dev/null &
		pid=$!
		bg+=("$pid")
		running "$pid" "$(realpath "${long[0]}")"
		HOME=$r_home run "$this" record -q "${opts[@]}" -p "$pid" -o "$rec" -- sleep 0.1 \
			>/dev/null 2>"$cdir/record.err"
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		unbg "$pid"
		;;
	pipe | pipe-*)
		piped=1
		HOME=$r_home run "$this" record -q "${opts[@]}" -o - -- "${short[@]}" \
			>"$rec" 2>"$cdir/record.err"
		;;
	*)
		if [ -n "$during" ]; then
			record_during "${opts[@]}"
			return
		fi
		HOME=$r_home run "$this" record -q "${opts[@]}" -o "$rec" -- "${short[@]}" \
			>/dev/null 2>"$cdir/record.err"
		;;
	esac
	case $form in
	inject-*)
		data=$cdir/inject.data
		HOME=$r_home run "$this" inject -i "$rec" -o "$data" 2>>"$cdir/record.err"
		;;
	esac
}

# record_during OPTION...: perf record (THIS_PERF, or $recorder) of the
# long workload, and the scenario's change of its files ($during) while
# it runs: half a second of samples before, half a second after, then
# the workload is ended
record_during() {
	local pid wpid="" i
	HOME=$r_home run "${recorder:-$this}" record -q "$@" -o "$rec" -- "${long[@]}" \
		>/dev/null 2>"$cdir/record.err" &
	pid=$!
	bg+=("$pid")
	for i in $(seq 100); do
		wpid=$(pgrep -f -x -- "${long[*]}") && break
		sleep 0.1
	done
	if [ -n "$wpid" ] && running "$wpid" "$(realpath "${long[0]}")"; then
		sleep 0.5
		"$during"
		sleep 0.5
		kill "$wpid"
	else
		say "# $row: the workload did not start (waited $i)"
		kill "$pid"
	fi
	wait "$pid"
	unbg "$pid"
}

# code_offset FILE SYMBOL: the file offset of SYMBOL's code, by the
# executable PT_LOAD that holds it (readelf's, not perf's)
code_offset() {
	local sym o a z
	sym=$(readelf -sW "$1" | awk -v s="$2" '$8 == s { print $2; exit }')
	[ -n "$sym" ] || return 1
	while read -r o a z; do
		if ((0x$sym >= a && 0x$sym < a + z)); then
			echo $((0x$sym - a + o))
			return 0
		fi
	done < <(readelf -lW "$1" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 ~ /E/) { print $2, $3, $5 }')
	return 1
}

# setup WORKLOAD: a fresh directory for the cell's binaries; sets short,
# long (the commands) and files; P lines in $cdir/paths
setup() {
	local off
	app=$cdir/app
	mkdir -p "$app"
	: >"$cdir/paths"
	case $1 in
	burn) files=(burn libburn.so) short=("$app/burn" 150) long=("$app/burn" 100000000) ;;
	uncached)
		# libburn.so mapped with its pages evicted (map-uncached), so
		# that the kernel cannot read its build ID at mmap time, and
		# burn_lib run from it
		off=$(code_offset "$w/libburn.so" burn_lib) || say "# $row: no burn_lib in libburn.so"
		files=(libburn.so)
		short=("$w/map-uncached" "$app/libburn.so" "${off:-0}" 300)
		long=("$w/map-uncached" "$app/libburn.so" "${off:-0}" 1000000) ;;
	split-*)
		files=(split-text)
		short=("$app/split-text" "${1#split-}" 300000000)
		long=("$app/split-text" "${1#split-}" 1000000000000) ;;
	*) files=("$1") short=("$app/$1" 150000000) long=("$app/$1" 1000000000000) ;;
	esac
	local f
	for f in "${files[@]}"; do
		cp "$w/$f" "$app/$f"
		printf 'P\t%s\t%s\n' "$app/$f" "${kept_id[$f]}" >>"$cdir/paths"
	done
}

# --- containers ---------------------------------------------------------------

# btrfs_fs: a btrfs file system at $t/btrfs (on a loop device), made once
btrfs_fs() {
	mountpoint -q "$t/btrfs" && return 0
	command -v mkfs.btrfs >/dev/null || { say "no mkfs.btrfs (btrfs-progs)"; return 1; }
	mkdir -p "$t/btrfs"
	truncate -s 256M "$t/btrfs.img"
	if ! mkfs.btrfs -q "$t/btrfs.img" >/dev/null 2>&1 ||
		! btrfs_loop=$(losetup -f --show "$t/btrfs.img") ||
		! mount -t btrfs "$btrfs_loop" "$t/btrfs"; then
		say "cannot mount btrfs"
		return 1
	fi
}

# containers KIND: the roots of two containers, which start_containers
# runs: the first holds burn and libburn.so, the second the replacement
# (other names, other layout) under the same names. KIND btrfs: a
# subvolume each, whose files /proc/PID/maps shows with one device and
# inode; overlay: an overlay each, with a lower directory of its own and
# the upper on tmpfs, as container runtimes stack them. Sets croot (the
# mount arguments of each).
containers() {
	local i f v sub
	croot=()
	for i in 1 2; do
		v=
		[ "$i" = 2 ] && v=v2-
		case $1 in
		btrfs)
			btrfs_fs || return 1
			sub=$t/btrfs/${cdir##*/}-c$i
			btrfs subvolume create "$sub" >/dev/null || return 1
			for f in "${files[@]}"; do cp "$t/keep/${kept_id[$v$f]}" "$sub/$f"; done
			croot+=("--bind $sub") ;;
		shared | gone)
			# the first a process of perf's own mount namespace,
			# running the files at $app; the second an overlay
			if [ "$i" = 1 ]; then
				croot+=("")
				continue
			fi ;&
		overlay)
			mkdir -p "$cdir/lower$i" "$cdir/up$i"
			mount -t tmpfs tmpfs "$cdir/up$i" || return 1
			mkdir "$cdir/up$i/upper" "$cdir/up$i/work"
			for f in "${files[@]}"; do cp "$t/keep/${kept_id[$v$f]}" "$cdir/lower$i/$f"; done
			croot+=("-t overlay overlay -o lowerdir=$cdir/lower$i,upperdir=$cdir/up$i/upper,workdir=$cdir/up$i/work") ;;
		esac
	done
}

# start_containers: a process per root, in a mount namespace of its own
# where the root is mounted at $app, running ${long[@]} there; sets cpids
# and attach (their pids, for -p), adds their P lines
start_containers() {
	local i f v pid mm
	cpids=()
	for i in 1 2; do
		if [ -z "${croot[$((i - 1))]}" ]; then
			"$app/burn" 100000000 >/dev/null &
		else
			# shellcheck disable=SC2086,SC2016  # the mount arguments; expanded by sh -c
			unshare --mount --propagation private sh -c 'mount "$@" "$0" && exec "$0/burn" 100000000' \
				"$app" ${croot[$((i - 1))]} &
		fi
		pid=$!
		bg+=("$pid")
		cpids+=("$pid")
		v=
		[ "$i" = 2 ] && v=v2-
		# (the container of a classic recording read once it is gone
		# may have no symbols; the process beside it must have all)
		# (nor the one gone before perf record ended)
		mm=
		[ "$ckind" = shared ] && [ "$i" = 2 ] && [ -z "$bm" ] && mm=may-miss
		[ "$ckind" = gone ] && [ "$i" = 2 ] && mm=may-miss
		for f in "${files[@]}"; do
			printf 'P\t%s\t%s\t%s\t%s\n' "$app/$f" "${kept_id[$v$f]}" "$pid" "$mm" >>"$cdir/paths"
		done
	done
	for pid in "${cpids[@]}"; do
		for i in $(seq 100); do
			grep -q " $app/burn\$" "/proc/$pid/maps" 2>/dev/null && break
			sleep 0.1
		done
	done
	attach=$(IFS=,; echo "${cpids[*]}")
}

# stop_container I: the process of container I (1 or 2) stopped, its
# root removed
stop_container() {
	local pid=${cpids[$(($1 - 1))]:-}
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		unbg "$pid"
	fi
	mountpoint -q "$cdir/up$1" && umount "$cdir/up$1"
	[ -d "$t/btrfs/${cdir##*/}-c$1" ] &&
		btrfs subvolume delete "$t/btrfs/${cdir##*/}-c$1" >/dev/null
	rm -rf "$cdir/lower$1"
}

# stop_containers: the containers' processes stopped, their roots removed
stop_containers() {
	stop_container 1
	stop_container 2
	cpids=()
}
