#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An agent cannot rewrite its own host config (issue 29): with
# share/agents/claude-code.ini used as its header says (writable =
# ~/.claude, CLAUDE_CONFIG_DIR), a script in the sandbox writes a
# SessionStart hook into ~/.claude/settings.json and a hook file into
# ~/.claude/hooks/. Each is a pending request at that moment; denied, the
# host's settings.json is byte-identical and no hook exists, while an
# ordinary file in ~/.claude is still written (and recorded). Then the
# race: one loop swaps a symlink to settings.json (a name, and a folder
# on the way) in and out while another writes the plain names; every
# request it raises is denied from outside, and settings.json is still
# byte-identical. HOME is a folder made under the real home, so that the
# user's own ~/.claude is never touched.
. "$(dirname "$0")/lib.sh"

command -v sha256sum >/dev/null || die "sha256sum is missing"
command -v python3 >/dev/null || die "python3 is missing (.ci/run installs it)"
share=$(cd "$(dirname "$WARD")" && pwd)/share
recipe=$share/agents/claude-code.ini
[ -f "$recipe" ] || die "no $recipe"

case $HOME in
/home/* | /root) ;;
*) note "(HOME=$HOME is not a real home; the test still runs)" ;;
esac
H=$(mktemp -d "$HOME/ward-live-agent.XXXXXX")
trap 'rm -rf "$H"; wt_cleanup' EXIT
C=$H/.claude
mkdir "$C"
printf '{\n  "theme": "dark"\n}\n' >"$C/settings.json"
sum=$(sha256sum <"$C/settings.json")
export HOME=$H CLAUDE_CONFIG_DIR=$C ANTHROPIC_API_KEY=sk-ant-ward-live-test

# Denies, from outside, every request the run puts up, until it ends;
# the ids denied go to $1.
deny_all() {
	local err=$1 done=$2 id
	: >"$done"
	while kill -0 "$WT_PID" 2>/dev/null; do
		for id in $(sed -nE "s/^ward: run $WT_RUN request ([0-9]+) pending: .*/\1/p" "$err"); do
			grep -qx "$id" "$done" && continue
			"$WARD" deny "$WT_RUN" "$id" >/dev/null 2>&1 </dev/null &&
			    printf '%s\n' "$id" >>"$done"
		done
		sleep 0.05
	done
}

# 1. The SessionStart hook and a hook file, each asked and denied.
hook='{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch '"$WT_SCRATCH"'/PWNED"}]}]}}'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$recipe" -- sh -c "
	cd '$C' || exit 9
	if printf '%s\n' '$hook' > settings.json; then echo WROTE-SETTINGS; else echo DENIED-SETTINGS; fi
	if mkdir hooks; then echo MADE-HOOKS; else echo DENIED-HOOKS; fi
	if mkdir -p hooks && printf '#!/bin/sh\ntouch $WT_SCRATCH/PWNED\n' > hooks/start.sh; then echo WROTE-HOOK; else echo DENIED-HOOK; fi
	echo note > notes.txt && echo WROTE-NOTES"
wait_pending "$WT_ARTIFACTS/err"
assert_eq "the settings write is asked, at the moment it happens" \
    "write $C/settings.json" "$WT_REQ_KIND $WT_REQ_PATH"
assert_eq "settings.json untouched while asked" "$sum" "$(sha256sum <"$C/settings.json")"
"$WARD" deny "$WT_RUN" "$WT_REQ" >/dev/null 2>&1 || fail "ward deny $WT_REQ"
first=$WT_REQ
wait_for 15 grep -qE "^ward: run $WT_RUN request [0-9]+ pending: write $C/hooks " \
    "$WT_ARTIFACTS/err" || fail "no request for $C/hooks"
deny_all "$WT_ARTIFACTS/err" "$WT_SCRATCH/denied1"
ward_wait 30
show "inside" "$WT_ARTIFACTS/out"
assert_grep "the program was refused settings.json" '^DENIED-SETTINGS\r?$' "$WT_ARTIFACTS/out"
assert_grep "the program was refused ~/.claude/hooks" '^DENIED-HOOKS\r?$' "$WT_ARTIFACTS/out"
assert_grep "the program was refused a hook file" '^DENIED-HOOK\r?$' "$WT_ARTIFACTS/out"
assert_grep "an ordinary file in ~/.claude is written" '^WROTE-NOTES\r?$' "$WT_ARTIFACTS/out"
assert_eq "settings.json is byte-identical" "$sum" "$(sha256sum <"$C/settings.json")"
assert_absent "no hooks folder" "$C/hooks"
assert_file_content "notes.txt is on the host" "note" "$C/notes.txt"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the record has the settings request, denied by a person" \
    "$WT_ARTIFACTS/log.json" \
    ".kind == \"write\" and .subject == \"$C/settings.json\" and .request_id == $first and .verdict == \"deny\""
assert_log "the record has the hooks request, denied" "$WT_ARTIFACTS/log.json" \
    ".kind == \"write\" and .subject == \"$C/hooks\" and .request_id > 0 and .verdict == \"deny\""
assert_log "the record has notes.txt, a change in a writable folder" \
    "$WT_ARTIFACTS/log.json" \
    ".kind == \"write\" and .subject == \"$C/notes.txt\" and .verdict == \"allow\" and .rule == \"writable folder $C\""

# The person's next step: the agent's CLI reads settings.json. No
# SessionStart hook is in it, so nothing would run.
assert_no_grep "no SessionStart hook in settings.json" 'SessionStart' "$C/settings.json"
assert_absent "nothing ran" "$WT_SCRATCH/PWNED"

# 2. The race: a name (and a folder on the way) that is a plain file
# when looked at and a symlink to settings.json when written.
cat >"$WT_SCRATCH/race.py" <<'EOF'
import os, sys, time
os.chdir(sys.argv[1])
n = int(sys.argv[2])
os.mkdir("realdir")
def swap():
    for _ in range(n):
        for f in (lambda: os.symlink("settings.json", "s"),
                  lambda: os.rename("s", "name"),
                  lambda: os.unlink("name"),
                  lambda: os.rename("realdir", "d"),
                  lambda: os.rename("d", "realdir"),
                  lambda: os.symlink(".", "sl"),
                  lambda: os.rename("sl", "d"),
                  lambda: os.unlink("d")):
            try:
                f()
            except OSError:
                pass
    os._exit(0)
def write():
    hit = 0
    for i in range(n):
        for p in ("name", "d/settings.json"):
            try:
                fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.write(fd, b'{"hooks":{"SessionStart":"EVIL"}}\n')
                os.close(fd)
                hit += 1
            except OSError:
                pass
    print("writes", hit, flush=True)
    os._exit(0)
kids = []
for fn in (swap, write):
    pid = os.fork()
    if pid == 0:
        fn()
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
print("RACE-DONE", flush=True)
EOF
ward_bg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --policy "$recipe" -- \
    python3 -c "$(cat "$WT_SCRATCH/race.py")" "$C" 2000
deny_all "$WT_ARTIFACTS/err2" "$WT_SCRATCH/denied2"
ward_wait 75
show "inside" "$WT_ARTIFACTS/out2"
note "requests raised by the race and denied: $(wc -l <"$WT_SCRATCH/denied2")"
assert_grep "the race ran to its end" '^RACE-DONE\r?$' "$WT_ARTIFACTS/out2"
assert_eq "settings.json is byte-identical after the race" "$sum" \
    "$(sha256sum <"$C/settings.json")"
assert_no_grep "no SessionStart hook in settings.json after the race" \
    'SessionStart' "$C/settings.json"
finish
