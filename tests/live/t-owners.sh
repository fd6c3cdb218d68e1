#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Folders keep their owners: as root (the program is uid 1000000) a
# root-owned writable folder is writable inside and the files made there
# belong to root on the host, and git trusts a root-owned --in repository
# (idmapped mounts); as a user (the program is that user) the same holds
# with no idmap at all.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || die "git is missing (.ci/run installs it)"
me=$(id -u)
x=$WT_SCRATCH/srv/x
repo=$WT_SCRATCH/srv/repo
mkdir -p "$x" "$repo"
chmod 755 "$x" "$repo"
printf 'old\n' >"$x/f"
git -C "$repo" init -q
printf 'tracked\n' >"$repo/a"
git -C "$repo" -c user.email=t@t -c user.name=t add a
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm one
printf 'changed\n' >"$repo/a"
assert_eq "the folder's owner" "$me" "$(stat -c %u "$x")"

# (--no-optional-locks: a plain git status would refresh the index, a
# write in a read-only --in folder, and ask for it)
write_policy "$WT_SCRATCH/policy.ini" '[files]' "writable = $x"
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$repo" -- \
    sh -c "id -u; stat -c 'owner %u' '$x' '$repo'; echo new > '$x/g' && echo more >> '$x/f' && mkdir '$x/d' && cd '$repo' && git --no-optional-locks status --porcelain"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err"
show "inside" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
inner=$(head -n 1 "$WT_ARTIFACTS/out" | tr -d '\r')
[ "$me" = 0 ] && assert_eq "the program's uid (ward as root)" 1000000 "$inner"
[ "$me" != 0 ] && assert_eq "the program's uid (ward as a user)" "$me" "$inner"
assert_eq "the writable folder shows as the program's" "owner $inner" \
    "$(sed -n 2p "$WT_ARTIFACTS/out" | tr -d '\r')"
assert_eq "the --in repository shows as the program's" "owner $inner" \
    "$(sed -n 3p "$WT_ARTIFACTS/out" | tr -d '\r')"
assert_file_content "the new file is on the host" "new" "$x/g"
assert_file_content "the old file grew" "$(printf 'old\nmore')" "$x/f"
assert_eq "the new file belongs to the folder's owner" "$me" \
    "$(stat -c %u "$x/g" 2>/dev/null || echo gone)"
assert_eq "the new folder belongs to the folder's owner" "$me" \
    "$(stat -c %u "$x/d" 2>/dev/null || echo gone)"
assert_grep "git status works in the --in repository" '^ M a\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "git trusts it" 'dubious ownership' "$WT_ARTIFACTS/err"
assert_no_grep "no request was asked" 'request [0-9]+ pending' "$WT_ARTIFACTS/err"
assert_no_grep "no idmap note" 'cannot map' "$WT_ARTIFACTS/err"

# A filesystem that cannot be idmapped (ramfs), as root: said at start-up,
# in one line, and the run goes on with the folder as it is.
if [ "$me" = 0 ]; then
	ram=$WT_SCRATCH/srv/ram
	mkdir -p "$ram"
	if mount -t ramfs ward-live-ram "$ram"; then
		trap 'umount "$ram" 2>/dev/null || true; wt_cleanup' EXIT
		printf 'ram\n' >"$ram/f"
		ward_fg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3" \
		    run --headless --in "$ram" -- cat "$ram/f"
		show "ward stderr (ramfs)" "$WT_ARTIFACTS/err3"
		assert_eq "exit status (ramfs)" 0 "$WT_STATUS"
		assert_grep "the folder is still shown" '^ram\r?$' "$WT_ARTIFACTS/out3"
		assert_eq "one line says it cannot be mapped" 1 \
		    "$(grep -c "^ward: $ram: owned by uid 0, which this kernel or filesystem cannot map" "$WT_ARTIFACTS/err3")"
		umount "$ram"
	else
		fail "cannot mount a ramfs on $ram"
	fi
else
	note "(not root: nothing is mapped, and there is nothing to say)"
fi
finish
