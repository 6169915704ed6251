#!/bin/bash
# Issue 33, the second round of hostile inputs (docs/robustness.md,
# "Second round"): every command refuses a FIFO before reading it (a
# workbook, a CSV folder's sheet and a run file too), never waits on one;
# the wordings of two output refusals; one escaping rule (formulas in
# CSVs, Markdown cells, U+0000, control characters on success lines).  Each case also has its row in
# tests/data/bad/CATALOGUE.tsv where a catalogue mode can run it.
set -u
: "${TLMPI:?}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/hostile2
rm -rf "$W"
mkdir -p "$W"
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
G=$SRC/tests/data/ok_small_trace.json

# expect RC WANT DESC CMD...: exit RC within 20 s, WANT in the output
expect() {
    local want_rc=$1 want=$2 desc=$3
    shift 3
    timeout 20 "$@" > "$W/log" 2>&1
    local rc=$?
    [ "$rc" -eq "$want_rc" ] || { bad "$desc: exit $rc, want $want_rc"; head -5 "$W/log"; return; }
    grep -qF -- "$want" "$W/log" || { bad "$desc: no '$want'"; head -5 "$W/log"; return; }
    echo "ok   $desc"
}

# --- case 6: FIFOs
mkfifo "$W/p.json" "$W/p.xlsx" "$W/q.xlsx" "$W/p.h5" "$W/q.h5"
mkdir -p "$W/d1" "$W/d2"
mkfifo "$W/d1/gpu_timeline.csv" "$W/d2/gpu_timeline.csv"
F='not a regular file (a FIFO)'
expect 1 "p.json: $F" "inspect FIFO" "$TLMPI" inspect "$W/p.json"
expect 1 "p.json: $F" "report FIFO" "$TLMPI" report "$W/p.json" --output_csvs_dir "$W/o1"
expect 1 "p.json: $F" "tree FIFO" "$TLMPI" tree "$W/p.json"
expect 1 "p.json: $F" "diff FIFO (A)" "$TLMPI" diff "$W/p.json" "$G" --output_dir "$W/o2"
expect 1 "p.json: $F" "diff FIFO (B)" "$TLMPI" diff "$G" "$W/p.json" --output_dir "$W/o3"
expect 1 "p.json: $F" "replay FIFO" "$TLMPI" replay "$W/p.json" --output_dir "$W/o4"
expect 2 "p.json: $F" "compare trace FIFO" "$TLMPI" compare "$G" "$W/p.json"
expect 2 "p.xlsx: $F" "compare workbook FIFO" "$TLMPI" compare "$W/p.xlsx" "$W/q.xlsx"
expect 2 "d1/gpu_timeline.csv: $F" "compare CSV-folder FIFO" "$TLMPI" compare "$W/d1" "$W/d2"
expect 1 "p.h5: $F" "compare run-file FIFO" "$TLMPI" compare "$W/p.h5" "$W/q.h5"
for o in o1 o2 o3 o4; do
    [ -z "$(ls -A "$W/$o" 2> /dev/null)" ] || bad "$o: output left after a refusal"
done

# --- case 15: the wordings of two output refusals
echo x > "$W/real.csv"
ln -s real.csv "$W/link.md"
expect 1 "symbolic link (to a regular file)" "output link to a file" \
    "$TLMPI" report "$G" --output_csvs_dir "$W/o5" --output_md "$W/link.md"
echo x > "$W/afile"
expect 1 "output folder is a regular file, not a folder" "output folder a file" \
    "$TLMPI" report "$G" --output_csvs_dir "$W/afile/sub"

# --- cases 8, 11, 13: one escaping rule.  Op and kernel names that a
# spreadsheet would run, HTML, a pipe, a backtick, U+0000; a file name
# with an escape sequence and a newline.
python3 - "$G" "$W/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("name") == "aten::mm":
        e["name"] = '=HYPERLINK("http://x","y")'
    if e.get("name") == "sgemm_kernel":
        e["name"] = "<script>k|x`y\u0000tail"
open(sys.argv[2], "w").write(json.dumps(d))
PY
"$TLMPI" report "$W/evil.json" --output_csvs_dir "$W/ev" \
    --output_md "$W/ev/report.md" > "$W/log" 2>&1 || bad "report evil: exit $?"
python3 - "$W/ev" <<'PY' || bad "a CSV cell a spreadsheet would run"
import csv, glob, sys
n = 0
for f in glob.glob(sys.argv[1] + "/*.csv"):
    for row in csv.reader(open(f, encoding="utf-8")):
        for c in row:
            n += "HYPERLINK" in c
            if c[:1] in ("=", "+", "-", "@"):
                try:
                    float(c)
                except ValueError:
                    sys.exit("%s: %r" % (f, c[:60]))
assert n > 0, "the name is gone"
PY
grep -q '<script>' "$W/ev/report.md" && bad "raw <script> in report.md"
grep -qF '\<script\>k\|x\`y\\u0000tail' "$W/ev/report.md" \
    || bad "the kernel name is not in report.md, escaped"
grep -qF 'y\u0000tail' "$W/ev/kernel_summary.csv" \
    || bad "U+0000 not kept as \\u0000 in kernel_summary.csv"
# the file name's controls escaped on the success lines too
EV="$W/$(printf 'e\033[31mv\nil.json')"
cp "$W/evil.json" "$EV"
"$TLMPI" report "$EV" --output_csvs_dir "$W/ev2" > "$W/log" 2>&1 || bad "report: exit $?"
"$TLMPI" inspect "$EV" >> "$W/log" 2>&1 || bad "inspect: exit $?"
"$TLMPI" replay "$EV" --output_dir "$W/ev3" >> "$W/log" 2>&1 || bad "replay: exit $?"
grep -q "$(printf '\033')" "$W/log" && bad "a raw ESC printed"
[ "$(grep -c 'e\\x1b\[31mv\\nil.json' "$W/log")" -ge 3 ] \
    || { bad "success lines do not escape the name"; cat "$W/log"; }
echo "ok   escaping (formulas, Markdown, U+0000, success lines)"

# --- case 4: a deep chain: the indent stops at 32 levels, deeper lines
# say their depth; an output over --max_output_mb is refused before any
# file is made
python3 - "$W/ca.json" "$W/cb.json" <<'PY'
import sys
n = 50000
for fn, last in ((sys.argv[1], "a"), (sys.argv[2], "b")):
    with open(fn, "w") as f:
        f.write('{"traceEvents":[')
        for i in range(n):
            f.write('%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,'
                    '"ts":%d,"dur":%d}' % ("," if i else "",
                                          last if i == n - 1 else "a", i,
                                          2 * n - 2 * i + 10))
        f.write(',{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",'
                '"pid":1,"tid":1,"ts":%d,"dur":1,"args":{"correlation":1}}'
                ',{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,'
                '"ts":%d,"dur":5,"args":{"correlation":1,"stream":7}}]}'
                % (n + 1, n + 3))
PY
expect 0 "50002 merged nodes" "diff of a 50,000-deep chain" \
    "$TLMPI" diff "$W/ca.json" "$W/cb.json" --output_dir "$W/dc"
sz=$(stat -c %s "$W/dc/merged_tree_output.txt" 2> /dev/null || echo 0)
# 4.7 GB before; now at most ~160 bytes a line
[ "$sz" -gt 0 ] && [ "$sz" -le 10000000 ] || bad "merged tree of $sz bytes"
grep -q '^ *└── \[depth 50001\] k$' "$W/dc/merged_tree_output.txt" \
    || bad "the deepest line does not give its depth"
expect 1 "merged_tree_output.txt: would be up to" "diff over --max_output_mb" \
    "$TLMPI" diff "$W/ca.json" "$W/cb.json" --output_dir "$W/dc2" \
    --max_output_mb 1
[ -z "$(ls -A "$W/dc2" 2> /dev/null)" ] || bad "dc2: output left after the cap"

# --- case 12: aten::mm with negative dims: no GEMM figures, a note
expect 0 "1 ops with a model but no figures" "GEMM with negative dims" \
    "$TLMPI" report "$SRC/tests/data/bad/gemm_negative_dims.json" \
    --output_csvs_dir "$W/gn" --output_md "$W/gn/report.md"
[ -e "$W/gn/GEMM.csv" ] && grep -q ',-[0-9]' "$W/gn/GEMM.csv" \
    && bad "negative figures in GEMM.csv"
grep -q "have a perf model but no figures" "$W/gn/report.md" \
    || bad "no coverage note in report.md"

# --- case 14: a full disk: the errors name the output asked for, never
# the .tlmpi-PID@host.tmp temporary; libxlsxwriter's "[ERROR]" lines do
# not reach the terminal (its words join tlmpi's one message)
mkdir -p "$W/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=16k tmpfs "$W/full" 2> /dev/null
then
    trap 'umount "$W/full" 2> /dev/null' EXIT
    dd if=/dev/zero of="$W/full/fill" bs=1k count=12 2> /dev/null
    for c in "replay $G --output_dir $W/full/rp" \
             "diff $W/ca.json $W/cb.json --output_dir $W/full/dd" \
             "report $G --output_xlsx_path $W/full/x.xlsx"; do
        # shellcheck disable=SC2086
        timeout 60 "$TLMPI" $c > "$W/log" 2>&1
        rc=$?
        [ "$rc" -eq 1 ] || bad "full disk, ${c%% *}: exit $rc"
        grep -q 'No space left\|ZIP_ERRNO' "$W/log" || bad "full disk, ${c%% *}: no reason"
        grep -q 'tlmpi-[0-9]*@.*tmp' "$W/log" && bad "full disk, ${c%% *}: names the temporary"
        grep -q '^\[ERROR\]' "$W/log" && bad "full disk, ${c%% *}: libxlsxwriter's own line"
        [ "$(wc -l < "$W/log")" -eq 1 ] || { bad "full disk, ${c%% *}: not one line"; cat "$W/log"; }
        [ "$(ls -A "$W/full")" = fill ] || bad "full disk, ${c%% *}: left $(ls -A "$W/full")"
    done
    umount "$W/full"
    echo "ok   full disk: replay, diff, workbook"
else
    echo "skip full disk: cannot mount a small tmpfs"
fi

echo "hostile inputs (2nd round): $fails failed"
[ "$fails" -eq 0 ]
