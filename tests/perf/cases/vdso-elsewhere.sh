#!/bin/bash
# A recording without a build ID for the vdso (perf record --buildid-mmap:
# the vdso is no file, the kernel's records give it none) has its vdso
# samples named with the vdso of the kernel perf runs on, which it copies
# from its own memory. That is the recorded vdso only on the kernel that
# recorded: read elsewhere, a perf.data must give its vdso samples no
# symbol, never this kernel's. The test makes "elsewhere" by changing the
# kernel build ID the recording names (its bytes as the test reads them
# from /sys/kernel/notes, not from perf), or for a recording of user space
# only, which names none, the kernel release its header gives.
# usage: vdso-elsewhere.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
t=$(mktemp -d "${TMPDIR:-/tmp}/vdso-elsewhere.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
names=("the vdso, this kernel (its build ID recorded): its samples named"
	"the vdso, this kernel (user space only): its samples named"
	"the vdso, another kernel build ID: its samples there, none named"
	"the vdso, another kernel release: its samples there, none named"
	"the vdso, another kernel: perf inject -b gives it no build ID")

# the running kernel's build ID, from its notes (GNU, type 3)
kid=$(python3 - <<'EOF'
import struct
d = open('/sys/kernel/notes', 'rb').read()
i = 0
while i + 12 <= len(d):
    nsz, dsz, typ = struct.unpack_from('=III', d, i)
    name = d[i + 12:i + 12 + nsz]
    desc_at = i + 12 + (nsz + 3) // 4 * 4
    if typ == 3 and name.rstrip(b'\0') == b'GNU':
        print(d[desc_at:desc_at + dsz].hex())
        break
    i = desc_at + (dsz + 3) // 4 * 4
EOF
)
# a workload that spends its time in the vdso (clock_gettime)
burn='import time
for _ in range(2000000):
    time.monotonic()'
# With the kernel's samples (-e cpu-clock) the recording names the
# kernel's build ID; with user space only (:u) it names none, and its
# header's kernel release is what tells the kernel.
why=
if [ -z "$kid" ]; then
	why="no build ID in /sys/kernel/notes"
elif ! perf record -q --buildid-mmap -e cpu-clock -o "$t/k.data" -- python3 -c "$burn" \
	>/dev/null 2>&1 ||
	! perf record -q --buildid-mmap -e cpu-clock:u -o "$t/u.data" -- python3 -c "$burn" \
		>/dev/null 2>&1; then
	why="perf record --buildid-mmap does not work here"
fi
if [ -n "$why" ]; then
	for name in "${names[@]}"; do skip "$name" "$why"; done
	echo "1..$n"
	exit 0
fi

# replace IN OUT OLD NEW: IN with every OLD (hex) made NEW (hex) to OUT;
# prints how many it changed
replace() {
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
old, new = bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4])
open(sys.argv[2], "wb").write(d.replace(old, new))
print(d.count(old))' "$@"
}
hex() { od -An -tx1 | tr -d ' \n'; }
# the recordings from elsewhere: another kernel build ID, another release
other_id=$(python3 -c 'import sys; print(bytes(b ^ 0x5a for b in bytes.fromhex(sys.argv[1])).hex())' "$kid")
rel=$(uname -r | tr -d '\n' | hex)
other_rel=$(uname -r | tr -d '\n' | tr '0-9a-zA-Z' '1-90b-zaB-ZA' | hex)
nk=$(replace "$t/k.data" "$t/k-elsewhere.data" "$kid" "$other_id")
nr=$(replace "$t/u.data" "$t/u-elsewhere.data" "$rel" "$other_rel")
echo "# the kernel's build ID changed $nk times, its release $nr times"

# vdso_syms FILE: the symbols perf report names for the vdso's samples
vdso_syms() {
	perf report --stdio --no-children --sort dso,sym -i "$1" 2>/dev/null |
		awk '$2 == "[vdso]" { print $4 }' | sort -u
}
# named FILE: some vdso sample named clock_gettime's
named() {
	vdso_syms "$1" | grep -q clock_gettime
}
# none_named FILE: vdso samples there, none named
none_named() {
	local s
	s=$(vdso_syms "$1")
	[ -n "$s" ] && ! grep -qv '^0x' <<<"$s"
}
result "${names[0]}" named "$t/k.data"
result "${names[1]}" named "$t/u.data"
result "${names[2]}" none_named "$t/k-elsewhere.data"
result "${names[3]}" none_named "$t/u-elsewhere.data"
# no_vdso_id FILE: perf inject -b of FILE writes no build ID for the vdso
no_vdso_id() {
	perf inject -b -i "$1" -o "$t/inject.data" 2>/dev/null &&
		! perf buildid-list -i "$t/inject.data" 2>/dev/null | grep -q '\[vdso\]'
}
result "${names[4]}" no_vdso_id "$t/k-elsewhere.data"
echo "1..$n"
