#!/usr/bin/python3
"""Writes the small traces of tests/integration/test_parity_a.sh (spec
addendum A1, A2, A6-A9), one class each, and a9_expected_*.txt: the row
orders pandas 1.5.3 / numpy 1.24.2 give (A9).  The other expected rows are
written out by hand in the test.  Run from this folder."""
import json
import re

PM = {"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
      "args": {"name": "python3"}}
TM = {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1,
      "args": {"name": "main"}}


def op(name, ts, dur, shapes=True, **extra):
    e = {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1,
         "ts": ts, "dur": dur, "args": {"External id": 1}}
    if shapes:
        e["args"].update({"Input Dims": [[8, 8], [8, 8]],
                          "Input type": ["float", "float"],
                          "Input Strides": [[8, 1], [8, 1]],
                          "Concrete Inputs": ["", ""]})
    e.update(extra)
    return e


def launch(corr, ts, dur, gts, gdur, kname, api="cudaLaunchKernel",
           cat="kernel", flows="sf", stream=7):
    """runtime call + flows + GPU event; flows: 's' and/or 'f'."""
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1,
           "tid": 1, "ts": ts, "dur": dur, "args": {"correlation": corr}}]
    if "s" in flows:
        ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr,
                   "pid": 1, "tid": 1, "ts": ts})
    if "f" in flows:
        ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr,
                   "pid": 0, "tid": stream, "ts": gts, "bp": "e"})
    ev.append({"ph": "X", "cat": cat, "name": kname, "pid": 0,
               "tid": stream, "ts": gts, "dur": gdur,
               "args": {"correlation": corr, "stream": stream,
                        "device": 0}})
    return ev


def write(name, events):
    with open(name, "w") as f:
        f.write('{"traceEvents": [\n')
        # a time given as text is written as that exact number token
        text = ",\n".join(json.dumps(e) for e in events)
        f.write(re.sub(r'"(ts|dur)": "([-0-9.]+)"', r'"\1": \2', text))
        f.write("\n]}\n")


# A1 (tree): epoch microseconds with 3 decimals.  As Python doubles both
# ops end at ...301.5 (nested); through (double)ns / 1000 the parent ended
# at 301.25 and the child at 301.75 (bled by > 1 us: dropped).
T = 1712195495521
a1 = [PM, TM,
      op("torch::distributed::reducer::mul_out", "%d285.237" % T, "16.173"),
      op("aten::mul", "%d285.582" % T, "16.003")]
a1 += launch(1, "%d286.5" % T, 1.0, "%d300.0" % T, 5.5,
             "void at::native::vectorized_elementwise_kernel<4, mul>")
# a modelled op that launches nothing: its Kernel Time sums are empty
# sums, integer 0 in a float trace
a1.append(op("aten::mm", "%d400.000" % T, "5.000"))
write("a1_epoch_tree.json", a1)

# A1 (integers): epoch microseconds as integer tokens; T0 + 22 and T0 + 118
# are where (double)(us * 1000) / 1000 was off by 0.25
T0 = 1694128201435418
a1i = [PM, TM, op("aten::add", T0, 20), op("aten::mm", T0 + 100, 30),
       op("aten::relu", T0 + 200, 10)]
a1i += launch(11, T0 + 2, 3, T0 + 10, 7, "add_kernel")
a1i += launch(12, T0 + 5, 3, T0 + 22, 5, "add_kernel")
a1i += launch(13, T0 + 101, 3, T0 + 118, 40, "sgemm_kernel")
write("a1_epoch_int.json", a1i)

# A2: a memset whose launch has no 's' flow ('f' flows only, one on the
# host thread, one on the GPU)
a2 = [PM, TM, op("aten::mean", 100, 50)]
a2 += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync",
        "pid": 1, "tid": 1, "ts": 101, "dur": 2,
        "args": {"correlation": 5}},
       {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 5, "pid": 1,
        "tid": 1, "ts": 103, "bp": "e"},
       {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 5, "pid": 0,
        "tid": 7, "ts": 110, "bp": "e"},
       {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)",
        "pid": 0, "tid": 7, "ts": 110, "dur": 4,
        "args": {"correlation": 5, "stream": 7, "device": 0}}]
a2 += [op("aten::add", 200, 20)]
a2 += launch(6, 201, 3, 210, 3, "add_kernel")
write("a2_no_s_flow.json", a2)

# A6: a graph launch outside any cpu_op; its earliest kernel is a gather
# ('other'); the later ones have elementwise names
a6 = [PM, TM, op("aten::add", 1, 5)]
a6 += launch(1, 2, 1, 5, 3, "add_kernel")
a6 += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch",
        "pid": 1, "tid": 1, "ts": 10, "dur": 5,
        "args": {"correlation": 100}}]
for ts, nm in [(40, "void at::native::vectorized_elementwise_kernel<4, "
                    "bfloat16tofloat32_copy>(int)"),
               (20, "void at::native::vectorized_gather_kernel<16, long>"
                    "(char*, char*, long*, int)"),
               (30, "void at::native::elementwise_kernel_manual_unroll<128,"
                    " 8>(int)")]:
    a6.append({"ph": "X", "cat": "kernel", "name": nm, "pid": 0, "tid": 7,
               "ts": ts, "dur": 4,
               "args": {"correlation": 100, "stream": 7, "device": 0}})
write("a6_graph.json", a6)

# A7 (1): no kernel below 10 us
a7 = [PM, TM, op("aten::mm", 1, 50)]
a7 += launch(1, 2, 3, 10, 12, "sgemm_kernel")
a7 += launch(2, 6, 3, 30, 10, "sgemm_kernel")
write("a7_no_short.json", a7)
# A7 (2): short kernels, but no op has shapes (no record_shapes)
a7b = [PM, TM, op("aten::add", 1, 50, shapes=False)]
a7b += launch(1, 2, 3, 10, 2, "add_kernel")
a7b += launch(2, 6, 3, 20, 4, "add_kernel")
a7b += launch(3, 9, 3, 30, 20, "big_kernel")
write("a7_no_shapes.json", a7b)

# A8: GPU-only (no cpu_op): runtime launches, one kernel unlinked, the
# same kernel from two launch APIs
a8 = [PM, TM]
a8 += launch(1, 1, 2, 10, 3.5, "k_add")
a8 += launch(2, 4, 2, 20, 2.5, "k_add", api="cuLaunchKernel")
a8 += launch(3, 7, 2, 30, 12.0, "k_gemm")
a8 += launch(4, 9, 2, 50, 1.25, "k_small")
a8 += launch(5, 11, 2, 60, 1.25, "k_a_tiny")  # sorts first, seen last
a8.append({"ph": "X", "cat": "kernel", "name": "k_add", "pid": 0,
           "tid": 7, "ts": 70, "dur": 4.0,
           "args": {"correlation": 99, "stream": 7, "device": 0}})
write("a8_gpu_only.json", a8)

# A9: 20 ops (one kernel each) with tied kernel times: more than 16 rows,
# so numpy's quicksort partitions and ties leave their order
durs = [3, 2, 3, 3, 1, 2, 3, 2, 3, 1, 3, 2, 2, 3, 1, 3, 2, 3, 3, 2]
a9 = [PM, TM]
for i, d in enumerate(durs):
    nm = "aten::op_%c" % chr(ord("t") - i)  # names in reverse order
    a9.append(op(nm, 100 * i + 1, 50))
    a9 += launch(i + 1, 100 * i + 2, 3, 100 * i + 10, d,
                 "kernel_%c" % chr(ord("a") + i))
write("a9_ties.json", a9)

# A9 (coll_analysis): three groups with equal dur_sum, first seen in
# "In msg nelems" order 100, 20, 3: TraceLens's groupby sorts the keys
# (numerically: 3, 20, 100) before the descending sort keeps the ties
a9c = [PM, TM, op("aten::add", 1, 5)]
a9c += launch(1, 2, 1, 5, 3, "add_kernel")
for i, nel in enumerate([100, 20, 3, 100]):
    a9c.append({"ph": "X", "cat": "kernel",
                "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)",
                "pid": 0, "tid": 20, "ts": 100 + 50 * i,
                "dur": 10 if i < 3 else 0,
                "args": {"External id": 50 + i, "correlation": 500 + i,
                         "stream": 20, "device": 0,
                         "Collective name": "allreduce",
                         "Process Group Name": "0",
                         "Process Group Ranks": [0, 1],
                         "Group size": 2, "dtype": "Float",
                         "In msg nelems": nel, "Out msg nelems": nel,
                         "In split size": "[]", "Out split size": "[]"}})
write("a9_coll.json", a9c)

try:
    import numpy as np
    import pandas as pd
except ImportError:
    pd = None
if pd is not None:
    assert np.__version__ == "1.24.2" and pd.__version__ == "1.5.3"
    names = ["aten::op_%c" % chr(ord("t") - i) for i in range(20)]
    # ops_summary: groupby(name) (sorted names), sort_values(sum, desc)
    df = pd.DataFrame({"name": names, "s": [float(d) for d in durs]})
    g = df.groupby("name")["s"].sum().reset_index()
    with open("a9_expected_ops_summary.txt", "w") as f:
        f.write("\n".join(g.sort_values("s", ascending=False)["name"]))
        f.write("\n")
    # kernel_summary: groupby(category, parent, kernel, stream), sorted
    kn = ["kernel_%c" % chr(ord("a") + i) for i in range(20)]
    dk = pd.DataFrame({"cat": ["other"] * 20, "par": names, "k": kn,
                       "st": [7] * 20, "d": [float(d) for d in durs]})
    gk = dk.groupby(["cat", "par", "k", "st"])["d"].sum().reset_index()
    with open("a9_expected_kernel_summary.txt", "w") as f:
        f.write("\n".join(gk.sort_values("d", ascending=False)["k"]))
        f.write("\n")
