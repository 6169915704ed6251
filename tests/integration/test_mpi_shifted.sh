#!/bin/bash
# Shifted clocks (issue 20, timestamps): every rank's trace of a synthetic
# 8-rank job is shifted by its own constant (+-10^10 us, a clock 2.5*10^9
# us behind that makes every ts negative, ts near +-2^53 ns), exactly (on
# the decimal text, in integers).  tlmpi under mpirun -n 1, 2, 4 must give
# the unshifted job's latency, corrected skew, waits and bandwidth, member
# durations, and clock offsets that differ from the unshifted ones by
# exactly the shift differences.  Send/recv pairs are left out of the
# comparison: without a sequence number in the trace they are aligned by
# their end times, which assumes clocks that agree within the gaps between
# collectives (docs/metrics-collectives.md, limitations).
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/shifted
rm -rf "$W"; mkdir -p "$W"

# shift of each rank in ns (rank 0 unshifted; the synthetic ts start at
# 2*10^9 us): +10^10 us, -10^10 us, ts from 2^53 ns up, every ts negative
# (2.5*10^9 us behind), ts around -2^53 ns, +10^13 us, odd nanoseconds
SHIFTS="0 10000000000000 -10000000000000 9005199254740992 \
-2500000000000 -9009199254740992 10000000000000000 -13"

"$TLMPI_SYNTH" --out "$W/orig" --world_size 8 --tp 2 --steps 2 --layers 2 \
    --seed 11 --straggler 5 --straggler_delay_us 300 --jitter_us 20 \
    --node_offset_us 0,150 --gpus_per_node 4 --quiet
mkdir -p "$W/shift"
/usr/bin/python3 - "$W/orig" "$W/shift" $SHIFTS <<'PY'
# "ts": D[.ddd] microseconds -> integer ns + shift -> the same text form
import re, sys
src, dst, shifts = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
pat = re.compile(r'"ts": (-?)(\d+)(?:\.(\d{1,3}))?')
for r, sh in enumerate(shifts):
    def sub(m):
        ns = int(m.group(2)) * 1000 + int((m.group(3) or "").ljust(3, "0"))
        ns = (-ns if m.group(1) else ns) + sh
        sign = "-" if ns < 0 else ""
        return '"ts": %s%d.%03d' % (sign, abs(ns) // 1000, abs(ns) % 1000)
    name = "rank%d_trace.json" % r
    text = open("%s/%s" % (src, name)).read()
    out, n = pat.subn(sub, text)
    assert n > 1000, (name, n)
    open("%s/%s" % (dst, name), "w").write(out)
PY

for n in 1 2 4; do
    for j in orig shift; do
        # every rank has its own shift, so its own clock: one GPU per
        # node (the traces' deviceProperties say 4 and would make ranks
        # 0-3 one clock domain)
        "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$W/$j" \
            --output "$W/$j$n.h5" --output_dir "$W/${j}_out$n" --quiet \
            --gpus_per_node 1
    done
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W/orig$n.h5" \
        "$W/shift$n.h5" "-n $n" $SHIFTS <<'PY'
import sys
import tlmpi_h5
a, b = tlmpi_h5.load(sys.argv[1]), tlmpi_h5.load(sys.argv[2])
label, shifts = sys.argv[3], [int(s) for s in sys.argv[4:]]
bad = []
key = ["match_key", "seq"]
def seq_ided(i):  # instances identified by the trace's sequence numbers
    return i[i.seq_src.isin(["trace", "concrete"])]
ia = seq_ided(a["collectives/instances"]).sort_values(key) \
    .reset_index(drop=True)
ib = seq_ided(b["collectives/instances"]).sort_values(key) \
    .reset_index(drop=True)
if len(ia) != len(ib) or len(ia) < 50:
    bad.append("instance count %d vs %d" % (len(ia), len(ib)))
else:
    for col in key + ["n_members", "bytes", "comm_latency_ns", "max_dur_ns",
                      "start_skew_corr_ns", "end_skew_corr_ns",
                      "wait_sum_corr_ns", "wall_corr_ns", "algbw_gbps",
                      "busbw_gbps", "first_rank_corr", "last_rank_corr",
                      "incomplete"]:
        d = (ia[col] != ib[col]) & ~(ia[col].isna() & ib[col].isna())
        if d.any():
            bad.append("%s differs in %d instances" % (col, int(d.sum())))
ca = a["collectives/clock"].set_index("trace_rank")
cb = b["collectives/clock"].set_index("trace_rank")
for r, sh in enumerate(shifts):
    got = int(cb.loc[r].offset_ns) - int(ca.loc[r].offset_ns)
    if got != sh - shifts[0]:
        bad.append("rank %d offset moved by %d, shifted by %d"
                   % (r, got, sh - shifts[0]))
ta = a["traces"].set_index("trace_rank")
tb = b["traces"].set_index("trace_rank")
for r, sh in enumerate(shifts):
    if int(tb.loc[r].clock_offset_ns) - int(ta.loc[r].clock_offset_ns) \
            != sh - shifts[0]:
        bad.append("/traces clock_offset_ns of rank %d" % r)
def p2p_out(p):
    return p[~p.coll.isin(["send", "recv"])].sort_values(key + ["trace_rank"])
pa, pb = p2p_out(a["collectives/per_rank"]), p2p_out(b["collectives/per_rank"])
if len(pa) != len(pb):
    bad.append("per_rank rows %d vs %d" % (len(pa), len(pb)))
else:
    sh = pa.trace_rank.map(lambda r: shifts[r]).values
    for col in ["start_ns", "end_ns"]:
        if ((pb[col].values - pa[col].values) != sh).any():
            bad.append("per_rank %s not moved by the shift" % col)
    for col in ["dur_ns", "wait_corr_ns"]:
        if (pb[col].values != pa[col].values).any():
            bad.append("per_rank %s differs" % col)
if bad:
    print("%s: shifted job differs:\n  %s" % (label, "\n  ".join(bad)))
    sys.exit(1)
print("%s: shifted job ok: %d instances, offsets moved by the shifts"
      % (label, len(ia)))
PY
done
echo "shifted clocks give identical latency and skew under -n 1, 2, 4"
