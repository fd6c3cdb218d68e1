#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward completion: the bash script completes verbs and each verb's own
# options from the tables the command line parses with (a verb added to
# ward_cmds[], an option to its getopt_long table, is completed without a
# second list); the zsh and fish scripts parse (zsh -n, fish -n).
. "$(dirname "$0")/lib.sh"

"$WARD" completion bash >"$WT_SCRATCH/ward.bash" 2>"$WT_ARTIFACTS/err" ||
    die "ward completion bash failed"
complete_words() {	# complete_words WORD...: what bash offers for the last
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ward
	    printf "%s\n" "${COMPREPLY[*]}"' _ "$WT_SCRATCH/ward.bash" "$@"
}
assert_eq "ward ap<TAB>" "approve apply" "$(complete_words ward ap)"
assert_eq "ward pending --h<TAB>" "--header --host= --help" "$(complete_words ward pending --h)"
assert_eq "ward run --pol<TAB> (an option with a value: no space)" "--policy=" "$(complete_words ward run --pol)"
assert_eq "ward console --v<TAB> (a whole word: a space after it)" "--view " "$(complete_words ward console --v)"
assert_eq "ward log --su<TAB>" "--summary " "$(complete_words ward log --su)"
assert_eq "the hidden verb is not offered" "" "$(complete_words ward probe-i)"
bash -c ". '$WT_SCRATCH/ward.bash'; complete -p ward" >"$WT_ARTIFACTS/complete-p" 2>&1 ||
    fail "complete -p ward: nothing registered"
assert_grep "bash registers _ward for ward" '^complete -F _ward ward$' "$WT_ARTIFACTS/complete-p"

# Each script is written and its content checked whether or not its shell
# is here; only the parse needs the shell, and only that is skipped (never
# in CI, which installs both).
for sh in zsh fish; do
	"$WARD" completion "$sh" >"$WT_SCRATCH/ward.$sh" || fail "ward completion $sh failed"
	if ! command -v "$sh" >/dev/null; then
		[ "${CI:-}" = true ] && die "$sh is missing (.ci/run installs it)"
		note "SKIP: $sh is not installed; its script's parse (\`$sh -n\`) is not checked"
	elif "$sh" -n "$WT_SCRATCH/ward.$sh" 2>"$WT_ARTIFACTS/$sh.err"; then
		note "ok: the $sh script parses"
	else
		show "$sh -n" "$WT_ARTIFACTS/$sh.err"
		fail "the $sh script does not parse"
	fi
done
assert_grep "zsh: run's options" "'--policy=\[\]:policy:_files'" "$WT_SCRATCH/ward.zsh"
assert_grep "fish: pending's --long" "__fish_seen_subcommand_from pending' -l long" "$WT_SCRATCH/ward.fish"

st=0
"$WARD" completion tcsh >/dev/null 2>"$WT_ARTIFACTS/tcsh.err" || st=$?
assert_eq "another shell is a usage error" 2 "$st"
finish
