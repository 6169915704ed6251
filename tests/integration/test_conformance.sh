#!/bin/bash
# Conformance of `tlmpi report` with TraceLens (spec/perfreport.md §0):
# for every trace folder under $TLM_SHARED_DIR/traces that holds
# tracelens_csvs/, run the report with --tracelens_compat all (TraceLens's
# quirks reproduced) and compare every reference CSV: same header, same
# rows by key, numbers within 1e-6 relative + 1e-9 absolute, row order of
# the single-column sorts, text exact (compare_csvs.py).
# Skips (77) when the shared traces are absent.
set -u
TRACES="${TLM_SHARED_DIR:-}/traces"
if [ -z "${TLM_SHARED_DIR:-}" ] || [ ! -d "$TRACES" ]; then
    echo "skip: no shared traces (TLM_SHARED_DIR)"
    exit 77
fi
PY=/usr/bin/python3
if ! "$PY" -c 'import csv, ast' 2>/dev/null; then
    echo "skip: $PY not usable"
    exit 77
fi
HERE="$(cd "$(dirname "$0")" && pwd)"
TLMPI="${TLMPI:?TLMPI not set}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
checked=0
for ref in "$TRACES"/*/tracelens_csvs; do
    [ -d "$ref" ] || continue
    dir="$(dirname "$ref")"
    name="$(basename "$dir")"
    trace="$(ls "$dir"/*.json.gz "$dir"/*.json 2>/dev/null | head -n 1)"
    [ -n "$trace" ] || continue
    out="$WORK/$name"
    echo "== $name: $trace"
    if ! "$TLMPI" report "$trace" --output_csvs_dir "$out" \
            --tracelens_compat all --quiet; then
        echo "FAIL: tlmpi report exited non-zero on $trace"
        fail=1
        continue
    fi
    if ! "$PY" "$HERE/compare_csvs.py" "$ref" "$out" --verbose; then
        echo "FAIL: $name differs from TraceLens"
        fail=1
    fi
    ident=0
    total=0
    for f in "$ref"/*.csv; do
        total=$((total + 1))
        cmp -s "$f" "$out/$(basename "$f")" && ident=$((ident + 1))
    done
    echo "info: $name: $ident of $total CSVs byte-identical to TraceLens"
    # the comparator must notice a wrong number, swapped rows, a missing row
    bad="$WORK/${name}_perturbed"
    rm -rf "$bad"
    cp -r "$out" "$bad"
    sed -i '2s/,\([0-9]\)/,9\1/' "$bad/gpu_timeline.csv"
    if "$PY" "$HERE/compare_csvs.py" "$ref" "$bad" > /dev/null; then
        echo "FAIL: comparator accepted a perturbed gpu_timeline"
        fail=1
    fi
    cp "$out/gpu_timeline.csv" "$bad/gpu_timeline.csv"
    # ... two rows of a sorted sheet swapped (row order, addendum A9)
    awk 'NR == 2 { keep = $0; next } NR == 3 { print; print keep; next }
         { print }' "$out/ops_summary.csv" > "$bad/ops_summary.csv"
    if "$PY" "$HERE/compare_csvs.py" "$ref" "$bad" > /dev/null; then
        echo "FAIL: comparator accepted swapped ops_summary rows"
        fail=1
    fi
    cp "$out/ops_summary.csv" "$bad/ops_summary.csv"
    sed -i '$d' "$bad/ops_summary.csv"
    if "$PY" "$HERE/compare_csvs.py" "$ref" "$bad" > /dev/null; then
        echo "FAIL: comparator accepted a missing ops_summary row"
        fail=1
    fi
    # the default (corrected) mode must produce the same set of sheets
    def="$WORK/${name}_default"
    if ! "$TLMPI" report "$trace" --output_csvs_dir "$def" --quiet; then
        echo "FAIL: default mode exited non-zero on $trace"
        fail=1
    fi
    for f in "$ref"/*.csv; do
        if [ ! -s "$def/$(basename "$f")" ]; then
            echo "FAIL: default mode lacks $(basename "$f")"
            fail=1
        fi
    done
    checked=$((checked + 1))
done
if [ "$checked" -eq 0 ]; then
    echo "skip: no trace with tracelens_csvs/"
    exit 77
fi
exit $fail
