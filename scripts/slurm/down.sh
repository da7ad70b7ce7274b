#!/usr/bin/env bash
# Undo scripts/slurm/up.sh: cancel the cluster's jobs, stop its slurmctld and slurmd
# and any slurmstepd they left, then remove the env file. Touches only this cluster's
# daemons: processes named slurmctld, slurmscriptd, slurmd or slurmstepd whose
# environment has the SLURM_CONF=$COLL_SLURM_DIR/slurm.conf that up.sh gave them.
# Usage: scripts/slurm/down.sh
set -uo pipefail
DIR=${COLL_SLURM_DIR:-/tmp/coll-slurm}
export SLURM_CONF=$DIR/slurm.conf
[ -f "$SLURM_CONF" ] || { rm -f "$DIR/env"; exit 0; }

ours() {
  local p comm
  for p in /proc/[0-9]*; do
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    case $comm in slurmctld | slurmscriptd | slurmd | slurmstepd) ;; *) continue ;; esac
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" && echo "${p#/proc/}"
  done
}

# Jobs first, while slurmctld can still end them (and their tasks) cleanly.
if [ -n "$(ours)" ]; then
  timeout 10 scancel --quiet --user=root 2>/dev/null || true
  for _ in $(seq 1 50); do
    [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
    sleep 0.2
  done
fi

pids=$(ours)
[ -n "$pids" ] && kill $pids 2>/dev/null
left=$pids
for _ in $(seq 1 50); do
  left=$(for p in $left; do kill -0 "$p" 2>/dev/null && echo "$p"; done)
  [ -z "$left" ] && break
  sleep 0.2
done
[ -n "$left" ] && kill -9 $left 2>/dev/null
rm -f "$DIR"/run/*.pid "$DIR/env"
exit 0
