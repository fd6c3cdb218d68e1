#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the sandbox gets when the policy names a [secret] (issue 19), with
# no network at all: the secret's NAME holds a per-run phantom, never the
# value; SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, GIT_SSL_CAINFO
# name the system bundle, which shows the host's CAs and one more (the
# run's), read-only; NODE_EXTRA_CA_CERTS names /run/ward/ca.pem, the run's
# CA alone; these override [run] env's. A secret whose env: is unset is
# skipped with one line (issue 30: a subscription login inside); one
# whose source fails stops the run before it starts (exit 125, the gate's
# words). A policy with no
# secret and no HTTP rule: no gate, [run] env's values pass as before.
. "$(dirname "$0")/lib.sh"

value="w19-value-$$-$RANDOM"
bundle=/etc/ssl/certs/ca-certificates.crt
[ -r "$bundle" ] || skip "no $bundle on this host (ca-certificates)"
host_certs=$(grep -c 'BEGIN CERTIFICATE' "$bundle")

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'env = SSL_CERT_FILE W19_OTHER' '[files]' 'write = deny' \
    '[secret TOKEN]' 'from = env:W19_TOKEN' 'hosts = api.test:443' \
    'header = x-api-key: {}'
prog='
echo "token=$TOKEN"
for v in SSL_CERT_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO NODE_EXTRA_CA_CERTS W19_OTHER; do
	eval "echo $v=\${$v-unset}"
done
echo "bundle=$(grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt)"
echo "ca=$(grep -c "BEGIN CERTIFICATE" /run/ward/ca.pem)"
echo "gate-bundle=$(grep -c "BEGIN CERTIFICATE" /run/ward/bundle.pem)"
if (echo x >>/etc/ssl/certs/ca-certificates.crt) 2>/dev/null; then echo bundle-writable; fi
if (echo x >>/run/ward/ca.pem) 2>/dev/null; then echo ca-writable; fi
tr "\0" "\n" </proc/self/environ >/out/environ
echo done'

# The source unset: skipped, one line, no TOKEN in the sandbox.
ward_fg "$WT_ARTIFACTS/out.unset" "$WT_ARTIFACTS/err.unset" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- \
    sh -c 'echo "token=${TOKEN-unset}"'
assert_eq "exit status with the secret unset" 0 "$WT_STATUS"
assert_grep "one line says it is skipped" \
    '^ward: secret TOKEN is not set: skipped; log in on the host or set it$' \
    "$WT_ARTIFACTS/err.unset"
assert_grep "no TOKEN in the sandbox" '^token=unset\r?$' "$WT_ARTIFACTS/out.unset"

# The source fails: no run.
write_policy "$WT_SCRATCH/fail.ini" '[files]' 'write = deny' \
    '[secret TOKEN]' 'from = command:exit 3' 'hosts = api.test:443' \
    'header = x-api-key: {}'
st=0
"$WARD" run --headless --policy "$WT_SCRATCH/fail.ini" -- true \
    >"$WT_ARTIFACTS/out.fail" 2>"$WT_ARTIFACTS/err.fail" </dev/null || st=$?
assert_eq "exit status when the secret cannot be read" 125 "$st"
assert_grep "the gate's words name the secret and its source" \
    '\[secret TOKEN\] from = command:exit 3: exited with 3' \
    "$WT_ARTIFACTS/err.fail"
assert_no_grep "the run never started" 'started' "$WT_ARTIFACTS/err.fail"

# The secret set, and [run] env passing SSL_CERT_FILE of the caller's.
W19_TOKEN=$value SSL_CERT_FILE=/nonexistent/caller.pem W19_OTHER=kept \
    ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- sh -c "$prog"
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
assert_grep "TOKEN holds a phantom" '^token=ward-phantom-[0-9a-f]{16,}\r?$' \
    "$WT_ARTIFACTS/out"
for v in SSL_CERT_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO; do
	assert_grep "$v names the system bundle (over [run] env's)" \
	    "^$v=$bundle\\r?\$" "$WT_ARTIFACTS/out"
done
assert_grep "NODE_EXTRA_CA_CERTS names the CA alone" \
    '^NODE_EXTRA_CA_CERTS=/run/ward/ca\.pem\r?$' "$WT_ARTIFACTS/out"
assert_grep "[run] env's other variable passes" '^W19_OTHER=kept\r?$' \
    "$WT_ARTIFACTS/out"
assert_grep "the system bundle: the host's CAs and the run's" \
    "^bundle=$((host_certs + 1))\\r?\$" "$WT_ARTIFACTS/out"
assert_grep "/run/ward/bundle.pem: the same" \
    "^gate-bundle=$((host_certs + 1))\\r?\$" "$WT_ARTIFACTS/out"
assert_grep "/run/ward/ca.pem: one CA" '^ca=1\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "the bundle is read-only" 'writable' "$WT_ARTIFACTS/out"
assert_eq "the host's bundle is untouched" "$host_certs" \
    "$(grep -c 'BEGIN CERTIFICATE' "$bundle")"
phantom=$(sed -nE 's/^token=(ward-phantom-[0-9a-f]+)\r?$/\1/p' "$WT_ARTIFACTS/out")
assert_grep "/proc/self/environ holds the phantom" "^TOKEN=$phantom\$" \
    "$(run_dir "$WT_RUN")/out/environ"
for place in "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR" "$WT_ARTIFACTS"; do
	if grep -rqaF -- "$value" "$place" 2>/dev/null; then
		fail "the secret's value is in $place"
		grep -rlaF -- "$value" "$place" | sed 's/^/  | /'
	else
		note "ok: the value is nowhere in $place"
	fi
done

# [run] env naming the variable a secret is read from (from = env:W19_SRC):
# not passed, or the value itself would be in the sandbox.
write_policy "$WT_SCRATCH/src.ini" \
    '[run]' 'env = W19_SRC W19_OTHER' '[files]' 'write = deny' \
    '[secret TOKEN]' 'from = env:W19_SRC' 'hosts = api.test:443' \
    'header = x-api-key: {}'
W19_SRC=$value W19_OTHER=kept ward_fg "$WT_ARTIFACTS/out.src" \
    "$WT_ARTIFACTS/err.src" run --headless --policy "$WT_SCRATCH/src.ini" \
    -- sh -c 'echo "src=${W19_SRC-unset}"; echo "other=$W19_OTHER"; echo "token=$TOKEN"; tr "\0" "\n" </proc/self/environ >/out/environ'
show "program output (env: source in [run] env)" "$WT_ARTIFACTS/out.src"
assert_eq "exit status (env: source in [run] env)" 0 "$WT_STATUS"
assert_grep "the secret's source variable is not passed" '^src=unset\r?$' \
    "$WT_ARTIFACTS/out.src"
assert_grep "[run] env's other variable still passes" '^other=kept\r?$' \
    "$WT_ARTIFACTS/out.src"
assert_grep "TOKEN holds a phantom (env: source in [run] env)" \
    '^token=ward-phantom-[0-9a-f]{16,}\r?$' "$WT_ARTIFACTS/out.src"
if grep -qaF -- "$value" "$WT_ARTIFACTS/out.src" \
    "$(run_dir "$WT_RUN")/out/environ"; then
	fail "the secret's value reached the sandbox through [run] env"
else
	note "ok: the value is not in the sandbox's environment"
fi

# No secret, no HTTP rule: no gate, nothing of it in the sandbox.
write_policy "$WT_SCRATCH/plain.ini" '[run]' 'env = SSL_CERT_FILE' \
    '[files]' 'write = deny'
SSL_CERT_FILE=/nonexistent/caller.pem ward_fg "$WT_ARTIFACTS/out.plain" \
    "$WT_ARTIFACTS/err.plain" run --headless --policy "$WT_SCRATCH/plain.ini" \
    -- sh -c 'echo "SSL_CERT_FILE=$SSL_CERT_FILE"; echo "NODE=${NODE_EXTRA_CA_CERTS-unset}"; [ -e /run/ward ] && echo run-ward; echo "bundle=$(grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt)"'
assert_eq "exit status without a gate" 0 "$WT_STATUS"
assert_grep "[run] env's SSL_CERT_FILE passes" \
    '^SSL_CERT_FILE=/nonexistent/caller\.pem\r?$' "$WT_ARTIFACTS/out.plain"
assert_grep "no NODE_EXTRA_CA_CERTS" '^NODE=unset\r?$' "$WT_ARTIFACTS/out.plain"
assert_no_grep "no /run/ward" 'run-ward' "$WT_ARTIFACTS/out.plain"
assert_grep "the host's bundle as it is" "^bundle=$host_certs\\r?\$" \
    "$WT_ARTIFACTS/out.plain"
finish
