#!/usr/bin/python3
"""Writes a folder of per-sheet CSVs as an .xlsx workbook, the way a
TraceLens report workbook stores its cells (test_compare.sh reads it back
through tlmpi compare): integers and floats as numbers, True/False as
booleans, empty fields as absent cells, other text as shared strings
(header row) or inline strings (data rows).  Only the standard library.

Usage: csvs_to_xlsx.py CSV_DIR OUT.xlsx
"""
import csv
import os
import re
import sys
import zipfile
from xml.sax.saxutils import escape

NUM = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
RNS = ('xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
       'relationships"')
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def ref(r, c):
    s, c = "", c + 1
    while c:
        c, k = divmod(c - 1, 26)
        s = chr(65 + k) + s
    return "%s%d" % (s, r + 1)


def cell(r, c, x, shared):
    if x == "":
        return ""
    if r == 0:
        shared.append(x)
        return '<c r="%s" t="s"><v>%d</v></c>' % (ref(r, c), len(shared) - 1)
    if NUM.match(x):
        return '<c r="%s"><v>%s</v></c>' % (ref(r, c), x)
    if x in ("True", "False"):
        return '<c r="%s" t="b"><v>%d</v></c>' % (ref(r, c), x == "True")
    return '<c r="%s" t="inlineStr"><is><t xml:space="preserve">%s</t></is></c>' % (
        ref(r, c), escape(x))


def main(src, out):
    names = sorted(f[:-4] for f in os.listdir(src) if f.endswith(".csv"))
    shared = []
    z = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
    for i, n in enumerate(names, 1):
        with open(os.path.join(src, n + ".csv"), newline="",
                  encoding="utf-8") as f:
            rows = list(csv.reader(f))
        body = "".join('<row r="%d">%s</row>' % (r + 1, "".join(
            cell(r, c, x, shared) for c, x in enumerate(row)))
            for r, row in enumerate(rows))
        z.writestr("xl/worksheets/sheet%d.xml" % i,
                   '<?xml version="1.0" encoding="UTF-8"?><worksheet %s>'
                   '<sheetData>%s</sheetData></worksheet>' % (NS, body))
    z.writestr("xl/sharedStrings.xml",
               '<?xml version="1.0" encoding="UTF-8"?><sst %s count="%d">%s'
               '</sst>' % (NS, len(shared), "".join(
                   '<si><t xml:space="preserve">%s</t></si>' % escape(s)
                   for s in shared)))
    z.writestr("xl/workbook.xml",
               '<?xml version="1.0" encoding="UTF-8"?><workbook %s %s>'
               '<sheets>%s</sheets></workbook>' % (NS, RNS, "".join(
                   '<sheet name="%s" sheetId="%d" r:id="rId%d"/>' % (
                       escape(n, {'"': "&quot;"}), i, i)
                   for i, n in enumerate(names, 1))))
    rels = "".join('<Relationship Id="rId%d" Type="%s/worksheet" '
                   'Target="worksheets/sheet%d.xml"/>' % (i, REL, i)
                   for i in range(1, len(names) + 1))
    rels += ('<Relationship Id="rId%d" Type="%s/sharedStrings" '
             'Target="sharedStrings.xml"/>' % (len(names) + 1, REL))
    z.writestr("xl/_rels/workbook.xml.rels",
               '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns='
               '"http://schemas.openxmlformats.org/package/2006/relationships">'
               '%s</Relationships>' % rels)
    ct = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    z.writestr("[Content_Types].xml",
               '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://'
               'schemas.openxmlformats.org/package/2006/content-types">'
               '<Default Extension="xml" ContentType="application/xml"/>'
               '<Override PartName="/xl/workbook.xml" ContentType="%s.sheet.'
               'main+xml"/>%s</Types>' % (ct, "".join(
                   '<Override PartName="/xl/worksheets/sheet%d.xml" '
                   'ContentType="%s.worksheet+xml"/>' % (i, ct)
                   for i in range(1, len(names) + 1))))
    z.writestr("_rels/.rels",
               '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns='
               '"http://schemas.openxmlformats.org/package/2006/relationships">'
               '<Relationship Id="rId1" Type="%s/officeDocument" '
               'Target="xl/workbook.xml"/></Relationships>' % REL)
    z.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
