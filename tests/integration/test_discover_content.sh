#!/bin/bash
# --trace_dir finds traces by content (issue 17): a 4-rank synthesized job
# without distributedInfo, renamed into real-world layouts
# (worker{r}_step_12.<ms>.pt.trace.json, megatron_kineto_{r}.json,
# rank-{r}.json.gz, rank{r}/trace.json with --recursive, names without
# digits: the sorted order, with its warning) must give the same /traces
# ranks as --trace_glob on the original names.  Non-traces beside them are
# named in one note (an error with --strict); a duplicate rank names both
# files; a missing rank names it (--allow_missing_ranks goes on), and a
# folder named like a trace (skipped, named in that error).  The real
# 8-rank folder of TLM_SHARED_DIR when present.  Re-runs in the trace
# folder leave tlmpi's own outputs out; a read-only one names --output.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${TLM_WORK_DIR:-$(mktemp -d)}/discover_content
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }

"$TLMPI_SYNTH" --out "$W/nd" --world_size 4 --tp 2 --steps 1 --layers 1 \
    --no_dist_info --quiet || fail "synth"
"$TLMPI_SYNTH" --out "$W/dist" --world_size 4 --tp 2 --steps 1 --layers 1 \
    --quiet || fail "synth"

run() { # NP OUT.h5 ARGS... (stdout+stderr in OUT.log)
    local np=$1 out=$2; shift 2
    timeout 120 "$MPIEXEC" -n "$np" "$TLMPI" "$@" --output "$out" --force \
        --no_report > "${out%.h5}.log" 2>&1
}
ranks() { # h5: "trace_rank:n_events" per trace, by rank
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$1" <<'PY'
import sys, tlmpi_h5
t = tlmpi_h5.load(sys.argv[1], ["traces"])["traces"].sort_values("trace_rank")
print(" ".join(f"{r.trace_rank}:{r.n_events}" for r in t.itertuples()))
PY
}

run 2 "$W/ref.h5" --trace_glob "$W/nd/rank*_trace.json" \
    || { cat "$W/ref.log"; fail "reference run"; }
want=$(ranks "$W/ref.h5")
[ "$(echo "$want" | wc -w)" = 4 ] || fail "reference: '$want'"

layout() { # NAME PATH-TEMPLATE ({r} = rank; .gz: gzip'd)
    local d="$W/$1" r p
    mkdir -p "$d"
    for r in 0 1 2 3; do
        p="$d/${2//\{r\}/$r}"
        mkdir -p "$(dirname "$p")"
        case "$p" in
            *.gz) gzip -c "$W/nd/rank${r}_trace.json" > "$p" ;;
            *) cp "$W/nd/rank${r}_trace.json" "$p" ;;
        esac
    done
}
check_layout() { # NAME NP [ARGS...]
    local name=$1 np=$2; shift 2
    run "$np" "$W/$name.h5" --trace_dir "$W/$name" "$@" \
        || { cat "$W/$name.log"; fail "$name: exit $?"; }
    local got
    got=$(ranks "$W/$name.h5")
    [ "$got" = "$want" ] || fail "$name: ranks '$got', want '$want'"
}

for r in 0 1 2 3; do
    ms=$((1694128201545 + 11 * (3 - r)))
    mkdir -p "$W/worker"
    cp "$W/nd/rank${r}_trace.json" "$W/worker/worker${r}_step_12.$ms.pt.trace.json"
done
check_layout worker 2
layout megatron "megatron_kineto_{r}.json"
check_layout megatron 1
layout gz "rank-{r}.json.gz"
check_layout gz 2
layout sub "rank{r}/trace.json"
run 2 "$W/sub_flat.h5" --trace_dir "$W/sub" \
    && fail "rank{r}/trace.json found without --recursive"
grep -q "no trace files in the folder" "$W/sub_flat.log" \
    || { cat "$W/sub_flat.log"; fail "sub without --recursive: message"; }
check_layout sub 2 --recursive
grep -q "sorted file order" "$W/sub.log" && fail "sub: order warning"

# no digits anywhere: the sorted order, and one warning naming the files
mkdir -p "$W/plain"
n=0
for name in alpha bravo charlie delta; do
    cp "$W/nd/rank${n}_trace.json" "$W/plain/$name.json"
    n=$((n + 1))
done
check_layout plain 2
grep -q "warning: ranks taken from the sorted file order: [^ ]*/alpha.json, [^ ]*/bravo.json, [^ ]*/charlie.json, [^ ]*/delta.json" \
    "$W/plain.log" || { cat "$W/plain.log"; fail "plain: no order warning"; }
[ "$(grep -c "sorted file order" "$W/plain.log")" = 1 ] || fail "plain: warned twice"

# non-traces beside the traces: one note; --strict refuses
mkdir -p "$W/mixed"
cp "$W"/dist/rank*_trace.json "$W/mixed/"
echo "# job 42" > "$W/mixed/README.md"
echo '{"lr": 0.1, "layers": 2}' > "$W/mixed/config.json"
printf '\211HDF\r\n\032\n' > "$W/mixed/old.h5"
: > "$W/mixed/empty.json"
check_layout mixed 2
grep -q "note: skipped 4 files that are not traces: README.md (not JSON), config.json (JSON without traceEvents), empty.json (empty file), old.h5 (HDF5 file)" \
    "$W/mixed.log" || { cat "$W/mixed.log"; fail "mixed: note"; }
run 2 "$W/strict.h5" --trace_dir "$W/mixed" --strict \
    && fail "--strict accepted non-traces"
grep -q "4 files in the folder are not traces (--strict): README.md (not JSON)" \
    "$W/strict.log" || { cat "$W/strict.log"; fail "strict: message"; }

# a duplicate rank names both files; a missing rank names the rank
mkdir -p "$W/dup"
cp "$W"/dist/rank*_trace.json "$W/dup/"
cp "$W/dist/rank1_trace.json" "$W/dup/copy_of_one.json"
run 2 "$W/dup.h5" --trace_dir "$W/dup" && fail "duplicate rank accepted"
grep -q "rank 1 appears twice: .*copy_of_one.json and .*rank1_trace.json\|rank 1 appears twice: .*rank1_trace.json and .*copy_of_one.json" \
    "$W/dup.log" || { cat "$W/dup.log"; fail "dup: message"; }
mkdir -p "$W/miss"
cp "$W"/dist/rank[013]_trace.json "$W/miss/"
run 2 "$W/miss.h5" --trace_dir "$W/miss" && fail "missing rank accepted"
grep -q "1 of 4 ranks have no trace .*: 2;" "$W/miss.log" \
    || { cat "$W/miss.log"; fail "miss: message"; }
run 2 "$W/miss.h5" --trace_dir "$W/miss" --allow_missing_ranks \
    || { cat "$W/miss.log"; fail "--allow_missing_ranks: exit $?"; }
# a folder named like a trace (issue 34): in the skipped list and named in
# the missing-rank error; --recursive reads it
mkdir -p "$W/look/rank2_trace.json"
cp "$W"/dist/rank[013]_trace.json "$W/look/"
cp "$W/dist/rank2_trace.json" "$W/look/rank2_trace.json/t.json"
run 2 "$W/look.h5" --trace_dir "$W/look" && fail "look-alike folder accepted"
grep -q "skipped 1 file .*rank2_trace.json/ (a folder named like a trace" \
    "$W/look.log" || { cat "$W/look.log"; fail "look: skipped list"; }
grep -q "1 of 4 ranks have no trace .*: 2; named like a trace but a folder, not read: rank2_trace.json/;" \
    "$W/look.log" || { cat "$W/look.log"; fail "look: missing-rank error"; }
run 2 "$W/look.h5" --trace_dir "$W/look" --recursive \
    || { cat "$W/look.log"; fail "look: --recursive: exit $?"; }

# re-runs in the trace folder (issue 34): tlmpi's own outputs (tlmpi.h5,
# report.md, the CSVs, findings.csv, plots/, hta/, the workbook, the
# merged trace) are neither listed as non-traces nor read as traces
mkdir -p "$W/re"
cp "$W"/dist/rank*_trace.json "$W/re/"
rerun() { # LOG ARGS...
    local log=$1; shift
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/re" --plots --hta \
        --merged_trace "$W/re/merged.json.gz" \
        --output_xlsx_path "$W/re/w.xlsx" "$@" > "$log" 2>&1
}
rerun "$W/re1.log" || { cat "$W/re1.log"; fail "re-run: first run"; }
[ -s "$W/re/tlmpi.h5" ] && [ -s "$W/re/report.md" ] && [ -s "$W/re/findings.csv" ] \
    && [ -s "$W/re/merged.json.gz" ] && [ -d "$W/re/plots" ] && [ -d "$W/re/hta" ] \
    || fail "re-run: the first run's outputs"
for rec in "" --recursive; do
    rerun "$W/re2.log" --force $rec || { cat "$W/re2.log"; fail "re-run $rec: exit"; }
    grep -q "skipped\|not trace" "$W/re2.log" && { cat "$W/re2.log"; fail "re-run $rec: own outputs listed"; }
    grep -q "^tlmpi: 4 trace files" "$W/re2.log" || { cat "$W/re2.log"; fail "re-run $rec: traces"; }
done
# ... a user's file of an output's name but other content is still listed
echo "x,y" > "$W/re/straggler_summary.csv"
timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/re" --force --no_report \
    > "$W/re3.log" 2>&1 || { cat "$W/re3.log"; fail "re-run: user CSV"; }
grep -q "skipped 1 file that is not a trace: straggler_summary.csv (not JSON)" \
    "$W/re3.log" || { cat "$W/re3.log"; fail "re-run: user CSV listed"; }
# a read-only trace folder: the error names --output and --output_dir
if [ "$(id -u)" = 0 ] && mkdir -p "$W/ro" &&
    mount -t tmpfs -o size=4m tmpfs "$W/ro" 2> /dev/null; then
    cp "$W"/dist/rank*_trace.json "$W/ro/"
    mount -o remount,ro "$W/ro"
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/ro" > "$W/ro.log" 2>&1
    rc=$?
    umount "$W/ro"
    [ $rc = 1 ] || { cat "$W/ro.log"; fail "read-only folder: exit $rc"; }
    grep -q "Read-only file system; .*--output F.h5 and --output_dir D" \
        "$W/ro.log" || { cat "$W/ro.log"; fail "read-only folder: message"; }
elif [ "$(id -u)" != 0 ]; then
    mkdir -p "$W/ro"
    cp "$W"/dist/rank*_trace.json "$W/ro/"
    chmod 555 "$W/ro"
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/ro" > "$W/ro.log" 2>&1
    rc=$?
    chmod 755 "$W/ro"
    [ $rc = 1 ] || { cat "$W/ro.log"; fail "read-only folder: exit $rc"; }
    grep -q "Permission denied; .*--output F.h5 and --output_dir D" \
        "$W/ro.log" || { cat "$W/ro.log"; fail "read-only folder: message"; }
else
    echo "skip read-only folder: root without permission to mount"
fi

# the real 8-rank folder (its hta_csvs/ subfolder is not descended into)
REAL=${TLM_SHARED_DIR:-}/traces/dlrm_v100_8rank
if [ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$REAL" ]; then
    run 2 "$W/real.h5" --trace_dir "$REAL" \
        || { cat "$W/real.log"; fail "real: exit $?"; }
    got=$(ranks "$W/real.h5" | tr ' ' '\n' | cut -d: -f1 | tr '\n' ' ')
    [ "$got" = "0 1 2 3 4 5 6 7 " ] || fail "real: ranks '$got'"
else
    echo "no $REAL: real folder skipped"
fi
echo "PASS"
