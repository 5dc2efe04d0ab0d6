#!/usr/bin/env bash
# Fetch Apache Kafka (broker + CLI tools + clients) from Maven Central into a
# local cache, using Maven itself (a small generated pom, then
# `mvn dependency:copy-dependencies`).  Maven's own ~/.m2 cache is kept.
#
# Usage: scripts/fetch-kafka.sh            # prints the cache dir on stdout
#
# Environment:
#   KAFKA_VERSION   Apache Kafka version (default 4.3.1: the reference protocol
#                   definitions are Kafka 4.3; 4.4.0 is also on Maven Central)
#   HW_KAFKA_CACHE  cache dir (default $HOME/.cache/highwater/kafka-<version>);
#                   jars land in <cache>/libs
#   MVN             maven binary (default: mvn)
#
# Idempotent: if <cache>/libs/.complete exists nothing is downloaded.
set -euo pipefail

KAFKA_VERSION="${KAFKA_VERSION:-4.3.1}"
# log4j2 version Kafka 4.3 itself depends on (kafka-server pom); slf4j is 1.7.x
# in Kafka 4.3, so the matching binding is log4j-slf4j-impl (not -slf4j2-).
LOG4J_VERSION="${LOG4J_VERSION:-2.25.4}"
CACHE="${HW_KAFKA_CACHE:-$HOME/.cache/highwater/kafka-${KAFKA_VERSION}}"
LIBS="$CACHE/libs"
MVN="${MVN:-mvn}"

if [[ -f "$LIBS/.complete" ]]; then
  echo "$CACHE"
  exit 0
fi

command -v "$MVN" >/dev/null || { echo "fetch-kafka: maven ($MVN) not found" >&2; exit 1; }

mkdir -p "$CACHE"
tmp="$(mktemp -d)"
# Download into a private dir and rename at the end, so that concurrent runs
# (or an interrupted one) never leave a half-filled libs/ behind.
staging="$(mktemp -d "$CACHE/libs.tmp.XXXXXX")"
trap 'rm -rf "$tmp" "$staging"' EXIT

dep() { # groupId artifactId version [exclusions-xml]
  printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version>%s</dependency>\n' \
    "$1" "$2" "$3" "${4:-}"
}

{
  cat <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>highwater.local</groupId>
  <artifactId>kafka-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
POM
  for a in kafka_2.13 kafka-clients kafka-server kafka-server-common kafka-storage \
           kafka-storage-api kafka-metadata kafka-raft kafka-group-coordinator \
           kafka-group-coordinator-api kafka-transaction-coordinator \
           kafka-share-coordinator kafka-coordinator-common kafka-tools-api; do
    dep org.apache.kafka "$a" "$KAFKA_VERSION"
  done
  # kafka-tools pulls connect-runtime (Jetty, Jersey, ...) only for
  # ConnectPluginPath; none of the tools we use need it.
  dep org.apache.kafka kafka-tools "$KAFKA_VERSION" \
    '<exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId></exclusion></exclusions>'
  # Logging backend: slf4j 1.7 -> log4j2.  (jackson-dataformat-yaml, needed for
  # the YAML log4j2 config, already comes with kafka_2.13.)
  dep org.apache.logging.log4j log4j-api "$LOG4J_VERSION"
  dep org.apache.logging.log4j log4j-core "$LOG4J_VERSION"
  dep org.apache.logging.log4j log4j-slf4j-impl "$LOG4J_VERSION"
  dep org.apache.logging.log4j log4j-1.2-api "$LOG4J_VERSION"
  cat <<POM
  </dependencies>
</project>
POM
} > "$tmp/pom.xml"

echo "fetch-kafka: resolving Apache Kafka $KAFKA_VERSION from Maven Central into $LIBS" >&2
"$MVN" -B -q -Dstyle.color=never -f "$tmp/pom.xml" \
  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
  -DoutputDirectory="$staging" -DincludeScope=runtime -DexcludeTransitive=false \
  -Dmdep.useRepositoryLayout=false -Dsilent=true >"$tmp/mvn.log" 2>&1 \
  || { sed 's/\x1b\[[0-9;]*m//g' "$tmp/mvn.log" >&2; echo "fetch-kafka: maven failed" >&2; exit 1; }

# Sanity: the broker jar must be there.
ls "$staging"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null
echo "$KAFKA_VERSION" > "$staging/.complete"
if [[ ! -f "$LIBS/.complete" ]]; then
  rm -rf "$LIBS"
  mv -T "$staging" "$LIBS" 2>/dev/null || [[ -f "$LIBS/.complete" ]]
fi
echo "$CACHE"
