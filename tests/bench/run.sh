#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/bench/run.sh -- ward against native and bubblewrap, in one run
# (issue 6). `make bench` runs it after building ./ward, ./ward-tui and
# ./ward-supervisor.
#
# Each workload runs natively, under
#   bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind W W \
#         --unshare-all --die-with-parent --new-session
# and, for true, files, files_tmpfs and files_writable, under bare
# (tests/bench/bare.c: ward's own carried filter, every trapped call
# continued by a supervisor that does nothing else: the mechanism alone,
# no namespaces, no Landlock, no judgement; for files_tmpfs also as
# bare_read, `bare --read`: each path argument read from the target's
# memory before the CONTINUE, the floor of a supervisor that judges),
# and under `ward run --headless` with a policy that allows what the workload
# needs (nothing past /work and /tmp; every other write, connection and
# install is denied without asking, so nothing can stall on a question).
# The three sandboxes take turns within each round (the order rotates from
# round to round) and the table gives ratios measured in the same run,
# because absolute times on shared machines drift. It prints one table and
# writes build/bench.tsv. It prints figures, never verdicts, and exits 0
# unless the harness itself breaks. A timed command that exits non-zero
# breaks it (exit 2, naming the workload and the sandbox): its time would
# be of a failure. Only the python workload's exit status is a result (its
# tests may fail in a sandbox), noted per sandbox.
#
# What the workloads run (tests/bench/files and outside, the sources cc
# compiles) is copied into the temporary folder below /var/tmp first,
# which every sandbox sees: a checkout under /tmp is hidden by bwrap's own
# --tmpfs /tmp (and by ward's private /tmp).
#
# Workloads
#   true        start-up: /usr/bin/true (TRUE_RUNS runs per round, 3 warm-up);
#               under ward twice: with the run's fresh record and, as
#               sandbox ward_record (the row "true (record N MB)"), with a
#               state folder of its own whose record was grown once to
#               BIG_RECORD_MB by the sqlite3 CLI (a run's output rows in
#               ward's own schema): what a user's old record costs at
#               start-up
#   files       tests/bench/files.c: create+write+close DISK_FILES_N files in
#               the working folder, read back, stat, rename, delete
#   files_tmpfs the same with FILES_N files on a tmpfs: natively, under
#               bwrap and bare in a folder on a tmpfs of the run's own
#               (mounted for the run as root, else a folder below
#               /dev/shm); under ward in the run's own /tmp (sh -c 'cd
#               /tmp && exec files N' as the others: the sandbox's private
#               tmpfs, bounded by the floor, every write-open trapped and
#               continued). The disk's swings out of the figure, so
#               what is left is the sandboxes' own cost
#   files_writable  the same (FILES_N files) in that tmpfs folder made
#               writable in ward by the policy's `writable`: each change
#               performed and recorded by ward itself (issue 31); native
#               and bare beside it, no bwrap
#   files_project  the same in a project folder (ward run --project DIR
#               --chdir DIR: every write staged in the run's overlay, or its
#               copy where the kernel refuses one); natively and under bwrap
#               in that folder itself. The table's last lines give ward's
#               files_project / files (the overlay's cost beside /work)
#   python      python3 -m test test_json test_csv test_pathlib test_tempfile
#               test_shutil test_subprocess (Debian's python3 and its
#               libpythonX.Y-testsuite); pass/fail noted per sandbox
#   cc_sqlite3  cc -O0 -c sqlite3.c: SQLite's amalgamation (the copy that
#               the npm package better-sqlite3 ships, fetched with `npm pack`
#               into build/bench/src once). Without npm: cc_ward, ward's own
#               C sources compiled one by one (the sandbox sees them by --in)
#   approvals   tests/bench/outside.c creates APPROVALS files in a host folder
#               that the sandbox has read-only (--in): each create is trapped
#               and asked; tests/bench/approver.py allows each over the
#               control socket. Latency per create, timed in the workload:
#               p50 and p99, without and with a console-like second watcher,
#               and allowed by a policy glob with no client at all. Natively
#               and under bwrap (folder bound read-write) the same creates
#               simply happen: the reference.
#   scale       SCALE_N concurrent runs of a small shell workload (200 small
#               files written, read, removed, then `sleep 0.5`), started
#               together: all wait on a FIFO until every one is up (and under
#               ward watched), then go at once. Wall time from the go to the
#               last exit, peak RSS and largest sampled PSS of each
#               supervisor, CPU of all the supervisors; under ward one
#               console-like watcher (scale.py) is attached to every run
#   fleet       BENCH_RUNS (500) runs at once under ward (20 small files
#               written and removed, then `sleep 1`), started together as in
#               scale, with the real console attached to all of them:
#               `ward console` on a pty of 200x50 writing its frame times
#               (WARD_FRAME_LOG, tui/console.c). Each supervisor's largest
#               PSS (smaps_rollup), the console's frame p50/p99/max, and
#               how many runs exited 0 and are in the record with their end
#               (about 30 s for 500 here)
#   console     the console's redraw with every run in it, no sandboxes:
#               build/tests/bench-console feeds CONSOLE_RUNS x
#               CONSOLE_PENDING requests (100 x 100) to the models as
#               messages and times CONSOLE_FRAMES frames (queue rebuilt,
#               screen drawn at 200x50, arming noted), the selection moving
#               down the queue; median, p99 and max seconds a frame, and the
#               console's peak RSS (row console_redraw in the table)
#   gate        ward-gate's relay (issue 19): build/tests/bench-gate makes
#               GATE_REQUESTS small requests on one keep-alive TLS
#               connection to a loopback TLS server, directly and through
#               the gate's loop (forked, locked, a phantom swapped in each
#               request), in turns; requests/s and p50 latency of each, the
#               gate's as ratios to direct (row gate_relay in the table)
#   agent       the agent pane under load (tests/bench/agentpane.py): `ward
#               run --agent` on a pty of 120x40 that the script reads, the
#               program with a write request pending while it cats AGENT_MB
#               MiB into the pane; meanwhile the prefix key and Esc typed
#               AGENT_KEYS times each, timed until the console has drawn
#               the focus moved (a key answered, p50/p99); the supervisor's
#               peak RSS; then key-to-echo (a key into the console's pty to
#               its echo drawn in the pane) against `cat` on a pty of its
#               own with no ward
#
# Settings (environment): ROUNDS (5) for true, files_tmpfs and
# files_writable, FILES_ROUNDS (3) for files and files_project (on the disk: DISK_FILES_N (5000) files,
# since the disk's swings make a round take 1-25 s here), PY_ROUNDS (1) for
# python (one round of it is ~2 minutes: test_subprocess alone takes ~30 s),
# REAL_ROUNDS (2) for cc, TRUE_RUNS (20), FILES_N (20000), APPROVALS (1000),
# APPROVAL_ROUNDS (3), SCALE_N (50), SCALE_ROUNDS (2), BENCH_RUNS (500),
# AGENT_MB (100), AGENT_KEYS (100), BIG_RECORD_MB (200; 0 leaves the
# ward_record row out), WORKLOADS (all of "true files
# files_tmpfs files_writable files_project python cc approvals scale fleet
# console gate agent"), KEEP=1 keeps the temporary
# folder. PEERS=1 adds other sandboxes for true, files_tmpfs and python:
# srt (Anthropic's sandbox-runtime), codex (`codex sandbox`) and firejail,
# each installed if missing (npm versions pinned by PEER_SRT_NPM and
# PEER_CODEX_NPM, cached in build/bench/peers; see tests/bench/peers.sh).
# About 6 minutes on 2 (shared, busy) cores with the defaults.
#
# Peak RSS of the supervisor: a headless ward supervises its run in its
# own process (a build before exec'd ward-supervisor in place), so the
# process hyperfine starts is the supervisor; tests/bench/sampler.py
# reads its VmHWM from /proc (every 100 ms during the long timed runs; for
# true and files, whose timed runs go unsampled, during extra runs sampled
# every 5 ms). For bwrap the same figure is of the outer bwrap. Not
# /usr/bin/time: the kernel carries a process's peak RSS across exec into
# ru_maxrss, so it would report the ward CLI's own peak before its exec
# (about 5 MiB) rather than the supervisor's.

set -u
set -o pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=$ROOT/tests/bench
BUILD=$ROOT/build/bench
TSV=$ROOT/build/bench.tsv
PY=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1        # no __pycache__ in tests/bench

ROUNDS=${ROUNDS:-5}
REAL_ROUNDS=${REAL_ROUNDS:-2}
PY_ROUNDS=${PY_ROUNDS:-1}
TRUE_RUNS=${TRUE_RUNS:-20}
FILES_N=${FILES_N:-20000}
DISK_FILES_N=${DISK_FILES_N:-5000}
FILES_ROUNDS=${FILES_ROUNDS:-3}
APPROVALS=${APPROVALS:-1000}
APPROVAL_ROUNDS=${APPROVAL_ROUNDS:-3}
SCALE_N=${SCALE_N:-50}
SCALE_ROUNDS=${SCALE_ROUNDS:-2}
BENCH_RUNS=${BENCH_RUNS:-500}
CONSOLE_RUNS=${CONSOLE_RUNS:-100}
CONSOLE_PENDING=${CONSOLE_PENDING:-100}
CONSOLE_FRAMES=${CONSOLE_FRAMES:-300}
AGENT_MB=${AGENT_MB:-100}
AGENT_KEYS=${AGENT_KEYS:-100}
BIG_RECORD_MB=${BIG_RECORD_MB:-200}
WORKLOADS=${WORKLOADS:-"true files files_tmpfs files_writable files_project python cc approvals scale fleet console gate agent"}
SQLITE_NPM=better-sqlite3@12.11.1

say() { printf 'bench: [%3d s] %s\n' "$SECONDS" "$*" >&2; }
broke() { say "harness failure: $*"; exit 2; }
want() { case " $WORKLOADS " in *" $1 "*) return 0 ;; esac; return 1; }

T_START=$(date +%s)

# ---------------------------------------------------------------- tools
APT_UPDATED=
apt_install() {
	if [ "$(id -u)" != 0 ]; then
		say "not root: not installing $* (apt-get); install it to bench that part"
		return 1
	fi
	if [ -z "$APT_UPDATED" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 ||
			say "apt-get update failed (going on)"
		APT_UPDATED=1
	fi
	say "installing $* (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" \
		>/dev/null 2>&1 || { say "apt-get install $* failed"; return 1; }
}

command -v hyperfine >/dev/null || apt_install hyperfine
command -v bwrap >/dev/null || apt_install bubblewrap
command -v sqlite3 >/dev/null || apt_install sqlite3
[ -x "$PY" ] || apt_install python3

if ! command -v hyperfine >/dev/null || [ ! -x "$PY" ]; then
	say "no hyperfine or no $PY: nothing can be timed; skipping the benchmark"
	exit 0
fi
HAVE_BWRAP=1
command -v bwrap >/dev/null || { HAVE_BWRAP=; say "no bwrap: its rows are left out"; }

PY_TESTS="test_json test_csv test_pathlib test_tempfile test_shutil test_subprocess"
py_tests_present() {
	local t
	for t in $PY_TESTS; do
		"$PY" -c "import test.$t" 2>/dev/null || return 1
	done
}
if want python && ! py_tests_present; then
	apt_install "$("$PY" -c 'import sys; print("libpython%d.%d-testsuite" % sys.version_info[:2])')"
	if ! py_tests_present; then
		say "CPython's test modules are missing: skipping the python workload"
		WORKLOADS=${WORKLOADS/python/}
	fi
fi

# ---------------------------------------------------------------- build
if [ ! -x "$ROOT/ward" ] || [ ! -x "$ROOT/ward-tui" ] || [ ! -x "$ROOT/ward-supervisor" ]; then
	make -C "$ROOT" all >/dev/null || broke "make all failed"
fi
mkdir -p "$BUILD" "$BUILD/src" || broke "cannot create $BUILD"
cc -O2 -Wall -o "$BUILD/files" "$BENCH/files.c" || broke "cannot build files.c"
cc -O2 -Wall -o "$BUILD/outside" "$BENCH/outside.c" || broke "cannot build outside.c"
cc -O2 -Wall -pthread -I"$ROOT" -I"$ROOT/build/gen" -o "$BUILD/bare" "$BENCH/bare.c" ||
	broke "cannot build bare.c (make all generates build/gen/filter-bpf.h)"

TMPD=$(mktemp -d /var/tmp/ward-bench.XXXXXX) || broke "mktemp"
# Below /var, which ward shows its sandboxes read-only: the scale workload's
# FIFO must be reachable there by the sandbox's unprivileged uid.
chmod 755 "$TMPD"
TFS_MOUNTED=
cleanup() {
	[ -n "$TFS_MOUNTED" ] && umount "$TFS_MOUNTED"
	[ -n "${TFS:-}" ] && [ -z "$TFS_MOUNTED" ] && rm -rf "$TFS"
	if [ -n "${KEEP:-}" ]; then
		say "kept $TMPD"
	else
		rm -rf "$TMPD"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A snapshot of the programs: others may rebuild the tree meanwhile.
# The workloads' own programs beside them, where every sandbox sees them.
mkdir -p "$TMPD/bin" && cp "$ROOT/ward" "$ROOT/ward-tui" "$ROOT/ward-supervisor" \
	"$BUILD/files" "$BUILD/outside" "$BUILD/bare" "$TMPD/bin/" || broke "cannot copy ward"
WARD=$TMPD/bin/ward
BIN=$TMPD/bin

export XDG_STATE_HOME=$TMPD/state XDG_RUNTIME_DIR=$TMPD/run XDG_CONFIG_HOME=$TMPD/config
mkdir -p "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" && chmod 700 "$XDG_RUNTIME_DIR"
SOCKDIR=$XDG_RUNTIME_DIR/ward
RES=$TMPD/results
W=$TMPD/w                       # the working folder of native and bwrap runs
PROJ=$W/project                 # files_project's folder (bwrap binds it in W)
mkdir -p "$RES" "$W" "$PROJ" && chmod 755 "$W" "$PROJ"

POLICY=$TMPD/policy.ini
cat >"$POLICY" <<'EOF'
# The workloads need /work and /tmp only; deny the rest without asking.
[run]
timeout = 30m
[files]
write = deny
[network]
connect = deny
[packages]
install = deny
EOF
ASK_POLICY=$TMPD/ask.ini
cat >"$ASK_POLICY" <<'EOF'
# Writes outside are asked; the approver answers.
[run]
timeout = 10m
ask_timeout = 60
[files]
write = ask
[network]
connect = deny
[packages]
install = deny
EOF

# files_tmpfs's and files_writable's folder: a tmpfs of its own as root,
# else below /dev/shm. Writable in ward by the policy for files_writable
# (a writable folder, not the run's /work, which lives beside the record
# on the disk); ward's files_tmpfs runs in its own /tmp instead.
TFS=
if want files_tmpfs || want files_writable; then
	TFS=$TMPD/tmpfs
	mkdir -p "$TFS" || broke "cannot create $TFS"
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1g,mode=755 ward-bench "$TFS"; then
		TFS_MOUNTED=$TFS
	else
		rmdir "$TFS"
		TFS=$(mktemp -d /dev/shm/ward-bench.XXXXXX) || broke "mktemp /dev/shm"
		chmod 755 "$TFS"
	fi
	TFS_POLICY=$TMPD/tmpfs.ini
	sed "s|^write = deny|write = deny\nwritable = $TFS|" "$POLICY" >"$TFS_POLICY"
	grep -q "^writable = $TFS" "$TFS_POLICY" || broke "cannot write $TFS_POLICY"
fi

# PEERS=1: srt, codex and firejail beside them (tests/bench/peers.sh)
[ "${PEERS:-0}" != 0 ] && . "$BENCH/peers.sh"

BWRAP=(bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$W" "$W"
	--unshare-all --die-with-parent --new-session)

# ---------------------------------------------------------------- cc source
CC_WL=
if want cc; then
	if [ ! -s "$BUILD/src/sqlite3.c" ] && command -v npm >/dev/null; then
		say "fetching SQLite's amalgamation ($SQLITE_NPM, npm pack)"
		if (cd "$TMPD" && timeout 300 npm pack --silent "$SQLITE_NPM" >npm.log 2>&1) &&
			tar -xzf "$TMPD"/better-sqlite3-*.tgz -C "$TMPD" \
				package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h; then
			mv "$TMPD/package/deps/sqlite3/sqlite3.c" "$TMPD/package/deps/sqlite3/sqlite3.h" "$BUILD/src/"
		else
			say "npm pack $SQLITE_NPM failed (see below); falling back to ward's sources"
			tail -3 "$TMPD/npm.log" >&2
		fi
	fi
	CC_IN=$TMPD/src
	if [ -s "$BUILD/src/sqlite3.c" ]; then
		CC_WL=cc_sqlite3
		mkdir -p "$CC_IN" && cp "$BUILD/src/sqlite3.c" "$BUILD/src/sqlite3.h" "$CC_IN/" ||
			broke "cannot copy sqlite3.c"
		CC_DESC="cc -O0 -pipe -c sqlite3.c ($(grep -m1 -o 'SQLITE_VERSION  *"[^"]*"' "$CC_IN/sqlite3.c" | grep -o '"[^"]*"'), $(wc -l <"$CC_IN/sqlite3.c") lines; from npm $SQLITE_NPM)"
		CC_CMD="cc -O0 -pipe -c $CC_IN/sqlite3.c -o sqlite3.o"
	else
		CC_WL=cc_ward
		# The sources as make compiles them: its flags, the generated
		# filter beside them (make all has made it).
		mkdir -p "$CC_IN/gen" &&
			cp -r "$ROOT/config" "$ROOT/approvals" "$ROOT/review" "$ROOT/supervisor" "$ROOT/probe" "$ROOT/tui" "$CC_IN/" &&
			cp "$ROOT/build/gen/filter-bpf.h" "$CC_IN/gen/" || broke "cannot copy ward's sources"
		rm -f "$CC_IN/supervisor/filter-gen.c"
		CC_FLAGS="-std=gnu11 -D_GNU_SOURCE -I$CC_IN -I$CC_IN/gen $(pkg-config --cflags libseccomp inih sqlite3 ncursesw jansson libnotify)"
		CC_DESC="ward's own C sources, cc -O0 -c one by one (no sqlite3.c to hand)"
		CC_CMD="sh -c 'for f in $CC_IN/config/*.c $CC_IN/approvals/*.c $CC_IN/review/*.c $CC_IN/supervisor/*.c $CC_IN/probe/*.c $CC_IN/tui/*.c; do cc -O0 -pipe $CC_FLAGS -c \"\$f\" -o \"\$(basename \"\$f\" .c).o\" || exit 1; done'"
	fi
fi

# ---------------------------------------------------------------- timing
# cmd_for WORKLOAD SANDBOX: the command line for hyperfine -N
cmd_for() {
	local wl=$1 sb=$2 cmd in=()
	case $wl in
	true) cmd="/usr/bin/true" ;;
	files) cmd="$BIN/files $DISK_FILES_N"; in=(--in "$BIN") ;;
	files_tmpfs)
		# ward in the run's own /tmp, through sh as the others (its
		# --chdir takes only folders the sandbox shows from the host)
		if [ "$sb" = ward ]; then
			cmd="sh -c 'cd /tmp && exec $BIN/files $FILES_N'"
			in=(--in "$BIN")
		else
			cmd="sh -c 'cd $TFS && exec $BIN/files $FILES_N'"
		fi ;;
	files_writable)
		if [ "$sb" = ward ]; then
			cmd="$BIN/files $FILES_N"
			in=(--in "$BIN" --chdir "$TFS")
		else
			cmd="sh -c 'cd $TFS && exec $BIN/files $FILES_N'"
		fi ;;
	files_project)
		if [ "$sb" = ward ]; then
			cmd="$BIN/files $DISK_FILES_N"
			in=(--in "$BIN" --project "$PROJ" --chdir "$PROJ")
		else
			cmd="sh -c 'cd $PROJ && exec $BIN/files $DISK_FILES_N'"
		fi ;;
	python) cmd="$PY -m test $PY_TESTS" ;;
	cc_*) cmd=$CC_CMD; in=(--in "$CC_IN") ;;
	esac
	case $sb in
	native) printf '%s' "$cmd" ;;
	bare) printf '%s %s' "$BIN/bare" "$cmd" ;;
	bare_read) printf '%s --read %s' "$BIN/bare" "$cmd" ;;
	bwrap) printf '%s ' "${BWRAP[@]}"
		[ "$wl" = files_tmpfs ] && printf -- '--bind %s %s ' "$TFS" "$TFS"
		printf '%s' "$cmd" ;;
	ward|ward_record)
		printf '%s run --headless --policy %s ' "$WARD" \
			"$([ "$wl" = files_writable ] && echo "$TFS_POLICY" || echo "$POLICY")"
		[ ${#in[@]} -gt 0 ] && printf '%s ' "${in[@]}"
		printf -- '-- %s' "$cmd" ;;
	*) peer_cmd "$wl" "$sb" "$cmd" ;;
	esac
}

# sb_env SANDBOX: the environment a sandbox's runs need beyond the shared one
sb_env() {
	if [ "$1" = ward_record ]; then export XDG_STATE_HOME=$BIG_STATE; fi
}

# sandboxes [WORKLOAD]: true's timed rounds add ward_record; true and
# the files workloads but files_project add bare, files_tmpfs bare_read
# too (bare --read: the floor of a supervisor that reads each path it
# judges); files_writable has no bwrap
sandboxes() {
	if [ "${1:-}" = files_writable ]; then echo native bare ward; return; fi
	if [ -n "$HAVE_BWRAP" ]; then echo native bwrap ward; else echo native ward; fi
	case ${1:-} in true | files | files_tmpfs) echo bare ;; esac
	[ "${1:-}" = files_tmpfs ] && echo bare_read
	[ "${1:-}" = true ] && [ -n "$BIG_STATE" ] && echo ward_record
	declare -F peer_sandboxes >/dev/null && peer_sandboxes "${1:-}"
	return 0
}

# rotate N WORDS...: the words, starting at the (N mod count)th
rotate() {
	local n=$1; shift
	local a=("$@") i k=${#a[@]}
	for ((i = 0; i < k; i++)); do printf '%s ' "${a[$(((i + n) % k))]}"; done
}

# time_one WORKLOAD SANDBOX ROUND RUNS WARMUP SAMPLE_INTERVAL [RESULT_BASE]
# One hyperfine invocation (sync before each run, so that the journal and
# discards of the run before are not charged to this one). With a sample
# interval other than 0, sampler.py records the peak RSS of the top process.
time_one() {
	local wl=$1 sb=$2 r=$3 runs=$4 warm=$5 every=$6 base=${7:-$RES/t.$1.$2.$3} hp sp=
	# ward_record: the grown record's state folder (set here, not by
	# env(1) in the command: no exec more than the plain ward line).
	(cd "$W" && sb_env "$sb" && exec hyperfine -N -i --style basic --runs "$runs" --warmup "$warm" \
		--prepare sync --output "$base.out" --export-json "$base.json" -n "$sb" \
		"$(cmd_for "$wl" "$sb")") >"$base.hf" 2>&1 &
	hp=$!
	if [ "$every" != 0 ]; then
		"$PY" "$BENCH/sampler.py" --parent "$hp" --interval "$every" --out "$base.rss.json" &
		sp=$!
	fi
	wait "$hp" || { say "hyperfine failed on $wl/$sb:"; tail -5 "$base.hf" >&2; }
	[ -n "$sp" ] && wait "$sp"
	[ -s "$base.json" ] || broke "no timings for $wl/$sb (see $base.hf)"
	check_exits "$wl" "$sb" "$base"
	printf '  %-10s %-6s round %d: median %s s\n' "$wl" "$sb" "$r" \
		"$("$PY" -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$base.json")" >&2
}

# check_exits WORKLOAD SANDBOX RESULT_BASE: every run exited 0 (hyperfine
# -i goes on past a failure; its JSON keeps each run's exit code), else the
# harness breaks: the time would be of a failing command. python's exit
# codes are a result (summarize.py notes them), not a failure.
check_exits() {
	local wl=$1 sb=$2 base=$3 bad
	[ "$wl" = python ] && return 0
	bad=$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
c = r.get("exit_codes")
print("no exit codes in the JSON" if c is None else
      " ".join(str(x) for x in c if x != 0))' "$base.json") ||
		broke "cannot read $base.json"
	[ -z "$bad" ] && return 0
	# hyperfine keeps no stderr: run it once more to show why.
	say "$wl under $sb: the timed command failed (exit codes: $bad); once more:"
	(cd "$W" && sb_env "$sb" && eval "$(cmd_for "$wl" "$sb")") >"$base.again" 2>&1
	tail -5 "$base.again" >&2
	broke "$wl under $sb did not run: its times would be of a failing command"
}

# timed_workload WORKLOAD ROUNDS RUNS WARMUP SAMPLE_INTERVAL
timed_workload() {
	local wl=$1 rounds=$2 runs=$3 warm=$4 every=$5 r sb
	say "workload $wl: $rounds rounds x $runs runs per sandbox"
	for ((r = 1; r <= rounds; r++)); do
		for sb in $(rotate "$r" $(sandboxes "$wl")); do
			time_one "$wl" "$sb" "$r" "$runs" "$warm" "$every"
		done
	done
}

# rss_pass WORKLOAD RUNS: short runs are timed without the sampler (its
# polling would weigh on them); their RSS comes from extra runs sampled
# every 5 ms, not counted in the times.
rss_pass() {
	local wl=$1 runs=$2 sb
	for sb in $(sandboxes); do
		[ "$sb" = native ] && continue
		time_one "$wl" "$sb" 0 "$runs" 0 0.005 "$RES/r.$wl.$sb"
	done
}

# BIG_STATE: a state folder whose record is grown to BIG_RECORD_MB, once:
# a first run makes it (ward's schema), the sqlite3 CLI adds one ended
# run's output rows of 64 KiB. The warm-up runs take the check that this
# change from outside ward brings; the timed ones are the steady state.
BIG_STATE=
if want true && [ "$BIG_RECORD_MB" -gt 0 ]; then
	command -v sqlite3 >/dev/null || apt_install sqlite3
	if command -v sqlite3 >/dev/null; then
		BIG_STATE=$TMPD/bigstate
		mkdir -p "$BIG_STATE" || broke "cannot create $BIG_STATE"
		XDG_STATE_HOME=$BIG_STATE "$WARD" run --headless --policy "$POLICY" \
			-- /usr/bin/true >/dev/null 2>&1 || broke "cannot make $BIG_STATE's record"
		sqlite3 "$BIG_STATE/ward/audit.db" \
			"INSERT INTO runs (id, name, command, started_ms, ended_ms, exit_code, end_reason) VALUES ('bench-big', 'bench', 'grown by tests/bench/run.sh', 0, 1, 0, 'exit');
			 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $((BIG_RECORD_MB * 16)))
			 INSERT INTO output (run, stream, time_ms, bytes) SELECT 'bench-big', 'stdout', i, randomblob(65536) FROM n;
			 PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null ||
			broke "cannot grow $BIG_STATE's record"
		say "true: a record of $(($(stat -c %s "$BIG_STATE/ward/audit.db") >> 20)) MiB for ward_record"
	else
		say "no sqlite3: the true (record $BIG_RECORD_MB MB) row is left out"
	fi
fi
echo "$BIG_RECORD_MB" >"$RES/big-record-mb"

TIMED=()
if want true; then
	timed_workload true "$ROUNDS" "$TRUE_RUNS" 3 0
	rss_pass true 10
	TIMED+=(true)
fi
if want files; then
	timed_workload files "$FILES_ROUNDS" 1 0 0
	rss_pass files 1
	TIMED+=(files)
fi
if want files_tmpfs; then
	timed_workload files_tmpfs "$ROUNDS" 1 0 0
	rss_pass files_tmpfs 1
	TIMED+=(files_tmpfs)
fi
if want files_writable; then
	timed_workload files_writable "$ROUNDS" 1 0 0
	TIMED+=(files_writable)
fi
if want files_project; then
	# Said once: overlay, or why a copy.
	"$WARD" run --headless --policy "$POLICY" --project "$PROJ" -- /usr/bin/true 2>&1 |
		grep -F 'project' >&2 || say "files_project: staged in an overlay"
	timed_workload files_project "$FILES_ROUNDS" 1 0 0
	rss_pass files_project 1
	TIMED+=(files_project)
fi
if want python; then
	timed_workload python "$PY_ROUNDS" 1 0 0.1
	TIMED+=(python)
fi
if [ -n "$CC_WL" ]; then
	say "$CC_WL: $CC_DESC"
	timed_workload "$CC_WL" "$REAL_ROUNDS" 1 0 0.1
	TIMED+=("$CC_WL")
fi

# ---------------------------------------------------------------- approvals
approvals_broke() {
	say "approvals $1 round $2: exited $3; its stderr:"
	tail -5 "$4.err" >&2
	broke "approvals $1 did not run: its latencies would be of a failure"
}

# approvals_one VARIANT ROUND
approvals_one() {
	local v=$1 r=$2 h=$TMPD/appr/$1.$2 base=$RES/a.$1.$2 wp ap= cp= pol run st
	mkdir -p "$h"
	sync
	case $v in
	native)
		"$BIN/outside" "$h" "$APPROVALS" >"$base.lat" 2>"$base.err" ||
			approvals_broke "$v" "$r" $? "$base" ;;
	bwrap)
		bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$h" "$h" \
			--unshare-all --die-with-parent --new-session \
			"$BIN/outside" "$h" "$APPROVALS" >"$base.lat" 2>"$base.err" ||
			approvals_broke "$v" "$r" $? "$base" ;;
	ward | ward-console | ward-allow)
		pol=$ASK_POLICY
		if [ "$v" = ward-allow ]; then
			pol=$TMPD/allow.$r.ini
			printf '[run]\ntimeout = 10m\nask_timeout = 60\n[files]\nwrite = ask\nallow = %s/*\n' "$h" >"$pol"
		fi
		"$WARD" run --headless --policy "$pol" --in "$h" --in "$BIN" -- \
			"$BIN/outside" "$h" "$APPROVALS" >"$base.lat" 2>"$base.err" &
		wp=$!
		if [ "$v" != ward-allow ]; then
			"$PY" "$BENCH/approver.py" --stderr "$base.err" --sockdir "$SOCKDIR" \
				--stats "$base.stats.json" &
			ap=$!
		fi
		if [ "$v" = ward-console ]; then
			"$PY" "$BENCH/approver.py" --stderr "$base.err" --sockdir "$SOCKDIR" \
				--watch-only --client console &
			cp=$!
		fi
		st=0
		wait "$wp" || st=$?
		[ -n "$ap" ] && { wait "$ap" || say "approver exited $?"; }
		[ -n "$cp" ] && { wait "$cp" || say "watcher exited $?"; }
		[ "$st" = 0 ] || approvals_broke "$v" "$r" "$st" "$base"
		run=$(sed -n 's/^ward: run \([0-9a-f]*\) started.*/\1/p' "$base.err" | head -1)
		if [ -n "$run" ]; then
			sqlite3 "$XDG_STATE_HOME/ward/audit.db" \
				"SELECT wait_ms FROM events WHERE run = '$run' AND request_id > 0" \
				>"$base.waitms" 2>/dev/null || true
		fi
		;;
	esac
	find "$h" -type f | wc -l >"$base.count"
	printf '  approvals %-12s round %d: %s creates timed, %s files on the host\n' \
		"$v" "$r" "$(wc -l <"$base.lat")" "$(cat "$base.count")" >&2
}

if want approvals; then
	say "workload approvals: $APPROVAL_ROUNDS rounds x $APPROVALS creates"
	variants="native ward ward-console ward-allow"
	[ -n "$HAVE_BWRAP" ] && variants="native bwrap ward ward-console ward-allow"
	for ((r = 1; r <= APPROVAL_ROUNDS; r++)); do
		for v in $(rotate "$r" $variants); do
			approvals_one "$v" "$r"
		done
	done
fi

# ---------------------------------------------------------------- scale
if want scale; then
	say "workload scale: $SCALE_ROUNDS rounds x $SCALE_N concurrent runs"
	for ((r = 1; r <= SCALE_ROUNDS; r++)); do
		mkdir -p "$TMPD/scale/$r"
		# All copies wait on one FIFO (below /var: visible under ward too)
		# and go together once every one is up (and watched).
		SCALE_CMD="read x < $TMPD/scale/$r/go || exit 3; for i in \$(seq 200); do echo \$i > f\$i; done; cat f* >/dev/null; rm -f f*; sleep 0.5"
		for m in $(rotate "$r" $(sandboxes)); do
			"$PY" "$BENCH/scale.py" --mode "$m" --n "$SCALE_N" \
				--workdir "$TMPD/scale/$r" --out "$RES/s.$m.$r.json" \
				--ward "$WARD" --policy "$POLICY" --sockdir "$SOCKDIR" \
				-- sh -c "$SCALE_CMD" || broke "scale.py failed ($m)"
			printf '  scale %-6s round %d: %s\n' "$m" "$r" \
				"$("$PY" -c 'import json,sys; d = json.load(open(sys.argv[1])); print("all up in %.2f s, then all done in %.2f s" % (d["start_s"], d["wall_s"]))' "$RES/s.$m.$r.json")" >&2
		done
	done
fi

# ---------------------------------------------------------------- fleet
# BENCH_RUNS runs at once under ward alone, the real console attached to
# all of them (scale.py --console-log): each supervisor's PSS, the
# console's frame times, and whether the record holds every run's end.
if want fleet; then
	say "workload fleet: $BENCH_RUNS concurrent runs, ward console attached"
	mkdir -p "$TMPD/fleet"
	FLEET_CMD="read x < $TMPD/fleet/go || exit 3; for i in \$(seq 20); do echo \$i > f\$i; done; rm -f f*; sleep 1"
	"$PY" "$BENCH/scale.py" --mode ward --n "$BENCH_RUNS" \
		--workdir "$TMPD/fleet" --out "$RES/fleet.json" \
		--ward "$WARD" --policy "$POLICY" --sockdir "$SOCKDIR" \
		--console-log "$TMPD/fleet/frames.log" --state "$XDG_STATE_HOME" \
		--ready-timeout 240 -- sh -c "$FLEET_CMD" || broke "scale.py failed (fleet)"
	say "  fleet: $("$PY" -c 'import json,sys; d = json.load(open(sys.argv[1])); print("all up in %.1f s, then all done in %.1f s; %d frames" % (d["start_s"], d["wall_s"], len(d["frame_s"])))' "$RES/fleet.json")"
fi

# ---------------------------------------------------------------- console
CONSOLE_LINE=
if want console; then
	say "workload console: redraw with $CONSOLE_RUNS runs x $CONSOLE_PENDING pending"
	CONSOLE_LINE=$("$ROOT/build/tests/bench-console" "$CONSOLE_RUNS" \
		"$CONSOLE_PENDING" "$CONSOLE_FRAMES") ||
		broke "bench-console failed (make tests builds it)"
fi

# ---------------------------------------------------------------- gate
GATE_LINE=
GATE_REQUESTS=${GATE_REQUESTS:-8000}
if want gate; then
	say "workload gate: $GATE_REQUESTS requests direct and through ward-gate"
	GATE_LINE=$("$ROOT/build/tests/bench-gate" "$GATE_REQUESTS" 4) ||
		broke "bench-gate failed (make tests builds it)"
	# What a [secret] adds to a run's start and end (the gate started,
	# its CA made, its last words heard), turn about with the same
	# policy without it, in one hyperfine.
	cp "$POLICY" "$TMPD/gate-none.ini"
	{ cat "$POLICY"; printf '\n[secret BENCH_TOKEN]\nfrom = env:BENCH_TOKEN\nhosts = api.bench.test:443\nheader = x-api-key: {}\n'; } \
		>"$TMPD/gate-secret.ini"
	BENCH_TOKEN=bench-value hyperfine -N -i --style basic --runs 30 --warmup 3 \
		--export-json "$RES/gate-start.json" \
		"$WARD run --headless --policy $TMPD/gate-none.ini -- /usr/bin/true" \
		"$WARD run --headless --policy $TMPD/gate-secret.ini -- /usr/bin/true" \
		>/dev/null 2>&1 || say "gate start-up: hyperfine failed"
fi

# ---------------------------------------------------------------- agent
if want agent; then
	say "workload agent: cat of $AGENT_MB MiB in the agent pane, $AGENT_KEYS keys"
	mkdir -p "$TMPD/agent"
	printf '[run]\nask_timeout = 10m\n[files]\nwrite = ask\n' >"$TMPD/agent.ini"
	"$PY" "$BENCH/agentpane.py" --ward "$WARD" --policy "$TMPD/agent.ini" \
		--dir "$TMPD/agent" --mb "$AGENT_MB" --keys "$AGENT_KEYS" \
		--out "$RES/agent.json" || broke "agentpane.py failed"
	rm -f "$TMPD/agent/big"
	say "  agent: $("$PY" -c 'import json,sys; d = json.load(open(sys.argv[1])); print("cat in %.1f s, %d keys answered during it, %d echoes" % (d["cat_s"], d["keys_during_cat"], len(d["echo_s"])))' "$RES/agent.json")"
fi

# ---------------------------------------------------------------- report
timed_json=$(printf '"%s",' "${TIMED[@]}")
cat >"$RES/meta.json" <<EOF
{"timed": [${timed_json%,}]}
EOF
T_END=$(date +%s)
echo
echo "ward benchmark -- $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ), $((T_END - T_START)) s"
echo "rounds: true/files_tmpfs/files_writable $ROUNDS (true: $TRUE_RUNS runs a round), files/files_project (disk) $FILES_ROUNDS, python $PY_ROUNDS, cc $REAL_ROUNDS, approvals $APPROVAL_ROUNDS x $APPROVALS, scale $SCALE_ROUNDS x $SCALE_N; agent $AGENT_MB MiB x $AGENT_KEYS keys; files N = $FILES_N on tmpfs, $DISK_FILES_N on disk"
[ -n "$CC_WL" ] && echo "$CC_WL: $CC_DESC"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$PY" "$BENCH/summarize.py" "$RES" "$TSV" || broke "summarize.py failed"
echo
"$BENCH/trap-cost.sh" || broke "trap-cost.sh failed"
if [ -n "$CONSOLE_LINE" ]; then
	read -r c_med c_p99 c_max c_rss c_frames <<<"$CONSOLE_LINE"
	echo
	printf 'console redraw, %s runs x %s pending (%s frames at 200x50): median %.2f ms, p99 %.2f ms, max %.2f ms; peak RSS %s KiB\n' \
		"$CONSOLE_RUNS" "$CONSOLE_PENDING" "$c_frames" \
		"$(awk -v x="$c_med" 'BEGIN { print x * 1000 }')" \
		"$(awk -v x="$c_p99" 'BEGIN { print x * 1000 }')" \
		"$(awk -v x="$c_max" 'BEGIN { print x * 1000 }')" "$c_rss"
	[ -s "$TSV" ] && printf 'console_redraw\tward\t%s\tNA\tNA\tNA\tNA\t%s\n' \
		"$c_med" "$c_rss" >>"$TSV"
fi
if [ -n "$GATE_LINE" ]; then
	read -r g_drps g_grps g_dp50 g_gp50 <<<"$GATE_LINE"
	echo
	awk -v d="$g_drps" -v g="$g_grps" -v dp="$g_dp50" -v gp="$g_gp50" -v n="$GATE_REQUESTS" 'BEGIN {
	    printf "gate relay, %d requests on one TLS connection: %.0f req/s through ward-gate vs %.0f direct (ratio %.2f); p50 latency %.0f us vs %.0f us (ratio %.2f, +%.0f us)\n",
	        n, g, d, g / d, gp * 1e6, dp * 1e6, gp / dp, (gp - dp) * 1e6 }'
	[ -s "$TSV" ] && printf 'gate_relay\tward\t%s\tNA\tNA\tNA\tNA\tNA\n' \
		"$g_gp50" >>"$TSV"
	[ -s "$RES/gate-start.json" ] && "$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"], r[1]["median"]
print("start-up with one [secret] (the gate, its CA): %.1f ms vs %.1f ms without (ratio %.2f, +%.1f ms; medians, 30 runs each)" % (b * 1e3, a * 1e3, b / a, (b - a) * 1e3))' "$RES/gate-start.json"
fi
if [ -s "$TSV" ] && want files && want files_project; then
	echo
	awk -F'\t' '$2 == "ward" && $1 == "files" { f = $3 }
	    $2 == "ward" && $1 == "files_project" { p = $3 }
	    END { if (f > 0 && p > 0) printf "project overlay: ward files_project / files (median, same run) %.2f (%.4f s / %.4f s)\n", p / f, p, f }' "$TSV"
fi
echo
echo "written: $TSV"
exit 0
