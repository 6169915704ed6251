#!/bin/bash
# TraceLens's --include_call_stack and --detect_recompute in `tlmpi report`
# (issue 15 item 3; perfreport.md §2.2, §4.7, §8): python functions join
# the call tree and unified_perf_summary gains entry_point and
# call_stack_full (checked on tests/data/callstack_small.json: one op with
# two kernels -> common prefix + two tails, an inward and an outward entry
# point, "Not found"); without the option the report is unchanged.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
S="${TLM_SOURCE_DIR:?}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
R() { "$TLMPI" report --quiet "$@"; }
PY=/usr/bin/python3
CS="$S/tests/data/callstack_small.json"

# ---- --include_call_stack
check "--include_call_stack" R --profile_json_path "$CS" --include_call_stack --output_csvs_dir "$WORK/cs"
check "default run" R --profile_json_path "$CS" --output_csvs_dir "$WORK/d"
U="$WORK/cs/unified_perf_summary.csv"
check "... header: has_perf_model, entry_point, call_stack_full, Percentage (%)" \
    grep -q "has_perf_model,entry_point,call_stack_full,Percentage (%)," "$U"
check "... not without the option" bash -c "! grep -q call_stack_full '$WORK/d/unified_perf_summary.csv'"
check "... two kernels: common prefix, one tail each" grep -qF "\"['nn.Module: Model', '/work/app/model.py(10): forward', 'aten::linear', 'aten::addmm', ['Cijk_gemm_kernel'], ['void at::native::elementwise_kernel<4>']]\"" "$U"
check "... entry point outward (model code above the op)" grep -q "^aten::addmm,.*,/work/app/model.py(10): forward,\"\\[" "$U"
check "... entry point inward (python below a custom op)" grep -q "^mylib::fused_op,.*,/work/app/ops.py(5): fused_op,\"\\[" "$U"
check "... no model-code frame: Not found" grep -q "^aten::copy_,.*,Not found,\"\\['nn.Module: Model', 'aten::copy_', 'copy_kernel'\\]\"" "$U"
if $PY -c "import pandas" 2> /dev/null; then
    check "... the other columns and sheets as without the option" $PY - "$WORK/cs" "$WORK/d" << 'PYEOF'
import os, sys, pandas as pd
a, b = sys.argv[1], sys.argv[2]
assert sorted(os.listdir(a)) == sorted(os.listdir(b))
for f in os.listdir(a):
    if not f.endswith(".csv"):
        continue
    x, y = pd.read_csv(os.path.join(a, f)), pd.read_csv(os.path.join(b, f))
    x = x.drop(columns=[c for c in ("entry_point", "call_stack_full") if c in x])
    pd.testing.assert_frame_equal(x, y)
PYEOF
fi
exit $fail
