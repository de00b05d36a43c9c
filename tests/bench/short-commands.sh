#!/bin/bash
# Exec-heavy shell work: COUNT rounds of short, dynamically linked
# commands, as build and packaging scripts run them (5 execs a round).
# usage: short-commands.sh COUNT
set -eu
for ((i = 0; i < $1; i++)); do
	/usr/bin/basename /a/b/c >/dev/null
	/usr/bin/dirname /a/b/c >/dev/null
	/usr/bin/seq "$i" "$i" >/dev/null
	/usr/bin/printf '%s\n' "$i" | /usr/bin/cat >/dev/null
done
