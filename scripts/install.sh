#!/usr/bin/env bash
# Installs Highwater as a package would: `highwater` in <prefix>/bin, the
# sample configuration in <prefix>/etc/highwater/server.properties, and
# Kafka's command-line tools in <prefix>/bin: the native ones
# (highwater-tools, tools/README.md, linked as kafka-topics.sh & co.), and
# for the tools that have no native version yet, Apache Kafka 4.3.1's, run
# from its jars (fetched once from Maven Central into ~/.cache/highwater).
#
# Usage: scripts/install.sh [--prefix DIR] [--build-dir DIR] [--no-build] [--no-kafka-tools]
#   --prefix DIR       default /usr/local (as root), else ~/.local
#   --build-dir DIR    the tree to install from (default build-release/, built Release)
#   --no-build         install what DIR already holds
#   --no-kafka-tools   only highwater and its configuration
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
build_dir=build-release
build=1
tools=1
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-kafka-tools) tools=0; shift ;;
    *) echo "install: unknown option '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done

if [ "$build" = 1 ]; then
  HW_BUILD_DIR="$build_dir" HW_BUILD_TYPE=Release ./scripts/build.sh highwater highwater-tools
fi
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
echo "installed $prefix/bin/highwater, $prefix/etc/highwater/server.properties and the native tools ($(tr '\n' ' ' < tools/tool_names.txt))"

if [ "$tools" = 1 ]; then
  share="$prefix/share/highwater"
  mkdir -p "$share/scripts" "$prefix/bin"
  cp scripts/fetch-kafka.sh scripts/kafka-run-class.sh scripts/kafka-log4j2.properties "$share/scripts/"
  "$share/scripts/fetch-kafka.sh" >/dev/null
  # tool name -> main class, as in Kafka 4.3's bin/ (see kafka-run-class.sh)
  while read -r name class; do
    grep -q -x -F "$name" tools/tool_names.txt && continue  # the native one is installed
    rm -f "$prefix/bin/$name"
    cat > "$prefix/bin/$name" <<WRAP
#!/usr/bin/env bash
# Apache Kafka 4.3.1's $name, installed by Highwater's scripts/install.sh.
exec "$share/scripts/kafka-run-class.sh" $class "\$@"
WRAP
    chmod +x "$prefix/bin/$name"
  done <<'TOOLS'
kafka-topics.sh org.apache.kafka.tools.TopicCommand
kafka-console-producer.sh org.apache.kafka.tools.ConsoleProducer
kafka-console-consumer.sh org.apache.kafka.tools.consumer.ConsoleConsumer
kafka-consumer-groups.sh org.apache.kafka.tools.consumer.group.ConsumerGroupCommand
kafka-configs.sh kafka.admin.ConfigCommand
kafka-get-offsets.sh org.apache.kafka.tools.GetOffsetShell
kafka-broker-api-versions.sh org.apache.kafka.tools.BrokerApiVersionsCommand
kafka-delete-records.sh org.apache.kafka.tools.DeleteRecordsCommand
kafka-dump-log.sh org.apache.kafka.tools.DumpLogSegments
kafka-metadata-quorum.sh org.apache.kafka.tools.MetadataQuorumCommand
kafka-features.sh org.apache.kafka.tools.FeatureCommand
kafka-log-dirs.sh org.apache.kafka.tools.LogDirsCommand
kafka-leader-election.sh org.apache.kafka.tools.LeaderElectionCommand
kafka-producer-perf-test.sh org.apache.kafka.tools.ProducerPerformance
kafka-consumer-perf-test.sh org.apache.kafka.tools.ConsumerPerformance
kafka-storage.sh kafka.tools.StorageTool
TOOLS
  echo "installed Kafka's Java tools for the others in $prefix/bin"
fi
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "add $prefix/bin to PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
