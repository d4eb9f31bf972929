#!/usr/bin/env bash
# A real single-node SLURM (Debian's slurm-wlm 22.05 + munge) for the tests, run as root, no cgroups.
#
#   scripts/ci/slurm-single-node.sh install   apt-get the packages (quick when already installed)
#   scripts/ci/slurm-single-node.sh up        install, then start munged, slurmctld and slurmd
#   scripts/ci/slurm-single-node.sh down      stop what `up` started (by pid), leave the machine as found
#   scripts/ci/slurm-single-node.sh env       print `export SLURM_CONF=...` for the clients
#
# Everything it writes (slurm.conf, spool, state, logs, pid files, munge socket) lives in one folder,
# $TABLETEST_SLURM_DIR (default /tmp/tabletest-slurm); /etc is never edited, so the clients need
# SLURM_CONF pointing at that folder's slurm.conf. Recipe: /work/shared/notes/slurm-single-node.md.
set -euo pipefail

STATE="${TABLETEST_SLURM_DIR:-/tmp/tabletest-slurm}"
CONF="$STATE/slurm.conf"
MUNGE_SOCKET="$STATE/munge/munge.socket.2"

need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "error: $0 must run as root (it starts slurmctld/slurmd as root, as a single-node test cluster)" >&2
        exit 2
    fi
}

install() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null \
        && command -v munged >/dev/null; then
        return
    fi
    need_root
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
}

running() {  # running PIDFILE: the pid in it is alive
    [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

write_conf() {
    local host cpus mem
    host="$(hostname -s)"
    cpus="$(nproc)"
    mem="$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)"
    mkdir -p "$STATE/ctld" "$STATE/slurmd" "$STATE/log" "$STATE/munge"
    cat >"$CONF" <<EOF
# Written by scripts/ci/slurm-single-node.sh: a one-node test cluster.
ClusterName=tabletest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldPort=${TABLETEST_SLURMCTLD_PORT:-6817}
SlurmdPort=${TABLETEST_SLURMD_PORT:-6818}
KillWait=5
MinJobAge=3600
InactiveLimit=0
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

up() {
    install
    need_root
    if [ ! -c /dev/null ]; then  # seen on a shared test machine: something had renamed a file over it
        echo "error: /dev/null is not the null device, and munged cannot start without it; restore it:" \
            "rm /dev/null && mknod -m 666 /dev/null c 1 3" >&2
        exit 2
    fi
    if running "$STATE/slurmctld.pid" && running "$STATE/slurmd.pid"; then
        echo "SLURM already up ($CONF)"
        return
    fi
    write_conf
    chown munge:munge "$STATE/munge"
    if ! running "$STATE/munge/munged.pid"; then
        runuser -u munge -- /usr/sbin/munged --socket="$MUNGE_SOCKET" --pid-file="$STATE/munge/munged.pid" \
            --log-file="$STATE/munge/munged.log" --seed-file="$STATE/munge/munged.seed"
    fi
    running "$STATE/slurmctld.pid" || SLURM_CONF="$CONF" /usr/sbin/slurmctld -f "$CONF"
    running "$STATE/slurmd.pid" || SLURM_CONF="$CONF" /usr/sbin/slurmd -f "$CONF"
    for _ in $(seq 60); do
        if SLURM_CONF="$CONF" sinfo -h -o %T 2>/dev/null | grep -qx idle; then
            echo "SLURM up: $(SLURM_CONF="$CONF" sinfo -h -o '%P %D node(s) %c CPUs %T') ($CONF)"
            return
        fi
        sleep 1
    done
    echo "error: SLURM did not come up in 60 s; see $STATE/log/" >&2
    exit 1
}

stop_pidfile() {  # stop_pidfile FILE: end the process named in FILE and wait for it
    local pid
    running "$1" || return 0
    pid="$(cat "$1")"
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
}

down() {
    if [ -f "$CONF" ] && running "$STATE/slurmctld.pid"; then
        SLURM_CONF="$CONF" scancel --quiet --user root 2>/dev/null || true
        SLURM_CONF="$CONF" scontrol shutdown 2>/dev/null || true
    fi
    stop_pidfile "$STATE/slurmd.pid"
    stop_pidfile "$STATE/slurmctld.pid"
    stop_pidfile "$STATE/munge/munged.pid"
    rm -rf "$STATE"
    echo "SLURM down"
}

case "${1:-}" in
    install) install ;;
    up) up ;;
    down) down ;;
    env) echo "export SLURM_CONF=$CONF" ;;
    *) echo "usage: $0 install|up|down|env" >&2; exit 2 ;;
esac
