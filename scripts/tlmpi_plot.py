"""PNG plots of a tlmpi analysis or audit HDF5 file (docs/views.md).

    python3 tlmpi_plot.py RUN/tlmpi.h5  --out RUN/plots
    python3 tlmpi_plot.py AUDIT/audit.h5 --out AUDIT/plots

An analysis file (tlmpi --trace_dir ...) gives
  arrival_heatmap.png  rank x collective instance, colour = how late the
                       rank arrived (kernel start on corrected clocks minus
                       the instance's first start, us)
  busbw.png            bus bandwidth against message size, one series per
                       collective kind and process group
  gpu_time.png         per rank: computation, exposed communication,
                       exposed memcpy and idle GPU time
an audit file (tlmpi audit) gives
  scaling.png          step time and weak-scaling efficiency against the
                       world size, one line per job
  busbw.png            bus bandwidth against message size per collective
                       kind, coloured by world size

`tlmpi --plots` and `tlmpi audit --plots` run it after their HDF5 file is
written.  Reads through tlmpi_h5.py (same folder, or installed beside it).
Each PNG is written under a temporary name and renamed.  Exit status: 0
written, 3 matplotlib, h5py or pandas missing (nothing printed: the caller
says so), 1 the file could not be plotted, 2 usage.
"""

import argparse
import os
import sys

MISSING = 3


def _imports():
    """matplotlib (Agg), numpy, pandas and tlmpi_h5, or None."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:
            sys.path.insert(0, here)
        import tlmpi_h5
    except ImportError:
        return None
    return plt, np, tlmpi_h5


def _save(plt, fig, out_dir, name, written):
    final = os.path.join(out_dir, name)
    tmp = "%s.tlmpi-%d.tmp" % (final, os.getpid())
    try:
        fig.savefig(tmp, format="png", dpi=100)
        os.replace(tmp, final)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
    written.append(final)


def _label(s, n=40):
    s = "".join(ch if ch.isprintable() else "?" for ch in str(s))
    s = s.lstrip("_")  # matplotlib hides labels that start with "_"
    return s if len(s) <= n else s[:n - 3] + "..."


# ------------------------------------------------------------ analysis

def arrival_heatmap(plt, np, t):
    """Rank x instance matrix of lateness (us) on corrected clocks."""
    m = t.get("collectives/per_rank")
    if m is None or len(m) == 0:
        return None
    start = m["start_ns"].to_numpy(np.int64) - m["offset_ns"].to_numpy(
        np.int64)
    key = m["match_key"].astype(str) + ":" + m["seq"].astype(str)
    codes, uniq = _factorize(np, key.to_numpy())
    first = np.full(len(uniq), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, codes, start)
    order = np.argsort(first, kind="stable")
    col = np.empty_like(order)
    col[order] = np.arange(len(order))
    ranks = np.sort(m["trace_rank"].unique())
    row = np.searchsorted(ranks, m["trace_rank"].to_numpy())
    mat = np.full((len(ranks), len(uniq)), np.nan)
    mat[row, col[codes]] = (start - first[codes]) / 1e3
    finite = mat[np.isfinite(mat)]
    fig, ax = plt.subplots(figsize=(11, 5.5))
    ax.set_facecolor("#e8e8e8")  # not a member of that instance
    vmax = float(np.percentile(finite, 99.5)) if finite.size else 1.0
    im = ax.imshow(mat, aspect="auto", interpolation="nearest",
                   cmap="magma", vmin=0, vmax=max(vmax, 1e-3),
                   extent=(-0.5, len(uniq) - 0.5, ranks[-1] + 0.5,
                           ranks[0] - 0.5))
    cb = fig.colorbar(im, ax=ax)
    cb.set_label("arrival after the first rank (us, corrected clocks)")
    ax.set_xlabel("collective instance (by first arrival; grey: rank not "
                  "in its group)")
    ax.set_ylabel("rank")
    ax.set_title("Arrival at each collective: %d ranks x %d instances"
                 % (len(ranks), len(uniq)))
    fig.tight_layout()
    return fig


def _factorize(np, values):
    uniq, codes = np.unique(values, return_inverse=True)
    return codes, uniq


def busbw(plt, np, inst, size_col, group_cols, title):
    """Bus bandwidth against message size, one series per group."""
    if inst is None or len(inst) == 0:
        return None
    d = inst[(inst[size_col] > 0) & np.isfinite(inst["busbw_gbps"])
             & (inst["busbw_gbps"] > 0)]
    if len(d) == 0:
        return None
    fig, ax = plt.subplots(figsize=(9, 5.5))
    groups = list(d.groupby(group_cols, sort=True))
    cmap = plt.get_cmap("tab10" if len(groups) <= 10 else "tab20")
    markers = "osD^v<>pX*"
    for i, (k, g) in enumerate(groups[:40]):
        k = k if isinstance(k, tuple) else (k,)
        ax.scatter(g[size_col], g["busbw_gbps"], s=18, alpha=0.75,
                   color=cmap(i % cmap.N), marker=markers[i % len(markers)],
                   label=_label(" / ".join(str(x) for x in k)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def gpu_time(plt, np, t):
    """Per-rank GPU time split, in ms."""
    tl = t.get("timeline")
    if tl is None or len(tl) == 0:
        return None
    tl = tl.sort_values("trace_rank")
    r = tl["trace_rank"].to_numpy()
    parts = [("computation", tl["computation_ns"], "#4c72b0"),
             ("exposed communication", tl["exposed_comm_ns"], "#dd8452"),
             ("exposed memcpy", tl["exposed_memcpy_ns"], "#937860"),
             ("idle", tl["idle_ns"], "#c7c7c7")]
    fig, ax = plt.subplots(figsize=(11, 5))
    bottom = np.zeros(len(r))
    for name, v, colour in parts:
        v = v.to_numpy(np.float64) / 1e6
        if len(r) <= 256:
            ax.bar(np.arange(len(r)), v, bottom=bottom, color=colour,
                   label=name, width=0.85)
        else:  # thousands of bars: one filled band per part
            x = np.arange(len(r))
            ax.fill_between(x, bottom, bottom + v, step="mid", color=colour,
                            label=name, linewidth=0)
        bottom = bottom + v
    if len(r) <= 64:
        ax.set_xticks(np.arange(len(r)))
        ax.set_xticklabels([str(x) for x in r], fontsize=7)
    ax.set_xlabel("rank" if len(r) <= 64 else "rank (position)")
    ax.set_ylabel("GPU time (ms)")
    ax.set_title("GPU time per rank: busy (computation, exposed "
                 "communication, memcpy) and idle")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def plot_analysis(plt, np, tlmpi_h5, path, out_dir, written):
    t = tlmpi_h5.load(path, ["collectives/per_rank", "collectives/instances",
                             "timeline"])
    inst = t.get("collectives/instances")
    figs = [("arrival_heatmap.png", arrival_heatmap(plt, np, t)),
            ("busbw.png", busbw(plt, np, inst, "bytes",
                                ["coll_name", "pg_desc", "group_size"],
                                "Bus bandwidth per collective instance "
                                "(kind / group / size)")),
            ("gpu_time.png", gpu_time(plt, np, t))]
    for name, fig in figs:
        if fig is not None:
            _save(plt, fig, out_dir, name, written)


# ------------------------------------------------------------ audit

def scaling(plt, np, jobs):
    if jobs is None or len(jobs) == 0:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.8))
    for job, g in jobs.groupby("job", sort=True):
        g = g.sort_values("world_size")
        x = g["world_size"].to_numpy()
        a1.plot(x, g["step_time_ns"].to_numpy() / 1e6, "o-",
                label=_label(job))
        a2.plot(x, g["eff_weak"].to_numpy(), "o-", label=_label(job))
    from matplotlib.ticker import ScalarFormatter
    for a in (a1, a2):
        a.set_xscale("log", base=2)
        a.xaxis.set_major_formatter(ScalarFormatter())
    a2.set_ylim(bottom=0, top=max(1.1, float(jobs["eff_weak"].max()) * 1.05))
    a1.set_xlabel("world size (ranks)")
    a2.set_xlabel("world size (ranks)")
    a1.set_ylabel("step time (ms)")
    a2.set_ylabel("weak-scaling efficiency (base step / step)")
    a2.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    a1.set_title("Step time")
    a2.set_title("Scaling efficiency")
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
    a2.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_audit(plt, np, tlmpi_h5, path, out_dir, written):
    t = tlmpi_h5.load(path, ["scaling/jobs", "scaling/collectives"])
    coll = t.get("scaling/collectives")
    figs = [("scaling.png", scaling(plt, np, t.get("scaling/jobs"))),
            ("busbw.png", busbw(plt, np, coll, "bytes",
                                ["coll", "world_size"],
                                "Bus bandwidth per collective signature "
                                "(kind / world size)"))]
    for name, fig in figs:
        if fig is not None:
            _save(plt, fig, out_dir, name, written)


def main(argv):
    ap = argparse.ArgumentParser(description="PNG plots of a tlmpi file")
    ap.add_argument("h5", help="tlmpi.h5 (analysis) or audit.h5 (audit)")
    ap.add_argument("--out", required=True, help="folder for the PNGs")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv[1:])
    mods = _imports()
    if mods is None:
        return MISSING
    plt, np, tlmpi_h5 = mods
    import h5py
    try:
        with h5py.File(a.h5, "r") as f:
            audit = "runs" in f and "scaling" in f
        os.makedirs(a.out, exist_ok=True)
        written = []
        (plot_audit if audit else plot_analysis)(plt, np, tlmpi_h5, a.h5,
                                                 a.out, written)
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("tlmpi_plot: %s: %s\n" % (a.h5, e))
        return 1
    if not a.quiet:
        sys.stderr.write("tlmpi: plots: %d PNG file%s in %s\n"
                         % (len(written), "" if len(written) == 1 else "s",
                            a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
