#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A login file's secret (issue 33) while something on the host saves the
# file. Inside, the file is a bind of the gate's phantom copy over its
# name; a new file renamed over that name on the host (the user's agent
# outside ward saving a refresh atomically) makes the kernel drop the
# bind in every namespace, and the sandbox would read the host's real
# tokens: the supervisor watches the folder and stops the run.
# In each run the program (python3) reads the file every 20 ms, one line
# a read on stdout ("read N TIME_NS ACCESS REFRESH"), for a while.
#   A: a new file (new real tokens) renamed over the host file: ward ends
#      the run within ~2 s (the figure is printed), exit status not 0; its
#      stderr says the file was replaced on the host and names it; the
#      record has "LOGIN exposed" (secret, deny); the host file is as the
#      test wrote it. Noted, not failed: whether the sandbox read the new
#      real tokens before the kill, and how many reads it did after.
#   B: the host file rewritten in place (no rename): the run goes on to
#      its end, the sandbox still reads its phantoms.
#   C: other names created, renamed and deleted in the folder on the
#      host, and the login file's name in the folder of a second login
#      file (TWO): the run goes on to its end.
# Runs in a fake world's client namespace (run-all.sh), for the gate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
. "$(dirname "$0")/login-lib.sh"
gate_test_init

# an hour from now: no refresh is due
expires=$(($(date +%s) * 1000 + 3600000))
# a second login file, in a folder of its own, under another name
two=$WT_SCRATCH/home/.two
login_home .agent creds.json "$two"
(umask 077; creds_json "sk-ant-oat01-$(rnd)" "sk-ant-ort01-$(rnd)" "$expires" >"$two/other.json")

login_secret "$creds"
login_policy "$WT_SCRATCH/policy.ini" "$agent $two" "${LOGIN_LINES[@]}" \
    '[secret TWO]' "from = file-json:$two/other.json" \
    'fields = claudeAiOauth.accessToken' \
    'hosts = api.test:443' 'header = x-two: {}'

# The program: reads the file every 20 ms for SECONDS (argv 2); argv 3 a
# marker, to find what is left of it on the host after a run.
prog='
import json, sys, time
creds, secs = sys.argv[1], float(sys.argv[2])
end = time.time() + secs
n = 0
while time.time() < end:
    try:
        with open(creds) as f:
            o = json.load(f)["claudeAiOauth"]
        a, r = o.get("accessToken"), o.get("refreshToken")
    except Exception as e:
        a = r = "ERR-%s" % type(e).__name__
    n += 1
    print("read %d %d %s %s" % (n, time.time_ns(), a, r), flush=True)
    time.sleep(0.02)
print("done %d" % n, flush=True)
'
marker=ward-swap-$$-$RANDOM

# start_run TAG SECONDS: a fresh host file (A1, R1 of the run), the run
# in the background, and its first read; sets a1 r1 pa pr (the phantoms
# read first).
start_run() {
	local tag=$1 secs=$2 first
	a1=sk-ant-oat01-$(rnd)
	r1=sk-ant-ort01-$(rnd)
	(umask 077; creds_json "$a1" "$r1" "$expires" >"$creds")
	chmod 600 "$creds"
	ward_bg "$WT_ARTIFACTS/out-$tag" "$WT_ARTIFACTS/err-$tag" \
	    run --headless --timeout 40 --policy "$WT_SCRATCH/policy.ini" \
	    "${NET_IN[@]}" -- python3 -c "$prog" "$creds" "$secs" "$marker"
	if ! wait_for 10 grep -q '^read 1 ' "$WT_ARTIFACTS/out-$tag"; then
		show "program output ($tag)" "$WT_ARTIFACTS/out-$tag"
		show "ward stderr ($tag)" "$WT_ARTIFACTS/err-$tag"
		die "$tag: the program's first read did not come within 10 s"
	fi
	first=$(grep -m1 '^read 1 ' "$WT_ARTIFACTS/out-$tag" | tr -d '\r')
	pa=$(awk '{ print $4 }' <<<"$first")
	pr=$(awk '{ print $5 }' <<<"$first")
	assert_phantom "$tag: the first read inside (access)" "$pa"
	assert_phantom "$tag: the first read inside (refresh)" "$pr"
}

# reads_after TAG NS [FILTER]: the program's reads stamped after NS (ns
# since the epoch; both clocks are the host's CLOCK_REALTIME), as "ACCESS
# REFRESH" lines.
reads_after() {
	tr -d '\r' <"$WT_ARTIFACTS/out-$1" |
	    awk -v t="$2" '$1 == "read" && $3 > t { print $4, $5 }'
}

# reads_same TAG NS WHEN: 10 reads or more after NS (WHEN, in words),
# each the phantoms the run read first ($pa $pr).
reads_same() {
	local after n_after n_same
	after=$(reads_after "$1" "$2")
	n_after=$(grep -c . <<<"$after" || true)
	n_same=$(grep -cxF -- "$pa $pr" <<<"$after" || true)
	note "$1: reads after $3: $n_after, $n_same of them the first phantoms"
	[ "$n_after" -ge 10 ] || fail "$1: only $n_after reads after $3 (want 10 or more)"
	assert_eq "$1: every read after $3 is the phantoms read first" "$n_after" "$n_same"
}

# no_exposed TAG: the run's record has no "exposed" event, its stderr no
# word of a replaced file.
no_exposed() {
	log_json "$WT_RUN" "$WT_ARTIFACTS/log-$1.json"
	assert_eq "$1: no 'exposed' event in the record" 0 \
	    "$(log_count "$WT_ARTIFACTS/log-$1.json" '(.subject // "") | test("exposed")')"
	assert_no_grep "$1: ward's stderr says nothing was replaced" \
	    'replaced on the host' "$WT_ARTIFACTS/err-$1"
}

# --- A: a new file renamed over the host file: the run is stopped --------
start_run A 20
a2=sk-ant-oat01-$(rnd)
r2=sk-ant-ort01-$(rnd)
(umask 077; creds_json "$a2" "$r2" "$expires" >"$agent/.creds.json.new")
chmod 600 "$agent/.creds.json.new"
cp "$agent/.creds.json.new" "$WT_SCRATCH/expect-A.json"
# as the agent outside would save it: rename(2), its time taken just
# before and after (ns)
read -r t_mv0 t_mv1 < <(python3 -c '
import os, sys, time
t0 = time.time_ns()
os.rename(sys.argv[1], sys.argv[2])
print(t0, time.time_ns())' "$agent/.creds.json.new" "$creds")
[ -n "${t_mv1:-}" ] || die "A: the rename over the host file failed"
ino=$(stat -c %i "$creds")
# ward's end, watched closely (ward_wait looks every 0.1 s)
while kill -0 "$WT_PID" 2>/dev/null &&
    [ "$(awk '{ print $3 }' "/proc/$WT_PID/stat" 2>/dev/null)" != Z ] &&
    [ $(($(date +%s%N) - t_mv1)) -lt 10000000000 ]; do
	sleep 0.01
done
t_end=$(date +%s%N)
ward_wait 5
ms=$(((t_end - t_mv1) / 1000000))
tail -n 8 "$WT_ARTIFACTS/out-A" >"$WT_ARTIFACTS/tail-A"
show "program output (A, the last lines)" "$WT_ARTIFACTS/tail-A"
show "ward stderr (A)" "$WT_ARTIFACTS/err-A"
note "A: ward ended ${ms} ms after the rename (exit status $WT_STATUS)"
if [ "$ms" -le 2000 ]; then
	note "ok: A: ward ended the run within 2 s of the rename"
else
	fail "A: ward ended ${ms} ms after the rename, not within 2 s"
fi
assert_ne "A: ward's exit status is not 0" 0 "$WT_STATUS"
assert_no_grep "A: the program did not run to its end" '^done ' "$WT_ARTIFACTS/out-A"
assert_grep "A: ward's stderr says the login file was replaced on the host" \
    'replaced on the host' "$WT_ARTIFACTS/err-A"
if grep -qF -- "$creds" "$WT_ARTIFACTS/err-A"; then
	note "ok: A: ward's stderr names the file"
else
	fail "A: ward's stderr does not name $creds"
fi
log_json "$WT_RUN" "$WT_ARTIFACTS/log-A.json"
assert_log "A: the record has 'LOGIN exposed', a secret event denied" \
    "$WT_ARTIFACTS/log-A.json" \
    '.kind == "secret" and .subject == "LOGIN exposed" and .verdict == "deny"'
jq -c 'select(.kind == "secret")' "$WT_ARTIFACTS/log-A.json" | sed 's/^/  | /'
# the host file: as the test wrote it
if cmp -s "$WT_SCRATCH/expect-A.json" "$creds"; then
	note "ok: A: the host file holds what the test wrote (the new tokens)"
else
	fail "A: the host file is not what the test wrote"
	show "the host file" "$creds"
fi
assert_eq "A: the host file's mode" 600 "$(stat -c %a "$creds")"
assert_eq "A: the host file is the one renamed (inode)" "$ino" "$(stat -c %i "$creds")"
left=$(find "$agent" -mindepth 1 ! -name creds.json -printf '%f ' 2>/dev/null)
assert_eq "A: nothing else in the agent folder" "" "$left"
assert_eq "A: no process of the run is left" "" "$(pids_matching "$marker" | tr '\n' ' ')"
# what the sandbox read in the window (noted, not failed)
after=$(reads_after A "$t_mv1")
n_after=$(grep -c . <<<"$after" || true)
n_real=$(grep -cF -- "$a2" <<<"$after" || true)
n_phantom=$(grep -c '^ward-phantom-' <<<"$after" || true)
n_err=$(grep -c '^ERR-' <<<"$after" || true)
note "A: reads after the rename: $n_after ($n_phantom phantom, $n_real the new real tokens, $n_err errors)"
if grep -qF -- "$a2" "$WT_ARTIFACTS/out-A"; then
	note "A: NOTE: the sandbox read the new real tokens before the kill"
else
	note "A: the sandbox did not read the new real tokens before the kill"
fi
assert_no_grep "A: the sandbox never read the old real token" "$a1" "$WT_ARTIFACTS/out-A"
last=$(tr -d '\r' <"$WT_ARTIFACTS/out-A" | awk '$1 == "read" { t = $3 } END { print t }')
note "A: reads in all: $(grep -c '^read ' "$WT_ARTIFACTS/out-A" || true); the last $(((${last:-0} - t_mv1) / 1000000)) ms after the rename (rename(2) took $(((t_mv1 - t_mv0) / 1000)) us)"
ev=$(jq -r 'select(.subject == "LOGIN exposed") | .time_ms' "$WT_ARTIFACTS/log-A.json" | head -n 1)
[ -z "$ev" ] || note "A: the record's 'LOGIN exposed' is stamped $((ev - t_mv1 / 1000000)) ms after the rename"

# --- B: the host file rewritten in place: the run goes on ----------------
start_run B 3
a2=sk-ant-oat01-$(rnd)
r2=sk-ant-ort01-$(rnd)
creds_json "$a2" "$r2" "$expires" >"$WT_SCRATCH/expect-B.json"
ino=$(stat -c %i "$creds")
cat "$WT_SCRATCH/expect-B.json" >"$creds"
t_w1=$(date +%s%N)
ward_wait 20
tail -n 4 "$WT_ARTIFACTS/out-B" >"$WT_ARTIFACTS/tail-B"
show "program output (B, the last lines)" "$WT_ARTIFACTS/tail-B"
show "ward stderr (B)" "$WT_ARTIFACTS/err-B"
assert_eq "B: exit status" 0 "$WT_STATUS"
assert_grep "B: the program ran to its end" '^done [0-9]+\r?$' "$WT_ARTIFACTS/out-B"
assert_eq "B: the host file was rewritten in place (inode)" "$ino" "$(stat -c %i "$creds")"
cmp -s "$WT_SCRATCH/expect-B.json" "$creds" ||
    fail "B: the host file is not what the test wrote"
reads_same B "$t_w1" "the write"
assert_no_grep "B: the sandbox never read the new real token" "$a2" "$WT_ARTIFACTS/out-B"
assert_no_grep "B: the sandbox never read the old real token" "$a1" "$WT_ARTIFACTS/out-B"
no_exposed B

# --- C: other names in the folder come and go: the run goes on -----------
start_run C 3
t_c=$(date +%s%N)
touch "$agent/x"
rm "$agent/x"
printf 'y\n' >"$agent/y"
mv "$agent/y" "$agent/z"
rm "$agent/z"
mkdir "$agent/d"
rmdir "$agent/d"
# an atomic save of another file, its name the login file's and more
printf '{}\n' >"$agent/creds.json.tmp"
mv "$agent/creds.json.tmp" "$agent/creds.json.old"
rm "$agent/creds.json.old"
# LOGIN's file name, in TWO's folder: neither file was replaced
printf '{}\n' >"$two/creds.json"
rm "$two/creds.json"
ward_wait 20
tail -n 4 "$WT_ARTIFACTS/out-C" >"$WT_ARTIFACTS/tail-C"
show "program output (C, the last lines)" "$WT_ARTIFACTS/tail-C"
show "ward stderr (C)" "$WT_ARTIFACTS/err-C"
assert_eq "C: exit status" 0 "$WT_STATUS"
assert_grep "C: the program ran to its end" '^done [0-9]+\r?$' "$WT_ARTIFACTS/out-C"
reads_same C "$t_c" "the other names came and went"
no_exposed C

finish
