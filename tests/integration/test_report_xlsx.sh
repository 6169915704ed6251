#!/bin/bash
# tlmpi report --output_xlsx_path (issue 15 item 2): the workbook beside
# the CSVs or alone; one worksheet per CSV sheet with the same name and
# header row (read back from the package with Python's zipfile); the
# output rules (an existing workbook needs --force, an unwritable folder
# fails with a message naming it, nothing half-written, no temporaries).
set -u
TLMPI="${TLMPI:?TLMPI not set}"
S="${TLM_SOURCE_DIR:?}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
PY=python3
T="$S/tests/data/ok_small_trace.json"
OUT="$WORK/out"
X="$WORK/book/report.xlsx"

check "csvs and workbook: exit 0" \
    "$TLMPI" report "$T" --output_csvs_dir "$OUT" --output_xlsx_path "$X" --quiet
check "workbook written" test -s "$X"
check "no temporaries" test -z "$(ls -A "$WORK/book" "$OUT" | grep '\.tmp$')"

# every CSV is a worksheet of the same name, with the same header row
cat > "$WORK/sheets.py" <<'PY'
import csv, os, re, sys, zipfile
book, out = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(book)
wb = z.read("xl/workbook.xml").decode()
names = re.findall(r'<sheet name="([^"]*)"', wb)
rels = z.read("xl/_rels/workbook.xml.rels").decode()
csvs = sorted(f[:-4] for f in os.listdir(out) if f.endswith(".csv") and f != "findings.csv")
assert sorted(names) == csvs, (names, csvs)
assert names[0] == "gpu_timeline", names
for i, n in enumerate(names):
    xml = z.read("xl/worksheets/sheet%d.xml" % (i + 1)).decode()
    row1 = re.search(r'<row r="1".*?</row>', xml, re.S).group(0)
    got = [t.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
           for t in re.findall(r"<t[^>]*>(.*?)</t>", row1, re.S)]
    with open(os.path.join(out, n + ".csv"), newline="") as f:
        want = next(csv.reader(f))
    assert got == want, (n, got, want)
    assert 'ySplit="1"' in xml and 'state="frozen"' in xml, n
    assert "<f>" not in xml, n
print(len(names), "sheets")
PY
check "sheets match the CSVs" $PY "$WORK/sheets.py" "$X" "$OUT"

# the workbook alone
X2="$WORK/alone.xlsx"
check "workbook alone: exit 0" "$TLMPI" report "$T" --output_xlsx_path "$X2" --quiet
check "workbook alone written" test -s "$X2"
check "no report.md without a folder" test ! -e "$WORK/report.md"

# output rules
before=$(cksum < "$X2")
"$TLMPI" report "$T" --output_xlsx_path "$X2" --quiet 2> "$WORK/err"
rc=$?
check "existing workbook: exit 1" test $rc -eq 1
check "existing workbook: says --force" grep -q -- "--force" "$WORK/err"
check "existing workbook: untouched" test "$(cksum < "$X2")" = "$before"
check "--force replaces it" \
    "$TLMPI" report "$T" --output_xlsx_path "$X2" --quiet --force
mkdir -p "$WORK/ro"
chmod 0555 "$WORK/ro"
if [ "$(id -u)" != 0 ]; then
    "$TLMPI" report "$T" --output_xlsx_path "$WORK/ro/x.xlsx" --quiet \
        2> "$WORK/err"
    rc=$?
    check "unwritable folder: exit 1" test $rc -eq 1
    check "unwritable folder: names it" grep -q "$WORK/ro" "$WORK/err"
fi
"$TLMPI" report "$T" --output_xlsx_path /proc/no/such/x.xlsx --quiet \
    2> "$WORK/err"
rc=$?
check "folder that cannot be made: exit 1" test $rc -eq 1
check "folder that cannot be made: names it" grep -q "/proc/no" "$WORK/err"
# a failing report writes neither the CSVs nor the workbook
"$TLMPI" report "$S/tests/data/bad_truncated.json" --output_csvs_dir \
    "$WORK/bad" --output_xlsx_path "$WORK/bad.xlsx" --quiet 2> /dev/null
check "bad trace: no workbook" test ! -e "$WORK/bad.xlsx"
check "bad trace: no temporaries" \
    test -z "$(ls -A "$WORK" | grep 'bad\.xlsx\..*\.tmp$')"
chmod 0755 "$WORK/ro"
exit $fail
