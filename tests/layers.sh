#!/bin/sh
# Includes flow one way: config <- approvals <- {supervisor, tui, probe}.
# supervisor/ and tui/ never include each other; probe/ includes only
# config/, approvals/ and itself (tui/ includes probe/probe.h alone, to
# dispatch `ward probe`); curses only in tui/, seccomp only in supervisor/.
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
for f in tui/*.[ch]; do
	grep -nE '#include "supervisor/' "$f" && bad "$f includes supervisor/"
	grep -nE '#include "probe/' "$f" | grep -vE '#include "probe/probe\.h"' &&
	    bad "$f reaches into probe/ past probe/probe.h"
done
for f in probe/*.[ch]; do
	grep -nE '#include "(supervisor|tui)/' "$f" && bad "$f includes supervisor/ or tui/"
done
for f in config/*.[ch] approvals/*.[ch] supervisor/*.[ch] probe/*.[ch]; do
	grep -nE '#include <n?curses' "$f" && bad "$f includes curses outside tui/"
done
for f in config/*.[ch] approvals/*.[ch] tui/*.[ch] probe/*.[ch]; do
	grep -nE '#include <(seccomp\.h|linux/seccomp\.h)' "$f" && bad "$f talks to seccomp outside supervisor/"
done
[ $fail = 0 ] && echo "layers: ok"
exit $fail
