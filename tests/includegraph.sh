#!/bin/sh
# SPDX-License-Identifier: MIT
# Fails when the files of a folder depend on each other in a circle.
#
#   tests/includegraph.sh DIR...           from the #include lines
#   tests/includegraph.sh -c BUILD DIR...  from the symbols each object
#                                          uses and defines (nm), after make
#
# A module is x.c with its header x.h. Include mode draws x -> y when x.c
# or x.h has `#include "DIR/y.h"`; symbol mode draws x -> y when x.o uses
# a symbol that y.o defines. Only edges inside one folder count:
# tests/layers.sh already keeps the folders themselves in order.
#
# The two see different things. A header shared by several files (one
# that declares what many .c files define, like a folder-wide banner
# header) hides a circle from the include graph: every file points at
# the header, and the header points at nobody. The symbol graph sees the
# calls themselves, but only after a build.
#
# Prints each module's edges with -v; on a circle, the modules in it
# (each strongly connected component of more than one) and the edges
# between them.
set -u
mode=include
build=
verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	-c) mode=symbols; build=$2; shift 2 ;;
	-v) verbose=1; shift ;;
	--) shift; break ;;
	-*) echo "usage: $0 [-v] [-c BUILD] DIR..." >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-v] [-c BUILD] DIR..." >&2; exit 2; }

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# Prints "from to" lines, one per edge, for folder $1.
edges_include() {
	dir=$1
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -e "$f" ] || continue
		from=$(basename "$f"); from=${from%.*}
		sed -n "s|^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$dir/\([^\"]*\)\\.h\".*|\1|p" "$f" |
		while read -r to; do
			[ "$to" = "$from" ] && continue
			[ -e "$dir/$to.h" ] || [ -e "$dir/$to.c" ] || continue
			echo "$from $to"
		done
	done | sort -u
}

edges_symbols() {
	dir=$1
	: >"$tmp/def"
	: >"$tmp/use"
	for o in "$build/$dir"/*.o; do
		[ -e "$o" ] || continue
		m=$(basename "$o" .o)
		# Built twice from one source (filter-compile.o from filter.c):
		# the twin is not a module of its own.
		[ -e "$dir/$m.c" ] || continue
		nm "$o" | awk -v m="$m" '$1 ~ /^[TDBRVWC]$/ || $2 ~ /^[TDBRVWC]$/ { print $NF, m }' >>"$tmp/def"
		nm -u "$o" | awk -v m="$m" '{ print $NF, m }' >>"$tmp/use"
	done
	sort -u "$tmp/def" >"$tmp/def.s"
	sort -u "$tmp/use" >"$tmp/use.s"
	# use: "sym user", def: "sym definer" -> "user definer"
	join "$tmp/use.s" "$tmp/def.s" | awk '$2 != $3 { print $2, $3 }' | sort -u
}

# The strongly connected components of the graph on stdin (Tarjan):
# each one of more than one module is a circle. Prints them, with the
# edges inside, and exits 1 if there is any.
scc='
function visit(v,   i, w, line) {
	index_[v] = low[v] = ++counter
	stack[++sp] = v
	on[v] = 1
	for (i = 1; i <= nout[v]; i++) {
		w = out[v, i]
		if (!(w in index_)) {
			visit(w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (on[w] && index_[w] < low[v]) {
			low[v] = index_[w]
		}
	}
	if (low[v] != index_[v])
		return
	n = 0
	do {
		w = stack[sp--]
		on[w] = 0
		comp[++n] = w
	} while (w != v)
	if (n < 2)
		return
	found = 1
	line = ""
	for (i = n; i >= 1; i--)
		line = line " " comp[i]
	print "includegraph: " d ": circle (" m "):" line
	for (i = n; i >= 1; i--)
		for (j = n; j >= 1; j--)
			if ((comp[i] SUBSEP comp[j]) in edge)
				print "    " comp[i] " -> " comp[j]
}
{
	if (!(($1, $2) in edge))
		out[$1, ++nout[$1]] = $2
	edge[$1, $2] = 1
	if (!($1 in seen)) { seen[$1] = 1; order[++nv] = $1 }
	if (!($2 in seen)) { seen[$2] = 1; order[++nv] = $2 }
}
END {
	for (k = 1; k <= nv; k++)
		if (!(order[k] in index_))
			visit(order[k])
	exit found
}'

fail=0
for dir in "$@"; do
	dir=${dir%/}
	if [ ! -d "$dir" ]; then
		echo "includegraph: $dir: no such folder" >&2
		fail=1
		continue
	fi
	if [ $mode = symbols ] && ! ls "$build/$dir"/*.o >/dev/null 2>&1; then
		echo "includegraph: $build/$dir: no objects (run make first)" >&2
		fail=1
		continue
	fi
	edges_$mode "$dir" >"$tmp/edges"
	if [ $verbose = 1 ]; then
		awk -v d="$dir" '{ print d ": " $1 " -> " $2 }' "$tmp/edges"
	fi
	if awk -v d="$dir" -v m="$mode" "$scc" "$tmp/edges" >&2; then
		echo "includegraph: $dir: no circle ($mode, $(wc -l <"$tmp/edges") edges)"
	else
		fail=1
	fi
done
exit $fail
