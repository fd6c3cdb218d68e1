#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# connect = ask: a connect to an outside address waits for a person;
# `ward approve` lets it through, made by the supervisor and handed in: curl
# (a non-blocking connect) and python's urllib (a blocking one) get the page
# unchanged, and the listener sees exactly one connection per approval,
# none before it. Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
net_test_init

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[network]' 'connect = ask'
url=http://203.0.113.10:8080/
uid=$(id -u)

n=0
for client in curl python; do
	note "--- $client"
	n=$((n + 1))
	case $client in
	curl) prog=(curl -sS -m 50 "$url") ;;
	python) prog=(python3 "$NET_CLIENT" get "$url") ;;	# no timeout: blocking
	esac
	ward_bg "$WT_ARTIFACTS/out.$client" "$WT_ARTIFACTS/err.$client" \
	    run --headless --timeout 80 --policy "$WT_SCRATCH/policy.ini" \
	    "${NET_IN[@]}" -- "${prog[@]}"
	wait_pending_kind "$WT_ARTIFACTS/err.$client" connect
	assert_eq "pending subject" "203.0.113.10:8080" "$WT_REQ_PATH"
	assert_ne "pending pid" 0 "$WT_REQ_PID"
	# `ward pending` lists it: run TAB id TAB kind TAB subject TAB pid TAB age
	"$WARD" pending >"$WT_ARTIFACTS/pending.$client" 2>&1 </dev/null || true
	row=$(awk -F '\t' -v r="$WT_RUN" -v i="$WT_REQ" '$1 == r && $2 == i' \
	    "$WT_ARTIFACTS/pending.$client")
	IFS=$'\t' read -r -a f <<<"$row"
	assert_eq "ward pending kind and subject" "connect 203.0.113.10:8080" \
	    "${f[2]:-} ${f[3]:-}"
	sleep 0.5
	assert_count "connections before the answer" web $((n - 1))
	t_answer=$(now_ms)
	ward_answer approve
	ward_wait 60
	note "approve to the end of the run: $(($(now_ms) - t_answer)) ms"
	show "program output" "$WT_ARTIFACTS/out.$client"
	assert_eq "exit status" 0 "$WT_STATUS"
	case $client in
	curl) assert_grep "curl got the page" '^hello from web\r?$' "$WT_ARTIFACTS/out.curl" ;;
	python) assert_grep "urllib got the page" "^get $url ok hello from web\\r?\$" \
	    "$WT_ARTIFACTS/out.python" ;;
	esac
	assert_eq "pending requests in the run" 1 \
	    "$(pending_lines "$WT_ARTIFACTS/err.$client" | wc -l)"
	assert_count "connections the web listener saw (one per approval)" web "$n"
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.$client.json"
	assert_log "the connect allowed by a person, uid $uid" "$WT_ARTIFACTS/log.$client.json" \
	    ".kind == \"connect\" and .syscall == \"connect\" and .subject == \"203.0.113.10:8080\" and .verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ\") and ((.decided_by // \"\") | test(\"uid $uid([^0-9]|\$)\")) and .wait_ms > 0"
	assert_eq "connect events denied" 0 \
	    "$(log_count "$WT_ARTIFACTS/log.$client.json" '.kind == "connect" and .verdict == "deny"')"
done

# An approval is for one connection: the next one to the same place asks
# again, and `ward deny` refuses it (ECONNREFUSED). An approved connection
# to a port where nothing listens gets the real error. Blocking connects.
note "--- once, deny, the real error"
ward_bg "$WT_ARTIFACTS/out.once" "$WT_ARTIFACTS/err.once" \
    run --headless --timeout 80 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c '
python3 "$1" connect 203.0.113.10 8080 0
python3 "$1" connect 203.0.113.10 8080 0
python3 "$1" connect 203.0.113.10 8081 0' sh "$NET_CLIENT"
wait_pending_kind "$WT_ARTIFACTS/err.once" connect
first=$WT_REQ
ward_answer approve
wait_for 15 grep -q '^connect 203.0.113.10:8080' "$WT_ARTIFACTS/out.once" || true
if ! wait_for 15 pending_request_seen "$WT_ARTIFACTS/err.once" "$((first + 1))"; then
	show "ward stderr" "$WT_ARTIFACTS/err.once"
	die "the second connect made no request (an approval should count once)"
fi
WT_REQ=$((first + 1))
line=$(pending_lines "$WT_ARTIFACTS/err.once" | grep -E "request $WT_REQ pending: ")
note "saw: $line"
printf '%s\n' "$line" >"$WT_ARTIFACTS/second-request"
assert_grep "the second request is the same connect" \
    "^ward: run $WT_RUN request $WT_REQ pending: connect 203\\.0\\.113\\.10:8080 " \
    "$WT_ARTIFACTS/second-request"
ward_answer deny
if ! wait_for 15 pending_request_seen "$WT_ARTIFACTS/err.once" "$((first + 2))"; then
	show "ward stderr" "$WT_ARTIFACTS/err.once"
	die "the connect to port 8081 made no request"
fi
WT_REQ=$((first + 2))
ward_answer approve
ward_wait 60
show "program output" "$WT_ARTIFACTS/out.once"
assert_eq "exit status" 0 "$WT_STATUS"
assert_eq "what the three connects saw" \
    "connect 203.0.113.10:8080 ok|connect 203.0.113.10:8080 ERR 111 Connection refused|connect 203.0.113.10:8081 ERR 111 Connection refused" \
    "$(tr -d '\r' <"$WT_ARTIFACTS/out.once" | paste -sd '|')"
assert_count "connections the web listener saw (one more)" web 3
log_json "$WT_RUN" "$WT_ARTIFACTS/log.once.json"
assert_log "the second connect denied by a person" "$WT_ARTIFACTS/log.once.json" \
    ".kind == \"connect\" and .subject == \"203.0.113.10:8080\" and .verdict == \"deny\" and .how == \"person\" and ((.request_id|tostring) == \"$((first + 1))\")"
show "what the web listener saw" "$WT_WORLD/web.count"
finish
