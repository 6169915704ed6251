#!/bin/bash
# --plots (docs/views.md): the PNGs of two different synthetic jobs exist,
# open as PNG and differ; the audit's scaling curve; without matplotlib or
# without an interpreter one line says so and the analysis is complete
# (exit 0, its files written); existing plots are not replaced without
# --force.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
$PY -c 'import matplotlib, h5py, pandas' 2>/dev/null || {
    echo "matplotlib/h5py/pandas missing for /usr/bin/python3: skipped"
    exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/plots
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
export TLMPI_PYTHON=$PY

"$TLMPI_SYNTH" --out "$W/a" --world_size 8 --tp 4 --steps 2 --layers 2 \
    --seed 7 --gpus_per_node 4 --node_offset_us 0,250 \
    --straggler 5 --straggler_delay_us 400 --quiet
"$TLMPI_SYNTH" --out "$W/b" --world_size 8 --tp 2 --steps 2 --layers 2 \
    --seed 9 --straggler 2 --straggler_delay_us 900 --quiet
for j in a b; do
    $MPIEXEC -n 2 "$TLMPI" --trace_dir "$W/$j" --output "$W/o$j/tlmpi.h5" \
        --output_dir "$W/o$j" --plots --progress 2>"$W/err$j"
    grep -q "plots: 3 PNG files in $W/o$j/plots" "$W/err$j" \
        || fail "job $j: $(cat "$W/err$j")"
done
$PY - "$W/oa/plots" "$W/ob/plots" <<'PY' || fail "PNGs"
import os, sys
import matplotlib.image as mpimg
import numpy as np
names = ["arrival_heatmap.png", "busbw.png", "gpu_time.png"]
a, b = sys.argv[1:]
assert sorted(os.listdir(a)) == names, os.listdir(a)
for n in names:
    with open(os.path.join(a, n), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", n
    x = mpimg.imread(os.path.join(a, n))
    y = mpimg.imread(os.path.join(b, n))
    assert x.ndim == 3 and x.shape[0] > 200 and x.shape[1] > 200, x.shape
    assert x.shape != y.shape or not np.array_equal(x, y), n + " same"
print("ok: %d plots differ" % len(names))
PY

# -- no matplotlib: one line, the analysis complete
mkdir -p "$W/nompl/matplotlib"
echo 'raise ImportError("hidden by the test")' \
    > "$W/nompl/matplotlib/__init__.py"
PYTHONPATH="$W/nompl" $MPIEXEC -n 2 "$TLMPI" --trace_dir "$W/a" \
    --output "$W/oc/tlmpi.h5" --output_dir "$W/oc" --plots --quiet \
    2>"$W/errc" || fail "no matplotlib: the analysis failed"
# under --quiet the line goes into report.md only (issue 34)
[ ! -s "$W/errc" ] || fail "no matplotlib, --quiet: $(cat "$W/errc")"
grep -q "^\*\*Plots\*\*: plots skipped: Python has no matplotlib" \
    "$W/oc/report.md" || fail "no matplotlib: not in report.md"
[ -s "$W/oc/tlmpi.h5" ] && [ -s "$W/oc/report.md" ] || fail "no outputs"
ls "$W/oc/plots" 2>/dev/null | grep -q png && fail "no matplotlib: PNGs"

# -- no interpreter
TLMPI_PYTHON=$W/nowhere/python3 $MPIEXEC -n 1 "$TLMPI" --trace_dir "$W/a" \
    --output "$W/od/tlmpi.h5" --output_dir "$W/od" --plots \
    2>"$W/errd" || fail "no interpreter: the analysis failed"
grep -v '^tlmpi: ' "$W/errd" && fail "no interpreter: a message over lines"
[ "$(grep -c "^tlmpi: plots skipped: no Python interpreter" "$W/errd")" = 1 ] \
    || fail "no interpreter: $(cat "$W/errd")"
[ -s "$W/od/tlmpi.h5" ] || fail "no interpreter: no HDF5 file"
echo "ok: missing matplotlib and interpreter"

# -- existing plots are outputs: not replaced without --force
set +e
$MPIEXEC -n 1 "$TLMPI" --trace_dir "$W/b" --output "$W/oe/tlmpi.h5" \
    --output_dir "$W/oa" --plots --quiet > "$W/erre" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] && grep -q "exists" "$W/erre" || fail "plots replaced: $rc"
[ -e "$W/oe/tlmpi.h5" ] && fail "refused run wrote its HDF5 file"
$MPIEXEC -n 1 "$TLMPI" --trace_dir "$W/b" --output "$W/oe/tlmpi.h5" \
    --output_dir "$W/oa" --plots --quiet --force || fail "--force"
echo "ok: --force"

# -- the audit: scaling curve from audit.h5
mkdir -p "$W/aud/job/n2" "$W/aud/job/n4"
"$TLMPI_SYNTH" --out "$W/aud/job/n2" --world_size 2 --tp 2 --steps 2 \
    --layers 1 --quiet
"$TLMPI_SYNTH" --out "$W/aud/job/n4" --world_size 4 --tp 2 --steps 2 \
    --layers 1 --quiet
rm "$W"/aud/job/*/ground_truth.json
$MPIEXEC -n 2 "$TLMPI" audit "$W/aud" --output_dir "$W/audo" --plots \
    --quiet
$PY - "$W/audo/plots" <<'PY' || fail "audit plots"
import os, sys
import matplotlib.image as mpimg
d = sys.argv[1]
assert sorted(os.listdir(d)) == ["busbw.png", "scaling.png"], os.listdir(d)
for n in os.listdir(d):
    assert mpimg.imread(os.path.join(d, n)).shape[0] > 200
PY
echo "ok: audit"
echo "test_plots: all passed"
