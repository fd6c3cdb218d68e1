#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The program starts with every signal at its default and none blocked,
# whatever ward was started with: signals ignored by whoever started it
# (nohup's HUP, a shell's INT and QUIT, and 32 and 33, which glibc keeps
# for itself and will not set, so only the kernel's own call resets
# them), the supervisor's own ignored SIGPIPE and blocked SIGCHLD, SIGINT,
# SIGTERM and SIGHUP. An ignored signal would stay ignored across exec.
. "$(dirname "$0")/lib.sh"

# ward, started with those ignored (by the raw rt_sigaction: glibc's
# would refuse 32 and 33).
cat >"$WT_SCRATCH/ignoring" <<'PY'
import ctypes, os, sys
class KSigaction(ctypes.Structure):
    _fields_ = [("handler", ctypes.c_void_p), ("flags", ctypes.c_ulong),
                ("restorer", ctypes.c_void_p), ("mask", ctypes.c_uint64)]
libc = ctypes.CDLL(None, use_errno=True)
ign = KSigaction(1, 0, None, 0)         # SIG_IGN
for sig in (1, 2, 3, 10, 13, 32, 33, 40):
    if libc.syscall(13, sig, ctypes.byref(ign), None, 8) != 0:   # rt_sigaction
        sys.exit("rt_sigaction %d: %s" % (sig, os.strerror(ctypes.get_errno())))
os.execv(sys.argv[1], sys.argv[1:])
PY
python3 "$WT_SCRATCH/ignoring" /bin/grep -E '^SigIgn:' /proc/self/status \
    >"$WT_ARTIFACTS/before" 2>&1
before=$(awk '/^SigIgn:/{print $2}' "$WT_ARTIFACTS/before")
if [ -n "$before" ] && (( (0x$before & 0x8180001207) == 0x8180001207 )); then
	note "ok: the starter ignores 1 2 3 10 13 32 33 40 (SigIgn $before)"
else
	show "the starter's own status" "$WT_ARTIFACTS/before"
	fail "the starter does not ignore what the test needs (SigIgn '$before')"
fi

real_ward=$WARD
WARD="$WT_SCRATCH/ward-ignoring"
printf '#!/bin/sh\nexec python3 %s %s "$@"\n' "$WT_SCRATCH/ignoring" "$real_ward" >"$WARD"
chmod +x "$WARD"
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- grep -E '^Sig(Ign|Blk):' /proc/self/status
WARD=$real_ward
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "no signal ignored" '^SigIgn:[[:space:]]*0000000000000000$' "$WT_ARTIFACTS/out"
assert_grep "no signal blocked" '^SigBlk:[[:space:]]*0000000000000000$' "$WT_ARTIFACTS/out"
finish
