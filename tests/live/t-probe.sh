#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward probe`: the whole battery of hostile actions against the default
# policy. Nothing escapes, everything is in the record (exit 0), one line
# per probe, and the card ends in "N blocked and logged, 0 escaped".
# ward probe judges each probe from outside itself; here we check its
# verdict and that it cleans up after itself (the planted secret above all).
# The network probes reach only 127.0.0.1, 192.0.2.1 and 169.254.169.254
# (both refused before any packet) and a made-up name under .invalid.
. "$(dirname "$0")/lib.sh"

card=$WT_ARTIFACTS/card
ward_fg "$card" "$WT_ARTIFACTS/err" probe
show "ward probe" "$card"
[ -s "$WT_ARTIFACTS/err" ] && show "ward probe stderr" "$WT_ARTIFACTS/err"

assert_eq "exit status (0: nothing escaped, nothing unrecorded)" 0 "$WT_STATUS"
if [ "$WT_ELAPSED_MS" -le 60000 ]; then
	note "ok: the battery took ${WT_ELAPSED_MS} ms"
else
	fail "the battery took ${WT_ELAPSED_MS} ms, over 60 s"
fi

last=$(tail -n 1 "$card" | tr -d '\r')
if [[ $last =~ ^([0-9]+)\ blocked\ and\ logged,\ ([0-9]+)\ escaped$ ]]; then
	note "ok: final line: $last"
	blocked=${BASH_REMATCH[1]}
	assert_eq "escaped" 0 "${BASH_REMATCH[2]}"
	[ "$blocked" -ge 31 ] && note "ok: $blocked probes blocked and logged" ||
	    fail "only $blocked probes blocked and logged (the battery has 31)"
	assert_eq "probe lines (blocked or allowed)" "$blocked" \
	    "$(grep -cE '^(blocked|allowed) ' "$card" || true)"
else
	fail "final line not 'N blocked and logged, M escaped': $last"
fi
assert_no_grep "no probe escaped, went unrecorded or failed" \
    '^(ESCAPED|UNRECORDED|ERROR) ' "$card"
assert_grep "memfd exec allowed and recorded" \
    '^allowed +memfd-exec .*exec from memory|^allowed +memfd-exec .*execveat allow' "$card"
assert_grep "fork bomb stopped at the pid limit" '^blocked +fork-bomb .*pids=64' "$card"
assert_grep "wall clock ends the run with 124" '^blocked +wall-clock .*: 124 after' "$card"

# The network.
assert_grep "the outside listener heard nothing; the connects out are recorded" \
    '^blocked +outside-listener .*listeners empty.*record: connect 192\.0\.2\.1:[0-9]+ deny/person, sendto 192\.0\.2\.1:[0-9]+ deny' "$card"
assert_grep "metadata refused by the never list, nobody asked" \
    '^blocked +metadata .*never 169\.254\.0\.0/16 \(built in\) for 169\.254\.169\.254:80.*record: connect 169\.254\.169\.254:80 deny/policy, sendto 169\.254\.169\.254:80 deny/policy, nobody asked' "$card"
assert_grep "the made-up name is a denied dns request" \
    '^blocked +dns-exfil .*record: dns wp[0-9a-f]{16}\.exfil\.invalid deny/person, dns txt\.wp[0-9a-f]{16}\.exfil\.invalid deny/person' "$card"
assert_grep "raw and packet sockets refused by the filter and recorded" \
    '^blocked +raw-socket .*filter EPERM \(EPERM\).*record: socket \(raw or packet\) deny/floor' "$card"
assert_grep "datagrams out never leave; sendto and connect recorded" \
    '^blocked +udp .*\(ENETUNREACH\).*record: sendto 192\.0\.2\.1:[0-9]+ deny/floor, connect 192\.0\.2\.1:[0-9]+ deny/floor' "$card"
if [ "$(id -u)" = 0 ]; then
	# Root watches every interface: nothing for 192.0.2.1, and no query
	# carrying the made-up name, left this host.
	assert_grep "packet watch: no packet to 192.0.2.1 from the connects out" \
	    '^blocked +outside-listener .*no packet to 192\.0\.2\.1' "$card"
	assert_grep "packet watch: the made-up name never left" \
	    '^blocked +dns-exfil .*no DNS packet with the name' "$card"
else
	assert_grep "no packet watch without root, and the card says so" \
	    '^blocked +dns-exfil .*no packet watch \(needs root\)' "$card"
fi

# The exec race: whatever ran is in the record, by pid.
line=$(grep -E '^[A-Za-z]+ +argv-race ' "$card" || true)
re='([0-9]+) execs? of the script ran \(seen from outside; ([0-9]+) by inotify\), ([0-9]+) in the record by pid'
if [[ $line =~ $re ]]; then
	ran=${BASH_REMATCH[1]} opened=${BASH_REMATCH[2]} rec=${BASH_REMATCH[3]}
	note "argv-race: $ran ran, $opened began (inotify), $rec in the record"
	assert_eq "argv-race: every exec that began was seen running" "$opened" "$ran"
	assert_eq "argv-race: every exec that ran is in the record" "$ran" "$rec"
else
	fail "argv-race: no count of the execs that ran: $line"
fi
assert_grep "argv-race allowed by design and recorded" '^allowed +argv-race ' "$card"

# Nothing left behind: the secret planted in the home, the temp folder.
left=$(find "$HOME" -maxdepth 1 -name '.ward-probe-secret-*' 2>/dev/null | head -n 3)
[ -z "$left" ] && note "ok: no secret left in \$HOME" ||
    fail "ward probe left its secret behind: $left"
tmp=$(sed -nE 's|.*--in (/[^,]*)/canary,.*|\1|p' "$card" | head -n 1)
if [ -n "$tmp" ]; then
	assert_absent "the temp folder is removed" "$tmp"
else
	fail "no temp folder named on the first line of the card"
fi
finish
