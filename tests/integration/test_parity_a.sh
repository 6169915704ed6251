#!/bin/bash
# TraceLens parity classes of spec/perfreport-addendum.md, one small trace
# each (tests/data/parity/, written by gen_traces.py there), expected rows
# written out from the addendum:
#   A1 exact times: epoch microseconds with decimals nest as Python's
#      doubles do; integer epoch times give exact totals; integer columns
#      print as integers with --tracelens_compat (integer_times), also the
#      empty sums (0) of a float trace
#   A2 a launch without an 's' flow leaves its memset unlinked (compat)
#   A6 every Synthetic row of a graph launch takes the category of the
#      graph's earliest kernel (compat synthetic_row_category)
#   A7 no short kernel: header-only histogram, summary "\n"; short kernels
#      without shapes: the two header lines (compat short_kernel_empty_sheets)
#   A8 GPU-only trace: four sheets, kernel_summary without Parent cpu_op,
#      short kernels by name (compat gpu_only_sheets)
#   A9 20 tied rows in numpy 1.24 quicksort order (compat numpy_sort_order),
#      as pandas 1.5.3 ordered them (a9_expected_*.txt); coll_analysis
#      ties in the groupby's sorted-key order
# and that the default mode keeps tlmpi's own behaviour where it differs.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
DATA="$SRC/tests/data/parity"
PY=/usr/bin/python3
COLS="$SRC/tests/integration/csvcols.py"
if ! "$PY" -c 'import csv' 2>/dev/null; then
    echo "skip: $PY not usable"
    exit 77
fi
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
MU=$'\xc2\xb5'

run() { # run TRACE OUTNAME [options]: report into $WORK/OUTNAME
    local t="$1" o="$2"
    shift 2
    if ! "$TLMPI" report "$DATA/$t.json" --output_csvs_dir "$WORK/$o" \
            --quiet "$@" > "$WORK/$o.log" 2>&1; then
        echo "FAIL: tlmpi report $t $*"
        cat "$WORK/$o.log"
        fail=1
    fi
}
expect() { # expect DESC FILE: stdin must equal FILE's selected text
    local desc="$1" got="$2"
    if diff -u - "$got" > "$WORK/diff.txt"; then
        echo "ok   $desc"
    else
        echo "FAIL $desc"
        cat "$WORK/diff.txt"
        fail=1
    fi
}
cols() { # cols OUT SHEET COLUMN...: the columns into $WORK/cols.txt
    local o="$1" s="$2"
    shift 2
    "$PY" "$COLS" "$WORK/$o/$s.csv" "$@" > "$WORK/cols.txt" 2>&1
    echo "$WORK/cols.txt"
}

# ---- A1 -------------------------------------------------------------------
run a1_epoch_tree a1t --tracelens_compat all
run a1_epoch_tree a1t_def
for o in a1t a1t_def; do
    expect "A1 $o: aten::mul nests (ends equal as doubles), keeps its kernel" \
        "$(cols $o ops_summary name Count)" <<'X'
aten::mul | 1
X
done
expect "A1 compat: empty Kernel Time sums of a float trace print as 0" \
    "$(cols a1t GEMM name "Kernel Time (${MU}s)_sum" "Kernel Time (${MU}s)_min" \
        "Kernel Time (${MU}s)_max" "Kernel Time (${MU}s)_mean" \
        "Kernel Time (${MU}s)_median")" <<'X'
aten::mm | 0 | 0 | 0 | 0.0 | 0.0
X
expect "A1 default: the same as floats" \
    "$(cols a1t_def GEMM name "Kernel Time (${MU}s)_sum" \
        "Kernel Time (${MU}s)_min")" <<'X'
aten::mm | 0.0 | 0.0
X
run a1_epoch_int a1i --tracelens_compat all
run a1_epoch_int a1i_def
for o in a1i a1i_def; do
    expect "A1 $o: integer epoch times exact (total 148 us, not 147.75)" \
        "$(cols $o gpu_timeline type "time ms")" <<'X'
computation_time | 0.052
exposed_comm_time | 0.0
exposed_memcpy_time | 0.0
busy_time | 0.052
idle_time | 0.096
total_time | 0.148
total_comm_time | 0.0
total_memcpy_time | 0.0
X
done
expect "A1 compat: integer kernel_summary columns" \
    "$(cols a1i kernel_summary "Kernel name" "Kernel duration (${MU}s)_sum" \
        "Kernel duration (${MU}s)_count" "Kernel duration (${MU}s)_mean" \
        "Kernel duration (${MU}s)_min" "Kernel duration (${MU}s)_max")" <<'X'
sgemm_kernel | 40 | 1 | 40.0 | 40 | 40
add_kernel | 12 | 2 | 6.0 | 5 | 7
X
expect "A1 compat: integer ops_summary sums, float ms" \
    "$(cols a1i ops_summary name total_direct_kernel_time_sum \
        total_subtree_kernel_time_sum total_direct_kernel_time_ms)" <<'X'
aten::mm | 40 | 40 | 0.04
aten::add | 12 | 12 | 0.012
X
expect "A1 default: floats" \
    "$(cols a1i_def ops_summary name total_direct_kernel_time_sum)" <<'X'
aten::mm | 40.0
aten::add | 12.0
X
expect "A1 compat: unified durations and kernel_details_summary" \
    "$(cols a1i unified_perf_summary name total_duration_us duration_us_min \
        "Kernel Time (${MU}s)_sum" kernel_details_summary)" <<'X'
aten::mm | 30 | 30 | 40 | [{'name': 'sgemm_kernel', 'stream': 7, 'count': 1, 'total_duration_us': 40, 'mean_duration_us': 40.0, 'median_duration_us': 40.0, 'std_dev_duration_us': 0.0, 'min_duration_us': 40, 'max_duration_us': 40}]
aten::add | 20 | 20 | 12 | [{'name': 'add_kernel', 'stream': 7, 'count': 1, 'total_duration_us': 5, 'mean_duration_us': 5.0, 'median_duration_us': 5.0, 'std_dev_duration_us': 0.0, 'min_duration_us': 5, 'max_duration_us': 5}, {'name': 'add_kernel', 'stream': 7, 'count': 1, 'total_duration_us': 7, 'mean_duration_us': 7.0, 'median_duration_us': 7.0, 'std_dev_duration_us': 0.0, 'min_duration_us': 7, 'max_duration_us': 7}]
X

# ---- A2 -------------------------------------------------------------------
run a2_no_s_flow a2 --tracelens_compat all
run a2_no_s_flow a2_def
expect "A2 compat: the memset without an 's' flow is unlinked" \
    "$(cols a2 ops_summary name Count)" <<'X'
aten::add | 1
X
expect "A2 compat: computation without it" \
    "$(head -n 1 "$(cols a2 gpu_timeline type "time ms")" > "$WORK/a2.txt";
       echo "$WORK/a2.txt")" <<'X'
computation_time | 0.003
X
expect "A2 default: linked by correlation" \
    "$(cols a2_def ops_summary name Count)" <<'X'
aten::mean | 1
aten::add | 1
X

# ---- A6 -------------------------------------------------------------------
run a6_graph a6 --tracelens_compat all
run a6_graph a6_def
expect "A6 compat: Synthetic rows of the graph are 'other' (earliest kernel)" \
    "$(cols a6 unified_perf_summary name "op category")" <<'X'
cudaGraphLaunch->void at::native::vectorized_elementwise_kernel<4, bfloat16tofloat32_copy>(int) (Synthetic Op) | other
cudaGraphLaunch->void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int) (Synthetic Op) | other
cudaGraphLaunch->void at::native::elementwise_kernel_manual_unroll<128, 8>(int) (Synthetic Op) | other
aten::add | elementwise
X
expect "A6 default: each row from its own kernel" \
    "$(cols a6_def unified_perf_summary "op category")" <<'X'
elementwise
other
elementwise
elementwise
X
expect "A6: the launcher row is 'other' in ops_summary" \
    "$(cols a6 ops_summary name Categories)" <<'X'
cudaGraphLaunch | ['other']
aten::add | ['elementwise']
X
expect "A6 compat: graph kernels (no cpu_op) left out of short kernels" \
    "$(cols a6 short_kernels_summary "Parent cpu_op" "Kernel name")" <<'X'
aten::add | add_kernel
X

# ---- A7 -------------------------------------------------------------------
run a7_no_short a7 --tracelens_compat all
run a7_no_short a7_def
printf 'bin_start,bin_end,count\n' | expect "A7 no short kernel: histogram header only" \
    "$WORK/a7/short_kernel_histogram.csv"
printf '\n' | expect "A7 no short kernel: summary is one newline" \
    "$WORK/a7/short_kernels_summary.csv"
if [ "$(wc -l < "$WORK/a7_def/short_kernel_histogram.csv")" -ne 101 ]; then
    echo "FAIL A7 default: 100 zero bins expected"
    fail=1
fi
run a7_no_shapes a7b --tracelens_compat all
printf 'Kernel duration (%ss),Kernel duration (%ss),Kernel duration (%ss)\nsum,count,mean\n' \
    "$MU" "$MU" "$MU" | expect "A7 null keys: the two header lines" \
    "$WORK/a7b/short_kernels_summary.csv"
expect "A7 null keys: histogram as usual (edges float, as numpy's)" \
    "$(sed -n '1p;100p' "$(cols a7b short_kernel_histogram bin_start bin_end \
        count)" > "$WORK/a7h.txt"; echo "$WORK/a7h.txt")" <<'X'
2.0 | 2.02 | 1
3.98 | 4.0 | 1
X

# ---- A8 -------------------------------------------------------------------
run a8_gpu_only a8 --tracelens_compat all
run a8_gpu_only a8_def
ls "$WORK/a8" | expect "A8: GPU-only sheets" /dev/stdin <<'X'
gpu_timeline.csv
kernel_summary.csv
report.md
short_kernel_histogram.csv
short_kernels_summary.csv
X
printf 'Parent op category,Kernel name,Kernel stream,Kernel duration (%ss)_sum,Kernel duration (%ss)_count,Kernel duration (%ss)_mean,Kernel duration (%ss)_min,Kernel duration (%ss)_max,Percent of kernels time (%%),Percent of total time (%%)\n' \
    "$MU" "$MU" "$MU" "$MU" "$MU" > "$WORK/a8h.txt"
head -n 1 "$WORK/a8/kernel_summary.csv" | expect "A8: kernel_summary header" "$WORK/a8h.txt"
expect "A8: kernel_summary rows (3 keys, launch APIs merged)" \
    "$(cols a8 kernel_summary "Parent op category" "Kernel name" \
        "Kernel duration (${MU}s)_sum" "Kernel duration (${MU}s)_count")" <<'X'
runtime | k_gemm | 12.0 | 1
runtime | k_add | 6.0 | 2
 | k_add | 4.0 | 1
runtime | k_a_tiny | 1.25 | 1
runtime | k_small | 1.25 | 1
X
expect "A8: short_kernels_summary by Kernel name (ties: first seen)" \
    "$(cols a8 short_kernels_summary "Kernel name" \
        "Short Kernel duration (${MU}s) sum" "Short Kernel count" \
        "Short Kernel duration (${MU}s) mean")" <<'X'
k_add | 10.0 | 3 | 3.3333333333333335
k_small | 1.25 | 1 | 1.25
k_a_tiny | 1.25 | 1 | 1.25
X
if ! head -n 1 "$WORK/a8_def/kernel_summary.csv" | grep -q 'Parent cpu_op'; then
    echo "FAIL A8 default: kernel_summary keeps Parent cpu_op"
    fail=1
fi

# ---- A9 -------------------------------------------------------------------
run a9_ties a9 --tracelens_compat all
run a9_ties a9_def
expect "A9 compat: ops_summary in pandas' order" \
    "$(cols a9 ops_summary name)" < "$DATA/a9_expected_ops_summary.txt"
expect "A9 compat: kernel_summary in pandas' order" \
    "$(cols a9 kernel_summary "Kernel name")" \
    < "$DATA/a9_expected_kernel_summary.txt"
if cmp -s "$(cols a9_def ops_summary name)" "$DATA/a9_expected_ops_summary.txt"; then
    echo "FAIL A9 default: expected the stable order, got numpy's"
    fail=1
fi
expect "A9 default: stable (names ascending among ties)" \
    "$(tr '\n' ' ' < "$(cols a9_def ops_summary name)" > "$WORK/a9d.txt";
       echo >> "$WORK/a9d.txt"; echo "$WORK/a9d.txt")" <<'X'
aten::op_b aten::op_c aten::op_e aten::op_g aten::op_j aten::op_l aten::op_n aten::op_q aten::op_r aten::op_t aten::op_a aten::op_d aten::op_h aten::op_i aten::op_m aten::op_o aten::op_s aten::op_f aten::op_k aten::op_p 
X
run a9_coll a9c --tracelens_compat all
run a9_coll a9c_def
expect "A9 compat: coll_analysis ties in sorted-key order (numeric)" \
    "$(cols a9c coll_analysis "In msg nelems" dur_sum operation_count)" <<'X'
3 | 10 | 1
20 | 10 | 1
100 | 10 | 2
X
expect "A9 default: first appearance" \
    "$(cols a9c_def coll_analysis "In msg nelems" dur_sum)" <<'X'
100 | 10.0
20 | 10.0
3 | 10.0
X
exit $fail
