#!/bin/bash
# The legends of busbw.png (scripts/tlmpi_plot.py; issue 34): traces
# without named collective keys or group descriptions fall back to the
# collective type and the group's name ("allreduce / pg size8 / 8", not
# " /  / 8"); the audit's busbw.png names the job of each series.  Runs
# the plot functions on hand-made tables (no trace, no HDF5 file).
set -u
: "${TLM_SOURCE_DIR:?}"
PY=/usr/bin/python3
$PY -c 'import matplotlib, pandas, numpy' 2>/dev/null || {
    echo "matplotlib/pandas missing for /usr/bin/python3: skipped"
    exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/plot_labels
rm -rf "$W"; mkdir -p "$W"
PYTHONPATH=$TLM_SOURCE_DIR/scripts $PY - "$W" <<'PY' || { echo FAIL; exit 1; }
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import tlmpi_plot

legends = []
real = tlmpi_plot.busbw
def spy(*a, **k):
    fig = real(*a, **k)
    if fig is not None:
        legends.append([t.get_text() for t in
                        fig.axes[0].get_legend().get_texts()])
    return fig
tlmpi_plot.busbw = spy

inst = pd.DataFrame({
    "pg_name": ["size8", "size8", "3", ""],
    "pg_desc": ["", "", "TP", ""],
    "coll": ["allreduce", "allreduce", "allgather", "broadcast"],
    "coll_name": ["", "", "nccl:all_gather", ""],
    "group_size": [8, 8, 4, 2],
    "bytes": [1 << 20, 1 << 22, 1 << 20, 1024],
    "busbw_gbps": [10.0, 20.0, 30.0, 1.0],
})
keys = ["series_kind", "series_group", "group_size"]
fig = tlmpi_plot.busbw(plt, np, tlmpi_plot.series_keys(inst), "bytes", keys,
                       "t")
got = sorted(legends.pop())
want = sorted(["allreduce / pg size8 / 8", "nccl:all_gather / TP / 4",
               "broadcast / ? / 2"])
assert got == want, got
plt.close(fig)

class H5:
    def load(self, path, names):
        return {"scaling/jobs": None, "scaling/collectives": pd.DataFrame({
            "job": ["llama", "llama", "dlrm"], "run": ["a", "b", "c"],
            "coll": ["allreduce"] * 3, "world_size": [8, 16, 8],
            "bytes": [1 << 20] * 3, "busbw_gbps": [10.0, 12.0, 5.0]})}
written = []
tlmpi_plot.plot_audit(plt, np, H5(), "x.h5", sys.argv[1], written)
got = sorted(legends.pop())
assert got == ["dlrm / allreduce / 8", "llama / allreduce / 16",
               "llama / allreduce / 8"], got
print("plot labels ok")
PY
