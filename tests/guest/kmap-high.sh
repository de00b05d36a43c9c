#!/bin/sh
# In the i386 HIGHMEM guest: do the parser's page copies map high memory?
# A kprobe on kmap_atomic_high_prot() (5.10's kmap_atomic() of a highmem
# page) with a stack trace on every hit, while parse-count maps files
# under build-ID listeners; prints "@@kmap-high total=N from_parser=M",
# M the hits with build_id_parse() on the stack.
# usage: kmap-high.sh PARSE-COUNT FILE
t=/sys/kernel/debug/tracing
echo 'p:kmaph kmap_atomic_high_prot' >"$t/kprobe_events" || exit 1
echo stacktrace >"$t/events/kprobes/kmaph/trigger" || exit 1
echo 1 >"$t/events/kprobes/kmaph/enable" || exit 1
"$1" "$2" >/dev/null
echo 0 >"$t/events/kprobes/kmaph/enable"
echo "@@kmap-high total=$(grep -c ' kmaph: ' "$t/trace") from_parser=$(grep -c '=> build_id_parse$' "$t/trace")"
echo >"$t/kprobe_events"
