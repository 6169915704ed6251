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

and, with --timeline MERGED.json.gz (a --merged_trace), a picture of it:
  timeline.png         GPU streams of every rank over a window, collective
                       kernels in colour, their flow links drawn across
                       ranks (a static view of what Perfetto UI shows)

`tlmpi --plots` and `tlmpi audit --plots` run it after their HDF5 file is
written.  Reads through tlmpi_h5.py (same folder, or installed beside it).
Each PNG is written under a temporary name and renamed.  Exit status: 0
written, 3 matplotlib, h5py or pandas missing (nothing printed: the caller
says so), 1 the file could not be plotted, 2 usage.
"""

__version__ = "0.1.0"  # tlmpi's version (test_help checks it)

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


# Figures use fixed margins (subplots_adjust), not tight_layout: measuring
# every artist takes seconds on a 1,024-rank job.
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

def _aside(inst):
    """(the instances used, a title note on those set aside): one rule with
    report.md and /collectives/summary (docs/metrics-collectives.md)."""
    if inst is None or "set_aside" not in inst.columns:
        return inst, ""
    out = inst[inst["set_aside"] != ""]
    if len(out) == 0:
        return inst, ""
    why = ", ".join("%d %s" % (n, k) for k, n in
                    sorted(out["set_aside"].value_counts().items()))
    return inst[inst["set_aside"] == ""], " [%d set aside: %s]" % (len(out),
                                                                    why)


def arrival_heatmap(plt, np, t, used=None, note=""):
    """Rank x instance matrix of lateness (us) on corrected clocks, over
    the instances used (not set aside)."""
    m = t.get("collectives/per_rank")
    if m is not None and used is not None and len(m):
        keep = set(zip(used["match_key"].tolist(), used["seq"].tolist()))
        m = m[[k in keep for k in zip(m["match_key"].tolist(),
                                      m["seq"].tolist())]]
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
    vmax = float(np.percentile(finite, 97)) if finite.size else 1.0
    im = ax.imshow(mat, aspect="auto", interpolation="nearest",
                   cmap="magma", vmin=0, vmax=max(vmax, 1e-3),
                   extent=(-0.5, len(uniq) - 0.5, ranks[-1] + 0.5,
                           ranks[0] - 0.5))
    cb = fig.colorbar(im, ax=ax, extend="max")
    cb.set_label("arrival after the first rank (us, corrected clocks)")
    ax.set_xlabel("collective instance (by first arrival; grey: rank not "
                  "in its group)")
    ax.set_ylabel("rank")
    ax.set_title("Arrival at each collective: %d ranks x %d instances%s"
                 % (len(ranks), len(uniq), note))
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.1, top=0.93)
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
    fig.subplots_adjust(left=0.08, right=0.72, bottom=0.1, top=0.93)
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
    fig.subplots_adjust(left=0.06, right=0.8, bottom=0.1, top=0.92)
    return fig


def series_keys(inst):
    """The legend's kind and group of each instance: the collective's name
    in the trace, else its type; the group's description, else its name
    ("pg 3"), else "?"."""
    inst = inst.copy()
    name = inst["coll_name"].astype(str)
    inst["series_kind"] = name.where(name != "", inst["coll"].astype(str))
    desc = inst["pg_desc"].astype(str)
    pg = inst["pg_name"].astype(str)
    inst["series_group"] = desc.where(
        desc != "", ("pg " + pg).where(pg != "", "?"))
    return inst


def plot_analysis(plt, np, tlmpi_h5, path, out_dir, written):
    t = tlmpi_h5.load(path, ["collectives/per_rank", "collectives/instances",
                             "timeline"])
    inst, note = _aside(t.get("collectives/instances"))
    if inst is not None and len(inst):
        inst = series_keys(inst)
    figs = [("arrival_heatmap.png", arrival_heatmap(plt, np, t, inst, note)),
            ("busbw.png", busbw(plt, np, inst, "bytes",
                                ["series_kind", "series_group", "group_size"],
                                "Bus bandwidth per collective instance "
                                "(kind / group / size)" + note)),
            ("gpu_time.png", gpu_time(plt, np, t))]
    for name, fig in figs:
        if fig is not None:
            _save(plt, fig, out_dir, name, written)


# ------------------------------------------------------------ audit

def scaling(plt, np, jobs):
    if jobs is None or len(jobs) == 0:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.8))
    # one line per series: the runs of a job that are compared (older
    # files have no series column: one per job)
    key = "series" if "series" in jobs.columns else "job"
    for job, g in jobs.groupby(key, sort=True):
        g = g.sort_values("world_size")
        x = g["world_size"].to_numpy()
        a1.plot(x, g["step_time_ns"].to_numpy() / 1e6, "o-",
                label=_label(job))
        a2.plot(x, g["eff_weak"].to_numpy(), "o-", label=_label(job))
    ws = sorted(int(w) for w in jobs["world_size"].unique())
    for a in (a1, a2):
        a.set_xscale("log", base=2)
        a.set_xticks(ws)
        a.set_xticklabels([str(w) for w in ws])
        a.minorticks_off()
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
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.12, top=0.92,
                        wspace=0.25)
    return fig


def plot_audit(plt, np, tlmpi_h5, path, out_dir, written):
    t = tlmpi_h5.load(path, ["scaling/jobs", "scaling/collectives"])
    coll = t.get("scaling/collectives")
    note = ""
    if coll is not None and "n_incomplete" in coll.columns:
        k = [(int(coll[c].clip(lower=0).sum()), w) for c, w in
             (("n_incomplete", "incomplete"), ("n_mismatch", "mismatch"),
              ("n_suspect", "latency_suspect"))]
        if sum(n for n, _ in k):
            note = " [%d instances set aside: %s]" % (
                sum(n for n, _ in k),
                ", ".join("%d %s" % (n, w) for n, w in k if n))
    figs = [("scaling.png", scaling(plt, np, t.get("scaling/jobs"))),
            ("busbw.png", busbw(plt, np, coll, "bytes",
                                (["job"] if coll is not None and "job" in
                                 coll.columns else []) +
                                ["coll", "world_size"],
                                "Bus bandwidth per collective signature "
                                "(job / kind / world size)" + note))]
    for name, fig in figs:
        if fig is not None:
            _save(plt, fig, out_dir, name, written)


# ------------------------------------------------------------ timeline

def timeline(plt, np, path, window_us):
    """GPU streams of a merged trace over a window: kernels as bars,
    collectives coloured by kind, flows as lines across ranks."""
    import gzip
    import json
    with gzip.open(path, "rb") as f:
        doc = json.load(f)
    ev = doc["traceEvents"]
    gpu = ("kernel", "gpu_memcpy", "gpu_memset")
    flows = [e for e in ev if e.get("ph") in ("s", "t", "f")]
    kern = [e for e in ev if e.get("ph") == "X" and e.get("cat") in gpu]
    if not kern:
        return None
    t0 = min(e["ts"] for e in kern)
    lo = hi = 0.0
    if window_us:
        lo, hi = (float(x) for x in window_us.split(":"))
    else:  # 3 ms from just before the first linked collective
        first = min((e["ts"] for e in flows), default=t0) - t0
        lo, hi = max(first - 200.0, 0.0), max(first - 200.0, 0.0) + 3000.0
    def seen(e):
        return e["ts"] - t0 + e.get("dur", 0) >= lo and e["ts"] - t0 <= hi
    kern = [e for e in kern if seen(e)]
    flows = [e for e in flows if seen(e)]
    rows = sorted({(e["pid"], e["tid"]) for e in kern})
    if not rows:
        return None
    row = {k: i for i, k in enumerate(rows)}
    fig, ax = plt.subplots(figsize=(12, 0.3 * len(rows) + 1.6))
    kinds = sorted({e["args"]["coll"] for e in kern if "coll" in
                    (e.get("args") or {})})
    cmap = plt.get_cmap("tab10")
    colour = {k: cmap((i + 1) % 10) for i, k in enumerate(kinds)}
    bars = {}
    for e in kern:
        s, d = e["ts"] - t0, e.get("dur", 0)
        if s + d < lo or s > hi:
            continue
        a = e.get("args") or {}
        key = a.get("coll", "")
        bars.setdefault((row[(e["pid"], e["tid"])], key), []).append((s, d))
    for (r, key), xs in bars.items():
        ax.broken_barh(xs, (r - 0.35, 0.7), linewidth=0,
                       facecolor=colour.get(key, "#9db4d3"))
    chains = {}
    for e in flows:
        chains.setdefault(e["id"], []).append(e)
    for ch in chains.values():
        ch.sort(key=lambda e: (e["ts"], e["pid"]))
        xs = [e["ts"] - t0 for e in ch]
        ys = [row.get((e["pid"], e["tid"]), np.nan) for e in ch]
        if max(xs) < lo or min(xs) > hi:
            continue
        ax.plot(xs, ys, color="black", linewidth=0.7, alpha=0.8)
        ax.plot(xs[:1], ys[:1], "o", color="black", markersize=2.5)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["rank %d / %d" % (p, t % 1024) for p, t in rows],
                       fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(lo, hi)
    ax.set_xlabel("time (us since the first kernel, clock-aligned: %s)"
                  % doc.get("otherData", {}).get("clock", "?"))
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[k]) for k in kinds]
    handles.append(plt.Rectangle((0, 0), 1, 1, color="#9db4d3"))
    ax.legend(handles, [_label(k) for k in kinds] + ["other kernels"],
              fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("Merged trace: GPU streams per rank, collectives linked "
                 "by flows")
    fig.subplots_adjust(left=0.1, right=0.86, bottom=0.08, top=0.95)
    return fig


def main(argv):
    ap = argparse.ArgumentParser(description="PNG plots of a tlmpi file")
    ap.add_argument("h5", nargs="?",
                    help="tlmpi.h5 (analysis) or audit.h5 (audit)")
    ap.add_argument("--out", required=True, help="folder for the PNGs")
    ap.add_argument("--timeline", metavar="MERGED.json.gz",
                    help="also draw timeline.png of a merged trace")
    ap.add_argument("--window_us", metavar="START:END",
                    help="its window, us after the first kernel")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--version", action="version",
                      version="%(prog)s " + __version__)
    a = ap.parse_args(argv[1:])
    if not a.h5 and not a.timeline:
        ap.error("give an HDF5 file, --timeline, or both")
    mods = _imports()
    if mods is None:
        return MISSING
    plt, np, tlmpi_h5 = mods
    import h5py
    written = []
    if a.timeline:
        try:
            os.makedirs(a.out, exist_ok=True)
            fig = timeline(plt, np, a.timeline, a.window_us)
            if fig is not None:
                _save(plt, fig, a.out, "timeline.png", written)
        except (OSError, KeyError, ValueError) as e:
            sys.stderr.write("tlmpi_plot: %s: %s\n" % (a.timeline, e))
            return 1
        if not a.h5:
            return 0
    try:
        with h5py.File(a.h5, "r") as f:
            audit = "runs" in f and "scaling" in f
        os.makedirs(a.out, exist_ok=True)
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
