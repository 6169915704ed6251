"""Load a tlmpi HDF5 file (schema v1) into pandas DataFrames.

    import tlmpi_h5
    h5 = tlmpi_h5.load("run42/traces/tlmpi.h5")
    h5["traces"]                  # DataFrame, one row per rank
    h5["collectives/instances"]   # one row per matched collective
    h5["steps/summary"]           # one row per ProfilerStep#N, outliers
    h5.attrs["command_line"]      # file attributes (schema_version, ...)
    h5.units["collectives/instances"]["comm_latency_ns"]   # "ns"
    h5["collectives/instances"]["flag_names"]  # "incomplete|group_world"

    c = tlmpi_h5.load_comparison("cmp/comparison.h5")  # tlmpi compare A B
    c["collectives"].nlargest(5, "impact_ns")    # diff = B - A, pct = %
    c.attrs["name_a"], c.attrs["name_b"]

    a = tlmpi_h5.load("audit/audit.h5")          # tlmpi audit: /runs, ...
    tlmpi_h5.load_run("audit/audit.h5", "llama/n8")["traces"]
    tlmpi_h5.load_runs("audit/audit.h5", "timeline")  # all runs, "run" col

Every dataset of the file becomes a DataFrame keyed by its path without the
leading "/" ("collectives/per_rank"); fixed-length string columns are decoded
from UTF-8 bytes to str.  Needs h5py and pandas (Debian: /usr/bin/python3
with python3-h5py and python3-pandas).  Also a command line tool:

    python3 tlmpi_h5.py FILE.h5 [DATASET]   # lists datasets, or prints one
"""

import sys

__version__ = "0.1.0"  # tlmpi's version (test_help checks it)

import h5py
import numpy as np
import pandas as pd

SUPPORTED_SCHEMA = 1

# The bits of the integer "flags" columns (docs/hdf5-schema.md, "Flags"),
# decoded by load() into a column "flag_names": the names joined by "|",
# "" for none, an unknown bit as "bit<N>".
FLAG_BITS = {
    "collectives/instances": [
        (1 << 0, "incomplete"), (1 << 1, "overfull"),
        (1 << 2, "sig_mismatch"), (1 << 3, "p2p"), (1 << 4, "corrected"),
        (1 << 5, "multi_kernel"), (1 << 6, "latency_suspect"),
        (1 << 7, "group_mismatch"), (1 << 8, "group_world")],
    "collectives/clock": [
        (1 << 0, "reference"), (1 << 1, "no_data"), (1 << 2, "clamped"),
        (1 << 3, "infeasible"), (1 << 4, "large"), (1 << 5, "noisy")],
}


def flag_names(value, bits):
    """The names of the bits set in value ("|"-joined; "" for none)."""
    value = int(value)
    names, known = [], 0
    for bit, name in bits:
        known |= bit
        if value & bit:
            names.append(name)
    rest, n = value & ~known, 0
    while rest > 0:
        if rest & 1:
            names.append("bit%d" % n)
        rest >>= 1
        n += 1
    return "|".join(names)


class Tables(dict):
    """dict of DataFrames plus .attrs (file attributes), .units and .docs
    (per dataset: {column: unit} and the dataset's description)."""

    def __init__(self):
        super().__init__()
        self.attrs = {}
        self.units = {}
        self.docs = {}


def _attr(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.ndarray):
        return [_attr(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _frame(ds):
    arr = ds[()]
    df = pd.DataFrame(arr) if arr.dtype.names else pd.DataFrame({"value": arr})
    for name in arr.dtype.names or ():
        if arr.dtype[name].kind == "S":
            df[name] = df[name].str.decode("utf-8", errors="replace")
    return df


def load(path, datasets=None):
    """Reads every dataset (or only the given paths) of a tlmpi file.

    Returns a Tables (a dict of DataFrames with .attrs, .units, .docs).
    Raises ValueError when the file's schema_version is newer than this
    loader knows."""
    out = Tables()
    with h5py.File(path, "r") as f:
        out.attrs = {k: _attr(v) for k, v in f.attrs.items()}
        ver = out.attrs.get("schema_version")
        if ver is not None and int(ver) > SUPPORTED_SCHEMA:
            raise ValueError(
                "%s: schema version %s, this loader knows up to %d"
                % (path, ver, SUPPORTED_SCHEMA))
        names = []
        f.visititems(lambda n, o: names.append(n)
                     if isinstance(o, h5py.Dataset) else None)
        for name in sorted(names):
            if datasets is not None and name not in datasets:
                continue
            ds = f[name]
            out[name] = _frame(ds)
            bits = FLAG_BITS.get(name)
            if bits and "flags" in out[name].columns:
                out[name]["flag_names"] = [
                    flag_names(v, bits) for v in out[name]["flags"]]
            cols = _attr(ds.attrs.get("columns", []))
            units = _attr(ds.attrs.get("units", []))
            out.units[name] = dict(zip(cols, units))
            out.docs[name] = _attr(ds.attrs.get("doc", ""))
    return out


def _run_files(audit_path):
    """(run, path of its tlmpi.h5) of every ok run of an audit file; the
    paths in /runs.h5 are relative to audit.h5's folder."""
    import os
    runs = load(audit_path, ["runs"])["runs"]
    base = os.path.dirname(os.path.abspath(audit_path))
    ok = runs[runs["status"] == "ok"]
    return [(r, os.path.join(base, h)) for r, h in zip(ok["run"], ok["h5"])]


def load_run(audit_path, run, datasets=None):
    """The Tables of one run of an audit (tlmpi audit's audit.h5), by its
    path under the audit root as in /runs.run.  Raises KeyError when the
    run is not an ok run of the audit."""
    for r, path in _run_files(audit_path):
        if r == run:
            return load(path, datasets)
    raise KeyError("%s: no ok run %r" % (audit_path, run))


def load_runs(audit_path, dataset):
    """One DataFrame of the given dataset over every ok run of an audit,
    with a first column "run"."""
    frames = []
    for r, path in _run_files(audit_path):
        df = load(path, [dataset]).get(dataset)
        if df is not None:
            df.insert(0, "run", r)
            frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


COMPARISON_SCHEMA = 1


def load_comparison(path):
    """The Tables of a comparison.h5 written by `tlmpi compare A.h5 B.h5`:
    "summary", "collectives", "ops", "stragglers", "findings" (columns
    <metric>_a, _b, _diff = B - A, _pct = 100 diff / A; docs/compare-runs.md).
    Raises ValueError when the file is not a comparison (attribute kind) or
    of a newer schema version."""
    t = load(path)
    kind = t.attrs.get("kind")
    if kind != "comparison":
        raise ValueError("%s: attribute kind is %r, not 'comparison'"
                         % (path, kind))
    ver = int(t.attrs.get("schema_version", -1))
    if ver > COMPARISON_SCHEMA:
        raise ValueError("%s: comparison schema version %d, this loader "
                         "knows up to %d" % (path, ver, COMPARISON_SCHEMA))
    return t


def main(argv):
    if len(argv) == 2 and argv[1] in ("--version", "-V"):
        print("tlmpi_h5.py " + __version__)
        return 0
    if len(argv) == 2 and argv[1] in ("--help", "-h"):
        print("usage: tlmpi_h5.py FILE.h5 [DATASET]\n\nPrints the "
              "attributes and the datasets of a tlmpi HDF5 file, or one\n"
              "dataset as a table.  In Python: import tlmpi_h5; "
              "tlmpi_h5.load(FILE).")
        return 0
    if len(argv) < 2:
        sys.stderr.write("usage: tlmpi_h5.py FILE.h5 [DATASET]\n")
        return 2
    t = load(argv[1], [argv[2]] if len(argv) > 2 else None)
    if len(argv) > 2:
        if argv[2] not in t:
            sys.stderr.write("no dataset %s\n" % argv[2])
            return 1
        with pd.option_context("display.max_rows", 200,
                               "display.max_columns", 50,
                               "display.width", 200):
            print(t[argv[2]])
        return 0
    for k, v in sorted(t.attrs.items()):
        print("@%s = %s" % (k, v))
    for name, df in t.items():
        print("%-28s %8d rows  %s" % (name, len(df), t.docs.get(name, "")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
