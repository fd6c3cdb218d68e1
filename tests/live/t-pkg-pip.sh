#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real pip install, end to end, from the fake world's PyPI index
# (pypi.test:8091, pkg-registry.py): the exec becomes a package request
# naming pip, wardtiny and the index host; nothing reaches the index, nor
# its name the name server, before the answer; `ward approve` lets pip run
# and reach the index (no connect or dns request of its own), the module
# lands in the run folder and imports inside; the record has the install
# allowed by a person, with manager, package and hosts, and the connects
# to the index allowed as the install's registry. Twice: with
# `python3 -m pip install --target /work/lib` (Debian's pip refuses a
# system install, PEP 668), and with the pip of a venv made in /work
# (`python3 -m venv` runs ensurepip as `python -c ...`: a local install of
# its bundled wheels that ward does not ask about).
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/pkg-lib.sh"
pkg_test_init pip

write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 60'
uid=$(id -u)
n_index=0

for how in target venv; do
	note "--- $how"
	case $how in
	target)
		prog="
export PIP_CONFIG_FILE=/dev/null
python3 -m pip install $PKG_PIP_OPTS --target /work/lib wardtiny || exit
PYTHONPATH=/work/lib python3 -c 'import wardtiny; print(\"import:\", wardtiny.MESSAGE)'"
		lands=' -> /work/lib'
		pip_cmd='^python3 -m pip install '
		;;
	venv)
		prog="
export PIP_CONFIG_FILE=/dev/null
python3 -m venv /work/venv || exit
/work/venv/bin/pip install $PKG_PIP_OPTS wardtiny || exit
/work/venv/bin/python -c 'import wardtiny; print(\"import:\", wardtiny.MESSAGE)'"
		lands=''	# a venv is pip's default place: not named
		pip_cmd='^/work/venv/bin/pip install '
		;;
	esac
	dns_before=$(dns_queries pypi.test)
	t0=$(now_ms)
	ward_bg "$WT_ARTIFACTS/out.$how" "$WT_ARTIFACTS/err.$how" \
	    run --headless --timeout 120 --policy "$WT_SCRATCH/policy.ini" \
	    -- sh -c "$prog"
	wait_package "$WT_ARTIFACTS/err.$how" 60
	note "the request came $(($(now_ms) - t0)) ms after the start"
	assert_subject "the subject names pip, wardtiny, the index and its host" \
	    "^pip install wardtiny \\(1 package\\)${lands}; index ${PKG_PYPI_INDEX//./\\.}; hosts (.* )?${PKG_PYPI_HOST//./\\.}( |\$)"
	assert_ne "pending pid" 0 "$WT_REQ_PID"
	assert_pending_listed
	sleep 0.5
	assert_eq "requests the index saw before the answer" "$n_index" \
	    "$(pkg_request_count pypi)"
	assert_eq "lookups of pypi.test before the answer" 0 \
	    "$(($(dns_queries pypi.test) - dns_before))"
	t_answer=$(now_ms)
	ward_answer approve
	ward_wait 90
	note "approve to the end of the run: $(($(now_ms) - t_answer)) ms"
	show "program output" "$WT_ARTIFACTS/out.$how"
	assert_eq "exit status" 0 "$WT_STATUS"
	assert_grep "pip installed it" '^Successfully installed wardtiny-1\.0\.0\r?$' \
	    "$WT_ARTIFACTS/out.$how"
	assert_grep "python imports it inside" "^import: $PKG_PY_MESSAGE\\r?\$" \
	    "$WT_ARTIFACTS/out.$how"
	assert_only_package_requests "$WT_ARTIFACTS/err.$how" 1

	# the run folder on the host
	work=$(run_dir "$WT_RUN")/work
	case $how in
	target) mod=$work/lib/wardtiny/__init__.py ;;
	venv) mod=$(ls "$work"/venv/lib/python3*/site-packages/wardtiny/__init__.py 2>/dev/null | head -n 1) ;;
	esac
	assert_file_content "the module in the host run folder (${mod#"$work"/})" \
	    "MESSAGE = \"$PKG_PY_MESSAGE\"" "${mod:-$work/venv/lib/python3*/site-packages/wardtiny/__init__.py}"

	# the index
	n_index=$((n_index + 2))
	assert_registry_saw "the index" pypi /simple/wardtiny/ \
	    /packages/wardtiny-1.0.0-py3-none-any.whl
	assert_eq "requests the index saw in all" "$n_index" "$(pkg_request_count pypi)"
	n=$(($(dns_queries pypi.test) - dns_before))
	[ "$n" -ge 1 ] && note "ok: $n queries for pypi.test reached the name server" ||
	    fail "no query for pypi.test reached the name server"
	pkg_no_real_registry

	# the record
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.$how.json"
	assert_log "the install allowed by a person, uid $uid, with manager, package and hosts" \
	    "$WT_ARTIFACTS/log.$how.json" \
	    ".kind == \"package\" and .syscall == \"execve\" and .verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ\") and (.subject | startswith(\"pip install wardtiny (1 package)\")) and (.subject | test(\"hosts (.* )?pypi\\\\.test:8091\")) and ((.detail // \"\") | test(\"$pip_cmd\")) and ((.decided_by // \"\") | test(\"uid $uid([^0-9]|\$)\")) and .wait_ms > 0"
	assert_eq "package events in the record" 1 \
	    "$(log_count "$WT_ARTIFACTS/log.$how.json" '.kind == "package"')"
	assert_log "the connects to the index allowed as the install's registry" \
	    "$WT_ARTIFACTS/log.$how.json" \
	    '.kind == "connect" and .subject == "pypi.test (203.0.113.10):8091" and .verdict == "allow" and ((.rule // "") | test("approved pip install"))'
	assert_eq "events denied" 0 \
	    "$(log_count "$WT_ARTIFACTS/log.$how.json" '.verdict == "deny"')"
done
finish
