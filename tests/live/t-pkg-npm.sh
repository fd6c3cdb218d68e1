#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real npm install, end to end, from the fake world's npm registry
# (npm.test:8092, pkg-registry.py): `npm install --registry ... wardtiny`
# in /work becomes a package request naming npm, wardtiny and the
# registry host; nothing reaches the registry, nor its name the name
# server, before the answer; `ward approve` lets npm run (its re-exec as
# `node .../npm-cli.js` is the same approved install: no second request)
# and reach the registry, node_modules/wardtiny lands in the run folder and
# loads inside; the record has the install allowed by a person, with
# manager, package and hosts, and the connects to the registry allowed as
# the install's registry.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/pkg-lib.sh"
pkg_test_init npm

write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 60'
uid=$(id -u)

prog="
cd /work || exit
npm install $PKG_NPM_OPTS wardtiny || exit
node -e 'console.log(\"require:\", require(\"wardtiny\"))'"
t0=$(now_ms)
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 120 --policy "$WT_SCRATCH/policy.ini" \
    -- sh -c "$prog"
wait_package "$WT_ARTIFACTS/err" 60
note "the request came $(($(now_ms) - t0)) ms after the start"
assert_subject "the subject names npm, wardtiny, the registry and its host" \
    "^npm install wardtiny \\(1 package\\); index ${PKG_NPM_REGISTRY//./\\.}; hosts (.* )?${PKG_NPM_HOST//./\\.}( |\$)"
assert_ne "pending pid" 0 "$WT_REQ_PID"
assert_pending_listed
sleep 0.5
assert_eq "requests the registry saw before the answer" 0 "$(pkg_request_count npm)"
assert_eq "lookups of npm.test before the answer" 0 "$(dns_queries npm.test)"
t_answer=$(now_ms)
ward_answer approve
ward_wait 90
note "approve to the end of the run: $(($(now_ms) - t_answer)) ms"
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "npm added it" '^added 1 package' "$WT_ARTIFACTS/out"
assert_grep "node loads it inside" "^require: $PKG_JS_MESSAGE\\r?\$" "$WT_ARTIFACTS/out"
assert_only_package_requests "$WT_ARTIFACTS/err" 1

# the run folder on the host
work=$(run_dir "$WT_RUN")/work
assert_file_content "node_modules/wardtiny/index.js in the host run folder" \
    "module.exports = \"$PKG_JS_MESSAGE\";" "$work/node_modules/wardtiny/index.js"
assert_eq "node_modules/wardtiny/package.json: name and version" "wardtiny 1.0.0" \
    "$(jq -r '.name + " " + .version' "$work/node_modules/wardtiny/package.json" 2>/dev/null)"
assert_eq "the project's package.json depends on it" "^1.0.0" \
    "$(jq -r '.dependencies.wardtiny' "$work/package.json" 2>/dev/null)"
assert_eq "the lock file names the fake registry's tarball" \
    "http://npm.test:8092/wardtiny/-/wardtiny-1.0.0.tgz" \
    "$(jq -r '.packages["node_modules/wardtiny"].resolved' "$work/package-lock.json" 2>/dev/null)"

# the registry
assert_registry_saw "the registry" npm /wardtiny /wardtiny/-/wardtiny-1.0.0.tgz
n=$(dns_queries npm.test)
[ "$n" -ge 1 ] && note "ok: $n queries for npm.test reached the name server" ||
    fail "no query for npm.test reached the name server"
pkg_no_real_registry

# the record
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the install allowed by a person, uid $uid, with manager, package and hosts" \
    "$WT_ARTIFACTS/log.json" \
    ".kind == \"package\" and .syscall == \"execve\" and .verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ\") and (.subject | startswith(\"npm install wardtiny (1 package)\")) and (.subject | test(\"hosts (.* )?npm\\\\.test:8092\")) and ((.detail // \"\") | test(\"^npm install \")) and ((.decided_by // \"\") | test(\"uid $uid([^0-9]|\$)\")) and .wait_ms > 0"
assert_eq "package events in the record" 1 \
    "$(log_count "$WT_ARTIFACTS/log.json" '.kind == "package"')"
assert_log "the connects to the registry allowed as the install's registry" \
    "$WT_ARTIFACTS/log.json" \
    '.kind == "connect" and .subject == "npm.test (203.0.113.10):8092" and .verdict == "allow" and ((.rule // "") | test("approved npm install"))'
assert_eq "events denied" 0 "$(log_count "$WT_ARTIFACTS/log.json" '.verdict == "deny"')"
finish
