#!/bin/bash
# First contact (issue 21): progress and the phase times.
#  - --progress: plain, well-formed lines on stderr (rank 0 only): the
#    read counts ending at all traces and all ranks, a "done" line for each
#    phase before publish, then the summary
#  - --quiet: nothing at all on stdout or stderr
#  - neither, stderr not a terminal: no progress lines, only the summary
#  - on a terminal (script(1)): the progress line, when the run lasts long
#    enough to show it, is rewritten in place and erased before anything
#    else prints (mpi_test_progress checks the line itself)
#  - the summary's parts (init + every phase) add up to its total
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/progress
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
"$TLMPI_SYNTH" --out "$W/job" --world_size 4 --seed 5 --gzip > /dev/null \
    || fail "tlmpi-synth"
PHASES="setup read check collectives timeline tracelens steps merge write publish"

run() { # NPROCS ARGS...; stdout in $W/out, stderr in $W/err
    local n=$1; shift
    timeout 120 "$MPIEXEC" -n "$n" "$TLMPI" --trace_dir "$W/job" --force "$@" \
        > "$W/out" 2> "$W/err" || { cat "$W/err"; fail "exit $? (-n $n $*)"; }
}

# The summary: "tlmpi: wrote F (N traces, M collective instances) in T s:
# init a + setup b + ... + publish h"; the parts add up to T.
check_summary() { # label
    local line
    line=$(grep '^tlmpi: wrote ' "$W/err")
    [ "$(echo "$line" | wc -l)" -eq 1 ] || fail "$1: one summary line expected"
    echo "$line" | /usr/bin/python3 -c '
import re, sys
line = sys.stdin.read().strip()
m = re.fullmatch(r"tlmpi: wrote \S+ \(4 traces, \d+ collective instances\) "
                 r"in (\d+\.\d\d) s: (.*)", line)
if not m:
    sys.exit("summary not well-formed: " + line)
total = float(m.group(1))
parts = m.group(2).split(" + ")
names = [p.split(" ")[0] for p in parts]
want = ["init"] + sys.argv[1].split()
if names != want:
    sys.exit("parts %s, want %s" % (names, want))
vals = []
for p in parts:
    if not re.fullmatch(r"[a-z]+ \d+\.\d\d", p):
        sys.exit("part not well-formed: " + p)
    vals.append(float(p.split(" ")[1]))
# each value is rounded to 0.01: the sum is within 0.005 per term
tol = 0.005 * (len(vals) + 1) + 1e-9
if abs(sum(vals) - total) > tol:
    sys.exit("parts add up to %.2f, total %.2f" % (sum(vals), total))
' "$PHASES" || fail "$1: $line"
}

# ---- --progress: plain lines
for n in 1 4; do
    run $n --progress
    [ ! -s "$W/out" ] || fail "--progress wrote on stdout"
    grep -q $'\r' "$W/err" && fail "-n $n --progress: carriage return in lines"
    grep '^tlmpi: \[' "$W/err" > "$W/lines"
    while IFS= read -r l; do
        echo "$l" | grep -Eq '^tlmpi: \[read\] [0-9]+/4 traces, [0-9]+\.[0-9] MB on disk, [0-9]+\.[0-9] MB/s, [0-9]+/'$n' ranks done$' && continue
        echo "$l" | grep -Eq '^tlmpi: \[[a-z]+\] done in [0-9]+\.[0-9]{2} s$' && continue
        fail "-n $n: progress line not well-formed: $l"
    done < "$W/lines"
    grep -q "^tlmpi: \[read\] 4/4 traces, .* $n/$n ranks done$" "$W/lines" \
        || { cat "$W/err"; fail "-n $n: no final read line"; }
    got=$(sed -n 's/^tlmpi: \[\([a-z]*\)\] done in .*/\1/p' "$W/lines" | tr '\n' ' ')
    [ "$got" = "setup read check collectives timeline tracelens steps merge write " ] \
        || fail "-n $n: done lines for '$got'"
    # the progress lines come before the summary, which is last
    tail -n 1 "$W/err" | grep -q '^tlmpi: wrote ' || fail "-n $n: summary not last"
    check_summary "-n $n --progress"
done

# ---- --quiet: silent
for n in 1 2; do
    run $n --quiet
    [ ! -s "$W/out" ] && [ ! -s "$W/err" ] \
        || { cat "$W/out" "$W/err"; fail "-n $n --quiet printed something"; }
done
[ -s "$W/job/tlmpi.h5" ] || fail "--quiet wrote no HDF5 file"

# ---- default, stderr not a terminal: no progress lines
run 2
grep -q '^tlmpi: \[' "$W/err" && fail "progress lines without --progress"
grep -q $'\r' "$W/err" && fail "carriage return without a terminal"
check_summary "default"

# ---- a terminal: the line is rewritten in place and erased
if command -v script >/dev/null; then
    script -qec "'$MPIEXEC' -n 2 '$TLMPI' --trace_dir '$W/job' --force 2>&1" \
        /dev/null > "$W/tty" < /dev/null || fail "under script: exit $?"
    /usr/bin/python3 - "$W/tty" <<'PY' || fail "terminal output"
import re, sys
t = open(sys.argv[1], "rb").read().decode().replace("\r\n", "\n")
# every drawn line is "\rtlmpi: [...]\033[K"; erasing is "\r\033[K"
drawn = re.findall(r"\rtlmpi: \[[^\n\r]*?\033\[K", t)
rest = re.sub(r"\rtlmpi: \[[^\n\r]*?\033\[K", "", t)
if drawn and "\r\033[K" not in rest:
    sys.exit("the progress line is never erased")
# a message after the line starts at the beginning of a clean line
for m in re.finditer(r"\rtlmpi: \[[^\n\r]*?\033\[K(?!\r)", t):
    sys.exit("text after a progress line without erasing it: %r"
             % t[m.start():m.start() + 60])
rest = rest.replace("\r\033[K", "")
if "\r" in rest or "\033" in rest:
    sys.exit("stray control characters: %r" % rest)
if not re.search(r"^tlmpi: wrote ", rest, re.M):
    sys.exit("no summary: %r" % rest)
PY
fi
echo "PASS"
