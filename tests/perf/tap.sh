# shellcheck shell=bash
# Helpers the shell tests share (sourced): KTAP result lines and the
# tests' own readers of build IDs, which never ask perf.
# shellcheck disable=SC2034 # n is the test's result counter
n=${n:-0}

# result NAME CMD...: "ok N NAME" when CMD succeeds, else "not ok N NAME"
# (the lines of Documentation/dev-tools/ktap.rst, numbered by $n)
result() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n $name"; else echo "not ok $n $name"; fi
}

# skip NAME WHY: "ok N NAME # SKIP WHY", a check that cannot run here
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

# xfail NAME WHY: "ok N NAME # XFAIL WHY", a known failure that is not
# this series' (mainline's, or another perf's), as kselftest reports one
xfail() {
	n=$((n + 1))
	echo "ok $n $1 # XFAIL $2"
}

not_grep() { ! grep -q "$@"; }

# note_id FILE: the descriptor of the "GNU" NT_GNU_BUILD_ID note, in hex,
# from the bytes of .note.gnu.build-id (little-endian ELF); readelf -n
# refuses the 1- and 3-byte ones, which ld does not pad
note_id() {
	local off size
	read -r off size < <(readelf -SW "$1" 2>/dev/null | awk '{
		for (i = 1; i < NF; i++) if ($i == ".note.gnu.build-id") print $(i + 3), $(i + 4) }')
	[ -n "${off:-}" ] || return 1
	od -An -v -tx1 -j $((0x$off)) -N $((0x$size)) "$1" | tr -s ' \n' '\n' | grep . | awk '
		{ b[n++] = $1 }
		function hex(s,   v, k) {
			for (k = 1; k <= length(s); k++)
				v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
			return v
		}
		function le32(i) { return hex(b[i+3] b[i+2] b[i+1] b[i]) }
		END {
			nsz = le32(0); dsz = le32(4)
			if (le32(8) != 3 || nsz != 4 || b[12] b[13] b[14] != "474e55") exit 1
			d = 12 + int((nsz + 3) / 4) * 4
			for (j = 0; j < dsz; j++) printf "%s", b[d + j]
			print ""
		}'
}

# elf_id FILE: its build ID as readelf -n reads it
elf_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }
