#!/usr/bin/env bash
# scripts/install.sh lays out what README's commands call by name: highwater
# and its configuration, and Kafka's tools, under a prefix; each runs from
# there. Usage: install_test.sh <build dir>
set -euo pipefail
build_dir="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cd "$(dirname "$0")/../.."
./scripts/install.sh --prefix "$prefix" --build-dir "$build_dir" --no-build >/dev/null
test -x "$prefix/bin/highwater" || { echo "no $prefix/bin/highwater"; exit 1; }
test -f "$prefix/etc/highwater/server.properties" || { echo "no server.properties"; exit 1; }
export PATH="$prefix/bin:$PATH"
highwater --help 2>&1 | grep -q "^Usage: highwater" || { echo "highwater --help does not run from PATH"; exit 1; }
test -x "$prefix/bin/kafka-metadata-quorum.sh" || { echo "no kafka-metadata-quorum.sh"; exit 1; }
for tool in kafka-topics.sh kafka-console-producer.sh kafka-console-consumer.sh kafka-configs.sh \
            kafka-consumer-groups.sh; do
  out="$("$tool" --version 2>&1)" || { echo "$tool --version failed: $out"; exit 1; }
  case "$out" in *4.3.1*) ;; *) echo "$tool --version: $out"; exit 1 ;; esac
done
echo "installed layout works from $prefix"
