# scripts/bench_targets.sh - `scripts/bench.sh targets`: every figure of
# issue 35 (docs/performance.md) in one run.  Sourced by bench.sh, whose
# helpers (once, median, calc, ratio, rss) and variables ($bin, $dir,
# $repeat, $root) it uses.  Each round runs every measurement once, so a
# slow spell of a shared machine weighs on all of them; figures are the
# medians of $BENCH_REPEAT rounds (default 5).

# The inputs, synthesized once under $dir/targets (same options, same bytes).
targets_inputs() {
    local d=$1 s="$bin/tlmpi-synth"
    if [ ! -s "$d/.done" ]; then
        echo "synthesizing the inputs of the targets in $d ..." >&2
        rm -rf "$d"
        mkdir -p "$d"
        "$s" --out "$d/g190" --world_size 1 --tp 1 --gzip \
            --target_size 190000000 >/dev/null
        zcat "$d/g190/rank0_trace.json.gz" > "$d/plain.json"
        "$s" --out "$d/one1m" --world_size 1 --tp 1 \
            --target_size 1000000 >/dev/null
        "$s" --out "$d/m8" --world_size 8 --tp 8 \
            --target_size 3900000 >/dev/null
        "$s" --out "$d/j16" --world_size 16 --gzip \
            --target_size 25000000 >/dev/null
        "$s" --out "$d/j1024" --world_size 1024 --tp 8 --layers 1 \
            --steps 1 --gzip >/dev/null
        rm -f "$d"/*/ground_truth.json
        touch "$d/.done"
    fi
    cat "$d"/g190/* "$d"/plain.json "$d"/m8/* "$d"/j16/* >/dev/null
    cat "$d"/j1024/* >/dev/null
}

# tm VAR CMD...: appends CMD's wall time (seconds) to the list VAR
tm() {
    local v=$1
    shift
    printf -v "$v" '%s %s' "${!v}" "$(once "$@")"
}

# mpi_rss FILE N CMD...: runs mpirun -n N CMD under /usr/bin/time per
# process; FILE gets one "maxrss_kib user sys" line per process
mpi_run_timed() {
    local f=$1 n=$2
    shift 2
    rm -f "$f"
    mpirun -n "$n" /usr/bin/time -f '%M %U %S' -a -o "$f" "$@" >/dev/null
}

# One round of every measurement with tlmpi binary $1, suffix $2.
targets_round() {
    local t=$1 x=$2 d=$3 o=$d/out$2
    mkdir -p "$o"
    tm "R_gz$x" "$t" report "$d/g190/rank0_trace.json.gz" \
        --output_csvs_dir "$o/g" --quiet --force
    tm "R_js$x" "$t" report "$d/plain.json" --output_csvs_dir "$o/p" \
        --quiet --force
    tm "R_1m$x" "$t" report "$d/one1m/rank0_trace.json" \
        --output_csvs_dir "$o/1" --quiet --force
    tm "R_m8$x" mpirun -n 2 "$t" --trace_dir "$d/m8" --output "$o/m8.h5" \
        --output_dir "$o/m8" --quiet --force
    tm "R_j1$x" mpirun -n 1 "$t" --trace_dir "$d/j16" --output "$o/j1.h5" \
        --output_dir "$o/j1" --quiet --force
    tm "R_j2$x" mpirun -n 2 "$t" --trace_dir "$d/j16" --output "$o/j2.h5" \
        --output_dir "$o/j2" --quiet --force
    tm "R_big$x" mpirun -n 2 "$t" --trace_dir "$d/j1024" \
        --output "$o/big.h5" --output_dir "$o/big" --quiet --force
}

med() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | median; }

# verdict VALUE OP LIMIT: "ok" or "MISS"
verdict() { awk -v a="$1" -v b="$3" -v op="$2" \
    'BEGIN {ok = (op == "<=") ? (a <= b) : (a < b); print ok ? "ok" : "MISS"}'; }

# The table of one binary (suffix $1, label $2).
targets_table() {
    local x=$1 lab=$2 d=$3 jb=$4 v
    local gz js m1 m8 j1 j2 big
    gz=$(med "$(eval echo \$R_gz$x)"); js=$(med "$(eval echo \$R_js$x)")
    m1=$(med "$(eval echo \$R_1m$x)"); m8=$(med "$(eval echo \$R_m8$x)")
    j1=$(med "$(eval echo \$R_j1$x)"); j2=$(med "$(eval echo \$R_j2$x)")
    big=$(med "$(eval echo \$R_big$x)")
    echo
    echo "== $lab"
    printf '  %-46s %8s  %-9s %s\n' measurement value target ""
    v=$(ratio "$gz" "$M_zcat")
    printf '  %-46s %7sx  <= 0.55x   %s (%.3f s)\n' "report 190 MB .gz / zcat" "$v" \
        "$(verdict "$v" '<=' 0.55)" "$gz"
    v=$(ratio "$js" "$M_floor")
    printf '  %-46s %7sx  <= 1.1x    %s (%.3f s)\n' "report 190 MB .json / inflate floor" "$v" \
        "$(verdict "$v" '<=' 1.1)" "$js"
    v=$(calc %.3f "$(eval echo \$RSS_rep$x) * 1024 / $jb")
    printf '  %-46s %7sx  <= 0.35x   %s (%d KiB)\n' "peak RSS report / JSON bytes" "$v" \
        "$(verdict "$v" '<=' 0.35)" "$(eval echo \$RSS_rep$x)"
    printf '  %-46s %7s KiB (constant)\n' "peak RSS inspect" "$(eval echo \$RSS_ins$x)"
    v=$(calc %.0f "($m1 - $M_true1) * 1000")
    printf '  %-46s %6s ms  < 30 ms    %s (wall %.3f s - /bin/true %.3f s)\n' \
        "report 1 MB trace, own time" "$v" "$(verdict "$v" '<' 30)" "$m1" "$M_true1"
    v=$(ratio "$m8" "$M_true2")
    printf '  %-46s %7sx  <= 5x      %s (%.3f s)\n' "8 x 3.9 MB -n 2 / mpirun -n 2 true" "$v" \
        "$(verdict "$v" '<=' 5)" "$m8"
    v=$(ratio "$j2" "$j1")
    printf '  %-46s %7sx  <= 0.6x    %s (%.3f s / %.3f s)\n' "16 x 25 MB .gz: -n 2 / -n 1" "$v" \
        "$(verdict "$v" '<=' 0.6)" "$j2" "$j1"
    v=$(ratio "$big" "$M_zbig")
    printf '  %-46s %7sx  <= 1.5x    %s (%.3f s)\n' "1,024 ranks -n 2 / zcat of the files" "$v" \
        "$(verdict "$v" '<=' 1.5)" "$big"
    targets_perrank "$x"
}

# Per-process memory and per-rank cpu of the 1,024-rank job (one run).
targets_perrank() {
    local x=$1 f=$dir/targets/big$1.time mib
    mib=$(sort -n "$f" | tail -n 1 | awk '{printf "%.1f", $1 / 1024}')
    printf '  %-46s %6s MiB <= 64 MiB  %s\n' "1,024 ranks: peak RSS per process" "$mib" \
        "$(verdict "$mib" '<=' 64)"
    awk '{u += $2 + $3; m += $1} END {
        printf "  %-46s %6.2f ms cpu, %.1f KiB RSS per trace\n",
            "1,024 ranks: cpu, RSS summed over processes", u * 1000 / 1024, m / 1024}' "$f"
}

run_targets() {
    local d=$dir/targets base=${BENCH_BASE_TLMPI:-} jb i
    repeat=${BENCH_REPEAT:-5}
    . "$root/scripts/env.sh"
    targets_inputs "$d"
    jb=$(stat -c %s "$d/plain.json")
    TARGETS_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
    M_zcat= M_floor= M_true1= M_true2= M_zbig=
    R_gz= R_js= R_1m= R_m8= R_j1= R_j2= R_big=
    R_gzb= R_jsb= R_1mb= R_m8b= R_j1b= R_j2b= R_bigb=
    for i in $(seq "$repeat"); do
        echo "round $i of $repeat ..." >&2
        tm M_zcat sh -c "zcat '$d/g190/rank0_trace.json.gz' > /dev/null"
        tm M_floor "$bin/tlmpi-inflate-floor" "$d/g190/rank0_trace.json.gz"
        tm M_true1 /bin/true
        tm M_true2 mpirun -n 2 true
        tm M_zbig sh -c "cat '$d'/j1024/*.gz | zcat > /dev/null"
        targets_round "$bin/tlmpi" "" "$d"
        [ -z "$base" ] || targets_round "$base" b "$d"
    done
    M_zcat=$(med "$M_zcat"); M_floor=$(med "$M_floor")
    M_true1=$(med "$M_true1"); M_true2=$(med "$M_true2"); M_zbig=$(med "$M_zbig")
    RSS_rep=$(rss "$bin/tlmpi" report "$d/g190/rank0_trace.json.gz" \
        --output_csvs_dir "$d/out/g" --quiet --force)
    RSS_ins=$(rss "$bin/tlmpi" inspect "$d/g190/rank0_trace.json.gz")
    mkdir -p "$d/out" "$d/outb"
    mpi_run_timed "$d/big.time" 2 "$bin/tlmpi" --trace_dir "$d/j1024" \
        --output "$d/out/big.h5" --output_dir "$d/out/big" --quiet --force
    if [ -n "$base" ]; then
        RSS_repb=$(rss "$base" report "$d/g190/rank0_trace.json.gz" \
            --output_csvs_dir "$d/outb/g" --quiet --force)
        RSS_insb=$(rss "$base" inspect "$d/g190/rank0_trace.json.gz")
        mpi_run_timed "$d/bigb.time" 2 "$base" --trace_dir "$d/j1024" \
            --output "$d/outb/big.h5" --output_dir "$d/outb/big" --quiet --force
    fi
    echo
    echo "== floors (median of $repeat): zcat of the 190 MB trace $M_zcat s;" \
        "inflate floor $M_floor s; /bin/true $M_true1 s;" \
        "mpirun -n 2 true $M_true2 s; zcat of the 1,024 files $M_zbig s"
    echo "   machine: $(nproc) cores, $(uname -r); load before: $TARGETS_LOAD"
    targets_table "" "tlmpi $("$bin/tlmpi" --version 2>/dev/null | head -n 1)" "$d" "$jb"
    [ -z "$base" ] || targets_table b "older: $base" "$d" "$jb"
}
