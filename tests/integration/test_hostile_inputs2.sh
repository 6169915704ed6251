#!/bin/bash
# Issue 33, the second round of hostile inputs (docs/robustness.md,
# "Second round"): every command refuses a FIFO before reading it (a
# workbook, a CSV folder's sheet and a run file too), never waits on one;
# the wordings of two output refusals.  Each case also has its row in
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

echo "hostile inputs (2nd round): $fails failed"
[ "$fails" -eq 0 ]
