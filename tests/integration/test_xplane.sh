#!/bin/bash
# XPlane (JAX) traces through the CLI (docs/formats.md, "XPlane"):
#   1. the generator's small file under names that do not tell its format
#      (plain "trace_a", gzip "run_b.dat", and JAX's folder layout):
#      `tlmpi inspect` says xplane; `tlmpi report` writes the five sheets
#      with the values worked out by hand in tests/data/README.md, in the
#      default mode and with --tracelens_compat all (TraceLens's columns:
#      no `device`), and as a workbook;
#   2. bad input: truncated gzip, truncated protobuf, a bad varint, a
#      length past the end, a wrong wire type, no GPU plane, no GPU event:
#      exit 1, a message naming the file and the byte offset or field, and
#      no output left (no CSV, workbook or temporary file);
#   3. `tlmpi --trace_dir` (the multi-rank analysis) skips an XPlane with
#      the reason.
# Exit 0 on success, 1 on a failure.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
GEN="${TLM_BUILD_DIR:?TLM_BUILD_DIR not set}/tlm-gen-xplane"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
gen() { ASAN_OPTIONS=detect_leaks=0 "$GEN" "$@" || { echo "FAIL gen $*"; exit 1; }; }

# ------------------------------------------------------------ 1. good
gen small small.pb
cp small.pb trace_a
gzip -c small.pb > run_b.dat
mkdir -p logdir/plugins/profile/2024_05_01_12_00_00
cp small.pb logdir/plugins/profile/2024_05_01_12_00_00/host0.xplane.pb

"$TLMPI" inspect trace_a run_b.dat logdir > inspect.txt 2>&1
check "inspect exits 0" test $? -eq 0
check "inspect names the format" \
    test "$(grep -c '^  format: xplane' inspect.txt)" -eq 3
check "inspect sees the gzip" grep -q 'format: xplane (XSpace protobuf, gzip)' inspect.txt
check "inspect counts planes" grep -q '^  planes: 3 (GPU: 2)' inspect.txt

# the expected sheets, by hand (us; see tests/data/README.md)
cat > expect.py <<'EOF'
import sys, pandas as pd
d, compat = sys.argv[1], sys.argv[2] == "compat"
bad = []
def near(what, got, want):
    if abs(got - want) > 1e-9 * max(1.0, abs(want)):
        bad.append(f"{what}: got {got!r}, want {want!r}")
def cols(name, want):
    got = list(pd.read_csv(f"{d}/{name}.csv").columns)
    if got != want:
        bad.append(f"{name} columns {got}")
types = ["computation_time", "exposed_comm_time", "exposed_memcpy_time",
         "busy_time", "idle_time", "total_time", "total_comm_time",
         "total_memcpy_time"]
g = {1: [15.7, 5, 2, 22.7, 8.5, 31.2, 6, 6],
     2: [10.5, 0, 0, 10.5, 2, 12.5, 0, 0]}
tl = pd.read_csv(f"{d}/gpu_timeline.csv")
cols("gpu_timeline", ["type", "time ms", "percent", "gpu_pid"]
     + ([] if compat else ["device"]))
for i, row in tl.iterrows():
    pid, k = (1, i) if i < 8 else (2, i - 8)
    if row["type"] != types[k] or row["gpu_pid"] != pid:
        bad.append(f"gpu_timeline row {i}: {row['type']} {row['gpu_pid']}")
    near(f"timeline {i} ms", row["time ms"], g[pid][k] / 1e3)
    near(f"timeline {i} %", row["percent"], g[pid][k] / g[pid][5] * 100)
av = pd.read_csv(f"{d}/gpu_events_averages.csv")
cols("gpu_events_averages", ["type", "time ms", "percent"])
for k in range(8):
    near(f"avg {k}", av["time ms"][k], (g[1][k] + g[2][k]) / 2 / 1e3)
    near(f"avg {k} %", av["percent"][k], (g[1][k] + g[2][k]) / 43.7 * 100)
ks = pd.read_csv(f"{d}/kernel_launchers_summary.csv")
cols("kernel_launchers_summary", ["name", "total_direct_kernel_time_sum",
     "total_subtree_kernel_time_sum", "total_direct_kernel_time_ms",
     "total_subtree_kernel_time_ms", "Count", "Categories",
     "Percentage (%)", "Cumulative Percentage (%)", "time ms per gpu"])
want = [("Cijk_Alik_Bljk_HHS", 18, 2, "GEMM"),
        ("ncclDevKernel_AllReduce", 6, 1, "Communication rccl/nccl"),
        ("loop_add_fusion_12", 3, 1, "Uncategorized Events/XLA"),
        ("loop_add_fusion_7", 2, 1, "Uncategorized Events/XLA"),
        ("my_kernel", 1.5, 1, "Conv"),
        ("loop_add_fusion_3", 1.2, 1, "Uncategorized Events/XLA"),
        ("input_reduce_fusion", 0.5, 1, "Uncategorized Events/XLA")]
if len(ks) != len(want):
    bad.append(f"kernel_launchers_summary rows {len(ks)}")
cum = 0
for i, (n, us, c, cat) in enumerate(want[:len(ks)]):
    r = ks.iloc[i]
    want_cat = ("OrderedSet(['%s'])" if compat else "['%s']") % cat
    if r["name"] != n or r["Count"] != c or r["Categories"] != want_cat:
        bad.append(f"summary row {i}: {list(r)}")
    near(f"summary {n} sum", r["total_direct_kernel_time_sum"], us)
    near(f"summary {n} ms", r["total_subtree_kernel_time_ms"], us / 1e3)
    cum += us / 32.2 * 100
    near(f"summary {n} %", r["Percentage (%)"], us / 32.2 * 100)
    near(f"summary {n} cum", r["Cumulative Percentage (%)"], cum)
    near(f"summary {n} per gpu", r["time ms per gpu"], us / 1e3 / 2)
bc = pd.read_csv(f"{d}/kernel_launchers_summary_by_category.csv")
cols("kernel_launchers_summary_by_category", ["op category", "Count",
     "total_direct_kernel_time_ms", "Percentage (%)",
     "Cumulative Percentage (%)", "time ms per gpu"])
wc = [("GEMM", 2, 18), ("Uncategorized Events/XLA", 4, 6.7),
      ("Communication rccl/nccl", 1, 6), ("Conv", 1, 1.5)]
for i, (cat, c, us) in enumerate(wc):
    r = bc.iloc[i]
    if r["op category"] != cat or r["Count"] != c:
        bad.append(f"by_category row {i}: {list(r)}")
    near(f"by_category {cat}", r["total_direct_kernel_time_ms"], us / 1e3)
    near(f"by_category {cat} per gpu", r["time ms per gpu"], us / 1e3 / 2)
xs = pd.read_csv(f"{d}/xla_summary.csv")
if list(xs["name"]) != ["loop_add_fusion_", "input_reduce_fusion"] \
        or list(xs["Count"]) != [3, 1]:
    bad.append(f"xla_summary {xs.to_dict()}")
near("xla sum", xs["total_direct_kernel_time_sum"][0], 6.2)
near("xla %", xs["Percentage (%)"][0], 6.2 / 6.7 * 100)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

"$TLMPI" report trace_a --output_csvs_dir out_default --quiet
check "report (default) exits 0" test $? -eq 0
check "report (default): five sheets" test "$(ls out_default | wc -l)" -eq 5
check "report (default) values" "$PY" expect.py out_default default
"$TLMPI" report run_b.dat --output_csvs_dir out_compat --tracelens_compat all --quiet
check "report (compat, gzip) exits 0" test $? -eq 0
check "report (compat) values" "$PY" expect.py out_compat compat
"$TLMPI" report logdir --output_csvs_dir out_dir --quiet
check "report of JAX's folder layout" "$PY" expect.py out_dir default
"$TLMPI" report trace_a --output_xlsx_path book.xlsx --quiet
check "report as a workbook" test -s book.xlsx
"$TLMPI" report trace_a --quiet
check "default workbook beside the trace" test -s trace_a_perf_report.xlsx
cp small.pb jax.xplane.pb
"$TLMPI" report jax.xplane.pb --quiet
check "default workbook: TraceLens's JAX name" test -s jax_perf_report.xlsx
"$TLMPI" report trace_a --output_csvs_dir out_default --quiet 2> again.txt
check "an existing output is not replaced" grep -q 'exists' again.txt

# the multi-rank analysis does not read XPlanes: skipped with the reason
mkdir -p jobdir
cp small.pb jobdir/rank0.pb
"${MPIEXEC:-mpirun}" -n 1 "$TLMPI" --trace_dir jobdir --output job.h5 > job.txt 2>&1
check "--trace_dir skips an XPlane, saying why" \
    grep -q 'rank0.pb (XPlane (JAX): read by tlmpi report' job.txt
check "--trace_dir: no output" test ! -e job.h5

# ------------------------------------------------------------ 2. bad
gen badvarint badvarint.bin
gen pastend pastend.bin
gen wiretype wiretype.bin
gen nogpu nogpu.bin
gen noevents noevents.bin
head -c 700 small.pb > cut.bin
head -c 300 run_b.dat > cutgz.bin
bad_case() { # bad_case FILE PATTERN INSPECT_RC
    local f="$1" pat="$2" irc="$3" out="bad_out_${1%.bin}"
    "$TLMPI" report "$f" --output_csvs_dir "$out" --output_xlsx_path "$out.xlsx" > "$out.txt" 2>&1
    local rc=$?
    check "bad $f: exit 1" test $rc -eq 1
    check "bad $f: message" grep -q -- "$f: $pat" "$out.txt"
    check "bad $f: nothing left" test -z "$(ls -A "$out" 2>/dev/null)" -a ! -e "$out.xlsx"
    "$TLMPI" inspect "$f" > /dev/null 2>&1
    check "bad $f: inspect exits $irc" test $? -eq "$irc"
}
bad_case badvarint.bin "offset 22: XPlane protobuf: XEvent.duration_ps (field 3): varint longer than 10 bytes" 1
bad_case pastend.bin "offset 17: XPlane protobuf: XPlane.lines (field 3): length 127 past the end" 1
bad_case wiretype.bin "offset 17: XPlane protobuf: XPlane.id (field 1): wire type 2" 1
bad_case cut.bin "offset [0-9]*: XPlane protobuf: XSpace.planes (field 1): length [0-9]* past the end" 1
bad_case cutgz.bin "offset [0-9]*: truncated gzip stream" 1
bad_case nogpu.bin "XPlane without GPU planes" 0
bad_case noevents.bin "XPlane: no GPU events" 0
check "no temporary file anywhere" test -z "$(find . -name '*.tmp' -o -name '*.old')"

exit $fail
