#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Package installs refused, and allowed by the policy, against the fake
# world's registries (pkg-registry.py):
#  - person: `ward deny` of a pip install -> the exec fails with EACCES
#    (sh: "Permission denied", status 126; python's subprocess: a
#    PermissionError, errno 13), nothing lands, the index saw nothing and
#    nobody looked its name up; the record has deny/person with manager,
#    package and hosts.
#  - policy deny: [packages] deny = pip:wardtiny npm:wardtiny -> both
#    installs refused at once, nobody asked, the rule named in the record.
#  - policy allow: [packages] allow = pip:wardtiny with [manager pip]
#    hosts = pypi.test:8091 -> with the index given through PIP_INDEX_URL
#    (not on the command line) pip installs with nobody asked, reaching
#    only the policy's host; with -i on the command line ward asks all the
#    same (by design: the same name from another index is other code), and
#    an approval installs.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/pkg-lib.sh"
pkg_test_init pip npm

uid=$(id -u)
pipx="python3 -m pip install $PKG_PIP_OPTS --target /work/lib wardtiny"
subj_re="^pip install wardtiny \\(1 package\\) -> /work/lib; index ${PKG_PYPI_INDEX//./\\.}; hosts (.* )?${PKG_PYPI_HOST//./\\.}( |\$)"

# --- a person denies --------------------------------------------------
note "--- a person denies"
write_policy "$WT_SCRATCH/ask.ini" '[run]' 'ask_timeout = 60'
# the same install through a shell, then through python's subprocess
# (a fresh process: asked again)
prog="
export PIP_CONFIG_FILE=/dev/null
$pipx
echo \"sh status \$?\"
python3 -c '
import subprocess, sys
try:
    subprocess.run(sys.argv[1:])
    print(\"subprocess ran\")
except PermissionError as e:
    print(\"subprocess PermissionError\", e.errno)
' $pipx
echo done"
ward_bg "$WT_ARTIFACTS/out.person" "$WT_ARTIFACTS/err.person" \
    run --headless --timeout 120 --policy "$WT_SCRATCH/ask.ini" -- sh -c "$prog"
wait_package "$WT_ARTIFACTS/err.person" 60
first=$WT_REQ
for WT_REQ in "$first" "$((first + 1))"; do
	if ! wait_for 30 pending_request_seen "$WT_ARTIFACTS/err.person" "$WT_REQ"; then
		show "ward stderr" "$WT_ARTIFACTS/err.person"
		die "the second install (python's subprocess) made no request"
	fi
	WT_REQ_PATH=$(pending_lines "$WT_ARTIFACTS/err.person" |
	    sed -nE "s/^ward: run $WT_RUN request $WT_REQ pending: package (.*) \\(pid [0-9]+\\); ward approve .*/\\1/p")
	assert_subject "request $WT_REQ names pip, wardtiny, the index and its host" "$subj_re"
	assert_pending_listed
	sleep 0.3
	assert_eq "requests the index saw before the answer" 0 "$(pkg_request_count pypi)"
	ward_answer deny
done
ward_wait 60
show "program output" "$WT_ARTIFACTS/out.person"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "sh could not run it: Permission denied" \
    '^sh: [0-9]+: python3: Permission denied\r?$' "$WT_ARTIFACTS/err.person"
assert_grep "sh: status 126" '^sh status 126\r?$' "$WT_ARTIFACTS/out.person"
assert_grep "python's subprocess: PermissionError, EACCES" \
    '^subprocess PermissionError 13\r?$' "$WT_ARTIFACTS/out.person"
assert_grep "the program went on" '^done\r?$' "$WT_ARTIFACTS/out.person"
assert_no_grep "pip never ran" 'Looking in indexes|Collecting|Successfully' \
    "$WT_ARTIFACTS/out.person"
assert_only_package_requests "$WT_ARTIFACTS/err.person" 2
assert_absent "nothing landed in the run folder" "$(run_dir "$WT_RUN")/work/lib"
assert_eq "requests the index saw" 0 "$(pkg_request_count pypi)"
assert_eq "lookups of pypi.test" 0 "$(dns_queries pypi.test)"
pkg_no_real_registry
log_json "$WT_RUN" "$WT_ARTIFACTS/log.person.json"
for r in "$first" "$((first + 1))"; do
	assert_log "install $r denied by a person, uid $uid, with manager, package and hosts" \
	    "$WT_ARTIFACTS/log.person.json" \
	    ".kind == \"package\" and .syscall == \"execve\" and .verdict == \"deny\" and .how == \"person\" and ((.request_id|tostring) == \"$r\") and (.subject | startswith(\"pip install wardtiny (1 package) -> /work/lib\")) and (.subject | test(\"hosts (.* )?pypi\\\\.test:8091\")) and ((.decided_by // \"\") | test(\"uid $uid([^0-9]|\$)\"))"
done
assert_eq "package events allowed" 0 \
    "$(log_count "$WT_ARTIFACTS/log.person.json" '.kind == "package" and .verdict == "allow"')"
assert_eq "connect events" 0 \
    "$(log_count "$WT_ARTIFACTS/log.person.json" '.kind == "connect"')"

# --- the policy denies ------------------------------------------------
note "--- [packages] deny = pip:wardtiny npm:wardtiny"
write_policy "$WT_SCRATCH/deny.ini" '[run]' 'ask_timeout = 60' \
    '[packages]' 'deny = pip:wardtiny npm:wardtiny'
prog="
export PIP_CONFIG_FILE=/dev/null
$pipx
echo \"pip status \$?\"
cd /work && npm install $PKG_NPM_OPTS wardtiny
echo \"npm status \$?\""
ward_fg "$WT_ARTIFACTS/out.deny" "$WT_ARTIFACTS/err.deny" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/deny.ini" -- sh -c "$prog"
note "the run took $WT_ELAPSED_MS ms"
show "program output" "$WT_ARTIFACTS/out.deny"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "pip: status 126" '^pip status 126\r?$' "$WT_ARTIFACTS/out.deny"
assert_grep "npm: status 126" '^npm status 126\r?$' "$WT_ARTIFACTS/out.deny"
assert_grep "sh: python3: Permission denied" \
    '^sh: [0-9]+: python3: Permission denied\r?$' "$WT_ARTIFACTS/err.deny"
assert_grep "sh: npm: Permission denied" \
    '^sh: [0-9]+: npm: Permission denied\r?$' "$WT_ARTIFACTS/err.deny"
assert_no_pending "nobody was asked" "$WT_ARTIFACTS/err.deny"
work=$(run_dir "$WT_RUN")/work
assert_absent "no /work/lib" "$work/lib"
assert_absent "no /work/node_modules" "$work/node_modules"
assert_eq "requests the index saw" 0 "$(pkg_request_count pypi)"
assert_eq "requests the npm registry saw" 0 "$(pkg_request_count npm)"
assert_eq "lookups of pypi.test and npm.test" 0 \
    "$(($(dns_queries pypi.test) + $(dns_queries npm.test)))"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.deny.json"
for m in pip npm; do
	assert_log "the $m install denied by the policy's pattern $m:wardtiny" \
	    "$WT_ARTIFACTS/log.deny.json" \
	    ".kind == \"package\" and .verdict == \"deny\" and .how == \"policy\" and .rule == \"$m:wardtiny\" and (.subject | startswith(\"$m install wardtiny (1 package)\")) and (.subject | test(\"; hosts .\"))"
done
assert_eq "package events allowed" 0 \
    "$(log_count "$WT_ARTIFACTS/log.deny.json" '.kind == "package" and .verdict == "allow"')"

# --- the policy allows ------------------------------------------------
note "--- [packages] allow = pip:wardtiny, [manager pip] hosts = $PKG_PYPI_HOST"
write_policy "$WT_SCRATCH/allow.ini" '[run]' 'ask_timeout = 60' \
    '[packages]' 'allow = pip:wardtiny' "[manager pip]" "hosts = $PKG_PYPI_HOST"
# the index through pip's environment, not its command line
prog="
export PIP_CONFIG_FILE=/dev/null PIP_INDEX_URL=$PKG_PYPI_INDEX PIP_TRUSTED_HOST=$PKG_PYPI_HOST
python3 -m pip install --no-cache-dir --disable-pip-version-check --no-input --target /work/lib wardtiny || exit
PYTHONPATH=/work/lib python3 -c 'import wardtiny; print(\"import:\", wardtiny.MESSAGE)'"
ward_fg "$WT_ARTIFACTS/out.allow" "$WT_ARTIFACTS/err.allow" \
    run --headless --timeout 90 --policy "$WT_SCRATCH/allow.ini" -- sh -c "$prog"
note "the run took $WT_ELAPSED_MS ms"
show "program output" "$WT_ARTIFACTS/out.allow"
assert_eq "exit status" 0 "$WT_STATUS"
assert_no_pending "nobody was asked" "$WT_ARTIFACTS/err.allow"
assert_grep "python imports it inside" "^import: $PKG_PY_MESSAGE\\r?\$" "$WT_ARTIFACTS/out.allow"
assert_file_content "the module in the host run folder" "MESSAGE = \"$PKG_PY_MESSAGE\"" \
    "$(run_dir "$WT_RUN")/work/lib/wardtiny/__init__.py"
assert_registry_saw "the index" pypi /simple/wardtiny/ /packages/wardtiny-1.0.0-py3-none-any.whl
assert_eq "requests the index saw" 2 "$(pkg_request_count pypi)"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.allow.json"
assert_log "the install allowed by the policy's pattern, only the policy's host opened" \
    "$WT_ARTIFACTS/log.allow.json" \
    ".kind == \"package\" and .verdict == \"allow\" and .how == \"policy\" and .rule == \"pip:wardtiny\" and .subject == \"pip install wardtiny (1 package) -> /work/lib; hosts $PKG_PYPI_HOST\" and (.request_id // 0) == 0"
assert_log "the connects to the index allowed as the install's registry" \
    "$WT_ARTIFACTS/log.allow.json" \
    '.kind == "connect" and .subject == "pypi.test (203.0.113.10):8091" and .verdict == "allow" and ((.rule // "") | test("approved pip install"))'

note "--- the same, with the index on the command line: asked"
prog="
export PIP_CONFIG_FILE=/dev/null
$pipx || exit
PYTHONPATH=/work/lib python3 -c 'import wardtiny; print(\"import:\", wardtiny.MESSAGE)'"
ward_bg "$WT_ARTIFACTS/out.allow-i" "$WT_ARTIFACTS/err.allow-i" \
    run --headless --timeout 90 --policy "$WT_SCRATCH/allow.ini" -- sh -c "$prog"
wait_package "$WT_ARTIFACTS/err.allow-i" 60
# [manager pip] hosts replaces pypi.org and files.pythonhosted.org
assert_subject "the subject names the index; the hosts are the policy's" \
    "^pip install wardtiny \\(1 package\\) -> /work/lib; index ${PKG_PYPI_INDEX//./\\.}; hosts ${PKG_PYPI_HOST//./\\.}\$"
ward_answer approve
ward_wait 90
show "program output" "$WT_ARTIFACTS/out.allow-i"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "python imports it inside" "^import: $PKG_PY_MESSAGE\\r?\$" "$WT_ARTIFACTS/out.allow-i"
assert_only_package_requests "$WT_ARTIFACTS/err.allow-i" 1
assert_eq "requests the index saw in all" 4 "$(pkg_request_count pypi)"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.allow-i.json"
assert_log "the install allowed by a person" "$WT_ARTIFACTS/log.allow-i.json" \
    ".kind == \"package\" and .verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ\")"
pkg_no_real_registry
finish
