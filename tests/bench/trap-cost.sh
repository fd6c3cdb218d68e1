#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of one trapped, in-bounds write-open against an untrapped
# (read-only) one, native and under ward, a few rounds; prints medians,
# beside the two-switch floor of the machine measured in the same rounds
# (opens N floor: a pipe ping-pong between two processes on one CPU, one
# round trip is what a trapped call costs at the least, as the supervisor
# is woken on its target's CPU; floor-cross, the same free to cross CPUs,
# is printed beside it), the mechanism's own floor (opens N unotify: a
# supervisor that only polls, receives and continues; unotify-recv, the
# same asleep in RECV with no poll, the least the mechanism costs at all;
# unotify-read, poll, RECV, one read of the path from the target's memory
# and CONTINUE: the least a supervisor that judges a path pays) and the
# issue's target.
# Usage: tests/bench/trap-cost.sh [N] (from the repo root, after make).
# WARD_BEFORE=DIR (a built tree of an earlier commit, its ./ward) adds a
# column: that ward, measured in the same rounds, turn about with this one.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-20000}
ROUNDS=${TRAP_ROUNDS:-5}
tmp=$(mktemp -d /var/tmp/ward-trap.XXXXXX)
st=$(mktemp -d /var/tmp/ward-trap-state.XXXXXX)
trap 'rm -rf "$tmp" "$st"' EXIT
chmod 755 "$tmp"
cc -O2 -o "$tmp/opens" "$ROOT/tests/bench/opens.c"
export XDG_STATE_HOME="$st/state" XDG_RUNTIME_DIR="$st/run"
mkdir -p "$XDG_STATE_HOME" && mkdir -m 700 "$XDG_RUNTIME_DIR"
BEFORE=${WARD_BEFORE:-}
nat_w=() nat_r=() w_w=() w_r=() fl=() fx=() un=() ur=() rd=() b_w=() b_r=()
for ((i = 0; i < ROUNDS; i++)); do
	fl+=("$(cd "$tmp" && ./opens "$N" floor | awk '/^floor /{print $2}')")
	fx+=("$(cd "$tmp" && ./opens "$N" floor-cross | awk '/^floor-cross /{print $2}')")
	un+=("$(cd "$tmp" && ./opens "$N" unotify | awk '/^unotify /{print $2}')")
	ur+=("$(cd "$tmp" && ./opens "$N" unotify-recv | awk '/^unotify-recv /{print $2}')")
	rd+=("$(cd "$tmp" && ./opens "$N" unotify-read | awk '/^unotify-read /{print $2}')")
	out=$(cd "$tmp" && ./opens "$N")
	nat_w+=("$(awk '/^write-open/{print $2}' <<<"$out")")
	nat_r+=("$(awk '/^read-open/{print $2}' <<<"$out")")
	out=$("$ROOT/ward" run --headless --in "$tmp" -- "$tmp/opens" "$N" 2>/dev/null)
	w_w+=("$(awk '/^write-open/{print $2}' <<<"$out")")
	w_r+=("$(awk '/^read-open/{print $2}' <<<"$out")")
	[ -n "$BEFORE" ] || continue
	out=$("$BEFORE/ward" run --headless --in "$tmp" -- "$tmp/opens" "$N" 2>/dev/null)
	b_w+=("$(awk '/^write-open/{print $2}' <<<"$out")")
	b_r+=("$(awk '/^read-open/{print $2}' <<<"$out")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
nw=$(median "${nat_w[@]}") nr=$(median "${nat_r[@]}")
ww=$(median "${w_w[@]}") wr=$(median "${w_r[@]}") fm=$(median "${fl[@]}")
fxm=$(median "${fx[@]}") um=$(median "${un[@]}") urm=$(median "${ur[@]}")
rdm=$(median "${rd[@]}")
echo "trap cost, median of $ROUNDS rounds x $N calls (microseconds per open+close):"
printf '  %-28s %8s %8s %8s\n' "" native ward "x native"
printf '  %-28s %8.2f %8.2f %8.2f\n' "write-open in /work (trapped)" "$nw" "$ww" "$(awk -v a="$ww" -v b="$nw" 'BEGIN{print a/b}')"
printf '  %-28s %8.2f %8.2f %8.2f\n' "read-only open (not trapped)" "$nr" "$wr" "$(awk -v a="$wr" -v b="$nr" 'BEGIN{print a/b}')"
printf '  %-28s %8.2f\n' "two-switch floor (ping-pong)" "$fm"
printf '  %-28s %8.2f   (the two free to cross CPUs: not the floor)\n' "ping-pong across CPUs" "$fxm"
printf '  %-28s %8.2f   (poll, RECV, CONTINUE and nothing else: what any supervisor pays)\n' "unotify floor (write-open)" "$um"
printf '  %-28s %8.2f   (RECV, CONTINUE, no poll: the mechanism alone)\n' "unotify, no poll" "$urm"
printf '  %-28s %8.2f   (poll, RECV, the path read from the target, CONTINUE: what judging a path costs at least)\n' "unotify + one path read" "$rdm"
# The issue's target is a multiple of the ping-pong, which does no call;
# a trapped open still does its open and close once continued, and the
# kernel's user notification costs more than a pipe's wake-up.
printf '  the mechanism alone: %.2f x floor, %.2f x (floor + the native call): what no supervisor of this kind goes under\n' \
	"$(awk -v u="$urm" -v f="$fm" 'BEGIN{print u/f}')" \
	"$(awk -v u="$urm" -v f="$fm" -v n="$nw" 'BEGIN{print u/(f+n)}')"
if [ -n "$BEFORE" ]; then
	bw=$(median "${b_w[@]}") br=$(median "${b_r[@]}")
	printf '  before (%s): write-open %.2f us (%.2f x floor), read-only open %.2f us\n' \
		"$BEFORE" "$bw" "$(awk -v a="$bw" -v b="$fm" 'BEGIN{print a/b}')" "$br"
fi
printf '  write-open under ward / floor: %.2f (issue 18 target: <= 1.2, and <= 18 us: %.2f us)\n' \
	"$(awk -v a="$ww" -v b="$fm" 'BEGIN{print a/b}')" "$ww"
printf '  ward cost per trapped call beyond native: %.2f us\n' \
	"$(awk -v a="$ww" -v b="$nw" 'BEGIN{print a-b}')"
# What no supervisor can go under: the round trip plus the call itself
# (the kernel still does the open and the close once it is continued).
printf '  floor + the native call: %.2f us = %.2f x floor; ward beyond it: %.2f us\n' \
	"$(awk -v f="$fm" -v n="$nw" 'BEGIN{print f+n}')" \
	"$(awk -v f="$fm" -v n="$nw" 'BEGIN{print (f+n)/f}')" \
	"$(awk -v a="$ww" -v f="$fm" -v n="$nw" 'BEGIN{print a-f-n}')"
printf '  ward / the unotify floor: %.2f; ward beyond it (its own work per call): %.2f us\n' \
	"$(awk -v a="$ww" -v u="$um" 'BEGIN{print a/u}')" \
	"$(awk -v a="$ww" -v u="$um" 'BEGIN{print a-u}')"
# Issue 35's target, and the floor under it: no supervisor that reads
# the path it judges does less than poll, RECV, the read and CONTINUE.
printf '  issue 35: write-open under ward / the mechanism alone: %.2f (target: <= 1.25); ward beyond it: %.2f us (target: <= 2.4 us)\n' \
	"$(awk -v a="$ww" -v u="$urm" 'BEGIN{print a/u}')" \
	"$(awk -v a="$ww" -v u="$urm" 'BEGIN{print a-u}')"
printf '    the floor under it: one path read / the mechanism alone: %.2f; ward / that floor: %.2f, its judgement beyond it: %.2f us\n' \
	"$(awk -v r="$rdm" -v u="$urm" 'BEGIN{print r/u}')" \
	"$(awk -v a="$ww" -v r="$rdm" 'BEGIN{print a/r}')" \
	"$(awk -v a="$ww" -v r="$rdm" 'BEGIN{print a-r}')"
