#!/usr/bin/python3
"""Writes a small random rocprofv3 JSON full of edge cases, for comparing
`tlmpi report --tracelens_compat all` with TraceLens's rocprof report
(docs/formats.md, "Checked against TraceLens").

usage: gen_rocprof_edge.py SEED OUT

Made up from scratch, deterministic for a seed.  Varies what the sheets
are sensitive to: kernel names (category words in any case, non-ASCII,
commas, quotes, tab, newline, a 600-byte name), which symbol names are
set or empty (truncated / formatted / kernel_name / none: unknown_kernel_N),
1 to 1000 dispatches with few distinct durations (ties for the sort
orders; 0 ns; around the 10 ns short-kernel threshold), overlapping
dispatches and copies, absent grid / workgroup / stream ids, repeated
dispatch ids, epoch-sized timestamps, and metadata with a run, with a run
shorter than the kernels, or without init/fini times.  Every record keeps
the fields tlmpi requires (times, dispatch_info.kernel_id, end >= start).
"""
import json
import random
import sys

NAMES = [
    "Cijk_Ailk_Bljk_HHS", "gemm_kernel", "MatMul_x",
    "vectorized_elementwise_kernel", "reduce_kernel", "SumKernel",
    "conv2d_fwd", "layer_norm_kernel", "batch_norm_bwd", "flash_attn_fwd",
    "fmha_bwd", "copyBuffer", "memcpy_kernel", "ncclDevKernel_AllReduce",
    "RCCL_kernel", "cross_device_reduce_1stage", "other_kernel",
    "a,b kernel", 'quote"kernel', "spaces  kernel ", "\u00fcn\u00efc\u00f6d\u00e9_kernel",
    "\u00c4GEMM", "kernel\twith tab", "z_last", "A_first", "a_first",
    "_under", "1numeric", "new\nline", "semi;colon", "'single'",
    "x" * 600 + "gemm",
]

DURATION_SETS = [
    [0, 1, 5, 9, 10, 11], [100, 100, 200, 300], [7], list(range(30)),
    [1000, 2000, 3000, 5000, 10 ** 6], [3],
]


def symbol(r, kid):
    nm = r.choice(NAMES)
    s = {"size": 1, "kernel_id": kid, "code_object_id": 1}
    mode = r.random()
    if mode < 0.5:
        s.update(kernel_name=nm + ".kd", formatted_kernel_name=nm + "<int>",
                 truncated_kernel_name=nm)
    elif mode < 0.65:
        s.update(kernel_name=nm, formatted_kernel_name="",
                 truncated_kernel_name="")
    elif mode < 0.75:
        s.update(kernel_name=nm + ".kd", formatted_kernel_name=nm + "_fmt",
                 truncated_kernel_name="")
    elif mode < 0.85:
        s.update(kernel_name=nm)
    else:
        s.update(kernel_name=nm, truncated_kernel_name=nm[:5])
    return s


def dispatch(r, i, kid, start, dur):
    di = {"size": 1, "agent_id": {"handle": r.choice([2, 3])},
          "queue_id": {"handle": 1}, "kernel_id": kid,
          "dispatch_id": i + 1 if r.random() < 0.95 else r.randint(1, 5)}
    if r.random() < 0.9:
        di["grid_size"] = {"x": r.choice([1, 64, 65536]),
                           "y": r.choice([1, 4]), "z": 1}
    if r.random() < 0.9:
        di["workgroup_size"] = {"x": r.choice([64, 256]), "y": 1, "z": 1}
    d = {"size": 1, "kind": 7, "operation": 0,
         "thread_id": r.choice([100, 101, 7]),
         "correlation_id": {"internal": i + 1, "external": 0},
         "start_timestamp": start, "end_timestamp": start + dur,
         "dispatch_info": di}
    if r.random() < 0.9:
        d["stream_id"] = {"handle": r.choice([0, 1, 2])}
    return d


def document(seed):
    r = random.Random(seed)
    ids = r.sample(range(1, 50), r.randint(1, 12))
    syms = [symbol(r, kid) for kid in ids]
    kids = ids + [r.randint(50, 60)]  # the last one has no symbol
    durs = r.choice(DURATION_SETS)
    t0 = r.choice([0, 1000, 10 ** 9, 1_700_000_000_000_000_000])
    t = t0 + 1000
    disp = []
    for i in range(r.choice([1, 2, 5, 17, 40, 200, 1000])):
        kid = r.choice(kids)
        dur = r.choice(durs) if r.random() < 0.8 else r.randint(0, 50000)
        start = t + r.randint(-500, 3000)
        t = start + r.randint(0, dur + 10)
        disp.append(dispatch(r, i, kid, start, dur))
    copies = []
    for i in range(r.choice([0, 0, 1, 3, 20])):
        s = t0 + r.randint(0, max(1, t - t0))
        copies.append({"size": 1, "kind": 8, "operation": 1,
                       "thread_id": 100,
                       "correlation_id": {"internal": 9000 + i,
                                          "external": 0},
                       "start_timestamp": s,
                       "end_timestamp": s + r.randint(0, 5000),
                       "dst_agent_id": {"handle": 2},
                       "src_agent_id": {"handle": 1}, "bytes": 4096})
    meta = {"pid": 1, "node": {"hostname": "h"}}
    m = r.random()
    if m < 0.7:
        meta.update(init_time=t0, fini_time=t + r.randint(0, 10000))
    elif m < 0.8:
        meta.update(init_time=t0, fini_time=t0 + 10)
    agent = {"size": 1, "id": {"handle": 2}, "type": 2, "node_id": 1,
             "name": "gfx942", "product_name": "MI300X"}
    tool = {"metadata": meta, "agents": [agent], "kernel_symbols": syms,
            "buffer_records": {"kernel_dispatch": disp,
                               "memory_copy": copies, "hip_api": [],
                               "hsa_api": []}}
    return r, {"rocprofiler-sdk-tool": [tool]}


def main(argv):
    if len(argv) != 3:
        print("usage: gen_rocprof_edge.py SEED OUT", file=sys.stderr)
        return 2
    r, doc = document(int(argv[1]))
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=r.random() < 0.5,
                  indent=r.choice([None, 0, 1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
