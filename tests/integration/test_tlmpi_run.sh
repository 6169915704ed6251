#!/bin/bash
# tlmpi-run (scripts/tlmpi-run, installed to bin/): mpirun with the Open
# MPI settings that root and small machines need, only when needed.  A fake
# mpirun prints the settings it got and its arguments; then one real run
# with the Open MPI settings of the test environment removed.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${TLM_SOURCE_DIR:?}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/tlmpi_run
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
RUN=$TLM_SOURCE_DIR/scripts/tlmpi-run
cores=$(nproc)
# a clean environment: no Open MPI settings from ctest
clean() { env $(env | sed -n 's/^\(OMPI_[A-Za-z0-9_]*\)=.*/-u \1/p') "$@"; }

cat > "$W/mpirun" <<'FAKE'
#!/bin/sh
echo "root=${OMPI_ALLOW_RUN_AS_ROOT:-}/${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-}"
echo "over=${OMPI_MCA_rmaps_base_oversubscribe:-}/${OMPI_MCA_mpi_yield_when_idle:-}"
echo "pml=${OMPI_MCA_pml:-}"
echo "args=$*"
FAKE
chmod +x "$W/mpirun"
fake() { clean MPIRUN="$W/mpirun" TLMPI=/x/tlmpi "$RUN" "$@"; }

if [ "$(id -u)" = 0 ]; then root="root=1/1"; else root="root=/"; fi
out=$(fake -n 1 --trace_dir D) || fail "fake run: exit $?"
echo "$out" | grep -qx "$root" || fail "-n 1: $out"
echo "$out" | grep -qx "over=/" || fail "-n 1 oversubscribes: $out"
echo "$out" | grep -qx "args=-n 1 /x/tlmpi --trace_dir D" || fail "-n 1: $out"
n=$((cores + 1))
out=$(fake -n $n --trace_dir D --progress)
echo "$out" | grep -qx "over=1/1" || fail "-n $n on $cores cores: $out"
echo "$out" | grep -qx "args=-n $n /x/tlmpi --trace_dir D --progress" \
    || fail "-n $n: $out"
out=$(fake -n$n --trace_dir D)
echo "$out" | grep -qx "args=-n $n /x/tlmpi --trace_dir D" || fail "-n$n: $out"
# default: one rank per core
out=$(fake --trace_dir D)
echo "$out" | grep -qx "args=-n $cores /x/tlmpi --trace_dir D" \
    || fail "default -n: $out"
echo "$out" | grep -qx "over=/" || fail "default -n oversubscribes: $out"
# a setting already made is kept
out=$(clean OMPI_MCA_rmaps_base_oversubscribe=0 MPIRUN="$W/mpirun" \
      TLMPI=/x/tlmpi "$RUN" -n $n --trace_dir D)
echo "$out" | grep -qx "over=0/1" || fail "preset setting replaced: $out"
# one node: the ob1 layer (shared memory, no UCX probe); a preset one or
# an allocation of several nodes is left alone
out=$(fake -n 1 --trace_dir D)
echo "$out" | grep -qx "pml=ob1" || fail "one node: $out"
out=$(clean OMPI_MCA_pml=ucx MPIRUN="$W/mpirun" TLMPI=/x/tlmpi "$RUN" -n 1 D)
echo "$out" | grep -qx "pml=ucx" || fail "preset pml replaced: $out"
out=$(clean SLURM_JOB_NUM_NODES=2 MPIRUN="$W/mpirun" TLMPI=/x/tlmpi \
      "$RUN" -n 1 D)
echo "$out" | grep -qx "pml=" || fail "two nodes get ob1: $out"
# tlmpi next to the script comes first
mkdir -p "$W/bin"; cp "$RUN" "$W/bin/"; printf '#!/bin/sh\n' > "$W/bin/tlmpi"
chmod +x "$W/bin/tlmpi"
out=$(clean -u TLMPI MPIRUN="$W/mpirun" "$W/bin/tlmpi-run" -n 1 X)
echo "$out" | grep -qx "args=-n 1 $W/bin/tlmpi X" || fail "tlmpi beside: $out"
# verbose, help, bad counts
clean MPIRUN="$W/mpirun" TLMPI_RUN_VERBOSE=1 "$RUN" -n 1 X 2>&1 >/dev/null \
    | grep -q "^tlmpi-run: $W/mpirun -n 1 " || fail "TLMPI_RUN_VERBOSE"
"$RUN" --help | grep -q "^usage: tlmpi-run" || fail "--help"
for bad in 0 x -3 ""; do
    clean MPIRUN="$W/mpirun" "$RUN" -n "$bad" X > /dev/null 2>&1
    [ $? -eq 2 ] || fail "-n '$bad' accepted"
done

# a real run, without any Open MPI setting from the environment
command -v mpirun > /dev/null || { echo "no mpirun: real run skipped"; exit 0; }
"$TLMPI_SYNTH" --out "$W/job" --world_size 4 --seed 2 > /dev/null || fail synth
clean TLMPI="$TLMPI" timeout 120 "$RUN" -n $((cores * 2)) --trace_dir "$W/job" \
    --quiet || fail "tlmpi-run -n $((cores * 2)): exit $?"
[ -s "$W/job/tlmpi.h5" ] || fail "no tlmpi.h5"
echo "PASS"
