#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Live tests: run every tests/live/t-*.sh against the built ./ward,
# ./ward-tui and ./ward-supervisor, once as the current user and, when
# that is root, once more as the unprivileged user "wardtest" (created if
# missing). Each test
# gets fresh XDG_STATE_HOME, XDG_RUNTIME_DIR, XDG_CONFIG_HOME and HOME
# folders of its own and a time limit. Tests named t-home-*.sh get the
# user's real home as HOME instead (/root, /home/USER) and, when root, run
# a third time as "wardhome", whose home is /home/wardhome (created with
# useradd -m if missing, and left, as wardtest is). t-oci-runc and
# t-oci-hostile (runc's containers) run as root only when root runs the
# suite.
#
#   tests/live/run-all.sh [t-NAME ...]
#
# Environment: WARD_BUILD (build folder, for artifacts), CI (when "true" a
# skip counts as a failure), WARD_LIVE_TIMEOUT (seconds per test, 90;
# t-agents and t-net-agents-e2e get at least 300: npm installs, agents),
# WARD_TEST_AGENTS=1 (run the tests that download the agents' CLIs
# from npm, ~750 MB: t-agents, t-net-agents-e2e; skipped without it,
# saying so), WARD_SCENARIO_RUNS and WARD_SCENARIO_FLOOD (the size of
# t-fleet-scenario-tmux, which gets at least 600 s: 8 runs and 500 by
# default; WARD_SCENARIO_BLIND=1 answers y to questions not drawn, for
# an older build's figures),
# WARD_LIVE_USERS (e.g. "wardtest" to run as that user only, when root),
# WARD_LIVE_KEEP=1 (keep the temp folder), WARD_BIN_DIR (the folder of
# the ward, ward-tui and ward-supervisor to test, default the repository's; `make
# asan-live` points it at build-asan/bin), WARD_SANITIZE=1 (the binaries
# are built with ASan+UBSan: their reports go to files, and a test that
# leaves one fails, with the report in its log; WARD_ASAN_OPTIONS adds
# to ASAN_OPTIONS, e.g. fast_unwind_on_malloc=0 for whole leak stacks).
# Network tests (t-net-*.sh, and t-pkg-*.sh: package installs from the
# world's fake registries) need root: for each of them and each user,
# root builds a fake outside world of network namespaces (networld.sh up),
# the test runs as the user inside its client namespace (ip netns exec,
# then setpriv) with WT_WORLD naming the world's folder, and root tears the
# world down after (networld.sh down). Not root: they are skipped.
# A test exits 0 (pass), 77 (skip) or anything else (fail). Failed tests
# leave their log, screens and run output in $WARD_BUILD/live-artifacts/.
# The last line is "N passed, N failed[, N skipped]".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${WARD_BUILD:-build}
case $build in /*) ;; *) build=$repo/$build ;; esac
limit=${WARD_LIVE_TIMEOUT:-90}
ci=${CI:-false}
testuser=wardtest
# t-home-*.sh run with HOME the user's real home (/root, /home/USER), and
# as root once more as this user, whose home is a real /home/wardhome.
homeuser=wardhome

passed=0 failed=0 skipped=0
failures=()

summary() {
	echo
	if [ ${#failures[@]} -gt 0 ]; then
		echo "live: failed: ${failures[*]}"
		echo "live: logs and screens in $build/live-artifacts/"
	fi
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
}

# --- which tests -------------------------------------------------------

tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		t=${t%.sh}
		t=${t##*/}
		[ -f "$here/$t.sh" ] || { echo "live: no test $here/$t.sh" >&2; exit 2; }
		tests+=("$t")
	done
else
	for f in "$here"/t-*.sh; do
		tests+=("$(basename "$f" .sh)")
	done
fi

# --- the binaries ------------------------------------------------------

bindir=${WARD_BIN_DIR:-$repo}
case $bindir in /*) ;; *) bindir=$repo/$bindir ;; esac
sanitize=${WARD_SANITIZE:-0}
if [ ! -x "$bindir/ward" ] || [ ! -x "$bindir/ward-tui" ] ||
    [ ! -x "$bindir/ward-supervisor" ]; then
	echo "live: $bindir/ward, ward-tui and ward-supervisor are not built (run make)"
	failed=1
	failures+=(build)
	summary
	exit 1
fi
for tool in sqlite3 jq pgrep timeout setpriv; do
	command -v "$tool" >/dev/null || {
		echo "live: $tool is missing (.ci/run installs it)"
		failed=1
		failures+=("$tool")
		summary
		exit 1
	}
done

rm -rf "$build/live-artifacts"
base=$(mktemp -d /tmp/ward-live.XXXXXX)
chmod 755 "$base"
# The tests run from a copy every user can read: a checkout under a
# private home (a CI clone in /root) is not.
mkdir -p "$base/tests"
cp "$here"/*.sh "$base/tests/"
cp "$here"/net-*.py "$here"/pty-*.py "$here"/login_agent.py "$base/tests/"
# The gate's table of hostile request targets (t-net-gate-paths).
cp "$repo/tests/data/hostile-paths.tsv" "$base/tests/"
# The fake world's listeners and registries ship with `ward demo`.
cp "$repo/share/demo/listen.py" "$base/tests/net-listen.py"
cp "$repo/share/demo/registry.py" "$base/tests/pkg-registry.py"
# The C helpers `make tests` builds from tests/live/*.c, beside the tests.
for h in "$build"/tests/live/*; do
	case $h in *.*) continue ;; esac
	[ -f "$h" ] && [ -x "$h" ] && cp "$h" "$base/tests/"
done
cp -r "$here/shim" "$base/tests/"
chmod -R a+rX "$base/tests"
keep=${WARD_LIVE_KEEP:-0}
worlds=()
submount=""
locked=""
cleanup() {
	local w
	for w in "${worlds[@]}"; do
		bash "$base/tests/networld.sh" down "$w" >/dev/null 2>&1 || true
	done
	if [ -n "$submount" ]; then
		umount "$submount" 2>/dev/null || true
		rmdir "$submount" 2>/dev/null || true
	fi
	if [ -n "$locked" ]; then
		umount "$locked/sub" 2>/dev/null || true
		rmdir "$locked/sub" "$locked" 2>/dev/null || true
	fi
	if [ "$keep" = 1 ]; then
		echo "live: kept $base"
	else
		rm -rf "$base"
	fi
}
trap cleanup EXIT
# bash skips the EXIT trap when a signal kills it: turn them into exits
# (the worlds' namespaces and processes must not outlive us).
trap 'exit 143' TERM
trap 'exit 129' HUP
trap 'exit 130' INT

# --- who runs the tests ------------------------------------------------

me=$(id -un)
users=("$me")
if [ "$(id -u)" = 0 ]; then
	if ! id "$testuser" >/dev/null 2>&1; then
		echo "live: creating the unprivileged user $testuser"
		useradd --system --user-group --no-create-home \
		    --home-dir /nonexistent --shell /usr/sbin/nologin "$testuser"
	fi
	users+=("$testuser")
	if ! id "$homeuser" >/dev/null 2>&1; then
		echo "live: creating the user $homeuser (home /home/$homeuser)"
		useradd --user-group --create-home --home-dir "/home/$homeuser" \
		    --shell /bin/sh "$homeuser"
	fi
	users+=("$homeuser")
else
	echo "live: not root: running as $me only (run as root to test an unprivileged user too)"
fi
if [ -n "${WARD_LIVE_USERS:-}" ]; then
	read -r -a users <<<"$WARD_LIVE_USERS"
fi

# A mount below a host folder the sandbox sees read-only (/var), for
# t-ro-submount: ward must make it read-only too. Only root can mount.
if [ "$(id -u)" = 0 ]; then
	submount=$(mktemp -d /var/tmp/ward-live-sub.XXXXXX)
	if ! mount -t tmpfs -o mode=1777,size=1m ward-live-sub "$submount"; then
		echo "live: cannot mount a tmpfs on $submount"
		rmdir "$submount"
		submount=""
	fi
fi

# A mount below a folder only root may enter, as a rootful Docker's
# containers under /var/lib/docker, for t-submount-user: an ordinary
# user's run must start all the same.
if [ "$(id -u)" = 0 ]; then
	locked=$(mktemp -d /var/tmp/ward-live-locked.XXXXXX)
	chmod 0700 "$locked"
	mkdir "$locked/sub"
	if ! mount -t tmpfs -o mode=1777,size=1m ward-live-locked "$locked/sub"; then
		echo "live: cannot mount a tmpfs on $locked/sub"
		rmdir "$locked/sub" "$locked"
		locked=""
	fi
fi

# user_cmd USER: sets cmd to the prefix that runs a command as USER with
# only the environment in env_args; as_user USER CMD... runs it.
user_cmd() {
	cmd=()
	if [ "$1" != "$me" ]; then
		cmd=(setpriv --reuid="$(id -u "$1")" --regid="$(id -g "$1")"
		    --clear-groups --)
	fi
	cmd+=(env -i "${env_args[@]}")
}
as_user() {
	user_cmd "$1"
	shift
	"${cmd[@]}" "$@"
}

# --- what the kernel offers -------------------------------------------

echo "live: kernel $(uname -r)"
notif=no
if grep -qw user_notif /proc/sys/kernel/seccomp/actions_avail 2>/dev/null; then
	notif=yes
fi
echo "live: seccomp user notification: $notif"
for k in kernel/unprivileged_userns_clone user/max_user_namespaces \
    kernel/apparmor_restrict_unprivileged_userns; do
	[ -r "/proc/sys/$k" ] && echo "live: /proc/sys/$k = $(cat "/proc/sys/$k")"
done

declare -A userns binroot
for u in "${users[@]}"; do
	env_args=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/)
	if as_user "$u" unshare --user --map-root-user true 2>/dev/null; then
		userns[$u]=yes
	else
		userns[$u]=no
	fi
	echo "live: user namespaces as $u (uid $(id -u "$u")): ${userns[$u]}"

	# The binaries and share/ (beside them: the default policy) must be
	# readable by the user; a checkout under a private home is not, and
	# a WARD_BIN_DIR has no share/, so copy them where they are.
	if as_user "$u" test -x "$bindir/ward" -a -x "$bindir/ward-tui" \
	    -a -x "$bindir/ward-supervisor" \
	    -a -x "$bindir/share" 2>/dev/null; then
		binroot[$u]=$bindir
	else
		if [ ! -d "$base/bin" ]; then
			mkdir -p "$base/bin"
			cp "$bindir/ward" "$bindir/ward-tui" "$bindir/ward-supervisor" "$base/bin/"
			# beside ward-supervisor, where it looks for it
			[ -x "$bindir/ward-gate" ] && cp "$bindir/ward-gate" "$base/bin/"
			[ -d "$repo/share" ] && cp -r "$repo/share" "$base/bin/share"
			# t-quickstart reads the README and .ci/run
			cp "$repo/README.md" "$base/bin/"
			mkdir -p "$base/bin/.ci" && cp "$repo/.ci/run" "$base/bin/.ci/"
			chmod -R a+rX "$base/bin"
		fi
		binroot[$u]=$base/bin
		echo "live: $bindir is not readable by $u or has no share/: testing copies in $base/bin"
	fi
done

# --- sanitizers ------------------------------------------------------

# With WARD_SANITIZE=1 every sanitized process of a test writes its
# report to $san/<test>.<user>.<pid> (the folder is every user's: the
# supervisor of a run as wardtest writes there too).
san=$base/sanitizer
san_env=()
if [ "$sanitize" = 1 ]; then
	mkdir -p "$san"
	chmod 1777 "$san"
	echo "live: sanitized binaries in $bindir: reports in $san"
fi
san_args() {
	san_env=()
	[ "$sanitize" = 1 ] || return 0
	san_env=(
		ASAN_OPTIONS="log_path=$san/$1.$2:detect_leaks=1:abort_on_error=0:allocator_may_return_null=1:verify_asan_link_order=0${WARD_ASAN_OPTIONS:+:$WARD_ASAN_OPTIONS}"
		UBSAN_OPTIONS="log_path=$san/$1.$2:print_stacktrace=1:halt_on_error=1"
		LSAN_OPTIONS="log_path=$san/$1.$2"
	)
}
# A report left by the test: appended to its log; 1 if there is any.
# One made only of LeakSanitizer's own failure to stop the threads of a
# process that was being SIGKILLed as it exited (the test's cleanup ends
# a run it left going) is no finding: noted, not failed.
san_tracer_only() {
	! grep -vqE '^$|Unable to get registers from thread|LeakSanitizer has encountered a fatal error|HINT: For debugging, try setting|HINT: LeakSanitizer does not work under ptrace' "$1"
}
san_reports() {
	local f found=0
	[ "$sanitize" = 1 ] || return 0
	for f in "$san/$1.$2".*; do
		[ -e "$f" ] || continue
		if san_tracer_only "$f"; then
			echo "note: $(basename "$f"): LeakSanitizer could not stop a process killed as it exited (not a finding):" >>"$3"
			sed 's/^/  | /' "$f" >>"$3"
			continue
		fi
		found=1
		echo "FAIL: sanitizer report $(basename "$f"):" >>"$3"
		sed -n '1,80p' "$f" | sed 's/^/  | /' >>"$3"
	done
	return "$found"
}

# --- running -----------------------------------------------------------

# record NAME USER VERDICT SECONDS LOG ARTIFACTS
record() {
	local name=$1 u=$2 verdict=$3 secs=$4 log=$5 art=$6
	printf '%-5s %-24s %-10s %ss\n' "$verdict" "$name" "($u)" "$secs"
	case $verdict in
	PASS) passed=$((passed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	*)
		failed=$((failed + 1))
		failures+=("$name($u)")
		[ -s "$log" ] && sed 's/^/    /' "$log"
		local keepdir=$build/live-artifacts/$u/$name
		mkdir -p "$keepdir"
		[ -s "$log" ] && cp "$log" "$keepdir/test.log"
		[ -d "$art" ] && cp -r "$art/." "$keepdir/" 2>/dev/null || true
		;;
	esac
}

# agents_npm_for USER: prints the agents' npm install (t-agents.sh's
# cache, $build/agents-npm) for a test that runs in a fake world, where
# no registry is reached: installed here, in the host's namespace, when
# it is missing, and copied beside the tests once when USER cannot read
# the build folder (a CI clone under /root). Nothing when npm fails: the
# test then says so.
agents_npm_for() {
	local d=$build/agents-npm
	if [ ! -x "$d/node_modules/.bin/claude" ] || [ ! -x "$d/node_modules/.bin/codex" ]; then
		if command -v npm >/dev/null && mkdir -p "$d"; then
			echo "live: npm install of the agents into $d (once)" >&2
			NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt} \
			    timeout 300 npm install --no-audit --no-fund --prefix "$d" \
			    @anthropic-ai/claude-code @openai/codex @google/gemini-cli \
			    >"$base/agents-npm.log" 2>&1 </dev/null ||
			    echo "live: npm install failed: $base/agents-npm.log" >&2
		fi
	fi
	[ -d "$d/node_modules" ] || return 0
	if as_user "$1" test -x "$d/node_modules/.bin/claude" 2>/dev/null; then
		echo "$d"
		return 0
	fi
	if [ ! -d "$base/agents-npm/node_modules" ]; then
		cp -a "$d" "$base/agents-npm" && chmod -R a+rX "$base/agents-npm" ||
		    { rm -rf "$base/agents-npm"; return 0; }
	fi
	echo "$base/agents-npm"
}

for u in "${users[@]}"; do
	echo
	echo "== as $u"
	for name in "${tests[@]}"; do
		d=$base/$u/$name
		# the home user runs only the tests of a real home
		case $name in t-home-*) ;; *) [ "$u" != "$homeuser" ] || continue ;; esac
		# t-oci-runc, t-oci-hostile: runc needs root; when root runs
		# the suite they run as root alone (a skip as another user
		# would fail CI). t-oci-serve runs as each user.
		case $name in t-oci-runc|t-oci-hostile)
			[ "$(id -u)" != 0 ] || [ "$(id -u "$u")" = 0 ] || continue ;;
		esac
		mkdir -p "$d"/{state,runtime,config,home,scratch,scratch/artifacts}
		[ "$u" = "$me" ] || chown -R "$u:$(id -gn "$u")" "$base/$u"
		chmod 700 "$base/$u" "$d/runtime"
		log=$base/$name.$u.log

		why=""
		[ "$notif" = yes ] || why="seccomp user notification is not available in this kernel"
		[ "${userns[$u]}" = yes ] || why="user namespaces are not available to $u"
		net=no
		case $name in t-net-* | t-pkg-*) net=yes ;; esac
		if [ "$net" = yes ] && [ -z "$why" ] && [ "$(id -u)" != 0 ]; then
			why="network tests need root (to make and enter network namespaces)"
		fi
		if [ "$net" = yes ] && [ -z "$why" ]; then
			missing=""
			for tool in ip dnsmasq python3 curl; do
				command -v "$tool" >/dev/null || missing+=" $tool"
			done
			if [ -n "$missing" ]; then
				echo "FAIL: missing for the network tests:$missing (.ci/run installs them)" >"$log"
				record "$name" "$u" FAIL 0 "$log" ""
				continue
			fi
		fi
		if [ -n "$why" ]; then
			echo "SKIP: $why" >"$log"
			if [ "$ci" = true ]; then
				echo "      (CI=true: a skip is a failure)" >>"$log"
				record "$name" "$u" FAIL 0 "$log" ""
			else
				record "$name" "$u" SKIP 0 "$log" ""
				sed 's/^/    /' "$log"
			fi
			continue
		fi

		home=$d/home
		case $name in
		t-home-*)
			# the user's real home, when it is a folder of theirs
			h=$(getent passwd "$u" | cut -d: -f6)
			if [ -n "$h" ] && [ -d "$h" ] && [ "$(stat -c %u "$h")" = "$(id -u "$u")" ]; then
				home=$h
			fi
			;;
		esac
		env_args=(
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
			HOME="$home" USER="$u" LOGNAME="$u" SHELL=/bin/sh LANG=C.UTF-8
			TERM=xterm-256color CI="$ci"
			WARD_TEST_AGENTS="${WARD_TEST_AGENTS:-}"
			WARD_SCENARIO_RUNS="${WARD_SCENARIO_RUNS:-}"
			WARD_SCENARIO_FLOOD="${WARD_SCENARIO_FLOOD:-}"
			WARD_SCENARIO_BLIND="${WARD_SCENARIO_BLIND:-}"
			XDG_STATE_HOME="$d/state" XDG_RUNTIME_DIR="$d/runtime"
			XDG_CONFIG_HOME="$d/config"
			WARD="${binroot[$u]}/ward" WT_SCRATCH="$d/scratch"
			WT_ARTIFACTS="$d/scratch/artifacts"
			WT_SUBMOUNT="$submount" WT_LOCKED="$locked"
			WT_BUILD="$build" WARD_SANITIZE="$sanitize"
		)
		case $name in t-net-agents-e2e | t-net-agents-login)
			[ "${WARD_TEST_AGENTS:-}" != 1 ] ||
			    env_args+=(WT_AGENTS_NPM="$(agents_npm_for "$u")") ;;
		esac
		san_args "$name" "$u"
		env_args+=("${san_env[@]}")
		t0=$(date +%s%N)
		rc=0
		nscmd=()
		world=""
		# t-agents may npm install three agents on its first run;
		# t-net-agents-e2e drives two of them through a whole task.
		tlimit=$limit
		case $name in t-agents | t-net-agents-e2e | t-net-agents-login)
			[ "$tlimit" -ge 300 ] || tlimit=300 ;;
		# the operator's scenario: many runs, 500 writes, and against
		# an older build hundreds of keys
		t-fleet-scenario-tmux)
			[ "$tlimit" -ge 600 ] || tlimit=600 ;;
		esac
		if [ "$net" = yes ]; then
			# root builds the world; the test enters its client side
			world=$base/worlds/$u.$name
			worlds+=("$world")
			# t-net-agents-login: the agents' own login hosts, which
			# no option of theirs moves, are the world's API there
			wnames=()
			[ "$name" != t-net-agents-login ] ||
			    wnames=(platform.claude.com oauth2.googleapis.com)
			if ! bash "$base/tests/networld.sh" up "$world" \
			    "$((tlimit + 30))" "${wnames[@]}" >"$log" 2>&1 </dev/null; then
				echo "FAIL: could not build the fake world" >>"$log"
				record "$name" "$u" FAIL 0 "$log" ""
				continue
			fi
			. "$world/world.env"
			nscmd=(ip netns exec "$NW_CLIENT_NS")
			env_args+=(WT_WORLD="$world")
		fi
		# timeout runs the test in a process group of its own and, at
		# the limit, signals all of it (the test's EXIT trap then kills
		# what it started in the background).
		user_cmd "$u"
		(cd "$d/scratch" && timeout -k 5 "$tlimit" "${nscmd[@]}" \
		    "${cmd[@]}" bash "$base/tests/$name.sh") >>"$log" 2>&1 \
		    </dev/null || rc=$?
		if [ -n "$world" ]; then
			# what the world saw, kept with the test's artifacts
			mkdir -p "$d/scratch/artifacts/world"
			cp "$world"/*.count "$world"/*.log "$world"/*.out \
			    "$d/scratch/artifacts/world/" 2>/dev/null || true
			bash "$base/tests/networld.sh" down "$world" >>"$log" 2>&1 ||
			    echo "live: networld.sh down $world failed" >>"$log"
		fi
		secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
		san_reports "$name" "$u" "$log" || rc=1
		case $rc in
		0) record "$name" "$u" PASS "$secs" "$log" "$d/scratch/artifacts" ;;
		77)
			if [ "$ci" = true ]; then
				echo "      (CI=true: a skip is a failure)" >>"$log"
				record "$name" "$u" FAIL "$secs" "$log" "$d/scratch/artifacts"
			else
				record "$name" "$u" SKIP "$secs" "$log" "$d/scratch/artifacts"
				grep -h '^ *SKIP' "$log" | sed 's/^ */    /' || true
			fi
			;;
		124 | 137)
			echo "  (timed out after $limit s)" >>"$log"
			record "$name" "$u" FAIL "$secs" "$log" "$d/scratch/artifacts"
			;;
		*) record "$name" "$u" FAIL "$secs" "$log" "$d/scratch/artifacts" ;;
		esac
	done
done

summary
[ "$failed" = 0 ]
