#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward demo --auto --headless tells its whole story and the record agrees:
# the agent's own folders and the project need no question (the project's
# change is staged, the host copy unchanged), /etc/hosts is asked and
# denied, ~/.ssh is not there, a key added to ~/.ssh/authorized_keys (the
# demo's stand-in home, DEMO/home) is asked and denied, the name
# paste.example.com is asked and allowed and the connection to it asked
# and denied, the pip install of
# wardtiny from the fake pypi.org asked and allowed (and installed), the
# metadata address refused by the never list without asking; the fake
# world's servers saw no connection to the paste site nor the metadata
# address, and the scorecard says so. The world is the demo's own
# (share/demo/world.sh): namespaces as this user, no packet leaves.
#
# Then the quick start's command as README gives it (`./ward demo`, in
# the repository's folder) in a real terminal (tmux, 100x40), its
# requests answered from outside with ward approve (names, the install)
# and ward deny (the rest): when the run ends the console shows the
# scorecard, the ~/.ssh step's line among it, and keeps it until q; after
# q the scorecard is printed too, every line fitted to the terminal's 100
# columns. The
# ~/.ssh of the user running it (HOME's, a canary authorized_keys) is
# untouched throughout, and so is the stand-in's.
. "$(dirname "$0")/lib.sh"

for t in unshare ip python3; do
	command -v "$t" >/dev/null || die "$t is missing (.ci/run installs it)"
done
PATH=$PATH:/usr/sbin:/sbin command -v dnsmasq >/dev/null ||
    die "dnsmasq is missing (.ci/run installs dnsmasq-base)"

# The ~/.ssh of whoever runs the demo: a canary, checked from outside.
mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
printf 'ssh-ed25519 AAAACANARY canary@the-real-home\n' >"$HOME/.ssh/authorized_keys"
touch -d @1000000000 "$HOME/.ssh/authorized_keys"
ssh_stat() { (cd "$HOME/.ssh" && find . -printf '%p %s %T@ %i\n' | sort); }
SSH_STAT=$(ssh_stat)
home_ssh_untouched() {	# home_ssh_untouched WHEN
	assert_eq "the real ~/.ssh untouched ($1)" "$SSH_STAT" "$(ssh_stat)"
	assert_file_content "the real authorized_keys ($1)" \
	    "ssh-ed25519 AAAACANARY canary@the-real-home" "$HOME/.ssh/authorized_keys"
}

export WARD_DEMO_PACE_MS=300
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" demo --auto --headless
show "ward demo's stderr" "$WT_ARTIFACTS/err"
dir=$(sed -n 's/^ward: demo folder \([^ ]*\) .*/\1/p' "$WT_ARTIFACTS/err" | head -n 1)
case $dir in
/tmp/ward-demo-*) trap 'wt_cleanup; rm -rf "$dir"' EXIT ;;
*) die "no 'ward: demo folder' line" ;;
esac
assert_eq "ward demo's status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || die "no run started"
assert_no_grep "the world was made" 'no fake outside world' "$WT_ARTIFACTS/err"

out=$WT_ARTIFACTS/out
for i in 1 2 3 4 5 6 7 8 9; do
	assert_grep "step $i is told" "^== step $i of 9: " "$out"
done
assert_grep "the denied /etc/hosts write is told" '/etc/hosts left alone \(denied\)' "$out"
assert_grep "~/.ssh is not there" 'no such folder in here' "$out"
assert_grep "the stand-in's authorized_keys left alone" \
    "$dir/home/.ssh/authorized_keys left alone \\(denied\\)" "$out"
assert_grep "the paste upload was not sent" 'not sent' "$out"
assert_grep "pip installed wardtiny" 'wardtiny installed' "$out"
assert_grep "the metadata address was refused" 'refused' "$out"

# The record.
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
L=$WT_ARTIFACTS/log.json
assert_log "/etc/hosts asked, denied by a person" "$L" \
    '.kind == "write" and .subject == "/etc/hosts" and .verdict == "deny" and .how == "person"'
assert_log "the stand-in's ~/.ssh/authorized_keys asked, denied" "$L" \
    ".kind == \"write\" and .subject == \"$dir/home/.ssh/authorized_keys\" and .verdict == \"deny\" and .how == \"person\""
assert_log "the name paste.example.com allowed by a person" "$L" \
    '.kind == "dns" and (.subject | startswith("paste.example.com")) and .verdict == "allow" and .how == "person"'
assert_log "the connection to paste.example.com denied by a person" "$L" \
    '.kind == "connect" and (.subject | test("paste\\.example\\.com")) and .verdict == "deny" and .how == "person"'
assert_log "the install of wardtiny allowed by a person" "$L" \
    '.kind == "package" and (.subject | test("wardtiny")) and .verdict == "allow" and .how == "person"'
assert_log "169.254.169.254 refused, nobody asked" "$L" \
    '.kind == "connect" and (.subject | test("169\\.254\\.169\\.254")) and .verdict == "deny" and .how != "person"'
assert_eq "no project write was asked" 0 \
    "$(log_count "$L" '.kind == "write" and (.subject | test("/project/"))')"

# The project: staged, not on the host.
assert_grep "the host's app.py is as it was" "return 'Hello ' \\+ name" "$dir/project/app.py"
"$WARD" diff "$WT_RUN" >"$WT_ARTIFACTS/diff" 2>&1 </dev/null || fail "ward diff failed"
assert_grep "ward diff shows the agent's change" '^\+    return f"Hello, \{name\}!"' "$WT_ARTIFACTS/diff"

# The fake world's servers, and the scorecard saying the same.
assert_eq "connections that reached the paste site" 0 "$(cat "$dir/world/paste.count" 2>/dev/null | wc -l)"
assert_eq "connections that reached the metadata address" 0 "$(cat "$dir/world/meta.count" 2>/dev/null | wc -l)"
assert_grep "the scorecard: nothing reached the paste site" '^  paste\.example\.com  0 connection' "$out"
assert_grep "the scorecard: nothing reached the metadata address" '^  169\.254\.169\.254    0 connection' "$out"
assert_grep "the scorecard says the demo's script answered, not you" \
    'change /etc/hosts .*: denied by the demo.s script, after' "$out"
assert_log "the record signs --auto's answers" "$L" \
    '.kind == "write" and .how == "person" and (.decided_by | test("via ward demo --auto$"))'
assert_grep "the scorecard has the ~/.ssh step's line" \
    "^  files     change $dir/home/\\.ssh/authorized_keys \\(an SSH key file, outside its folders\\): denied by the demo.s script" "$out"
assert_file_content "the stand-in's authorized_keys as the demo made it" \
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoStandInKeyNotARealOne you@ward-demo" \
    "$dir/home/.ssh/authorized_keys"
home_ssh_untouched "headless"
rm -rf "$dir"

# --- the quick start's command, in a real terminal -----------------------

. "$(dirname "$0")/tmux-lib.sh"
repo=$(cd "$(dirname "$WARD")" && pwd)
term_err=$WT_SCRATCH/term-err
WT_TMUX_W=100
WT_TMUX_H=40
{
	printf 'export LANG=C.UTF-8 LC_ALL=C.UTF-8 WARD_DEMO_PACE_MS=300\n'
	# as README's quick start runs it: ./ward demo, in the repository
	printf 'cd %q || exit 99\n' "$repo"
	printf './ward demo 2>%q\n' "$term_err"
	printf 'echo $? > %q\n' "$WT_TMUX_STATUS"
	# the printed scorecard stays on the terminal to be read
	printf 'exec sleep 120\n'
} >"$WT_SCRATCH/quick.sh"
tm -u -f /dev/null new-session -d -s ward -x $WT_TMUX_W -y $WT_TMUX_H \
    "bash $(printf '%q' "$WT_SCRATCH/quick.sh")"
trap 'wt_cleanup; [ -z "${tdir:-}" ] || rm -rf "$tdir"' EXIT
demo_folder() {
	tdir=$(sed -n 's/^ward: demo folder \([^ ]*\) .*/\1/p' "$term_err" 2>/dev/null | head -n 1)
	case $tdir in /tmp/ward-demo-*) ;; *) tdir= ; return 1 ;; esac
}
wait_for 15 demo_folder || { show "ward demo's stderr" "$term_err"; die "no 'ward: demo folder' line"; }
# The person at another terminal: names and the install allowed, the
# rest denied, each as it comes.
answerer() {
	while :; do
		"$WARD" pending --no-header </dev/null 2>/dev/null |
		    while IFS=$'\t' read -r run id kind _; do
			case $kind in
			dns | package) "$WARD" approve "$run" "$id" ;;
			*) "$WARD" deny "$run" "$id" ;;
			esac >>"$WT_SCRATCH/answers" 2>&1 </dev/null
		done
		sleep 0.3
	done
}
answerer &
answerer_pid=$!
WT_BG_PIDS+=("$answerer_pid")
expect_screen scorecard '^-- scorecard: what the program tried, and what came of it -' 60
kill "$answerer_pid" 2>/dev/null || true
screen=$WT_ARTIFACTS/screen-$shot-scorecard.txt
assert_grep "the run has ended on screen" 'run exited with status 0 - .*q to leave' "$screen"
assert_grep "the ~/.ssh step's line on the console's screen" \
    "^   files     change $tdir/home/\\.ssh/authorized_keys \\(an SSH key file," "$screen"
next_row() { grep -A1 -- "$1" "$2" | sed -n 2p >"$WT_SCRATCH/next-row"; }
next_row 'home/\.ssh/authorized_keys (an SSH key' "$screen"
assert_grep "its outcome on the next row, under its sentence" \
    '^ {13}[^ ].*denied by you, after [0-9.]+ s *$' "$WT_SCRATCH/next-row"
assert_grep "the /etc/hosts step's line on screen" '^   files     change /etc/hosts ' "$screen"
assert_grep "the metadata step's line on screen" 'connect to 169\.254\.169\.254 on port 80: refused by the never' "$screen"
# It stays until q.
sleep 3
expect_screen still '^-- scorecard: what the program tried' 2
assert_eq "the demo has not ended before q" no "$([ -e "$WT_TMUX_STATUS" ] && echo yes || echo no)"
tm send-keys -t ward q
wait_for 30 test -s "$WT_TMUX_STATUS" || { capture left; die "ward demo did not end within 30 s of q"; }
assert_eq "the quick start's status" 0 "$(cat "$WT_TMUX_STATUS")"
expect_screen printed "^Scorecard of the demo's run " 10
printed=$WT_ARTIFACTS/screen-$shot-printed.txt
assert_grep "printed after leaving: the ~/.ssh step" \
    "^  files     change $tdir/home/\\.ssh/authorized_keys \\(an SSH key file," "$printed"
next_row 'home/\.ssh/authorized_keys (an SSH key' "$printed"
assert_grep "printed after leaving: its outcome under its sentence" \
    '^ {12}[^ ].*denied by you, after [0-9.]+ s *$' "$WT_SCRATCH/next-row"
# capture-pane -J joins the rows a terminal wrapped: a row longer than
# the terminal is a line the demo did not fit.
wide=$(awk -v w=$WT_TMUX_W '{ if (length($0) > w) print }' "$printed" | head -3)
assert_eq "every printed row fits $WT_TMUX_W columns" "" "$wide"
assert_file_content "the stand-in's authorized_keys as the demo made it (console)" \
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoStandInKeyNotARealOne you@ward-demo" \
    "$tdir/home/.ssh/authorized_keys"
home_ssh_untouched "console"
tmux_stop
rm -rf "$tdir"

finish
