#!/bin/bash
# tlmpi-synth end to end: each schema, plain and gzip, validated with
# Python's json module (event counts, 3-decimal timestamps, CPU nesting per
# thread, non-overlapping GPU streams, ac2g pairs, every kept collective
# kernel at its ground-truth local start with the schema's keys,
# min member duration == C), the demo invocation, clipping, --ranks,
# determinism, usage errors, and `tlmpi inspect` on the outputs.
set -u
SYNTH="${TLMPI_SYNTH:?TLMPI_SYNTH not set}"
TLMPI="${TLMPI:-}"
PY=/usr/bin/python3
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
if [ ! -x "$PY" ]; then
    echo "skip: $PY not found"
    exit 77
fi

cat > "$WORK/check.py" <<'PYEOF'
import collections, gzip, json, re, sys

d = sys.argv[1]
g = json.load(open(d + "/ground_truth.json"))
bad = []
def err(*a):
    bad.append(" ".join(str(x) for x in a))

for k in ("generator", "params", "base_time_ns", "pgs", "ranks",
          "n_collectives", "collectives"):
    if k not in g:
        err("ground truth lacks", k)
p = g["params"]
for k in ("world_size", "steps", "layers", "tp", "dp", "schema", "seed",
          "gpus_per_node", "straggler_rank", "straggler_delay_ns"):
    if k not in p:
        err("params lacks", k)
schema = p["schema"]
if len(g["ranks"]) != p["world_size"]:
    err("ranks", len(g["ranks"]))
if len(g["collectives"]) != g["n_collectives"]:
    err("n_collectives")
for c in g["collectives"]:
    for k in ("pg_name", "ranks", "name", "dtype", "in_nelems", "out_nelems",
              "bytes", "seq", "comm_ns", "skew_ns", "members"):
        if k not in c:
            err("collective lacks", k)
    durs = [m["end_ns"] - m["start_ns"] for m in c["members"]]
    if min(durs) != c["comm_ns"]:
        err("min dur != C", c["id"])
    st = [m["start_ns"] for m in c["members"]]
    if max(st) - min(st) != c["skew_ns"]:
        err("skew", c["id"])
    if [m["rank"] for m in c["members"]] != c["ranks"]:
        err("member ranks", c["id"])
    for m in c["members"]:
        off = g["ranks"][m["rank"]]["clock_offset_ns"]
        if m["local_start_ns"] != m["start_ns"] + off:
            err("local start", c["id"])

ts_re = re.compile(r'"(ts|dur)": (-?[0-9.]+)')
written = 0
for rk in g["ranks"]:
    if not rk["written"]:
        continue
    written += 1
    fn = d + "/" + rk["trace_file"]
    raw = (gzip.open(fn) if fn.endswith(".gz") else open(fn, "rb")).read()
    raw = raw.decode()
    for m in ts_re.finditer(raw):
        v = m.group(2)
        if "." not in v or len(v.split(".")[1]) != 3:
            err("timestamp format", m.group(0))
            break
    t = json.loads(raw)
    ev = t["traceEvents"]
    if len(ev) != rk["n_events"]:
        err("events", rk["rank"], len(ev), rk["n_events"])
    if len(raw.encode()) != rk["n_bytes"]:
        err("bytes", rk["rank"])
    di = t["distributedInfo"]
    if di["rank"] != rk["rank"] or di["world_size"] != p["world_size"]:
        err("distributedInfo")
    pgc = di.get("pg_config")
    if pgc is None or len(pgc) != len(g["pgs"]):
        err("pg_config presence")
    else:
        for i, (pc, pg) in enumerate(zip(pgc, g["pgs"])):
            if pc["ranks"] != pg["ranks"] or pc["pg_size"] != pg["pg_size"]:
                err("pg_config ranks", i)
            # schema 1: the Apr 2024 form (uid, no pg_desc)
            if schema == 1 and (pc.get("uid") != i or "pg_desc" in pc):
                err("pg_config schema 1 form", i)
            if schema >= 2 and ("uid" in pc or "pg_desc" not in pc):
                err("pg_config schema 2/3 form", i)
    for k in ("deviceProperties", "schemaVersion", "baseTimeNanoseconds",
              "traceName"):
        if k not in t:
            err("top level lacks", k)
    lanes = collections.defaultdict(list)
    for e in ev:
        if e["ph"] != "X":
            continue
        gpu = e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset")
        if e["cat"] == "gpu_user_annotation":
            continue
        lanes[(e["pid"], e["tid"], gpu)].append(
            (round(e["ts"] * 1000), round(e["dur"] * 1000), e["name"]))
    for (pid, tid, gpu), L in lanes.items():
        L.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, du, name in L:
            e_ = s + du
            if gpu:
                if stack and s < stack[-1]:
                    err("stream overlap", pid, tid, name[:40])
                    break
                stack = [e_]
                continue
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and e_ > stack[-1]:
                err("CPU nesting", pid, tid, name[:40])
                break
            stack.append(e_)
    if not rk["clipped"]:
        fs = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
        ff = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
        if fs != ff:
            err("ac2g pairs", rk["rank"])
    kern = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") == "kernel" and e["name"].startswith("ncclDevKernel"):
            kern[round(e["ts"] * 1000)].append(e)
    kept = 0
    for c in g["collectives"]:
        for i, m in enumerate(c["members"]):
            if m["rank"] != rk["rank"]:
                continue
            ks = [k for k in kern.get(m["local_start_ns"], [])
                  if round(k["dur"] * 1000) == m["dur_ns"]]
            if not m["kept"]:
                if ks:
                    err("clipped collective present", c["id"])
                continue
            kept += 1
            if not ks:
                err("missing kernel", rk["rank"], c["id"])
                continue
            a = ks[0]["args"]
            if schema == 1:
                if "Collective name" in a or a["External id"] != a["correlation"]:
                    err("schema 1 kernel args", c["id"])
            else:
                want = c["name"] if c["name"] != "send" else ("send", "recv")[i]
                if a.get("Collective name") != want:
                    err("Collective name", c["id"])
                if a.get("Process Group Name") != c["pg_name"]:
                    err("Process Group Name", c["id"])
                if ("Seq" in a) != (schema == 3):
                    err("Seq presence", c["id"])
                if schema == 3 and a["Seq"] != c["seq"]:
                    err("Seq value", c["id"])
    if kept != rk["n_colls_kept"]:
        err("kept", rk["rank"], kept, rk["n_colls_kept"])
if written == 0:
    err("no trace written")
for b in bad[:20]:
    print("  ", b)
sys.exit(1 if bad else 0)
PYEOF

inspect_ok() { # inspect_ok FILE N_EVENTS
    [ -z "$TLMPI" ] && return 0
    "$TLMPI" inspect "$1" > "$WORK/inspect.txt" 2>&1 &&
        grep -q "events: $2\$" "$WORK/inspect.txt"
}
n_events() { # n_events DIR RANK
    "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]+"/ground_truth.json"))["ranks"][int(sys.argv[2])]["n_events"])' "$1" "$2"
}

for schema in 1 2 3; do
    for gz in 0 1; do
        D="$WORK/s${schema}_gz$gz"
        args=(--out "$D" --world_size 4 --tp 2 --steps 2 --layers 2
              --hidden 512 --heads 8 --seq_len 512 --vocab 2048
              --gpus_per_node 2 --schema "$schema" --seed $((schema + 10))
              --jitter_us 15 --clock_offset_us 400 --quiet)
        [ "$gz" = 1 ] && args+=(--gzip --gzip_level 3)
        check "schema $schema gzip $gz: runs" "$SYNTH" "${args[@]}"
        check "schema $schema gzip $gz: valid, consistent" \
            "$PY" "$WORK/check.py" "$D"
        f="$D/rank1_trace.json"
        [ "$gz" = 1 ] && f="$f.gz"
        check "schema $schema gzip $gz: tlmpi inspect" \
            inspect_ok "$f" "$(n_events "$D" 1)"
    done
done

# the demo invocation
D="$WORK/demo"
check "demo runs" "$SYNTH" --out "$D" --world_size 8 --tp 4 --steps 3 \
    --layers 4 --seed 7 --gzip --gpus_per_node 4 --node_offset_us 0,250 \
    --straggler 5 --straggler_delay_us 800
check "demo: 8 traces" test "$(ls "$D"/rank*_trace.json.gz | wc -l)" = 8
check "demo valid, consistent" "$PY" "$WORK/check.py" "$D"
check "demo: node 1 offset 250 us" "$PY" -c '
import json, sys
g = json.load(open(sys.argv[1] + "/ground_truth.json"))
assert [r["clock_offset_ns"] for r in g["ranks"]] == [0] * 4 + [250000] * 4
assert g["params"]["straggler_rank"] == 5
assert g["params"]["straggler_delay_ns"] == 800000
names = {c["name"] for c in g["collectives"]}
want = {"allreduce", "_reduce_scatter_base", "_allgather_base",
        "broadcast", "all_to_all", "all_to_allv", "send"}
assert want <= names, names
' "$D"
check "demo: tlmpi inspect rank 5" \
    inspect_ok "$D/rank5_trace.json.gz" "$(n_events "$D" 5)"

# determinism
D2="$WORK/demo2"
"$SYNTH" --out "$D2" --world_size 8 --tp 4 --steps 3 --layers 4 --seed 7 \
    --gzip --gpus_per_node 4 --node_offset_us 0,250 --straggler 5 \
    --straggler_delay_us 800 --quiet
check "same seed, same bytes" cmp -s "$D/rank3_trace.json.gz" \
    "$D2/rank3_trace.json.gz"
check "same seed, same truth" cmp -s "$D/ground_truth.json" \
    "$D2/ground_truth.json"

# clipping and --ranks
D="$WORK/clip"
check "clip runs" "$SYNTH" --out "$D" --world_size 4 --tp 2 --steps 2 \
    --layers 2 --hidden 512 --heads 8 --seq_len 512 --vocab 2048 \
    --clip_first 1:2 --clip_last 1:3 --clip_last 2:1 --ranks 1,2 --quiet
check "clip: only ranks 1 and 2 written" test \
    "$(ls "$D" | grep -c trace)" = 2
check "clip valid, consistent" "$PY" "$WORK/check.py" "$D"
check "clip: kept counts" "$PY" -c '
import json, sys
g = json.load(open(sys.argv[1] + "/ground_truth.json"))
r = g["ranks"]
assert r[1]["n_colls_kept"] == r[1]["n_colls"] - 5
assert r[2]["n_colls_kept"] == r[2]["n_colls"] - 1
assert r[0]["n_colls_kept"] == r[0]["n_colls"] and not r[0]["written"]
' "$D"

# target size
D="$WORK/size"
check "target_size runs" "$SYNTH" --out "$D" --world_size 2 --tp 2 \
    --target_size 4M --ranks 0 --quiet
check "target_size about 4 MB" "$PY" -c '
import os, sys
n = os.path.getsize(sys.argv[1] + "/rank0_trace.json")
assert 3900000 <= n <= 4400000, n
' "$D"

# usage
check "--help exit 0, documents --ranks" \
    bash -c '"$1" --help | grep -q -- "--ranks"' _ "$SYNTH"
"$SYNTH" --out "$WORK/bad" --tp 3 > /dev/null 2>&1
check "bad --tp exits 2" test $? = 2
"$SYNTH" --out "$WORK/bad" --bogus 1 > /dev/null 2>&1
check "unknown option exits 2" test $? = 2
"$SYNTH" --out "$WORK/bad" --clip_first 1 > /dev/null 2>&1
check "bad --clip_first exits 2" test $? = 2
"$SYNTH" > /dev/null 2>&1
check "missing --out exits 2" test $? = 2

exit $fail
