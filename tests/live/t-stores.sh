#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The home's credential stores stay hidden inside an --in or writable
# folder that holds them (the home, or a folder above it); a policy's
# expose shows one entry by name, read-only, and `ward ps --json` says so;
# a parent folder is refused as an expose.
. "$(dirname "$0")/lib.sh"

H=$(realpath "$HOME")
mkdir -p "$H/.ssh" "$H/.aws" "$H/.config/gcloud" "$H/.config/gh" \
    "$H/.mozilla/firefox" "$H/proj"
for f in .ssh/id_ed25519 .aws/credentials .netrc .git-credentials \
    .config/gcloud/creds.json .config/gh/hosts.yml .mozilla/firefox/key4.db \
    .npmrc .pypirc; do
	printf 'SECRET-%s\n' "$f" >"$H/$f"
done
printf 'KNOWN-HOSTS\n' >"$H/.ssh/known_hosts"
printf 'project\n' >"$H/proj/f"
printf 'other-config\n' >"$H/.config/other"

look="cat '$H/proj/f' '$H/.config/other'; ls -A '$H' '$H/.ssh' '$H/.config'; cat '$H/.ssh/id_ed25519' '$H/.ssh/known_hosts' '$H/.aws/credentials' '$H/.netrc' '$H/.git-credentials' '$H/.config/gcloud/creds.json' '$H/.config/gh/hosts.yml' '$H/.mozilla/firefox/key4.db' '$H/.npmrc' '$H/.pypirc' 2>&1; true"

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" run --headless --in "$H" -- sh -c "$look"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status (--in ~)" 0 "$WT_STATUS"
assert_grep "the home's other files show (--in ~)" '^project\r?$' "$WT_ARTIFACTS/out"
assert_grep "~/.config's other files show (--in ~)" '^other-config\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "no credential store shows (--in ~)" 'SECRET|KNOWN-HOSTS' "$WT_ARTIFACTS/out"
cp "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/out-home"

# a folder holding the home: the home is hidden whole (not named)
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" run --headless \
    --in "$(dirname "$H")" -- sh -c "$look"
assert_eq "exit status (--in ~/..)" 0 "$WT_STATUS"
assert_no_grep "nothing of the home shows (--in ~/..)" 'SECRET|KNOWN-HOSTS|project' "$WT_ARTIFACTS/out"

# writable: the stores are hidden and stay untouched on the host
write_policy "$WT_SCRATCH/w.ini" '[files]' "writable = $H"
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/w.ini" -- sh -c \
    "$look; echo planted > '$H/.ssh/authorized_keys'; echo x > '$H/.netrc'; echo made > '$H/proj/g'"
assert_no_grep "no credential store shows (writable)" 'SECRET|KNOWN-HOSTS' "$WT_ARTIFACTS/out"
assert_file_content "the writable home is writable" "made" "$H/proj/g"
assert_absent "nothing planted in the host's ~/.ssh" "$H/.ssh/authorized_keys"
assert_file_content "the host's ~/.netrc untouched" "SECRET-.netrc" "$H/.netrc"

# expose: one entry by name, read-only; the rest of the store stays hidden
write_policy "$WT_SCRATCH/e.ini" '[files]' 'expose = ~/.ssh/known_hosts'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/e.ini" --in "$H" -- sh -c \
    "$look; echo y >> '$H/.ssh/known_hosts'; sleep 30"
wait_for 10 grep -q KNOWN-HOSTS "$WT_ARTIFACTS/out" || true
"$WARD" ps --json >"$WT_ARTIFACTS/ps.json" 2>&1 || true
show "ward ps --json" "$WT_ARTIFACTS/ps.json"
assert_grep "ward ps --json names the exposed entry" "exposed=$H/.ssh/known_hosts" "$WT_ARTIFACTS/ps.json"
"$WARD" kill "$WT_RUN" >/dev/null 2>&1 || true
ward_wait 15
assert_grep "the exposed entry shows" '^KNOWN-HOSTS\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "the rest of the store stays hidden" 'SECRET' "$WT_ARTIFACTS/out"
assert_file_content "the exposed entry is read-only" "KNOWN-HOSTS" "$H/.ssh/known_hosts"

# without --in the exposed entry shows all the same, at its path
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/e.ini" -- sh -c "$look"
assert_grep "the exposed entry shows without --in" '^KNOWN-HOSTS\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "and nothing else of the home" 'SECRET|project' "$WT_ARTIFACTS/out"

# a parent folder is not a way to expose a store
write_policy "$WT_SCRATCH/p.ini" '[files]' 'expose = ~/.config'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/p.ini" -- true
assert_eq "exit status (expose = ~/.config)" 125 "$WT_STATUS"
assert_grep "says why" 'expose: "~/.config" is not a credential store or inside one' "$WT_ARTIFACTS/err"
finish
