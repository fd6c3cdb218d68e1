# SPDX-License-Identifier: MIT
# Shared helpers for the live tests; sourced by tests/live/t-*.sh.
#
# run-all.sh sets, for each test and each user it runs as:
#   WARD          the ward binary to test (absolute)
#   WT_SCRATCH    a fresh folder of ours for canaries, policies, captures
#   WT_ARTIFACTS  where to leave files worth keeping when the test fails
#   WT_BUILD      the build folder (absolute), for caches a test keeps
#   XDG_STATE_HOME XDG_RUNTIME_DIR HOME   fresh, private to this test
# A test exits 0 on success, 77 to skip (with a reason), anything else on
# failure. Effects are checked from outside the sandbox: host files, the
# run folder, the record in audit.db, host processes.

set -euo pipefail

: "${WARD:?run me through tests/live/run-all.sh}"
: "${WT_SCRATCH:?run me through tests/live/run-all.sh}"
: "${WT_ARTIFACTS:=$WT_SCRATCH/artifacts}"
mkdir -p "$WT_ARTIFACTS"

WT_NAME=$(basename "$0" .sh)
WT_FAILS=0
WT_BG_PIDS=()

# --- reporting ---------------------------------------------------------

note() { printf '  %s\n' "$*"; }

fail() {
	printf '  FAIL: %s\n' "$*"
	WT_FAILS=$((WT_FAILS + 1))
}

# Stops the test at once.
die() {
	printf '  FAIL: %s\n' "$*"
	WT_FAILS=$((WT_FAILS + 1))
	exit 1
}

skip() {
	printf '  SKIP: %s\n' "$*"
	exit 77
}

# agents_opt_in: a test that downloads the agents' CLIs from npm (about
# 750 MB, cached in the build folder) runs only when asked, with
# WARD_TEST_AGENTS=1 (.ci/run sets it); otherwise it says so and skips,
# which under CI=true is a failure.
agents_opt_in() {
	[ "${WARD_TEST_AGENTS:-}" = 1 ] && return 0
	skip "downloads the agent CLIs from npm (~750 MB): set WARD_TEST_AGENTS=1 to run it"
}

# Print a file into the log, indented, for the reader of a failure.
show() {
	local label=$1 file=$2
	printf '  --- %s (%s)\n' "$label" "$file"
	if [ -s "$file" ]; then
		sed -n '1,60p' "$file" | cat -v | sed 's/^/  | /'
	else
		printf '  | (empty)\n'
	fi
}

# assert_eq WHAT EXPECTED GOT
assert_eq() {
	if [ "$2" == "$3" ]; then
		note "ok: $1 = $(printf '%q' "$3")"
	else
		fail "$1: expected $(printf '%q' "$2"), got $(printf '%q' "$3")"
	fi
}

assert_ne() {
	if [ "$2" != "$3" ]; then
		note "ok: $1 != $(printf '%q' "$2") (is $(printf '%q' "$3"))"
	else
		fail "$1: expected anything but $(printf '%q' "$2")"
	fi
}

# assert_grep WHAT ERE FILE
assert_grep() {
	if grep -Eq -- "$2" "$3"; then
		note "ok: $1"
	else
		fail "$1: expected a line matching /$2/ in $3"
		show "$3" "$3"
	fi
}

assert_no_grep() {
	if grep -Eq -- "$2" "$3"; then
		fail "$1: expected no line matching /$2/ in $3, got:"
		grep -E -- "$2" "$3" | sed -n '1,10p' | cat -v | sed 's/^/  | /'
	else
		note "ok: $1"
	fi
}

# assert_file_content WHAT EXPECTED FILE
assert_file_content() {
	if [ ! -e "$3" ]; then
		fail "$1: expected $3 to hold $(printf '%q' "$2"), but it does not exist"
		return 0
	fi
	assert_eq "$1" "$2" "$(cat "$3")"
}

assert_absent() {
	if [ -e "$2" ] || [ -L "$2" ]; then
		fail "$1: expected $2 to be absent, it exists"
	else
		note "ok: $1"
	fi
}

# Ends the test with its verdict.
finish() {
	if [ "$WT_FAILS" -gt 0 ]; then
		printf '  %s: %d check(s) failed\n' "$WT_NAME" "$WT_FAILS"
		exit 1
	fi
	exit 0
}

# --- processes ---------------------------------------------------------

wt_cleanup() {
	local p
	for p in "${WT_BG_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	if [ -n "${WT_TMUX_SOCKET:-}" ]; then
		tmux -L "$WT_TMUX_SOCKET" kill-server 2>/dev/null || true
	fi
}
trap wt_cleanup EXIT
# run-all's timeout sends TERM: leave through the EXIT trap all the same.
trap 'exit 143' TERM INT HUP

now_ms() { date +%s%3N; }

# wait_for SECONDS COMMAND...: polls every 0.1 s until COMMAND succeeds.
wait_for() {
	local limit=$1
	shift
	local end=$(($(now_ms) + limit * 1000))
	while ! "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# Host pids of processes whose whole command line matches ERE.
pids_matching() {
	pgrep -f -- "$1" || true
}

no_process_matching() {
	[ -z "$(pids_matching "$1")" ]
}

# headless_supervisor PID: PID, a headless `ward run` of ward_bg's, is
# its run's supervisor (supervisor/front.c supervises a headless run in
# ward's own process); dies otherwise.
headless_supervisor() {
	local exe
	exe=$(readlink "/proc/$1/exe" 2>/dev/null || echo gone)
	[[ $exe == */ward ]] || die "ward (pid $1) is $exe, not ward supervising its run"
	grep -qz '^--headless$' "/proc/$1/cmdline" 2>/dev/null ||
	    die "ward (pid $1) has no --headless in its command line"
}

# A test's marker matches nothing before it starts, or the test cannot
# tell its own survivors from an earlier run's.
no_leftovers() {
	no_process_matching "$1" ||
	    die "leftover processes matching /$1/ before the test: $(pids_matching "$1" | tr '\n' ' ')"
}

# Kills, by pid, what a failed test left matching its own marker.
kill_matching() {
	local p
	for p in $(pids_matching "$1"); do
		kill -KILL "$p" 2>/dev/null || true
	done
}

# --- ward runs ---------------------------------------------------------

# ward_fg OUT ERR ARG...: runs `ward ARG...` in the foreground (stdin from
# /dev/null), sets WT_STATUS, WT_ELAPSED_MS and, when the run started,
# WT_RUN.
ward_fg() {
	local out=$1 err=$2
	shift 2
	local t0
	t0=$(now_ms)
	WT_STATUS=0
	"$WARD" "$@" >"$out" 2>"$err" </dev/null || WT_STATUS=$?
	WT_ELAPSED_MS=$(($(now_ms) - t0))
	WT_RUN=$(run_id_of "$err" || true)
}

# ward_bg OUT ERR ARG...: starts `ward ARG...` in the background, sets
# WT_PID (the ward process; with --headless it supervises the run itself,
# so this is the supervisor) and waits for its "started" line: sets WT_RUN.
ward_bg() {
	local out=$1 err=$2
	shift 2
	# Emptied here, not only by the background job's own redirection,
	# which may come after the first look below: a file left by an
	# earlier run's "started" line would be read as this run's.
	: >"$out"
	: >"$err"
	"$WARD" "$@" >"$out" 2>"$err" </dev/null &
	WT_PID=$!
	WT_BG_PIDS+=("$WT_PID")
	WT_T0=$(now_ms)
	if ! wait_for 15 started_or_gone "$err"; then
		show "ward stderr" "$err"
		die "no 'ward: run <ID> started' line on stderr within 15 s"
	fi
	if ! run_id_of "$err" >/dev/null; then
		ward_wait 1
		show "ward stderr" "$err"
		die "ward exited ($WT_STATUS) without a 'ward: run <ID> started' line"
	fi
	WT_RUN=$(run_id_of "$err")
	note "run $WT_RUN started (ward pid $WT_PID)"
}

started_or_gone() {
	run_id_of "$1" >/dev/null || ! kill -0 "$WT_PID" 2>/dev/null ||
	    [ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" = Z ]
}

# The id from "ward: run <ID> started" (8 lowercase hex), the first line
# ward itself prints.
run_id_of() {
	local id
	id=$(sed -nE 's/^ward: run ([0-9a-f]{8}) started\r?$/\1/p' "$1" | head -n 1)
	[ -n "$id" ] || return 1
	printf '%s\n' "$id"
}

# ward_wait: waits for the background ward (up to SECONDS, default 30);
# sets WT_STATUS and WT_ELAPSED_MS (since ward_bg).
ward_wait() {
	local limit=${1:-30} end
	end=$(($(now_ms) + limit * 1000))
	while kill -0 "$WT_PID" 2>/dev/null; do
		# a zombie child still answers kill -0; wait reaps it below
		if [ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" = Z ]; then
			break
		fi
		if [ "$(now_ms)" -ge "$end" ]; then
			fail "ward (pid $WT_PID) still running after ${limit} s"
			kill -KILL "$WT_PID" 2>/dev/null || true
			break
		fi
		sleep 0.1
	done
	WT_STATUS=0
	wait "$WT_PID" || WT_STATUS=$?
	WT_ELAPSED_MS=$(($(now_ms) - WT_T0))
}

# wait_pending ERR [SECONDS]: waits for
#   ward: run <ID> request <N> pending: write <path> (pid <P>); ward approve ...
# and sets WT_REQ, WT_REQ_PATH, WT_REQ_PID from the first such line.
pending_line() {
	grep -E "^ward: run $WT_RUN request [0-9]+ pending: " "$1" | head -n 1
}

wait_pending() {
	local err=$1 limit=${2:-15} line
	if ! wait_for "$limit" pending_line "$err" >/dev/null; then
		show "ward stderr" "$err"
		die "no 'ward: run $WT_RUN request N pending' line within $limit s"
	fi
	line=$(pending_line "$err" | tr -d '\r')
	note "saw: $line"
	local re="^ward: run $WT_RUN request ([0-9]+) pending: ([a-z]+) (.*) \\(pid ([0-9]+)\\); ward approve $WT_RUN ([0-9]+) or ward deny $WT_RUN ([0-9]+)\$"
	if [[ $line =~ $re ]]; then
		WT_REQ=${BASH_REMATCH[1]}
		WT_REQ_KIND=${BASH_REMATCH[2]}
		WT_REQ_PATH=${BASH_REMATCH[3]}
		WT_REQ_PID=${BASH_REMATCH[4]}
		assert_eq "request id in the approve hint" "$WT_REQ" "${BASH_REMATCH[5]}"
		assert_eq "request id in the deny hint" "$WT_REQ" "${BASH_REMATCH[6]}"
	else
		die "pending line not in the documented form: $line"
	fi
}

# A policy file: the lines given, as they are.
write_policy() {
	local file=$1
	shift
	printf '%s\n' "$@" >"$file"
}

# A canary folder on the host, visible in the sandbox only through --in.
make_canary() {
	WT_CANARY=$WT_SCRATCH/canary
	mkdir -p "$WT_CANARY"
	printf 'old\n' >"$WT_CANARY/file"
	# a date no run of ours can produce, so a changed mtime shows
	touch -d @1000000000 "$WT_CANARY/file"
	WT_CANARY_STAT=$(stat -c '%s %Y %i' "$WT_CANARY/file")
}

canary_untouched() {
	assert_file_content "canary content" "old" "$WT_CANARY/file"
	assert_eq "canary size, mtime, inode" "$WT_CANARY_STAT" \
	    "$(stat -c '%s %Y %i' "$WT_CANARY/file" 2>/dev/null || echo gone)"
}

# own_mount_ns: sets ns, a command prefix that runs in a mount namespace
# of our own (a tmpfs mounted there is nobody else's), and back, a prefix
# to use inside it that gives us back our own uid for ward (as root ward
# would take its root mode). Not root: a user namespace where we are root
# mounts the tmpfs; skips (dies in CI) where that is refused.
own_mount_ns() {
	command -v unshare >/dev/null || die "no unshare(1)"
	if [ "$(id -u)" = 0 ]; then
		ns=(unshare --mount --propagation private)
		back=()
	else
		ns=(unshare --user --map-root-user --mount --propagation private)
		back=(unshare --user --map-user="$(id -u)" --map-group="$(id -g)")
		if ! "${ns[@]}" "${back[@]}" true 2>/dev/null; then
			[ "${CI:-false}" = true ] && die "unshare --user --mount is refused here"
			skip "unshare --user --mount is refused here (no tmpfs of our own)"
		fi
	fi
}

run_dir() {
	printf '%s/ward/runs/%s\n' "$XDG_STATE_HOME" "$1"
}

# --- the record --------------------------------------------------------

audit_db() { printf '%s/ward/audit.db\n' "$XDG_STATE_HOME"; }

# sql QUERY: runs a query on audit.db (read-only), one row a line, TAB
# between columns.
sql() {
	sqlite3 -readonly -separator "$(printf '\t')" "$(audit_db)" "$1"
}

# log_json RUN FILE: `ward log RUN --json` into FILE; checks each line is
# a JSON object with the documented fields.
log_json() {
	local run=$1 file=$2 st=0
	"$WARD" log "$run" --json >"$file" 2>"$file.err" </dev/null || st=$?
	if [ "$st" != 0 ]; then
		show "ward log stderr" "$file.err"
		fail "ward log $run --json exited $st"
		return 0
	fi
	if ! jq -e -s 'length > 0' "$file" >/dev/null 2>&1; then
		show "ward log --json" "$file"
		fail "ward log $run --json printed no JSON objects"
		return 0
	fi
	local missing
	missing=$(jq -r '[
		"run","time_ms","pid","kind","syscall","subject","subject2",
		"detail","verdict","how","rule","decided_by","wait_ms",
		"request_id"] - keys | .[]' "$file" | sort -u | tr '\n' ' ')
	if [ -n "$missing" ]; then
		fail "ward log --json lines lack fields: $missing"
	else
		note "ok: every log line has the documented fields"
	fi
	local other
	other=$(jq -r --arg r "$run" 'select(.run != $r) | .run' "$file" | sort -u | tr '\n' ' ')
	[ -z "$other" ] || fail "ward log $run shows events of other runs: $other"
}

# log_count FILE JQ-FILTER: how many events the filter selects.
log_count() {
	jq -c "select($2)" "$1" | wc -l
}

# assert_log WHAT FILE JQ-FILTER: at least one event matches.
assert_log() {
	local n
	n=$(log_count "$2" "$3")
	if [ "$n" -gt 0 ]; then
		note "ok: $1 ($n event(s))"
	else
		fail "$1: no event in $2 matching: $3"
		show "$2" "$2"
	fi
}
