# shellcheck shell=bash
# Sourced by tests/perf/oracle.sh: the kept copies of the workload binaries, and the oracle itself (what symbol each sample must have).
# It uses and sets the globals oracle.sh makes (t, w, this, others, n, ...).
# shellcheck disable=SC2154 # the globals are oracle.sh's

# --- the kept copies -------------------------------------------------------

# note_id FILE (tests/perf/tap.sh): the note's descriptor, for the IDs
# readelf -n refuses
# elf_id FILE: its build ID: readelf -n's, else (1 and 3 bytes) the note's
elf_id() {
	local id
	id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
	[ -n "$id" ] || id=$(note_id "$1")
	printf '%s\n' "$id"
}
# keep FILE: file a copy of FILE by build ID, with its PT_LOAD headers
# (L ID OFFSET VADDR FILESZ) and sized symbols (S ID VALUE SIZE NAME) in
# $t/db
keep() {
	local id
	id=$(elf_id "$1")
	[ -n "$id" ] || { say "no build ID in $1"; return 1; }
	[ -e "$t/keep/$id" ] && return 0
	cp "$1" "$t/keep/$id" || return 1
	readelf -lW "$t/keep/$id" | awk -v id="$id" '$1 == "LOAD" { print "L", id, $2, $3, $5 }' >>"$t/db"
	nm -S --defined-only "$t/keep/$id" | awk -v id="$id" 'NF == 4 { print "S", id, $1, $2, $4 }' >>"$t/db"
}
declare -A kept_id
for f in burn libburn.so spin-1 spin-3 spin-8 spin-md5 spin-sha1 split-text; do
	keep "$w/$f" || exit 1
	kept_id[$f]=$(elf_id "$w/$f")
done

# The replacement: burn and libburn.so built again, with another layout
# (-O0) and other names, so that any symbol read from it is wrong
mkdir -p "$t/variant"
# shellcheck disable=SC2016  # $ORIGIN is for the dynamic linker
if ! gcc -O0 -g -fPIC -shared -Dburn_lib=burn_lib_v2 -Wl,--build-id=sha1 \
	-o "$t/variant/libburn.so" "$src/libburn.c" ||
	! gcc -O0 -g -Dburn_lib=burn_lib_v2 -Dburn_main_a=burn_main_a_v2 \
		-Dburn_main_b=burn_main_b_v2 -Wl,--build-id=sha1 -o "$t/variant/burn" \
		"$src/burn.c" -L"$t/variant" -lburn -Wl,-rpath,'$ORIGIN'; then
	say "cannot build the replacement burn"
	exit 1
fi
# (kept too: the second container runs it)
for f in burn libburn.so; do
	keep "$t/variant/$f" || exit 1
	kept_id[v2-$f]=$(elf_id "$t/variant/$f")
done

# --- the oracle ---------------------------------------------------------------

# maps DATA [PIPED]: the MMAP/MMAP2 records THIS_PERF prints, as
# PID TIME START LEN PGOFF ID|- PATH (tab-separated); its stderr passes
maps() {
	if [ -n "${2:-}" ]; then
		run "$this" script -i - --show-mmap-events <"$1"
	else
		run "$this" script -i "$1" --show-mmap-events
	fi | awk '
	/ PERF_RECORD_MMAP2? / {
		i = index($0, " PERF_RECORD_MMAP")
		m = split(substr($0, 1, i - 1), a, " "); tm = a[m]; sub(/:$/, "", tm)
		rest = substr($0, i + 1)
		split(rest, b, " "); pid = b[2]; sub(/\/.*/, "", pid)
		j = index(rest, "["); k = index(rest, "]: ")
		split(substr(rest, j + 1, k - j - 1), c, " ")
		p = index(c[1], "("); st = substr(c[1], 1, p - 1)
		ln = substr(c[1], p + 1); sub(/\)$/, "", ln)
		id = "-"
		if (c[4] ~ /^</) { id = c[4]; gsub(/[<>]/, "", id) }
		after = substr(rest, k + 3); path = substr(after, index(after, " ") + 1)
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pid, tm, st, ln, c[3], id, path
	}'
}

# The oracle, over the db, the paths (P PATH ID [PID]: the file the test
# put at PATH, in PID's mount namespace when given; a sample's symbol is
# computed from that file, whatever ID its record names), the maps and a reader's perf script -F pid,time,ip,sym,dso
# output. Prints "CHECKED WRONG MISSING OTHER UNSURE BADID ALLOWED"
# (ALLOWED: missing where the P line of the pid says "may-miss"); the
# wrong and missing entries go to the file in -v detail.
# shellcheck disable=SC2016  # awk code
oracle_awk='
function hex(s,   v, k, d) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (k = 1; k <= length(s); k++) {
		d = index("0123456789abcdef", substr(s, k, 1))
		if (!d) break
		v = v * 16 + d - 1
	}
	return v
}
FNR == 1 { fi++ }
fi == 1 && $1 == "L" { ln_[$2]++; lo[$2, ln_[$2]] = hex($3); lv[$2, ln_[$2]] = hex($4); lz[$2, ln_[$2]] = hex($5); next }
fi == 1 && $1 == "S" && hex($4) > 0 { sn[$2]++; sv[$2, sn[$2]] = hex($3); ss[$2, sn[$2]] = hex($4); sname[$2, sn[$2]] = $5; sized[$2, $5] = 1; next }
fi == 1 { next }
fi == 2 { split($0, f, "\t"); if (f[4] != "") wantp[f[4], f[2]] = f[3]; else want[f[2]] = f[3]; if (f[5] == "may-miss") mm[f[4], f[2]] = 1; next }
fi == 3 {
	split($0, f, "\t"); p = f[1]; k = ++mn[p]
	mt[p, k] = f[2] + 0; ms[p, k] = hex(f[3]); ml[p, k] = hex(f[4]); mo[p, k] = hex(f[5])
	mid[p, k] = f[6]; path = f[7]; sub(/ \(deleted\)$/, "", path); mpath[p, k] = path
	next
}
# the reader output: a sample line "PID TIME: [IP SYM (DSO)]", then
# callchain entries "<tab>IP SYM (DSO)"
/^ *-?[0-9]+ +[0-9]+\.[0-9]+:/ {
	pid = $1; tm = $2; sub(/:$/, "", tm); tm += 0
	if (NF >= 3) check($3, NF >= 4 ? $4 : "")
	next
}
/^[ \t]+[0-9a-f]+ / && pid != "" { check($1, $2); next }
function check(ipx, sym,   ip, k, best, fb, key, off, va, i, e, found) {
	if (sym ~ /^\(/) sym = ""
	ip = hex(ipx); best = 0; fb = 0
	for (k = 1; k <= mn[pid]; k++)
		if (ip >= ms[pid, k] && ip < ms[pid, k] + ml[pid, k]) {
			if (mt[pid, k] <= tm) best = k
			else if (!fb) fb = k
		}
	if (!best) best = fb
	if (!best) { other++; return }
	# the file the test put there: for this pid, else for every pid
	if ((pid, mpath[pid, best]) in wantp) key = wantp[pid, mpath[pid, best]]
	else if (mpath[pid, best] in want) key = want[mpath[pid, best]]
	else { other++; return }
	if (mid[pid, best] != "-" && mid[pid, best] != key) badid++
	off = ip - ms[pid, best] + mo[pid, best]; va = -1
	for (i = 1; i <= ln_[key]; i++)
		if (off >= lo[key, i] && off < lo[key, i] + lz[key, i]) va = off - lo[key, i] + lv[key, i]
	if (va < 0) { unsure++; return }
	e = ""; found = 0
	for (i = 1; i <= sn[key]; i++)
		if (va >= sv[key, i] && va < sv[key, i] + ss[key, i]) {
			e = e (e == "" ? "" : "|") sname[key, i]
			if (sname[key, i] == sym) found = 1
		}
	if (e == "" && !sized[key, sym]) { unsure++; return }
	checked++
	if (found) return
	if ((sym == "" || sym == "[unknown]") && ((pid, mpath[pid, best]) in mm)) {
		allowed++
	} else if (sym == "" || sym == "[unknown]") {
		missing++
		if (nm_++ < 3) printf "missing: pid %s ip %s (%s+0x%x, va 0x%x): want %s, got %s\n", pid, ipx, mpath[pid, best], off, va, e, sym > detail
	} else {
		wrong++
		if (nw_++ < 5) printf "wrong: pid %s ip %s (%s+0x%x, va 0x%x): want %s, got %s\n", pid, ipx, mpath[pid, best], off, va, (e == "" ? "no symbol" : e), sym > detail
	}
}
END { printf "%d %d %d %d %d %d %d\n", checked, wrong, missing, other, unsure, badid, allowed }
'

# mmap_check MAPS PATHS BM [ANEW]: THIS_PERF's MMAP2 records of the workload
# paths: prints "RECORDS BAD" (BAD: not the kept copy's ID with --buildid-mmap,
# an ID without). ANEW: a classic record is right if a record of the same
# process and path with the ID follows it (perf record writes it anew
# where it cannot write into the first: a pipe, -z)
mmap_check() {
	awk -v bm="$3" -v anew="${4:-}" 'FNR == 1 { fi++ }
		fi == 1 { split($0, f, "\t"); if (f[4] != "") wantp[f[4], f[2]] = f[3]; else want[f[2]] = f[3]; next }
		{ split($0, f, "\t"); path = f[7]; sub(/ \(deleted\)$/, "", path)
		  if ((f[1], path) in wantp) id = wantp[f[1], path]
		  else if (path in want) id = want[path]
		  else next
		  if (bm && anew && f[6] == "-") { pend[f[1], path]++; next }
		  if (bm && anew && f[6] == id) pend[f[1], path] = 0
		  n++
		  if (bm ? f[6] != id : f[6] != "-") { bad++; print "MMAP2 of " path " (pid " f[1] "): " f[6] " (want " (bm ? id : "none") ")" > "/dev/stderr" } }
		END { for (k in pend) if (pend[k]) { bad += pend[k]; print "MMAP2 without ID, none with it after (pid, path " k ")" > "/dev/stderr" }
		      print n + 0, bad + 0 }' "$2" "$1"
}
