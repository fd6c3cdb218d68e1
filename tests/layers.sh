#!/bin/sh
# Includes flow one way: config <- approvals <- {supervisor, tui}.
# supervisor/ and tui/ never include each other; curses only in tui/,
# seccomp only in supervisor/. Inside supervisor/ the files form a tower
# (handlers call down, never sideways): a file includes only headers of
# a layer below its own, and only sup.c answers the kernel.
fail=0
bad() { echo "layers: $*" >&2; fail=1; }
for f in config/*.[ch]; do
	grep -nE '#include "(approvals|supervisor|tui)/' "$f" && bad "$f reaches up from config/"
done
for f in approvals/*.[ch]; do
	grep -nE '#include "(supervisor|tui)/' "$f" && bad "$f reaches up from approvals/"
done
for f in supervisor/*.[ch]; do
	grep -nE '#include "tui/' "$f" && bad "$f includes tui/"
done
for f in tui/*.[ch]; do
	grep -nE '#include "supervisor/' "$f" && bad "$f includes supervisor/"
done
for f in config/*.[ch] approvals/*.[ch] supervisor/*.[ch]; do
	grep -nE '#include <n?curses' "$f" && bad "$f includes curses outside tui/"
done
for f in config/*.[ch] approvals/*.[ch] tui/*.[ch]; do
	grep -nE '#include <(seccomp\.h|linux/seccomp\.h)' "$f" && bad "$f talks to seccomp outside supervisor/"
done

# The supervisor's tower, top down. A file may include its own header
# and the headers of lower layers only: so the handlers (files, net,
# install) never reach each other, unotify.c, control.c or main.c, and
# nothing below sup.c knows struct sup. A new file gets a line here.
sup_layer() {
	case $1 in
	main)			echo 8 ;;
	loop)			echo 7 ;;	# the poll loop, if it has a file
	control)		echo 6 ;;	# the control protocol's server
	unotify)		echo 5 ;;	# RECV, dispatch, resolve
	files|net|install)	echo 4 ;;	# the handlers, one kind each
	emulate|grants)		echo 3 ;;	# what handlers share, on struct sup
	sup)			echo 2 ;;	# the ways out: answer, record, tell, park
	target|path|packages|pkg-*|dns|filter|filter-gen|spawn|compat)
				echo 1 ;;	# leaves: no struct sup
	*)			echo 0 ;;
	esac
}
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
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
# No circle of files, whatever the layers say (tsort names the loop).
# tui/ joins once its model and view stop including each other.
for d in supervisor; do
	for f in $d/*.[ch]; do
		m=${f#$d/}; m=${m%.[ch]}
		for h in $(sed -n "s|^#include \"$d/\\([^\"]*\\)\\.h\".*|\\1|p" "$f"); do
			[ "$h" = "$m" ] || echo "$d/$m $d/$h"
		done
	done
done >"$edges"
tsort "$edges" >/dev/null 2>"$edges.err" || bad "a circle of includes: $(tr '\n' ' ' <"$edges.err")"
rm -f "$edges.err"

# Only sup.c answers the kernel; only unotify.c's loop receives.
for f in $(grep -lE 'SECCOMP_IOCTL_NOTIF_(SEND|ADDFD|ID_VALID)' config/*.[ch] approvals/*.[ch] supervisor/*.[ch] tui/*.[ch]); do
	[ "$f" = supervisor/sup.c ] || bad "$f issues notify SEND/ADDFD/ID_VALID: only supervisor/sup.c does"
done
for f in $(grep -l 'SECCOMP_IOCTL_NOTIF_RECV' config/*.[ch] approvals/*.[ch] supervisor/*.[ch] tui/*.[ch]); do
	[ "$f" = supervisor/unotify.c ] || bad "$f receives notifications: only supervisor/unotify.c does"
done
# The same from the calls, once the objects are built.
if [ -f "${WARD_BUILD:-build}/supervisor/sup.o" ]; then
	tests/callgraph.sh >/dev/null || bad "a circle of calls (tests/callgraph.sh)"
fi
[ $fail = 0 ] && echo "layers: ok"
exit $fail
