# Entry points of the MMAP2 build-ID patch queue. See README.md.
#
#   make demo     build what is missing, boot the patched kernel, show build IDs
#   make check    install, build and run the tiers of the series on x86_64
#                 (a fresh 2-core machine): "N passed, M failed"
#   make check-full  make check plus every other kernel: robot builds, the
#                 Debian recipe, arm64, s390x, i386, the bases, mainline
#                 6.12, PREEMPT_RT, the debug kernel, mainline perf 7.3
#                 both ways with this one (both run as many tiers
#                 at once as there are cores; JOBS=1 one at a time);
#                 records its summary in docs/check-full.md
#   make tier-NAME  one tier of tests/tiers/ alone, after the builds
#
#   make deps     install the Debian packages the harness needs
#   make tree     build/linux: the pinned 5.10.262 base with patches/ applied
#   make export   write the commits in build/linux back to patches/
#   make kernel   build/kernel/arch/x86/boot/bzImage
#   make rt-kernel  build/rt/kernel: the series on Debian's PREEMPT_RT patch set
#   make perf     build/perf/perf
#   make selftests  build/selftests/install
#   make check-series  series hygiene: applies, checkpatch, commit messages,
#                 builds after every patch
#   make mainline-kernel  build/mainline/kernel: mainline 6.12 (Debian's
#                 linux-source-6.12) with the same config, the reference
#   make bench    cost of --buildid-mmap, patched 5.10 versus mainline 6.12
#                 in the same VM, and perf record/report on the host
#   scripts/try-stable  which 5.10.y releases the series applies to
#   make clean    remove the build outputs (keeps build/linux and the download)
#   make distclean  remove build/ entirely
#
# Run anything in the test kernel: scripts/vm run -- PROG ARGS...
# Another architecture's guest (arm64, s390x, i386):
#   ARCH=arm64 scripts/build-guest && ARCH=arm64 scripts/vm run -- PROG ARGS...

.PHONY: help demo check check-full run-check run-check-full check-builds deps fetch tree export kernel rt-kernel mainline-kernel \
	perf selftests workloads check-series bench clean distclean

# a bare make lists the targets (the comment above), it builds nothing
help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

demo:
	@scripts/demo

# the tiers of make check, and those only make check-full runs, after
# them (so that an interrupted run has the whole of make check)
CHECK_TIERS := 05-each-patch 10-hygiene 20-vm-harness 30-kunit 40-kernel-vm 50-perf-vm \
	55-perf-fuzz 60-host 62-symbolize-host 63-libunwind-host 64-perf-7.3-host 65-nolibelf-host
FULL_TIERS := $(CHECK_TIERS) 12-robot 42-cross-vm 43-fs-vm 45-base-kernel-vm \
	46-mainline-vm 47-rt-vm 48-debug-vm 56-perf-fuzz-explore

# make check and make check-full run their tiers as many at once as the
# machine has cores (a guest under TCG uses one), unless make was given
# its own -j
JOBS ?= $(shell nproc)
jobs = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(JOBS))

check:
	@$(MAKE) --no-print-directory $(jobs) run-check

check-full:
	@$(MAKE) --no-print-directory $(jobs) run-check-full

# the tiers of this run, for the KTAP plan and numbers (scripts/run-tier)
run-check: export CHECK_RUN_TIERS := $(CHECK_TIERS)
run-check-full: export CHECK_RUN_TIERS := $(FULL_TIERS)
# the disk space a run takes from an empty build/ (scripts/check-disk)
run-check-full: export NEED_GIB := 18

run-check: $(CHECK_TIERS:%=tier-%)
	@scripts/check-summary $(CHECK_TIERS)

run-check-full: $(FULL_TIERS:%=tier-%)
	@scripts/check-summary --record docs/check-full.md $(FULL_TIERS)

tier-%: check-builds
	@scripts/run-tier $*

check-builds:
	@scripts/check-builds

deps:
	@scripts/deps

fetch: deps
	@scripts/fetch-base

tree: deps
	@scripts/tree

export:
	@scripts/export

kernel: tree
	@scripts/build-kernel

rt-kernel: tree
	@scripts/build-rt-kernel

mainline-kernel: deps
	@scripts/build-mainline-kernel

perf: tree
	@scripts/build-perf

selftests: tree
	@scripts/build-selftests

workloads:
	@$(MAKE) -s -C tests OUT=$(CURDIR)/build/workloads

check-series: tree
	@scripts/check-series | tee build/check-series.results; \
		! grep -q '^FAIL ' build/check-series.results

bench:
	@scripts/bench

clean:
	rm -rf build/kernel build/perf build/selftests build/workloads build/vm \
		build/check build/check-series build/base build/series build/rt \
		build/arm64 build/s390x build/i386 build/robot build/robot-* build/debian \
		build/mainline/kernel build/bench build/fs build/base-fs build/mainline-fs

distclean:
	rm -rf build
