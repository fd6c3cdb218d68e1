#!/bin/sh
# SPDX-License-Identifier: MIT
# Includes flow one way: config <- approvals <- {supervisor, tui, probe}.
# supervisor/ and tui/ never include each other; probe/ includes only
# config/, approvals/ and itself (tui/ includes probe/probe.h alone, to
# dispatch `ward probe`); curses only in tui/, seccomp only in supervisor/.
# Inside supervisor/ the files form a tower (handlers call down, never
# sideways): a file includes only headers of a layer below its own, and
# only sup.c answers the kernel.
fail=0
bad() { echo "layers: $*" >&2; fail=1; }
for f in config/*.[ch]; do
	grep -nE '#include "(approvals|supervisor|tui|probe)/' "$f" && bad "$f reaches up from config/"
done
for f in approvals/*.[ch]; do
	grep -nE '#include "(supervisor|tui|probe)/' "$f" && bad "$f reaches up from approvals/"
done
for f in supervisor/*.[ch]; do
	grep -nE '#include "(tui|probe)/' "$f" && bad "$f includes tui/ or probe/"
done
# ward-gate (supervisor/gate/): its own program, apart from the
# supervisor's tower: it includes config/, approvals/ and its own
# headers only, and nothing outside it includes its files (the
# supervisor talks to it through the wire alone, supervisor/gate/wire.h,
# whose one codec, wire.c, both programs are built with; it may use
# nothing else of the gate's and no OpenSSL).
grep -nE '#include' supervisor/gate/wire.[ch] | grep -vE '#include <|#include "supervisor/gate/wire\.h"' &&
	bad "supervisor/gate/wire.[ch], built into the supervisor too, include only the system's and wire.h"
for f in supervisor/gate/*.[ch]; do
	grep -nE '#include "(tui|probe)/' "$f" && bad "$f includes tui/ or probe/"
	grep -nE '#include "supervisor/' "$f" | grep -vE '#include "supervisor/gate/' &&
	    bad "$f reaches into the supervisor: ward-gate shares only the wire"
done
for f in config/*.[ch] approvals/*.[ch] supervisor/*.[ch] tui/*.[ch] probe/*.[ch]; do
	grep -nE '#include "supervisor/gate/' "$f" | grep -vE '#include "supervisor/gate/wire\.h"' &&
	    bad "$f includes ward-gate's files: only supervisor/gate/wire.h is shared"
	grep -nE '#include <(openssl/|http_parser\.h)' "$f" &&
	    bad "$f uses OpenSSL or http-parser: only ward-gate does (issue 18: start-up)"
done
for f in tui/*.[ch]; do
	grep -nE '#include "supervisor/' "$f" && bad "$f includes supervisor/"
	grep -nE '#include "probe/' "$f" | grep -vE '#include "probe/probe\.h"' &&
	    bad "$f reaches into probe/ past probe/probe.h"
done
# The record has one writer (DESIGN 8 as amended, HACKING.md): only the
# supervisor's .c files include approvals/audit-write.h. The one
# exception, approvals/audit-changes.h (the changes table's writes and
# gc's removal of a run), only the files that apply, undo and collect
# (approvals/changes.c is moving to review/changes.c: both allowed). Any
# folder but tests/; the record's own files include both.
for f in $(find . \( -path ./tests -o -path ./build -o -path ./.git \) -prune -o -name '*.[ch]' -print | sed 's|^\./||'); do
	case $f in
	approvals/audit.c|approvals/audit-*.[ch]) continue ;;
	esac
	case $f in
	supervisor/gate/*) w=no ;;
	supervisor/*.c) w=yes ;;
	*) w=no ;;
	esac
	[ $w = yes ] || ! grep -nE '#include "approvals/audit-write\.h"' "$f" ||
	    bad "$f includes approvals/audit-write.h: only the supervisor writes the record"
	case $f in
	tui/diffcmd.c|tui/gc.c|approvals/changes.c|review/changes.c) ;;
	*)	grep -nE '#include "approvals/audit-changes\.h"' "$f" &&
		    bad "$f includes approvals/audit-changes.h: only apply, undo and gc write the changes table" ;;
	esac
done
# ward's front (supervisor/front.c) supervises a headless run itself and
# execs ward-tui for the rest: it links the supervisor's libraries and
# never ward-tui's (t-front checks the program), so it includes
# approvals/runopts.h, config/ and supervisor/main.h, nothing of tui/.
f=supervisor/front.c
grep -nE '#include "' "$f" | grep -vE '#include "(config/[a-z]+|approvals/(runopts|launch)|supervisor/main)\.h"' &&
    bad "$f: the front includes only config/, approvals/runopts.h, approvals/launch.h and supervisor/main.h"
for f in approvals/runopts.c approvals/runopts.h; do
	grep -nE '#include "' "$f" | grep -vE '#include "(config/paths|config/util|approvals/launch|approvals/runopts)\.h"' &&
	    bad "$f: run's options include only config/paths.h, config/util.h and approvals/launch.h"
done
for f in probe/*.[ch]; do
	grep -nE '#include "(supervisor|tui)/' "$f" && bad "$f includes supervisor/ or tui/"
done
for f in config/*.[ch] approvals/*.[ch] supervisor/*.[ch] supervisor/gate/*.[ch] probe/*.[ch]; do
	grep -nE '#include <n?curses' "$f" && bad "$f includes curses outside tui/"
done
for f in config/*.[ch] approvals/*.[ch] tui/*.[ch] probe/*.[ch]; do
	grep -nE '#include <(seccomp\.h|linux/seccomp\.h)' "$f" && bad "$f talks to seccomp outside supervisor/"
done

# The supervisor's tower, top down. A file may include its own header
# and the headers of lower layers only: so the handlers (files, net,
# install) never reach each other, unotify.c, control.c or main.c, and
# nothing below sup.c knows struct sup. A new file gets a line here.
sup_layer() {
	case $1 in
	front|entry)		echo 9 ;;	# the two programs' mains
	main)			echo 8 ;;	# supervisor_main, one run
	loop)			echo 7 ;;	# the poll loop, if it has a file
	control)		echo 6 ;;	# the control protocol's server
	unotify)		echo 5 ;;	# RECV, dispatch, resolve
	files|net|install)	echo 4 ;;	# the handlers, one kind each
	emulate|grants|intercept)	echo 3 ;;	# what handlers share, on struct sup
	sup)			echo 2 ;;	# the ways out: answer, record, tell, park
	target|path|packages|pkg-*|dns|filter|filter-gen|spawn|compat|hostout|project|journal|gatewire|tell)
				echo 1 ;;	# leaves: no struct sup
	*)			echo 0 ;;
	esac
}
for f in supervisor/*.[ch]; do
	m=${f#supervisor/}; m=${m%.[ch]}
	lf=$(sup_layer "$m")
	[ "$lf" = 0 ] && { bad "$f has no layer in tests/layers.sh (sup_layer)"; continue; }
	for h in $(sed -n 's|^#include "supervisor/\([^"]*\)\.h".*|\1|p' "$f"); do
		[ "$h" = "$m" ] && continue
		lh=$(sup_layer "$h")
		# Leaves may use each other (the circle check below holds).
		[ "$lh" -lt "$lf" ] || { [ "$lf" = 1 ] && [ "$lh" = 1 ]; } ||
			bad "$f (layer $lf) includes supervisor/$h.h (layer $lh): handlers call down only"
	done
done
# No circle of files inside any folder, whatever the layers say: from the
# includes always, and from the calls (nm) once the objects are built.
dirs="config approvals supervisor supervisor/gate tui probe"
tests/includegraph.sh $dirs >/dev/null || bad "a circle of includes (tests/includegraph.sh $dirs)"
# Only sup.c answers the kernel; only unotify.c's loop receives.
for f in $(grep -lE 'SECCOMP_IOCTL_NOTIF_(SEND|ADDFD|ID_VALID)' config/*.[ch] approvals/*.[ch] supervisor/*.[ch] tui/*.[ch]); do
	[ "$f" = supervisor/sup.c ] || bad "$f issues notify SEND/ADDFD/ID_VALID: only supervisor/sup.c does"
done
for f in $(grep -l 'SECCOMP_IOCTL_NOTIF_RECV' config/*.[ch] approvals/*.[ch] supervisor/*.[ch] tui/*.[ch]); do
	[ "$f" = supervisor/unotify.c ] || bad "$f receives notifications: only supervisor/unotify.c does"
done
# Every message is built and parsed in approvals/msg.c (PROTOCOL.md):
# nobody else makes one from its type.
for f in $(grep -l 'proto_msg(' config/*.[ch] approvals/*.[ch] supervisor/*.[ch] tui/*.[ch] probe/*.[ch]); do
	case $f in approvals/msg.c|approvals/proto.[ch]) ;;
	*) bad "$f builds a protocol message by hand: use approvals/msg.h" ;;
	esac
done
build=${WARD_BUILD:-build}
if [ -f "$build/supervisor/sup.o" ]; then
	tests/includegraph.sh -c "$build" $dirs >/dev/null ||
	    bad "a circle of calls (tests/includegraph.sh -c $build $dirs)"
fi
# The supervisor never reopens another process's descriptor for writing
# (/proc/PID/fd/N opened with its own credentials writes wherever the
# program pointed that fd): a "/proc/%.../fd/" path followed, within a
# few lines, by an open with a write flag.
for f in supervisor/*.c; do
	awk -v f="$f" '
		/"\/proc\/%[^"]*\/fd\// { at = NR }
		at && NR - at <= 6 && /open(at)?2?\(/ && /O_(WRONLY|RDWR|APPEND|TRUNC|CREAT)/ {
			printf "%s:%d: opens /proc/PID/fd/N for writing\n", f, NR; bad = 1
		}
		END { exit bad }' "$f" >&2 || bad "$f writes through a descriptor the program chose (/proc/PID/fd/N)"
done
[ $fail = 0 ] && echo "layers: ok"
exit $fail
