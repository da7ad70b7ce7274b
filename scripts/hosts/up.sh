#!/usr/bin/env bash
# Make N test hosts on this machine: network namespaces coll-h0..coll-h<N-1>, joined
# by veth pairs to a bridge that lives in its own namespace (coll-sw), addresses
# 10.77.0.1..N/24, each host running sshd on its address with a key made for the job.
# Nothing is added to the root namespace: its routes never see the test subnet, so no
# test traffic can leave the machine. Start programs inside a host with
#   ip netns exec coll-h0 <command>
# and reach the others by name (h0, h1, …) through the generated ssh configuration:
#   ssh -F "$COLL_HOSTS_DIR/ssh_config" h1 hostname
# Writes "$COLL_HOSTS_DIR/env" (COLL_HOSTS_AGENT, COLL_HOSTS_NAMES, COLL_HOSTS_ADDRS) for tests.
# Needs root, iproute2 and openssh-server. Idempotent: tears down an earlier set first.
# Usage: scripts/hosts/up.sh [N=3]
set -euo pipefail
N=${1:-3}
DIR=${COLL_HOSTS_DIR:-/tmp/coll-hosts}
SUBNET=10.77.0
here=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" = 0 ] || { echo "scripts/hosts/up.sh: needs root (network namespaces)" >&2; exit 2; }
command -v ip >/dev/null || { echo "scripts/hosts/up.sh: needs iproute2 (apt-get install iproute2)" >&2; exit 2; }
[ -x /usr/sbin/sshd ] || { echo "scripts/hosts/up.sh: needs sshd (apt-get install openssh-server)" >&2; exit 2; }

"$here/down.sh" >/dev/null 2>&1 || true
mkdir -p "$DIR" /run/sshd
chmod 700 "$DIR"

# Keys: one host key for every sshd, one client key authorised for root.
[ -f "$DIR/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$DIR/host_key"
[ -f "$DIR/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$DIR/id_ed25519"
cp "$DIR/id_ed25519.pub" "$DIR/authorized_keys"
chmod 600 "$DIR/authorized_keys"

ip netns add coll-sw
ip -n coll-sw link set lo up
ip -n coll-sw link add collbr0 type bridge
ip -n coll-sw link set collbr0 up

: >"$DIR/ssh_config"
names=()
addrs=()
for i in $(seq 0 $((N - 1))); do
  ns=coll-h$i
  addr=$SUBNET.$((i + 1))
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip link add "veth$i" netns "$ns" type veth peer name "port$i" netns coll-sw
  ip -n "$ns" link set "veth$i" name eth0
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n coll-sw link set "port$i" master collbr0
  ip -n coll-sw link set "port$i" up
  cat >"$DIR/sshd_config.$i" <<EOF
ListenAddress $addr
Port 22
HostKey $DIR/host_key
AuthorizedKeysFile $DIR/authorized_keys
PidFile $DIR/sshd.$i.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AcceptEnv COLL_*
EOF
  ip netns exec "$ns" /usr/sbin/sshd -f "$DIR/sshd_config.$i" -E "$DIR/sshd.$i.log"
  cat >>"$DIR/ssh_config" <<EOF
Host h$i
  HostName $addr
EOF
  names+=("h$i")
  addrs+=("$addr")
done
cat >>"$DIR/ssh_config" <<EOF
Host *
  User root
  IdentityFile $DIR/id_ed25519
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 5
EOF

cat >"$DIR/env" <<EOF
COLL_HOSTS_AGENT="ssh -x -F $DIR/ssh_config"
COLL_HOSTS_NAMES="${names[*]}"
COLL_HOSTS_ADDRS="${addrs[*]}"
EOF

# Wait until every sshd answers (from inside the first host).
for i in $(seq 0 $((N - 1))); do
  for _ in $(seq 1 50); do
    if ip netns exec coll-h0 ssh -F "$DIR/ssh_config" "h$i" true 2>/dev/null; then continue 2; fi
    sleep 0.1
  done
  echo "scripts/hosts/up.sh: sshd of h$i does not answer (log: $DIR/sshd.$i.log)" >&2
  exit 1
done
echo "hosts up: ${names[*]} (${addrs[*]}); agent: ssh -x -F $DIR/ssh_config; run: ip netns exec coll-h0 …"
