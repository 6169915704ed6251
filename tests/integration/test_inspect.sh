#!/bin/bash
# Smoke test of the streaming reader through `tlmpi inspect`:
#   1. tests/data: ok_* and odd_* read (exit 0) with the expected counts,
#      bad_* fail (exit 1) naming the file and the exact byte offset;
#   2. traces written by tlmpi-synth (schemas 1..3, plain and gzip): every
#      file reads, the .json and .json.gz of one job give the same counts,
#      and --chunk 7 gives the same counts as the default chunk;
#   3. the real traces of $TLM_SHARED_DIR/traces (skipped when absent):
#      every file's event total, (ph, cat) counts (order-insensitive) and
#      distributedInfo rank/world agree with traces/MANIFEST.md.
# inspect makes no MPI call; the MPI runs are in the other integration
# tests.  Exit 0 on success, 1 on a failure, 77 when nothing could run.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SYNTH="${TLMPI_SYNTH:-}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
ran=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    ran=1
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}

# The "events by (ph, cat)" line of one file's report, sorted (the order
# of equal counts is not part of the format).
counts() { # counts REPORT
    sed -n 's/^  events by (ph, cat): //p' "$1" | tr ',' '\n' |
        sed 's/^ *//' | sort | tr '\n' ' '
}
field() { # field REPORT PREFIX -> rest of the line after "  PREFIX: "
    sed -n "s/^  $2: //p" "$1" | head -n 1
}

# ------------------------------------------------------------ 1. tests/data
D="$SRC/tests/data"
if [ -f "$D/ok_small_trace.json" ]; then
    "$TLMPI" inspect "$D/ok_small_trace.json" > "$WORK/ok.txt" 2>&1
    check "ok_small_trace: exit 0" test $? -eq 0
    check "ok_small_trace: 7 events" test "$(field "$WORK/ok.txt" events)" = 7
    check "ok_small_trace: counts" test "$(counts "$WORK/ok.txt")" = \
        "M/None=1 X/cpu_op=1 X/cuda_runtime=1 X/kernel=1 f/ac2g=1 i/None=1 s/ac2g=1 "
    check "ok_small_trace: rank/world" grep -q \
        "^  distributedInfo rank/world: 1/2; process groups: 1; backend: nccl" \
        "$WORK/ok.txt"
    check "ok_small_trace: baseTimeNanoseconds" grep -q \
        "^  baseTimeNanoseconds: 1700000000000000000$" "$WORK/ok.txt"

    "$TLMPI" inspect "$D/odd_bare_array.json" > "$WORK/odd.txt" 2>&1
    check "odd_bare_array: exit 0" test $? -eq 0
    check "odd_bare_array: counts" test "$(counts "$WORK/odd.txt")" = \
        "X/None=1 X/kernel=1 "
    check "odd_bare_array: no distributedInfo" grep -q \
        "rank/world: None/None" "$WORK/odd.txt"

    "$TLMPI" inspect "$D/bad_ts_string.json" > "$WORK/bad1.txt" 2>&1
    check "bad_ts_string: exit 1" test $? -eq 1
    check "bad_ts_string: file, offset and field" grep -q \
        "bad_ts_string.json: offset 42: expected a number while reading traceEvents\[0\].ts" \
        "$WORK/bad1.txt"
    "$TLMPI" inspect "$D/bad_truncated.json" > "$WORK/bad2.txt" 2>&1
    check "bad_truncated: exit 1" test $? -eq 1
    check "bad_truncated: offset at the end" grep -q \
        "bad_truncated.json: offset 65: unexpected end of input" \
        "$WORK/bad2.txt"
    # a bad file among good ones: the others are still reported
    "$TLMPI" inspect "$D/bad_truncated.json" "$D/ok_small_trace.json" \
        > "$WORK/mix.txt" 2>&1
    check "bad + ok: exit 1" test $? -eq 1
    check "bad + ok: ok still read" grep -q "^  events: 7$" "$WORK/mix.txt"
    # a truncated gzip
    gzip -c "$D/ok_small_trace.json" | head -c 300 > "$WORK/trunc.json.gz"
    "$TLMPI" inspect "$WORK/trunc.json.gz" > "$WORK/bad3.txt" 2>&1
    check "truncated gzip: exit 1" test $? -eq 1
    check "truncated gzip: message" grep -q "truncated gzip stream" \
        "$WORK/bad3.txt"
    # two gzip members read as one stream
    head -c 700 "$D/ok_small_trace.json" | gzip -c > "$WORK/two.json.gz"
    tail -c +701 "$D/ok_small_trace.json" | gzip -c >> "$WORK/two.json.gz"
    "$TLMPI" inspect "$WORK/two.json.gz" > "$WORK/two.txt" 2>&1
    check "two gzip members: exit 0" test $? -eq 0
    check "two gzip members: format" grep -q "format: gzip (2 members)" \
        "$WORK/two.txt"
    check "two gzip members: same counts" test \
        "$(counts "$WORK/two.txt")" = "$(counts "$WORK/ok.txt")"
fi

# --------------------------------------------------- 2. synthesized traces
if [ -n "$SYNTH" ] && [ -x "$SYNTH" ]; then
    for schema in 1 2 3; do
        for gz in 0 1; do
            out="$WORK/synth_s${schema}_gz$gz"
            extra=""
            [ "$gz" = 1 ] && extra="--gzip"
            "$SYNTH" --out "$out" --world_size 2 --tp 2 --steps 1 \
                --layers 1 --schema "$schema" --seed 7 --quiet $extra \
                > "$out.log" 2>&1
            check "synth schema $schema gzip $gz: generated" test $? -eq 0
            for r in 0 1; do
                f="$out/rank${r}_trace.json"
                [ "$gz" = 1 ] && f="$f.gz"
                rep="$out.rank$r.txt"
                "$TLMPI" inspect "$f" > "$rep" 2>&1
                check "synth s$schema gz$gz rank $r: inspect" test $? -eq 0
                check "synth s$schema gz$gz rank $r: rank/world" grep -q \
                    "rank/world: $r/2" "$rep"
                n=$(field "$rep" events)
                check "synth s$schema gz$gz rank $r: events" \
                    test "${n:-0}" -gt 0
                "$TLMPI" inspect --chunk 7 "$f" > "$rep.c7" 2>&1
                check "synth s$schema gz$gz rank $r: --chunk 7 agrees" test \
                    "$(counts "$rep.c7")" = "$(counts "$rep")"
            done
        done
        for r in 0 1; do
            a="$WORK/synth_s${schema}_gz0.rank$r.txt"
            b="$WORK/synth_s${schema}_gz1.rank$r.txt"
            check "synth s$schema rank $r: json and json.gz agree" test \
                "$(counts "$a")" = "$(counts "$b")"
            check "synth s$schema rank $r: gzip recognised" grep -q \
                "^  format: gzip (1 member)$" "$b"
            check "synth s$schema rank $r: plain recognised" grep -q \
                "^  format: json$" "$a"
        done
    done
else
    echo "skip synthesized traces: TLMPI_SYNTH not set or not executable"
fi

# ---------------------------------------------------------- 3. real traces
T="${TLM_SHARED_DIR:-}/traces"
if [ -n "${TLM_SHARED_DIR:-}" ] && [ -f "$T/MANIFEST.md" ]; then
    # one "path<TAB>events<TAB>rank/world<TAB>sorted counts" line per file
    "$PY" - "$T/MANIFEST.md" > "$WORK/manifest.tsv" <<'PYEOF'
import re, sys
cur = None
rows = {}
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"^### (\S+)\s*$", line)
    if m:
        cur = m.group(1)
        rows[cur] = {}
        continue
    if cur is None:
        continue
    m = re.search(r"events: (\d+); distributedInfo rank/world: (\S+)", line)
    if m:
        rows[cur]["events"] = m.group(1)
        rows[cur]["rw"] = m.group(2)
    m = re.match(r"^- events by \(ph, cat\): (.*)$", line.rstrip("\n"))
    if m:
        rows[cur]["counts"] = " ".join(
            sorted(x.strip() for x in m.group(1).split(","))) + " "
for path, r in rows.items():
    if {"events", "rw", "counts"} <= set(r):
        print("\t".join([path, r["events"], r["rw"], r["counts"]]))
PYEOF
    nman=$(wc -l < "$WORK/manifest.tsv")
    check "MANIFEST.md lists traces" test "$nman" -gt 0
    while IFS=$'\t' read -r path events rw want; do
        rep="$WORK/real_$(echo "$path" | tr '/' '_').txt"
        "$TLMPI" inspect "$T/$path" > "$rep" 2>&1
        check "$path: inspect" test $? -eq 0
        check "$path: $events events" test "$(field "$rep" events)" = \
            "$events"
        check "$path: rank/world $rw" grep -q \
            "^  distributedInfo rank/world: $rw\(;\|$\)" "$rep"
        got=$(counts "$rep")
        if [ "$got" != "$want" ]; then
            echo "  want: $want"
            echo "  got:  $got"
        fi
        check "$path: events by (ph, cat)" test "$got" = "$want"
    done < "$WORK/manifest.tsv"
    # every trace file in the folder is in the manifest: by name, or in a
    # folder the manifest describes as a whole (a table row "| `dir/` |";
    # those traces must read, and the generator's ground_truth.json
    # beside them is not a trace)
    for f in $(cd "$T" && ls */*.json */*.json.gz 2>/dev/null); do
        d="${f%%/*}"
        if grep -q "^$f	" "$WORK/manifest.tsv"; then
            continue
        elif grep -q "^| \`$d/\` |" "$T/MANIFEST.md"; then
            [ "${f##*/}" = ground_truth.json ] && continue
            "$TLMPI" inspect "$T/$f" > "$WORK/folder_trace.txt" 2>&1
            check "$f: inspect (folder $d/ in MANIFEST.md)" test $? -eq 0
        else
            check "$f: listed in MANIFEST.md" false
        fi
    done
else
    echo "skip real traces: \$TLM_SHARED_DIR/traces/MANIFEST.md absent"
fi

if [ "$ran" = 0 ]; then
    echo "nothing to test"
    exit 77
fi
if [ "$fail" != 0 ]; then
    echo "FAILED"
    exit 1
fi
echo "all passed"
exit 0
