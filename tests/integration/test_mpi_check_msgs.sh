#!/bin/bash
# Messages of the check phase (issue 20, item 6): with many bad traces every
# offending file is named (the first 20, then "and N more"), one message per
# problem (never ", ..." repeated inside one), the errno of a failed read
# (EACCES apart from ENOENT), the world size labelled with its real source
# (--world_size, the traces' distributedInfo, or inferred from the highest
# rank found), and a declared world size far beyond the files found
# answered at once, without allocating by it.
set -u
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/check_msgs
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }

kernel() { # ts dur id
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"External id":%s,"stream":7,"correlation":%s,"Collective name":"allreduce","In msg nelems":1024,"Out msg nelems":1024,"Group size":4,"dtype":"Float","Process Group Name":"0","Process Group Ranks":"[0, 1, 2, 3]"}}' "$1" "$2" "$3" "$3"
}
trace() { # file rank world ("" = no distributedInfo)
    { if [ -n "$3" ]; then
          printf '{"distributedInfo":{"rank":%d,"world_size":%s},"traceEvents":[' "$2" "$3"
      else printf '{"traceEvents":['; fi
      kernel 100 50 1; printf ','; kernel 1000 30 2; printf ']}\n'; } > "$1"
}
run() { # want nprocs args...; output in $W/log
    local want=$1 n=$2; shift 2
    timeout 60 "$MPIEXEC" -n "$n" "$TLMPI" "$@" > "$W/log" 2>&1
    local rc=$?
    [ $rc -ne 124 ] || fail "hang (timeout) with -n $n: $*"
    [ $rc -eq "$want" ] || { cat "$W/log"; fail "exit $rc, want $want: $*"; }
}
no_dots() { ! grep -q ', \.\.\.' "$W/log" || { cat "$W/log"; fail "', ...' in a message: $1"; }; }
one_error() { # the number of error lines expected
    [ "$(grep -c 'tlmpi: error:' "$W/log")" -eq "$1" ] ||
        { cat "$W/log"; fail "want $1 error line(s)"; }
}

# 1. 25 corrupt traces of 30: 20 named, one line each, then "and 5 more"
D=$W/bad; mkdir -p "$D"
for r in $(seq 0 29); do trace "$D/rank${r}_trace.json" $r 30; done
for r in $(seq 5 29); do printf '{"traceEvents":[{"ph":' > "$D/rank${r}_trace.json"; done
for n in 1 3; do
    run 1 $n --trace_dir "$D" --quiet
    [ "$(grep -c 'tlmpi: error: .*rank[0-9]*_trace.json' "$W/log")" -eq 20 ] ||
        { cat "$W/log"; fail "20 bad files must be named (-n $n)"; }
    grep -q 'error: and 5 more traces could not be read' "$W/log" ||
        { cat "$W/log"; fail "'and 5 more' (-n $n)"; }
    grep -q '25 of 30 traces could not be analysed' "$W/log" || fail "summary (-n $n)"
    for r in $(seq 5 24); do
        [ "$(grep -c "/rank${r}_trace.json" "$W/log")" -eq 1 ] ||
            { cat "$W/log"; fail "rank $r named once (-n $n)"; }
    done
done

# 2. EACCES and ENOENT told apart (root reads anything: drop the
#    capabilities that let it)
D=$W/errno; mkdir -p "$D"
for r in 0 1 2 3; do trace "$D/rank${r}_trace.json" $r 4; done
chmod 000 "$D/rank1_trace.json"
if command -v setpriv > /dev/null &&
   setpriv --bounding-set -dac_override,-dac_read_search true 2> /dev/null; then
    timeout 60 setpriv --bounding-set -dac_override,-dac_read_search \
        "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" > "$W/log" 2>&1
    # --trace_dir lists what it cannot read; the rank is then missing
    grep -q 'note: skipped 1 file that is not a trace: rank1_trace.json (Permission denied)' "$W/log" ||
        { cat "$W/log"; fail "EACCES not reported"; }
    grep -q 'ranks have no trace .*: 1;' "$W/log" ||
        { cat "$W/log"; fail "EACCES: rank 1 not missing"; }
    timeout 60 setpriv --bounding-set -dac_override,-dac_read_search \
        "$MPIEXEC" -n 2 "$TLMPI" "$D"/rank*_trace.json --quiet > "$W/log" 2>&1
    grep -q 'error: .*rank1_trace.json: cannot open: Permission denied' "$W/log" ||
        { cat "$W/log"; fail "EACCES not reported (file arguments)"; }
else
    echo "setpriv unavailable: EACCES case skipped"
fi
chmod 644 "$D/rank1_trace.json"
ln -s "$D/gone.json" "$D/rank2_trace.json.tmp" && mv -T "$D/rank2_trace.json.tmp" "$D/rank2_trace.json"
run 1 1 "$D"/rank*_trace.json --quiet
grep -q 'rank2_trace.json: .*No such file or directory' "$W/log" ||
    { cat "$W/log"; fail "ENOENT not reported"; }
run 1 1 --trace_dir "$D"
grep -q 'rank2_trace.json (No such file or directory)' "$W/log" ||
    { cat "$W/log"; fail "ENOENT not reported (--trace_dir)"; }

# 3. world size: from the traces' distributedInfo (equal to the highest
#    rank + 1), inferred from the highest rank, or from --world_size
D=$W/ws; mkdir -p "$D"
for r in 0 1 3; do trace "$D/rank${r}_trace.json" $r 4; done
run 1 2 --trace_dir "$D" --quiet
grep -q "error: 1 of 4 ranks have no trace (world size from the traces' distributedInfo.world_size): 2;" "$W/log" ||
    { cat "$W/log"; fail "distributedInfo source mislabelled"; }
one_error 1
D=$W/ws_rank; mkdir -p "$D"
for r in 0 1 3; do trace "$D/rank${r}_trace.json" $r ""; done
run 1 2 --trace_dir "$D" --quiet
grep -q "error: 1 of 4 ranks have no trace (world size inferred from the highest trace rank found): 2;" "$W/log" ||
    { cat "$W/log"; fail "highest-rank source mislabelled"; }
run 1 2 --trace_dir "$D" --world_size 6 --quiet
grep -q "error: 3 of 6 ranks have no trace (world size from --world_size): 2, 4, 5;" "$W/log" ||
    { cat "$W/log"; fail "--world_size source"; }
# traces declaring a smaller world than the ranks found
D=$W/ws_small; mkdir -p "$D"
for r in 0 1 2 3; do trace "$D/rank${r}_trace.json" $r 2; done
run 0 2 --trace_dir "$D"
grep -q "warning: world size 4 inferred from the highest trace rank found; 4 traces declare a smaller one: .*rank0_trace.json (2), .*rank3_trace.json (2)" "$W/log" ||
    { cat "$W/log"; fail "smaller declared world size"; }
# every trace outside --world_size named in one message
run 1 2 --trace_dir "$D" --world_size 2 --force --quiet
grep -q "error: 2 traces have ranks outside world size 2 (from --world_size): .*rank2_trace.json (rank 2), .*rank3_trace.json (rank 3)" "$W/log" ||
    { cat "$W/log"; fail "traces outside the world size"; }
one_error 1

# a missing rank beside a file that is no trace: with --quiet (no note at
# the start) the error names the skipped files, with their reason
D=$W/ws_skip; mkdir -p "$D"
for r in 0 1 2; do trace "$D/rank${r}_trace.json" $r 4; done
printf 'garbage' > "$D/rank3_trace.json"
run 1 2 --trace_dir "$D" --quiet
grep -q "error: 1 of 4 ranks have no trace .*; --allow_missing goes on without them; 1 file of the folder is not a trace or could not be read: .*rank3_trace.json (not JSON)" "$W/log" ||
    { cat "$W/log"; fail "skipped files not said after the missing rank"; }
one_error 1

# 4. many missing ranks: the first 20, "and N more", one message, no ", ..."
D=$W/many; mkdir -p "$D"
for r in 0 1 2; do trace "$D/rank${r}_trace.json" $r 1000; done
run 1 2 --trace_dir "$D" --quiet
grep -q "error: 997 of 1000 ranks have no trace (world size from the traces' distributedInfo.world_size): 3, 4, 5, .*, 21, 22 and 977 more; --allow_missing" "$W/log" ||
    { cat "$W/log"; fail "997 missing ranks"; }
no_dots "missing ranks"
one_error 1
run 0 2 --trace_dir "$D" --allow_missing --force
grep -q "warning: 997 of 1000 ranks have no trace (world size from the traces' distributedInfo.world_size): 3, .*, 22 and 977 more; going on with the 3 traces found" "$W/log" ||
    { cat "$W/log"; fail "--allow_missing warning"; }

# 5. a rank in three files: one message naming the three
D=$W/dup3; mkdir -p "$D"
for r in 0 1 2 3; do trace "$D/rank${r}_trace.json" $r 4; done
trace "$D/rank2_trace.json" 1 4; trace "$D/rank3_trace.json" 1 4
trace "$D/rank4_trace.json" 0 4
run 1 2 --trace_dir "$D" --quiet
grep -q "error: rank 1 appears in 3 files: .*rank1_trace.json, .*rank2_trace.json, .*rank3_trace.json" "$W/log" ||
    { cat "$W/log"; fail "rank in three files"; }
grep -q "error: rank 0 appears twice: .*rank0_trace.json and .*rank4_trace.json" "$W/log" ||
    { cat "$W/log"; fail "rank in two files"; }
one_error 2

# 6. an absurd declared world size: answered at once, nothing allocated by it
D=$W/absurd; mkdir -p "$D"
for r in 0 1; do trace "$D/rank${r}_trace.json" $r 16777216; done
run 1 2 --trace_dir "$D" --quiet
grep -q "error: 16777214 of 16777216 ranks have no trace (world size from the traces' distributedInfo.world_size): 2, 3, .*, 21 and 16777194 more" "$W/log" ||
    { cat "$W/log"; fail "absurd world size"; }
for r in 0 1; do trace "$D/rank${r}_trace.json" $r 16777217; done
run 1 1 --trace_dir "$D" --quiet
grep -q "error: world size 16777217 (from the traces' distributedInfo.world_size) is too large" "$W/log" ||
    { cat "$W/log"; fail "too large world size"; }
echo "check messages: every file named (20, then a count), errno, world-size source"
