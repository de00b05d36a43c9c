# shellcheck shell=bash
# Sourced by tests/perf/oracle.sh: the readers, and each cell of the matrix: a scenario and form recorded, read by every reader, judged against the oracle.
# It uses and sets the globals oracle.sh makes (t, w, this, others, n, ...).
# shellcheck disable=SC2154 # the globals are oracle.sh's

# --- the readers ------------------------------------------------------------

readers=("$this" "${others[@]}")
declare -A rname rver
rname[$this]=this
for r in "${others[@]}"; do
	rver[$r]=$("$r" version 2>/dev/null | awk '{ print $3 }')
	rname[$r]=perf-${rver[$r]:-unknown}
done

# read_cell READER: the reader's perf script of the cell's data, with the
# cell's HOME, options and debug tree (globals set by cell; the tree is
# bind-mounted on /usr/lib/debug in a private mount namespace)
read_cell() {
	local r=$1 pre=()
	local args=(script -F "pid,time,ip,sym,dso" --no-demangle "${r_opts[@]}")
	# shellcheck disable=SC2016  # expanded by the inner sh
	[ -n "$r_tree" ] && pre=(unshare -m --propagation private -- sh -c \
		'mount --bind "$0" /usr/lib/debug && exec "$@"' "$r_tree")
	if [ -n "$piped" ]; then
		HOME=$r_home run "${pre[@]}" "$r" "${args[@]}" -i - <"$data"
	else
		HOME=$r_home run "${pre[@]}" "$r" "${args[@]}" -i "$data" </dev/null
	fi
}

# judge ROW READER COUNTS ERRFILE DETAILFILE [DIED]: the TAP line and
# table cell; DIED names the files the reader died on
judge() {
	local row=$1 r=$2 c wr m o u b a ok=1 why="" todo=""
	read -r c wr m o u b a <<<"$3"
	[ "$c" -gt 0 ] || { ok=0; why="nothing checked"; }
	[ -z "${6:-}" ] || { ok=0; why="$why${why:+; }the reader died ($6)"; }
	[ "$wr" -eq 0 ] || { ok=0; why="$why${why:+; }wrong symbols"; }
	if [ "$m" -gt 0 ] && [ -z "${may_miss[$row]:-}" ]; then
		ok=0
		why="$why${why:+; }missing symbols"
	fi
	[ "$r" = "$this" ] || todo=$(todo_for "${rver[$r]}" "$row")
	if [ "$r" != "$this" ] && [ -z "$todo" ] && [ -n "$leaked" ]; then
		todo="the kernel flagged this recording's classic MMAP2 records as carrying build IDs (the listener-order leak, fixed in 7.3: a system-wide --buildid-mmap session ran beside it), and perf ${rver[$r]} reads those bytes as IDs"
	fi
	local allowed=""
	[ "${a:-0}" -gt 0 ] && allowed=", $a missing where allowed"
	# the name is the same every run; what the run counted goes to the log
	local name="$row/${rname[$r]}"
	local counts="$c checked, $wr wrong, $m missing ($o elsewhere, $u unsure$allowed)"
	[ "$m" -gt 0 ] && [ -n "${may_miss[$row]:-}" ] && counts="$counts (allowed: ${may_miss[$row]})"
	say "# $name: $counts"
	if [ "$ok" = 1 ]; then
		tap 1 "$name" "$todo"
		cell_val[$row|$r]="$c/$wr/$m"
	else
		if [ -n "$todo" ]; then cell_val[$row|$r]="$c/$wr/$m ~"; else cell_val[$row|$r]="$c/$wr/$m *"; fi
		tap 0 "$name" "$todo"
		say "# $row/${rname[$r]}: $why ($o not in the workloads, $u unsure, $b with an unknown build ID)"
		sed 's/^/#   /' "$5" >&2
		grep -v '^ *$' "$4" | head -3 | sed 's/^/#   stderr: /' >&2
	fi
}

# replace: the replacement over the cell's binaries, as a package manager
# installs it: a new file renamed over the old (whose inode, and the
# build-ID cache's hard link to it, keep the recorded bytes)
replace() {
	local f
	for f in "${files[@]}"; do
		cp "$t/variant/$f" "$app/.$f.new" && mv "$app/.$f.new" "$app/$f"
	done
}

# remove: the cell's binaries deleted
remove() {
	local f
	for f in "${files[@]}"; do rm -f "$app/$f"; done
}

# after SCENARIO: what the scenario does after recording; may set r_opts,
# r_home, r_tree, data
after() {
	local f id dbg
	case $1 in
	deleted)
		remove ;;
	replaced | evicted)
		replace ;;
	overwritten)
		for f in "${files[@]}"; do cp "$t/variant/$f" "$app/$f"; done ;;
	replaced-inject-b)
		replace
		HOME=$r_home run "$this" inject -b -i "$rec" -o "$cdir/inject-b.data" 2>>"$cdir/record.err"
		data=$cdir/inject-b.data ;;
	debug-tree | split-*)
		# only the debug files: not the copies perf record
		# --buildid-mmap kept in the cache as the binaries ran
		rm -rf "$r_home/.debug"
		r_tree=$cdir/tree
		for f in "${files[@]}"; do
			id=${kept_id[$f]}
			dbg=$r_tree/.build-id/${id:0:2}/${id:2}.debug
			mkdir -p "${dbg%/*}"
			objcopy --only-keep-debug "$app/$f" "$dbg"
			rm -f "$app/$f"
		done ;;
	symfs)
		mkdir -p "$cdir/symfs$app"
		for f in "${files[@]}"; do
			cp "$app/$f" "$cdir/symfs$app/$f"
		done
		replace
		r_opts=(--symfs "$cdir/symfs") ;;
	debuginfod)
		# the binaries gone (and the copies perf record
		# --buildid-mmap kept); a debuginfod server has them, and perf
		# buildid-cache -a fetches them by the recorded IDs
		rm -rf "$r_home/.debug"
		mkdir -p "$cdir/srv"
		local ids=()
		for f in "${files[@]}"; do
			ids+=("${kept_id[$f]}")
			cp "$t/keep/${kept_id[$f]}" "$cdir/srv/$f"
			rm -f "$app/$f"
		done
		HOME=$r_home DEBUGINFOD_CACHE_PATH=$cdir/dfs-cache run "$here/with-debuginfod.sh" \
			"$cdir/srv" "${ids[@]}" -- "$this" buildid-cache -a "$rec" \
			>"$cdir/dfs.out" 2>&1 || sed 's/^/# debuginfod: /' "$cdir/dfs.out" >&2 ;;
	btrfs | overlay | shared)
		# a classic recording is read once the containers are gone,
		# from the build-ID cache perf record filled; with
		# --buildid-mmap (no cache) while they run
		[ -z "$bm" ] && stop_containers ;;
	gone)
		stop_containers ;;
	archive)
		(cd "$cdir" && HOME=$r_home run "$this" archive "$rec") >"$cdir/archive.out" 2>&1 ||
			sed 's/^/# archive: /' "$cdir/archive.out" >&2
		for f in "${files[@]}"; do rm -f "$app/$f"; done
		r_home=$cdir/other
		mkdir -p "$r_home/.debug"
		tar xjf "$rec.tar.bz2" -C "$r_home/.debug" 2>/dev/null ||
			say "# archive/$2: no archive to unpack" ;;
	esac
}

# add_counts COUNTS COUNTS: their sum, field by field
add_counts() {
	local a b i
	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for i in "${!a[@]}"; do a[i]=$((a[i] + b[i])); done
	echo "${a[*]}"
}

# cell SCENARIO FORM WORKLOAD: record, change the files, read with every
# reader, judge
cell() {
	local scen=$1 form=$2 row=$1/$2 r counts bm="" d sum rc died
	# ORACLE_ONLY=REGEX: only the rows it matches (when working on one)
	[[ $row =~ ${ORACLE_ONLY:-.} ]] || return 0
	cdir=$t/cells/${row//\//_}
	mkdir -p "$cdir/home"
	r_home=$cdir/home r_opts=() r_tree='' ckind='' cpids=() during=''
	# what a scenario does to the files while the workload runs
	case $scen in
	replaced-running) during=replace ;;
	deleted-running) during=remove ;;
	esac
	rows+=("$row")
	setup "$3"
	# (the peer perf records build IDs in MMAP2 records by default)
	case $form in *-bm | peer | peer-*) bm=1 ;; esac
	# (no build ID in the kernel's record of a file not in memory; this
	# perf's --buildid-mmap fills it in, mainline 7.3 does not)
	[ "$scen" = evicted ] && [ "$form" = peer ] && bm=''
	case $scen in
	btrfs | overlay | shared | gone)
		ckind=$scen
		if ! containers "$scen"; then
			tap 0 "$row: the containers' roots ($scen)"
			return
		fi ;;
	esac
	record "$form"
	[ ${#datas[@]} -gt 0 ] || datas=("$data")
	leaked=''
	for d in "${datas[@]}"; do
		maps "$d" "$piped" >"$d.maps" 2>"$d.maps-err"
		# the kernel's listener-order leak, from a system-wide build-ID
		# session beside this one: THIS_PERF says so as it reads
		grep -q "carry the build-ID flag (a kernel bug" "$d.maps-err" && leaked=1
	done
	cat "${datas[@]/%/.maps}" >"$cdir/maps"
	after "$scen" "$form"
	local mc
	local anew=''
	[ "$scen" = evicted ] && case $form in pipe-bm | z-bm) anew=1 ;; esac
	read -r -a mc <<<"$(mmap_check "$cdir/maps" "$cdir/paths" "$bm" "$anew" 2>"$cdir/mmap.err")"
	if [ "${mc[0]}" -gt 0 ] && [ "${mc[1]}" -eq 0 ]; then
		say "# $row/mmap2: ${mc[0]} records of the workload"
		tap 1 "$row/mmap2: the workload's records, each with $([ -n "$bm" ] && echo "its build ID" || echo "no build ID")"
	else
		say "# $row/mmap2: ${mc[0]} records of the workload, ${mc[1]} with a wrong build ID"
		tap 0 "$row/mmap2: the workload's records, each with $([ -n "$bm" ] && echo "its build ID" || echo "no build ID")"
		sed 's/^/#   /' "$cdir/mmap.err" >&2
		grep -v '^ *$' "$cdir/record.err" | head -3 | sed 's/^/#   record: /' >&2
	fi
	case $form in
	switch | switch-*)
		# every file has the workload's records, so that it can be
		# read on its own
		local with=0
		for d in "${datas[@]}"; do
			[ "$(mmap_check "$d.maps" "$cdir/paths" "$bm" 2>/dev/null | cut -d' ' -f1)" -gt 0 ] &&
				with=$((with + 1))
		done
		tap "$( ((${#datas[@]} >= 2 && with == ${#datas[@]})) && echo 1)" \
			"$row: ${#datas[@]} files, $with with the workload's MMAP2 records"
		;;
	esac
	for r in "${readers[@]}"; do
		: >"$cdir/detail"
		: >"$cdir/err"
		# each file on its own, with its own records; a reader that
		# dies on one (a signal, or the time limit; not an error it
		# exits with) fails the cell, whatever it printed before
		sum="0 0 0 0 0 0 0" died=""
		for d in "${datas[@]}"; do
			data=$d
			read_cell "$r" >"$cdir/out" 2>>"$cdir/err"
			rc=$?
			# 124: the time limit (run); 129-192: a signal
			if [ "$rc" = 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; }; then
				died="$died${died:+, }${d##*/}: exit $rc"
			fi
			counts=$(awk -v detail="$cdir/detail" "$oracle_awk" "$t/db" "$cdir/paths" "$d.maps" "$cdir/out")
			sum=$(add_counts "$sum" "$counts")
		done
		judge "$row" "$r" "$sum" "$cdir/err" "$cdir/detail" "$died"
	done
	[ -n "$ckind" ] && stop_containers
}
