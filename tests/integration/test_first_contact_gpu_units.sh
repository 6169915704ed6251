#!/bin/bash
# First contact (issue 21, items 4-6): the GPU is taken from the traces'
# deviceProperties (shared H100 and MI300X traces, synthetic jobs, mixed
# devices), an unknown --gpu_arch is refused with the known names, pg_desc
# reaches the HDF5 tables and report.md, every report states its units,
# and the straggler headline says "no straggler" on a clean synthetic job
# and names the rank of a job with one.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || {
    echo "h5py missing for $PY: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/first_contact
rm -rf "$W"; mkdir -p "$W"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() { # file text label
    grep -qF -- "$2" "$1" || bad "$3: '$2' not in $1"
}
hasnt() {
    grep -qF -- "$2" "$1" && bad "$3: '$2' in $1"
}
attrs() { # h5 -> "arch source mixed straggler_rank"
    $PY - "$1" <<'PY'
import sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
print(a["gpu_arch"], a["gpu_arch_source"], a["gpu_devices_mixed"],
      a["straggler_rank"])
PY
}

# --- synthetic jobs: clean, with a straggler, mixed devices
S="$TLMPI_SYNTH"
"$S" --out "$W/clean" --world_size 4 --quiet || bad "synth clean"
"$S" --out "$W/strag" --world_size 4 --straggler 2 \
    --straggler_delay_us 300 --quiet || bad "synth straggler"
"$S" --out "$W/mix" --world_size 4 --quiet || bad "synth mix"
"$S" --out "$W/mix" --world_size 4 --ranks 3 \
    --device_name "AMD Instinct MI300X" --quiet || bad "synth --device_name"
grep -q '"name": "AMD Instinct MI300X"' "$W/mix/rank3_trace.json" ||
    bad "--device_name not written"
for d in clean strag mix; do
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/$d" --quiet > "$W/$d.log" 2>&1 ||
        bad "tlmpi on $d: $(tail -3 "$W/$d.log")"
done
md="$W/clean/report.md"
has "$md" "No straggler: no rank made the others wait more than 50.0 us" \
    "clean job"
hasnt "$md" "Straggler: rank" "clean job"
has "$md" "- GPU: H100 (source: trace; deviceProperties: \"NVIDIA H100 80GB HBM3\")" \
    "GPU from the synthetic traces"
has "$md" "Units: times in ms unless a column says otherwise; bandwidth GB/s = 10^9 B/s" \
    "units line"
has "$md" "| process group | pg_desc | collective | dtype | size |" \
    "collective table header"
grep -qE '^\| [0-9]+ \| mesh_(dp|tp) \| .* \| [0-9.]+ (B|KiB|MiB|GiB) \|' "$md" ||
    bad "no collective row with pg_desc and a human size in $md"
[ "$(attrs "$W/clean/tlmpi.h5")" = "H100 trace 0 -1" ] ||
    bad "clean attrs: $(attrs "$W/clean/tlmpi.h5")"
has "$W/strag/report.md" "Straggler: rank 2 arrives last most expensively" \
    "straggler job"
[ "$(attrs "$W/strag/tlmpi.h5")" = "H100 trace 0 2" ] ||
    bad "straggler attrs: $(attrs "$W/strag/tlmpi.h5")"
# a threshold above the injected delay: no straggler any more
"$MPIEXEC" -n 1 "$TLMPI" --trace_dir "$W/strag" --force --quiet \
    --straggler_threshold_us 5000 > /dev/null 2>&1 || bad "threshold run"
has "$W/strag/report.md" "No straggler" "--straggler_threshold_us 5000"
has "$W/mix/report.md" "**Note: mixed devices**" "mixed devices"
[ "$(attrs "$W/mix/tlmpi.h5")" = "mixed trace 1 -1" ] ||
    bad "mixed attrs: $(attrs "$W/mix/tlmpi.h5")"
# pg_desc in the HDF5 tables; per-trace device columns
$PY - "$W/mix/tlmpi.h5" <<'PY' || bad "HDF5 columns"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
inst = f["collectives/instances"][()]
summ = f["collectives/summary"][()]
descs = set(inst["pg_desc"]) | set(summ["pg_desc"])
assert {b"mesh_dp", b"mesh_tp"} <= descs, descs
assert b"" not in set(summ["pg_desc"]), set(summ["pg_desc"])
t = f["traces"][()]
assert list(t["gpu_arch"]) == [b"H100"] * 3 + [b"MI300X"], t["gpu_arch"]
assert t["device_name"][3] == b"AMD Instinct MI300X"
assert set(t["gpu_arch_source"]) == {b"trace"}
PY
# --gpu_arch: the option wins; none turns detection off; unknown is refused
"$MPIEXEC" -n 1 "$TLMPI" --trace_dir "$W/mix" --force --quiet \
    --gpu_arch MI300X > /dev/null 2>&1 || bad "--gpu_arch MI300X"
[ "$(attrs "$W/mix/tlmpi.h5")" = "MI300X option 1 -1" ] ||
    bad "option attrs: $(attrs "$W/mix/tlmpi.h5")"
"$MPIEXEC" -n 1 "$TLMPI" --trace_dir "$W/mix" --force --quiet \
    --gpu_arch none > /dev/null 2>&1 || bad "--gpu_arch none"
[ "$(attrs "$W/mix/tlmpi.h5")" = " option 1 -1" ] ||
    bad "none attrs: $(attrs "$W/mix/tlmpi.h5")"
for sub in "" report; do
    if [ -z "$sub" ]; then
        "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/clean" --force \
            --gpu_arch MI300 > "$W/refused.log" 2>&1
    else
        "$TLMPI" report "$W/clean/rank0_trace.json" --output_csvs_dir \
            "$W/rep_refused" --gpu_arch MI300 > "$W/refused.log" 2>&1
    fi
    rc=$?
    [ $rc -ne 0 ] || bad "tlmpi $sub --gpu_arch MI300 accepted"
    has "$W/refused.log" "unknown GPU 'MI300' for --gpu_arch (known: H100, H200, B200, A100, MI300X" \
        "tlmpi $sub --gpu_arch MI300"
done
[ "$(grep -c "unknown GPU" "$W/refused.log")" -eq 1 ] ||
    bad "report: message printed more than once"
# usage errors of the new options: exit 2 before anything is read
for args in "--straggler_threshold_us -1" "--straggler_threshold_us abc" \
            "--gpu_arch H100 --gpu_arch_json_path /nonexistent.json"; do
    # shellcheck disable=SC2086
    "$TLMPI" --trace_dir "$W/clean" --force $args > "$W/usage.log" 2>&1
    rc=$?
    [ $rc -eq 2 ] || bad "tlmpi $args: exit $rc, want 2"
done

# --- the shared real traces (skipped when absent)
TR="${TLM_SHARED_DIR:-}/traces"
if [ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$TR/qwen_h100" ] &&
    [ -d "$TR/resnet_mi300" ]; then
    for c in "qwen_h100/trace.json.gz H100 NVIDIA H100 80GB HBM3" \
             "resnet_mi300/resnet_act_checkpoint.json.gz MI300X AMD Instinct MI300X"; do
        set -- $c
        f=$1 arch=$2
        shift 2
        dev="$*"
        out="$W/real_$arch"
        "$TLMPI" report "$TR/$f" --output_csvs_dir "$out" --quiet ||
            bad "report $f"
        has "$out/report.md" "GPU: $arch (source: trace; deviceProperties: \"$dev\")" \
            "report $f"
        grep -q "Pct Roofline" "$out/unified_perf_summary.csv" ||
            bad "no roofline columns for $f"
        # TraceLens parity: no detection
        "$TLMPI" report "$TR/$f" --output_csvs_dir "$out.tl" --quiet \
            --tracelens_compat all || bad "report --tracelens_compat all $f"
        has "$out.tl/report.md" "GPU: none (source: none;" "compat $f"
        grep -q "Roofline" "$out.tl/unified_perf_summary.csv" &&
            bad "roofline columns with --tracelens_compat all for $f"
        mkdir -p "$out.mpi"
        "$MPIEXEC" -n 1 "$TLMPI" "$TR/$f" --output "$out.mpi/tlmpi.h5" \
            --output_dir "$out.mpi" --allow_missing --quiet \
            > "$out.mpi.log" 2>&1 ||
            bad "tlmpi on $f: $(tail -3 "$out.mpi.log")"
        has "$out.mpi/report.md" "- GPU: $arch (source: trace;" "analysis $f"
        [ "$(attrs "$out.mpi/tlmpi.h5" | cut -d' ' -f1-3)" = "$arch trace 0" ] ||
            bad "analysis attrs of $f: $(attrs "$out.mpi/tlmpi.h5")"
    done
else
    echo "note: shared traces absent: real-trace checks skipped"
fi

[ $fail -eq 0 ] && echo "ok: first contact (GPU, pg_desc, units, straggler)"
exit $fail
