#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HTTP rules see canonical paths only (issue 29): with
# allow = api2.test:443 GET /ok/**, a program in the sandbox sends every
# target of tests/data/hostile-paths.tsv raw (net-raw.py: "/ok/..;/admin",
# "/ok/%u002e%u002e/admin", "/ok/%2e%2e/admin" ..., which Tomcat, Spring
# or IIS read as /admin, and the benign ones). Judged from outside: each
# refused line got the gate's 400, each passing line the server's 200;
# the server's own log (net-tls.py logs every request it reads) has
# exactly the passing targets, none of the refused; the record has each
# refusal as an http event denied, "path not canonical". With
# http = ask, a refused path is refused all the same: nobody is asked.
# A header that has a server route by another path or method
# (X-Original-URL, X-HTTP-Method-Override) is a 400 too.
# On the tree before (9904753) /ok/..;/admin reached the server.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

TABLE=$nw_here/hostile-paths.tsv
RAW=$nw_here/net-raw.py
[ -r "$TABLE" ] || die "no $TABLE (run-all.sh copies tests/data/hostile-paths.tsv)"
[ -r "$RAW" ] || die "no $RAW"

policy() {
	write_policy "$1" \
	    '[run]' 'ask_timeout = 30' \
	    '[network]' 'connect = deny' "http = $2" "upstream_ca = $GATE_CA" \
	    'allow = api2.test:443 GET /ok/** (the ok folder only)'
}

# judge OUT: each table line's answer in OUT ("raw LINE VERDICT status=N")
# against its verdict, and the api server's log against the passing
# targets; prints "ok ..." and "FAIL ..." lines, and "count N" (refused).
judge() {
	python3 - "$TABLE" "$1" "$WT_WORLD/api.log" <<'EOF'
import json, re, sys

def target_of(text):
    out, i = bytearray(), 0
    while i < len(text):
        if text.startswith("\\\\", i):
            out += b"\\"; i += 2
        elif re.match(r"\\x[0-9a-fA-F]{2}", text[i:i + 4]):
            out.append(int(text[i + 2:i + 4], 16)); i += 4
        else:
            out += text[i].encode(); i += 1
    return bytes(out)

table, out, log = sys.argv[1:4]
cases = {}
for n, line in enumerate(open(table, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if line and not line.startswith("#"):
        f = line.split("\t")
        cases[n] = (f[0], f[1], target_of(f[1]))
got = {}
for line in open(out, encoding="utf-8", errors="replace"):
    m = re.match(r"raw (\d+) (\w+) (.*?)\r?$", line)
    if m:
        got[int(m.group(1))] = m.group(3)
bad = 0
for n, (verdict, text, _) in sorted(cases.items()):
    want = "status=400" if verdict == "refuse" else "status=200"
    if got.get(n) != want:
        print("FAIL line %d %s %s: %s, expected %s" % (
            n, verdict, text, got.get(n, "no answer"), want))
        bad += 1
seen = [json.loads(l)["path"].encode("latin-1")
        for l in open(log, encoding="utf-8") if l.strip()]
passing = sorted(t for v, _, t in cases.values() if v == "pass")
refused = {t: x for v, x, t in cases.values() if v == "refuse"}
for t in seen:
    if t in refused:
        print("FAIL the server received a refused target: %s" % refused[t])
        bad += 1
if sorted(seen) != passing:
    print("FAIL the server received %d request(s), expected the %d "
          "passing targets: %r" % (len(seen), len(passing), seen))
    bad += 1
print("ok %d refused with a 400, %d passed with a 200, the server saw "
      "exactly the passing ones" % (len(refused), len(passing))
      if bad == 0 else "FAIL %d problem(s)" % bad)
print("count %d" % len(refused))
EOF
}

# --- http = deny: every line of the table
note "--- http = deny, the whole table"
policy "$WT_SCRATCH/deny.ini" deny
ward_fg "$WT_ARTIFACTS/out.deny" "$WT_ARTIFACTS/err.deny" \
    run --headless --timeout 80 --policy "$WT_SCRATCH/deny.ini" \
    "${NET_IN[@]}" -- sh -c 'python3 "$1" api2.test "$2"; echo done' \
    sh "$RAW" "$TABLE"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out.deny"
assert_no_grep "every request was answered" '^raw [0-9]+ [a-z]+ ERR' \
    "$WT_ARTIFACTS/out.deny"
judge "$WT_ARTIFACTS/out.deny" >"$WT_ARTIFACTS/judge.deny"
while IFS= read -r line; do
	case $line in
	ok\ *) note "ok: ${line#ok }" ;;
	FAIL\ *) fail "${line#FAIL }" ;;
	esac
done <"$WT_ARTIFACTS/judge.deny"
refused=$(sed -n 's/^count //p' "$WT_ARTIFACTS/judge.deny")
grep -q '^FAIL' "$WT_ARTIFACTS/judge.deny" && show "program output" "$WT_ARTIFACTS/out.deny"
assert_no_pending "nobody was asked (http = deny)" "$WT_ARTIFACTS/err.deny"

events_json "$WT_RUN" "$WT_ARTIFACTS/events.deny.json"
ev=$WT_ARTIFACTS/events.deny.json
# Every refusal is a denied http event; all but a few (which http-parser
# refuses first, as a bad request) name the reason.
n=$(log_count "$ev" '.kind == "http" and .verdict == "deny" and (.detail | test("status 400"))')
assert_eq "denied http events with status 400 (one per refused line)" "$refused" "$n"
n=$(log_count "$ev" '.kind == "http" and .verdict == "deny" and (.detail | test("path not canonical"))')
if [ "$n" -ge $((refused - 3)) ]; then
	note "ok: $n of the $refused refusals say \"path not canonical\""
else
	fail "only $n of the $refused refusals say \"path not canonical\""
fi
assert_log "/ok/..;/admin is in the record, refused, with its reason" "$ev" \
    '.kind == "http" and .verdict == "deny" and (tostring | test("/ok/\\.\\.;/admin")) and (.detail | test("path not canonical: a ; path parameter"))'
assert_log "/ok/%u002e%u002e/admin is in the record, refused" "$ev" \
    '.kind == "http" and .verdict == "deny" and (tostring | test("/ok/%u002e%u002e/admin")) and (.detail | test("path not canonical: a %u escape"))'
assert_log "a passing target is in the record, allowed by the rule" "$ev" \
    '.kind == "http" and .verdict == "allow" and (tostring | test("/ok/a%20b")) and (tostring | test("/ok/\\*\\*"))'

# --- http = ask: refused all the same, never asked; the rule still allows
note "--- http = ask"
policy "$WT_SCRATCH/ask.ini" ask
lines=$(awk -F'\t' '!/^#/ && NF >= 2 && ($2 == "/ok/..;/admin" ||
    $2 == "/ok/%u002e%u002e/admin" || $2 == "/ok/%2e%2e/admin" ||
    $2 == "/ok/a") { print NR }' "$TABLE" | tr '\n' ' ')
assert_eq "table lines for the ask round" 4 "$(wc -w <<<"$lines")"
before=$(api_requests api true)
# shellcheck disable=SC2086 # the line numbers, one word each
ward_fg "$WT_ARTIFACTS/out.ask" "$WT_ARTIFACTS/err.ask" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/ask.ini" \
    "${NET_IN[@]}" -- sh -c 'python3 "$@"; echo done' \
    sh "$RAW" api2.test "$TABLE" $lines
show "program output" "$WT_ARTIFACTS/out.ask"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out.ask"
assert_eq "refused with a 400, not held" 3 \
    "$(grep -cE '^raw [0-9]+ refuse status=400\r?$' "$WT_ARTIFACTS/out.ask")"
assert_grep "/ok/a passed" '^raw [0-9]+ pass status=200\r?$' "$WT_ARTIFACTS/out.ask"
assert_no_pending "nobody was asked (http = ask)" "$WT_ARTIFACTS/err.ask"
assert_eq "the server saw /ok/a only" $((before + 1)) "$(api_requests api true)"

# --- a header that moves the path or the method past the rule
note "--- X-Original-URL, X-HTTP-Method-Override"
ok_line=$(awk -F'\t' '!/^#/ && $1 == "pass" && $2 == "/ok/a" { print NR }' "$TABLE")
before=$(api_requests api true)
ward_fg "$WT_ARTIFACTS/out.hdr" "$WT_ARTIFACTS/err.hdr" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/deny.ini" \
    "${NET_IN[@]}" -- sh -c '
python3 "$1" -H "X-Original-URL: /admin" api2.test "$2" "$3"
python3 "$1" -H "X-HTTP-Method-Override: DELETE" api2.test "$2" "$3"
echo done' sh "$RAW" "$TABLE" "$ok_line"
show "program output" "$WT_ARTIFACTS/out.hdr"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out.hdr"
assert_eq "GET /ok/a with either header: the gate's 400" 2 \
    "$(grep -cE '^raw [0-9]+ pass status=400\r?$' "$WT_ARTIFACTS/out.hdr")"
assert_eq "the server saw neither" "$before" "$(api_requests api true)"
events_json "$WT_RUN" "$WT_ARTIFACTS/events.hdr.json"
assert_eq "both are denied http events with the reason" 2 \
    "$(log_count "$WT_ARTIFACTS/events.hdr.json" '.kind == "http" and .verdict == "deny" and (.detail | test("overrides the request line"))')"
finish
