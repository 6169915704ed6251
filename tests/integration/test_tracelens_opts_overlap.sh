#!/bin/bash
# TraceLens's --include_overlap_info in `tlmpi report` (perfreport §4.11,
# docs/report.md "Overlap sheets").  tests/data/overlap_small.json, whose
# expected cells are worked out from the rules (docs/metrics-perf.md):
#   A aten::mm     (uid 0)  gemm_a      s7 [1000,1020)
#   D aten::copy_  (uid 5)  copy_kernel s8 [1005,1015)   10 us with A's
#   B aten::mm     (uid 10) gemm_a      s7 [1100,1120)
#   E aten::copy_  (uid 15) copy_kernel s8 [1119.5,1130) 0.5 us with B's:
#                                                        under 1 us, none
#   C aten::add    (uid 20) add_kernel  s7 [1200,1210), add_kernel2 s8
#                           [1202,1206): the same cpu_op, no pair
#   F aten::fill_  (uid 29) fill_kernel s9 [1204,1208): 4 us with
#                           add_kernel, 2 us with add_kernel2
# so A: ['copy_kernel'], dur 10.0, stream 8, 10/10 = 1.0, overlap_pct
# 10/20 = 0.5; D: ['gemm_a'], 20.0, 7, 10/20 = 0.5, pct 1.0; B, E: [],
# {}, 0.0; C: ['fill_kernel'], dur 4.0, stream 9, (4/4 + 2/4)/2 = 0.75,
# pct |[1204,1208)| / |[1200,1210)| = 0.4; F: both add kernels in start
# order, 4/10 = 0.4 and 2/4 = 0.5, pct 1.0.  The *_kl_overlap sheets split
# the groups of A/B and D/E by these names.  Also: columns and sheet
# order, the other sheets unchanged, compat mode, the workbook, and the
# shared qwen / resnet traces (no TraceLens reference exists for these
# sheets: only that they are written; skipped when absent).
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
T="$S/tests/data/overlap_small.json"
R() { "$TLMPI" report --quiet "$@"; }
cell() { # cell FILE UIDCOL UID COL: the cell of the row whose UIDCOL is UID
    /usr/bin/python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1], encoding="utf-8")):
    if r[sys.argv[2]] == sys.argv[3]:
        print(r[sys.argv[4]])' "$@"
}
row3() { # row3 FILE UIDCOL UID: names|details|overlap_pct_mean
    echo "$(cell "$1" "$2" "$3" overlapping_kernel_names)|$(cell "$1" "$2" "$3" overlapping_kernels_details)|$(cell "$1" "$2" "$3" overlap_pct_mean)"
}

check "--include_overlap_info: exit 0" R "$T" --include_overlap_info --output_csvs_dir "$WORK/o"
for f in ops_unique_args unified_perf_summary GEMM BinaryElementwise UnaryElementwise; do
    check "... ${f}_kl_overlap.csv written" test -s "$WORK/o/${f}_kl_overlap.csv"
done
O="$WORK/o/ops_unique_args_kl_overlap.csv"
hdr=$(head -n 1 "$O")
check "... names: the last key, after Concrete Inputs" grep -q "^name,op category,process_name,process_label,thread_name,Input Dims,Input type,Input Strides,Concrete Inputs,overlapping_kernel_names,operation_count," <<< "$hdr"
check "... details and overlap_pct_mean last" grep -q ",Cumulative Percentage (%),overlapping_kernels_details,overlap_pct_mean$" <<< "$hdr"
check "... 6 rows: the mm and copy_ groups split" test "$(($(wc -l < "$O") - 1))" -eq 6
check "... A: copy_kernel, 10 us of 20" test "$(row3 "$O" ex_UID 0)" = "['copy_kernel']|{'copy_kernel': {'dur': 10.0, 'stream': 8, 'overlap_pct': 1.0}}|0.5"
check "... B: none" test "$(row3 "$O" ex_UID 10)" = "[]|{}|0.0"
check "... D: gemm_a, half of it" test "$(row3 "$O" ex_UID 5)" = "['gemm_a']|{'gemm_a': {'dur': 20.0, 'stream': 7, 'overlap_pct': 0.5}}|1.0"
check "... E: 0.5 us is under 1 us" test "$(row3 "$O" ex_UID 15)" = "[]|{}|0.0"
check "... C: its own two kernels are no pair" test "$(row3 "$O" ex_UID 20)" = "['fill_kernel']|{'fill_kernel': {'dur': 4.0, 'stream': 9, 'overlap_pct': 0.75}}|0.4"
check "... F: two partners, start order" test "$(row3 "$O" ex_UID 29)" = "['add_kernel', 'add_kernel2']|{'add_kernel': {'dur': 10.0, 'stream': 7, 'overlap_pct': 0.4}, 'add_kernel2': {'dur': 4.0, 'stream': 8, 'overlap_pct': 0.5}}|1.0"
check "... operation_count 1 each" test "$(cell "$O" ex_UID 0 operation_count)$(cell "$O" ex_UID 10 operation_count)" = "11"
U="$WORK/o/unified_perf_summary_kl_overlap.csv"
check "unified_perf_summary_kl_overlap: names after Concrete Inputs" grep -q "^name,op category,process_name,process_label,thread_name,Input Dims,Input type,Input Strides,Concrete Inputs,overlapping_kernel_names,ex_UID," "$U"
check "... C" test "$(row3 "$U" ex_UID 20)" = "['fill_kernel']|{'fill_kernel': {'dur': 4.0, 'stream': 9, 'overlap_pct': 0.75}}|0.4"
check "... A and B apart" test "$(row3 "$U" ex_UID 0)/$(row3 "$U" ex_UID 10)" = "['copy_kernel']|{'copy_kernel': {'dur': 10.0, 'stream': 8, 'overlap_pct': 1.0}}|0.5/[]|{}|0.0"
G="$WORK/o/GEMM_kl_overlap.csv"
check "GEMM_kl_overlap: names after the params" grep -q "^name,param: M,.*,param: B,overlapping_kernel_names,GFLOPS_first," "$G"
check "... two mm rows: A and B apart" test "$(row3 "$G" UID_first 0)/$(row3 "$G" UID_first 10)" = "['copy_kernel']|{'copy_kernel': {'dur': 10.0, 'stream': 8, 'overlap_pct': 1.0}}|0.5/[]|{}|0.0"
check "... name_count 1 each" test "$(cell "$G" UID_first 0 name_count)$(cell "$G" UID_first 10 name_count)" = "11"

R "$T" --output_csvs_dir "$WORK/p"
check "without the option: no *_kl_overlap sheet" test -z "$(ls "$WORK/p" | grep _kl_overlap)"
for f in "$WORK"/p/*.csv; do
    b=$(basename "$f")
    check "... $b unchanged by the option" cmp -s "$f" "$WORK/o/$b"
done

check "--tracelens_compat all: exit 0" R "$T" --include_overlap_info --tracelens_compat all --output_csvs_dir "$WORK/c"
same=1
for u in 0 5 10 15 20 29; do
    [ "$(row3 "$WORK/o/ops_unique_args_kl_overlap.csv" ex_UID $u)" = "$(row3 "$WORK/c/ops_unique_args_kl_overlap.csv" ex_UID $u)" ] || same=0
done
check "... the same overlap cells (only integer typing differs)" test $same -eq 1

check "workbook: exit 0" R "$T" --include_overlap_info --output_xlsx_path "$WORK/w.xlsx"
if command -v unzip > /dev/null; then
    order=$(unzip -p "$WORK/w.xlsx" xl/workbook.xml | grep -o '<sheet name="[^"]*"' | sed 's/.*name="//;s/"$//' | tr '\n' ' ')
    check "... sheet order" test "$order" = "gpu_timeline ops_summary_by_category ops_summary ops_unique_args ops_unique_args_kl_overlap unified_perf_summary unified_perf_summary_kl_overlap GEMM GEMM_kl_overlap BinaryElementwise BinaryElementwise_kl_overlap UnaryElementwise UnaryElementwise_kl_overlap kernel_summary short_kernel_histogram short_kernels_summary findings "
fi

# ---- bounded: 2000 kernels of 2000 streams all running at once under one
# op need 2000 x 1999 / 2 comparisons, over 8 x 2000 + 2^20: refused
/usr/bin/python3 - "$WORK/wide.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::wide", "pid": 1, "tid": 1,
       "ts": 0, "dur": 100000, "args": {}}]
for i in range(2000):
    c = 10 + i
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
               "pid": 1, "tid": 1, "ts": 1 + i, "dur": 1, "args": {"correlation": c}})
    ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": c, "pid": 1, "tid": 1, "ts": 1 + i})
    ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": c, "pid": 0, "tid": 100 + i,
               "ts": 200000 + i * 0.001, "bp": "e"})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 100 + i,
               "ts": 200000 + i * 0.001, "dur": 1000, "args": {"correlation": c, "stream": 100 + i}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
R "$WORK/wide.json" --include_overlap_info --output_csvs_dir "$WORK/wide" 2> "$WORK/e"
check "2000 streams at once: exit 1" test $? -eq 1
check "... the option named, the reason" grep -q -- "--include_overlap_info: too many GPU events of different streams" "$WORK/e"
check "... nothing written" test ! -e "$WORK/wide/gpu_timeline.csv"
check "... without the option: exit 0" R "$WORK/wide.json" --output_csvs_dir "$WORK/wide0"

# ---- shared traces: written without error (no TraceLens reference)
TR="${TLM_SHARED_DIR:-}/traces"
if [ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$TR" ]; then
    for t in qwen_h100/trace.json.gz resnet_mi300/resnet_act_checkpoint.json.gz; do
        [ -f "$TR/$t" ] || continue
        d="$WORK/shared_${t%%/*}"
        check "$t: exit 0" R "$TR/$t" --include_overlap_info --output_csvs_dir "$d"
        check "... ops_unique_args_kl_overlap and unified_perf_summary_kl_overlap" test -s "$d/ops_unique_args_kl_overlap.csv" -a -s "$d/unified_perf_summary_kl_overlap.csv"
        check "... as many operations as ops_unique_args" test "$(/usr/bin/python3 -c '
import csv, sys
s = lambda f: sum(int(r["operation_count"]) for r in csv.DictReader(open(f, encoding="utf-8")))
print(s(sys.argv[1]) == s(sys.argv[2]))' "$d/ops_unique_args.csv" "$d/ops_unique_args_kl_overlap.csv")" = "True"
    done
    r="$WORK/shared_resnet_mi300/ops_unique_args_kl_overlap.csv"
    if [ -f "$r" ]; then
        check "resnet: ops overlapped by the NCCL kernel of another stream" grep -q "ncclDevKernel_Generic" "$r"
    fi
else
    echo "skip: shared traces (TLM_SHARED_DIR)"
fi
exit $fail
