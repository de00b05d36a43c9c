# shellcheck shell=bash
# Common settings and helpers for the harness scripts. Sourced, not run.
# shellcheck disable=SC2034 # the settings are used by the scripts that source this

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
PATCHES=${PATCHES:-$TOP/patches}

BASE_VERSION=5.10.262
BASE_DEB_VERSION=5.10.262-1
BASE_FILE=linux_${BASE_VERSION}.orig.tar.xz
BASE_SHA256=e03766e4b2c246a20c9e2770aa599ee25c336d33b31c0980950230634e195339
BASE_TAG=v${BASE_VERSION}
# Debian's packaging of the base (debian/patches, debian/patches-rt): the
# PREEMPT_RT guest is built from it (scripts/build-rt-kernel)
DEBIAN_FILE=linux_${BASE_DEB_VERSION}.debian.tar.xz
DEBIAN_SHA256=117a1e100275833b98b14b0af5babf9f5996190c87fe489f00cc5ec9f953ce3a
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mmap2-buildid}

# The kernel source tree the series is applied in: the user's own
# (KERNEL_TREE=) or the one made from the pinned base. LINUX and KOUT
# may be set to build another tree (scripts/build-base-kernel does), POUT
# and SOUT to build perf and the selftests elsewhere.
LINUX=${LINUX:-${KERNEL_TREE:-$BUILD/linux}}
KOUT=${KOUT:-$BUILD/kernel}
POUT=${POUT:-$BUILD/perf}
SOUT=${SOUT:-$BUILD/selftests}
VMDIR=$BUILD/vm

# ccache sees paths under build/ relative to the build directory, so the
# trees laid out alike (build/linux + build/kernel, build/base/linux +
# build/base/kernel, build/series/...) share the cache.
export CCACHE_BASEDIR=$BUILD

die() {
	printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2
	exit 1
}

note() {
	printf '==> %s\n' "$*" >&2
}

# step NAME CMD...: run CMD, framed by its name and how long it took.
step() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	note "$name"
	"$@"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		note "$name: done in $(( $(date +%s) - start ))s"
	else
		note "$name: FAILED (exit $rc) after $(( $(date +%s) - start ))s"
	fi
	return "$rc"
}

# format_series DIR: the commits above the base as format-patch files in
# DIR, with the options that make them depend on the commits alone.
format_series() {
	git -C "$LINUX" format-patch -q --zero-commit --no-signature --cover-letter \
		--subject-prefix=PATCH -o "$1" "$BASE_TAG..HEAD"
}

jobs_n() {
	nproc 2>/dev/null || echo 2
}

# section NAME: the output of test NAME of a tests/guest-suite.sh run on
# stdin, without its frame
section() {
	awk -v name="$1" '
		{ sub(/\r$/, "") }
		$0 == "@@begin " name { on = 1; next }
		on && index($0, "@@end " name " ") == 1 { on = 0 }
		on'
}

# section_rc NAME: the exit status of test NAME in a tests/guest-suite.sh
# run on stdin ("none" when it did not finish)
section_rc() {
	awk -v name="$1" '
		{ sub(/\r$/, "") }
		index($0, "@@end " name " ") == 1 { rc = $3 }
		END { print (rc == "" ? "none" : rc) }'
}
