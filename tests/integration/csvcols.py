#!/usr/bin/python3
"""Prints chosen columns of a CSV file, one row a line, cells joined by
" | " (for the shell tests).  Usage: csvcols.py FILE COLUMN..."""
import csv
import sys

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f))
head = rows[0]
idx = []
for c in sys.argv[2:]:
    if c not in head:
        sys.exit("csvcols.py: no column %r in %s" % (c, sys.argv[1]))
    idx.append(head.index(c))
for r in rows[1:]:
    print(" | ".join(r[i] for i in idx))
