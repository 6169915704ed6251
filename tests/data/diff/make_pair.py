#!/usr/bin/env python3
"""Writes a.json and b.json: a small pair of Kineto traces for
tests/integration/test_diff.sh (known insertion, deletion, renamed kernel).
Run from this folder; the outputs are committed."""
import json

def trace(spec):
    ev, corr = [], [100]
    def op(name, ts, dur, kids=(), dims=None):
        a = {"External id": len(ev) + 1}
        if dims is not None:
            a["Input Dims"] = dims
            a["Input type"] = ["float"] * len(dims)
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1,
                   "tid": 1, "ts": ts, "dur": dur, "args": a})
        for k in kids:
            k()
    def launch(ts, kname, kts, kdur):
        def f():
            corr[0] += 1
            c = corr[0]
            ev.append({"ph": "X", "cat": "cuda_runtime",
                       "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts, "dur": 4, "args": {"correlation": c}})
            ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": c,
                       "pid": 1, "tid": 1, "ts": ts})
            ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": c,
                       "pid": 0, "tid": 7, "ts": kts, "bp": "e"})
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0,
                       "tid": 7, "ts": kts, "dur": kdur,
                       "args": {"correlation": c, "stream": 7}})
        return f
    def sub(*a, **k):
        return lambda: op(*a, **k)
    spec(op, launch, sub)
    return {"schemaVersion": 1, "traceEvents": ev}

def a(op, launch, sub):
    op("aten::linear", 0, 100, [sub("aten::addmm", 10, 40,
       [launch(20, "gemm_kernel_a", 1000, 30.5)], dims=[[8, 16], [16, 4]])],
       dims=[[8, 16]])
    op("aten::relu", 200, 30, [launch(205, "relu_kernel", 1100, 5)],
       dims=[[8, 4]])
    op("aten::add", 400, 20, [launch(405, "add_kernel", 1200, 2.25)],
       dims=[[8, 4], [8, 4]])

def b(op, launch, sub):
    op("aten::linear", 0, 100, [
        sub("aten::addmm", 10, 40, [launch(20, "gemm_kernel_b", 1000, 42)],
            dims=[[8, 16], [16, 4]]),
        sub("aten::bias_add", 60, 20, [launch(65, "bias_kernel", 1050, 3)],
            dims=[[8, 4]])], dims=[[8, 16]])
    op("aten::relu", 200, 30, [launch(205, "relu_kernel", 1100, 6)],
       dims=[[8, 4]])

for name, spec in (("a.json", a), ("b.json", b)):
    with open(name, "w") as f:
        json.dump(trace(spec), f, indent=1)
        f.write("\n")
