#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A flood into the agent pane: a program that writes 40 MB to its
# terminal under `ward run --agent` (tmux) is paced by the console, as by a
# slow terminal, rather than the console being dropped when it falls 8 MiB
# behind: the console stays attached, shows the end of the output and
# the run's end, and the supervisor's memory stays bounded.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed (CI=true: no skip)"
	skip "tmux is not installed"
fi
write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 60'
launch=$WT_SCRATCH/launch.sh
{
	echo 'cd "$1" || exit 99'
	printf 'TERM=xterm-256color %q run --agent --name flood --policy %q -- sh -c %q\n' \
	    "$WARD" "$WT_SCRATCH/policy.ini" \
	    'head -c 40000000 /dev/zero | tr "\0" "x" | fold -w 99; echo; echo FLOOD-DONE; sleep 2'
	echo 'echo $? > "$2"'
} >"$launch"
export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardflood$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
status=$WT_SCRATCH/status
tm -f /dev/null new-session -d -s ward -x 100 -y 30 \
    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"
tm set-option -g status off >/dev/null 2>&1 || true

hwm=0
gone=
sample() {
	local pid h
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null || true
	grep -q 'supervisor gone' "$WT_SCRATCH/screen.txt" && gone=1
	pid=$(pgrep -f 'ward-supervisor.*--name flood' | head -1 || true)
	if [ -n "$pid" ]; then
		h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ "${h:-0}" -gt "$hwm" ] && hwm=$h
	fi
	grep -q 'FLOOD-DONE' "$WT_SCRATCH/screen.txt"
}
t0=$(now_ms)
until sample; do
	[ -n "$gone" ] && break
	[ $(( $(now_ms) - t0 )) -gt 180000 ] && break
	sleep 0.2
done
cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-end.txt"
note "flood of 40 MB drawn in $(( ($(now_ms) - t0) / 1000 )) s; supervisor peak RSS ${hwm} KiB"
if [ -n "$gone" ]; then
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "the console was dropped under the flood"
else
	note "ok: the console stayed attached under the flood"
fi
assert_grep "the end of the flood is drawn in the pane" 'FLOOD-DONE' "$WT_SCRATCH/screen.txt"
# Under the sanitizers (make asan-live) memory is theirs: only noted.
if [ "${WARD_SANITIZE:-0}" = 1 ]; then
	note "sanitized binaries: the peak RSS (${hwm} KiB) is not judged"
elif [ "$hwm" -gt 0 ] && [ "$hwm" -lt 65536 ]; then
	note "ok: the supervisor's memory stayed bounded (${hwm} KiB < 64 MiB)"
else
	fail "the supervisor's peak RSS: ${hwm} KiB (want 1..65535)"
fi
on_screen() {
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$1" "$WT_SCRATCH/screen.txt"
}
wait_for 20 on_screen 'exited with status 0' && note "ok: the run's end is shown" ||
    { show "screen" "$WT_SCRATCH/screen.txt"; fail "no end of the run on screen"; }
tm send-keys -t ward q
wait_for 10 test -s "$status" || true
assert_eq "ward's exit status" 0 "$(cat "$status" 2>/dev/null || echo none)"
finish
