#!/bin/sh
# A launch agent for tests, called as ssh is (AGENT HOST COMMAND ARGS...), that runs
# the command on this machine and behaves as ssh does towards it: the command is not
# this agent's own process (killing the agent does not kill it) and only its standard
# input ties it to the launcher. Hosts named down* refuse the connection as an
# unreachable host does; hosts named hang* never start anything.
host=$1
shift
case "$host" in
  down*) echo "ssh: connect to host $host port 22: Connection refused" >&2; exit 255 ;;
  hang*) exec sleep 3600 ;;
esac
echo "$host" >>"${COLL_TEST_AGENT_LOG:-/dev/null}"
# (A background command gets /dev/null as its input unless given another descriptor.)
exec 3<&0
sh -c "$*" <&3 3<&- &
wait
