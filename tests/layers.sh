#!/bin/sh
# Includes flow one way: config <- approvals <- {supervisor, tui}.
# supervisor/ and tui/ never include each other; curses only in tui/,
# seccomp only in supervisor/.
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
[ $fail = 0 ] && echo "layers: ok"
exit $fail
