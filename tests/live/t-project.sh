#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --project DIR: the project at its own path inside, writable without a
# request; every change staged in the run's projects/0/upper, the host
# folder byte for byte unchanged. Twice: in the overlay (this kernel
# mounts it in a user namespace), and in the copy fallback, forced by the
# test hook WARD_PROJECT_MODE=copy, which must give the same view inside.
# Then a home as the project: its credential stores stay hidden, and no
# copy of them lands in the run folder.
. "$(dirname "$0")/lib.sh"

# path mode type and, for files, sha256: the folder as one text.
listing() {
	(cd "$1" && find . -mindepth 1 ! -name . -printf '%p %m %y\n' | LC_ALL=C sort &&
	    find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
}

make_project() {
	local p=$1
	mkdir -p "$p/sub" "$p/keep"
	printf 'line one\nline two\n' >"$p/text.txt"
	printf '\000\001\002\377binary\000' >"$p/blob.bin"
	echo "to be deleted" >"$p/gone.txt"
	echo "to be renamed" >"$p/old-name.txt"
	printf '#!/bin/sh\necho hi\n' >"$p/tool.sh"
	chmod 644 "$p/tool.sh"
	echo "never touched" >"$p/keep/same.txt"
	echo "in a folder" >"$p/sub/inner.txt"
	mkdir -p "$p/redo"
	echo "replaced with its folder" >"$p/redo/old.txt"
	chmod 755 "$p" "$p/sub" "$p/keep" "$p/redo"
}

# The scripted agent: in the project, create, edit, delete, rename,
# chmod (text and binary, a new subfolder); then its view into /out.
agent='set -e
cd "$1"
echo "line three" >> text.txt
printf "\003\004" >> blob.bin
printf "\000new\377" > new.bin
echo "created" > created.txt
rm gone.txt
mv old-name.txt new-name.txt
chmod 755 tool.sh
mkdir -p fresh/deeper
echo "deep" > fresh/deeper/file.txt
echo "edited inside" > sub/inner.txt
rm -rf redo
mkdir redo
echo "again" > redo/again.txt
find . -mindepth 1 -printf "%p %m %y\n" | LC_ALL=C sort > /out/view.txt
find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum >> /out/view.txt'

declare -A view
runs=()
for mode in overlay copy; do
	note "--- mode $mode"
	proj=$WT_SCRATCH/proj-$mode
	make_project "$proj"
	real=$(realpath "$proj")
	before=$(listing "$proj")
	err=$WT_ARTIFACTS/err-$mode
	if [ "$mode" = copy ]; then
		WARD_PROJECT_MODE=copy ward_fg "$WT_ARTIFACTS/out-$mode" "$err" \
		    run --headless --project "$proj" -- sh -c "$agent" agent "$real"
	else
		ward_fg "$WT_ARTIFACTS/out-$mode" "$err" \
		    run --headless --project "$proj" -- sh -c "$agent" agent "$real"
	fi
	[ -n "$WT_RUN" ] || { show "ward stderr" "$err"; die "no run started"; }
	assert_eq "$mode: exit status" 0 "$WT_STATUS"
	[ "$WT_STATUS" = 0 ] || show "ward stderr" "$err"
	assert_no_grep "$mode: no request was asked" 'request [0-9]+ pending' "$err"
	assert_eq "$mode: the host folder is byte for byte unchanged" "$before" \
	    "$(listing "$proj")"

	rd=$(run_dir "$WT_RUN")
	up=$rd/projects/0/upper
	assert_eq "$mode: projects.tsv" "$(printf '0\t%s\t%s' "$real" "$mode")" \
	    "$(cat "$rd/projects.tsv")"
	assert_eq "$mode: project.ini host" "host = $real" \
	    "$(grep '^host = ' "$rd/projects/0/project.ini")"
	assert_eq "$mode: project.ini mode" "mode = $mode" \
	    "$(grep '^mode = ' "$rd/projects/0/project.ini")"
	assert_grep "$mode: project.ini started_ms" '^started_ms = [0-9]{13}$' \
	    "$rd/projects/0/project.ini"
	assert_grep "$mode: project.ini settled_ms, once the run ended" \
	    '^settled_ms = [0-9]{13}$' "$rd/projects/0/project.ini"
	[ -d "$rd/projects/0/work" ] && note "ok: $mode: work/ is there" ||
	    fail "$mode: no projects/0/work"
	if [ "$mode" = copy ]; then
		assert_grep "$mode: said at start-up in one line" \
		    "^ward: project $real: staged as a copy \(WARD_PROJECT_MODE=copy\)" "$err"
	else
		assert_no_grep "$mode: no fallback said" 'staged as a copy' "$err"
	fi

	# upper/ holds the changes and only those.
	assert_file_content "$mode: upper text.txt" "$(printf 'line one\nline two\nline three')" "$up/text.txt"
	assert_eq "$mode: upper blob.bin" "$(printf '\000\001\002\377binary\000\003\004' | sha256sum | cut -d' ' -f1)" \
	    "$(sha256sum <"$up/blob.bin" | cut -d' ' -f1)"
	assert_eq "$mode: upper new.bin" "$(printf '\000new\377' | sha256sum | cut -d' ' -f1)" \
	    "$(sha256sum <"$up/new.bin" | cut -d' ' -f1)"
	assert_file_content "$mode: upper created.txt" "created" "$up/created.txt"
	assert_file_content "$mode: upper new-name.txt" "to be renamed" "$up/new-name.txt"
	assert_file_content "$mode: upper fresh/deeper/file.txt" "deep" "$up/fresh/deeper/file.txt"
	assert_file_content "$mode: upper sub/inner.txt" "edited inside" "$up/sub/inner.txt"
	assert_eq "$mode: upper tool.sh's mode" 755 "$(stat -c %a "$up/tool.sh")"
	assert_file_content "$mode: upper tool.sh's bytes" "$(printf '#!/bin/sh\necho hi')" "$up/tool.sh"
	[ -e "$up/keep/same.txt" ] && fail "$mode: an untouched file is in upper/" ||
	    note "ok: $mode: untouched files are not in upper/"
	for gone in gone.txt old-name.txt; do
		if [ "$mode" = overlay ]; then
			assert_eq "$mode: $gone is a whiteout (char 0:0)" "c 0:0" \
			    "$(stat -c '%F' "$up/$gone" | sed 's/character special file/c/') $(stat -c '%t:%T' "$up/$gone")"
		else
			assert_eq "$mode: $gone is a .wh. marker" "regular empty file 0" \
			    "$(stat -c '%F %s' "$up/.wh.$gone")"
			[ -e "$up/$gone" ] && fail "$mode: $gone still in upper/" || true
		fi
	done
	# A folder deleted and made anew: its old entries are gone.
	assert_file_content "$mode: upper redo/again.txt" "again" "$up/redo/again.txt"
	if [ "$mode" = overlay ]; then
		assert_eq "$mode: redo/ is opaque (user.overlay.opaque)" "y" \
		    "$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.overlay.opaque").decode())' "$up/redo" 2>&1)"
	else
		assert_eq "$mode: redo/old.txt is a .wh. marker" "regular empty file 0" \
		    "$(stat -c '%F %s' "$up/redo/.wh.old.txt")"
	fi
	runs+=("$WT_RUN")
	view[$mode]=$(cat "$rd/out/view.txt")
	[ -n "${view[$mode]}" ] || fail "$mode: the agent wrote no view"
done
assert_eq "the copy gives the same view inside as the overlay" "${view[overlay]}" "${view[copy]}"

# A home as the project: its stores stay hidden, in both modes.
for mode in overlay copy; do
	note "--- a home as the project, mode $mode"
	h=$WT_SCRATCH/home-$mode
	mkdir -p "$h/.ssh" "$h/code"
	echo "SECRET-KEY-$mode" >"$h/.ssh/id_test"
	echo "code" >"$h/code/main.c"
	chmod 700 "$h/.ssh"
	chmod 755 "$h" "$h/code"
	real=$(realpath "$h")
	err=$WT_ARTIFACTS/err-home-$mode
	out=$WT_ARTIFACTS/out-home-$mode
	script='cat "$1/.ssh/id_test" 2>/dev/null || echo unreadable
		echo changed > "$1/code/main.c" && echo wrote'
	if [ "$mode" = copy ]; then
		HOME=$h WARD_PROJECT_MODE=copy ward_fg "$out" "$err" run --headless \
		    --project "$h" -- sh -c "$script" agent "$real"
	else
		HOME=$h ward_fg "$out" "$err" run --headless \
		    --project "$h" -- sh -c "$script" agent "$real"
	fi
	[ -n "$WT_RUN" ] || { show "ward stderr" "$err"; die "no run started"; }
	assert_eq "home $mode: exit status" 0 "$WT_STATUS"
	assert_no_grep "home $mode: the key is not shown inside" "SECRET-KEY" "$out"
	assert_grep "home $mode: the project is writable" '^wrote' "$out"
	rd=$(run_dir "$WT_RUN")
	if grep -rqs "SECRET-KEY" "$rd"; then
		fail "home $mode: a copy of the key is in the run folder"
	else
		note "ok: home $mode: no copy of the key in the run folder"
	fi
	assert_file_content "home $mode: the host's file unchanged" "code" "$h/code/main.c"
	assert_file_content "home $mode: staged" "changed" "$rd/projects/0/upper/code/main.c"
	runs+=("$WT_RUN")
done

# --chdir into a project, in both modes (a copy is bound from the run
# folder: the project is named by its own path all the same).
for mode in overlay copy; do
	proj=$WT_SCRATCH/proj-$mode
	real=$(realpath "$proj")
	WARD_PROJECT_MODE=$mode ward_fg "$WT_ARTIFACTS/cd-out-$mode" "$WT_ARTIFACTS/cd-err-$mode" \
	    run --headless --project "$proj" --chdir "$proj" -- sh -c 'pwd; ls keep'
	assert_eq "$mode: --chdir into the project" 0 "$WT_STATUS"
	assert_eq "$mode: starts there" "$(printf '%s\nsame.txt' "$real")" \
	    "$(tr -d '\r' <"$WT_ARTIFACTS/cd-out-$mode")"
	runs+=("$WT_RUN")
done

# [files] project in the policy, ~/ in $HOME, after --project's.
mkdir -p "$HOME/pol-proj" && echo "from the policy" >"$HOME/pol-proj/p.txt"
chmod 755 "$HOME" "$HOME/pol-proj"
printf '[files]\nproject = ~/pol-proj\n' >"$WT_SCRATCH/project.ini"
ward_fg "$WT_ARTIFACTS/pol-out" "$WT_ARTIFACTS/pol-err" run --headless \
    --policy "$WT_SCRATCH/project.ini" --project "$WT_SCRATCH/proj-overlay" -- \
    sh -c "echo staged >> '$(realpath "$HOME")/pol-proj/p.txt'"
assert_eq "policy project: exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || { show "ward stderr" "$WT_ARTIFACTS/pol-err"; die "no run started"; }
rd=$(run_dir "$WT_RUN")
assert_eq "policy project: projects.tsv, --project first" \
    "$(printf '0\t%s\toverlay\n1\t%s\toverlay' "$(realpath "$WT_SCRATCH/proj-overlay")" "$(realpath "$HOME/pol-proj")")" \
    "$(cat "$rd/projects.tsv")"
assert_file_content "policy project: the host's file unchanged" "from the policy" "$HOME/pol-proj/p.txt"
assert_file_content "policy project: staged" "$(printf 'from the policy\nstaged')" "$rd/projects/1/upper/p.txt"
runs+=("$WT_RUN")

# A project that holds the run folder (the state folder inside it): a
# copy, said why in one line; ward's state and the home are not copied.
outer=$(dirname "$XDG_STATE_HOME")
ward_fg "$WT_ARTIFACTS/outer-out" "$WT_ARTIFACTS/outer-err" run --headless \
    --project "$outer" -- sh -c "ls '$(realpath "$XDG_STATE_HOME")/ward' | wc -l"
assert_eq "outer project: exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || { show "ward stderr" "$WT_ARTIFACTS/outer-err"; die "no run started"; }
rd=$(run_dir "$WT_RUN")
assert_grep "outer project: said at start-up" \
    "^ward: project $(realpath "$outer"): staged as a copy \(the run folder is inside the project" \
    "$WT_ARTIFACTS/outer-err"
assert_eq "outer project: mode copy" "mode = copy" "$(grep '^mode = ' "$rd/projects/0/project.ini")"
assert_eq "outer project: ward's state is hidden inside" 0 "$(tr -d '\r ' <"$WT_ARTIFACTS/outer-out")"
sname=$(basename "$XDG_STATE_HOME")
[ -e "$rd/projects/0/upper/$sname/ward" ] && fail "outer project: ward's state was copied" ||
    note "ok: outer project: ward's state not copied"
runs+=("$WT_RUN")

# Refused before anything runs (exit 125, said why): no such folder, a
# file, the same folder twice.
echo "a file" >"$WT_SCRATCH/not-a-folder"
for bad in "$WT_SCRATCH/nosuch|No such file or directory" \
    "$WT_SCRATCH/not-a-folder|not a folder" \
    "$WT_SCRATCH/proj-overlay --project $WT_SCRATCH/proj-overlay/|given twice"; do
	# shellcheck disable=SC2086
	ward_fg "$WT_ARTIFACTS/bad-out" "$WT_ARTIFACTS/bad-err" run --headless \
	    --project ${bad%%|*} -- true
	assert_eq "--project ${bad%%|*}: refused" 125 "$WT_STATUS"
	assert_grep "--project ${bad%%|*}: says ${bad#*|}" "${bad#*|}" "$WT_ARTIFACTS/bad-err"
done

# ward gc removes a project's run folder whole (whiteouts, the overlay's
# work/work of mode 000, files of the program's uid).
ward_fg "$WT_ARTIFACTS/gc-out" "$WT_ARTIFACTS/gc-err" gc --older-than 0
assert_eq "ward gc: exit status" 0 "$WT_STATUS"
for r in "${runs[@]}"; do
	[ -e "$(run_dir "$r")" ] && fail "ward gc left $(run_dir "$r")" ||
	    note "ok: ward gc removed run $r"
done
finish
