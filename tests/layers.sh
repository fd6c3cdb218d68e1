#!/bin/sh
# SPDX-License-Identifier: MIT
# Includes flow one way: config <- approvals <- {supervisor, tui, probe},
# and config <- approvals <- review <- tui: review/ holds what a person
# reviews after a run (summary, scorecard, plain words, the record as
# JSON), for tui/ alone; supervisor/, probe/, approvals/ and config/
# never include it. supervisor/ and tui/ never include each other;
# probe/ includes only
# config/, approvals/ and itself (tui/ includes probe/probe.h alone, to
# dispatch `ward probe`); curses only in tui/, seccomp only in supervisor/.
# Inside supervisor/ the files form a tower (handlers call down, never
# sideways): a file includes only headers of a layer below its own, and
# only sup.c answers the kernel.
fail=0
bad() { echo "layers: $*" >&2; fail=1; }
for f in config/*.[ch]; do
	grep -nE '#include "(approvals|supervisor|tui|probe|review)/' "$f" && bad "$f reaches up from config/"
done
for f in approvals/*.[ch]; do
	grep -nE '#include "(supervisor|tui|probe|review)/' "$f" && bad "$f reaches up from approvals/"
done
for f in review/*.[ch]; do
	grep -nE '#include "' "$f" | grep -vE '#include "(config|approvals|review)/' &&
	    bad "$f: review/ includes only config/, approvals/ and review/"
done
for f in supervisor/*.[ch]; do
	grep -nE '#include "(tui|probe|review)/' "$f" && bad "$f includes tui/, probe/ or review/"
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
	grep -nE '#include "(tui|probe|review)/' "$f" && bad "$f includes tui/, probe/ or review/"
	grep -nE '#include "supervisor/' "$f" | grep -vE '#include "supervisor/gate/' &&
	    bad "$f reaches into the supervisor: ward-gate shares only the wire"
done
for f in config/*.[ch] approvals/*.[ch] review/*.[ch] supervisor/*.[ch] tui/*.[ch] probe/*.[ch]; do
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
# gc's removal of a run), only the files that record what apply, discard
# and undo did (tui/diffcmd.c) and gc (tui/gc.c). Any folder but tests/;
# the record's own files include both.
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
	tui/diffcmd.c|tui/gc.c) ;;
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
	grep -nE '#include "(supervisor|tui|review)/' "$f" && bad "$f includes supervisor/, tui/ or review/"
done
for f in config/*.[ch] approvals/*.[ch] review/*.[ch] supervisor/*.[ch] supervisor/gate/*.[ch] probe/*.[ch]; do
	grep -nE '#include <n?curses' "$f" && bad "$f includes curses outside tui/"
done
for f in config/*.[ch] approvals/*.[ch] review/*.[ch] tui/*.[ch] probe/*.[ch]; do
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
	emulate|grants|intercept|oci)	echo 3 ;;	# what handlers share, on struct sup
	sup)			echo 2 ;;	# the ways out: answer, record, tell, park
	target|path|packages|pkg-*|dns|filter|filter-gen|spawn|spawn-*|compat|hostout|project|journal|gatewire|tell)
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
dirs="config approvals review supervisor supervisor/gate tui probe"
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
for f in $(grep -l 'proto_msg(' config/*.[ch] approvals/*.[ch] review/*.[ch] supervisor/*.[ch] tui/*.[ch] probe/*.[ch]); do
	case $f in approvals/msg.c|approvals/proto.[ch]) ;;
	*) bad "$f builds a protocol message by hand: use approvals/msg.h" ;;
	esac
done
# What a request kind is lives in one table, approvals/kind.c (issue 32):
# the rest read a kind's row (kind_info(k)), and only the supervisor's
# handlers, which make the requests, switch on the kind.
for f in $(grep -rl 'case KIND_' --include='*.[ch]' . | sed 's|^\./||'); do
	case $f in
	approvals/kind.c|tests/*) ;;
	supervisor/*/*) bad "$f switches on a request kind: only the supervisor's handlers do" ;;
	supervisor/*.c) ;;
	*) bad "$f switches on a request kind: read its row, kind_info(k) (approvals/kind.h)" ;;
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
# HACKING.md names every .c file of the code's folders (its tables: the
# file's path and its job), so that a new or moved file gets its line.
for d in config approvals supervisor supervisor/gate tui probe review; do
	[ -d "$d" ] || continue
	for f in "$d"/*.c; do
		[ -e "$f" ] || continue
		grep -qF "\`$f\`" HACKING.md ||
		    bad "$f is not named in HACKING.md: add a row (\`$f\` | its job) to the table of $d/"
	done
done
# No .c file over 1,200 lines: a file that grows past it is split by
# job (issue 32). One may stay larger only with its reason here, as tmux
# keeps window-copy.c whole.
big_reason() {
	case $1 in
	approvals/msg.c)	echo "the protocol's one codec, a builder and a parser per message in PROTOCOL.md's order" ;;
	supervisor/files.c)	echo "the write path's one handler: decode, resolve, judge, park; its fast path reads top to bottom" ;;
	supervisor/gate/flow.c)	echo "HTTP/1.1 without I/O: one state machine, each state beside the next" ;;
	supervisor/main.c)	echo "one run from argv to exit status, its steps in order over the file's own state (S, P)" ;;
	supervisor/dns.c)	echo "the DNS stub: one protocol, parsed, judged and answered" ;;
	*)			return 1 ;;
	esac
}
for f in config/*.c approvals/*.c review/*.c supervisor/*.c supervisor/gate/*.c tui/*.c probe/*.c; do
	[ -e "$f" ] || continue
	n=$(wc -l <"$f")
	[ "$n" -le 1200 ] || big_reason "$f" >/dev/null ||
	    bad "$f has $n lines: split it by job (a file over 1,200 lines needs its reason in tests/layers.sh, big_reason)"
done
[ $fail = 0 ] && echo "layers: ok"
exit $fail
