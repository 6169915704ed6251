#!/usr/bin/python3
"""xlsx_vs_csv.py WORKBOOK CSV_DIR [--skip-missing]: each worksheet of
WORKBOOK against CSV_DIR/<sheet>.csv, cell by cell (--skip-missing: a sheet
without a CSV is listed, not compared), with the standard library only (an
independent reader: zipfile + ElementTree, not tlmpi's).

A cell agrees when: both are empty; a number cell's value equals the CSV
text read as a float (the CSV prints Python's repr); a text cell equals the
CSV text exactly; a boolean is True/False; an empty cell stands for a CSV
inf/-inf (Excel has no infinity).  Prints the sheet names in workbook
order, one a line; exit 1 with the first differences, 0 when all agree.
"""
import csv
import math
import os
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}
PR = "http://schemas.openxmlformats.org/package/2006/relationships"
csv.field_size_limit(1 << 30)


def unescape(s):
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), s)


def col_index(ref):
    n = 0
    for ch in re.match(r"[A-Z]+", ref).group(0):
        n = n * 26 + ord(ch) - 64
    return n - 1


def sheets(z):
    wb = ET.fromstring(z.read("xl/workbook.xml"))
    rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): r.get("Target") for r in rels.findall("{%s}Relationship" % PR)}
    out = []
    for s in wb.find("m:sheets", NS):
        rid = s.get("{%s}id" % NS["r"])
        t = target[rid].lstrip("/")
        out.append((s.get("name"), t if t.startswith("xl/") else "xl/" + t))
    return out


def shared(z):
    if "xl/sharedStrings.xml" not in z.namelist():
        return []
    root = ET.fromstring(z.read("xl/sharedStrings.xml"))
    return ["".join(t.text or "" for t in si.iter("{%s}t" % NS["m"])) for si in root]


def cells(z, part, sst):
    rows = {}
    for _, c in ET.iterparse(z.open(part)):
        if c.tag != "{%s}c" % NS["m"]:
            continue
        ref = c.get("r")
        r = int(re.search(r"\d+", ref).group(0)) - 1
        t = c.get("t", "n")
        v = c.find("m:v", NS)
        if t == "inlineStr":
            val = ("s", unescape("".join(x.text or "" for x in c.iter("{%s}t" % NS["m"]))))
        elif t == "s":
            val = ("s", unescape(sst[int(v.text)]))
        elif t == "str":
            val = ("s", unescape(v.text or "") if v is not None else "")
        elif t == "b":
            val = ("b", v.text == "1")
        elif v is not None:
            val = ("n", float(v.text))
        else:
            val = None
        if val is not None:
            rows.setdefault(r, {})[col_index(ref)] = val
        c.clear()
    return rows


def agree(x, text):
    if x is None:
        return text == "" or text in ("inf", "-inf")
    kind, v = x
    if kind == "s":
        return v == text or (len(text) > 32767 and v == text[:32767])
    if kind == "b":
        return text == ("True" if v else "False")
    try:
        f = float(text)
    except ValueError:
        return False
    return abs(f - v) <= 1e-15 * max(abs(f), abs(v)) or (math.isnan(f) and math.isnan(v))


def main():
    wbpath, d = sys.argv[1], sys.argv[2]
    skip = "--skip-missing" in sys.argv[3:]
    bad = []
    with zipfile.ZipFile(wbpath) as z:
        sst = shared(z)
        for name, part in sheets(z):
            print(name)
            p = os.path.join(d, name + ".csv")
            if not os.path.exists(p) and skip:
                continue
            if not os.path.exists(p):
                bad.append("%s: no %s" % (name, p))
                continue
            with open(p, newline="", encoding="utf-8") as f:
                want = list(csv.reader(f))
            got = cells(z, part, sst)
            nrows = max(got) + 1 if got else 0
            if nrows != len(want):
                bad.append("%s: %d rows in the workbook, %d in the CSV" % (name, nrows, len(want)))
                continue
            for r, row in enumerate(want):
                g = got.get(r, {})
                extra = [c for c in g if c >= len(row)]
                if extra:
                    bad.append("%s: row %d: cells past the CSV's %d" % (name, r + 1, len(row)))
                for c, text in enumerate(row):
                    if not agree(g.get(c), text):
                        bad.append("%s: row %d col %d: workbook %r, CSV %r" % (name, r + 1, c + 1, g.get(c), text))
                        break
                if len(bad) > 20:
                    break
    for b in bad[:20]:
        print("DIFF " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
