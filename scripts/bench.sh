#!/usr/bin/env bash
# Benchmarks (not tests): speed and memory of tlmpi against floors measured
# in the same run.
#
#   scripts/bench.sh reader   read a ~1 GB synthesized trace (.json, .json.gz)
#   scripts/bench.sh report   the whole single-trace report on the same file
#   scripts/bench.sh job      the multi-rank analysis of an 8-rank job
#                             (mpirun -n 2 tlmpi --trace_dir) against
#                             reading the same traces on 2 processes
#   scripts/bench.sh bigjob   a 1,024-rank synthetic job of ~240 MB of
#                             plain JSON (--tp 8, one layer, one step:
#                             ~233 KB per trace) at mpirun -n 2: wall time
#                             and peak RSS per process against reading the
#                             bytes (cat) and parsing them (tlmpi inspect,
#                             2 processes); targets 2.5 s and 200 MB
#   scripts/bench.sh audit    tlmpi audit of 16 small runs at -n 4 against
#                             16 separate mpirun -n 4 (target <= 0.8x)
#   scripts/bench.sh compare_runs  tlmpi compare A.h5 B.h5 of two analysed
#                             1,024-rank jobs (the bigjob one, and the same
#                             with a straggler): wall time and peak RSS
#                             (target 2 s)
#   scripts/bench.sh compare  tlmpi compare of two synthesized traces
#                             (BENCH_CMP_SIZE bytes each, default 100 MB;
#                             the second with a slow kernel) against the
#                             two tlmpi report runs it replaces (target
#                             <= 1.1x their sum), and peak RSS
#   scripts/bench.sh report_xlsx  tlmpi report with CSVs against CSVs +
#                             workbook (--output_xlsx_path), on the largest
#                             shared trace (../shared/traces) and a
#                             synthesized trace of BENCH_XLSX_SIZE bytes
#                             (default 100 MB): target <= 1.3x

#   scripts/bench.sh diff     tlmpi diff of two 18 MB synthesized traces
#                             (seed 1 against seed 2 with 5 layers) against
#                             reading both (two tlmpi inspect --keep side
#                             by side); targets 0.2 s and 2x the memory of
#                             reading both
#   scripts/bench.sh xplane   an XPlane (JAX) file of BENCH_XPLANE_MB
#                             megabytes of protobuf (default 200; 8 GPU
#                             planes, written by the test generator
#                             tlm-gen-xplane): tlmpi inspect (decode) and
#                             tlmpi report (decode + the five sheets), plain
#                             and gzip, in MB/s of protobuf (target >= 200)
#   scripts/bench.sh all      reader and report
#
# Environment: BENCH_SIZE (bytes of JSON, default 1000000000), BENCH_DIR
# (where the trace is written, default build/bench), BENCH_REPEAT (runs per
# measurement, best taken; default 3), BENCH_JOB_SIZE (JSON bytes per rank
# of the job, default 100000000), BENCH_BUILD_DIR (the build used, default
# build/, configured and built first unless BENCH_NO_BUILD=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-reader}
size=${BENCH_SIZE:-1000000000}
dir=${BENCH_DIR:-$root/build/bench}
repeat=${BENCH_REPEAT:-3}
"$root/scripts/setup.sh"
bin=${BENCH_BUILD_DIR:-$root/build}
[ "${BENCH_NO_BUILD:-0}" = 1 ] ||
    BUILD_DIR=$bin "$root/scripts/build.sh" >/dev/null
mkdir -p "$dir"

json=$dir/bench_trace.json
gz=$dir/bench_trace.json.gz
# best wall time (seconds) of $repeat runs of a command
best() {
    local b= t
    for _ in $(seq "$repeat"); do
        local s e
        s=$(date +%s.%N)
        "$@" >/dev/null
        e=$(date +%s.%N)
        t=$(awk -v s="$s" -v e="$e" 'BEGIN {printf "%.4f", e - s}')
        if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN {exit !(t < b)}'; then
            b=$t
        fi
    done
    echo "$b"
}
# peak resident set (KiB) of a command
rss() {
    /usr/bin/time -v "$@" 2>&1 >/dev/null |
        awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}'
}
calc() { awk "BEGIN {printf \"$1\", $2}"; }
mbs() { calc %.1f "$bytes / 1000000 / $1"; }
ratio() { calc %.2f "$1 / $2"; }

# the trace of the reader, report and job modes: synthesized once
single_trace() {
    if [ ! -s "$json" ] || [ "$(cat "$dir/.size" 2>/dev/null)" != "$size" ]; then
        echo "synthesizing a ${size}-byte trace in $dir ..." >&2
        rm -rf "$dir/synth"
        "$bin/tlmpi-synth" --out "$dir/synth" --world_size 8 --tp 4 \
            --target_size "$size" --seed 42 --schema 3 --ranks 0 >/dev/null
        mv "$dir/synth/rank0_trace.json" "$json"
        gzip -6 -c "$json" > "$gz"
        echo "$size" > "$dir/.size"
    fi
    bytes=$(stat -c %s "$json")
    gzbytes=$(stat -c %s "$gz")
    echo "trace: $json"
    printf '  JSON bytes: %d (%s MB); gzip bytes: %d (%s:1)\n' "$bytes" \
        "$(calc %.1f "$bytes/1000000")" "$gzbytes" "$(calc %.1f "$bytes/$gzbytes")"
    cat "$json" >/dev/null # page cache
}

run_reader() {
    local t_json t_gz t_zcat t_floor t_cat rss_keep rss_stream
    t_cat=$(best cat "$json")
    t_zcat=$(best sh -c "zcat '$gz' > /dev/null")
    t_floor=$(best "$bin/tlmpi-inflate-floor" "$gz")
    t_json=$(best "$bin/tlmpi" inspect "$json")
    t_gz=$(best "$bin/tlmpi" inspect "$gz")
    rss_stream=$(rss "$bin/tlmpi" inspect "$json")
    rss_keep=$(rss "$bin/tlmpi" inspect --keep "$json")
    echo
    echo "== reader (best of $repeat)"
    printf '  %-34s %7.3f s %8s MB/s\n' "cat > /dev/null" "$t_cat" "$(mbs "$t_cat")"
    printf '  %-34s %7.3f s %8s MB/s\n' "zcat > /dev/null (floor)" "$t_zcat" "$(mbs "$t_zcat")"
    printf '  %-34s %7.3f s %8s MB/s\n' "zlib inflate loop (floor)" "$t_floor" "$(mbs "$t_floor")"
    printf '  %-34s %7.3f s %8s MB/s   (target >= 600 MB/s)\n' "tlmpi inspect .json" "$t_json" "$(mbs "$t_json")"
    printf '  %-34s %7.3f s %8s MB/s\n' "tlmpi inspect .json.gz" "$t_gz" "$(mbs "$t_gz")"
    printf '  .json.gz / inflate loop: %sx   (target <= 1.3x)\n' "$(ratio "$t_gz" "$t_floor")"
    printf '  .json.gz / zcat:         %sx\n' "$(ratio "$t_gz" "$t_zcat")"
    printf '  peak RSS streaming:      %d KiB = %sx the JSON size\n' "$rss_stream" \
        "$(calc %.3f "$rss_stream * 1024 / $bytes")"
    printf '  peak RSS all events kept: %d KiB = %sx the JSON size   (target <= 0.35x)\n' \
        "$rss_keep" "$(calc %.3f "$rss_keep * 1024 / $bytes")"
    T_READER=$t_json
}

# wall time (seconds) of one run of a command
once() {
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN {printf "%.4f", e - s}'
}
min2() { awk -v a="$1" -v b="$2" 'BEGIN {print (b == "" || a < b) ? a : b}'; }

run_report() {
    local out=$dir/report_out t_rep= t_rd= rss_rep phases t
    rm -rf "$out"
    # reader and report alternate, so that a slow spell of the machine
    # weighs on both (best of each)
    for _ in $(seq "$repeat"); do
        t=$(once "$bin/tlmpi" inspect "$json")
        t_rd=$(min2 "$t" "$t_rd")
        t=$(once sh -c "rm -rf '$out'; '$bin/tlmpi' report '$json' --output_csvs_dir '$out' --quiet")
        t_rep=$(min2 "$t" "$t_rep")
    done
    if [ -z "${T_READER:-}" ] || awk -v a="$t_rd" -v b="$T_READER" 'BEGIN {exit !(a < b)}'; then
        T_READER=$t_rd
    fi
    rm -rf "$out"
    rss_rep=$(rss "$bin/tlmpi" report "$json" --output_csvs_dir "$out" --quiet --force)
    phases=$("$bin/tlmpi" report "$json" --output_csvs_dir "$out" --force 2>&1 \
        >/dev/null | sed -n 's/.*(\(read [^)]*\)).*/\1/p' | head -n 1)
    echo
    echo "== report (best of $repeat)"
    printf '  %-34s %7.3f s\n' "tlmpi inspect .json (reader)" "$T_READER"
    printf '  %-34s %7.3f s\n' "tlmpi report .json" "$t_rep"
    printf '  report / reader: %sx   (target <= 1.5x)\n' "$(ratio "$t_rep" "$T_READER")"
    printf '  phases of one run:       %s\n' "${phases:-?}"
    printf '  peak RSS report: %d KiB = %sx the JSON size   (target <= 0.5x)\n' \
        "$rss_rep" "$(calc %.3f "$rss_rep * 1024 / $bytes")"
}

# The analysis of a whole job: 8 ranks' traces read by 2 MPI processes.
# Floor: the same traces read (tlmpi inspect) by 2 processes side by side.
run_job() {
    local jd=$dir/job jsize=${BENCH_JOB_SIZE:-100000000} t_job= t_rd= t
    if [ "$(cat "$jd/.size" 2>/dev/null)" != "$jsize" ]; then
        echo "synthesizing an 8-rank job of ${jsize}-byte traces ..." >&2
        rm -rf "$jd"
        "$bin/tlmpi-synth" --out "$jd" --world_size 8 --tp 4 \
            --target_size "$jsize" --seed 42 >/dev/null
        echo "$jsize" > "$jd/.size"
    fi
    . "$root/scripts/env.sh"
    cat "$jd"/rank*_trace.json >/dev/null
    local jbytes
    jbytes=$(cat "$jd"/rank*_trace.json | wc -c)
    for _ in $(seq "$repeat"); do
        t=$(once sh -c "'$bin/tlmpi' inspect '$jd'/rank[0-3]_trace.json & \
            '$bin/tlmpi' inspect '$jd'/rank[4-7]_trace.json; wait")
        t_rd=$(min2 "$t" "$t_rd")
        t=$(once sh -c "rm -rf '$jd.out'; mkdir -p '$jd.out'; mpirun -n 2 \
            '$bin/tlmpi' --trace_dir '$jd' --output '$jd.out/tlmpi.h5' --quiet")
        t_job=$(min2 "$t" "$t_job")
    done
    echo
    echo "== job: 8 traces, $(calc %.1f "$jbytes/1000000") MB of JSON (best of $repeat)"
    printf '  %-42s %7.3f s\n' "tlmpi inspect, 2 processes (floor)" "$t_rd"
    printf '  %-42s %7.3f s\n' "mpirun -n 2 tlmpi --trace_dir" "$t_job"
    printf '  analysis / reading: %sx\n' "$(ratio "$t_job" "$t_rd")"
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# A 1,024-rank job read by 2 MPI processes (issue 17: within 2.5 s and
# 200 MB per process).  Medians of $repeat runs, each kind alternating.
run_bigjob() {
    local jd=$dir/bigjob out=$dir/bigjob.out ts_cat= ts_rd= ts_job= rss= t
    if [ ! -s "$jd/rank1023_trace.json" ]; then
        echo "synthesizing a 1,024-rank job ..." >&2
        rm -rf "$jd"
        "$bin/tlmpi-synth" --out "$jd" --world_size 1024 --tp 8 \
            --layers 1 --steps 1 --seed 42 --quiet
    fi
    . "$root/scripts/env.sh"
    local jbytes
    jbytes=$(cat "$jd"/rank*_trace.json | wc -c)
    ls "$jd"/rank*_trace.json | sort -V > "$dir/bigjob.files"
    head -n 512 "$dir/bigjob.files" > "$dir/bigjob.a"
    tail -n 512 "$dir/bigjob.files" > "$dir/bigjob.b"
    for _ in $(seq "$repeat"); do
        ts_cat+="$(once sh -c "cat '$jd'/rank*_trace.json") "
        ts_rd+="$(once sh -c "xargs '$bin/tlmpi' inspect < '$dir/bigjob.a' & \
            xargs '$bin/tlmpi' inspect < '$dir/bigjob.b'; wait") "
        rm -rf "$out"; mkdir -p "$out"
        t=$(once mpirun -n 2 /usr/bin/time -f %M -a -o "$out/rss" \
            "$bin/tlmpi" --trace_dir "$jd" --output "$out/tlmpi.h5" \
            --output_dir "$out" --quiet)
        ts_job+="$t "
        rss+="$(sort -n "$out/rss" | tail -n 1) "
    done
    local m_cat m_rd m_job m_rss phases
    m_cat=$(echo $ts_cat | tr ' ' '\n' | median)
    m_rd=$(echo $ts_rd | tr ' ' '\n' | median)
    m_job=$(echo $ts_job | tr ' ' '\n' | median)
    m_rss=$(echo $rss | tr ' ' '\n' | median)
    rm -rf "$out"; mkdir -p "$out"
    phases=$(mpirun -n 2 "$bin/tlmpi" --trace_dir "$jd" --output \
        "$out/tlmpi.h5" --output_dir "$out" 2>&1 |
        sed -n 's/.* in \(.* s: .*\)/\1/p')
    echo
    echo "== bigjob: 1,024 traces, $(calc %.1f "$jbytes/1000000") MB of JSON (median of $repeat)"
    printf '  %-42s %7.3f s   (%s)\n' "cat the traces (floor: the bytes)" "$m_cat" "$ts_cat"
    printf '  %-42s %7.3f s   (%s)\n' "tlmpi inspect, 2 processes (floor)" "$m_rd" "$ts_rd"
    printf '  %-42s %7.3f s   (%s; target <= 2.5 s)\n' "mpirun -n 2 tlmpi --trace_dir" "$m_job" "$ts_job"
    printf '  analysis / inspect: %sx; analysis / cat: %sx\n' \
        "$(ratio "$m_job" "$m_rd")" "$(ratio "$m_job" "$m_cat")"
    printf '  peak RSS per process (largest of the 2): %d KiB = %s MB   (%s; target <= 200 MB)\n' \
        "$m_rss" "$(calc %.1f "$m_rss*1024/1000000")" "$rss"
    printf '  one run, tlmpi%ss own time (mpirun%ss launch not counted): %s\n' \
        "'" "'" "${phases:-?}"
}

# tlmpi audit of 16 runs (8 of 8 ranks, 8 of 16 ranks, 4 jobs) at
# mpirun -n 4 against the same 16 runs as 16 separate mpirun -n 4 tlmpi
# --trace_dir (issue 17: at most 0.8x).  Medians of $repeat runs.
run_audit() {
    local rd=$dir/audit_root out=$dir/audit.out ts_a= ts_s= t d
    if [ ! -s "$rd/.done" ]; then
        echo "synthesizing 16 runs ..." >&2
        rm -rf "$rd"
        for i in $(seq 1 16); do
            mkdir -p "$rd/job$((i % 4))"
            "$bin/tlmpi-synth" --out "$rd/job$((i % 4))/run$i" \
                --world_size $((i % 2 ? 8 : 16)) --tp 4 --steps 3 \
                --layers 2 --seed "$i" --quiet
        done
        echo 16 > "$rd/.done"
    fi
    . "$root/scripts/env.sh"
    local abytes
    abytes=$(cat "$rd"/*/*/rank*_trace.json | wc -c)
    for _ in $(seq "$repeat"); do
        rm -rf "$out"
        ts_a+="$(once mpirun -n 4 "$bin/tlmpi" audit "$rd" \
            --output_dir "$out" --quiet) "
        t=0
        for d in "$rd"/*/run*; do
            t=$(calc %.4f "$t + $(once mpirun -n 4 "$bin/tlmpi" \
                --trace_dir "$d" --output "$out.h5" --output_dir "$out.s" \
                --force --quiet)")
        done
        ts_s+="$t "
    done
    local m_a m_s
    m_a=$(echo $ts_a | tr ' ' '\n' | median)
    m_s=$(echo $ts_s | tr ' ' '\n' | median)
    echo
    echo "== audit: 16 runs (8 x 8 ranks, 8 x 16 ranks), $(calc %.1f "$abytes/1000000") MB of JSON (median of $repeat)"
    printf '  %-42s %7.3f s   (%s)\n' "16 x mpirun -n 4 tlmpi --trace_dir" "$m_s" "$ts_s"
    printf '  %-42s %7.3f s   (%s)\n' "mpirun -n 4 tlmpi audit" "$m_a" "$ts_a"
    printf '  audit / separate runs: %sx (target <= 0.8x)\n' "$(ratio "$m_a" "$m_s")"
}

# tlmpi compare of the HDF5 results of two 1,024-rank jobs (issue 16:
# under 2 s): the bigjob job (A) and the same with a straggler (B), each
# analysed once by mpirun -n 2 (kept), then compared $repeat times.
run_compare_runs() {
    local out=$dir/compare_runs.out ts= rss= j
    . "$root/scripts/env.sh"
    for j in A B; do
        local jd=$dir/cmp_job$j
        if [ ! -s "$dir/cmp_$j.h5" ]; then
            echo "synthesizing and analysing 1,024-rank job $j ..." >&2
            rm -rf "$jd"
            "$bin/tlmpi-synth" --out "$jd" --world_size 1024 --tp 8 \
                --layers 1 --steps 1 --seed 42 --quiet \
                $([ $j = B ] && echo --straggler 5 --straggler_delay_us 500)
            mpirun -n 2 "$bin/tlmpi" --trace_dir "$jd" --output \
                "$dir/cmp_$j.h5.tmp.h5" --output_dir "$jd.out" --force --quiet
            mv "$dir/cmp_$j.h5.tmp.h5" "$dir/cmp_$j.h5"
            rm -rf "$jd"
        fi
    done
    for _ in $(seq "$repeat"); do
        ts+="$(once /usr/bin/time -f %M -a -o "$dir/compare_runs.rss" \
            "$bin/tlmpi" compare "$dir/cmp_A.h5" "$dir/cmp_B.h5" \
            --output_dir "$out" --force --quiet) "
    done
    rss=$(sort -n "$dir/compare_runs.rss" | tail -n 1)
    rm -f "$dir/compare_runs.rss"
    echo
    echo "== compare_runs: two 1,024-rank results ($(stat -c %s "$dir/cmp_A.h5") and $(stat -c %s "$dir/cmp_B.h5") bytes)"
    printf '  %-42s %7.3f s   (%s; target < 2 s)\n' "tlmpi compare A.h5 B.h5" \
        "$(echo $ts | tr ' ' '\n' | median)" "$ts"
    printf '  peak RSS: %d KiB\n' "$rss"
}

# tlmpi compare TRACE TRACE: the two reports plus the comparison.
run_compare() {
    local csize=${BENCH_CMP_SIZE:-100000000} t tc= ta= tb= out=$dir/cmp.out
    local a=$dir/cmp_a/rank0_trace.json b=$dir/cmp_b/rank0_trace.json
    if [ ! -s "$b" ] || [ "$(cat "$dir/.cmp_size" 2>/dev/null)" != "$csize" ]; then
        echo "synthesizing two ${csize}-byte traces ..." >&2
        rm -rf "$dir/cmp_a" "$dir/cmp_b"
        "$bin/tlmpi-synth" --out "$dir/cmp_a" --world_size 8 --tp 4 \
            --target_size "$csize" --seed 42 --ranks 0 --quiet
        "$bin/tlmpi-synth" --out "$dir/cmp_b" --world_size 8 --tp 4 \
            --target_size "$csize" --seed 42 --ranks 0 --quiet \
            --slow_kernel flash --slow_kernel_factor 1.5
        echo "$csize" > "$dir/.cmp_size"
    fi
    cat "$a" "$b" >/dev/null # page cache
    for _ in $(seq "$repeat"); do
        t=$(once sh -c "rm -rf '$out'; '$bin/tlmpi' report '$a' --output_csvs_dir '$out' --quiet")
        ta=$(min2 "$t" "$ta")
        t=$(once sh -c "rm -rf '$out'; '$bin/tlmpi' report '$b' --output_csvs_dir '$out' --quiet")
        tb=$(min2 "$t" "$tb")
        t=$(once sh -c "rm -rf '$out'; '$bin/tlmpi' compare '$a' '$b' --names a b --output_csvs_dir '$out' --quiet")
        tc=$(min2 "$t" "$tc")
    done
    rm -rf "$out"
    local r
    r=$(rss "$bin/tlmpi" compare "$a" "$b" --names a b --output_csvs_dir "$out" --quiet --force)
    echo
    echo "== compare: two traces of $(stat -c %s "$a") and $(stat -c %s "$b") bytes (best of $repeat)"
    printf '  %-34s %7.3f s\n' "tlmpi report A" "$ta"
    printf '  %-34s %7.3f s\n' "tlmpi report B" "$tb"
    printf '  %-34s %7.3f s\n' "tlmpi compare A B" "$tc"
    printf '  compare / (report A + report B): %sx   (target <= 1.1x)\n' \
        "$(ratio "$tc" "$(calc %.4f "$ta + $tb")")"
    printf '  peak RSS compare: %d KiB\n' "$r"
}

# tlmpi report of $1 with CSVs, then with CSVs and the workbook
xlsx_pair() {
    local tr=$1 label=$2 t tc= tx= out=$dir/xlsx.out
    for _ in $(seq "$repeat"); do
        t=$(once sh -c "rm -rf '$out'; '$bin/tlmpi' report '$tr' --output_csvs_dir '$out' --quiet")
        tc=$(min2 "$t" "$tc")
        t=$(once sh -c "rm -rf '$out'; '$bin/tlmpi' report '$tr' --output_csvs_dir '$out' --output_xlsx_path '$out/r.xlsx' --quiet")
        tx=$(min2 "$t" "$tx")
    done
    local wb
    wb=$(stat -c %s "$out/r.xlsx")
    rm -rf "$out"
    echo
    echo "== report_xlsx: $label, $(stat -c %s "$tr") bytes (best of $repeat)"
    printf '  %-34s %7.3f s\n' "tlmpi report, CSVs" "$tc"
    printf '  %-34s %7.3f s   (workbook %d bytes)\n' "tlmpi report, CSVs + workbook" "$tx" "$wb"
    printf '  CSVs + workbook / CSVs: %sx   (target <= 1.3x)\n' "$(ratio "$tx" "$tc")"
}

run_report_xlsx() {
    local xsize=${BENCH_XLSX_SIZE:-100000000} big=
    local shared=${TLM_SHARED_DIR:-$root/../shared}
    big=$(ls -S "$shared"/traces/*/*.json* 2>/dev/null | head -n 1 || true)
    if [ -n "$big" ]; then
        cat "$big" >/dev/null
        xlsx_pair "$big" "largest shared trace $(basename "$big")"
    fi
    local x=$dir/xlsx_synth/rank0_trace.json
    if [ ! -s "$x" ] || [ "$(cat "$dir/.xlsx_size" 2>/dev/null)" != "$xsize" ]; then
        echo "synthesizing a ${xsize}-byte trace ..." >&2
        rm -rf "$dir/xlsx_synth"
        "$bin/tlmpi-synth" --out "$dir/xlsx_synth" --world_size 8 --tp 4 \
            --target_size "$xsize" --seed 42 --ranks 0 --quiet
        echo "$xsize" > "$dir/.xlsx_size"
    fi
    cat "$x" >/dev/null
    xlsx_pair "$x" "synthesized trace"
}

# TraceDiff of a pair of ~18 MB traces (issue 16: under 0.2 s, memory
# within 2x of reading both traces)
run_diff() {
    local dd=$dir/diff out=$dir/diff/out t_diff= t_rd= t rss_d rss_a rss_b
    if [ ! -s "$dd/a/rank0_trace.json" ] || [ ! -s "$dd/b/rank0_trace.json" ]; then
        echo "synthesizing two 18 MB traces in $dd ..." >&2
        rm -rf "$dd"
        mkdir -p "$dd"
        "$bin/tlmpi-synth" --out "$dd/a" --world_size 8 --tp 4 \
            --target_size 18M --seed 1 --ranks 0 --quiet
        "$bin/tlmpi-synth" --out "$dd/b" --world_size 8 --tp 4 \
            --target_size 18M --seed 2 --layers 5 --ranks 0 --quiet
    fi
    local a=$dd/a/rank0_trace.json b=$dd/b/rank0_trace.json
    cat "$a" "$b" >/dev/null # page cache
    for _ in $(seq "$repeat"); do
        t=$(once sh -c "'$bin/tlmpi' inspect --keep '$a' & '$bin/tlmpi' inspect --keep '$b'; wait")
        t_rd=$(min2 "$t" "$t_rd")
        t=$(once "$bin/tlmpi" diff "$a" "$b" --output_dir "$out" --force --quiet)
        t_diff=$(min2 "$t" "$t_diff")
    done
    rss_a=$(rss "$bin/tlmpi" inspect --keep "$a")
    rss_b=$(rss "$bin/tlmpi" inspect --keep "$b")
    rss_d=$(rss "$bin/tlmpi" diff "$a" "$b" --output_dir "$out" --force --quiet)
    echo
    echo "== diff: $(calc %.1f "$(stat -c %s "$a")/1000000") MB + $(calc %.1f "$(stat -c %s "$b")/1000000") MB of JSON (best of $repeat)"
    printf '  %-40s %7.3f s\n' "read both (2 x tlmpi inspect --keep)" "$t_rd"
    printf '  %-40s %7.3f s   (target <= 0.2 s)\n' "tlmpi diff" "$t_diff"
    "$bin/tlmpi" diff "$a" "$b" --output_dir "$out" --force 2>&1 |
        sed 's/^tlmpi diff: /  /'
    printf '  peak RSS diff: %d KiB; reading both: %d + %d KiB; ratio %sx   (target <= 2x)\n' \
        "$rss_d" "$rss_a" "$rss_b" "$(ratio "$rss_d" "$((rss_a + rss_b))")"
    du -sh "$out" | awk '{print "  outputs: " $1}'
}

run_xplane() {
    local mb=${BENCH_XPLANE_MB:-200} pb=$dir/bench.xplane.pb
    local out=$dir/xplane_out t_cat t_ins t_rep t_gz rss_ins
    if [ ! -s "$pb" ] || [ "$(cat "$dir/.xplane_mb" 2>/dev/null)" != "$mb" ]; then
        echo "generating a ${mb} MB XPlane in $dir ..." >&2
        "$bin/tlm-gen-xplane" big "$pb" "$mb"
        gzip -6 -c "$pb" > "$pb.gz"
        echo "$mb" > "$dir/.xplane_mb"
    fi
    bytes=$(stat -c %s "$pb")
    cat "$pb" >/dev/null
    t_cat=$(best cat "$pb")
    t_ins=$(best "$bin/tlmpi" inspect "$pb")
    t_gz=$(best "$bin/tlmpi" inspect "$pb.gz")
    t_rep=$(best "$bin/tlmpi" report "$pb" --output_csvs_dir "$out" --force --quiet)
    rss_ins=$(rss "$bin/tlmpi" inspect "$pb")
    echo
    echo "== xplane: $(calc %.1f "$bytes/1000000") MB of protobuf, $("$bin/tlmpi" inspect "$pb" | sed -n 's/^  events: //p') events (best of $repeat)"
    printf '  %-34s %7.3f s %8s MB/s\n' "cat > /dev/null" "$t_cat" "$(mbs "$t_cat")"
    printf '  %-34s %7.3f s %8s MB/s   (target >= 200 MB/s)\n' "tlmpi inspect (decode)" "$t_ins" "$(mbs "$t_ins")"
    printf '  %-34s %7.3f s %8s MB/s\n' "tlmpi inspect .gz" "$t_gz" "$(mbs "$t_gz")"
    printf '  %-34s %7.3f s %8s MB/s\n' "tlmpi report (5 sheets)" "$t_rep" "$(mbs "$t_rep")"
    printf '  peak RSS decoding: %d KiB = %sx the protobuf size\n' "$rss_ins" \
        "$(calc %.2f "$rss_ins * 1024 / $bytes")"
}

case "$mode" in
reader) single_trace; run_reader ;;
xplane) run_xplane ;;
compare) run_compare ;;
report) single_trace; run_report ;;
job) single_trace; run_job ;;
bigjob) run_bigjob ;;
audit) run_audit ;;
compare_runs) run_compare_runs ;;
report_xlsx) run_report_xlsx ;;
diff) run_diff ;;
all) single_trace; run_reader; run_report ;;
*) echo "usage: scripts/bench.sh reader|report|report_xlsx|job|bigjob|audit|compare_runs|compare|diff|xplane|all" >&2
   exit 2 ;;
esac
