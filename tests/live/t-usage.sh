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

# Every verb's --help is help, not an error: exit 0, the text on stdout,
# nothing on stderr, no run. The verbs are read from the table itself
# (`ward completion bash` lists it), so a new verb is checked too.
"$WARD" completion bash >"$WT_ARTIFACTS/ward.bash"
verbs=$(sed -n 's/.*compgen -W "\(run [^"]*\)".*/\1/p' "$WT_ARTIFACTS/ward.bash" |
	tr ' ' '\n' | grep -v '^-')
[ -n "$verbs" ] || die "no verbs found in ward completion bash"
for verb in $verbs; do
	st=0
	out=$WT_ARTIFACTS/help.$verb err=$WT_ARTIFACTS/help-err.$verb
	timeout 20 "$WARD" "$verb" --help >"$out" 2>"$err" </dev/null || st=$?
	assert_eq "ward $verb --help exits" 0 "$st"
	[ -s "$out" ] || fail "ward $verb --help printed no help"
	[ -s "$err" ] && { fail "ward $verb --help wrote to stderr"; show stderr "$err"; }
	run_id_of "$err" >/dev/null && fail "ward $verb --help: a run started"
done
st=0
"$WARD" help help >"$WT_ARTIFACTS/help.help2" 2>&1 || st=$?
assert_eq "ward help help exits" 0 "$st"
# --timeout takes a duration (90s, 5m, 8h), and its usage says so.
assert_grep "run --help: --timeout DURATION" '\[--timeout DURATION\]' "$WT_ARTIFACTS/help.run"
assert_no_grep "run --help: no SECONDS" 'SECONDS' "$WT_ARTIFACTS/help.run"

# The program's own 2 stays the program's.
ward_fg "$WT_ARTIFACTS/out.prog" "$WT_ARTIFACTS/err.prog" run --headless -- sh -c 'exit 2'
assert_eq "the program's exit 2" 2 "$WT_STATUS"
finish
