#!/usr/bin/env bash
# Capture golden protocol bytes from real Kafka clients talking to a real
# Apache Kafka broker (fetched from Maven Central), through
# tests/tools/kafka_capture_proxy.py, and write them to
# tests/protocol/fixtures/ (java/, librdkafka/, manifest.json).
#
# Not run by CI.  Needs: Java 17+, Maven (scripts/fetch-kafka.sh), python3,
# kcat (Debian package `kcat`, built on librdkafka).
#
# Usage: tests/tools/capture_fixtures.sh [out-dir]     (default tests/protocol/fixtures)
#
# Environment:
#   HW_CAPTURE_KAFKA_PORT  broker PLAINTEXT port (default 29092; controller = +1)
#   HW_CAPTURE_PROXY_PORT  capture proxy port (default 29192); the broker
#                          advertises this port so clients stay on the proxy
#   KAFKA_VERSION          see scripts/fetch-kafka.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/tests/protocol/fixtures}"
kport="${HW_CAPTURE_KAFKA_PORT:-29092}"
pport="${HW_CAPTURE_PROXY_PORT:-29192}"
bootstrap="127.0.0.1:$pport"
codecs=(none gzip snappy lz4 zstd)

command -v kcat >/dev/null || { echo "capture: kcat not found (apt-get install kcat)" >&2; exit 1; }

work="$(mktemp -d /tmp/hw-capture.XXXXXX)"
stage="$work/fixtures"
mkdir -p "$stage"
proxy_pid=""

cleanup() {
  set +e
  if [[ -n "$proxy_pid" ]] && kill -0 "$proxy_pid" 2>/dev/null; then
    kill -TERM "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
  fi
  "$root/scripts/kafka-server.sh" stop "$work/kafka" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

cache="$("$root/scripts/fetch-kafka.sh")"
kafka_version="$(cat "$cache/libs/.complete")"

# Compile the Java scenarios once.
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" -cp "$cache/libs/*" "$root/tests/tools/JavaClientScenarios.java"
export HW_KAFKA_EXTRA_CLASSPATH="$work/classes"

HW_KAFKA_ADVERTISED_PORT="$pport" "$root/scripts/kafka-server.sh" start "$work/kafka" "$kport"

start_proxy() { # client scenario
  rm -f "$work/proxy.ready"
  python3 "$root/tests/tools/kafka_capture_proxy.py" --listen "$pport" --target "$kport" \
    --out "$stage" --client "$1" --scenario "$2" --ready-file "$work/proxy.ready" &
  proxy_pid=$!
  for _ in $(seq 100); do [[ -f "$work/proxy.ready" ]] && return 0; sleep 0.1; done
  echo "capture: proxy did not start" >&2; exit 1
}

stop_proxy() {
  kill -TERM "$proxy_pid"; wait "$proxy_pid" || true; proxy_pid=""
}

scenario() { # client scenario command...
  local client="$1" name="$2"; shift 2
  echo "capture: --- $client / $name" >&2
  start_proxy "$client" "$name"
  "$@" >/dev/null || { echo "capture: scenario $client/$name failed" >&2; stop_proxy; exit 1; }
  stop_proxy
}

java_client() {
  KAFKA_HEAP_OPTS=-Xmx256m timeout 120 "$root/scripts/kafka-run-class.sh" JavaClientScenarios "$bootstrap" "$@"
}
kc() { timeout 60 kcat -b "$bootstrap" "$@"; }
# Run kcat for a fixed time, then SIGINT (a balanced consumer commits and leaves).
kc_for() { # seconds args...
  local secs="$1" rc=0; shift
  timeout -s INT "$secs" kcat -b "$bootstrap" "$@" || rc=$?
  [[ $rc -eq 0 || $rc -eq 124 ]]
}

# ---------------------------------------------------------------- Java client
topics=()
for c in "${codecs[@]}"; do topics+=("java-$c" "rdk-$c"); done
topics+=(java-plain java-txn rdk-idempotent)
scenario java admin java_client admin "${topics[@]}"

for c in "${codecs[@]}"; do
  scenario java "produce-$c" java_client produce "java-$c" "$c"
done
scenario java produce-non-idempotent java_client produce-plain java-plain
scenario java consume-classic-group java_client consume java-gzip hw-java-classic 7
scenario java consume-consumer-group java_client consume-848 java-zstd hw-java-848 7
scenario java transactional java_client transactional java-txn hw-java-txn-group
scenario java admin-groups java_client admin-groups java-plain hw-java-classic hw-java-848

# ---------------------------------------------------------------- librdkafka (kcat)
rdk_input() { # codec
  for i in 0 1 2 3 4; do
    printf 'key-%s:value-%s-%s lorem ipsum lorem ipsum lorem ipsum\n' "$i" "$1" "$i"
  done
}

scenario librdkafka metadata kc -L -X client.id=hw-kcat
for c in "${codecs[@]}"; do
  rdk_input "$c" > "$work/rdk-$c.txt"
  scenario librdkafka "produce-$c" kc -X client.id=hw-kcat-producer \
    -P -t "rdk-$c" -p 0 -K : -H hdr-a=a -H hdr-b=b -z "$c" -X linger.ms=100 \
    -l "$work/rdk-$c.txt"
done
rdk_input idempotent > "$work/rdk-idem.txt"
scenario librdkafka produce-idempotent kc -X client.id=hw-kcat-idempotent \
  -P -t rdk-idempotent -p 0 -K : -X enable.idempotence=true -X linger.ms=100 \
  -l "$work/rdk-idem.txt"
for c in "${codecs[@]}"; do
  scenario librdkafka "consume-$c" kc -X client.id=hw-kcat-consumer \
    -C -t "rdk-$c" -p 0 -o beginning -e -q
done
# Balanced consumer group: JoinGroup/SyncGroup/Heartbeat/OffsetCommit/LeaveGroup.
# kcat stops on SIGINT, committing and leaving the group.
scenario librdkafka consume-group kc_for 8 \
  -X client.id=hw-kcat-group -X heartbeat.interval.ms=500 -X auto.commit.interval.ms=1000 \
  -X auto.offset.reset=earliest -G hw-kcat-group -q rdk-gzip

"$root/scripts/kafka-server.sh" stop "$work/kafka"

# Record how the capture was made and install the result.
python3 - "$stage/manifest.json" "$kafka_version" "$(kcat -V 2>&1 | grep -o 'librdkafka [0-9.]*' | head -1)" <<'EOF'
import json, sys
path, kafka_version, rdk = sys.argv[1:4]
m = json.load(open(path))
m = {"broker": f"Apache Kafka {kafka_version} (KRaft, single node)",
     "clients": {"java": f"kafka-clients {kafka_version}", "librdkafka": f"kcat 1.7.1 / {rdk}"},
     "pairs": m["pairs"]}
json.dump(m, open(path, "w"), indent=1)
open(path, "a").write("\n")
EOF
mkdir -p "$out"
rm -rf "$out/java" "$out/librdkafka" "$out/manifest.json"
cp -r "$stage/." "$out/"
echo "capture: wrote $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pairs"]))' "$out/manifest.json") pairs, $(du -sb "$out" | cut -f1) bytes to $out" >&2
