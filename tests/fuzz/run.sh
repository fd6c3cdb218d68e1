#!/bin/sh
# SPDX-License-Identifier: MIT
# Run each libFuzzer harness of BUILD (make fuzz) for SECONDS, FUZZ_JOBS at
# a time (default: one per cpu); 0 seconds runs each seed corpus once.
# Fails when any harness crashes, leaks, hits UB, breaks a property or
# hangs (-timeout). The checked-in corpus is only read: new inputs go to a
# scratch folder; what failed is kept under BUILD/fuzz-out/NAME/ with the
# log, and printed.
set -u
build=${1:-build-fuzz}
seconds=${2:-60}
jobs=${FUZZ_JOBS:-$(nproc)}
here=$(dirname "$0")
out=$build/fuzz-out
rm -rf "$out"
mkdir -p "$out"

run_one() {	# NAME
	name=$1
	bin=$build/tests/fuzz/fuzz-$name
	dir=$out/$name
	mkdir -p "$dir/new"
	set -- -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$dir/"
	[ -f "$here/$name.dict" ] && set -- "$@" -dict="$here/$name.dict"
	if [ "$seconds" = 0 ]; then
		set -- "$@" -runs=0
	else
		set -- "$@" -max_total_time="$seconds" -print_final_stats=1
	fi
	if "$bin" "$@" "$dir/new" "$here/corpus/$name" >"$dir/log" 2>&1; then
		runs=$(sed -n "s/^stat::number_of_executed_units: *//p" "$dir/log")
		[ -n "$runs" ] && runs="$runs inputs" || runs="its seeds"
		echo "fuzz-$name: ok ($runs)"
		rm -rf "$dir"
	else
		echo "fuzz-$name: FAILED"
		tail -n 40 "$dir/log"
		for a in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*; do
			[ -f "$a" ] || continue
			echo "fuzz-$name: input $a:"
			od -An -c "$a" | head -n 20
		done
		: >"$out/failed-$name"
	fi
}

names=
for bin in "$build"/tests/fuzz/fuzz-*; do
	case $bin in *.o|*.d) continue ;; esac
	[ -x "$bin" ] || continue
	names="$names ${bin##*/fuzz-}"
done
[ -n "$names" ] || { echo "fuzz: no harnesses in $build (make fuzz)" >&2; exit 1; }

running=0
for name in $names; do
	run_one "$name" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
if ls "$out"/failed-* >/dev/null 2>&1; then
	echo "fuzz: failed:$(ls "$out" | sed -n 's/^failed-/ /p' | tr -d '\n')"
	exit 1
fi
echo "fuzz: ok:$names"
