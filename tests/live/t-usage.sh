#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Usage errors: an unknown option is one for every verb, and nothing runs.
# `ward run` and `ward demo` exit with the program's status, so their own
# usage errors exit 125 ("ward itself failed"), never the 2 a program may
# return; every other verb exits 2.
. "$(dirname "$0")/lib.sh"

# usage VERB WANT ARG...: `ward VERB ARG...` exits WANT, says why on
# stderr, prints nothing on stdout, and starts no run.
usage() {
	local verb=$1 want=$2 st=0
	shift 2
	n=$((n + 1))
	local out=$WT_ARTIFACTS/out.$n.$verb err=$WT_ARTIFACTS/err.$n.$verb
	timeout 20 "$WARD" "$verb" "$@" >"$out" 2>"$err" </dev/null || st=$?
	assert_eq "ward $verb $* exits" "$want" "$st"
	assert_grep "ward $verb $*: the error names the verb" "^ward $verb: " "$err"
	if [ -s "$out" ]; then
		fail "ward $verb $*: wrote to stdout"
		show "stdout" "$out"
	fi
	if run_id_of "$err" >/dev/null; then
		fail "ward $verb $*: a run started"
	fi
}

n=0
# Every verb of tui/main.c's table (probe-inside is ward's own, hidden).
usage run 125 --bogus -- true
usage run 125 -z -- true
usage run 125 --policy
usage run 125
usage demo 125 --bogus
demo_err=$WT_ARTIFACTS/err.$n.demo
usage demo 125 -x
usage demo 125 extra
usage console 2 --bogus
usage pending 2 --bogus
usage approve 2 --bogus 01234567 1
usage deny 2 --bogus 01234567 1
usage kill 2 --bogus 01234567
usage log 2 --bogus
usage output 2 --bogus
usage ps 2 --bogus
usage gc 2 --bogus
usage probe 2 --bogus
assert_grep "the unknown option is named" "unknown option '--bogus'" "$demo_err"

# No demo ran: it would have made its folder and said so.
assert_no_grep "ward demo --bogus made no demo folder" "demo folder" "$demo_err"

# The program's own 2 stays the program's.
ward_fg "$WT_ARTIFACTS/out.prog" "$WT_ARTIFACTS/err.prog" run --headless -- sh -c 'exit 2'
assert_eq "the program's exit 2" 2 "$WT_STATUS"
finish
