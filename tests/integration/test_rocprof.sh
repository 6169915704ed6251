#!/bin/bash
# rocprofv3 JSON through the CLI, found by content under names that do not
# tell the format (run1.dat, trace.json.gz):
#   1. tlmpi inspect names the format, the records and the GPU arch;
#   2. tlmpi report writes TraceLens's six rocprof sheets (CSV and
#      workbook) whose values, written out by hand from the fixture
#      (tests/data/README.md), match in compat and default mode;
#   3. bad input (no buffer_records, a truncated gzip, a wrong type): exit
#      1, the message names the file, the offset and the field, no output;
#   4. tlmpi tree refuses it with the reason;
#   5. the multi-rank analysis under mpirun -n 2: per-rank GPU and RCCL
#      kernel time in /timeline and /kernels, /traces.format, and report.md
#      saying the collectives are not matched.
# Exit 0 on success, 1 on a failure, 77 when Python's h5py is missing.
set -u
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
W="${TLM_WORK_DIR:-$(mktemp -d)}"
PY=/usr/bin/python3
rm -rf "$W"
mkdir -p "$W"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
FIX="$SRC/tests/data/rocprof/run1.dat"
cp "$FIX" "$W/run1.dat"
gzip -c "$FIX" > "$W/trace.json.gz"

# ------------------------------------------------------------ 1. inspect
for f in run1.dat trace.json.gz; do
    "$TLMPI" inspect "$W/$f" > "$W/$f.inspect" 2>&1
    check "inspect $f: exit 0" test $? -eq 0
    check "inspect $f: format" grep -q "^  trace format: rocprof-json$" \
        "$W/$f.inspect"
    check "inspect $f: records" grep -q "^  kernel dispatches: 8; memory \
copies: 2; hip_api: 2; hsa_api: 1; agents: 2$" "$W/$f.inspect"
    check "inspect $f: arch" grep -q \
        "^  GPU arch: gfx942 (AMD Instinct MI300X)$" "$W/$f.inspect"
done
check "inspect: gzip named" grep -q "^  format: gzip (1 member)$" \
    "$W/trace.json.gz.inspect"
"$TLMPI" inspect "$SRC/tests/data/ok_small_trace.json" > "$W/k.inspect"
check "inspect: Kineto named" grep -q "^  trace format: kineto-json$" \
    "$W/k.inspect"

# ------------------------------------------------------------ 2. report
"$TLMPI" report "$W/trace.json.gz" --output_csvs_dir "$W/compat" \
    --tracelens_compat all --quiet
check "report compat: exit 0" test $? -eq 0
"$TLMPI" report "$W/run1.dat" --output_csvs_dir "$W/def" \
    --output_xlsx_path "$W/def.xlsx" --quiet
check "report default: exit 0" test $? -eq 0
for s in gpu_timeline kernel_summary kernel_summary_by_category \
         kernel_details short_kernels_summary short_kernel_histogram; do
    check "compat $s.csv" test -s "$W/compat/$s.csv"
    check "default $s.csv" test -s "$W/def/$s.csv"
done
check "report.md names the arch" grep -q "GPU arch: gfx942" "$W/def/report.md"

# Hand-computed from run1.dat (ns): kernels merged 72519 (20005 + 50000 +
# 8 + 6 + 500 + 2000), copies 9000, both 79514, run 101000 (fini - init).
# GEMM: 20000 + 30000 ns; RCCL 40000; elementwise 5005 + 2000; unknown
# kernel 9: 500; tiny_kernel 8 + 6; all kernels 97519 ns.
$PY - "$W" <<'PY'
import csv, math, sys, zipfile
w = sys.argv[1]
bad = []
def rows(d, s):
    with open(f"{w}/{d}/{s}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
def near(got, want, what):
    if not math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-12):
        bad.append(f"{what}: {got} != {want}")
def eq(got, want, what):
    if got != want:
        bad.append(f"{what}: {got!r} != {want!r}")
for d in ("compat", "def"):
    tl = {r["type"]: r for r in rows(d, "gpu_timeline")}
    near(tl["total_time"]["time ms"], 0.101, d + " total")
    near(tl["kernel"]["time ms"], 0.072519, d + " kernel")
    near(tl["memory"]["time ms"], 0.009, d + " memory")
    near(tl["busy_time"]["time ms"], 0.079514, d + " busy")
    near(tl["idle"]["time ms"], 0.021486, d + " idle")
    near(tl["kernel"]["percent"], 72519 / 101000 * 100, d + " kernel %")
# compat: TraceLens's ns under us labels, threshold 10 compared with ns
ks = rows("compat", "kernel_summary")
eq([r["name"] for r in ks], ["Cijk_Ailk_Bljk_HHS_BH_MT128x128x64",
    "ncclDevKernel_Generic", "at::native::vectorized_elementwise_kernel",
    "unknown_kernel_9", "tiny_kernel"], "compat kernel_summary order")
g = ks[0]
eq(g["Count"], "2", "GEMM count")
near(g["Mean Kernel Time (µs)"], 25000, "GEMM mean (ns)")
near(g["Std Kernel Time (µs)"], math.sqrt(2) * 5000, "GEMM std")
eq(g["Min Kernel Time (µs)"], "20000", "GEMM min (int)")
near(g["Total Kernel Time (ms)"], 50.0, "GEMM total (ns/1000)")
near(g["Percentage (%)"], 50000 / 97519 * 100, "GEMM %")
eq(g["Category"], "GEMM", "GEMM category")
eq(ks[1]["Std Kernel Time (µs)"], "", "one call: no std")
eq(ks[1]["Category"], "COMM", "RCCL category")
# cumulative in name (byte) order before the sort: Cijk_, at::, nccl
near(ks[1]["Cumulative Percentage (%)"], (50000 + 7005 + 40000) / 97519 *
     100, "cum nccl")
cat = {r["op category"]: r for r in rows("compat",
                                          "kernel_summary_by_category")}
near(cat["Other"]["total_direct_kernel_time_ms"], 0.514, "Other (ns/1000)")
eq(cat["Other"]["Count"], "3", "Other count")
sk = rows("compat", "short_kernels_summary")
eq([(r["name"], r["Short Kernel count"], r["Short Kernel duration (µs) sum"])
    for r in sk], [("tiny_kernel", "2", "14")], "compat short kernels")
kd = rows("compat", "kernel_details")
eq(len(kd), 8, "one row per dispatch")
eq((kd[0]["name"], kd[0]["Kernel duration (µs)"], kd[0]["stream"],
    kd[0]["dispatch_id"], kd[0]["grid_x"], kd[0]["block_x"],
    kd[0]["agent_id"], kd[0]["thread_id"]),
   ("ncclDevKernel_Generic", "40000", "2", "4", "2048", "64", "2", "101"),
   "longest dispatch")
h = rows("compat", "short_kernel_histogram")
eq(len(h), 100, "100 bins")
eq(sum(int(r["count"]) for r in h), 2, "two short kernels binned")
# default: microseconds, threshold 10 us, cumulative down the rows
ks = rows("def", "kernel_summary")
near(ks[0]["Mean Kernel Time (µs)"], 25.0, "GEMM mean (us)")
near(ks[0]["Total Kernel Time (ms)"], 0.05, "GEMM total (ms)")
near(ks[1]["Cumulative Percentage (%)"], 90000 / 97519 * 100, "cum sorted")
sk = rows("def", "short_kernels_summary")
eq([r["name"] for r in sk], ["at::native::vectorized_elementwise_kernel",
    "unknown_kernel_9", "tiny_kernel"], "default short kernels")
near(sk[0]["Short Kernel duration (µs) sum"], 7.005, "short sum (us)")
near(rows("def", "kernel_details")[3]["Kernel duration (µs)"], 5.005,
     "dispatch 2 (us)")
names = zipfile.ZipFile(f"{w}/def.xlsx").read("xl/workbook.xml").decode()
for s in ("gpu_timeline", "kernel_summary", "kernel_summary_by_category",
          "kernel_details", "short_kernels_summary",
          "short_kernel_histogram"):
    if f'name="{s}"' not in names:
        bad.append("workbook lacks " + s)
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
check "sheet values (hand-computed)" test $? -eq 0

# ------------------------------------------------------------ 3. bad input
$PY - "$FIX" "$W" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["rocprofiler-sdk-tool"][0]
del t["buffer_records"]
json.dump(d, open(sys.argv[2] + "/nobuf.dat", "w"))
d = json.load(open(sys.argv[1]))
d["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][2][
    "end_timestamp"] = "1070000"
json.dump(d, open(sys.argv[2] + "/strtime.dat", "w"))
PY
head -c 900 "$W/trace.json.gz" > "$W/cut.gz"
bad_case() { # bad_case FILE PATTERN
    rm -rf "$W/badout"
    "$TLMPI" report "$W/$1" --output_csvs_dir "$W/badout" > "$W/$1.err" 2>&1
    local rc=$?
    check "bad $1: exit 1" test $rc -eq 1
    check "bad $1: message" grep -q "$2" "$W/$1.err"
    check "bad $1: no output" test -z "$(ls -A "$W/badout" 2>/dev/null)"
}
bad_case nobuf.dat "nobuf.dat: offset [0-9]*: rocprofiler-sdk-tool\[0\]: \
no buffer_records (required"
bad_case strtime.dat "strtime.dat: offset [0-9]*: buffer_records.\
kernel_dispatch\[2\].end_timestamp: expected an integer, got a string"
bad_case cut.gz "cut.gz: offset [0-9]*: truncated gzip stream"
"$TLMPI" inspect "$W/nobuf.dat" > /dev/null 2> "$W/ins.err"
check "inspect bad: exit 1" test $? -eq 1
check "inspect bad: message" grep -q "no buffer_records" "$W/ins.err"

# ------------------------------------------------------------ 4. tree
"$TLMPI" tree "$W/run1.dat" > /dev/null 2> "$W/tree.err"
check "tree: exit 1" test $? -eq 1
check "tree: reason" grep -q "rocprof-json trace has no host call stacks" \
    "$W/tree.err"

# ------------------------------------------------------------ 5. mpirun -n 2
if ! $PY -c "import h5py" 2>/dev/null; then
    echo "h5py missing for $PY: the multi-rank part skipped"
    [ $fail -eq 0 ] && exit 77
    exit 1
fi
mkdir -p "$W/job"
cp "$FIX" "$W/job/rank0.dat"
# rank 1: its RCCL kernel 10 us shorter (ends at 1080000 ns)
sed 's/"start_timestamp": 1050000, "end_timestamp": 1090000/"start_timestamp": 1050000, "end_timestamp": 1080000/' \
    "$FIX" | gzip > "$W/job/rank1.dat"
timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/job" \
    --output "$W/job.h5" --output_dir "$W/jobout" --quiet
check "mpirun -n 2: exit 0" test $? -eq 0
$PY - "$W/job.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
t = f["traces"][:]
tl = f["timeline"][:]
bad = []
if [x.decode() for x in t["format"]] != ["rocprof-json"] * 2:
    bad.append("format %r" % (t["format"],))
if [x.decode() for x in t["gpu_arch"]] != ["MI300X"] * 2:
    bad.append("gpu_arch %r" % (t["gpu_arch"],))
want = {0: (101000, 79514, 40000, 20000, 52519),
        1: (101000, 69514, 30000, 10000, 52519)}
for r in tl:
    got = (int(r["total_ns"]), int(r["busy_ns"]), int(r["total_comm_ns"]),
           int(r["exposed_comm_ns"]), int(r["computation_ns"]))
    if got != want[int(r["trace_rank"])]:
        bad.append("rank %d: %r" % (r["trace_rank"], got))
# /kernels: the RCCL kernel's time per rank, no launching op
k = [r for r in f["kernels"][:] if r["kernel"] == b"ncclDevKernel_Generic"]
got = sorted((int(r["trace_rank"]), int(r["count"]), r["dur_ns_sum"],
              r["parent_op"].decode()) for r in k)
if got != [(0, 1, 40000.0, ""), (1, 1, 30000.0, "")]:
    bad.append("RCCL kernel rows %r" % (got,))
if "instances" in f and len(f["instances"]) != 0:
    bad.append("collective instances were matched")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
check "per-rank GPU and RCCL time (/timeline, /traces)" test $? -eq 0
check "report.md: collectives not matched" grep -q \
    "2 of 2 traces are rocprofv3 JSON.*not matched" "$W/jobout/report.md"
exit $fail
