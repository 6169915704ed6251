#!/bin/bash
# tlmpi report on a plain trace large enough for the reader's second
# parser (a plain file of 16 MiB or more, --threads 2: tlm_read_opts
# .parse_helper) writes the same bytes as with one thread and one parser
# (--threads 1): every CSV and report.md.  The same exit status and
# message, offset included, for the trace damaged in its events array
# and for the trace cut short.  The trace is made here (tlmpi-synth,
# about 20 MB).  Exit 0 on success, 1 on a failure, 77 when tlmpi-synth
# is not there.
set -u
TLMPI=$(realpath "${TLMPI:?TLMPI not set}")
SYNTH="${TLMPI_SYNTH:-}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
[ -x "$SYNTH" ] || { echo "SKIP: no tlmpi-synth"; exit 77; }
SYNTH=$(realpath "$SYNTH")
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0

"$SYNTH" --out job --world_size 1 --tp 1 --target_size 20000000 --seed 5 \
    > synth.log 2>&1 || { echo "FAIL tlmpi-synth"; cat synth.log; exit 1; }
T=job/rank0_trace.json
size=$(stat -c %s "$T")
[ "$size" -ge $((16 << 20)) ] ||
    { echo "FAIL the trace is $size bytes, under 16 MiB"; exit 1; }

# same DESC DIR1 DIR2: the same files, byte for byte (CSVs, report.md)
same() {
    local bad=0
    for f in "$2"/*; do
        cmp -s "$f" "$3/$(basename "$f")" ||
            { echo "FAIL $1: $(basename "$f") differs"; bad=1; }
    done
    [ "$(ls "$2" | wc -l)" = "$(ls "$3" | wc -l)" ] ||
        { echo "FAIL $1: not the same files"; bad=1; }
    [ "$bad" = 0 ] && echo "ok   $1 ($(ls "$2" | wc -l) files)"
    return "$bad"
}

# run DESC TRACE: report with --threads 2 and 1; the same status, message
# and outputs
run() {
    local desc="$1" t="$2" s2 s1
    "$TLMPI" report "$t" --threads 2 --output_csvs_dir two --quiet \
        --force > two.log 2>&1
    s2=$?
    "$TLMPI" report "$t" --threads 1 --output_csvs_dir one --quiet \
        --force > one.log 2>&1
    s1=$?
    if [ "$s2" != "$s1" ]; then
        echo "FAIL $desc: exit $s2 with two threads, $s1 with one"
        fail=1
        return
    fi
    if [ "$s2" != 0 ]; then
        if cmp -s two.log one.log; then
            echo "ok   $desc: the same error ($(head -c 160 one.log))"
        else
            echo "FAIL $desc: the messages differ"
            cat two.log one.log
            fail=1
        fi
        return
    fi
    same "$desc" two one || fail=1
}

run "20 MB plain trace" "$T"
# the ':' after an event's "ph" made '#', past the middle (a helper's
# block, two in three) and in the last MB: a syntax error
for at in $((size / 2 + 77)) $((size - (1 << 20))); do
    /usr/bin/python3 - "$T" bad.json "$at" << 'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(b'"ph": ', int(sys.argv[3]))
b[i + 4] = ord("#")
open(sys.argv[2], "wb").write(b)
EOF
    run "a syntax error at byte $at or after" bad.json
done
head -c $((size * 2 / 3)) "$T" > cut.json
run "cut short" cut.json
exit "$fail"
