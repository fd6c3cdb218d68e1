#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 29, item 8: `ward apply` checks size and room before it writes,
# and keeps sparse files sparse. A real --project run stages a 1.5 GiB
# sparse file with 1 MiB of data, a 12 MiB file of real data and a small
# one. Then, from outside:
#   - `ward diff --stat` shows each file's size; the sparse one is held
#     (over the default [review] max_apply, 1 GiB), and so said;
#   - with the project folder on an 8 MiB tmpfs (a mount namespace of
#     our own), `ward apply RUN` refuses before writing anything: it
#     names the bytes needed and free, exit 1, the tmpfs as it was, every
#     file still staged, nothing in the record;
#   - on the real folder, `ward apply RUN` applies the two others and
#     leaves the sparse one staged; `ward apply RUN PATH` (named) applies
#     it: the same bytes, and at most 2 MiB of blocks on the host (main
#     before issue 29 wrote all 1.5 GiB of them);
#   - a policy with `max_apply = 1024` (1 KiB, surely 1024M) is refused
#     with its file and line, and no run starts.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || { [ "${CI:-}" = true ] && die "no sqlite3"; skip "no sqlite3"; }
umask 022
own_mount_ns

P=$WT_SCRATCH/proj
mkdir -p "$P"
echo "host" >"$P/keep.txt"
real=$(realpath "$P")

agent='set -e
cd "$1"
truncate -s 1536M sparse.dat
head -c 1048576 /dev/urandom | dd of=sparse.dat bs=1M seek=100 conv=notrunc 2>/dev/null
head -c 12582912 /dev/urandom > mid.bin
echo small > small.txt'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" run --headless --project "$P" -- \
    sh -c "$agent" agent "$real"
assert_eq "the run's status" 0 "$WT_STATUS"
RID=$WT_RUN
U=$(run_dir "$RID")/projects/0/upper
[ -f "$U/sparse.dat" ] || { show "ward stderr" "$WT_ARTIFACTS/err"; die "nothing staged"; }
note "staged sparse.dat: $(stat -c '%s bytes, %b blocks' "$U/sparse.dat")"
cp --sparse=always "$U/sparse.dat" "$WT_SCRATCH/sparse.ref"
mid_sum=$(sha256sum <"$U/mid.bin")

# --- sizes, and what is held --------------------------------------------
ward_fg "$WT_SCRATCH/stat" "$WT_ARTIFACTS/err.stat" diff --stat "$RID"
show "ward diff --stat" "$WT_SCRATCH/stat"
assert_grep "--stat: the sparse file's size" '^ sparse\.dat \(added\) \| Bin 1610612736 bytes \(1\.5 GiB\)$' "$WT_SCRATCH/stat"
assert_grep "--stat: mid.bin's size" '^ mid\.bin \(added\) \| Bin 12582912 bytes \(12\.0 MiB\)$' "$WT_SCRATCH/stat"
assert_grep "--stat: the sparse file held" '^   held: 1\.5 GiB, over \[review\] max_apply \(1\.0 GiB\)' "$WT_SCRATCH/stat"
assert_eq "--stat: one held" 1 "$(grep -c '^   held: ' "$WT_SCRATCH/stat" || true)"

# --- no room: nothing written --------------------------------------------
cat >"$WT_SCRATCH/inner.sh" <<'INNER'
set -u
if [ -z "${MOUNTED:-}" ]; then
	mount -t tmpfs -o size=8m,mode=0777 tmpfs "$PROJ" || exit 97
	echo "host" >"$PROJ/keep.txt"
	export MOUNTED=1
	# shellcheck disable=SC2086
	[ -z "${BACK:-}" ] || exec $BACK bash "$0"
fi
st=0
"$WARD" apply "$RID" >"$ART/room.out" 2>"$ART/room.err" </dev/null || st=$?
echo "$st" >"$ART/room.status"
(cd "$PROJ" && find . -mindepth 1 -printf '%p %s\n' | LC_ALL=C sort) >"$ART/room.tree"
df -B1 --output=used "$PROJ" | tail -n 1 >"$ART/room.used"
INNER
PROJ=$real RID=$RID WARD=$WARD ART=$WT_SCRATCH BACK="${back[*]}" \
    "${ns[@]}" bash "$WT_SCRATCH/inner.sh" || die "the namespace's script failed ($?)"
show "apply on an 8 MiB tmpfs" "$WT_SCRATCH/room.err"
assert_eq "no room: apply's status" 1 "$(cat "$WT_SCRATCH/room.status")"
assert_grep "no room: needed and free named" "^ward: apply: no room: 12\\.0 MiB needed on the file system of $real, [0-9.]+ [KM]iB free; nothing applied" "$WT_SCRATCH/room.err"
assert_eq "no room: the tmpfs as it was" "./keep.txt 5" "$(cat "$WT_SCRATCH/room.tree")"
assert_no_grep "no room: nothing said applied" '^applied ' "$WT_SCRATCH/room.out"
assert_eq "no room: the record has no change" 0 "$(sql "SELECT count(*) FROM changes WHERE run = '$RID'")"
assert_eq "no room: all still staged" "mid.bin small.txt sparse.dat" "$(cd "$U" && ls | tr '\n' ' ' | sed 's/ $//')"

# --- room: the two applied, the big one held ----------------------------
ward_fg "$WT_SCRATCH/apply" "$WT_ARTIFACTS/err.apply" apply "$RID"
show "ward apply" "$WT_SCRATCH/apply"
assert_eq "apply's status" 0 "$WT_STATUS"
assert_eq "mid.bin applied, the same bytes" "$mid_sum" "$(sha256sum <"$P/mid.bin" 2>/dev/null)"
assert_file_content "small.txt applied" "small" "$P/small.txt"
assert_absent "sparse.dat held" "$P/sparse.dat"
assert_grep "apply says why and how" "^left staged: $real/sparse\\.dat: 1\\.5 GiB, over \\[review\\] max_apply \\(1\\.0 GiB\\); 'ward apply $RID $real/sparse\\.dat' applies it$" "$WT_SCRATCH/apply"

# --- named: applied, holes kept -----------------------------------------
t0=$(now_ms)
ward_fg "$WT_SCRATCH/apply2" "$WT_ARTIFACTS/err.apply2" apply "$RID" "$real/sparse.dat"
note "apply of the sparse file: $(($(now_ms) - t0)) ms"
assert_eq "named: apply's status" 0 "$WT_STATUS"
assert_eq "named: its size" 1610612736 "$(stat -c %s "$P/sparse.dat" 2>/dev/null)"
blocks=$(stat -c %b "$P/sparse.dat" 2>/dev/null || echo 999999999)
note "host blocks of sparse.dat: $blocks (512 B each)"
if [ "$blocks" -le 4096 ]; then
	note "ok: sparse.dat kept sparse on the host (at most 2 MiB of blocks)"
else
	fail "sparse.dat took $blocks blocks on the host: its holes were written"
fi
if cmp -s "$P/sparse.dat" "$WT_SCRATCH/sparse.ref"; then
	note "ok: sparse.dat's bytes are the staged ones"
else
	fail "sparse.dat differs from what was staged"
fi

# --- an absurd max_apply fails the policy with file:line ----------------
write_policy "$WT_SCRATCH/bad.ini" '[review]' 'max_apply = 1024'
ward_fg "$WT_SCRATCH/bad.out" "$WT_SCRATCH/bad.err" run --headless --policy "$WT_SCRATCH/bad.ini" -- true
assert_ne "max_apply = 1024: no run" 0 "$WT_STATUS"
assert_grep "max_apply = 1024: file, line, why" 'bad\.ini:2: \[review\] max_apply: "1024" is 1 KiB, below the 1M minimum; did you mean 1024M\?' "$WT_SCRATCH/bad.err"
finish
