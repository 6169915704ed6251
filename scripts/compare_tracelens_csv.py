#!/usr/bin/python3
"""Compare a folder of TraceLens CSVs (REF) with tlmpi's (OUT), key by key.

usage: compare_tracelens_csv.py REF OUT [--quiet]

For the rocprofv3 report (TraceLens_generate_perf_report_rocprof), the
XPlane (JAX) sheets and the multi-rank collective report's sheets
(generate_multi_rank_collective_report_pytorch) tlmpi writes; the PyTorch sheets have their own
checker, tests/integration/compare_csvs.py.  Checks:
  * the same sheet names (*.csv; tlmpi's report.md is not a sheet);
  * the same header: names and order;
  * rows matched by the sheet's key columns (KEYS; by position where the
    sheet has none), duplicate keys paired in order, the same key set;
  * a cell that is a number on both sides within 1e-6 relative (plus
    1e-12 absolute; 1e-6 in the multi-rank sheets: TraceLens's microsecond
    floats carry sub-picosecond noise, e.g. a 'skew in end time' of
    1.5e-07 for 0.0), any other cell
    exactly equal (empty == empty);
  * and, reported but not counted as a problem, whether the row order is
    the same and how many files are byte-identical.
Prints the number of cells compared and the largest relative difference.
Exit status 0 when everything agrees, 1 otherwise.
"""
import csv
import math
import os
import sys
from collections import defaultdict

csv.field_size_limit(1 << 30)

KEYS = {
    # rocprofv3 report
    "gpu_timeline": ["type", "gpu_pid"],
    "kernel_summary": ["name"],
    "kernel_summary_by_category": ["op category"],
    "kernel_details": ["dispatch_id", "name", "stream", "agent_id"],
    "short_kernels_summary": ["name"],
    "short_kernel_histogram": None,  # by position (the bins)
    # multi-rank collective report (generate_multi_rank_collective_report)
    "nccl_summary_implicit_sync": ["Collective name", "dtype",
                                   "In msg nelems"],
    "nccl_summary_long": ["rank", "Process Group Name", "Process Group Ranks",
                          "Collective name", "Group size", "dtype",
                          "In msg nelems", "Out msg nelems", "In split size",
                          "Out split size", "stream"],
    "nccl_summary_all2allv": ["Process Group Name", "dtype"],
    "nccl_long": ["collective_id", "rank"],
    "nccl_implicit_sync": ["collective_id"],
    "nccl_all2allv": ["collective_id"],
    "straggler_summary": ["rank"],
    # XPlane (JAX) report
    "gpu_events_averages": ["type"],
    "kernel_launchers_summary": ["name"],
    "kernel_launchers_summary_by_category": ["op category"],
    "xla_summary": ["name"],
}


# the multi-rank report's sheets: microseconds with float noise
MULTIRANK = {"nccl_summary_implicit_sync", "nccl_summary_long",
             "nccl_summary_all2allv", "nccl_long", "nccl_implicit_sync",
             "nccl_all2allv", "straggler_summary"}
# tlmpi's own CSVs that TraceLens does not write
EXTRA = {"findings.csv"}


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return (rows[0], rows[1:]) if rows else ([], [])


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


class Tally:
    def __init__(self):
        self.cells = 0
        self.maxrel = 0.0
        self.bad = 0
        self.abs_tol = 1e-12


def cell_ok(x, y, tally):
    """True when two cells agree; updates the largest relative difference."""
    if x == y:
        return True
    fx, fy = num(x), num(y)
    if fx is None or fy is None:
        return False
    if math.isnan(fx) and math.isnan(fy):
        return True
    d = abs(fx - fy)
    m = max(abs(fx), abs(fy))
    tally.maxrel = max(tally.maxrel, d / m if m else 0.0)
    return d <= 1e-6 * m + tally.abs_tol


def compare_sheet(sheet, rp, op, tally, quiet):
    rh, rrows = read(rp)
    oh, orows = read(op)
    tally.abs_tol = 1e-6 if sheet in MULTIRANK else 1e-12
    if rh != oh:
        print(f"{sheet}: header differs\n  ref {rh}\n  out {oh}")
        tally.bad += 1
        return
    if len(rrows) != len(orows):
        print(f"{sheet}: {len(rrows)} rows in ref, {len(orows)} in out")
        tally.bad += 1
    keys = [k for k in (KEYS.get(sheet) or []) if k in rh]
    ki = [rh.index(k) for k in keys]

    def key(i, r):
        return tuple(r[j] for j in ki) if ki else (i,)

    def groups(rows):
        g = defaultdict(list)
        for i, r in enumerate(rows):
            g[key(i, r)].append(r)
        return g

    rg, og = groups(rrows), groups(orows)
    if set(rg) != set(og):
        only_r, only_o = set(rg) - set(og), set(og) - set(rg)
        print(f"{sheet}: keys only in ref {sorted(only_r)[:5]} "
              f"({len(only_r)}), only in out {sorted(only_o)[:5]} "
              f"({len(only_o)})")
        tally.bad += 1
    same_order = [key(i, r) for i, r in enumerate(rrows)] == \
        [key(i, r) for i, r in enumerate(orows)]
    nbad = 0
    for k, a in rg.items():
        b = og.get(k, [])
        if len(a) != len(b):
            print(f"{sheet}: key {k}: {len(a)} rows in ref, {len(b)} in out")
            nbad += 1
        for ra, rb in zip(a, b):
            for c, (x, y) in enumerate(zip(ra, rb)):
                tally.cells += 1
                if cell_ok(x, y, tally):
                    continue
                if nbad < 10:
                    print(f"{sheet}: key {k} column {rh[c]!r}: "
                          f"ref {x!r} out {y!r}")
                nbad += 1
    tally.bad += nbad
    if not quiet or nbad or not same_order:
        print(f"{sheet}: {len(rrows)} rows, "
              f"{'same' if same_order else 'different'} row order, "
              f"{nbad} cells differ")


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    ref, out, quiet = argv[1], argv[2], "--quiet" in argv[3:]
    tally = Tally()
    rs = sorted(f for f in os.listdir(ref) if f.endswith(".csv"))
    # tlmpi's own sheets beside TraceLens's are not compared
    os_ = sorted(f for f in os.listdir(out) if f.endswith(".csv") and
                 f not in EXTRA)
    if rs != os_:
        print(f"sheets differ: ref {rs}, out {os_}")
        tally.bad += 1
    ident = 0
    for fn in rs:
        rp, op = os.path.join(ref, fn), os.path.join(out, fn)
        if not os.path.exists(op):
            continue
        with open(rp, "rb") as a, open(op, "rb") as b:
            ident += a.read() == b.read()
        compare_sheet(fn[:-4], rp, op, tally, quiet)
    print(f"TOTAL sheets {len(rs)} (byte-identical {ident}), cells compared "
          f"{tally.cells}, max rel diff {tally.maxrel:.3g}, problems "
          f"{tally.bad}")
    return 1 if tally.bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
