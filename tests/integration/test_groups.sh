#!/bin/bash
# Groups and completeness (issue 32, items 1, 9, 10): a collective whose
# traces name no group belongs to the world; an instance lacking ranks of
# its group is incomplete: no bandwidth, set aside from every statistic,
# no straggler or clock verdict from it, and report.md's headline says
# "N of M instances lack ranks (K of W ranks read)".  Jobs from
# tlmpi-synth --no_group_meta, whole and sampled (--profiled_ranks), with
# a late rank; --quiet prints nothing but errors; the DLRM job of
# ../shared with ranks 4-7 removed (skipped when ../shared is absent):
# every instance incomplete, no straggler, one line for the ac2g flows.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED="${TLM_SHARED_DIR:-$SRC/../shared}/traces"
W=${TLM_WORK_DIR:-$(mktemp -d)}/groups
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
PY=/usr/bin/python3
have_h5py=0
$PY -c 'import h5py, pandas' 2>/dev/null && have_h5py=1

synth() { # dir extra-options...
    local d=$1; shift
    "$TLMPI_SYNTH" --out "$d" --world_size 4 --tp 1 --steps 2 --layers 1 \
        --seed 7 --no_group_meta --straggler 1 --straggler_delay_us 400 \
        --quiet "$@" || fail "tlmpi-synth $*"
    rm -f "$d/ground_truth.json"
}
analyse() { # dir extra-options...: output in dir/out, stderr in dir.err
    local d=$1; shift
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$d" --allow_missing \
        --output "$d/out/t.h5" "$@" 2> "$d.err" || {
        cat "$d.err"; fail "tlmpi on $d"; }
}

# 1. the whole job, no group metadata: the world is the group, every
#    instance complete, the late rank named
synth "$W/all"
grep -q '"Process Group Name"\|"Group size"\|pg_config' "$W/all/rank0_trace.json" \
    && fail "--no_group_meta wrote group metadata"
grep -q '"world_size": 4' "$W/all/rank0_trace.json" || fail "world_size"
analyse "$W/all"
R=$W/all/out/report.md
grep -q "lack ranks" "$R" && fail "whole job: instances lack ranks"
grep -q '^Straggler: rank 1 ' "$R" || { cat "$R"; fail "whole job: straggler 1"; }

# 2. ranks 0 and 1 of the 4 profiled: every collective incomplete (the
#    sends 0 -> 1 are whole pairs), no straggler (rank 1 arrives last
#    among the two read, but the group waited for ranks not read), no
#    clock offset, no bandwidth
synth "$W/two" --profiled_ranks 0,1
[ "$(ls "$W/two" | grep -c trace)" -eq 2 ] || fail "--profiled_ranks"
grep -q '"world_size": 4' "$W/two/rank1_trace.json" || fail "sampled world"
analyse "$W/two"
R=$W/two/out/report.md
n=$(grep -o '^- \*\*[0-9]* of [0-9]* instances lack ranks (2 of 4 ranks read)\*\*' "$R" |
    sed 's/^- \*\*\([0-9]*\) of \([0-9]*\).*/\1 \2/')
set -- $n
[ $# -eq 2 ] && [ "$1" -gt 0 ] && [ "$1" -le "$2" ] ||
    { cat "$R"; fail "headline 'N of M instances lack ranks (2 of 4 ranks read)'"; }
grep -q '^No straggler named: no implicit-sync collective has every rank' "$R" ||
    { cat "$R"; fail "sampled: a straggler was named"; }
grep -q '^Straggler:' "$R" && fail "sampled: Straggler line"
grep '| M1 \|| M2 \|| M3 ' "$R" | grep -qv ' send ' &&
    { cat "$R"; fail "sampled: M1-M3 findings on incomplete instances"; }
grep -q '^Set aside, not in count nor in any figure above: '"$1"' instances ('"$1"' incomplete' "$R" ||
    { cat "$R"; fail "sampled: the set-aside sentence"; }
grep -q 'instances miss some ranks' "$W/two.err" || fail "sampled: the note"

# 3. --quiet: nothing but errors on stderr (warnings and notes above)
grep -q 'warning: 2 of 4 ranks have no trace' "$W/two.err" || fail "warning"
analyse "$W/two" --quiet --force
[ -s "$W/two.err" ] && { cat "$W/two.err"; fail "--quiet printed"; }

if [ $have_h5py = 1 ]; then
PYTHONPATH="$SRC/scripts" $PY - "$W/all/out/t.h5" "$W/two/out/t.h5" <<'PY' || fail "HDF5 checks"
import math, sys
import tlmpi_h5
a, b = tlmpi_h5.load(sys.argv[1]), tlmpi_h5.load(sys.argv[2])
ia, ib = a["collectives/instances"], b["collectives/instances"]
# the world is the group; p2p pairs stay 2 ranks wide
coll = ia[ia.coll != "send"]
assert (coll.group_size == 4).all(), coll.group_size
assert coll.flag_names.str.contains("group_world").all(), coll.flag_names
assert (coll.incomplete == 0).all() and (coll.set_aside == "").all()
assert coll.busbw_gbps.notna().all()
p2p = ib.coll == "send"
assert p2p.any() and (ib[p2p].incomplete == 0).all()
ib = ib[~p2p]
assert (ib.incomplete == 1).all() and (ib.set_aside == "incomplete").all()
assert ib.flag_names.str.startswith("incomplete").all(), ib.flag_names
assert ib.busbw_gbps.isna().all() and ib.algbw_gbps.isna().all()
sb = b["collectives/summary"]
sb = sb[sb.coll != "send"]
assert (sb["count"] == 0).all() and sb.n_incomplete.sum() == len(ib), sb
assert sb.latency_ns_mean.isna().all()
assert len(b["stragglers"]) == 0, b["stragglers"]
assert b.attrs["straggler_rank"] == -1 and a.attrs["straggler_rank"] == 1
ck = b["collectives/clock"]
assert (ck.offset_ns == 0).all() and (ck.n_samples == 0).all(), ck
assert ck.flag_names.str.contains("no_data").all()
assert tlmpi_h5.flag_names(64 | 512, tlmpi_h5.FLAG_BITS[
    "collectives/instances"]) == "latency_suspect|bit9"
print("hdf5 ok: %d instances, all incomplete" % len(ib))
PY
fi

# 4. tlmpi audit: the sampled run's set-aside instances counted in /runs
#    and /scaling/collectives; its reason keeps the missing ranks (they
#    changed the numbers), never a note
mkdir -p "$W/aud/two"
cp "$W/two"/rank*_trace.json "$W/aud/two/"
timeout 120 "$MPIEXEC" -n 2 "$TLMPI" audit "$W/aud" --output_dir "$W/aud_out" \
    --allow_missing --quiet 2> "$W/aud_err" || { cat "$W/aud_err"; fail "audit"; }
[ -s "$W/aud_err" ] && { cat "$W/aud_err"; fail "audit --quiet printed"; }
if [ $have_h5py = 1 ]; then
PYTHONPATH="$SRC/scripts" $PY - "$W/aud_out/audit.h5" <<'PY' || fail "audit.h5"
import sys
import tlmpi_h5
t = tlmpi_h5.load(sys.argv[1])
r = t["runs"].iloc[0]
assert r.status == "ok", r
assert 0 < r.incomplete < r.instances, r
assert "note:" not in r.reason and "ranks have no trace" in r.reason, r.reason
c = t["scaling/collectives"]
c = c[c.coll != "send"]
assert (c["count"] == 0).all() and c.n_incomplete.sum() == r.incomplete, c
assert c.busbw_gbps.isna().all()
print("audit ok")
PY
fi

# 5. the DLRM job of ../shared with ranks 4-7 removed
D=$SHARED/dlrm_v100_8rank
if [ ! -d "$D" ]; then
    echo "ok (../shared absent: the DLRM job skipped)"
    exit 0
fi
mkdir -p "$W/dlrm"
cp "$D"/worker[0-3]_*.json "$W/dlrm/"
analyse "$W/dlrm"
R=$W/dlrm/out/report.md
grep -q '^- \*\*8 of 8 instances lack ranks (4 of 8 ranks read)\*\*' "$R" ||
    { cat "$R"; fail "DLRM: headline"; }
grep -q '^No straggler named' "$R" || { cat "$R"; fail "DLRM: straggler"; }
grep -q '| M1 \|| M2 ' "$R" && { cat "$R"; fail "DLRM: M1/M2 on partial data"; }
grep -q 'unknown/stream84 |  | alltoall |  | 24.0 KiB | 0 | 2 | 0.000 | - | - | - |' "$R" ||
    { cat "$R"; fail "DLRM: the 24 KiB all-to-all"; }
[ "$(grep -c 'ac2g' "$W/dlrm.err")" -eq 1 ] || { cat "$W/dlrm.err"; fail "ac2g: one line"; }
grep 'ac2g' "$W/dlrm.err" | grep -q 'worker\|\.json' && fail "ac2g: paths listed"
grep -q 'ac2g flows pointing to no GPU event or missing a half, in 4 traces; [0-9]* GPU events are left unlinked' "$W/dlrm.err" ||
    { cat "$W/dlrm.err"; fail "ac2g: count and consequence"; }
echo "ok: groups, completeness, one rule for flagged instances, one line per warning"
