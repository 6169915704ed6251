#!/bin/bash
# The output rules, before any trace is read, in every command: an output
# must be a regular file or absent (a FIFO, a symlink to a FIFO or to a
# file, a folder are refused even with --force), never one of the input
# traces (same path, hard link, symlink), never replaced without --force
# (the analysis's report.md and CSV sheets too, not only its HDF5 file);
# missing folders are created; an unwritable CSV folder is found before
# reading.  Each refusal: exit 1, a message naming the path, nothing
# written or changed.  Under mpirun -n 1, 2 and 4.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/rules
MNT=$W/ro
umount "$MNT" 2> /dev/null
rm -rf "$W"
mkdir -p "$W"
trap 'umount "$MNT" 2> /dev/null' EXIT
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$TLMPI_SYNTH" --out "$W/job" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --hidden 256 --heads 4 --seq_len 128 --vocab 1024 --quiet || exit 1
T0=$W/job/rank0_trace.json
sum_job() { find "$W/job" -type f -exec md5sum {} + | sort; }
JOB_SUM=$(sum_job)

# refused NP WANT DESC ARGS...: the analysis exits 1 with WANT in its
# message, the job folder unchanged
refused() {
    local np=$1 want=$2 desc=$3
    shift 3
    timeout 60 "$MPIEXEC" -n "$np" "$TLMPI" --trace_dir "$W/job" "$@" \
        > "$W/log" 2>&1
    local rc=$?
    [ "$rc" -eq 1 ] || { bad "$desc (-n $np): exit $rc, want 1"; cat "$W/log"; }
    grep -q -- "$want" "$W/log" || { bad "$desc (-n $np): no '$want'"; cat "$W/log"; }
    [ "$(grep -c 'error:' "$W/log")" -eq 1 ] || { bad "$desc: not one message"; cat "$W/log"; }
    [ "$(sum_job)" = "$JOB_SUM" ] || bad "$desc (-n $np): the job folder changed"
}

mkfifo "$W/fifo"
ln -s "$W/fifo" "$W/to_fifo"
echo keep > "$W/file.h5"
ln -s "$W/file.h5" "$W/to_file.h5"
mkdir -p "$W/adir"
ln "$T0" "$W/hard.json"
ln -s "$T0" "$W/soft.json"
for np in 1 2 4; do
    refused "$np" "is a FIFO" "FIFO" --output "$W/fifo" --force
    refused "$np" "symbolic link (to a FIFO)" "symlink to FIFO" \
        --output "$W/to_fifo" --force
    refused "$np" "symbolic link" "symlink to a file" \
        --output "$W/to_file.h5" --force
    refused "$np" "is a folder" "folder" --output "$W/adir" --force
    refused "$np" "one of the input traces" "input" --output "$T0" --force
    refused "$np" "one of the input traces" "hard link to an input" \
        --output "$W/hard.json" --force
    refused "$np" "one of the input traces" "symlink to an input" \
        --output "$W/soft.json" --force
done
[ -p "$W/fifo" ] || bad "the FIFO was replaced"
[ "$(cat "$W/file.h5")" = keep ] || bad "the symlink's target changed"

# the analysis's report files are outputs too: no silent overwrite
mkdir -p "$W/out"
echo mine > "$W/out/report.md"
refused 2 "report.md: output file exists; use --force" "report.md exists" \
    --output "$W/out/tlmpi.h5"
[ "$(cat "$W/out/report.md")" = mine ] || bad "report.md overwritten"
[ -e "$W/out/tlmpi.h5" ] && bad "tlmpi.h5 written although report.md exists"
rm "$W/out/report.md"
echo mine > "$W/out/nccl_long.csv"
refused 2 "nccl_long.csv: output file exists" "CSV exists" \
    --output "$W/out/tlmpi.h5"
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/job" --output "$W/out/tlmpi.h5" \
    --force --quiet || bad "--force must replace the report files"
[ "$(cat "$W/out/nccl_long.csv")" != mine ] || bad "--force kept the old CSV"

# folders are created, parents included
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/job" --output "$W/new/a/b.h5" \
    --output_csvs_dir "$W/new/c/d" --quiet || bad "new folders"
[ -s "$W/new/a/b.h5" ] && [ -s "$W/new/c/d/nccl_long.csv" ] ||
    bad "outputs not in the new folders"

# an unwritable CSV folder (a read-only file system) is found before any
# trace is read: the message comes before the read phase would start
if mkdir -p "$MNT" && mount -t tmpfs -o ro,size=1m tmpfs "$MNT" 2> /dev/null; then
    TLMPI_TEST_STALL=read refused 2 "cannot write in the output folder: Read-only file system" \
        "read-only CSV folder" --output "$W/out2/tlmpi.h5" --output_csvs_dir "$MNT"
    grep -q "test stall before read" "$W/log" && bad "the CSV folder was checked after reading began"
    [ -e "$W/out2/tlmpi.h5" ] && bad "HDF5 written beside a read-only CSV folder"
else
    echo "skip: cannot mount a read-only tmpfs here"
fi

# tlmpi report: the same rules
report_refused() {
    local want=$1 desc=$2
    shift 2
    "$TLMPI" report "$@" > "$W/log" 2>&1
    local rc=$?
    [ "$rc" -eq 1 ] || { bad "report: $desc: exit $rc"; cat "$W/log"; }
    grep -q -- "$want" "$W/log" || { bad "report: $desc: no '$want'"; cat "$W/log"; }
}
report_refused "is a FIFO" "FIFO md" "$T0" --output_csvs_dir "$W/rep" \
    --output_md "$W/fifo" --force
mkdir -p "$W/rep2"
ln -s "$W/fifo" "$W/rep2/gpu_timeline.csv"
report_refused "symbolic link" "symlink CSV" "$T0" --output_csvs_dir "$W/rep2" --force
report_refused "one of the input traces" "trace as report.md" "$T0" \
    --output_csvs_dir "$W/rep3" --output_md "$T0" --force
[ "$(sum_job)" = "$JOB_SUM" ] || bad "report: the job folder changed"

echo "$fails failures"
[ "$fails" -eq 0 ]
