#!/bin/bash
# TraceLens parity classes A3-A5 (perf-model families of newer TraceLens)
# through the CLI: `tlmpi report --tracelens_compat all` on the
# hand-written traces tests/data/parity_b_*.json writes the new sheets
# (RMSNorm_fwd, RoPE_fwd, InferenceAttention_fwd) with the rows and
# columns the addendum gives, the categories of the registry (A3), the
# data-dependent columns (A5), and keeps the default mode's stable
# unified_perf_summary header.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
DATA="$SRC/tests/data"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
run() { # run NAME OUTDIR [OPTS...]
    local t="$1" o="$2"
    shift 2
    "$TLMPI" report "$DATA/parity_b_$t.json" --output_csvs_dir "$o" --quiet "$@"
}
row() { # row CSV NAME: the line of that op (first field exact)
    grep -m1 "^$2," "$1"
}

# --- A3: registry and categories
O="$WORK/registry"
check "registry trace: exit 0" run registry "$O" --tracelens_compat all
check "_C::rms_norm is other" grep -q "^_C::rms_norm,.*,\['other'\]," "$O/ops_summary.csv"
check "aiter::rmsnorm is RMSNorm" grep -q "^aiter::rmsnorm,.*,\['RMSNorm'\]," "$O/ops_summary.csv"
check "category-only GEMM op without a model" \
    grep -q "^aiter::gemm_a8w8_ck,GEMM,.*,False,[0-9.]*,[0-9.]*$" "$O/unified_perf_summary.csv"
check "Synthetic row named in the category-only table" \
    grep -q "^hipModuleLaunchKernel->kv_indices_generate_kernel (Synthetic Op),InferenceAttention," \
    "$O/unified_perf_summary.csv"
check "RMSNorm_fwd.csv written" test -s "$O/RMSNorm_fwd.csv"

# --- A4: the models' rows (GFLOPS, Data Moved (MB) of the addendum's checks)
O="$WORK/models"
check "models trace: exit 0" run models "$O" --tracelens_compat all
for s in GEMM RMSNorm_fwd RoPE_fwd InferenceAttention_fwd UnaryElementwise Normalization; do
    check "writes $s.csv" test -s "$O/$s.csv"
done
check "no BinaryElementwise / SDPA sheets" test ! -e "$O/SDPA_fwd.csv"
check "aiter::gemm_a16w16 3092.37645312 GFLOPS, 1032 MB" \
    grep -q "^aiter::gemm_a16w16,1,15360,24576,4096,False,.*,3092.37645312,1032.0," "$O/GEMM.csv"
check "aiter::rmsnorm 0.25264128 GFLOPS, 240.000244140625 MB" \
    grep -q "^aiter::rmsnorm,.*,128,False,True,False,0.25264128,240.000244140625," "$O/RMSNorm_fwd.csv"
check "aiter::add_rmsnorm 0.31460352 GFLOPS, 480.0078125 MB" \
    grep -q "^aiter::add_rmsnorm,.*,0.31460352,480.0078125," "$O/RMSNorm_fwd.csv"
check "rotary_embedding: num_elements 78643200, 0.2359296 GFLOPS, 300 MB" \
    grep -q "^sgl_kernel::rotary_embedding,78643200,0.2359296,300.0," "$O/RoPE_fwd.csv"
check "silu_and_mul 0.9437184 GFLOPS, 1080 MB, 0.8333333333333334 FLOP/B" \
    grep -q "^sgl_kernel::silu_and_mul,.*,0.9437184,1080.0,0.8333333333333334," "$O/UnaryElementwise.csv"
check "vLLM attention 65.010180096 GFLOPS, 211.826171875 MB" \
    grep -q "^vllm::unified_attention_with_output,1,8192,64,8,8,8192,8,64,64,0.0,False,True,8155,.*,65.010180096,211.826171875," \
    "$O/InferenceAttention_fwd.csv"
check "store_cache 0.0 GFLOPS, 120 MB" \
    grep -q "^sglang::store_cache,.*,15728640,c10::BFloat16,0.0,120.0,0.0," "$O/InferenceAttention_fwd.csv"
check "InferenceAttention_fwd: 2 rows (TypeError rows skipped)" \
    test "$(wc -l < "$O/InferenceAttention_fwd.csv")" -eq 3
check "aiter::_groupnorm_run in Normalization" \
    grep -q "^aiter::_groupnorm_run,.*,0.671089408,512.00146484375," "$O/Normalization.csv"
U="$O/unified_perf_summary.csv"
check "unified: vLLM op without sums kept, no metrics, has_perf_model" \
    grep -q '^vllm::unified_attention_with_output,InferenceAttention,.*,,,,,,,,,,8.0,.*,True,' "$U"
check "unified: NotImplementedError op dropped with its kernel" \
    test -z "$(grep dropped_attention_kernel "$U")"
check "unified: Triton op as itself, vector_bfloat16" \
    grep -q '^triton_poi_fused__unsafe_view_mul_silu_2,triton,.*,1.34217728,1536.0,.*,vector_bfloat16,' "$U"
check "unified: no Synthetic row for the Triton kernel" \
    test -z "$(grep 'Synthetic Op' "$U")"

# --- A5: data-dependent columns
O="$WORK/columns"
check "columns trace: exit 0" run columns "$O" --tracelens_compat all
check "GEMM param columns in order of first appearance" test "$(head -n 1 "$O/GEMM.csv" | cut -d, -f1-10)" = \
    "name,param: M,param: N,param: K,param: bias,param: dtype_A_B,param: B,param: transpose,param: stride_A,param: stride_B"
check "GEMM: missing keys print nan" \
    grep -q '^vllm::rocm_unquantized_gemm,32,201088,2880,False,.*,1,"(True, False)",nan,nan,37.06454016,1117.05859375,' "$O/GEMM.csv"
check "UnaryElementwise: input_shape/output_shape after stride_output" \
    test "$(head -n 1 "$O/UnaryElementwise.csv" | cut -d, -f1-8)" = \
    "name,param: op_shape,param: dtype_in_out,param: stride_input,param: stride_output,param: input_shape,param: output_shape,GFLOPS_first"
O="$WORK/nometrics"
NOPERF="name,op category,process_name,process_label,thread_name,Input Dims,Input type,Input Strides,Concrete Inputs,ex_UID,operation_count,total_duration_us,mean_duration_us,std_duration_us,Kernel Time (µs)_mean,Kernel Time (µs)_std,Kernel Time (µs)_sum,duration_us_median,duration_us_min,duration_us_max,Kernel Time (µs)_median,Kernel Time (µs)_min,Kernel Time (µs)_max,kernel_details_summary,trunc_kernel_details,perf_params,has_perf_model,Percentage (%),Cumulative Percentage (%)"
check "no-metrics trace: exit 0" run nometrics "$O" --tracelens_compat all
check "unified without metrics: TraceLens's header" test "$(head -n 1 "$O/unified_perf_summary.csv")" = "$NOPERF"
O="$WORK/nometrics_default"
check "no-metrics trace, default mode: exit 0" run nometrics "$O"
check "default mode keeps the perf columns" grep -q '^name,.*,GFLOPS,Data Moved (MB),FLOPS/Byte,Compute Spec,' "$O/unified_perf_summary.csv"
exit $fail
