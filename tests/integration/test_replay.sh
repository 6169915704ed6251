#!/bin/bash
# tlmpi replay (docs/replay.md) and its runner scripts/tlmpi_replay.py:
#  - a tlmpi-synth trace: the four files, SHA256SUMS that sha256sum
#    accepts, the runner byte-identical to scripts/, --force, --bundle
#    (fixed member names, same bytes twice), --top, --replay_filter,
#    usage errors;
#  - a crafted trace (tests/data/replay/make_hostile.py): exit 0, every
#    hostile op with its reason code, the good ops ok, no file outside
#    the output folder, no byte of metadata, stacks or thread names in it;
#  - the runner under /usr/bin/python3 -I --device cpu (skipped without
#    torch): the good ops replay ok, the CSV's columns, tampered files
#    refused before torch is imported (python -X importtime);
#  - the shared traces (when present): qwen_h100 at least 28 of its 35
#    unique ops ok on CPU (TraceLens's own count, spec replay.md §9),
#    resnet_mi300 at least 90; TraceLens's IR with 4-key tensors.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
SHARED="${TLM_SHARED_DIR:-$SRC/../shared}"
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
status_of() { # status_of IR OPNAME -> the first op's status
    "$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(next(o["status"] for o in d["ops"] if o["op_name"]==sys.argv[2]))' "$1" "$2"
}

# ---------------------------------------------------------------- synth
T=""
if [ -n "${TLMPI_SYNTH:-}" ] && [ -x "$TLMPI_SYNTH" ]; then
    "$TLMPI_SYNTH" --out "$WORK/syn" --world_size 2 --tp 1 --steps 1 \
        --layers 1 --hidden 64 --heads 4 --seq_len 16 --vocab 128 \
        > /dev/null 2>&1
    T=$(ls "$WORK"/syn/*.json 2>/dev/null | grep -v ground_truth | head -n 1)
fi
if [ -n "$T" ]; then
    O="$WORK/out"
    "$TLMPI" replay "$T" --output_dir "$O" 2> "$WORK/err"
    check "synth: exit 0" test $? -eq 0
    for f in replay_events.json tlmpi_replay.py SHA256SUMS README.md; do
        check "synth: $f written" test -s "$O/$f"
    done
    check "synth: runner byte-identical" cmp -s "$O/tlmpi_replay.py" \
        "$SRC/scripts/tlmpi_replay.py"
    check "synth: SHA256SUMS verifies" \
        sh -c "cd '$O' && sha256sum -c --quiet SHA256SUMS"
    check "synth: summary on stderr" grep -q "ops, .* ok in" "$WORK/err"
    check "synth: some op ok" grep -q '"status":"ok"' "$O/replay_events.json"
    check "synth: format" grep -q '^{"format":"tlmpi.replay.v1","ops":\[' \
        "$O/replay_events.json"
    cp "$O/replay_events.json" "$WORK/before.json"
    "$TLMPI" replay "$T" --output_dir "$O" 2> "$WORK/err"
    check "synth: existing outputs refused" test $? -eq 1
    check "synth: says --force" grep -q -- "--force" "$WORK/err"
    check "synth: outputs kept" cmp -s "$O/replay_events.json" \
        "$WORK/before.json"
    "$TLMPI" replay "$T" --output_dir "$O" --force --quiet \
        --bundle "$WORK/b1.tar.gz"
    check "synth: --force and --bundle" test $? -eq 0
    check "synth: bundle members fixed" test "$(tar tzf "$WORK/b1.tar.gz" \
        | tr '\n' ' ')" = "replay_events.json tlmpi_replay.py README.md SHA256SUMS "
    mkdir -p "$WORK/x"
    tar xzf "$WORK/b1.tar.gz" -C "$WORK/x"
    for f in replay_events.json tlmpi_replay.py README.md SHA256SUMS; do
        check "synth: bundle $f = folder's" cmp -s "$WORK/x/$f" "$O/$f"
    done
    "$TLMPI" replay "$T" --output_dir "$WORK/out2" --quiet \
        --bundle "$WORK/b2.tar.gz"
    check "synth: bundle deterministic" cmp -s "$WORK/b1.tar.gz" \
        "$WORK/b2.tar.gz"
    "$TLMPI" replay "$T" --output_dir "$WORK/top" --top 2 --quiet
    check "synth: --top 2" test "$(grep -c '"op_name"' \
        "$WORK/top/replay_events.json")" -eq 2
    "$TLMPI" replay "$T" --output_dir "$WORK/flt" --quiet \
        --replay_filter '^aten::(mm|addmm)$'
    check "synth: --replay_filter" test -z "$(grep -o '"op_name":"[^"]*"' \
        "$WORK/flt/replay_events.json" | grep -v -e aten::mm -e aten::addmm)"
    "$TLMPI" replay "$T" --output_dir "$WORK/u1" --replay_filter '(' \
        2> "$WORK/err"
    check "usage: bad regex exit 2" test $? -eq 2
    "$TLMPI" replay "$T" --output_dir "$WORK/u2" --replay_namespaces \
        aten,c10d 2> "$WORK/err"
    check "usage: c10d namespace refused" test $? -eq 2
    "$TLMPI" replay "$T" 2> "$WORK/err"
    check "usage: no --output_dir exit 2" test $? -eq 2
    "$TLMPI" replay "$T" --output_dir "$WORK/u3" --top 0 2> "$WORK/err"
    check "usage: --top 0 exit 2" test $? -eq 2
    check "usage: nothing written" test ! -e "$WORK/u1/replay_events.json"
else
    echo "skip synth part (no tlmpi-synth)"
fi

# ---------------------------------------------------------------- hostile
H="$WORK/hostile.json"
"$PY" "$SRC/tests/data/replay/make_hostile.py" "$H"
mkdir -p "$WORK/cwd"
HO="$WORK/hout"
(cd "$WORK/cwd" && "$TLMPI" replay "$H" --output_dir "$HO" \
    --bundle "$HO/bundle.tar.gz" 2> "$WORK/herr")
check "hostile: exit 0" test $? -eq 0
check "hostile: nothing in the working folder" test -z "$(ls -A "$WORK/cwd")"
check "hostile: only the outputs in the folder" test "$(ls "$HO" | tr '\n' ' ')" \
    = "README.md SHA256SUMS bundle.tar.gz replay_events.json tlmpi_replay.py "
check "hostile: no X created" test ! -e "$WORK/X" -a ! -e X
check "hostile: no secret in the folder" test -z "$(grep -rl SECRET "$HO")"
check "hostile: no secret in the bundle" sh -c "! gzip -dc '$HO/bundle.tar.gz' | grep -q SECRET"
check "hostile: no kernel or python names" sh -c "! grep -q -e kernel_HF -e secret/path '$HO/replay_events.json'"
IR="$HO/replay_events.json"
while read -r op want; do
    got=$(status_of "$IR" "$op")
    check "hostile: $op -> $want" test "$got" = "$want"
done <<'EOF'
aten::mm ok
aten::add ok
builtins::eval denied_op
os::system denied_op
aten::save denied_op
c10d::allreduce_ denied_op
aten::__init__ bad_op_name
../x::y bad_op_name
aten::mul bad_concrete_input
aten::div nonfinite_scalar
aten::sub bad_concrete_input
aten::gelu unknown_type
aten::relu tensor_too_large
aten::neg bad_strides
aten::sin length_mismatch
EOF
check "hostile: vllm not allowed by default" \
    test "$(status_of "$IR" vllm::rms_norm)" = namespace_not_allowed
"$TLMPI" replay "$H" --output_dir "$WORK/ns" --quiet \
    --replay_namespaces aten,vllm
check "hostile: --replay_namespaces aten,vllm: vllm op ok" \
    test "$(status_of "$WORK/ns/replay_events.json" vllm::rms_norm)" = ok
"$TLMPI" replay "$H" --output_dir "$WORK/ns2" --quiet \
    --replay_namespaces aten,builtins 2> "$WORK/err"
check "hostile: --replay_namespaces builtins refused" test $? -eq 2
check "hostile: injected name is bad_op_name" \
    test "$(status_of "$IR" 'aten::_ops; import os')" = bad_op_name
check "hostile: stderr lists the rejected ops" \
    grep -q "uid .* os::system: denied_op" "$WORK/herr"

# ---------------------------------------------------------------- runner
if ! "$PY" -I -c 'import torch' 2> /dev/null; then
    echo "skip runner part (no torch for $PY)"
    exit "$fail"
fi
R="$HO/tlmpi_replay.py"
(cd "$WORK/cwd" && "$PY" -I "$R" "$IR" --device cpu --warmup 1 --iters 2 \
    --output "$WORK/h.csv" --tracelens_ir "$WORK/h_tl.json" \
    2> "$WORK/rerr")
check "runner: exit 0 (every ok op ran)" test $? -eq 0
check "runner: nothing in the working folder" test -z "$(ls -A "$WORK/cwd")"
check "runner: no X created" test ! -e "$WORK/X" -a ! -e "$WORK/cwd/X"
check "runner: CSV header" test "$(head -n 1 "$WORK/h.csv")" = \
    "op_name,uid,overload,status,replay_us_mean,trace_kernel_us_mean,ratio"
check "runner: mm ok with a time" grep -q '^aten::mm,3,default,ok,[0-9.]*,5.0,[0-9.]*$' "$WORK/h.csv"
check "runner: add ok (Tensor overload)" grep -q '^aten::add,7,Tensor,ok,' "$WORK/h.csv"
check "runner: hostile rows keep their reason" grep -q '^os::system,15,,denied_op,,8.0,$' "$WORK/h.csv"
check "runner: 17 rows" test "$(tail -n +2 "$WORK/h.csv" | wc -l)" -eq 17
check "runner: CSV cells cannot be formulas" sh -c "! grep -q '^[=+@-]' '$WORK/h.csv'"
"$PY" - "$WORK/h_tl.json" <<'PYEOF'
import json, sys
ir = json.load(open(sys.argv[1]))
assert [e["op_name"] for e in ir] == ["aten::add", "aten::mm"] or \
       sorted(e["op_name"] for e in ir) == ["aten::add", "aten::mm"], ir
for e in ir:
    for a in e["replay_ir"]["list_pos_args"] + e["replay_ir"]["list_kwargs"]:
        assert set(a) == {"arg_name", "arg_type", "value"}, a
        if isinstance(a["value"], dict):
            assert list(a["value"]) == ["shape", "dtype", "strides", "init"]
PYEOF
check "runner: TraceLens IR (4-key tensors)" test $? -eq 0
"$PY" -I "$R" "$WORK/ns/replay_events.json" --device cpu --iters 1 \
    --op-filter vllm --output "$WORK/ns.csv" 2> /dev/null
check "runner: an ok op outside aten is not run (exit 0)" test $? -eq 0
check "runner: ... and says namespace_not_allowed" grep -q \
    '^vllm::rms_norm,[0-9]*,,namespace_not_allowed,' "$WORK/ns.csv"
"$PY" -I "$R" "$IR" --device cpu --iters 1 --op-filter aten::mm \
    --op-limit 1 --output "$WORK/lim.csv" 2> /dev/null
check "runner: --op-filter/--op-limit" test "$(tail -n +2 "$WORK/lim.csv" \
    | cut -d, -f1)" = "aten::mm"

# tampered files: refused, torch never imported
tamper() { # tamper NAME PYTHON-EXPR-ON-d
    "$PY" - "$IR" "$WORK/t_$1.json" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])  # test-side edit of the fixture, never the runner
s = d if isinstance(d, str) else json.dumps(d)
open(sys.argv[2], "w").write(s)
PYEOF
    "$PY" -I -X importtime "$R" "$WORK/t_$1.json" --device cpu \
        --output "$WORK/t_$1.csv" 2> "$WORK/t_$1.err"
    local rc=$?
    check "tampered $1: exit 2" test $rc -eq 2
    check "tampered $1: says refused" grep -q "refused" "$WORK/t_$1.err"
    check "tampered $1: torch not imported" sh -c "! grep -q '| torch\$' '$WORK/t_$1.err'"
    check "tampered $1: no CSV" test ! -e "$WORK/t_$1.csv"
}
tamper name 'd["ops"][0]["op_name"] = "builtins::eval"; d["ops"][0]["status"] = "ok"'
tamper name2 'next(o for o in d["ops"] if o["op_name"] == "aten::mm")["op_name"] = "aten::mm; import os"'
tamper denied 'next(o for o in d["ops"] if o["op_name"] == "aten::mm")["op_name"] = "aten::save"'
tamper extra_key 'd["ops"][0]["code"] = "print(1)"'
tamper extra_top 'd["hook"] = 1'
tamper format 'd["format"] = "tlmpi.replay.v0"'
tamper deep 'd = "{\"format\":\"tlmpi.replay.v1\",\"ops\":[" + "[" * 40 + "]" * 40 + "]}"'
tamper huge 'o = next(o for o in d["ops"] if o["op_name"] == "aten::mm"); o["args"]["Input Dims"][0] = [1000000, 1000000]; o["args"]["Input Strides"][0] = [1000000, 1]'
tamper nan 'd = json.dumps(d).replace("\"trace_kernel_us_mean\": 5.0", "\"trace_kernel_us_mean\": NaN")'
tamper str_type 'o = next(o for o in d["ops"] if o["op_name"] == "aten::mm"); o["args"]["Input type"][0] = "str"'
tamper tensor_key 'o = next(o for o in d["ops"] if o["op_name"] == "aten::mm"); o["args"]["extra"] = 1'
tamper status 'd["ops"][0]["status"] = "ok; rm -rf /"'

# ---------------------------------------------------------------- shared
if [ ! -d "$SHARED/traces" ]; then
    echo "skip shared traces (no $SHARED/traces)"
    exit "$fail"
fi
shared() { # shared NAME TRACE MIN_OK
    local n=$1 tr=$2 min=$3
    [ -f "$tr" ] || { echo "skip $n (absent)"; return; }
    "$TLMPI" replay "$tr" --output_dir "$WORK/$n" --quiet
    check "$n: tlmpi replay exit 0" test $? -eq 0
    "$PY" -I "$WORK/$n/tlmpi_replay.py" "$WORK/$n/replay_events.json" \
        --device cpu --warmup 0 --iters 1 --output "$WORK/$n.csv" \
        --tracelens_ir "$WORK/${n}_tl.json" 2> "$WORK/$n.err"
    local rc=$?
    check "$n: runner exit 0 or 1 (no crash)" test $rc -le 1
    local ok
    ok=$(tail -n +2 "$WORK/$n.csv" | cut -d, -f4 | grep -cx ok)
    echo "     $n: $ok ok of $(tail -n +2 "$WORK/$n.csv" | wc -l);" \
        "others: $(tail -n +2 "$WORK/$n.csv" | cut -d, -f1,4 | grep -v ',ok$' \
        | sort | uniq -c | tr '\n' ';')"
    check "$n: at least $min ops replay ok on CPU" test "$ok" -ge "$min"
    check "$n: statuses known" test -z "$(tail -n +2 "$WORK/$n.csv" | \
        cut -d, -f4 | grep -vx -e ok -e no_such_operator -e \
        no_matching_schema -e call_failed -e build_failed -e \
        empty_tensor_list)"
}
shared qwen "$SHARED/traces/qwen_h100/trace.json.gz" 28
shared resnet "$SHARED/traces/resnet_mi300/resnet_act_checkpoint.json.gz" 90
exit "$fail"
