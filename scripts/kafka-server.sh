#!/usr/bin/env bash
# Run a single-node Apache Kafka (KRaft, combined broker+controller) on
# 127.0.0.1, using the jars fetched by scripts/fetch-kafka.sh.
#
# Usage:
#   scripts/kafka-server.sh start <dir> <port>   # PLAINTEXT on 127.0.0.1:<port>,
#                                                # CONTROLLER on 127.0.0.1:<port+1>
#   scripts/kafka-server.sh stop <dir>
#   scripts/kafka-server.sh status <dir>
#
# <dir> receives server.properties, data/ (log.dirs), kafka.log (stdout+stderr
# of the JVM) and kafka.pid.  An already formatted <dir>/data is reused.
#
# Environment:
#   HW_KAFKA_ADVERTISED_PORT  port put in advertised.listeners (default <port>);
#                             e.g. a capture proxy's port, so that clients
#                             come back through the proxy (the broker's own
#                             inter-broker traffic then uses an INTERNAL
#                             listener on 127.0.0.1:<port+2>)
#   HW_KAFKA_EXTRA_LISTENERS  more listeners, NAME:PROTOCOL,... (e.g. SSL:SSL,MTLS:SSL),
#                             on 127.0.0.1:<port+3>, <port+4>, ... in that order,
#                             advertised as bound; their ssl./sasl. keys go in
#                             HW_KAFKA_EXTRA_PROPS
#   HW_KAFKA_EXTRA_PROPS      extra server.properties lines (newline separated)
#   HW_KAFKA_NODE_ID          node.id (default 1)
#   HW_KAFKA_QUORUM           how the controller quorum is made: unset, a static
#                             controller.quorum.voters of this node; "standalone",
#                             a dynamic quorum (KIP-853) of this node alone
#                             (format --standalone); "join:<host:port,...>", a node
#                             of the dynamic quorum reached at those controllers,
#                             formatted --no-initial-controllers (it observes until
#                             kafka-metadata-quorum.sh add-controller)
#   HW_KAFKA_CLUSTER_ID       the cluster id to format with (default: a new one)
#   HW_KAFKA_START_TIMEOUT    seconds to wait for readiness (default 120)
#   HW_KAFKA_STOP_TIMEOUT     seconds to wait after SIGTERM before SIGKILL (default 60)
#   plus everything scripts/kafka-run-class.sh understands (KAFKA_HEAP_OPTS, ...)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() { echo "kafka-server: $*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }

read_pid() { [[ -f "$1/kafka.pid" ]] && cat "$1/kafka.pid" || true; }

cmd_start() {
  local dir="$1" port="$2"
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  local cport=$((port + 1))
  local aport="${HW_KAFKA_ADVERTISED_PORT:-$port}"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"

  local old; old="$(read_pid "$dir")"
  if alive "$old"; then die "already running (pid $old) in $dir"; fi
  port_open "$port" && die "port $port is already in use"
  port_open "$cport" && die "port $cport is already in use"

  "$here/fetch-kafka.sh" >/dev/null

  # With a different advertised port (a proxy in front), the broker's own
  # inter-broker traffic (e.g. WriteTxnMarkers to itself) goes to a separate
  # INTERNAL listener on <port+2> instead of through the proxy.
  local listeners="PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${cport}"
  local advertised="PLAINTEXT://127.0.0.1:${aport}"
  local protomap="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  local interbroker="PLAINTEXT"
  if [[ "$aport" != "$port" ]]; then
    local iport=$((port + 2))
    port_open "$iport" && die "port $iport is already in use"
    listeners+=",INTERNAL://127.0.0.1:${iport}"
    advertised+=",INTERNAL://127.0.0.1:${iport}"
    protomap+=",INTERNAL:PLAINTEXT"
    interbroker="INTERNAL"
  fi
  local extra_port=$((port + 3)) entry
  if [[ -n "${HW_KAFKA_EXTRA_LISTENERS:-}" ]]; then
    for entry in ${HW_KAFKA_EXTRA_LISTENERS//,/ }; do
      [[ "$entry" =~ ^[A-Za-z0-9_]+:[A-Z_]+$ ]] || die "bad HW_KAFKA_EXTRA_LISTENERS entry: $entry"
      port_open "$extra_port" && die "port $extra_port is already in use"
      listeners+=",${entry%%:*}://127.0.0.1:${extra_port}"
      advertised+=",${entry%%:*}://127.0.0.1:${extra_port}"
      protomap+=",${entry}"
      extra_port=$((extra_port + 1))
    done
  fi

  local node_id="${HW_KAFKA_NODE_ID:-1}" quorum_line format_flag=()
  case "${HW_KAFKA_QUORUM:-}" in
    "") quorum_line="controller.quorum.voters=${node_id}@127.0.0.1:${cport}" ;;
    standalone)
      quorum_line="controller.quorum.bootstrap.servers=127.0.0.1:${cport}"
      format_flag=(--standalone) ;;
    join:*)
      quorum_line="controller.quorum.bootstrap.servers=${HW_KAFKA_QUORUM#join:}"
      format_flag=(--no-initial-controllers) ;;
    *) die "bad HW_KAFKA_QUORUM: ${HW_KAFKA_QUORUM}" ;;
  esac
  cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=${node_id}
${quorum_line}
listeners=${listeners}
advertised.listeners=${advertised}
listener.security.protocol.map=${protomap}
inter.broker.listener.name=${interbroker}
controller.listener.names=CONTROLLER
log.dirs=${dir}/data
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
${HW_KAFKA_EXTRA_PROPS:-}
PROPS

  if [[ ! -f "$dir/data/meta.properties" ]]; then
    local cluster_id="${HW_KAFKA_CLUSTER_ID:-}"
    [[ -n "$cluster_id" ]] || cluster_id="$("$here/kafka-run-class.sh" kafka.tools.StorageTool random-uuid)"
    "$here/kafka-run-class.sh" kafka.tools.StorageTool format \
      -t "$cluster_id" -c "$dir/server.properties" "${format_flag[@]}" >"$dir/format.log" 2>&1 \
      || { cat "$dir/format.log" >&2; die "storage format failed"; }
  fi

  : > "$dir/kafka.log"
  nohup "$here/kafka-run-class.sh" kafka.Kafka "$dir/server.properties" \
    >>"$dir/kafka.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" > "$dir/kafka.pid"

  local timeout="${HW_KAFKA_START_TIMEOUT:-120}"
  local deadline=$((SECONDS + timeout)) open_since=""
  while :; do
    if ! alive "$pid"; then
      tail -n 40 "$dir/kafka.log" >&2 || true
      rm -f "$dir/kafka.pid"
      die "Kafka exited during startup (see $dir/kafka.log)"
    fi
    if grep -q "Kafka Server started" "$dir/kafka.log" 2>/dev/null && port_open "$port"; then
      break
    fi
    # Fallback when the log config was overridden and the line never comes.
    if port_open "$port"; then
      [[ -z "$open_since" ]] && open_since=$SECONDS
      (( SECONDS - open_since >= 5 )) && break
    fi
    if (( SECONDS >= deadline )); then
      tail -n 40 "$dir/kafka.log" >&2 || true
      kill -TERM "$pid" 2>/dev/null || true
      die "Kafka not ready after ${timeout}s (see $dir/kafka.log)"
    fi
    sleep 0.5
  done
  echo "kafka-server: Apache Kafka ready on 127.0.0.1:$port (pid $pid, dir $dir)" >&2
}

cmd_stop() {
  local dir="$1" pid
  pid="$(read_pid "$dir")"
  if ! alive "$pid"; then
    rm -f "$dir/kafka.pid"
    echo "kafka-server: not running ($dir)" >&2
    return 0
  fi
  kill -TERM "$pid"
  local deadline=$((SECONDS + ${HW_KAFKA_STOP_TIMEOUT:-60}))
  while alive "$pid"; do
    if (( SECONDS >= deadline )); then
      echo "kafka-server: pid $pid still alive after SIGTERM, sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.3
  done
  rm -f "$dir/kafka.pid"
  echo "kafka-server: stopped (pid $pid)" >&2
}

cmd_status() {
  local pid; pid="$(read_pid "$1")"
  if alive "$pid"; then echo "running (pid $pid)"; else echo "stopped"; return 1; fi
}

case "${1:-}" in
  start)  [[ $# -eq 3 ]] || die "usage: $0 start <dir> <port>"; cmd_start "$2" "$3" ;;
  stop)   [[ $# -eq 2 ]] || die "usage: $0 stop <dir>"; cmd_stop "$2" ;;
  status) [[ $# -eq 2 ]] || die "usage: $0 status <dir>"; cmd_status "$2" ;;
  *) die "usage: $0 start <dir> <port> | stop <dir> | status <dir>" ;;
esac
