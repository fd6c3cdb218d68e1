#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A supervisor gives back what its calls touched once its run goes idle
# (issue 18; supervisor/loop.c, RUN_IDLE_MS): an exec of 60 arguments of
# 1,000 bytes each, well after start-up's own shed, has the supervisor
# copy 60 KiB of them out of the program into its argv buffer; a moment
# after the run went quiet those pages are out of the supervisor's memory
# again. Seen from outside: the supervisor's /proc/PID/pagemap at the
# buffer, found by its symbol in the binary, and the exec in the record
# with all of its arguments.
. "$(dirname "$0")/lib.sh"

command -v nm >/dev/null || die "nm (binutils) is needed to find the buffer"
off=$(nm "$WARD" | awk '$3 == "argbuf" { print $1 }')
size=$(nm -S "$WARD" | awk '$4 == "argbuf" { print $2 }')
[ -n "$off" ] && [ -n "$size" ] || die "no argbuf symbol in $WARD (a stripped build?)"

marker="ward-shed-$$-$RANDOM"
# Start-up's shed comes 250 ms after the start: the exec comes later, then
# nothing for two seconds.
prog='sleep 0.6
a=$(printf "%01000d" 7)
set --
for i in $(seq 60); do set -- "$@" "$a"; done
/bin/true '"$marker"' "$@"
echo EXEC DONE
sleep 2
echo IDLE DONE'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" run --headless -- sh -c "$prog"
headless_supervisor "$WT_PID"
wait_for 10 grep -q '^EXEC DONE$' "$WT_ARTIFACTS/out" || die "the exec did not come"
sleep 1

# The pages of [base + off, base + off + size) present in the supervisor.
python3 - "$WT_PID" "$WARD" "$off" "$size" >"$WT_SCRATCH/resident" <<'EOF'
import os, struct, sys
pid, exe, off, size = sys.argv[1], os.path.realpath(sys.argv[2]), \
    int(sys.argv[3], 16), int(sys.argv[4], 16)
base = None
for line in open("/proc/%s/maps" % pid):
    f = line.split()
    if len(f) > 5 and f[5] == exe and int(f[2], 16) == 0:
        base = int(f[0].split("-")[0], 16)
        break
if base is None:
    sys.exit("no mapping of %s in %s" % (exe, pid))
lo, hi = (base + off) // 4096, (base + off + size - 1) // 4096
with open("/proc/%s/pagemap" % pid, "rb") as fh:
    fh.seek(lo * 8)
    data = fh.read((hi - lo + 1) * 8)
present = sum(1 for i in range(hi - lo + 1)
              if struct.unpack_from("Q", data, i * 8)[0] >> 63)
print(present, hi - lo + 1)
EOF
read -r present pages <"$WT_SCRATCH/resident"
note "argv buffer: $present of its $pages pages resident, 1 s after the run went quiet"
# The two partial pages at its ends may stay (their other bytes are not
# the buffer's); before the shed, the 60 KiB copied held 15 of them.
if [ "$present" -le 2 ]; then
	note "ok: the copied arguments' pages went back"
else
	fail "$present of $pages pages of the argv buffer still resident after the run was idle for 1 s"
fi
ward_wait 10
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the run went on after the shed" '^IDLE DONE$' "$WT_ARTIFACTS/out"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the exec recorded with its arguments" "$WT_ARTIFACTS/log.json" \
    ".kind == \"exec\" and (.detail | startswith(\"/bin/true $marker 000\"))"
finish
