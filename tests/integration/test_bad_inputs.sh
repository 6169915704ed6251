#!/bin/bash
# The catalogue of bad inputs (tests/data/bad/CATALOGUE.tsv): every entry
# gives its exit status, byte offset and message, within a time bound, and a
# failed run leaves nothing written.  Inputs named @... are made here:
# truncations at every byte, a folder, an unreadable file (read as an
# unprivileged user when run as root), a symlink loop, a broken link, a
# FIFO; @compare_* (mode compare) by make_compare_bad.py, run under 1 GB.
set -u
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
BAD="$SRC/tests/data/bad"
W=${TLM_WORK_DIR:-$(mktemp -d)}/bad
rm -rf "$W"
mkdir -p "$W"
n_ok=0 n_fail=0 n_skip=0
fail() { echo "FAIL [$case_id]: $*"; n_fail=$((n_fail + 1)); }

kernel() { # ts dur id
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"External id":%s,"stream":7,"correlation":%s,"Collective name":"allreduce","In msg nelems":1024,"Out msg nelems":1024,"Group size":4,"dtype":"Float","Process Group Name":"0","Process Group Ranks":"[0, 1, 2, 3]"}}' "$1" "$2" "$3" "$3"
}
good_ranks() { # dir: ranks 0..2 of a 4-rank job
    mkdir -p "$1"
    for r in 0 1 2; do
        { printf '{"distributedInfo":{"rank":%d,"world_size":4},"traceEvents":[' "$r"
          kernel 100 50 1; printf ','; kernel 1000 30 2; printf ']}\n'; } \
            > "$1/rank${r}_trace.json"
    done
}
written() { # dir: lists outputs a failed run must not leave
    find "$1" -maxdepth 1 \( -name '*.h5' -o -name '*.csv' -o \
        -name 'report.md' -o -name '*.tlmpi-*' -o -name '.*tmp*' \) | head -3
}

# An unprivileged runner for @unreadable when root (root reads anything).
AS_USER=()
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv > /dev/null; then
        PRIV=$(mktemp -d /tmp/tlm-bad.XXXXXX)
        chmod 755 "$PRIV"
        cp "$TLMPI" "$PRIV/tlmpi"
        cp "$(dirname "$TLMPI")/tlmpi-mpi" "$PRIV/tlmpi-mpi" # its driver
        chmod 755 "$PRIV/tlmpi" "$PRIV/tlmpi-mpi"
        AS_USER=(env HOME="$PRIV" setpriv --reuid=65534 --regid=65534
                 --clear-groups)
        trap 'rm -rf "$PRIV"' EXIT
    fi
fi

# memcap CMD...: CMD under a 1 GB address-space cap (ulimit -v), but for
# a sanitizer build (its shadow memory needs terabytes of addresses)
memcap() {
    if nm "$TLMPI" 2> /dev/null | grep -q __asan_init; then
        "$@"
    else
        (ulimit -v 1048576; "$@")
    fi
}

# prepare INPUT MODE DIR: sets $path (what the command reads) and $pre
# (a command prefix); returns 1 when the case cannot run here.
prepare() {
    local in=$1 mode=$2 d=$3
    pre=()
    bin=$TLMPI
    if [ "$mode" = compare ]; then # issue 33: GOOD and INPUT made there
        local l
        l=$(/usr/bin/python3 "$SRC/tests/integration/make_compare_bad.py" \
            "$in" "$W/compare") || return 1
        good=${l%%$'\t'*}
        path=${l#*$'\t'}
        return 0
    fi
    if [ "$mode" = job ]; then
        if [ -d "$BAD/jobs/$in" ]; then
            cp -r "$BAD/jobs/$in" "$d"
            path=$d
            return 0
        fi
        good_ranks "$d"
        path=$d
        case $in in
        @trace_is_directory) mkdir "$d/rank3_trace.json" ;;
        @fifo) mkfifo "$d/rank3_trace.json" ;;
        @symlink_loop) ln -s rank3_trace.json "$d/rank3_trace.json" ;;
        @broken_link) ln -s /nonexistent/trace.json "$d/rank3_trace.json" ;;
        @unreadable)
            cp "$d/rank2_trace.json" "$d/rank3_trace.json"
            sed -i 's/"rank":2/"rank":3/' "$d/rank3_trace.json"
            chmod 000 "$d/rank3_trace.json"
            if [ "$(id -u)" = 0 ]; then
                [ ${#AS_USER[@]} -gt 0 ] || return 1
                chmod 777 "$d"
                pre=("${AS_USER[@]}")
                bin=$PRIV/tlmpi
            fi ;;
        @*) return 1 ;;
        *.gz) cp "$BAD/$in" "$d/rank3_trace.json.gz" ;;
        *) cp "$BAD/$in" "$d/rank3_trace.json" ;;
        esac
        return 0
    fi
    mkdir -p "$d"
    case $in in
    @trace_is_directory) path=$d/folder.json; mkdir "$path" ;;
    @fifo) path=$d/pipe.json; mkfifo "$path" ;;
    @deep_chain) # a 200,000-deep chain of cpu_ops, A and B (path.b)
        path=$d/chain.json
        python3 - "$path" <<'PY'
import sys
n = 200000
for fn, last in ((sys.argv[1], "a"), (sys.argv[1] + ".b", "b")):
    with open(fn, "w") as f:
        f.write('{"traceEvents":[')
        for i in range(n):
            f.write('%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,'
                    '"ts":%d,"dur":%d}' % ("," if i else "",
                                          last if i == n - 1 else "a", i,
                                          2 * n - 2 * i + 10))
        f.write(',{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",'
                '"pid":1,"tid":1,"ts":%d,"dur":1,"args":{"correlation":1}}'
                ',{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,'
                '"ts":%d,"dur":5,"args":{"correlation":1,"stream":7}}]}'
                % (n + 1, n + 3))
PY
        ;;
    @ctrl_name)
        path=$d/$(printf 'e\033[31mv\nil.json')
        cp "$SRC/tests/data/ok_small_trace.json" "$path" ;;
    @symlink_loop) path=$d/loop.json; ln -s loop.json "$path" ;;
    @missing_file) path=$d/nonexistent.json ;;
    @unreadable)
        path=$d/secret.json
        cp "$SRC/tests/data/ok_small_trace.json" "$path"
        chmod 000 "$path"
        if [ "$(id -u)" = 0 ]; then
            [ ${#AS_USER[@]} -gt 0 ] || return 1
            chmod 777 "$d"
            pre=("${AS_USER[@]}")
            bin=$PRIV/tlmpi
        fi ;;
    @*) return 1 ;;
    *) path=$BAD/$in ;;
    esac
    return 0
}

# check RC OFFSET MESSAGE LOG
check() {
    local want_rc=$1 off=$2 msg=$3 log=$4 rc=$5
    [ "$rc" -ne 124 ] || { fail "no result within 120 s"; return; }
    if [ "$rc" -ne "$want_rc" ]; then
        fail "exit $rc, want $want_rc"; sed 's/^/    /' "$log" | head -5
        return
    fi
    if [ "$off" != - ] && ! grep -qF ": offset $off: " "$log"; then
        fail "no 'offset $off'"; sed 's/^/    /' "$log" | head -5
        return
    fi
    if ! grep -qF -- "$msg" "$log"; then
        fail "message lacks '$msg'"; sed 's/^/    /' "$log" | head -5
        return
    fi
    n_ok=$((n_ok + 1))
}

# @truncated_everywhere: the sample trace cut before every byte of its
# value: each prefix fails at its own end, never reads as complete
truncations() {
    local f="$SRC/tests/data/ok_small_trace.json" d=$1 bad=0
    local len
    len=$(stat -c %s "$f")
    mkdir -p "$d"
    for k in $(seq 1 $((len - 2))); do
        head -c "$k" "$f" > "$d/p.json"
        timeout 20 "$TLMPI" inspect "$d/p.json" > "$d/log" 2>&1
        local rc=$?
        if [ $rc -ne 1 ] || ! grep -qF "p.json: offset $k: $msg" "$d/log"
        then
            [ $bad -lt 3 ] && { echo "  prefix $k: exit $rc"; head -2 "$d/log"; }
            bad=$((bad + 1))
        fi
    done
    # and a gzip of it cut every 41 bytes: a truncated stream each time
    gzip -9 -c "$f" > "$d/full.gz"
    local glen
    glen=$(stat -c %s "$d/full.gz")
    for k in $(seq 10 41 $((glen - 1))); do
        head -c "$k" "$d/full.gz" > "$d/p.json.gz"
        timeout 20 "$TLMPI" inspect "$d/p.json.gz" > "$d/log" 2>&1
        if [ $? -ne 1 ] || ! grep -q "truncated gzip stream" "$d/log"; then
            [ $bad -lt 3 ] && { echo "  gzip prefix $k"; head -2 "$d/log"; }
            bad=$((bad + 1))
        fi
    done
    [ $bad -eq 0 ] && n_ok=$((n_ok + 1)) || fail "$bad truncations wrong"
    echo "ok   [$case_id] $((len - 2)) plain and $(( (glen - 11) / 41 + 1 )) gzip prefixes"
}

i=0
while IFS=$'\t' read -r in mode want_rc off msg <&3; do
    case $in in '#'* | '') continue ;; esac
    i=$((i + 1))
    case_id="$in $mode"
    d=$W/c$i
    if [ "$in" = @truncated_everywhere ]; then
        truncations "$d"
        continue
    fi
    if ! prepare "$in" "$mode" "$d"; then
        echo "skip [$case_id]: cannot be set up here"
        n_skip=$((n_skip + 1))
        continue
    fi
    log=$W/c$i.log
    case $mode in
    inspect)
        timeout 120 "${pre[@]}" "$bin" inspect "$path" > "$log" 2>&1
        rc=$?
        check "$want_rc" "$off" "$msg" "$log" $rc ;;
    report)
        out=$W/c$i.out
        mkdir -p "$out"
        [ ${#pre[@]} -gt 0 ] && chmod 777 "$out"
        timeout 120 "${pre[@]}" "$bin" report "$path" \
            --output_csvs_dir "$out" > "$log" 2>&1
        rc=$?
        # a run that succeeds: its CSVs are searched for the message too
        [ "$rc" -eq 0 ] && cat "$out"/*.csv >> "$log" 2> /dev/null
        check "$want_rc" "$off" "$msg" "$log" $rc
        if [ "$rc" -ne 0 ] && [ -n "$(written "$out")" ]; then
            fail "output left after a failure: $(written "$out")"
        fi ;;
    job)
        timeout 120 "${pre[@]}" "$MPIEXEC" -n 2 "$bin" --trace_dir "$path" \
            > "$log" 2>&1
        rc=$?
        check "$want_rc" "$off" "$msg" "$log" $rc
        if [ "$rc" -ne 0 ] && [ -n "$(written "$path")" ]; then
            fail "output left after a failure: $(written "$path")"
        fi
        if [ "$rc" -eq 0 ] && [ ! -s "$path/tlmpi.h5" ]; then
            fail "exit 0 without $path/tlmpi.h5"
        fi ;;
    compare)
        out=$W/c$i.out
        oo=--output_csvs_dir
        case $good in *.h5) oo=--output_dir ;; esac
        memcap timeout 120 "$bin" compare "$good" "$path" $oo "$out" \
            > "$log" 2>&1
        rc=$?
        check "$want_rc" "$off" "$msg" "$log" $rc
        if [ "$rc" -ne 0 ] && [ -e "$out" ]; then
            fail "output left after a failure: $out"
        fi ;;
    diff | replay)
        out=$W/c$i.out
        if [ "$mode" = diff ]; then
            b=$path.b # a B of the case's own, else the sample trace
            [ -e "$b" ] || b=$SRC/tests/data/ok_small_trace.json
            timeout 120 "${pre[@]}" "$bin" diff "$path" "$b" \
                --output_dir "$out" > "$log" 2>&1
        else
            timeout 120 "${pre[@]}" "$bin" replay "$path" \
                --output_dir "$out" > "$log" 2>&1
        fi
        rc=$?
        # success: the tree's last line and size (at most 64 MB) count too
        if [ "$rc" -eq 0 ] && [ -f "$out/merged_tree_output.txt" ]; then
            tail -1 "$out/merged_tree_output.txt" >> "$log"
            [ "$(stat -c %s "$out/merged_tree_output.txt")" -le 67108864 ] \
                || fail "merged_tree_output.txt over 64 MB"
        fi
        check "$want_rc" "$off" "$msg" "$log" $rc
        if [ "$rc" -ne 0 ] && [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
            fail "output left after a failure: $(ls -A "$out" | head -3)"
        fi ;;
    runner) # the replay runner's checks (no torch needed to refuse)
        timeout 120 /usr/bin/python3 -I "$SRC/scripts/tlmpi_replay.py" \
            "$path" --device cpu --output "$W/c$i.csv" > "$log" 2>&1
        rc=$?
        grep -q Traceback "$log" && fail "a Python traceback"
        check "$want_rc" "$off" "$msg" "$log" $rc
        [ "$rc" -ne 0 ] && [ -e "$W/c$i.csv" ] && fail "CSV left after a refusal" ;;
    *) fail "unknown mode '$mode'" ;;
    esac
done 3< "$BAD/CATALOGUE.tsv"

echo "bad inputs: $n_ok ok, $n_fail failed, $n_skip skipped"
[ $n_fail -eq 0 ] || exit 1
[ $n_ok -ge 30 ] || { echo "fewer than 30 cases ran"; exit 1; }
