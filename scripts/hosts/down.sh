#!/usr/bin/env bash
# Undo scripts/hosts/up.sh: stop the hosts' sshd and every process left in their
# namespaces, and delete the namespaces (the veth pairs and the bridge go with them).
set -uo pipefail
DIR=${COLL_HOSTS_DIR:-/tmp/coll-hosts}
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^coll-(h[0-9]+|sw)$'); do
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
  ip netns del "$ns"
done
rm -f "$DIR"/sshd.*.pid "$DIR/env"
