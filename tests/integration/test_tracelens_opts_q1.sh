#!/bin/bash
# TraceLens's --group_by_num_kernels and --include_first_occurrence_time
# in `tlmpi report` (issue 15 item 3; perfreport.md §4.4, §8; docs/cli.md
# "TraceLens's command line").  tests/data/tl_opts_q1.json: aten::mul once
# at ts 500.25 (1 kernel), aten::add with the same shapes at ts 1000 (1
# kernel, 6 us), 1100 (2 kernels, 6 + 2 us), 1200 (1 kernel, 8 us).
#  - off (default): no new column, aten::add one row of 3 launches
#  - --group_by_num_kernels: `num_kernels` after `Concrete Inputs`; aten::add
#    split into num_kernels 1 (2 launches, 14 us) and 2 (1 launch, 8 us)
#  - --include_first_occurrence_time: `first_occurrence_time` after
#    `operation_count`: earliest launcher ts of the group minus the table's
#    earliest (mul 0.0, add 1000 - 500.25 = 499.75; with the num_kernels
#    split the 2-kernel group 1100 - 500.25 = 599.75)
#  - the same through tlmpi-tracelens (TraceLens's values)
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
T="$WORK/t.json"
cp "$S/tests/data/tl_opts_q1.json" "$T"
R() { "$TLMPI" report --quiet "$T" "$@"; }
K="\"((64, 16), (64, 16))\",\"('float', 'float')\",\"((16, 1), (16, 1))\",\"('', '')\""
P="python3,Unknown,main,$K"
hdr() { head -n 1 "$1/ops_unique_args.csv"; }
has() { grep -qF -- "$2" "$1/ops_unique_args.csv"; }
rows() { tail -n +2 "$1/ops_unique_args.csv" | grep -c "^$2,"; }

check "default: exit 0" R --output_csvs_dir "$WORK/d"
check "default: no num_kernels, no first_occurrence_time" \
    bash -c '! head -n 1 "$0" | grep -qE "num_kernels|first_occurrence_time"' "$WORK/d/ops_unique_args.csv"
check "default: aten::add one row of 3" has "$WORK/d" "aten::add,elementwise,$P,3,7.333333333333333,"

check "--group_by_num_kernels: exit 0" R --group_by_num_kernels --output_csvs_dir "$WORK/n"
check "... num_kernels after Concrete Inputs" \
    bash -c 'head -n 1 "$0" | grep -qF "Concrete Inputs,num_kernels,operation_count,total_direct_kernel_time_mean,"' "$WORK/n/ops_unique_args.csv"
check "... aten::add split in two rows" test "$(rows "$WORK/n" aten::add)" -eq 2
check "... num_kernels 1: 2 launches, 14 us" has "$WORK/n" "aten::add,elementwise,$P,1,2,7.0,7.0,7.0,7.0,1.4142135623730951,1.4142135623730951,6.0,6.0,8.0,8.0,14.0,14.0,"
check "... num_kernels 2: 1 launch, 8 us" has "$WORK/n" "aten::add,elementwise,$P,2,1,8.0,8.0,8.0,8.0,,,8.0,8.0,8.0,8.0,8.0,8.0,"
check "... aten::mul num_kernels 1" has "$WORK/n" "aten::mul,elementwise,$P,1,1,4.0,"
check "... the other sheets as without" diff -q "$WORK/n/ops_summary.csv" "$WORK/d/ops_summary.csv"

check "--include_first_occurrence_time: exit 0" R --include_first_occurrence_time --output_csvs_dir "$WORK/f"
check "... first_occurrence_time after operation_count" \
    bash -c 'head -n 1 "$0" | grep -qF "Concrete Inputs,operation_count,first_occurrence_time,total_direct_kernel_time_mean,"' "$WORK/f/ops_unique_args.csv"
check "... aten::add 499.75" has "$WORK/f" "aten::add,elementwise,$P,3,499.75,7.333333333333333,"
check "... aten::mul (the earliest) 0.0" has "$WORK/f" "aten::mul,elementwise,$P,1,0.0,4.0,"

check "both: exit 0" R --group_by_num_kernels --include_first_occurrence_time --output_csvs_dir "$WORK/b" --output_xlsx_path "$WORK/b.xlsx"
check "... 1-kernel add 499.75" has "$WORK/b" "aten::add,elementwise,$P,1,2,499.75,7.0,"
check "... 2-kernel add 599.75" has "$WORK/b" "aten::add,elementwise,$P,2,1,599.75,8.0,"
check "... workbook written" test -s "$WORK/b.xlsx"

TLMPI="$TLMPI" "$S/scripts/tlmpi-tracelens" --profile_json_path "$T" \
    --output_csvs_dir "$WORK/w" --group_by_num_kernels \
    --include_first_occurrence_time 2> "$WORK/w.err"
check "tlmpi-tracelens with both: exit 0" test $? -eq 0
check "... the same ops_unique_args" diff -q "$WORK/w/ops_unique_args.csv" "$WORK/b/ops_unique_args.csv"
exit $fail
