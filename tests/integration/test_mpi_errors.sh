#!/bin/bash
# Bad input never hangs and never leaves output behind: a corrupt or
# truncated trace among good ones, duplicate and missing ranks, an existing
# output file, bad options.  Each case under several MPI sizes.
set -u
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
# mpirun waits 2 s before reaping a job with a non-zero exit otherwise
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/errors
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }

kernel() { # ts dur id
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"External id":%s,"stream":7,"correlation":%s,"Collective name":"allreduce","In msg nelems":1024,"Out msg nelems":1024,"Group size":4,"dtype":"Float","Process Group Name":"0","Process Group Ranks":"[0, 1, 2, 3]"}}' "$1" "$2" "$3" "$3"
}
trace() { # dir rank
    { printf '{"distributedInfo":{"rank":%d,"world_size":4},"traceEvents":[' "$2"
      kernel 100 50 1; printf ','; kernel 1000 30 2; printf ']}\n'; } \
        > "$1/rank$2_trace.json"
}
good() { rm -rf "$1"; mkdir -p "$1"; for r in 0 1 2 3; do trace "$1" $r; done; }

# run DIR EXPECTED_RC NPROCS ARGS... ; output in $W/log
run() {
    local want=$1 n=$2; shift 2
    timeout 60 "$MPIEXEC" -n "$n" "$TLMPI" "$@" > "$W/log" 2>&1
    local rc=$?
    [ $rc -ne 124 ] || fail "hang (timeout) with -n $n: $*"
    [ $rc -eq "$want" ] || { cat "$W/log"; fail "exit $rc, want $want: $*"; }
}
no_output() { # dir
    ls "$1" | grep -E '\.h5|report\.md|\.csv$|\.tlmpi-' && fail "output left in $1"
    return 0
}

# 1. corrupt JSON among good traces: named, exit 1, nothing written
D=$W/corrupt; good "$D"
printf '{"distributedInfo":{"rank":2,"world_size":4},"traceEvents":[{"ph":"X","cat":"kernel",' > "$D/rank2_trace.json"
for n in 1 2 3 4 8; do
    run 1 $n --trace_dir "$D"
    grep -q "error: .*rank2_trace.json" "$W/log" || { cat "$W/log"; fail "bad file not named (-n $n)"; }
    grep -q "1 of 4 traces could not be analysed" "$W/log" || fail "summary line (-n $n)"
    [ "$(grep -c 'error:' "$W/log")" -eq 1 ] || { cat "$W/log"; fail "one message expected (-n $n)"; }
    no_output "$D"
done
# two bad traces: both named
printf 'not json' > "$D/rank0_trace.json"
run 1 4 --trace_dir "$D"
grep -q "rank0_trace.json" "$W/log" && grep -q "rank2_trace.json" "$W/log" ||
    { cat "$W/log"; fail "both bad files must be named"; }
no_output "$D"

# 2. truncated gzip
D=$W/gz; good "$D"
gzip -c "$D/rank1_trace.json" | head -c 60 > "$D/rank1_trace.json.gz"
rm "$D/rank1_trace.json"
run 1 2 --trace_dir "$D"
grep -q "rank1_trace.json.gz" "$W/log" || { cat "$W/log"; fail "gz not named"; }
no_output "$D"

# 3. duplicate rank (distributedInfo says 1 in two files)
D=$W/dup; good "$D"
sed 's/"rank":3/"rank":1/' "$D/rank3_trace.json" > "$D/rank3b.json" && mv "$D/rank3b.json" "$D/rank3_trace.json"
run 1 4 --trace_dir "$D"
grep -q "rank 1 appears twice: .*rank1_trace.json and .*rank3_trace.json" "$W/log" ||
    { cat "$W/log"; fail "duplicate not reported"; }
no_output "$D"

# 4. missing ranks: world size from distributedInfo, or --world_size
D=$W/missing; good "$D"; rm "$D/rank2_trace.json"
run 1 2 --trace_dir "$D"
grep -q "1 of 4 ranks have no trace .*: 2;" "$W/log" || { cat "$W/log"; fail "missing rank 2"; }
no_output "$D"
run 1 3 --trace_dir "$D" --world_size 6
grep -q "3 of 6 ranks have no trace (world size from --world_size): 2, 4, 5" "$W/log" ||
    { cat "$W/log"; fail "missing ranks 2, 4, 5"; }
run 1 1 --trace_pattern "$D/rank*_trace.json" --world_size 4
grep -q "no file for rank 2" "$W/log" || { cat "$W/log"; fail "pattern missing"; }
run 0 2 --trace_dir "$D" --allow_missing --quiet
[ -s "$D/tlmpi.h5" ] || fail "--allow_missing must write"
run 1 2 --trace_dir "$D" --world_size 2 --force
grep -q "outside world size 2" "$W/log" || { cat "$W/log"; fail "rank >= world size"; }

# 5. existing output: refused before any work, kept; --force replaces
D=$W/exists; good "$D"
echo keep > "$D/tlmpi.h5"
run 1 4 --trace_dir "$D"
grep -q "output file exists; use --force" "$W/log" || { cat "$W/log"; fail "exists"; }
[ "$(cat "$D/tlmpi.h5")" = keep ] || fail "existing output modified"
run 0 4 --trace_dir "$D" --force --quiet
[ "$(head -c 4 "$D/tlmpi.h5" | od -An -c | tr -d ' ')" = '211HDF' ] || fail "--force did not replace"
ls "$D" | grep -q '\.tlmpi-' && fail "temporary file left"

# 6. usage errors: exit 2, one message
run 2 2 --trace_dir "$D" --bogus
grep -q "unknown option '--bogus'" "$W/log" || fail "bogus option"
[ "$(grep -c 'unknown option' "$W/log")" -eq 1 ] || fail "message printed once"
run 2 1 --trace_pattern "$D/rank.json"
run 1 2 --trace_dir "$W/nonexistent"
grep -q "cannot open trace folder" "$W/log" || { cat "$W/log"; fail "no folder"; }
run 0 2 --trace_dir "$D" --output "$W/no/such/dir/x.h5" --quiet
[ -s "$W/no/such/dir/x.h5" ] || fail "the output's folders must be created"

# 7. a file that is not a trace at all (no traceEvents): named
D=$W/notrace; good "$D"
echo '{"hello": 1}' > "$D/rank3_trace.json"
run 1 2 --trace_dir "$D"
grep -q "rank3_trace.json" "$W/log" || { cat "$W/log"; fail "no traceEvents"; }
no_output "$D"
echo "bad input handled: named, non-zero exit, no hang, no output"
