#!/usr/bin/python3
"""Writes npsort_cases.txt: expected row orders from numpy 1.24.2's
argsort(kind="quicksort") and pandas 1.5.3's sort_values(ascending=False)
for test_npsort.c (spec addendum A9).  Regenerate with this exact numpy
and pandas (Debian bookworm's python3-numpy / python3-pandas).

Line format: "<kind> <n> v0 .. v(n-1) | p0 .. p(n-1)"; kind "q" is
np.argsort(v, kind="quicksort"), "d" the row order of
DataFrame({"v": v}).sort_values("v", ascending=False); NaN is "nan".
"""
import numpy as np
import pandas as pd

assert np.__version__ == "1.24.2" and pd.__version__ == "1.5.3"
rng = np.random.default_rng(15)
cases = []
for n in [0, 1, 2, 3, 15, 16, 17, 18, 31, 33, 64, 100, 257, 1000]:
    for distinct in [1, 2, 3, 7, n + 1]:
        v = rng.integers(0, max(distinct, 1), size=n).astype(np.float64) / 4
        cases.append(v)
# values like kernel-time sums: few distinct, some equal
for n in [20, 40, 90, 300]:
    v = rng.choice([4.575927734375, 23.769, 123.0, 0.5, 1e-3], size=n)
    cases.append(v)
# sorted, reverse sorted, organ pipe (partition edge cases)
for n in [50, 500]:
    cases.append(np.arange(n, dtype=np.float64) // 3)
    cases.append((np.arange(n, dtype=np.float64) // 3)[::-1].copy())
    h = np.arange(n // 2, dtype=np.float64)
    cases.append(np.concatenate([h, h[::-1]]))
# Musser's median-of-3 killer (values halved, so with ties): numpy's
# depth limit hands sub-arrays to its heapsort (3 times at n = 1024)
N = 1024
k = N // 2
m = np.zeros(N)
for i in range(1, k + 1):
    m[i - 1] = i if i % 2 else k + i - 1
    m[k + i - 1] = 2 * i
cases.append(m // 2)
with open("npsort_cases.txt", "w") as f:
    for v in cases:
        q = np.argsort(v, kind="quicksort")
        vals = " ".join(repr(float(x)) for x in v)
        f.write("q %d %s | %s\n" % (len(v), vals, " ".join(map(str, q))))
    for v in cases[:]:
        w = v.copy()
        if len(w) > 4:
            w[rng.integers(0, len(w), size=max(1, len(w) // 10))] = np.nan
        d = pd.DataFrame({"v": w}).sort_values("v", ascending=False)
        vals = " ".join(repr(float(x)) for x in w)
        f.write("d %d %s | %s\n" % (len(w), vals,
                                    " ".join(map(str, d.index))))
