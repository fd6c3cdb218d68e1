#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward demo --auto --headless tells its whole story and the record agrees:
# the agent's own folders and the project need no question (the project's
# change is staged, the host copy unchanged), /etc/hosts is asked and
# denied, ~/.ssh is not there, the name paste.example.com is asked and
# allowed and the connection to it asked and denied, the pip install of
# wardtiny from the fake pypi.org asked and allowed (and installed), the
# metadata address refused by the never list without asking; the fake
# world's servers saw no connection to the paste site nor the metadata
# address, and the scorecard says so. The world is the demo's own
# (share/demo/world.sh): namespaces as this user, no packet leaves.
. "$(dirname "$0")/lib.sh"

for t in unshare ip python3; do
	command -v "$t" >/dev/null || die "$t is missing (.ci/run installs it)"
done
PATH=$PATH:/usr/sbin:/sbin command -v dnsmasq >/dev/null ||
    die "dnsmasq is missing (.ci/run installs dnsmasq-base)"

export WARD_DEMO_PACE_MS=300
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" demo --auto --headless
show "ward demo's stderr" "$WT_ARTIFACTS/err"
dir=$(sed -n 's/^ward: demo folder \([^ ]*\) .*/\1/p' "$WT_ARTIFACTS/err" | head -n 1)
case $dir in
/tmp/ward-demo-*) trap 'rm -rf "$dir"' EXIT ;;
*) die "no 'ward: demo folder' line" ;;
esac
assert_eq "ward demo's status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || die "no run started"
assert_no_grep "the world was made" 'no fake outside world' "$WT_ARTIFACTS/err"

out=$WT_ARTIFACTS/out
for i in 1 2 3 4 5 6 7 8; do
	assert_grep "step $i is told" "^== step $i of 8: " "$out"
done
assert_grep "the denied /etc/hosts write is told" '/etc/hosts left alone \(denied\)' "$out"
assert_grep "~/.ssh is not there" 'no such folder in here' "$out"
assert_grep "the paste upload was not sent" 'not sent' "$out"
assert_grep "pip installed wardtiny" 'wardtiny installed' "$out"
assert_grep "the metadata address was refused" 'refused' "$out"

# The record.
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
L=$WT_ARTIFACTS/log.json
assert_log "/etc/hosts asked, denied by a person" "$L" \
    '.kind == "write" and .subject == "/etc/hosts" and .verdict == "deny" and .how == "person"'
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

finish
