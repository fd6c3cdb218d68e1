#!/bin/sh
# The supervisor's call graph, from its built objects (nm): which file
# calls which. Fails on a circle of files (tsort names it). Calls through
# a hooks or ops record (dns_hooks, kind_ops) are callbacks, not edges:
# that is how a lower file hands work back up without knowing who.
#
#   tests/callgraph.sh [BUILD]     print the edges; exit 1 on a circle
build=${1:-${WARD_BUILD:-build}}
set -- "$build"/supervisor/*.o
[ -f "$1" ] || { echo "callgraph: no objects in $build/supervisor (make first)" >&2; exit 77; }
defs=$(mktemp) edges=$(mktemp)
trap 'rm -f "$defs" "$edges"' EXIT
# filter-compile.o is filter.c built for filter-gen: the same file.
nm -A --defined-only -g "$@" | awk '$2 ~ /^[TDBR]$/ {
	split($1, a, ":"); n = split(a[1], p, "/"); m = p[n]
	sub(/\.o$/, "", m); sub(/^filter-compile$/, "filter", m); print $3, m }' |
    sort >"$defs"
for o; do
	m=$(basename "$o" .o)
	[ "$m" = filter-compile ] && m=filter
	nm -u "$o" | awk '{ print $2 }' | sort | join - "$defs" |
	    awk -v m="$m" '$2 != m { print m, $2 }'
done | sort -u >"$edges"
cat "$edges"
if ! tsort "$edges" >/dev/null 2>&1; then
	echo "callgraph: a circle of files in supervisor/:" >&2
	tsort "$edges" 2>&1 >/dev/null | sed 's/^/  /' >&2
	exit 1
fi
