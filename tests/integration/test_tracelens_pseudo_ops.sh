#!/bin/bash
# TraceLens's --enable_pseudo_ops in `tlmpi report` (docs/pseudo-ops.md).
# Two hand-written traces, the expected rows worked out from the rules:
#
# tests/data/pseudo_ops_aiter.json (34 events; pseudo ops get UIDs 34, 35)
#   vllm::moe_forward (0) > vllm::rocm_aiter_fused_moe (1, dims
#     ((4, 8), (2, 32, 8))) launching MoeSortingKernel<aiter::fmoe> 5 us
#     (MoeSorting: no), aiter::fmoe_bf16_g1u1_32x64 30 us (yes: UID 34),
#     aiter::fmoe_dynamic_Quant_kernel 4 us (quant, any case: no)
#   vllm::moe_forward (14) > vllm::rocm_aiter_fused_moe (15, ((2, 8), ...))
#     launching aiter::fmoe_a and aiter::fmoe_b, 10 us each: two MoE
#     kernels, not exactly one: no pseudo op
#   aten::mm (24) launching aiter::fmoe_stray 6 us: not under the op: no
#   vllm::rocm_aiter_fused_moe (29, ((1, 8), ...)) whose only launch is
#     aiter::fmoe_bf16_g1u1_32x64 12 us: yes (UID 35); the op then has no
#     kernel of its own, so unified_perf_summary reaches the pseudo op
# so ops_summary: pseudo_op::moe_aiter_fused_1stage 42.0 (count 2,
# MoE_fused), vllm::rocm_aiter_fused_moe 5 + 4 + 10 + 10 = 29.0, aten::mm
# 6.0.
#
# tests/data/pseudo_ops_moe.json (45 events; pseudo ops 45..49)
#   vllm::moe_forward (0, ((4, 8), (8, 16))), no rocm_aiter_fused_moe in
#     the trace, launching _matmul_ogs_NNT_swiglu at 1040 (20 us),
#     _MATMUL_OGS_NNT at 1000 (30 us), _finalize_matmul_scatter (5 us),
#     elementwise_kernel (3 us): up = the earlier-starting _MATMUL_OGS_NNT
#     (45), down = the swiglu one (46), then the scatter (47)
#   vllm::outplace_fused_experts (17) launching fused_moe_kernel_gptq_awq_w4
#     at 2000 (12 us, up: 48), Fused_Moe_Kernel_GPTQ_AWQ_x (8 us: the match
#     is case-sensitive, no), fused_moe_kernel_gptq_awq_w4 at 2040 (9 us,
#     down: 49)
#   aten::mm (30) launching matmul_ogs_stray 6 us: not under the op: no
#   sglang_profiler::fused_topk_3 (35) and sglang_profiler::fused_topk_17
#     (40), 2 us each: renamed sglang_profiler::fused_topk (TraceLens's
#     first step), one row of count 2
# so ops_summary: up 30.0, down 20.0, gptq up 12.0, down 9.0,
# outplace_fused_experts 8.0, aten::mm 6.0, scatter 5.0 (other: not in
# the registry), sglang_profiler::fused_topk 4.0, moe_forward 3.0
# direct, 58.0 subtree.
# Also: the option off writes no pseudo op and the sheets the pseudo ops
# do not touch are the same; compat mode; the workbook; the shared traces
# (no MoE op: every sheet the same with the option; skipped when absent).
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
rows() { # rows FILE COL...: "name|COL|..." per row, in file order
    /usr/bin/python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1], encoding="utf-8")):
    print("|".join([r["name"]] + [r[c] for c in sys.argv[2:]]))' "$@"
}

A="$S/tests/data/pseudo_ops_aiter.json"
M="$S/tests/data/pseudo_ops_moe.json"
check "aiter: exit 0" R "$A" --enable_pseudo_ops --output_csvs_dir "$WORK/a"
check "... ops_summary rows" test "$(rows "$WORK/a/ops_summary.csv" total_direct_kernel_time_sum Count Categories)" = "pseudo_op::moe_aiter_fused_1stage|42.0|2|['MoE_fused']
vllm::rocm_aiter_fused_moe|29.0|2|['other']
aten::mm|6.0|1|['GEMM']"
check "... ops_unique_args: the op's shapes, UIDs after the trace's" test "$(rows "$WORK/a/ops_unique_args.csv" ex_UID 'Input Dims' total_direct_kernel_time_sum 'op category')" = "pseudo_op::moe_aiter_fused_1stage|34|((4, 8), (2, 32, 8))|30.0|MoE_fused
vllm::rocm_aiter_fused_moe|15|((2, 8), (2, 32, 8))|20.0|other
pseudo_op::moe_aiter_fused_1stage|35|((1, 8), (2, 32, 8))|12.0|MoE_fused
vllm::rocm_aiter_fused_moe|1|((4, 8), (2, 32, 8))|9.0|other
aten::mm|24|((8, 16), (16, 4))|6.0|GEMM"
check "... unified_perf_summary: the pseudo op of the op without own kernels" test "$(rows "$WORK/a/unified_perf_summary.csv" ex_UID 'op category' 'Kernel Time (µs)_sum')" = "vllm::rocm_aiter_fused_moe|1|other|39.0
vllm::rocm_aiter_fused_moe|15|other|20.0
pseudo_op::moe_aiter_fused_1stage|35|MoE_fused|12.0
aten::mm|24|GEMM|6.0"
check "... kernel_summary: the pseudo op is the kernel's parent op" grep -q "^MoE_fused,pseudo_op::moe_aiter_fused_1stage,aiter::fmoe_bf16_g1u1_32x64,7,42.0,2," "$WORK/a/kernel_summary.csv"

check "moe: exit 0" R "$M" --enable_pseudo_ops --output_csvs_dir "$WORK/m"
check "... ops_summary rows" test "$(rows "$WORK/m/ops_summary.csv" total_direct_kernel_time_sum total_subtree_kernel_time_sum Categories)" = "pseudo_op::moe_triton_unfused_up|30.0|30.0|['MoE_unfused']
pseudo_op::moe_triton_unfused_down|20.0|20.0|['MoE_unfused']
pseudo_op::moe_gptq_awq_up|12.0|12.0|['MoE_unfused']
pseudo_op::moe_gptq_awq_down|9.0|9.0|['MoE_unfused']
vllm::outplace_fused_experts|8.0|29.0|['other']
aten::mm|6.0|6.0|['GEMM']
pseudo_op::moe_triton_unfused_finalize_matmul_scatter|5.0|5.0|['other']
sglang_profiler::fused_topk|4.0|4.0|['other']
vllm::moe_forward|3.0|58.0|['other']"
"$TLMPI" report "$M" --enable_pseudo_ops --output_csvs_dir "$WORK/m1" 2> "$WORK/e"
check "... stderr counts them" grep -q "^  pseudo ops 5 (matched kernels skipped: no launch or parent op 0)$" "$WORK/e"
check "... ops_unique_args: UIDs and shapes" test "$(rows "$WORK/m/ops_unique_args.csv" ex_UID 'Input Dims' | grep pseudo)" = "pseudo_op::moe_triton_unfused_up|45|((4, 8), (8, 16))
pseudo_op::moe_triton_unfused_down|46|((4, 8), (8, 16))
pseudo_op::moe_gptq_awq_up|48|((4, 8), (2, 16, 8), (2, 8, 16), (4, 2), (4, 2))
pseudo_op::moe_gptq_awq_down|49|((4, 8), (2, 16, 8), (2, 8, 16), (4, 2), (4, 2))
pseudo_op::moe_triton_unfused_finalize_matmul_scatter|47|((4, 8), (8, 16))"

# tests/data/pseudo_ops_flydsl.json: aiter::fused_moe_ (0) over
#   sglang_profiler::moe_flydsl_moe_stage1_5 (1, flydsl_gemm1 40 us) and
#   sglang_profiler::moe_flydsl_moe_stage2_6 (6, flydsl_gemm2 30 us), its own
#   moe_sorting 4 us; sglang_profiler::moe_flydsl_moe_stage1_7 (15,
#   flydsl_gemm1 10 us) outside it.  Names lose _<n>; the two stages under
#   the op get a pseudo op above them (no perf model for MoE_unfused, so
#   the stage ops stay the launchers and leaf rows: no sheet shows the
#   pseudo ops, stderr counts them).
F="$S/tests/data/pseudo_ops_flydsl.json"
"$TLMPI" report "$F" --enable_pseudo_ops --output_csvs_dir "$WORK/f" 2> "$WORK/e"
check "flydsl: exit 0" test $? -eq 0
check "... two pseudo ops" grep -q "^  pseudo ops 2 (" "$WORK/e"
check "... ops_summary: the stage names without _<n>" test "$(rows "$WORK/f/ops_summary.csv" total_direct_kernel_time_sum Count)" = "sglang_profiler::moe_flydsl_moe_stage1|50.0|2
sglang_profiler::moe_flydsl_moe_stage2|30.0|1
aiter::fused_moe_|4.0|1"

# tests/data/pseudo_ops_attn.json (39 events; pseudo ops 39..41; python
# frames join the tree with --include_call_stack):
#   frame aiter/mla.py(120): mla_decode_fwd (0) over
#     aiter::mla_decode_stage1_asm_fwd (1, the donor) and aiter::mla_reduce_v1
#     (6): pseudo_mla_decode_fwd (39) wraps 1 and 6
#   frame aiter/mla.py(x): mla_decode_fwd (11): no digits, none
#   frame aiter/mla.py(300): mla_fp8_prefill_attn (17) over
#     aiter::mla_prefill_ps_asm_fwd (18): pseudo_mla_prefill_fwd (40)
#   aiter::v4_attention_with_output (23, launching hca_compress_forward_k:
#     mode hca) over frame paged_decode.py(88): sparse_attn_v4_paged_decode
#     (28) over aten::bmm (29) and aten::add (34): pseudo_v4_paged_decode_hca
#     (41) wraps 29 and 34
# The pseudo op names have no perf model in tlmpi (registry: category
# only), so the walk goes on to the launchers: the rows stay, their
# call_stack_full shows the pseudo op, the cpu roots 1, 6, 18 give way to
# 39 and 40 (5 -> 4), and the synthetic row's UID follows the pseudo ops
# (39 -> 42).  Without the frames in the tree: nothing changes.
T4="$S/tests/data/pseudo_ops_attn.json"
"$TLMPI" report "$T4" --enable_pseudo_ops --include_call_stack --output_csvs_dir "$WORK/t" 2> "$WORK/e"
check "attn: exit 0" test $? -eq 0
check "... three pseudo ops" grep -q "^  pseudo ops 3 (" "$WORK/e"
check "... cpu roots 4" grep -q "cpu roots 4;" "$WORK/e"
check "... call stacks through the pseudo ops" test "$(rows "$WORK/t/unified_perf_summary.csv" ex_UID call_stack_full)" = "aiter::mla_prefill_ps_asm_fwd|18|['aiter/mla.py(300): mla_fp8_prefill_attn', 'pseudo_mla_prefill_fwd', 'aiter::mla_prefill_ps_asm_fwd', 'mla_pfl_ps']
aiter::mla_decode_stage1_asm_fwd|1|['aiter/mla.py(120): mla_decode_fwd', 'pseudo_mla_decode_fwd', 'aiter::mla_decode_stage1_asm_fwd', 'mla_a8w8_qh16']
aten::bmm|29|['aiter::v4_attention_with_output', 'pseudo_v4_paged_decode_hca', 'aten::bmm', 'split_kv']
aiter::mla_decode_stage1_asm_fwd|12|['aiter/mla.py(x): mla_decode_fwd', 'aiter::mla_decode_stage1_asm_fwd', 'mla_a8w8_qh16']
aten::add|34|['aiter::v4_attention_with_output', 'pseudo_v4_paged_decode_hca', 'aten::add', 'reduce_kv']
aiter::mla_reduce_v1|6|['aiter/mla.py(120): mla_decode_fwd', 'pseudo_mla_decode_fwd', 'aiter::mla_reduce_v1', 'mla_reduce']
aiter::v4_attention_with_output->hca_compress_forward_k (Synthetic Op)|42|['aiter::v4_attention_with_output', 'hca_compress_forward_k']"
R "$T4" --include_call_stack --output_csvs_dir "$WORK/t0"
check "... off: no pseudo op" test -z "$(grep -l pseudo "$WORK/t0"/*.csv)"
check "... off: 5 cpu roots" grep -q "5 cpu_op roots" "$WORK/t0/report.md"
for f in ops_summary ops_unique_args kernel_summary gpu_timeline GEMM; do
    check "... $f.csv the same with the option" cmp -s "$WORK/t0/$f.csv" "$WORK/t/$f.csv"
done
R "$T4" --output_csvs_dir "$WORK/t1" && R "$T4" --enable_pseudo_ops --output_csvs_dir "$WORK/t2"
check "... without the frames in the tree: every sheet the same" diff -r "$WORK/t1" "$WORK/t2"

for t in a m; do
    src=$A
    [ $t = m ] && src=$M
    R "$src" --output_csvs_dir "$WORK/${t}0"
    check "$t without the option: no pseudo op" test -z "$(grep -l pseudo_op "$WORK/${t}0"/*.csv)"
    [ $t = m ] && check "... nor renamed sglang_profiler ops" test "$(rows "$WORK/m0/ops_summary.csv" Count | grep sglang | sort)" = "sglang_profiler::fused_topk_17|1
sglang_profiler::fused_topk_3|1"
    for f in gpu_timeline GEMM; do
        [ -e "$WORK/${t}0/$f.csv" ] || continue
        check "... $f.csv the same with the option" cmp -s "$WORK/${t}0/$f.csv" "$WORK/$t/$f.csv"
    done
    check "$t: --tracelens_compat all: exit 0" R "$src" --enable_pseudo_ops --tracelens_compat all --output_csvs_dir "$WORK/${t}c"
    # integer times print as integers there (addendum A1)
    check "... the same pseudo op rows" test "$(rows "$WORK/${t}c/ops_summary.csv" total_direct_kernel_time_sum | grep pseudo)" = "$(rows "$WORK/$t/ops_summary.csv" total_direct_kernel_time_sum | grep pseudo | sed 's/\.0$//')"
done

check "workbook: exit 0" R "$M" --enable_pseudo_ops --output_xlsx_path "$WORK/m.xlsx"
check "... written" test -s "$WORK/m.xlsx"
check "the wrapper takes it" "$S/scripts/tlmpi-tracelens" --profile_json_path "$M" --enable_pseudo_ops --output_csvs_dir "$WORK/w"
check "... the same ops_summary as compat mode" cmp -s "$WORK/w/ops_summary.csv" "$WORK/mc/ops_summary.csv"

# the shared traces hold no MoE op: the option changes nothing
for tr in "${TLM_SHARED_DIR:-/nonexistent}"/traces/qwen_h100/trace.json.gz \
          "${TLM_SHARED_DIR:-/nonexistent}"/traces/resnet_mi300/*.json.gz; do
    [ -f "$tr" ] || { echo "skip $tr (absent)"; continue; }
    n=$(basename "$(dirname "$tr")")
    R "$tr" --output_csvs_dir "$WORK/$n.0" &&
        R "$tr" --enable_pseudo_ops --output_csvs_dir "$WORK/$n.1"
    check "$n: every sheet the same with the option" diff -r "$WORK/$n.0" "$WORK/$n.1"
done
exit $fail
