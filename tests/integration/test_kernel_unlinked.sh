#!/bin/bash
# Kernels without a launch (issue 34): the analysis's /kernels table gives
# them the category "unlinked", not an empty string (TraceLens's
# kernel_summary has a null there; the single-trace CSV keeps it).  A
# synthetic trace whose first three kernels lose their launch and flow.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/kernel_unlinked
rm -rf "$W"; mkdir -p "$W/u"
fail() { echo "FAIL: $*"; exit 1; }
"$TLMPI_SYNTH" --out "$W/j" --world_size 2 --quiet || fail "synth"
$PY - "$W/j/rank0_trace.json" "$W/u/rank0_trace.json" <<'PY' || fail "edit"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
corr = {e["args"].get("correlation")
        for e in [e for e in ev if e.get("cat") == "kernel"][:3]}
def launch(e):
    return (e.get("cat") == "ac2g" and e.get("id") in corr) or \
        (e.get("cat") in ("cuda_runtime", "cuda_driver")
         and e.get("args", {}).get("correlation") in corr)
d["traceEvents"] = [e for e in ev if not launch(e)]
json.dump(d, open(sys.argv[2], "w"))
PY
"$TLMPI" --trace_dir "$W/u" --allow_missing --quiet || fail "analysis"
$PY - "$W/u/tlmpi.h5" <<'PY' || fail "/kernels categories"
import sys, h5py
k = h5py.File(sys.argv[1], "r")["kernels"][:]
cats = [c.decode() for c in k["parent_op_category"]]
assert "" not in cats, cats
n = sum(c == "unlinked" for c in cats)
assert n == 3, (n, cats)
PY
echo "kernel_unlinked ok"
