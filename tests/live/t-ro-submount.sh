#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A mount below a host folder the sandbox sees read-only (run-all.sh, as
# root, puts a writable tmpfs below /var) is read-only inside too, as the
# kernel's mount table of the sandbox says, and a write to it leaves the
# host's side untouched.
. "$(dirname "$0")/lib.sh"

[ -n "${WT_SUBMOUNT:-}" ] ||
	skip "no submount fixture: run-all.sh makes one only when run as root"
[ -w "$WT_SUBMOUNT" ] || die "$WT_SUBMOUNT is not writable on the host"

policy=$WT_SCRATCH/policy.ini
printf '[files]\nwrite = deny\n' >"$policy"
prog='
cat /proc/self/mountinfo > /out/mountinfo
echo x > "$1/canary" 2>/dev/null && echo "WROTE" || echo "REFUSED"'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$policy" -- sh -c "$prog" sh "$WT_SUBMOUNT"
assert_eq "exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || die "no run id"
assert_grep "the write is refused" '^REFUSED' "$WT_ARTIFACTS/out"
[ ! -e "$WT_SUBMOUNT/canary" ] || fail "the canary was written on the host"

mi=$(run_dir "$WT_RUN")/out/mountinfo
[ -s "$mi" ] || die "no mount table in $mi"
cp "$mi" "$WT_ARTIFACTS/mountinfo"
# field 5: mount point, field 6: per-mount options
opts=$(awk -v m="$WT_SUBMOUNT" '$5 == m { print $6 }' "$mi")
[ -n "$opts" ] || die "$WT_SUBMOUNT is not in the sandbox's mount table"
case ",$opts," in
*,ro,*) note "ok: $WT_SUBMOUNT is mounted $opts inside" ;;
*) fail "$WT_SUBMOUNT is mounted $opts inside, not read-only" ;;
esac
# and every mount under the host folders shown read-only
# but those below a folder this user cannot enter (t-submount-user's
# fixture): left as they are, out of the program's reach as of ours
bad=$(awk -v l="${WT_LOCKED:-/nonexistent}/" '$5 ~ "^/(usr|etc|opt|var)(/|$)" &&
    $6 !~ /(^|,)ro(,|$)/ && !(index($5, l) == 1 && system("test -x " l) != 0) { print $5, $6 }' "$mi")
[ -z "$bad" ] || fail "writable mounts under read-only host folders: $bad"
finish
