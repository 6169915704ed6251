#!/bin/bash
# Output faults: an unwritable output folder, a full disk, an existing
# output.  Each gives a clear error (exit 1, the path and the reason), never
# a hang, leaves no new or temporary file, and keeps earlier outputs of the
# same names byte for byte.  Both writers are covered: the MPI analysis
# (HDF5 through MPI-IO, report.md and CSV sheets on rank 0) under 1, 2 and
# 4 ranks, and `tlmpi report` (CSV sheets, report.md).
#
# The read-only folder and the full disk are small tmpfs mounts the test
# makes itself (as root).  Where mounting is not allowed, the report's full
# disk is simulated with a file-size limit (ulimit -f: writes fail with
# EFBIG), and the other cases are skipped when running as root.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/outfaults
MOUNTS=()
cleanup() {
    for m in "${MOUNTS[@]}"; do umount "$m" 2> /dev/null; done
}
trap cleanup EXIT
for m in "$W/ro" "$W/full"; do umount "$m" 2> /dev/null; done
rm -rf "$W"
mkdir -p "$W"
fails=0 oks=0 skips=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$TLMPI_SYNTH" --out "$W/job" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --hidden 256 --heads 4 --seq_len 128 --vocab 1024 --quiet || exit 1
TRACE=$W/job/rank0_trace.json

# earlier outputs, made by good runs: the MPI job's and the report's
mkdir -p "$W/earlier"
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/job" --output "$W/earlier/tlmpi.h5" \
    --quiet || exit 1
"$TLMPI" report "$TRACE" --output_csvs_dir "$W/earlier_rep" --quiet || exit 1

# place DIR: copies of the earlier outputs into DIR (a fresh folder)
place() {
    mkdir -p "$1/rep"
    cp "$W/earlier/"* "$1/"
    cp "$W/earlier_rep/"* "$1/rep/"
}
# intact DIR: the earlier outputs are still there, unchanged, and nothing
# else is (no temporary file)
intact() {
    local d=$1 f
    for f in "$W/earlier/"*; do
        cmp -s "$f" "$d/$(basename "$f")" || { echo "  changed: $f"; return 1; }
    done
    for f in "$W/earlier_rep/"*; do
        cmp -s "$f" "$d/rep/$(basename "$f")" ||
            { echo "  changed: rep/$(basename "$f")"; return 1; }
    done
    local n_now n_then
    n_now=$(find "$d" -type f | wc -l)
    n_then=$(( $(ls "$W/earlier" | wc -l) + $(ls "$W/earlier_rep" | wc -l) ))
    [ "$n_now" -eq "$n_then" ] || { echo "  new files:"; find "$d" -type f -newer "$W/earlier/tlmpi.h5" | head; return 1; }
}
# expect NAME LOG RC REGEX: exit status RC (not a timeout), message matches
expect() {
    local name=$1 log=$2 rc=$3 re=$4
    if [ "$rc" -eq 124 ]; then bad "$name: no result within 120 s"; return 1; fi
    if [ "$rc" -ne 1 ]; then bad "$name: exit $rc, want 1"; head -5 "$log"; return 1; fi
    if ! grep -Eq "$re" "$log"; then bad "$name: message"; head -5 "$log"; return 1; fi
    return 0
}

can_mount=0
if [ "$(id -u)" = 0 ] && mkdir -p "$W/probe" &&
    mount -t tmpfs -o size=64k tmpfs "$W/probe" 2> /dev/null; then
    umount "$W/probe"
    can_mount=1
fi

# ------------------------------------------------ 1. read-only output folder
if [ $can_mount = 1 ]; then
    mkdir -p "$W/ro"
    mount -t tmpfs -o size=4m tmpfs "$W/ro" && MOUNTS+=("$W/ro")
    place "$W/ro"
    mount -o remount,ro "$W/ro"
    RO_MSG='Read-only file system'
elif [ "$(id -u)" != 0 ]; then
    place "$W/ro"
    chmod 555 "$W/ro" "$W/ro/rep"
    RO_MSG='Permission denied'
else
    RO_MSG=
fi
if [ -n "$RO_MSG" ]; then
    for n in 1 2 4; do
        timeout 120 "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$W/job" \
            --output "$W/ro/tlmpi.h5" --force > "$W/ro$n.log" 2>&1
        expect "read-only folder, -n $n" "$W/ro$n.log" $? \
            "error: .*$W/ro.*$RO_MSG" &&
            { intact "$W/ro" && ok "read-only folder, -n $n: clear error, earlier output kept" ||
              bad "read-only folder, -n $n: earlier output"; }
    done
    timeout 120 "$TLMPI" report "$TRACE" --output_csvs_dir "$W/ro/rep" \
        --force > "$W/ro_rep.log" 2>&1
    expect "report into a read-only folder" "$W/ro_rep.log" $? "$RO_MSG" &&
        { intact "$W/ro" && ok "report into a read-only folder: clear error, earlier output kept" ||
          bad "report into a read-only folder: earlier output"; }
    timeout 120 "$TLMPI" report "$TRACE" --output_csvs_dir "$W/ro/new" \
        > "$W/ro_new.log" 2>&1
    expect "report into a new folder on a read-only disk" "$W/ro_new.log" $? \
        "cannot create .*$RO_MSG" && ok "report cannot create its folder: clear error"
else
    echo "skip read-only folder: root without permission to mount"
    skips=$((skips + 1))
fi

# ------------------------------------------------------------ 2. full disk
# Room for the earlier outputs and a little more, not for new ones.
if [ $can_mount = 1 ]; then
    used=$(du -sk "$W/earlier" "$W/earlier_rep" | awk '{s += $1} END {print s}')
    mkdir -p "$W/full"
    mount -t tmpfs -o size=$((used + 24))k tmpfs "$W/full" && MOUNTS+=("$W/full")
    place "$W/full"
    FULL=()
    FULL_MSG='No space left on device'
else
    place "$W/full"
    # no mount: every file is limited to 8 KiB (SIGXFSZ ignored: EFBIG)
    FULL=(bash -c 'trap "" XFSZ; ulimit -f 8; exec "$@"' limit)
    FULL_MSG='File too large|No space left on device'
fi
if [ $can_mount = 1 ]; then
    for n in 1 2 4; do
        timeout 120 "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$W/job" \
            --output "$W/full/tlmpi.h5" --force > "$W/full$n.log" 2>&1
        expect "full disk, -n $n" "$W/full$n.log" $? \
            "error: .*no space left on the output device" &&
            { intact "$W/full" && ok "full disk, -n $n: clear error, earlier output kept" ||
              bad "full disk, -n $n: earlier output"; }
    done
else
    # (a file-size limit also hits mpirun's own files: not simulated)
    echo "skip full disk for the MPI analysis: cannot mount a small tmpfs"
    skips=$((skips + 1))
fi
timeout 120 "${FULL[@]}" "$TLMPI" report "$TRACE" \
    --output_csvs_dir "$W/full/rep" --force > "$W/full_rep.log" 2>&1
expect "report on a full disk" "$W/full_rep.log" $? "$FULL_MSG" &&
    { intact "$W/full" && ok "report on a full disk: clear error, earlier output kept" ||
      bad "report on a full disk: earlier output"; }

# ----------------------------------------------------- 3. existing outputs
place "$W/exists"
timeout 120 "$TLMPI" report "$TRACE" --output_csvs_dir "$W/exists/rep" \
    > "$W/ex_rep.log" 2>&1
expect "report over earlier outputs" "$W/ex_rep.log" $? \
    "output file exists; use --force" &&
    { intact "$W/exists" && ok "report refuses to overwrite without --force" ||
      bad "report over earlier outputs: changed"; }
for n in 1 2; do
    timeout 120 "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$W/job" \
        --output "$W/exists/tlmpi.h5" > "$W/ex$n.log" 2>&1
    expect "analysis over an earlier output, -n $n" "$W/ex$n.log" $? \
        "output file exists; use --force" &&
        { intact "$W/exists" && ok "analysis refuses to overwrite without --force (-n $n)" ||
          bad "analysis over an earlier output: changed"; }
done
timeout 120 "$TLMPI" report "$TRACE" --output_csvs_dir "$W/exists/rep" \
    --force --quiet > "$W/ex_force.log" 2>&1 &&
    ! cmp -s "$W/exists/rep/report.md" /dev/null &&
    [ -z "$(find "$W/exists/rep" -name '*.tmp*')" ] &&
    ok "report --force replaces" || bad "report --force"

echo "output faults: $oks ok, $fails failed, $skips skipped"
[ $fails -eq 0 ]
