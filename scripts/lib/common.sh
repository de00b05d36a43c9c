# shellcheck shell=bash
# Common settings and helpers for the harness scripts. Sourced, not run.
# shellcheck disable=SC2034 # the settings are used by the scripts that source this

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
PATCHES=${PATCHES:-$TOP/patches}

BASE_VERSION=5.10.262
BASE_DEB_VERSION=5.10.262-1
BASE_FILE=linux_${BASE_VERSION}.orig.tar.xz
BASE_SHA256=e03766e4b2c246a20c9e2770aa599ee25c336d33b31c0980950230634e195339
BASE_TAG=v${BASE_VERSION}
# the stable tree's commit tagged v5.10.262 ("Linux 5.10.262"): the
# cover letter's base-commit: line, as git format-patch --base writes it
# (the local base commit, made from the tarball, has another ID)
BASE_COMMIT=065a677fad98698de04279ba2cb152a472ab8b1f
# Debian's packaging of the base (debian/patches, debian/patches-rt): the
# PREEMPT_RT guest is built from it (scripts/build-rt-kernel)
DEBIAN_FILE=linux_${BASE_DEB_VERSION}.debian.tar.xz
DEBIAN_SHA256=117a1e100275833b98b14b0af5babf9f5996190c87fe489f00cc5ec9f953ce3a
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mmap2-buildid}

# The guest architecture (ARCH=, as QEMU and Debian's cross compilers
# name it): x86_64 (the default, the host's own), arm64, i386 (HIGHMEM)
# or s390x (big-endian). It picks the kernel's ARCH, the cross compiler,
# the kernel image, QEMU and where the builds go: build/kernel etc. for
# x86_64, build/ARCH/kernel etc. for the others, whose userspace is
# static. ARCH is taken out of the environment here so that it reaches
# no other make (perf's own build is always the host's); the scripts this
# one runs get it as GUEST_ARCH.
GUEST_ARCH=${ARCH:-${GUEST_ARCH:-x86_64}}
export GUEST_ARCH
unset ARCH
# Under make -jN (make check-full -j2) the environment names make's
# jobserver, which the tiers' recipes do not pass on: each make the
# harness runs would warn ("-j2 forced in submake", "jobserver
# unavailable") into the build logs that are checked for warnings. The
# harness's makes pick their own -j, as when run alone.
unset MAKEFLAGS MFLAGS
# Python is Debian's (the one make deps installs modules for), not a
# version manager's shims found first in PATH: perf's Makefile asks
# python-config three times per build even without Python support, and a
# pyenv shim spends a second of shell start-ups on each.
PATH=$(tr ':' '\n' <<<"$PATH" | grep -v '/\.pyenv/' | paste -sd:)
case $GUEST_ARCH in
x86_64) KARCH=x86_64 CROSS='' KIMAGE=arch/x86/boot/bzImage DEBARCH=amd64 ;;
i386) KARCH=i386 CROSS=i686-linux-gnu- KIMAGE=arch/x86/boot/bzImage DEBARCH=i386 ;;
arm64) KARCH=arm64 CROSS=aarch64-linux-gnu- KIMAGE=arch/arm64/boot/Image DEBARCH=arm64 ;;
s390x) KARCH=s390 CROSS=s390x-linux-gnu- KIMAGE=arch/s390/boot/bzImage DEBARCH=s390x ;;
*)
	printf '%s: error: ARCH=%s is not a guest architecture (x86_64, arm64, i386, s390x)\n' \
		"$(basename "$0")" "$GUEST_ARCH" >&2
	exit 2
	;;
esac
QEMU=qemu-system-${GUEST_ARCH/arm64/aarch64}
if [ "$GUEST_ARCH" = x86_64 ]; then
	ARCH_BUILD=$BUILD
else
	ARCH_BUILD=$BUILD/$GUEST_ARCH
fi
# PAGES=16k|64k (arm64 only): the guest kernel with that page size, built
# in build/arm64-16k/kernel or build/arm64-64k/kernel with
# configs/pages/arm64-PAGES.config as well. Its userspace is arm64's own
# (static, its segments aligned to 64 KiB, so it runs at every size).
GUEST_PAGES=${PAGES:-${GUEST_PAGES:-}}
export GUEST_PAGES
unset PAGES
KERNEL_BUILD=$ARCH_BUILD
PAGES_FRAGMENT=
if [ -n "$GUEST_PAGES" ]; then
	PAGES_FRAGMENT=$TOP/configs/pages/$GUEST_ARCH-$GUEST_PAGES.config
	if [ ! -f "$PAGES_FRAGMENT" ]; then
		printf '%s: error: PAGES=%s: no such page size for %s (configs/pages/ has them)\n' \
			"$(basename "$0")" "$GUEST_PAGES" "$GUEST_ARCH" >&2
		exit 2
	fi
	KERNEL_BUILD=$BUILD/$GUEST_ARCH-$GUEST_PAGES
fi

# The kernel source tree the series is applied in: the user's own
# (KERNEL_TREE=) or the one made from the pinned base. LINUX and KOUT
# may be set to build another tree (scripts/build-base-kernel does), POUT
# and SOUT to build perf and the selftests elsewhere; WOUT holds the
# test workloads.
LINUX=${LINUX:-${KERNEL_TREE:-$BUILD/linux}}
KOUT=${KOUT:-$KERNEL_BUILD/kernel}
POUT=${POUT:-$BUILD/perf}
# The series' own tests in perf test, by what their descriptions contain:
# build IDs in MMAP2 records, and the shell tests that the fixes and the
# extensions of the series carry (those of 34, 47, 59-60, 62-63, 65, 71
# and 73-74 match 'renamed over' and buildid-mmap, those of 7 and 44
# MMAP2);
# PERF_TESTS_N tests match them.
PERF_TESTS=(MMAP2 buildid-mmap 'inject of pipes' 'cut short' 'FIFO at a binary'
	'files of their own' 'outside the cache' 'renamed over' 'deleted while recording'
	'the binaries a recording names' 'build ID of one byte' 'replaced after perf record'
	'did not cache them' 'deleted after a dwarf recording' 'debug file alone'
	'debuginfod support' 'asks debuginfod' 'never answers' 'mount namespace of its own'
	'one path, two builds' COMPRESSED2 'jitdump file' "another kernel's"
	'0 bytes is no build ID' 'no shell command' 'past the first note segment'
	'8 and 16 bytes' 'without events' 'impossible number of CPUs' 'stat round in a perf record'
	'type perf does not know' '8-byte multiples' 'EVENT_UPDATE CPU map'
	'MEM_TOPOLOGY bitmap' 'name does not end in it' 'end-of-features mark'
	'every tool reads the compressed' 'of a newer perf' 'count its section cannot hold'
	'copy of the vdso' 'cannot open is an error')
PERF_TESTS_N=52
SOUT=${SOUT:-$ARCH_BUILD/selftests}
WOUT=${WOUT:-$ARCH_BUILD/workloads}
VMDIR=$BUILD/vm
# the mainline reference kernel's build (scripts/build-mainline-kernel)
MAINLINE_KOUT=${MAINLINE_KOUT:-$BUILD/mainline/kernel}

# ccache sees paths under build/ relative to the build directory, so the
# trees laid out alike (build/linux + build/kernel, build/base/linux +
# build/base/kernel, build/series/...) share the cache.
export CCACHE_BASEDIR=$BUILD
# perf compiles with -ggdb3, and for a compile with debug info ccache
# hashes the directory it runs in (hash_dir) unless told not to: a clone
# at another path (CI's) then missed on every perf object, and the
# per-patch perf builds of the series tree (build/series/linux) never hit
# the objects of build/linux. The debug info of a hit may name the
# other tree's directory; nothing here reads it.
export CCACHE_NOHASHDIR=1
# tools/build compiles with -Wp,-MT,<absolute object path>, which base_dir
# does not rewrite: every perf object of one clone missed in a clone at
# another path (CI's). The target name only goes into the .d file, and
# tools/build/fixdep drops target names from it: leave it out of the hash.
export CCACHE_IGNOREOPTIONS='-Wp,-MT,*'
# make check-full builds a dozen kernels and perfs: more than ccache's
# default 5 GB, which then evicts what make check needs next time
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-16G}

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

# locked LOCKFILE CMD...: run CMD holding an exclusive lock on LOCKFILE.
# make check runs tiers at once, and two of them may fetch, unpack or
# check out into one place: the second waits for the first.
locked() {
	local lock=$1
	shift
	mkdir -p "$(dirname "$lock")"
	(
		flock 9 || exit 1
		"$@"
	) 9>"$lock"
}

# worktree_checkout DIR REV: DIR as a git work tree of $LINUX at REV,
# unless DIR has one already (the base's tree serves several tiers)
worktree_checkout() {
	locked "$BUILD/.worktree.lock" worktree_checkout_locked "$@"
}
worktree_checkout_locked() {
	[ -e "$1/.git" ] && [ -f "$1/Makefile" ] && return 0
	git -C "$LINUX" worktree prune &&
		git -C "$LINUX" worktree add -q --detach "$1" "$2"
}

# format_series DIR: the commits above the base as format-patch files in
# DIR, with the options that make them depend on the commits alone (--abbrev:
# the index lines do not vary with the number of objects in the tree). A
# commit's git note (the checkpatch exceptions it keeps, and why) goes
# below its "---", where git am leaves it out of the commit message.
format_series() {
	git -C "$LINUX" format-patch -q --zero-commit --no-signature --cover-letter --abbrev=7 \
		--notes --subject-prefix=PATCH -o "$1" "$BASE_TAG..HEAD"
}

# patch_notes FILE: the "Notes:" block format_series wrote below the "---"
# of patch FILE, unindented; nothing when it has none
patch_notes() {
	awk '/^---$/ && !cut { cut = 1; next }
		cut && /^diff --git / { exit }
		cut && /^Notes:$/ { on = 1; next }
		on && /^$/ { exit }
		on { sub(/^    /, ""); print }' "$1"
}

jobs_n() {
	nproc 2>/dev/null || echo 2
}

# xfail_where WHERE: result lines on stdin, the known failures (XFAIL,
# of mainline or of another perf) with WHERE (the kernel) after the reason
xfail_where() {
	sed -E "/^XFAIL /s@\$@${1:+ $1}@"
}

# section NAME: the output of test NAME of a tests/guest/suite.sh run on
# stdin, without its frame
section() {
	awk -v name="$1" '
		{ sub(/\r$/, "") }
		$0 == "@@begin " name { on = 1; next }
		on && index($0, "@@end " name " ") == 1 { on = 0 }
		on'
}

# section_rc NAME: the exit status of test NAME in a tests/guest/suite.sh
# run on stdin ("none" when it did not finish)
section_rc() {
	awk -v name="$1" '
		{ sub(/\r$/, "") }
		index($0, "@@end " name " ") == 1 { rc = $3 }
		END { print (rc == "" ? "none" : rc) }'
}

# series_objects: the objects of the C files the series changes (outside
# tools/, scripts/ and samples/), one per line
series_objects() {
	git -C "$LINUX" diff --name-only "$BASE_TAG" HEAD -- '*.c' \
		':!tools/' ':!scripts/' ':!samples/' | sed 's/[.]c$/.o/'
}
