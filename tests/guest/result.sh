# shellcheck shell=sh
# result NAME GOT WANT: "ok N NAME" when GOT is WANT, else "not ok N NAME
# # got GOT, expected WANT" (TAP, numbered by $n); sourced by the guest's
# POSIX sh tests (busybox sh)
result() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1 # got $2, expected $3"
	fi
}
