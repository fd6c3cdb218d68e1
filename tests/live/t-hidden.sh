#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The host's homes, /run and environment stay outside; HOME and cwd are /work.
. "$(dirname "$0")/lib.sh"

prog='
echo "HOME=$HOME"
echo "PWD=$(pwd)"
for d in /home /root /run; do
	if out=$(ls -A "$d" 2>/dev/null) && [ -n "$out" ]; then
		echo "VISIBLE $d: $(echo $out)"
	else
		echo "HIDDEN $d"
	fi
done
echo "SECRET=${WARD_SECRET_TEST-unset}"
env > /out/env.txt'
export WARD_SECRET_TEST=xyz
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- sh -c "$prog"
assert_eq "exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || die "no run id"
tr -d '\r' <"$WT_ARTIFACTS/out" >"$WT_ARTIFACTS/out.txt"
assert_grep "HOME is /work" '^HOME=/work$' "$WT_ARTIFACTS/out.txt"
assert_grep "cwd is /work" '^PWD=/work$' "$WT_ARTIFACTS/out.txt"
for d in /home /root /run; do
	assert_grep "$d is hidden" "^HIDDEN $d\$" "$WT_ARTIFACTS/out.txt"
	# says little when the host's own is empty or closed to us
	[ -n "$(ls -A "$d" 2>/dev/null)" ] || note "(the host's $d is empty or unreadable for $(id -un))"
done
assert_grep "WARD_SECRET_TEST is not passed in" '^SECRET=unset$' "$WT_ARTIFACTS/out.txt"

# The environment the program saw, read from the run's out folder.
envf=$(run_dir "$WT_RUN")/out/env.txt
if [ -f "$envf" ]; then
	assert_no_grep "no host secret in the environment" 'xyz' "$envf"
	assert_no_grep "no host paths of ours in the environment" "$WT_SCRATCH|$XDG_STATE_HOME|$XDG_RUNTIME_DIR" "$envf"
	assert_no_grep "no agent or session sockets" '^(SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|DISPLAY|WAYLAND_DISPLAY|XDG_RUNTIME_DIR)=' "$envf"
else
	fail "the program's env dump is not in $envf"
fi
finish
