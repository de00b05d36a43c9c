#!/bin/bash
# A newer perf's own recordings, in each form it writes by default (a file,
# -z, a pipe, a pipe with -z), read by this perf: the same samples and
# symbols as the newer perf's own report of the same bytes, and the build
# IDs readelf reads from the workload's files.
# usage: peer-forms.sh THIS_PERF OTHER_PERF WORKLOAD_DIR   (TAP output)
set -u
. "$(dirname "$0")/tap.sh"
this=$1 other=$2
w=$(cd "$3" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/peer-forms.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
ver=$("$other" version 2>/dev/null | awk '{ print $3 }')

# the report without its header, the run's own comments and tips
report() { # report PERF FILE
	if [ "${2%.pipe}" != "$2" ]; then
		"$1" report --stdio --sort dso,sym -i - <"$2" 2>/dev/null
	else
		"$1" report --stdio --sort dso,sym -i "$2" 2>/dev/null
	fi | grep -v '^#' | grep .
}
ids() { # ids PERF FILE: the workload's build IDs the perf lists
	if [ "${2%.pipe}" != "$2" ]; then
		"$1" buildid-list -i - <"$2" 2>/dev/null
	else
		"$1" buildid-list -i "$2" 2>/dev/null
	fi | grep -E ' [^ ]*/(burn|libburn\.so)$' | sort
}
# (what differs goes to stderr, the tier's log. Seen twice, z and pipe-z:
# one sample in burn's PLT header, _init here and .plt in 7.3; burn is
# linked -z now since, so that the header never runs: tests/Makefile)
same_report() {
	grep -q burn_lib "$1" && cmp -s "$1" "$2" && return
	echo "# $(basename "$1" .theirs): perf $ver's report (<) and this perf's (>) differ:" >&2
	diff "$1" "$2" | head -20 >&2
	return 1
}
expect=$(for f in "$w/burn" "$w/libburn.so"; do printf '%s %s\n' "$(elf_id "$f")" "$f"; done | sort)

# burn 300: some 0.3 s, a thousand samples, burn_lib's among them
for form in file z pipe pipe-z; do
	opts=(-q -e cpu-clock:u)
	case $form in
	file) out=$t/$form.data ;;
	z) out=$t/$form.data opts+=(-z) ;;
	pipe) out=$t/$form.pipe ;;
	pipe-z) out=$t/$form.pipe opts+=(-z) ;;
	esac
	if [ "${out%.pipe}" != "$out" ]; then
		"$other" record "${opts[@]}" -o - -- "$w/burn" 300 >"$out" 2>"$t/err"
	else
		"$other" record "${opts[@]}" -o "$out" -- "$w/burn" 300 >/dev/null 2>"$t/err"
	fi || { skip "perf $ver's $form recording" "perf $ver record failed: $(head -1 "$t/err")"; continue; }
	report "$other" "$out" >"$t/$form.theirs"
	report "$this" "$out" >"$t/$form.ours"
	result "perf $ver's $form recording: its own report, read by this perf" \
		same_report "$t/$form.theirs" "$t/$form.ours"
	result "perf $ver's $form recording: readelf's build IDs, read by this perf" \
		[ "$(ids "$this" "$out")" = "$expect" ]
done
echo "1..$n"
