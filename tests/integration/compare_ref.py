#!/usr/bin/python3
"""An independent pandas re-implementation of TraceLens's
compare_perf_reports_pytorch.py (spec shared/spec/compare.md), the oracle
of tests/integration/test_compare.sh.

Usage: compare_ref.py REPORT_DIR REPORT_DIR [...] --out DIR
                      [--names TAG ...] [--sheets WORD ...] [--skip_missing]
                      [--quicksort]

REPORTs are folders of per-sheet CSVs.  Writes one <sheet>.csv per result
into DIR (created).  --skip_missing: tlmpi's default mode, where a summary
sheet missing from the baseline (not named by its own word) and a
roofline sheet missing from a variant are skipped instead of failing.
Errors (what TraceLens raises) go to stderr with exit status 1.

Deliberate choices (spec "How this was checked", §3.2, §4.6):
  * read_csv defaults plus "None" as missing (pandas >= 2);
  * 0 -> missing in the pct denominator through a mask, not
    Series.replace({0: pd.NA}) (RecursionError in pandas 1.5);
  * the outer join's row order is computed here from the spec's rule
    (keys ascending, text by code point, numbers by value, missing last;
    per key: left rows in order, each with the right rows in order), not
    left to pandas 1.5's merge;
  * descending sorts are stable (ties keep the joined order); with
    --quicksort they are pandas' default sort_values (kind="quicksort",
    unstable: numpy's introsort), TraceLens's own call, which
    tlmpi compare --tracelens_compat all reproduces (issue 34);
  * a key column that is missing in every row of one report joins a text
    key column of another (pandas raises "You are trying to merge on
    float64 and object columns"; tlmpi accepts it in both modes).
"""
import argparse
import os
import re
import sys

import numpy as np
import pandas as pd

US = "\u00b5s"
SUMMARY = {
    "ops_summary": ("name", ["total_direct_kernel_time_ms", "Count"],
                    ["total_direct_kernel_time_sum"]),
    "kernel_summary": ("Kernel name",
                       ["Kernel duration (%s)_sum" % US,
                        "Kernel duration (%s)_mean" % US,
                        "Kernel duration (%s)_count" % US],
                       ["Kernel duration (%s)_min" % US,
                        "Kernel duration (%s)_max" % US,
                        "Parent op category"]),
    "kernel_summary_legacy": ("name",
                              ["Total Kernel Time (ms)",
                               "Mean Kernel Time (%s)" % US, "Count"],
                              ["Total Kernel Time (%s)" % US,
                               "Median Kernel Time (%s)" % US,
                               "Std Kernel Time (%s)" % US,
                               "Min Kernel Time (%s)" % US,
                               "Max Kernel Time (%s)" % US, "Category"]),
}
OP_KEYS = ["name", "Input type", "Input Dims", "Input Strides",
           "Concrete Inputs"]
OP_SHEETS = [("ops_all", ["total_direct_kernel_time_sum",
                          "total_direct_kernel_time_mean", "operation_count"]),
             ("ops_unique_args", ["total_direct_kernel_time_sum",
                                  "total_direct_kernel_time_mean",
                                  "operation_count"]),
             ("unified_perf_summary", ["Kernel Time (%s)_sum" % US,
                                       "Kernel Time (%s)_mean" % US,
                                       "operation_count"])]
ROOF = [("GEMM", "GEMM"), ("SDPA_fwd", "SDPA_fwd"), ("SDPA_bwd", "SDPA_bwd"),
        ("CONV_fwd", "CONV_fwd"), ("CONV_bwd", "CONV_bwd"),
        ("UnaryElementwise", "un_eltwise"),
        ("BinaryElementwise", "bin_eltwise")]
ROOF_DEL = ["GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first",
            "Input type_first", "Input Dims_first", "Input Strides_first",
            "Concrete Inputs_first"]
ROOF_D = ["Kernel Time (%s)_sum" % US, "Kernel Time (%s)_mean" % US,
          "name_count", "TFLOPS/s_mean", "TB/s_mean"]
DIFF_RE = re.compile(r".*__.*_diff|.*__.*_pct")


class Fail(Exception):
    pass


def sheets_of(path):                                      # §2.1
    return sorted(f[:-4] for f in os.listdir(path) if f.endswith(".csv"))


def load(path, sheet):
    f = os.path.join(path, sheet + ".csv")
    if not os.path.exists(f):
        raise Fail("%s has no '%s.csv'" % (path, sheet))
    try:
        return pd.read_csv(f, na_values=["None"])        # §2.2
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def sort_key(v):                      # §3.2: values ascending, missing last
    return (1, 0) if pd.isna(v) else (0, v)


def outer_merge(left, right, keys):                        # §3.2
    for k in keys:  # tlmpi's one relaxation: an all-missing key column
        for a, b in ((left, right), (right, left)):  # takes the other's
            if a[k].isna().all() and b[k].dtype == object:  # type
                a[k] = a[k].astype(object)
    left = left.assign(_l_=np.arange(len(left)))
    right = right.assign(_r_=np.arange(len(right)))
    j = pd.merge(left, right, on=keys, how="outer", sort=False)
    cols = [j[k].tolist() for k in keys + ["_l_", "_r_"]]
    rows = sorted(range(len(j)),
                  key=lambda i: tuple(sort_key(c[i]) for c in cols))
    j = j.iloc[rows].reset_index(drop=True)
    return j.drop(columns=["_l_", "_r_"])


def build(tabs, tags, keys, metrics):                      # §3
    tabs = [t.rename(columns={c: "%s::%s" % (tag, c)
                              for c in t.columns if c not in keys})
            for t, tag in zip(tabs, tags)]
    j = tabs[0]
    for t in tabs[1:]:
        j = outer_merge(j, t, keys)
    b = tags[0]
    for m in metrics:                                      # §3.3
        for v in tags[1:]:
            base = j["%s::%s" % (b, m)]
            diff = j["%s::%s" % (v, m)] - base
            j["%s__%s_diff" % (m, v)] = diff
            j["%s__%s_pct" % (m, v)] = (diff / base.where(base != 0)) * 100
    diffs = [c for c in j.columns if c not in keys and DIFF_RE.match(c)]
    rest = [c for c in j.columns if c not in keys and c not in diffs]
    return j[keys + diffs + rest]                          # §3.4


SORT_KIND = ["stable"]                  # --quicksort: ["quicksort"]


def sort_desc(df, col):                 # descending, missing last
    if col not in df.columns or len(df) == 0:
        return df.reset_index(drop=True)
    return df.sort_values(col, ascending=False, kind=SORT_KIND[0],
                          na_position="last").reset_index(drop=True)


def split(j, tags, split_col, out, name):                  # §4.5
    b = tags[0]
    for v in tags[1:]:
        hb = j["%s::%s" % (b, split_col)].notna()
        hv = j["%s::%s" % (v, split_col)].notna()
        parts = [("intersect", hb & hv, b, {b, v}),
                 ("only_baseline", hb & ~hv, b, {b}),
                 ("only_variant", hv & ~hb, v, {v})]
        for part, mask, st, keep in parts:
            df = sort_desc(j[mask], "%s::%s" % (st, split_col))
            cols = []
            for c in df.columns:
                m = re.match(r"^.*?__(.*)_(diff|pct)$", c)
                if "::" in c:
                    if c.split("::", 1)[0] in keep:
                        cols.append(c)
                elif DIFF_RE.match(c):
                    if m and m.group(1) in keep:
                        cols.append(c)
                else:
                    cols.append(c)
            df = df[cols].dropna(axis=1, how="all")
            out["%s_%s_%s" % (name, part, v)] = df


def run(paths, tags, words, skip_missing):
    out = {}
    every = "all" in words
    base_sheets = sheets_of(paths[0])
    if every or "gpu_timeline" in words:                   # §4.1
        out["gpu_timeline"] = build([load(p, "gpu_timeline") for p in paths],
                                    tags, ["type"], ["time ms"])
    for sheet in ("ops_summary", "kernel_summary"):        # §4.2
        if not (every or sheet in words):
            continue
        if sheet not in base_sheets:
            if skip_missing and sheet not in words:
                continue
            raise Fail("%s sheet not found in %s" % (sheet, paths[0]))
        tabs = [load(p, sheet) for p in paths]
        cfg = sheet
        if sheet == "kernel_summary" and "Kernel name" not in tabs[0].columns:
            cfg = "kernel_summary_legacy"
        key, metrics, delete = SUMMARY[cfg]
        tabs = [t.drop(columns=[c for c in delete if c in t.columns])
                for t in tabs]
        tabs = tabs[:1] + [t.drop(columns=[c for c in
                                           ["Cumulative Percentage (%)"]
                                           if c in t.columns])
                           for t in tabs[1:]]
        j = build(tabs, tags, [key], metrics)
        out[sheet] = sort_desc(j, "%s::%s" % (tags[0], metrics[0]))
    if every or "ops_all" in words:                        # §4.3
        for sheet, metrics in OP_SHEETS:
            if sheet in base_sheets:
                j = build([load(p, sheet) for p in paths], tags, OP_KEYS,
                          metrics)
                split(j, tags, metrics[0], out, sheet)
    if every or "roofline" in words:                       # §4.4
        for sheet, name in ROOF:
            if sheet not in base_sheets:
                continue
            if skip_missing and not all(
                    os.path.exists(os.path.join(p, sheet + ".csv"))
                    for p in paths[1:]):
                continue
            tabs = [load(p, sheet) for p in paths]
            tabs = tabs[:1] + [t.drop(columns=[c for c in ROOF_DEL
                                               if c in t.columns])
                               for t in tabs[1:]]
            if any(t.empty for t in tabs):
                print("Skipping roofline sheet '%s' because one of the "
                      "reports is empty." % sheet)
                continue
            params = sorted(set.intersection(*[
                {c for c in t.columns if c.startswith("param:")}
                for t in tabs]))
            j = build(tabs, tags, ["name"] + params, ROOF_D)
            split(j, tags, ROOF_D[0], out, name)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--names", nargs="*")
    ap.add_argument("--sheets", nargs="+", default=["all"])
    ap.add_argument("--skip_missing", action="store_true")
    ap.add_argument("--quicksort", action="store_true")
    a = ap.parse_args()
    if a.quicksort:
        SORT_KIND[0] = "quicksort"
    tags = a.names or [os.path.splitext(os.path.basename(p))[0]
                       for p in a.reports]
    if len(set(tags)) != len(tags):
        print("Tags must be unique", file=sys.stderr)
        return 1
    try:
        out = run(a.reports, tags, a.sheets, a.skip_missing)
    except Fail as e:
        print(e, file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    for name, df in out.items():                          # §5.1
        df.to_csv(os.path.join(a.out, name + ".csv"), index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
