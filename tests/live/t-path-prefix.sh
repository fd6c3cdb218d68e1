#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program installed under a prefix of its own (an npm prefix such as
# /opt/agents/bin, ~/.npm-global/bin) is found as on the host: its folder,
# shown with --in, is searched inside (the sandbox's PATH keeps the
# host's shown entries, in the host's order, then ward's own), the
# program runs by its path, and what it runs by name beside it is found
# too. Not shown: one sentence naming the --in, exit 127.
. "$(dirname "$0")/lib.sh"

prefix=$WT_SCRATCH/agents
mkdir -p "$prefix/bin" "$WT_SCRATCH/elsewhere"
cat >"$prefix/bin/wt-agent" <<'SH'
#!/bin/sh
echo "PATH=$PATH"
wt-helper
SH
printf '#!/bin/sh\necho "helper found by name"\n' >"$prefix/bin/wt-helper"
chmod 0755 "$prefix/bin/wt-agent" "$prefix/bin/wt-helper"
chmod a+rx "$WT_SCRATCH" "$prefix" "$prefix/bin"
hostpath=$prefix/bin:$WT_SCRATCH/elsewhere:$PATH

# Shown with --in: found, and the helper by name.
PATH=$hostpath ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --in "$prefix" -- wt-agent
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program's folder is first in its PATH, as on the host" \
    "^PATH=$prefix/bin:" "$WT_ARTIFACTS/out"
assert_no_grep "a folder the sandbox does not show is left out" \
    "$WT_SCRATCH/elsewhere" "$WT_ARTIFACTS/out"
assert_grep "ward's own entries follow" ':/work/\.npm-global/bin' "$WT_ARTIFACTS/out"
assert_grep "a program beside it is found by name" '^helper found by name$' \
    "$WT_ARTIFACTS/out"

# Not shown: the sentence names the --in, exit 127, nothing ran.
PATH=$hostpath ward_fg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless -- wt-agent
assert_eq "not shown: exit status" 127 "$WT_STATUS"
assert_grep "one sentence naming the --in" \
    "^ward: cannot run wt-agent: No such file or directory \\(the host's PATH finds $prefix/bin/wt-agent, in a folder the sandbox does not show: add --in $prefix/bin\\)" \
    "$WT_ARTIFACTS/err2"
assert_no_grep "nothing ran" 'helper' "$WT_ARTIFACTS/out2"

# The first of two on the host's PATH is the one run, as on the host.
mkdir -p "$WT_SCRATCH/first"
printf '#!/bin/sh\necho "the first one"\n' >"$WT_SCRATCH/first/wt-agent"
chmod 0755 "$WT_SCRATCH/first/wt-agent"
chmod a+rx "$WT_SCRATCH/first"
PATH=$WT_SCRATCH/first:$hostpath ward_fg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3" \
    run --headless --in "$prefix" --in "$WT_SCRATCH/first" -- wt-agent
assert_eq "two on PATH: exit status" 0 "$WT_STATUS"
assert_grep "the host's first is run" '^the first one$' "$WT_ARTIFACTS/out3"
finish
