#!/usr/bin/env bash
# Run a class of Apache Kafka (fetched from Maven Central by
# scripts/fetch-kafka.sh) with the cached jars on the classpath.
#
# Usage: scripts/kafka-run-class.sh <MainClass> [args...]
#
# Environment:
#   KAFKA_VERSION, HW_KAFKA_CACHE   see scripts/fetch-kafka.sh
#   KAFKA_HEAP_OPTS                 default -Xmx512m
#   KAFKA_JVM_PERFORMANCE_OPTS      default G1 options as in Kafka's own script
#   KAFKA_LOG4J_OPTS                default -Dlog4j2.configurationFile=scripts/kafka-log4j2.properties
#                                   (WARN to stderr; HW_KAFKA_LOG_LEVEL=INFO for more)
#   KAFKA_OPTS                      extra JVM options
#   HW_KAFKA_EXTRA_CLASSPATH        prepended to the classpath (e.g. compiled test programs)
#   JAVA                            java binary (default: java; Kafka 4.x needs Java 17+)
#
# Main classes of Apache Kafka 4.3 (verified by listing the jars):
#   broker (KRaft)          kafka.Kafka <server.properties>                       kafka_2.13
#   kafka-storage.sh        kafka.tools.StorageTool                               kafka_2.13
#   kafka-configs.sh        kafka.admin.ConfigCommand                             kafka_2.13
#   kafka-topics.sh         org.apache.kafka.tools.TopicCommand                   kafka-tools
#   kafka-console-producer  org.apache.kafka.tools.ConsoleProducer                kafka-tools
#   kafka-console-consumer  org.apache.kafka.tools.consumer.ConsoleConsumer       kafka-tools
#   kafka-consumer-groups   org.apache.kafka.tools.consumer.group.ConsumerGroupCommand  kafka-tools
#   kafka-get-offsets       org.apache.kafka.tools.GetOffsetShell                 kafka-tools
#   kafka-broker-api-versions org.apache.kafka.tools.BrokerApiVersionsCommand     kafka-tools
#   kafka-producer-perf-test org.apache.kafka.tools.ProducerPerformance           kafka-tools
#   kafka-consumer-perf-test org.apache.kafka.tools.ConsumerPerformance           kafka-tools
#   kafka-e2e-latency       org.apache.kafka.tools.EndToEndLatency                kafka-tools
#   kafka-delete-records    org.apache.kafka.tools.DeleteRecordsCommand           kafka-tools
#   kafka-dump-log.sh       org.apache.kafka.tools.DumpLogSegments                kafka-tools
#   kafka-metadata-quorum   org.apache.kafka.tools.MetadataQuorumCommand          kafka-tools
#   kafka-features.sh       org.apache.kafka.tools.FeatureCommand                 kafka-tools
#   kafka-transactions.sh   org.apache.kafka.tools.TransactionsCommand            kafka-tools
#   kafka-verifiable-producer/consumer  org.apache.kafka.tools.VerifiableProducer / VerifiableConsumer
#   kafka-log-dirs.sh       org.apache.kafka.tools.LogDirsCommand                 kafka-tools
#   kafka-acls.sh           org.apache.kafka.tools.AclCommand                     kafka-tools
#   kafka-delegation-tokens org.apache.kafka.tools.DelegationTokenCommand         kafka-tools
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 <MainClass> [args...]" >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="$("$here/fetch-kafka.sh")"

: "${KAFKA_HEAP_OPTS:=-Xmx512m}"
: "${KAFKA_JVM_PERFORMANCE_OPTS:=-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"
: "${KAFKA_LOG4J_OPTS:=-Dlog4j2.configurationFile=$here/kafka-log4j2.properties}"
: "${KAFKA_OPTS:=}"
JAVA="${JAVA:-java}"
cp="$cache/libs/*"
[[ -n "${HW_KAFKA_EXTRA_CLASSPATH:-}" ]] && cp="$HW_KAFKA_EXTRA_CLASSPATH:$cp"

# shellcheck disable=SC2086  # the *_OPTS variables are word lists
exec "$JAVA" $KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS $KAFKA_LOG4J_OPTS $KAFKA_OPTS \
  -cp "$cp" "$@"
