#!/usr/bin/python3
"""Compare tlmpi report CSVs with TraceLens reference CSVs.

Usage: compare_csvs.py REF_DIR OUT_DIR [--skip SHEET,...] [--verbose]

Rules (spec/perfreport.md section 0):
  * every reference CSV must exist in OUT_DIR with the same header;
  * rows are matched by the sheet's key columns (not by position), the
    multiset of keys must be equal (duplicates are paired in order);
  * a cell that parses as a number on both sides must agree within 1e-6
    relative plus 1e-9 absolute (issue 15); list/tuple/dict cells are
    compared after ast.literal_eval with numpy's np.float64(x) wrappers
    removed; every other cell must be exactly equal (empty == missing);
  * the sheets TraceLens sorts by one column (ops_summary,
    ops_summary_by_category, kernel_summary, coll_analysis) must have
    their rows in the same order (numpy's quicksort order of ties, spec
    addendum A9);
  * a file that is byte-identical agrees (also the bare files of spec
    addendum A7: a lone newline, two header lines).
Exit status 0 when everything agrees, 1 otherwise.
"""
import ast
import csv
import math
import os
import re
import sys

csv.field_size_limit(1 << 30)

KEYS_OPS = ["name", "op category", "process_name", "process_label",
            "thread_name", "Input Dims", "Input type", "Input Strides",
            "Concrete Inputs"]
KEYS = {
    "gpu_timeline": ["type"],
    "ops_summary_by_category": ["op category"],
    "ops_summary": ["name"],
    "ops_unique_args": KEYS_OPS,
    "unified_perf_summary": KEYS_OPS,
    "kernel_summary": ["Parent op category", "Parent cpu_op", "Kernel name",
                       "Kernel stream"],
    "short_kernel_histogram": None,  # by position (bins)
    "short_kernels_summary": ["Parent cpu_op", "Input dims", "Input strides",
                              "Concrete Inputs", "Kernel name"],
    "coll_analysis": ["rank", "Process Group Name", "Process Group Ranks",
                      "Collective name", "Group size", "dtype",
                      "In msg nelems", "Out msg nelems", "In split size",
                      "Out split size", "stream"],
}

NPF = re.compile(r"np\.float64\(([^()]*)\)")


# single-column descending sorts: row order is part of the result
ORDERED = {"ops_summary", "ops_summary_by_category", "kernel_summary",
           "coll_analysis"}


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        return [], []
    return rows[0], rows[1:]


def keys_for(sheet, header):
    if sheet in KEYS:
        return KEYS[sheet]
    # perf-model sheets: name + every param column
    return ["name"] + [h for h in header if h.startswith("param: ")]


def num(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return v


def literal(s):
    try:
        return ast.literal_eval(NPF.sub(r"\1", s))
    except (ValueError, SyntaxError):
        return None


def cell_equal(a, b):
    if a == b:
        return True
    x, y = num(a), num(b)
    if x is not None and y is not None:
        if math.isnan(x) and math.isnan(y):
            return True
        return abs(x - y) <= 1e-9 + 1e-6 * abs(y)
    if a[:1] in "[({" and b[:1] in "[({":
        la, lb = literal(a), literal(b)
        return la is not None and la == lb
    return False


def compare(sheet, ref_path, out_path, verbose):
    with open(ref_path, "rb") as f, open(out_path, "rb") as g:
        if f.read() == g.read():
            return []
    rh, rrows = read(ref_path)
    oh, orows = read(out_path)
    problems = []
    if rh != oh:
        miss = [c for c in rh if c not in oh]
        extra = [c for c in oh if c not in rh]
        problems.append("header differs: missing %s, extra %s%s" % (
            miss, extra, "" if miss or extra else " (order)"))
        if miss:
            return problems
    kcols = keys_for(sheet, rh)
    if kcols is None:
        rk = [(str(i),) for i in range(len(rrows))]
        ok = [(str(i),) for i in range(len(orows))]
    else:
        ri = [rh.index(k) for k in kcols]
        oi = [oh.index(k) for k in kcols]
        rk = [tuple(r[i] for i in ri) for r in rrows]
        ok = [tuple(r[i] for i in oi) for r in orows]
    index = {}
    for i, k in enumerate(ok):
        index.setdefault(k, []).append(i)
    unmatched_ref = []
    used = set()
    pairs = []
    for i, k in enumerate(rk):
        lst = index.get(k)
        if lst:
            j = lst.pop(0)
            used.add(j)
            pairs.append((i, j))
        else:
            unmatched_ref.append(i)
    extra_out = [j for j in range(len(orows)) if j not in used]
    if sheet in ORDERED and rk != ok:
        problems.append("row order differs")
        if verbose:
            for i, (a, b) in enumerate(zip(rk, ok)):
                if a != b:
                    problems.append("   row %d: ref %r, out %r" % (i, a, b))
                    break
    if unmatched_ref:
        problems.append("%d reference rows without a match" %
                        len(unmatched_ref))
        if verbose:
            for i in unmatched_ref[:5]:
                problems.append("   ref key %r" % (rk[i],))
    if extra_out:
        problems.append("%d extra rows" % len(extra_out))
        if verbose:
            for j in extra_out[:5]:
                problems.append("   out key %r" % (ok[j],))
    bad_cols = {}
    for i, j in pairs:
        for c, col in enumerate(rh):
            if col not in oh:
                continue
            a = rrows[i][c]
            b = orows[j][oh.index(col)]
            if not cell_equal(b, a):
                bad_cols.setdefault(col, []).append((rk[i], a, b))
    for col, lst in bad_cols.items():
        problems.append("column %r: %d of %d rows differ" % (
            col, len(lst), len(pairs)))
        if verbose:
            for k, a, b in lst[:3]:
                problems.append("   key %r:\n      ref %s\n      out %s" % (
                    k, a[:300], b[:300]))
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    ref, out = argv[1], argv[2]
    skip = set()
    verbose = "--verbose" in argv
    if "--skip" in argv:
        skip = set(argv[argv.index("--skip") + 1].split(","))
    failed = 0
    for name in sorted(os.listdir(ref)):
        if not name.endswith(".csv"):
            continue
        sheet = name[:-4]
        op = os.path.join(out, name)
        if sheet in skip:
            print("SKIP   %s" % sheet)
            continue
        if not os.path.exists(op):
            print("MISSING %s" % sheet)
            failed += 1
            continue
        probs = compare(sheet, os.path.join(ref, name), op, verbose)
        if probs:
            failed += 1
            print("DIFF   %s" % sheet)
            for p in probs:
                print("       " + p)
        else:
            print("OK     %s" % sheet)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
