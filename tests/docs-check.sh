#!/bin/sh
# SPDX-License-Identifier: MIT
# make docs-check: one source per fact, and the copies that must exist
# agree with the code. Fails, naming each drift, when
#  - a key of the policy parser's key table (config/policy*.c) is not
#    documented in its section of share/policy-reference.md or of
#    share/man/ward.ini.5, or either documents a key or section the
#    parser does not have; or its sentence "the sections are ..." misses
#    one (the two lists had lost [record] and [review]);
#  - a command of `ward --help` (tui/main.c's ward_help) has no entry in
#    ward(1)'s COMMANDS, or ward(1) describes a command the help lacks;
#  - the README documents policy keys again (a key table row or a
#    section heading of its own), or outgrows a newcomer's 600 lines;
#  - a man page makes groff warn.
# Run from the top of the tree.
set -u
fail=0
bad() { echo "docs-check: $*" >&2; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# --- policy keys --------------------------------------------------------
# The key table's rows: { "section", "key", list, set, set_named }.
awk '/policy_keys\[\] = \{/ { t = 1; next } t && /^\};/ { t = 0 }
    t && /^[[:space:]]*\{ *"[a-z0-9_]+", *"[a-z0-9_]+",/ {
	split($0, q, "\""); print q[2], q[4] }' config/policy*.c | sort -u >"$tmp/code"
[ -s "$tmp/code" ] || bad "no key table found in config/policy*.c"
cut -d' ' -f1 "$tmp/code" | sort -u >"$tmp/code-sections"

# policy-reference.md: "### `[section NAME]`" then the rows of a table
# whose header is "| key | ...".
awk '/^##+ `\[/ { s = $0; sub(/^##+ `\[/, "", s); sub(/[] ].*/, "", s); next }
    /^##+ / { s = "" }
    !/^\|/ { hdr = 0; intab = 0 } /^\|/ && !intab { intab = 1; hdr = /^\| key \|/ }
    s != "" && hdr && /^\| `[a-z0-9_]+` \|/ { k = $0; sub(/^\| `/, "", k); sub(/`.*/, "", k); print s, k }' \
    share/policy-reference.md | sort -u >"$tmp/md"
awk '/^##+ `\[/ { s = $0; sub(/^##+ `\[/, "", s); sub(/[] ].*/, "", s); print s }' \
    share/policy-reference.md | sort -u >"$tmp/md-sections"

# ward.ini.5: ".SH [section NAME]" (and its .SS), then ".TP" and a line
# ".B key" / ".BI key ..." / ".BR key ...".
awk '/^\.SH \[/ { s = $0; sub(/^\.SH \[/, "", s); sub(/[] ].*/, "", s); next }
    /^\.SH / { s = "" }
    /^\.TP/ { tp = NR; next }
    s != "" && NR == tp + 1 && /^\.B[IR]? [a-z0-9_]+/ { print s, $2 }' \
    share/man/ward.ini.5 | sort -u >"$tmp/man"
awk '/^\.SH \[/ { s = $0; sub(/^\.SH \[/, "", s); sub(/[] ].*/, "", s); print s }' \
    share/man/ward.ini.5 | sort -u >"$tmp/man-sections"

for doc in md:share/policy-reference.md man:share/man/ward.ini.5; do
	t=${doc%%:*} f=${doc#*:}
	comm -23 "$tmp/code" "$tmp/$t" | while read -r s k; do
		echo "docs-check: [$s] $k is a key in config/policy*.c but $f does not document it" >&2
		: >"$tmp/failed"
	done
	comm -13 "$tmp/code" "$tmp/$t" | while read -r s k; do
		echo "docs-check: $f documents [$s] $k, which config/policy*.c's key table does not have" >&2
		: >"$tmp/failed"
	done
	comm -3 "$tmp/code-sections" "$tmp/$t-sections" | while read -r s; do
		echo "docs-check: section [$s] is in one of config/policy*.c and $f, not both" >&2
		: >"$tmp/failed"
	done
done

# Each reference's sentence "the sections are ..." names every section
# of the key table (the sentence ends at its full stop).
for f in share/policy-reference.md share/man/ward.ini.5; do
	awk '/[Tt]he sections are/ { on = 1 } on { print } on && /\.( |$)/ && !/[Tt]he sections are/ { exit }' "$f" |
	    grep -oE '\[[a-z]+' | tr -d '[' | sort -u >"$tmp/sentence"
	[ -s "$tmp/sentence" ] || { bad "$f: no sentence \"the sections are ...\" found"; continue; }
	comm -3 "$tmp/code-sections" "$tmp/sentence" | while read -r s; do
		echo "docs-check: $f: section [$s] is in one of config/policy*.c and the sentence listing the sections, not both" >&2
		: >"$tmp/failed"
	done
done

# --- commands -----------------------------------------------------------
# ward_help's "Commands:" lines: two spaces, then the verb.
awk '/^static const char ward_help\[\]/ { h = 1 } h && /^;/ { exit }
    h && /^"Commands:/ { c = 1; next } c && /^"\\n"/ { exit }
    c && /^"  [a-z]/ { v = $0; sub(/^"  /, "", v); sub(/[ \\].*/, "", v); print v }' \
    tui/main.c | sort -u >"$tmp/verbs"
[ -s "$tmp/verbs" ] || bad "no command list found in tui/main.c's ward_help"
awk '/^\.SH COMMANDS/ { c = 1; next } /^\.SH / { c = 0 }
    /^\.TP/ { tp = NR; next }
    c && NR == tp + 1 && /^\.B / { print $2 }' share/man/ward.1 | sort -u >"$tmp/man-verbs"
comm -23 "$tmp/verbs" "$tmp/man-verbs" | while read -r v; do
	echo "docs-check: 'ward $v' is in ward --help (tui/main.c) but has no entry in share/man/ward.1 COMMANDS" >&2
	: >"$tmp/failed"
done
comm -13 "$tmp/verbs" "$tmp/man-verbs" | while read -r v; do
	echo "docs-check: share/man/ward.1 COMMANDS describes 'ward $v', which ward --help does not list" >&2
	: >"$tmp/failed"
done

# --- the README stays a README -------------------------------------------
cut -d' ' -f2 "$tmp/code" | sort -u >"$tmp/keys"
awk '!/^\|/ { hdr = 0; intab = 0 } /^\|/ && !intab { intab = 1; hdr = /^\| key \|/ }
    hdr && /^\| `[a-z0-9_]+` \|/ { print NR ":" $0 }' README.md | while IFS=: read -r n line; do
	k=${line#'| `'}; k=${k%%'`'*}
	if grep -qx "$k" "$tmp/keys"; then
		echo "docs-check: README.md:$n documents the policy key $k again: link share/policy-reference.md" >&2
		: >"$tmp/failed"
	fi
done
grep -n '^#\{1,6\} `\[[a-z]' README.md | while IFS=: read -r n line; do
	echo "docs-check: README.md:$n is a policy section's heading: its keys belong in share/policy-reference.md" >&2
	: >"$tmp/failed"
done
n=$(wc -l <README.md)
[ "$n" -lt 600 ] || bad "README.md has $n lines: a newcomer's README stays under 600 (the reference goes to share/man/ and share/policy-reference.md)"

# --- the man pages build -------------------------------------------------
# (groff-base comes with man-db; a machine without it skips this, saying so)
if command -v groff >/dev/null; then
	for m in share/man/*.[0-9]; do
		w=$(groff -man -t -ww -z "$m" 2>&1) || bad "$m: groff fails"
		[ -z "$w" ] || bad "$m: groff warns: $w"
	done
else
	[ "${CI:-}" = true ] && bad "no groff under CI: .ci/run installs groff-base"
	echo "docs-check: no groff (groff-base): the man pages' markup not checked" >&2
fi

[ -e "$tmp/failed" ] && fail=1
[ $fail = 0 ] && echo "docs-check: ok"
exit $fail
