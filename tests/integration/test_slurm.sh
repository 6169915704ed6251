#!/bin/bash
# The sbatch templates in slurm/ under a real Slurm: a private single-node
# cluster (munged + slurmctld + slurmd on 127.0.0.1, scripts/slurm_local.sh)
# runs, side by side,
#   post_ok    postprocess.sbatch RUN_DIR on a synthesized 8-rank job
#              -> COMPLETED, RUN_DIR/traces/tlmpi.h5 (8 traces) + report.md
#   post_bad   the same with rank 3's trace truncated
#              -> FAILED, the job's output names the bad file, no h5 left
#   audit_ok   cluster_audit.sbatch (tlmpi audit) over two job folders
#              (one nested) -> COMPLETED, audit.h5, one tlmpi.h5 +
#              report.md per run under runs/
#   audit_bad  the same over a good and a corrupt folder -> FAILED (exit
#              3), the good run analysed, the bad one named in the job
#              output and audit.md, no file of it left
# submitted as a user would (TLMPI=... sbatch [options] TEMPLATE ARGS),
# polled with scontrol every 0.2 s.  The cluster is always torn down (trap
# EXIT) and the test checks that no daemon or job process of it is left.
# Ports, job ids, state and temporary folders are private, so two copies
# can run at once.  Skips (77) without slurm-wlm + munge, root, or
# tlmpi-synth.  TLM_SLURM_TEMPLATES=DIR tests edited copies of the
# templates; TLM_SLURM_TIMEOUT (s, default 120) bounds the wait for jobs.
set -eu
: "${TLMPI:?}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TIMEOUT=${TLM_SLURM_TIMEOUT:-120}
# a site's edited copies of the templates can be tested the same way
TEMPLATES=${TLM_SLURM_TEMPLATES:-$SRC/slurm}

skip() { echo "skipped: $*"; exit 77; }
for t in munged munge slurmctld slurmd sbatch srun scontrol sinfo; do
    command -v "$t" >/dev/null ||
        skip "$t not found (apt-get install slurm-wlm munge, or" \
             "TLM_WITH_SLURM=1 scripts/setup.sh)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd needs root"
if [ -z "${TLMPI_SYNTH:-}" ] || [ ! -x "$TLMPI_SYNTH" ]; then
    skip "no tlmpi-synth"
fi

# Unix socket paths under the folder must stay short; slurm.conf paths
# cannot hold blanks
W=${TLM_WORK_DIR:-/tmp/tlm-slurm}/run.$$
if [ ${#W} -gt 48 ] || [[ $W == *[[:space:]]* ]]; then
    mkdir -p /tmp/tlm-slurm
    W=$(mktemp -d /tmp/tlm-slurm/run.XXXXXX)
fi
rm -rf "$W"
mkdir -p "$W"
C=$W/cluster
LOCAL=$SRC/scripts/slurm_local.sh

rc=1
teardown() {
    local st
    "$LOCAL" stop "$C" || rc=1
    if st=$("$LOCAL" status "$C") ||
       [ "$(grep -c -e ' stopped$' -e '^procs  *none$' <<< "$st")" != 4 ]
    then
        echo "FAIL: cluster not torn down:"
        echo "$st"
        rc=1
    fi
    if [ $rc = 0 ]; then
        rm -rf "$W"
    else
        echo "(files kept in $W)"
    fi
    exit $rc
}
trap teardown EXIT
trap 'exit 1' INT TERM HUP

t0=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms"; }

eval "$("$LOCAL" start "$C")"
if [ "${SLURM_CONF:-}" != "$C/slurm.conf" ]; then
    echo "FAIL: slurm_local.sh start printed no SLURM_CONF"
    exit 1
fi
echo "cluster up: $(elapsed)"
srun --mpi=list 2>&1 | grep -qw pmix ||
    { echo "FAIL: Slurm has no pmix plugin (the templates use srun --mpi=pmix)"
      exit 1; }

synth() { # dir world tp seed
    "$TLMPI_SYNTH" --out "$1" --world_size "$2" --tp "$3" --steps 2 \
        --layers 2 --seed "$4" --gzip --quiet
}
truncate_trace() { # file: keep the first half of the gzip stream
    local n
    n=$(stat -c %s "$1")
    head -c $((n / 2)) "$1" > "$1.cut"
    mv "$1.cut" "$1"
}
mkdir -p "$W/ok" "$W/bad" "$W/audit_ok/grp" "$W/audit_bad"
synth "$W/ok/traces" 8 4 7
cp -r "$W/ok/traces" "$W/bad/traces"
truncate_trace "$W/bad/traces/rank3_trace.json.gz"
synth "$W/audit_ok/jobA" 4 2 11
synth "$W/audit_ok/grp/jobB" 8 4 12
cp -r "$W/audit_ok/jobA" "$W/audit_bad/jobA"
synth "$W/audit_bad/jobC" 4 2 13
truncate_trace "$W/audit_bad/jobC/rank1_trace.json.gz"

submit() { # name template args...
    local name=$1 tmpl=$2
    shift 2
    # the default --export=ALL passes TLMPI; --export=ALL,TLMPI=...
    # would make slurmd load root's login environment first (su -, ~1 s)
    TLMPI=$TLMPI sbatch --parsable --chdir="$W" --output="$W/$name.out" \
        "${SBATCH_EXTRA[@]}" \
        "$TEMPLATES/$tmpl" "$@" | cut -d';' -f1
}
declare -A JID
SBATCH_EXTRA=()
JID[post_ok]=$(submit post_ok postprocess.sbatch "$W/ok")
JID[post_bad]=$(submit post_bad postprocess.sbatch "$W/bad")
SBATCH_EXTRA=(--ntasks=4)
JID[audit_ok]=$(submit audit_ok cluster_audit.sbatch "$W/audit_ok" \
                "$W/audit_ok.res")
JID[audit_bad]=$(submit audit_bad cluster_audit.sbatch "$W/audit_bad" \
                 "$W/audit_bad.res")
for n in "${!JID[@]}"; do
    case ${JID[$n]} in
        ''|*[!0-9]*) echo "FAIL: sbatch of $n gave no job id"; exit 1 ;;
    esac
done
echo "submitted ${JID[*]}: $(elapsed)"

# poll until every job ended
declare -A STATE
deadline=$(($(date +%s) + TIMEOUT))
while :; do
    pending=0
    for n in "${!JID[@]}"; do
        case ${STATE[$n]:-} in
            COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|\
            BOOT_FAIL|DEADLINE|PREEMPTED) continue ;;
        esac
        s=$(scontrol show job -o "${JID[$n]}" 2>/dev/null |
            grep -o 'JobState=[A-Z_]*' || true)
        STATE[$n]=${s#JobState=}
        pending=1
    done
    [ $pending = 0 ] && break
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "FAIL: jobs not done after ${TIMEOUT} s:"
        for n in "${!JID[@]}"; do
            scontrol show job -o "${JID[$n]}" || true
            cat "$W/$n.out" 2>/dev/null || true
        done
        tail -n 20 "$C/slurmctld.log" "$C/slurmd.log" || true
        exit 1
    fi
    sleep 0.2
done
echo "jobs done: $(elapsed)"

fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
expect_state() { # name state
    if [ "${STATE[$1]}" != "$2" ]; then
        fail "$1 (job ${JID[$1]}) ended ${STATE[$1]}, expected $2; its output:"
        sed 's/^/    /' "$W/$1.out" 2>/dev/null || true
    fi
}
expect_out() { # name fixed-string
    grep -qF -- "$2" "$W/$1.out" 2>/dev/null ||
        fail "$1: output lacks '$2'"
}
# tlmpi.h5 files to read back at the end (one Python start for all)
H5_CHECKS=()
check_h5() { # h5 ntraces
    H5_CHECKS+=("$1" "$2")
}
read_back() {
    local i f n
    [ ${#H5_CHECKS[@]} -gt 0 ] || return 0
    if ! /usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null; then
        # without h5py: h5ls must list the row counts
        for ((i = 0; i < ${#H5_CHECKS[@]}; i += 2)); do
            f=${H5_CHECKS[i]}
            n=${H5_CHECKS[i + 1]}
            h5ls -r "$f" 2>/dev/null |
                grep -q "^/traces  *Dataset {$n/" ||
                fail "$f: missing, unreadable, or not $n traces (h5ls)"
            h5ls -r "$f" 2>/dev/null |
                grep -q "^/collectives/instances  *Dataset {[1-9]" ||
                fail "$f: no /collectives/instances (h5ls)"
        done
        return 0
    fi
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "${H5_CHECKS[@]}" <<'PY' ||
# every file exists, loads, holds N traces and some collective instances
import os, sys
import tlmpi_h5
bad = 0
args = sys.argv[1:]
for path, want in zip(args[::2], args[1::2]):
    try:
        if not os.path.exists(path):
            raise RuntimeError("missing")
        t = tlmpi_h5.load(path)
        n = len(t["traces"])
        if n != int(want):
            raise RuntimeError("%d traces, expected %s" % (n, want))
        if len(t["collectives/instances"]) == 0:
            raise RuntimeError("no collective instances")
    except Exception as e:
        print("FAIL: %s: %s" % (path, e))
        bad += 1
sys.exit(1 if bad else 0)
PY
    fails=$((fails + 1))
}
check_report() {
    [ -s "$1/report.md" ] || fail "$1/report.md missing"
}
check_no_output() { # dir
    local left
    [ -d "$1" ] || return 0
    left=$(cd "$1" && { ls -d tlmpi.h5* report.md ./*.csv 2>/dev/null ||
                        true; })
    [ -z "$left" ] || fail "$1: output left behind after a failure: $left"
}

expect_state post_ok COMPLETED
check_h5 "$W/ok/traces/tlmpi.h5" 8
check_report "$W/ok/traces"

expect_state post_bad FAILED
expect_out post_bad "rank3_trace.json.gz"
check_no_output "$W/bad/traces"

expect_state audit_ok COMPLETED
expect_out audit_ok "tlmpi: run jobA: ok, 4 traces"
expect_out audit_ok "tlmpi: run grp/jobB: ok, 8 traces"
expect_out audit_ok "audit written: $W/audit_ok.res/audit.md (every run ok)"
check_h5 "$W/audit_ok.res/runs/jobA/tlmpi.h5" 4
check_report "$W/audit_ok.res/runs/jobA"
check_h5 "$W/audit_ok.res/runs/grp/jobB/tlmpi.h5" 8
check_report "$W/audit_ok.res/runs/grp/jobB"
[ -s "$W/audit_ok.res/audit.h5" ] || fail "audit_ok: no audit.h5"

expect_state audit_bad FAILED
expect_out audit_bad "tlmpi: run jobA: ok"
expect_out audit_bad "tlmpi: run jobC: FAILED"
expect_out audit_bad "rank1_trace.json.gz"
expect_out audit_bad "audit written, some runs failed"
check_h5 "$W/audit_bad.res/runs/jobA/tlmpi.h5" 4
check_no_output "$W/audit_bad.res/runs/jobC"
grep -q '| jobC | ' "$W/audit_bad.res/audit.md" 2>/dev/null ||
    fail "audit_bad: audit.md does not list the failed run"

read_back
echo "checks done: $(elapsed)"
if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
rc=0
echo "slurm templates ok: postprocess + cluster_audit, good and corrupt" \
     "traces, $(elapsed)"
