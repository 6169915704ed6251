#!/usr/bin/env python3
"""Writes a synthetic rocprofv3 JSON (the rocprofiler-sdk tool layout that
`rocprofv3 --output-format json` writes) of about --target_size bytes, for
scripts/bench.sh (rocprof mode) and for trying tlmpi on big inputs.

Made up from scratch (no real trace inside): one CPU and one gfx942 GPU
agent, a few kernel symbols (GEMM, elementwise, reduction, RCCL), then
kernel dispatches with a HIP launch each (same correlation id), a memory
copy every 16 dispatches, in the key order rocprofv3 uses.  Layout:
--layout rocprofv3 (the default) as rocprofv3 writes it (cereal's JSON
writer without indentation: every member and array element on a line of
its own); --layout compact puts each record on one line.  Deterministic
for a given --seed.

usage: gen_rocprof.py --out FILE [--target_size BYTES] [--seed N]
                      [--layout rocprofv3|compact]
"""
import argparse
import json
import random

LAYOUT = "rocprofv3"


def rec(text):
    """A record written in the chosen layout (text: one compact line)."""
    if LAYOUT == "compact":
        return text
    return json.dumps(json.loads(text), indent=0)

SYMS = [
    (1, "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI16x16x1_SN_1LDSB1_AFC1"),
    (2, "void at::native::vectorized_elementwise_kernel<4, "
        "at::native::CUDAFunctor_add<c10::BFloat16> >"),
    (3, "void at::native::reduce_kernel<512, 1>"),
    (4, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"),
    (5, "void at::native::rms_norm_kernel<c10::BFloat16>"),
]


def header(out):
    out.write('{\n  "rocprofiler-sdk-tool": [\n    {\n')
    out.write('      "metadata": {"pid": 1234, "init_time": 1000000000, '
              '"fini_time": FINI_PLACEHOLDER, "node": {"hostname": '
              '"synth-node"}, "command": ["./synth"]},\n')
    out.write('      "agents": [\n'
              '        {"size": 1, "id": {"handle": 1}, "type": 1, '
              '"node_id": 0, "name": "CPU", "product_name": "CPU"},\n'
              '        {"size": 1, "id": {"handle": 2}, "type": 2, '
              '"node_id": 1, "name": "gfx942", "product_name": '
              '"AMD Instinct MI300X"}\n      ],\n')
    out.write('      "kernel_symbols": [\n')
    out.write(',\n'.join(
        '        {"size": 1, "kernel_id": %d, "code_object_id": 1, '
        '"kernel_name": "%s.kd", "formatted_kernel_name": "%s", '
        '"truncated_kernel_name": "%s"}' % (i, n, n, n.split("<")[0])
        for i, n in SYMS))
    out.write('\n      ],\n      "buffer_records": {\n')


def dispatch(t, i, kid, dur):
    return rec('          {"size": 1, "kind": 11, "operation": 1, '
            '"thread_id": 4321, "correlation_id": {"internal": %d, '
            '"external": {"value": 0}}, "start_timestamp": %d, '
            '"end_timestamp": %d, "dispatch_info": {"size": 1, '
            '"agent_id": {"handle": 2}, "queue_id": {"handle": 1}, '
            '"kernel_id": %d, "dispatch_id": %d, "private_segment_size": 0, '
            '"group_segment_size": 0, "workgroup_size": {"x": 256, "y": 1, '
            '"z": 1}, "grid_size": {"x": %d, "y": 1, "z": 1}}, '
            '"stream_id": {"handle": %d}}'
            % (i, t, t + dur, kid, i, 256 * (1 + i % 64),
               2 if kid == 4 else 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--target_size", type=int, default=100_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layout", choices=("rocprofv3", "compact"),
                    default="rocprofv3")
    a = ap.parse_args()
    global LAYOUT
    LAYOUT = a.layout
    rng = random.Random(a.seed)
    n = max(1, a.target_size // 560)  # ~560 bytes per dispatch + launch
    with open(a.out + ".tmp", "w") as out:
        header(out)
        t = 1000001000
        launches, copies = [], []
        out.write('        "kernel_dispatch": [\n')
        for i in range(n):
            kid = rng.choice((1, 1, 2, 2, 3, 4, 5))
            dur = rng.randint(2000, 60000) if kid != 2 else rng.randint(3, 9000)
            out.write(dispatch(t, i + 1, kid, dur))
            out.write(',\n' if i + 1 < n else '\n')
            launches.append((t - 900, i + 1))
            if i % 16 == 0:
                copies.append((t + dur, i + 1))
            t += dur + rng.randint(100, 3000)
        out.write('        ],\n        "memory_copy": [\n')
        out.write(',\n'.join(rec(
            '          {"size": 1, "kind": 12, "operation": 1, "thread_id": '
            '4321, "correlation_id": {"internal": %d, "external": {"value": '
            '0}}, "start_timestamp": %d, "end_timestamp": %d, '
            '"dst_agent_id": {"handle": 2}, "src_agent_id": {"handle": 1}, '
            '"bytes": 1048576, "stream_id": {"handle": 1}}'
            % (c, s, s + 800)) for s, c in copies))
        out.write('\n        ],\n        "hip_api": [\n')
        out.write(',\n'.join(rec(
            '          {"size": 1, "kind": 3, "operation": 40, "thread_id": '
            '4321, "correlation_id": {"internal": %d, "external": {"value": '
            '0}}, "start_timestamp": %d, "end_timestamp": %d}'
            % (c, s, s + 600)) for s, c in launches))
        out.write('\n        ]\n      }\n    }\n  ]\n}\n')
    # the end of the run is known last: fill it in (same width)
    with open(a.out + ".tmp", "r+b") as f:
        head = f.read(4096)
        k = head.index(b"FINI_PLACEHOLDER")
        fini = str(t + 1000).encode()
        f.seek(k)
        f.write(fini.ljust(len(b"FINI_PLACEHOLDER")))
    import os
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
