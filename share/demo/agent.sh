#!/bin/sh
# A pretend coding agent, for `ward demo`. It works inside the sandbox,
# writes its results to /out, and twice tries to change something outside
# (a file in a host folder it was shown read-only, and /etc), so that the
# console has requests to approve or deny. WARD_DEMO_DIR names the folder.
set -u
say() { printf '\033[1;36magent:\033[0m %s\n' "$*"; sleep 1; }

say "reading the task"
say "working in $(pwd) as uid $(id -u)"
mkdir -p /work/src
printf 'def add(a, b):\n    return a + b\n' > /work/src/calc.py
say "wrote /work/src/calc.py (inside the sandbox: no question asked)"
printf 'tests: 3 passed\n' > /out/report.txt
say "wrote /out/report.txt (the output folder: no question asked)"

say "now updating ${WARD_DEMO_DIR}/notes.txt on the host -- this needs you"
if echo "agent was here: $(date)" >> "${WARD_DEMO_DIR}/notes.txt"; then
	say "notes.txt updated"
else
	say "could not update notes.txt (denied)"
fi

say "and trying to install a helper into /etc -- deny this one"
if echo 'alias ls=rm' 2>/dev/null > /etc/ward-demo-profile; then
	say "/etc/ward-demo-profile written"
else
	say "/etc/ward-demo-profile refused"
fi

# A hostile string: the console shows these bytes, it does not obey them.
printf 'agent: escape test: \033]0;pwned\007 \342\200\256txt.exe\n'
say "done; results in /out"
