#!/usr/bin/python3
"""Mutates a run file (a tlmpi.h5) one byte at a time and runs
`tlmpi compare GOOD MUTANT` on each mutant, to find the inputs that crash
tlmpi, hang it, take too much memory or pass silently.

  mutate_runfile.py --tlmpi BIN --base A.h5 [--n 316] [--seed 1]
                    [--out DIR] [--timeout 20] [--mem_mb 1024 (0: none)]
                    [--offsets LIST]

Each mutant replaces one byte at a random offset (a fixed seed: the same
mutants every time) with a random different byte; --offsets runs every
byte of a range instead ("0-4095", "100,200-300"), each with every
value in --values (default: the byte xor 0xff).  A run is:
  refused  exit 1 and the message names the mutant ("B.h5: ...");
  ok       exit 0 (the byte did not matter, or changed only figures);
  CRASH    killed by a signal, or a sanitizer report;
  HANG     no result within --timeout seconds;
  BAD      any other exit status, or exit 1 without naming the file.
CRASH, HANG and BAD mutants are kept in --out (mut-OFFSET-BYTE.h5) for a
corpus or a test; the exit status is 1 when there is any.  Standard
library only (the project's other scripts may need h5py; this one must
not, since it judges the reader of files h5py writes).
"""
import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile


def parse_offsets(spec, size):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), min(int(b), size - 1) + 1))
        elif part:
            out.append(int(part))
    return [o for o in out if 0 <= o < size]


def limit(mem_mb):
    def f():
        b = mem_mb * 1024 * 1024
        if b > 0:  # 0: no cap (a sanitizer build maps terabytes)
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return f


def run_one(a, base, data, off, val, work):
    mut = bytearray(data)
    mut[off] = val
    path = os.path.join(work, "B.h5")
    with open(path, "wb") as f:
        f.write(mut)
    outd = os.path.join(work, "out")
    shutil.rmtree(outd, ignore_errors=True)
    cmd = [a.tlmpi, "compare", base, path, "--output_dir", outd, "--force",
           "--quiet"]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=a.timeout,
                           preexec_fn=limit(a.mem_mb))
    except subprocess.TimeoutExpired:
        return "HANG", "", mut
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode < 0 or "Sanitizer" in err or "runtime error" in err:
        return "CRASH", err, mut
    if p.returncode == 0:
        return "ok", err, mut
    if p.returncode == 1 and path in err:
        return "refused", err, mut
    return "BAD", err, mut


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tlmpi", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--n", type=int, default=316)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="mutants")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--mem_mb", type=int, default=1024)
    ap.add_argument("--offsets")
    ap.add_argument("--values", help="comma-separated byte values")
    a = ap.parse_args()
    data = open(a.base, "rb").read()
    rng = random.Random(a.seed)
    if a.offsets:
        vals = [int(v, 0) for v in a.values.split(",")] if a.values else None
        plan = [(o, v) for o in parse_offsets(a.offsets, len(data))
                for v in (vals or [data[o] ^ 0xff]) if v != data[o]]
    else:
        plan = []
        for _ in range(a.n):
            o = rng.randrange(len(data))
            v = rng.randrange(255)
            plan.append((o, v if v < data[o] else v + 1))
    counts = {}
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for off, val in plan:
            kind, err, mut = run_one(a, a.base, data, off, val, work)
            counts[kind] = counts.get(kind, 0) + 1
            if kind in ("CRASH", "HANG", "BAD"):
                name = os.path.join(a.out, "mut-%d-%02x.h5" % (off, val))
                with open(name, "wb") as f:
                    f.write(mut)
                line = err.strip().splitlines()[-1:] or [""]
                print("%-7s offset %d: 0x%02x -> 0x%02x  %s" %
                      (kind, off, data[off], val, line[0][:150]))
                sys.stdout.flush()
    print("mutants: %d; %s" % (len(plan), ", ".join(
        "%s %d" % kv for kv in sorted(counts.items()))))
    return 1 if any(k in counts for k in ("CRASH", "HANG", "BAD")) else 0


if __name__ == "__main__":
    sys.exit(main())
