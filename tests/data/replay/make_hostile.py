#!/usr/bin/env python3
"""Writes a crafted trace for tests/integration/test_replay.sh: op names,
Concrete Inputs, types, shapes and strides that a replay must refuse,
secrets in metadata, call stacks and thread names, and two good ops.  Each
op launches one kernel, so that each is a row of ops_unique_args.

    make_hostile.py OUT.json
"""
import json
import sys

SECRET = "HF_TOKEN=hf_SECRETSECRETSECRET"
GOOD = ("aten::mm", "aten::add")
OPS = [
    # name, dims, types, strides, concrete
    ("aten::mm", [[64, 32], [32, 16]], ["float", "float"],
     [[32, 1], [16, 1]], ["", ""]),
    ("aten::add", [[64, 16], [64, 16], []], ["float", "float", "Scalar"],
     [[16, 1], [1, 64], []], ["", "", "1"]),
    ("builtins::eval", [[]], ["Scalar"], [[]], ["1"]),
    ("os::system", [[]], ["Scalar"], [[]], ["1"]),
    ("aten::save", [[4]], ["float"], [[1]], [""]),
    ("c10d::allreduce_", [[4]], ["float"], [[1]], [""]),
    ("aten::__init__", [[4]], ["float"], [[1]], [""]),
    ("../x::y", [[4]], ["float"], [[1]], [""]),
    ("aten::_ops; import os", [[4]], ["float"], [[1]], [""]),
    ("aten::mul", [[4], []], ["float", "Scalar"], [[1], []],
     ["", "__import__('os').system('touch X')"]),
    ("aten::div", [[4], []], ["float", "Scalar"], [[1], []], ["", "nan"]),
    ("aten::sub", [[4], []], ["float", "Scalar"], [[1], []], ["", "1_0"]),
    ("aten::gelu", [[4], []], ["float", "str"], [[1], []], ["", "tanh"]),
    ("aten::relu", [[1000000000000]], ["float"], [[1]], [""]),
    ("aten::neg", [[4, 4]], ["float"], [[4, 1, 1]], [""]),
    ("aten::sin", [[4, 4], [4]], ["float"], [[4, 1]], [""]),
    ("vllm::rms_norm", [[4, 8], [8]], ["float", "float"], [[8, 1], [1]],
     ["", ""]),
]


def main(out):
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
           "args": {"name": SECRET}},
          {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1,
           "args": {"name": SECRET}}]
    ts = 0
    for k, (name, d, t, s, c) in enumerate(OPS):
        corr = 100 + k
        ev.append({"ph": "X", "cat": "python_function",
                   "name": "secret/path.py(1): " + SECRET, "pid": 1,
                   "tid": 1, "ts": ts, "dur": 40})
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1,
                   "tid": 1, "ts": ts + 1, "dur": 30,
                   "args": {"Input Dims": d, "Input type": t,
                            "Input Strides": s, "Concrete Inputs": c,
                            "Call stack": SECRET, "Record function id": k}})
        ev.append({"ph": "X", "cat": "cuda_runtime",
                   "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": ts + 2, "dur": 3, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "kernel_" + SECRET,
                   "pid": 0, "tid": 7, "ts": ts + 10, "dur": 5 + k,
                   "args": {"correlation": corr, "stream": 7, "device": 0}})
        ts += 100
    doc = {"schemaVersion": 1, "traceEvents": ev,
           "metadata": {"env": SECRET},
           "distributedInfo": {"backend": "nccl", "rank": 0,
                               "world_size": 1, "secret": SECRET}}
    with open(out, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main(sys.argv[1])
