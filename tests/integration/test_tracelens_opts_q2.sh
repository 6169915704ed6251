#!/bin/bash
# TraceLens's --include_call_stack and --detect_recompute in `tlmpi report`
# (issue 15 item 3; perfreport.md §2.2, §4.7, §8): python functions join
# the call tree and unified_perf_summary gains entry_point and
# call_stack_full (checked on tests/data/callstack_small.json: one op with
# two kernels -> common prefix + two tails, an inward and an outward entry
# point, "Not found"), and events under torch.utils.checkpoint's
# recompute_fn split from the others by is_recompute
# (tests/data/recompute_small.json: one of three aten::mm recomputed);
# without the options the report is unchanged.
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

# ---- --detect_recompute
RC="$S/tests/data/recompute_small.json"
check "--detect_recompute" R --profile_json_path "$RC" --detect_recompute --output_csvs_dir "$WORK/rc"
check "default run" R --profile_json_path "$RC" --output_csvs_dir "$WORK/rd"
check "... gpu_timeline per subset: total_time 0.33 ms without, 0.01 ms of recompute" \
    bash -c "grep -q '^total_time,0.33,100.0,False$' '$WORK/rc/gpu_timeline.csv' && grep -q '^total_time,0.01,100.0,True$' '$WORK/rc/gpu_timeline.csv'"
check "... ops_summary: aten::mm twice, 2 + 1 calls" \
    bash -c "grep -q '^aten::mm,False,30.0,30.0,0.03,0.03,2,' '$WORK/rc/ops_summary.csv' && grep -q '^aten::mm,True,10.0,10.0,0.01,0.01,1,' '$WORK/rc/ops_summary.csv'"
check "... ops_summary_by_category: GEMM split" grep -q "^GEMM,True,1,0.01,25.0,100.0$" "$WORK/rc/ops_summary_by_category.csv"
check "... ops_unique_args, unified_perf_summary: is_recompute after Concrete Inputs" \
    bash -c "grep -q '^name,op category,process_name,process_label,thread_name,Input Dims,Input type,Input Strides,Concrete Inputs,is_recompute,' '$WORK/rc/ops_unique_args.csv' && grep -q '^name,op category,process_name,process_label,thread_name,Input Dims,Input type,Input Strides,Concrete Inputs,is_recompute,ex_UID,' '$WORK/rc/unified_perf_summary.csv'"
check "... GEMM: is_recompute after the param columns, two rows" \
    bash -c "grep -q ',param: B,is_recompute,GFLOPS_first,' '$WORK/rc/GEMM.csv' && test \$(grep -c '^aten::mm,' '$WORK/rc/GEMM.csv') -eq 2"
check "... not without the option" bash -c "! grep -q is_recompute '$WORK'/rd/*.csv"
check "... one aten::mm row without the option" test "$(grep -c '^aten::mm,' "$WORK/rd/ops_summary.csv")" -eq 1

# ---- a real checkpointed trace (ResNet on MI300X, 12 recompute_fn regions)
RN="${TLM_SHARED_DIR:-}/traces/resnet_mi300/resnet_act_checkpoint.json.gz"
if [ -r "$RN" ]; then
    check "resnet: both options" R --profile_json_path "$RN" --detect_recompute --include_call_stack --output_csvs_dir "$WORK/rn"
    check "... recomputed convolutions (57 of them)" grep -q "^CONV_fwd,True,57," "$WORK/rn/ops_summary_by_category.csv"
    check "... a recompute timeline without communication" grep -q "^total_comm_time,0.0,0.0,True$" "$WORK/rn/gpu_timeline.csv"
    check "... model code as entry point" grep -q "torchvision/models/resnet.py(89): forward" "$WORK/rn/unified_perf_summary.csv"
else
    echo "skip resnet checks: no $RN"
fi
exit $fail
