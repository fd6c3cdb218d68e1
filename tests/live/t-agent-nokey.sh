#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The recipes work unchanged for a user who logs in inside with a
# subscription (issue 30, point 11): the recipe's API-key variable unset
# and its folder missing, the run starts all the same. One line says the
# secret is skipped, one that the folder was made (0700); the sandbox has
# no such variable, the telemetry variables the recipe sets, and a host
# the recipe denies (Claude Code's plugin marketplace, github.com) is
# refused at its lookup without a request, recorded as the policy's.
. "$(dirname "$0")/lib.sh"

share=$(cd "$(dirname "$WARD")" && pwd)/share
home=$WT_SCRATCH/home
mkdir -m 700 -p "$home"
prog='
echo "key=${ANTHROPIC_API_KEY-unset}"
for v in CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC DISABLE_TELEMETRY DISABLE_ERROR_REPORTING DISABLE_AUTOUPDATER; do
	eval "echo $v=\${$v-unset}"
done
python3 -c "
import socket, time
t = time.monotonic()
try:
    socket.getaddrinfo(\"github.com\", 443)
    print(\"github=resolved\")
except socket.gaierror as e:
    print(\"github=refused %d\" % e.errno)
print(\"lookup_ms=%d\" % ((time.monotonic() - t) * 1000))
"
echo done'

HOME=$home ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$share/agents/claude-code.ini" \
    -- sh -c "$prog" </dev/null
show "ward stderr" "$WT_ARTIFACTS/err"
show "program output" "$WT_ARTIFACTS/out"
tr -d '\r' <"$WT_ARTIFACTS/out" >"$WT_ARTIFACTS/out.txt"
assert_eq "exit status with the key unset and ~/.claude missing" 0 "$WT_STATUS"
assert_grep "one line: the secret is skipped" \
    '^ward: secret ANTHROPIC_API_KEY is not set: skipped; log in on the host or set it$' \
    "$WT_ARTIFACTS/err"
assert_eq "lines about the secret" 1 \
    "$(grep -c 'ANTHROPIC_API_KEY' "$WT_ARTIFACTS/err")"
assert_grep "one line: the folder was made" \
    "^ward: \\[files\\] writable ${home//./\\.}/\\.claude was missing: made it \\(0700\\)\$" \
    "$WT_ARTIFACTS/err"
assert_eq "~/.claude made, mode" 700 "$(stat -c %a "$home/.claude")"
assert_eq "~/.claude made, owner" "$(id -u)" "$(stat -c %u "$home/.claude")"
assert_grep "no ANTHROPIC_API_KEY in the sandbox" '^key=unset$' \
    "$WT_ARTIFACTS/out.txt"
for v in CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC DISABLE_TELEMETRY \
    DISABLE_ERROR_REPORTING DISABLE_AUTOUPDATER; do
	assert_grep "the recipe sets $v=1" "^$v=1\$" "$WT_ARTIFACTS/out.txt"
done
assert_grep "github.com is refused at its lookup" '^github=refused ' \
    "$WT_ARTIFACTS/out.txt"
assert_grep "the program ran to its end" '^done$' "$WT_ARTIFACTS/out.txt"
assert_no_grep "nobody was asked" 'pending' "$WT_ARTIFACTS/err"
if [ -n "$WT_RUN" ]; then
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
	assert_log "the record: github.com's lookup denied by the recipe" \
	    "$WT_ARTIFACTS/log.json" '.kind == "dns" and .subject == "github.com"
	    and .verdict == "deny" and .how == "policy"
	    and (.rule | startswith("deny github.com"))'
else
	fail "no run id"
fi

# Back again: the folder is there, nothing said about it.
HOME=$home ward_fg "$WT_ARTIFACTS/out.2" "$WT_ARTIFACTS/err.2" \
    run --headless --timeout 60 --policy "$share/agents/claude-code.ini" \
    -- true
assert_eq "exit status, second run" 0 "$WT_STATUS"
assert_no_grep "the folder is not made again" 'was missing' "$WT_ARTIFACTS/err.2"
finish
