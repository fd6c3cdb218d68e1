# SPDX-License-Identifier: MIT
# Helpers of the package-install live tests (t-pkg-*.sh); sourced after
# lib.sh and networld.sh.
#
# The fake world (networld.sh) serves, on 203.0.113.10, a PyPI simple
# index on pypi.test:8091 and an npm registry on npm.test:8092
# (pkg-registry.py), each with a tiny package "wardtiny" 1.0.0, made
# offline when the world starts. Every request they get is a line
# "METHOD PATH STATUS PEER" in $WT_WORLD/pypi.log or npm.log, empty at the
# start of a test.
#
# No test names a real registry: pip gets -i/--index-url (or PIP_INDEX_URL)
# and --trusted-host, PIP_CONFIG_FILE=/dev/null, no cache, no version
# check; npm gets --registry, no audit, fund or update check. The world
# has no route anywhere else, and pkg_no_real_registry checks from its name
# server's log that nothing even looked a real one up.

PKG_PYPI_HOST=pypi.test:8091
PKG_PYPI_INDEX=http://$PKG_PYPI_HOST/simple/
PKG_NPM_HOST=npm.test:8092
PKG_NPM_REGISTRY=http://$PKG_NPM_HOST/
# what the packages say when loaded (pkg-registry.py)
PKG_PY_MESSAGE="wardtiny 1.0.0 from the fake index"
PKG_JS_MESSAGE="wardtiny 1.0.0 from the fake registry"
# pip's options of every install in these tests (after "install")
PKG_PIP_OPTS="--no-cache-dir --disable-pip-version-check --no-input"
PKG_PIP_OPTS="$PKG_PIP_OPTS -i $PKG_PYPI_INDEX --trusted-host $PKG_PYPI_HOST"
PKG_NPM_OPTS="--registry $PKG_NPM_REGISTRY --no-audit --no-fund --no-update-notifier"

# pkg_test_init pip|npm ...: net_test_init, then what the managers named
# need on this machine (or skip), and the registries' logs empty.
pkg_test_init() {
	local m
	net_test_init
	for m in "$@"; do
		case $m in
		pip)
			command -v python3 >/dev/null || skip "no python3"
			python3 -m pip --version >/dev/null 2>&1 ||
			    skip "no pip for $(command -v python3) (.ci/run installs python3-pip)"
			python3 -c 'import venv, ensurepip' >/dev/null 2>&1 ||
			    skip "no venv/ensurepip for python3 (.ci/run installs python3-venv)"
			;;
		npm)
			command -v npm >/dev/null || skip "no npm (.ci/run installs it)"
			command -v node >/dev/null || skip "no node (.ci/run installs it)"
			;;
		esac
	done
	[ -s "$WT_WORLD/pkg/wardtiny-1.0.0-py3-none-any.whl" ] ||
	    die "the world has no package registries (no $WT_WORLD/pkg/; pkg-registry.py not next to networld.sh?)"
	assert_eq "requests the PyPI index saw at the start" 0 "$(pkg_request_count pypi)"
	assert_eq "requests the npm registry saw at the start" 0 "$(pkg_request_count npm)"
}

# pkg_requests pypi|npm: what that registry saw so far.
pkg_requests() {
	local f=$WT_WORLD/$1.log
	if [ -r "$f" ]; then
		cat "$f"
	else
		echo "missing $f"
	fi
}

pkg_request_count() {
	pkg_requests "$1" | wc -l | tr -d ' '
}

# assert_registry_saw WHAT pypi|npm PATH...: each path was fetched (GET,
# 200) from the client side of the world, and nothing was asked for that
# the registry did not have.
assert_registry_saw() {
	local what=$1 reg=$2 p
	shift 2
	sleep 0.2
	pkg_requests "$reg" >"$WT_ARTIFACTS/$reg.log"
	for p in "$@"; do
		assert_grep "$what: GET $p" \
		    "^GET ${p//./\\.} 200 $NW_CLIENT_ADDR:[0-9]+\$" "$WT_ARTIFACTS/$reg.log"
	done
	assert_no_grep "$what: no request it could not answer" ' [45][0-9][0-9] ' \
	    "$WT_ARTIFACTS/$reg.log"
}

# The names looked up at the world's name server since the test began.
dns_names() {
	local d=$WT_WORLD mark
	mark=$(cat "$d/dnsmasq.mark" 2>/dev/null || echo 0)
	tail -n +"$((mark + 1))" "$d/dnsmasq.log" |
	    sed -nE 's/.*query\[[A-Z0-9]+\] ([^ ]+) from .*/\1/p' | sort -u
}

# pkg_no_real_registry: no name outside the fake world's .test reached its
# name server (pypi.org, files.pythonhosted.org, registry.npmjs.org ...).
pkg_no_real_registry() {
	local other
	other=$(dns_names | grep -vE '\.test$' | tr '\n' ' ' || true)
	if [ -z "$other" ]; then
		note "ok: every name looked up is a .test name of the fake world ($(dns_names | tr '\n' ' '))"
	else
		fail "names outside the fake world were looked up: $other"
	fi
}

# wait_package ERR [SECONDS]: the first pending package request of run
# $WT_RUN (sets WT_REQ, WT_REQ_PATH = its subject, WT_REQ_PID).
wait_package() {
	wait_pending_kind "$1" package "${2:-30}"
}

# assert_pending_listed: `ward pending` lists request $WT_REQ as a
# package request with subject $WT_REQ_PATH.
assert_pending_listed() {
	local row f
	"$WARD" pending >"$WT_ARTIFACTS/pending.$WT_REQ" 2>&1 </dev/null || true
	row=$(awk -F '\t' -v r="$WT_RUN" -v i="$WT_REQ" '$1 == r && $2 == i' \
	    "$WT_ARTIFACTS/pending.$WT_REQ")
	IFS=$'\t' read -r -a f <<<"$row"
	assert_eq "ward pending: kind and subject" "package $WT_REQ_PATH" \
	    "${f[2]:-} ${f[3]:-}"
}

# assert_subject WHAT ERE: the pending subject matches.
assert_subject() {
	if [[ $WT_REQ_PATH =~ $2 ]]; then
		note "ok: $1"
	else
		fail "$1: subject $(printf '%q' "$WT_REQ_PATH") does not match /$2/"
	fi
}

# assert_only_package_requests ERR N: the run asked N things, all package
# installs (no connect or dns request: an approved install reaches its
# registry without asking again).
assert_only_package_requests() {
	local lines
	lines=$(pending_lines "$1")
	assert_eq "requests in the run" "$2" "$(printf '%s' "$lines" | grep -c . || true)"
	if printf '%s\n' "$lines" | grep -vqE "pending: package "; then
		fail "requests other than package installs:"
		printf '%s\n' "$lines" | grep -vE "pending: package " | sed 's/^/  | /'
	fi
}
