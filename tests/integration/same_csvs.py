#!/usr/bin/python3
"""Strict comparison of two folders of comparison CSVs (test_compare.sh).

Usage: same_csvs.py EXPECTED_DIR OUT_DIR [--ignore PREFIX ...] [--loose_ints]
                    [--verbose]

Unlike compare_csvs.py (rows matched by key), order matters here:
  * the same set of *.csv files (names starting with an --ignore prefix
    are left out on both sides);
  * the same header, names in the same order;
  * the same number of rows, compared by position;
  * two cells that both read as numbers agree within 1e-6 absolute or
    relative and are both integers or both not ("48" != "48.0", Q5);
    any other pair of cells must be the same text ("" == missing);
    --loose_ints: "48" == "48.0" (a workbook against CSVs: pandas reads an
    integral float cell of a workbook as an integer).
Exit status 0 when everything agrees, 1 otherwise.
"""
import csv
import math
import os
import re
import sys

csv.field_size_limit(1 << 30)
INT = re.compile(r"-?[0-9]+\Z")


def num(s):
    if "_" in s or s.strip() != s:
        return None
    try:
        return float(s)
    except ValueError:
        return None


LOOSE = "--loose_ints" in sys.argv


def same_cell(a, b):
    if a == b:
        return True
    x, y = num(a), num(b)
    if x is None or y is None or (
            not LOOSE and bool(INT.match(a)) != bool(INT.match(b))):
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= 1e-6 * max(1.0, abs(x), abs(y))


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def compare(exp, out, verbose):
    e, o = read(exp), read(out)
    if (e[:1] or [[]]) != (o[:1] or [[]]):
        return ["header differs:\n   exp %s\n   out %s" % (e[:1], o[:1])]
    if len(e) != len(o):
        return ["%d rows expected, %d written" % (len(e) - 1, len(o) - 1)]
    probs = []
    head = e[0] if e else []
    for i, (re_, ro) in enumerate(zip(e[1:], o[1:]), 1):
        if len(re_) != len(ro):
            probs.append("row %d: %d fields, expected %d" %
                         (i, len(ro), len(re_)))
            continue
        for c, (a, b) in enumerate(zip(re_, ro)):
            if not same_cell(a, b):
                probs.append("row %d column %r: expected %r, got %r" %
                             (i, head[c], a[:200], b[:200]))
    return probs if verbose else probs[:5]


def listing(d, ignore):
    return sorted(f for f in os.listdir(d) if f.endswith(".csv") and
                  not any(f.startswith(p) for p in ignore))


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    exp, out = argv[1], argv[2]
    ignore = [argv[i + 1] for i, a in enumerate(argv) if a == "--ignore"]
    verbose = "--verbose" in argv
    fe, fo = listing(exp, ignore), listing(out, ignore)
    failed = 0
    if fe != fo:
        print("FILES differ: missing %s, extra %s" % (
            sorted(set(fe) - set(fo)), sorted(set(fo) - set(fe))))
        failed = 1
    for f in fe:
        if f not in fo:
            continue
        probs = compare(os.path.join(exp, f), os.path.join(out, f), verbose)
        if probs:
            failed = 1
            print("DIFF   %s" % f)
            for p in probs:
                print("       " + p)
        elif verbose:
            print("OK     %s" % f)
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))
