#!/bin/bash
# A private single-node Slurm cluster on 127.0.0.1 for trying and testing
# the sbatch templates in slurm/ (Debian: apt-get install slurm-wlm munge).
#
#   eval "$(scripts/slurm_local.sh start /tmp/mycluster)"   # sets SLURM_CONF
#   sbatch --ntasks=8 slurm/postprocess.sbatch run42
#   scripts/slurm_local.sh status /tmp/mycluster
#   scripts/slurm_local.sh stop /tmp/mycluster
#
# Everything lives under DIR: its own munged (socket, key, pid and log
# files), slurm.conf, slurmctld and slurmd state, pid and log files.  The
# ports are a free pair picked at start (SLURM_LOCAL_PORT=P forces P and
# P+1), so several clusters can run side by side on one machine.  The node
# claims SLURM_LOCAL_CPUS CPUs (default 8) whatever the real core count
# (SlurmdParameters=config_overrides) so --ntasks=8 fits on a laptop.
#
# start is idempotent (a running cluster is left alone) and prints
# "export SLURM_CONF=DIR/slurm.conf"; stop is idempotent too: it cancels
# the cluster's jobs, stops slurmd, slurmctld, then munged (that order:
# slurmd hangs in shutdown without munged), and kills leftover job
# processes of this cluster.  status lists the daemons' pids ("stopped")
# and every process of the cluster, daemons included ("procs": ... or
# "none"), and exits 0 only when all three daemons run.
# Needs root (slurmd starts jobs as the submitting user).  Exit status:
# 0 ok, 1 failure (the daemon's log is printed), 2 usage.
set -euo pipefail

usage() {
    echo "usage: $0 start|stop|status DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
case $cmd in start|stop|status) ;; *) usage ;; esac
if [ ! -d "$2" ]; then
    case $cmd in
        start) mkdir -p "$2" ;;
        stop) exit 0 ;;
        status) echo "no cluster in $2"; exit 1 ;;
    esac
fi
D=$(cd "$2" && pwd)
CONF=$D/slurm.conf
SOCK=$D/munge/munge.socket
CPUS=${SLURM_LOCAL_CPUS:-8}

die() {
    echo "slurm_local: $*" >&2
    exit 1
}

# true when process $1 runs (is not a zombie) under the name $2
alive() {
    # field 2 of stat is "(comm)", field 3 the state
    case $(cat "/proc/$1/stat" 2>/dev/null) in
        *"($2) "[!Z]*) return 0 ;;
    esac
    return 1
}

# pid of a live process named $2 from pid file $1, else empty
live_pid() {
    local pid
    [ -s "$1" ] || return 0
    pid=$(tr -dc 0-9 2>/dev/null < "$1") || return 0
    if [ -n "$pid" ] && alive "$pid" "$2"; then
        echo "$pid"
    fi
}

# SIGTERM to the daemon of pid file $1 named $2, SIGKILL after $3 tenths
# of a second; waits on the pid itself (slurmd removes its pid file
# before it has finished shutting down)
stop_daemon() {
    local i pid
    pid=$(live_pid "$1" "$2")
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < $3; i++)); do
        alive "$pid" "$2" || return 0
        sleep 0.1
    done
    echo "slurm_local: $2 ($pid) did not stop, killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
        alive "$pid" "$2" || return 0
        sleep 0.1
    done
    return 1
}

# processes of this cluster: slurmctld and slurmd run with
# TLM_SLURM_LOCAL=$D in their environment; slurmstepd overwrites its
# environment with its title but works in DIR and keeps slurmd.log open;
# job processes carry SLURM_CONF=$CONF and a SLURM_JOB_ID
cluster_pids() {
    local p
    # (every command may fail: no match, processes gone while scanned)
    {
        grep -lzxF "TLM_SLURM_LOCAL=$D" /proc/[0-9]*/environ || true
        grep -lzxF "SLURM_CONF=$CONF" /proc/[0-9]*/environ |
            xargs -r grep -lz '^SLURM_JOB_ID=' || true
        find /proc/[0-9]*/cwd -maxdepth 0 \
            \( -lname "$D" -o -lname "$D/*" \) || true
        find /proc/[0-9]*/fd -maxdepth 1 -lname "$D/*" || true
    } 2>/dev/null | sed -n 's|^/proc/\([0-9]*\)/.*|\1|p' | sort -un |
    while IFS= read -r p; do
        [ "$p" = $$ ] && continue
        case $(cat "/proc/$p/stat" 2>/dev/null) in
            *") Z "*|"") ;;
            *) echo "$p" ;;
        esac
    done
}

# kill every process of the cluster but the running daemons and their
# children (slurmscriptd): SIGTERM, SIGKILL after a second; done when two
# scans 0.1 s apart find nothing (a job script may start a new step while
# its last one dies)
kill_leftovers() {
    local i quiet=0 sig left keep
    keep=" $(live_pid "$D/slurmctld.pid" slurmctld) \
$(live_pid "$D/slurmd.pid" slurmd) $(live_pid "$D/munge/munged.pid" munged) "
    for ((i = 0; i < 50; i++)); do
        mapfile -t left < <(cluster_pids | while read -r p; do
            ppid=$(cut -d')' -f2- "/proc/$p/stat" 2>/dev/null |
                   cut -d' ' -f3)
            case $keep in *" $p "*|*" $ppid "*) ;; *) echo "$p" ;; esac
        done)
        if [ ${#left[@]} -eq 0 ]; then
            quiet=$((quiet + 1))
            [ $quiet -ge 2 ] && return 0
        else
            quiet=0
            sig=TERM
            [ $i -ge 10 ] && sig=KILL
            kill -$sig "${left[@]}" 2>/dev/null || true
        fi
        sleep 0.1
    done
    return 1
}

is_up() {
    [ -n "$(live_pid "$D/munge/munged.pid" munged)" ] &&
    [ -n "$(live_pid "$D/slurmctld.pid" slurmctld)" ] &&
    [ -n "$(live_pid "$D/slurmd.pid" slurmd)" ]
}

port_free() {
    [ -z "$(ss -Htanl "( sport = :$1 )" 2>/dev/null)" ]
}

write_conf() { # ctld-port
    local host OVERSUB=OverSubscribe=FORCE:8
    host=$(hostname -s)
    cat > "$CONF.tmp" <<EOF
# written by scripts/slurm_local.sh: private single-node cluster in $D
ClusterName=tlm$1
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$(($1 + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
KillWait=2
MailProg=/bin/true
# private temporary folder (pmix's spmix_appdir_UID_JOB.STEP) and job ids
# that differ between clusters started side by side
TmpFS=$D/tmp
FirstJobId=$(($1 % 60000 * 1000 + 1))
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=1000000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP $OVERSUB
EOF
    mv "$CONF.tmp" "$CONF"
}

show_log() {
    [ -s "$1" ] || return 0
    echo "---- last lines of $1" >&2
    tail -n 15 "$1" >&2
}

start_munged() {
    [ -n "$(live_pid "$D/munge/munged.pid" munged)" ] && return 0
    # as the munge user where it can reach DIR, else as root (--force)
    local user=root
    if id -u munge >/dev/null 2>&1 &&
       runuser -u munge -- test -x "$D" 2>/dev/null; then
        user=munge
    fi
    install -d -m 755 -o "$user" "$D/munge"
    if [ ! -s "$D/munge/munge.key" ]; then
        mungekey --create --keyfile="$D/munge/munge.key" 2>/dev/null ||
            dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 \
               status=none
        chown "$user" "$D/munge/munge.key"
        chmod 600 "$D/munge/munge.key"
    fi
    rm -f "$SOCK" "$SOCK.lock"
    local args=(--socket="$SOCK" --key-file="$D/munge/munge.key"
                --pid-file="$D/munge/munged.pid"
                --log-file="$D/munge/munged.log"
                --seed-file="$D/munge/munged.seed")
    if [ "$user" = munge ]; then
        runuser -u munge -- munged "${args[@]}" ||
            { show_log "$D/munge/munged.log"; die "munged did not start"; }
    else
        munged --force "${args[@]}" ||
            { show_log "$D/munge/munged.log"; die "munged did not start"; }
    fi
    munge -S "$SOCK" -n | unmunge -S "$SOCK" >/dev/null ||
        die "munged answers no credentials on $SOCK"
}

start() {
    if is_up; then
        printf 'export SLURM_CONF=%q\n' "$CONF"
        return 0
    fi
    [ "$(id -u)" -eq 0 ] || die "needs root (slurmd starts jobs as their user)"
    local t
    for t in munged slurmctld slurmd sinfo; do
        command -v "$t" >/dev/null ||
            die "$t not found: apt-get install slurm-wlm munge"
    done
    # Unix socket paths (munge, slurmstepd) must stay under 108 bytes
    [ ${#D} -le 64 ] ||
        die "DIR too long for Unix socket paths (${#D} > 64 bytes): $D"
    case $D in *[[:space:]]*) die "DIR must not contain blanks (slurm.conf)" ;;
    esac
    # half-started leftovers
    do_stop >/dev/null 2>&1 || true
    mkdir -p "$D/state" "$D/spool"
    install -d -m 1777 "$D/tmp"
    start_munged

    local port attempt i
    export SLURM_CONF=$CONF
    for attempt in 1 2 3; do
        if [ -n "${SLURM_LOCAL_PORT:-}" ]; then
            port=$SLURM_LOCAL_PORT
        else
            port=$((20000 + ($$ * 2 + attempt * 2002) % 20000))
            for ((i = 0; i < 200; i++)); do
                port_free "$port" && port_free $((port + 1)) && break
                port=$((20000 + (port - 20000 + 2) % 20000))
            done
        fi
        write_conf "$port"
        rm -f "$D/slurmctld.log" "$D/slurmd.log"
        rm -rf "$D/state" && mkdir -p "$D/state"
        if ! TLM_SLURM_LOCAL=$D slurmctld -f "$CONF"; then
            show_log "$D/slurmctld.log"
            continue
        fi
        if ! TLM_SLURM_LOCAL=$D slurmd -f "$CONF"; then
            show_log "$D/slurmd.log"
            continue
        fi
        for ((i = 0; i < 200; i++)); do
            if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then
                printf 'export SLURM_CONF=%q\n' "$CONF"
                return 0
            fi
            if [ -z "$(live_pid "$D/slurmctld.pid" slurmctld)" ] ||
               [ -z "$(live_pid "$D/slurmd.pid" slurmd)" ]; then
                break
            fi
            sleep 0.1
        done
        echo "slurm_local: cluster on port $port did not come up" >&2
        show_log "$D/slurmctld.log"
        show_log "$D/slurmd.log"
        stop_daemon "$D/slurmd.pid" slurmd 50 || true
        stop_daemon "$D/slurmctld.pid" slurmctld 50 || true
        [ -n "${SLURM_LOCAL_PORT:-}" ] && break
    done
    do_stop >/dev/null 2>&1 || true
    die "could not start the cluster in $D"
}

do_stop() {
    local rc=0 i jobs
    if [ -n "$(live_pid "$D/slurmctld.pid" slurmctld)" ] && [ -s "$CONF" ]
    then
        export SLURM_CONF=$CONF
        mapfile -t jobs < <(squeue -h -o %i 2>/dev/null)
        if [ ${#jobs[@]} -gt 0 ]; then
            scancel --full --quiet "${jobs[@]}" 2>/dev/null || true
            for ((i = 0; i < 30; i++)); do
                [ -z "$(squeue -h -t R,CG -o %i 2>/dev/null)" ] && break
                sleep 0.1
            done
        fi
    fi
    kill_leftovers || rc=1
    stop_daemon "$D/slurmd.pid" slurmd 100 || rc=1
    stop_daemon "$D/slurmctld.pid" slurmctld 100 || rc=1
    stop_daemon "$D/munge/munged.pid" munged 50 || rc=1
    kill_leftovers || rc=1
    return $rc
}

case $cmd in
    start) start ;;
    stop) do_stop || die "some daemons of $D did not stop" ;;
    status)
        for n in munge/munged slurmctld slurmd; do
            pid=$(live_pid "$D/$n.pid" "${n#munge/}")
            printf '%-10s %s\n' "${n#munge/}" "${pid:-stopped}"
        done
        procs=$(cluster_pids | tr '\n' ' ')
        printf '%-10s %s\n' procs "${procs:-none}"
        is_up ;;
esac
