#!/bin/bash
# Valgrind (memcheck) over a 2-rank job, clean with the project's Open MPI
# suppression file (tests/valgrind/openmpi.supp, which names no tlmpi code):
#   1. the full analysis of a small synthesized job (HDF5 + report);
#   2. the same job with one corrupt trace (the error paths);
#   3. `tlmpi audit` over the good job and the corrupt one;
#   4. `tlmpi report` of one trace (no MPI, no suppressions needed).
# Any invalid access, use of uninitialised memory or definite/indirect leak
# makes valgrind exit 9.  Skipped (77) without valgrind, or when tlmpi is a
# sanitizer build (ASan and valgrind do not mix).
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/valgrind
command -v valgrind > /dev/null || { echo "skip: no valgrind"; exit 77; }
if grep -qa -e __asan_init -e __ubsan_handle "$TLMPI"; then
    echo "skip: $TLMPI is a sanitizer build"
    exit 77
fi
rm -rf "$W"
mkdir -p "$W"
"$TLMPI_SYNTH" --out "$W/job" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --hidden 256 --heads 4 --seq_len 128 --vocab 1024 --quiet || exit 1
VG=(valgrind -q --error-exitcode=9 --leak-check=full
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect
    --num-callers=40 --trace-children=yes --suppressions="$SRC/tests/valgrind/openmpi.supp")
fail=0

# 1. the whole analysis
timeout 300 "$MPIEXEC" -n 2 "${VG[@]}" "$TLMPI" --trace_dir "$W/job" \
    --output "$W/out.h5" > "$W/1.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$W/out.h5" ] || grep -q '^==[0-9]*==' "$W/1.log"
then
    echo "FAIL: 2-rank analysis under valgrind (exit $rc)"
    head -60 "$W/1.log"
    fail=1
else
    echo "ok   2-rank analysis: no valgrind errors"
fi

# 2. a corrupt trace among good ones: exit 1, still no valgrind error
cp -r "$W/job" "$W/bad"
head -c 5000 "$W/job/rank1_trace.json" > "$W/bad/rank1_trace.json"
timeout 300 "$MPIEXEC" -n 2 "${VG[@]}" "$TLMPI" --trace_dir "$W/bad" \
    > "$W/2.log" 2>&1
rc=$?
if [ $rc -ne 1 ] || grep -q '^==[0-9]*==' "$W/2.log" ||
    ! grep -q "rank1_trace.json: offset 5000" "$W/2.log"; then
    echo "FAIL: error path under valgrind (exit $rc, want 1)"
    head -60 "$W/2.log"
    fail=1
else
    echo "ok   2-rank error path: exit 1, no valgrind errors"
fi

# 3. an audit of two runs, one good and one with the corrupt trace: exit 3
mkdir -p "$W/root"
cp -r "$W/job" "$W/root/good"
cp -r "$W/bad" "$W/root/bad"
rm -f "$W"/root/*/tlmpi.h5 "$W"/root/*/*.csv "$W"/root/*/report.md
timeout 300 "$MPIEXEC" -n 2 "${VG[@]}" "$TLMPI" audit "$W/root" \
    --output_dir "$W/audit" > "$W/4.log" 2>&1
rc=$?
if [ $rc -ne 3 ] || grep -q '^==[0-9]*==' "$W/4.log" ||
    [ ! -s "$W/audit/audit.h5" ]; then
    echo "FAIL: audit under valgrind (exit $rc, want 3)"
    head -60 "$W/4.log"
    fail=1
else
    echo "ok   2-run audit: exit 3, no valgrind errors"
fi

# 4. the single-trace report
mkdir -p "$W/rep"
timeout 300 "${VG[@]}" "$TLMPI" report "$W/job/rank0_trace.json" \
    --output_csvs_dir "$W/rep" --gpu_arch H100 --quiet > "$W/3.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || grep -q '^==[0-9]*==' "$W/3.log"; then
    echo "FAIL: tlmpi report under valgrind (exit $rc)"
    head -60 "$W/3.log"
    fail=1
else
    echo "ok   tlmpi report: no valgrind errors"
fi
exit $fail
