"""Checks a merged trace (tlmpi --merged_trace) against tlmpi-synth's
ground_truth.json: it parses as JSON, holds one process per rank, every
kept collective member's kernel lies on the ground truth's global clock
within 1 us (after the clock correction, up to one constant shift), and
flow events link each instance across its ranks (one id, one "s" at the
earliest, one "f" at the latest, each inside its rank's kernel slice).

    mtrace_check.py MERGED.json.gz ground_truth.json CLOCK [FILTER]

CLOCK is the expected otherData.clock ("corrected" or "raw"); with "raw"
the alignment is not checked (the traces' clocks differ by the offsets).
Exit 0 when every check passes; the first failure is printed."""

import collections
import gzip
import json
import sys


def fail(msg):
    print("mtrace_check: FAIL: " + msg)
    sys.exit(1)


def main(path, gt_path, clock, filt="all"):
    with gzip.open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    gt = json.load(open(gt_path))
    od = doc.get("otherData", {})
    if od.get("clock") != clock:
        fail("otherData.clock is %r, expected %r" % (od.get("clock"), clock))
    if od.get("filter") != filt:
        fail("otherData.filter is %r, expected %r" % (od.get("filter"), filt))
    ev = doc["traceEvents"]
    ranks = sorted(r["rank"] for r in gt["ranks"] if r["written"])
    names = {e["pid"]: e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    if sorted(names) != ranks:
        fail("processes %s, ranks %s" % (sorted(names), ranks))
    for r in ranks:
        if names[r] != "rank %d" % r:
            fail("process %d is named %r" % (r, names[r]))
    if sorted({e["pid"] for e in ev}) != ranks:
        fail("events of unknown processes")
    tids = collections.defaultdict(set)
    for e in ev:
        if "tid" in e:
            tids[e["tid"]].add(e["pid"])
    if any(len(p) > 1 for p in tids.values()):
        fail("a thread id is shared by two processes")
    gpu = ("kernel", "gpu_memcpy", "gpu_memset")
    if filt == "kernels" and any(e.get("cat") not in gpu for e in ev
                                 if e.get("ph") == "X"):
        fail("filter kernels kept CPU events")

    # kernels of collectives: (pid, pg, seq) -> first kernel
    kern = {}
    for e in ev:
        a = e.get("args") or {}
        if e.get("ph") == "X" and "coll" in a:
            k = (e["pid"], a["pg"], a["seq"])
            if k not in kern or e["ts"] < kern[k]["ts"]:
                kern[k] = e
    if not kern:
        fail("no collective kernel events")

    # p2p is checked through its flows only here (its args carry the
    # trace's Seq, which schema 2 traces lack; test_p2p_seq.sh checks it)
    colls = [c for c in gt["collectives"] if c["name"] != "send"]
    ns = lambda us: int(round(us * 1000))
    shifts, n_mem = [], 0
    for c in colls:
        for m in c["members"]:
            if not m.get("kept", True) or m["rank"] not in names:
                continue
            k = (m["rank"], c["pg_name"], c["seq"])
            if k not in kern:
                fail("no kernel for rank %d pg %s seq %d"
                     % (m["rank"], c["pg_name"], c["seq"]))
            shifts.append(ns(kern[k]["ts"]) - m["start_ns"])
            n_mem += 1
    if clock == "corrected":
        s0 = sorted(shifts)[len(shifts) // 2]
        worst = max(abs(s - s0) for s in shifts)
        if worst > 1000:
            fail("collective starts off the ground truth by up to %d ns "
                 "(limit 1000) after correction" % worst)
        print("mtrace_check: %d members within %d ns of the ground truth"
              % (n_mem, worst))

    # flows: one chain per instance, inside the kernel slices
    slices = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and "coll" in (e.get("args") or {}):
            slices[(e["pid"], e["tid"])].append(e)
    chains = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") in ("s", "t", "f"):
            if e.get("bp") != "e" or e.get("cat") != "tlmpi.collective":
                fail("flow event without bp e / its category: %r" % e)
            inside = [x for x in slices[(e["pid"], e["tid"])]
                      if x["ts"] <= e["ts"] <= x["ts"] + x["dur"]]
            if not inside:
                fail("flow event outside any collective kernel: %r" % e)
            chains[e["id"]].append((e, inside[0]))
    n_multi = 0
    for c in colls:
        kept = [m["rank"] for m in c["members"]
                if m.get("kept", True) and m["rank"] in names]
        if len(kept) < 2:
            continue
        n_multi += 1
        ids = {e["id"] for e, x in
               (p for ch in chains.values() for p in ch)
               if x["args"]["pg"] == c["pg_name"]
               and x["args"]["seq"] == c["seq"]}
        if len(ids) != 1:
            fail("pg %s seq %d: %d flow ids" % (c["pg_name"], c["seq"],
                                                len(ids)))
        ch = sorted(chains[ids.pop()], key=lambda p: (p[0]["ts"],
                                                      p[0]["pid"]))
        phs = [p[0]["ph"] for p in ch]
        if sorted(p[0]["pid"] for p in ch) != sorted(kept):
            fail("pg %s seq %d: flow on ranks %s, members %s"
                 % (c["pg_name"], c["seq"], [p[0]["pid"] for p in ch], kept))
        if phs[0] != "s" or phs[-1] != "f" or set(phs[1:-1]) - {"t"}:
            fail("pg %s seq %d: flow phases %s" % (c["pg_name"], c["seq"],
                                                   phs))
    n_p2p = sum(1 for ch in chains.values()
                if ch[0][1]["args"]["coll"] in ("send", "recv", "p2p"))
    n_gt_p2p = sum(1 for c in gt["collectives"] if c["name"] == "send"
                   and all(m.get("kept", True) and m["rank"] in names
                           for m in c["members"]))
    if len(chains) - n_p2p != n_multi or n_p2p != n_gt_p2p:
        fail("%d flow chains (%d p2p) for %d instances (%d p2p)"
             % (len(chains), n_p2p, n_multi, n_gt_p2p))
    print("mtrace_check: ok: %d ranks, %d events, %d flow chains"
          % (len(ranks), len(ev), len(chains)))


if __name__ == "__main__":
    main(*sys.argv[1:])
