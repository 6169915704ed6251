#!/usr/bin/python3
"""Compares tlmpi's HTA tables with HTA's own output (spec/hta.md §10).

Usage: compare_hta.py OURS_DIR REF_DIR [--skip TABLE ...] [--ranks N]

OURS_DIR holds tlmpi's <table>.csv (the hta/ folder), REF_DIR HTA's
(shared/traces/<folder>/hta_csvs, .csv or .csv.gz).  Every reference table
is compared key by key (keys of spec §10; equal keys pair in file order):
same key set, every reference column present with the same header, cells
equal within 1e-6 relative or 1e-9 absolute, empty = NaN.  Not compared:
queue_length_summary_hta_raw (HTA's unstable order, Q7), the critical-path
tables and frequent_cuda_kernel_sequences when tlmpi did not write them
(given to another table builder / an option), the launch tables when HTA
has no rows (Q8: ROCm launches tlmpi adds), and by_type rows with sum 0.
Exit status 0 when all agree, 1 with one line per difference.
"""
import argparse
import math
import os
import sys

import pandas as pd

KEYS = {
    "temporal_breakdown": ["rank"],
    "idle_time_breakdown": ["rank", "stream", "idle_category"],
    "idle_interval_stats": ["rank", "stream", "idle_category"],
    "comm_comp_overlap": ["rank"],
    "cuda_kernel_launch_stats": ["rank", "correlation"],
    "cuda_kernel_launch_summary": ["rank"],
    "queue_length_summary": ["rank", "stream"],
    "gpu_kernel_breakdown_by_type": ["kernel_type"],
    "gpu_kernel_breakdown": ["kernel_type", "name", "rank"],
    "frequent_cuda_kernel_sequences": ["pattern"],
    "critical_path_summary": ["bound_by"],
}
OPTIONAL = {"critical_path_summary", "critical_path_edges",
            "frequent_cuda_kernel_sequences"}
INFORMATIVE = {"critical_path_summary": {"edges"}}


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""],
                       dtype=str)


def num(x):
    if x is None or (isinstance(x, float) and math.isnan(x)) or x == "":
        return float("nan")
    try:
        return float(x)
    except ValueError:
        return None


def same(a, b):
    fa, fb = num(a), num(b)
    if fa is None or fb is None:
        return str(a) == str(b)
    if math.isnan(fa) or math.isnan(fb):
        return math.isnan(fa) and math.isnan(fb)
    return abs(fa - fb) <= max(1e-9, 1e-6 * max(abs(fa), abs(fb)))


def keyed(df, keys):
    out = {}
    for _, row in df.iterrows():
        k = []
        for c in keys:
            v = row[c]
            f = num(v)
            k.append(f if f is not None and not math.isnan(f) else str(v))
        k = tuple(k)
        out.setdefault(k, []).append(row)
    return out


def compare(name, ours, ref, errs):
    keys = KEYS[name]
    for c in ref.columns:
        if c not in ours.columns:
            errs.append(f"{name}: column {c!r} missing")
    if errs:
        return
    if name == "gpu_kernel_breakdown_by_type":
        ref = ref[ref["sum"].astype(float) != 0]
        ours = ours[ours["sum"].astype(float) != 0]
    if name == "critical_path_summary":
        ref = ref[ref["duration"].astype(float) != 0]
        ours = ours[ours["duration"].astype(float) != 0]
    ko, kr = keyed(ours, keys), keyed(ref, keys)
    for k in kr:
        if k not in ko:
            errs.append(f"{name}: key {k} missing from tlmpi")
            continue
        if len(ko[k]) != len(kr[k]):
            errs.append(f"{name}: key {k}: {len(ko[k])} rows, HTA "
                        f"{len(kr[k])}")
            continue
        for ro, rr in zip(ko[k], kr[k]):
            for c in ref.columns:
                if c in INFORMATIVE.get(name, ()):
                    continue
                if not same(ro[c], rr[c]):
                    errs.append(f"{name}: key {k} column {c}: tlmpi "
                                f"{ro[c]!r}, HTA {rr[c]!r}")
    for k in ko:
        if k not in kr:
            errs.append(f"{name}: key {k} not in HTA's table")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("ref")
    ap.add_argument("--skip", nargs="*", default=[])
    a = ap.parse_args()
    errs, done = [], []
    for f in sorted(os.listdir(a.ref)):
        name = f.split(".")[0]
        if name not in KEYS or name in a.skip:
            continue
        ours_path = os.path.join(a.ours, name + ".csv")
        if not os.path.exists(ours_path):
            if name in OPTIONAL:
                continue
            errs.append(f"{name}: tlmpi wrote no {name}.csv")
            continue
        ref = read(os.path.join(a.ref, f))
        ours = read(ours_path)
        if name.startswith("cuda_kernel_launch") and (
                len(ref) == 0 or (name.endswith("summary") and
                                  ref["launches"].astype(float).sum() == 0)):
            continue
        n0 = len(errs)
        compare(name, ours, ref, errs)
        done.append(f"{name} ({len(ref)} rows{'' if len(errs) == n0 else ', DIFFERS'})")
    for e in errs[:50]:
        print(e)
    if len(errs) > 50:
        print(f"... {len(errs) - 50} more")
    print("compared: " + ", ".join(done), file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
