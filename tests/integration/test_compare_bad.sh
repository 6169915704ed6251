#!/bin/bash
# `tlmpi compare` on hostile run files, workbooks and CSV folders (issue
# 33; the catalogue's @compare_* rows are test_bad_inputs.sh's): a run
# file on which the HDF5 library itself crashes (LD_PRELOAD makes its
# open() raise SIGSEGV) is refused by name, tlmpi lives; the fuzz corpus'
# mutants that crashed HDF5 are refused naming the dataset; 150 random
# one-byte mutants of a fresh run file give a result or a refusal, never a
# crash, a hang or an unnamed error (tests/fuzz/mutate_runfile.py); the
# header of a CSV of 16,000 repeated names is fixed in linear time; a
# workbook whose shared string is used by 3,000 cells under the bound
# reads (cells reference it); all within a 1 GB memory cap.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${TLM_WORK_DIR:-$(mktemp -d)}/compare_bad
rm -rf "$W"
mkdir -p "$W"
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
memcap() { # CMD under 1 GB of address space (not for sanitizer builds)
    if nm "$TLMPI" 2> /dev/null | grep -q __asan_init; then
        "$@"
    else
        (ulimit -v 1048576; "$@")
    fi
}
/usr/bin/python3 -c 'import h5py' 2> /dev/null || { echo "skip: no h5py"; exit 77; }

# a good run file and a good CSV report (the maker's cache)
l=$(/usr/bin/python3 "$SRC/tests/integration/make_compare_bad.py" \
    @compare_timeline_3M "$W/mk") || { echo "FAIL: cannot make inputs"; exit 1; }
A=${l%%$'\t'*}
cp "$A" "$W/victim.h5"

# 1. HDF5 crashing inside the trial read: refused by name, nothing written
if [ -n "${TLM_FAULT_LIB:-}" ] && [ -f "$TLM_FAULT_LIB" ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:handle_segv=0" \
        LD_PRELOAD="$TLM_FAULT_LIB" TLM_FAULT_OP=crash TLM_FAULT_AT=1 \
        TLM_FAULT_MATCH=victim.h5 timeout 60 "$TLMPI" compare "$A" \
        "$W/victim.h5" --output_dir "$W/o1" > "$W/log1" 2>&1
    rc=$?
    [ $rc = 1 ] || fail "HDF5 crash: exit $rc, want 1"
    grep -qF "victim.h5: not a readable tlmpi run file (the HDF5 library crashed reading it: signal 11" \
        "$W/log1" || { fail "HDF5 crash: no message"; cat "$W/log1"; }
    [ ! -e "$W/o1" ] || fail "HDF5 crash: output written"
    # and without the fault the same files compare
    timeout 60 "$TLMPI" compare "$A" "$W/victim.h5" --output_dir "$W/o1" \
        --quiet || fail "the good pair does not compare"
    [ -s "$W/o1/comparison.h5" ] || fail "no comparison.h5"
else
    echo "skip: HDF5 crash (no TLM_FAULT_LIB)"
fi

# 2. the corpus' mutants that crashed HDF5 (SIGSEGV before issue 33)
for f in "$SRC"/tests/fuzz/corpus/runfile/regress-hdf5-crash-*.h5; do
    memcap timeout 60 "$TLMPI" compare "$A" "$f" --output_dir "$W/o2" \
        > "$W/log2" 2>&1
    rc=$?
    if [ $rc != 1 ] || ! grep -qE "$(basename "$f"): dataset '/[a-z_/]+'" \
        "$W/log2"; then
        fail "$(basename "$f"): exit $rc"; head -3 "$W/log2"
    fi
done

# 3. random one-byte mutants: a result or a refusal naming the file
n=150 mem=1024
if nm "$TLMPI" 2> /dev/null | grep -q __asan_init; then n=40 mem=0; fi
/usr/bin/python3 "$SRC/tests/fuzz/mutate_runfile.py" --tlmpi "$TLMPI" \
    --base "$A" --n $n --seed 7 --out "$W/mutants" --timeout 60 \
    --mem_mb $mem \
    > "$W/log3" 2>&1 || { fail "mutants"; cat "$W/log3"; }
tail -1 "$W/log3"

# 4. a CSV header of 16,000 repeated names: x, x.1 ... x.15999, linearly
rep=$W/mk/rep
[ -d "$rep" ] || "$TLMPI" report "$W/mk/job/rank0_trace.json" \
    --output_csvs_dir "$rep" --quiet
cp -r "$rep" "$W/dups"
/usr/bin/python3 - "$W/dups/ops_summary.csv" << 'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(rows[0] + ["x"] * 16000)
    for r in rows[1:]:
        w.writerow(r + ["1"] * 16000)
EOF
t0=$(date +%s)
memcap timeout 60 "$TLMPI" compare "$rep" "$W/dups" --output_csvs_dir \
    "$W/o4" --quiet > "$W/log4" 2>&1 || { fail "16,000 columns"; cat "$W/log4"; }
echo "16,000 repeated column names: $(( $(date +%s) - t0 )) s"

# 5. one 1 KiB shared string in 3,000 cells (3 MB of text): read, and
# every cell holds it
/usr/bin/python3 "$SRC/tests/integration/csvs_to_xlsx.py" "$rep" "$W/a.xlsx"
/usr/bin/python3 - "$W/a.xlsx" "$W/b.xlsx" << 'EOF'
import re, sys, zipfile
zi = zipfile.ZipFile(sys.argv[1])
p = {n: zi.read(n).decode() for n in zi.namelist()}
rid = re.search(r'name="ops_summary" sheetId="\d+" r:id="(rId\d+)"',
                p["xl/workbook.xml"]).group(1)
part = "xl/" + re.search(r'Id="%s"[^>]*Target="([^"]+)"' % rid,
                         p["xl/_rels/workbook.xml.rels"]).group(1)
k = p["xl/sharedStrings.xml"].count("<si>")
p["xl/sharedStrings.xml"] = p["xl/sharedStrings.xml"].replace(
    "</sst>", "<si><t>%s</t></si></sst>" % ("s" * 1024))
def col(c):
    s = ""
    while c:
        c, k = divmod(c - 1, 26)
        s = chr(65 + k) + s
    return s
m = re.search(r'<row r="1">(.*?)</row>', p[part]).group(1)
w = col(m.count("<c ") + 1)  # the column after the header's last
last = max(int(x) for x in re.findall(r'<row r="(\d+)"', p[part]))
p[part] = p[part].replace(m, m + '<c r="%s1" t="inlineStr"><is><t>blob'
                          '</t></is></c>' % w, 1)
p[part] = p[part].replace("</sheetData>", "".join(
    '<row r="%d"><c r="A%d" t="inlineStr"><is><t>op%d</t></is></c>'
    '<c r="%s%d" t="s"><v>%d</v></c></row>' % (r, r, r, w, r, k)
    for r in range(last + 1, last + 3001)) + "</sheetData>")
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in p.items():
        z.writestr(n, b)
EOF
memcap timeout 60 "$TLMPI" compare "$W/a.xlsx" "$W/b.xlsx" \
    --output_csvs_dir "$W/o5" --quiet > "$W/log5" 2>&1 ||
    { fail "shared string in 3,000 cells"; cat "$W/log5"; }
n=$(grep -c "$(printf 's%.0s' $(seq 1024))" "$W/o5/ops_summary.csv")
[ "$n" = 3000 ] || fail "ops_summary.csv: $n rows hold the shared string, want 3000"

[ $nfail = 0 ] || exit 1
echo "ok"
