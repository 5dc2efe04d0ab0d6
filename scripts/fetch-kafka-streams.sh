#!/usr/bin/env bash
# Fetch Apache Kafka Streams (kafka-streams and its runtime dependencies:
# kafka-clients, rocksdbjni, slf4j-api, ...) from Maven Central into a local
# cache, using Maven itself (a small generated pom, then
# `mvn dependency:copy-dependencies`), plus the log4j2 backend Kafka's own jars
# use, so that <cache>/libs alone is the classpath of a Streams application.
# Maven's own ~/.m2 cache is kept.
#
# Usage: scripts/fetch-kafka-streams.sh    # prints the cache dir on stdout
#
# Environment:
#   KAFKA_VERSION           Kafka Streams version (default 4.3.1, the version
#                           scripts/fetch-kafka.sh fetches)
#   HW_KAFKA_STREAMS_CACHE  cache dir (default
#                           $HOME/.cache/highwater/kafka-streams-<version>);
#                           jars land in <cache>/libs
#   MVN                     maven binary (default: mvn)
#
# Idempotent: if <cache>/libs/.complete exists nothing is downloaded.
set -euo pipefail

KAFKA_VERSION="${KAFKA_VERSION:-4.3.1}"
# The log4j2 version scripts/fetch-kafka.sh uses (slf4j 1.7 binding).
LOG4J_VERSION="${LOG4J_VERSION:-2.25.4}"
CACHE="${HW_KAFKA_STREAMS_CACHE:-$HOME/.cache/highwater/kafka-streams-${KAFKA_VERSION}}"
LIBS="$CACHE/libs"
MVN="${MVN:-mvn}"

if [[ -f "$LIBS/.complete" ]]; then
  echo "$CACHE"
  exit 0
fi

command -v "$MVN" >/dev/null || { echo "fetch-kafka-streams: maven ($MVN) not found" >&2; exit 1; }

mkdir -p "$CACHE"
tmp="$(mktemp -d)"
# Download into a private dir and rename at the end, so that concurrent runs
# (or an interrupted one) never leave a half-filled libs/ behind.
staging="$(mktemp -d "$CACHE/libs.tmp.XXXXXX")"
trap 'rm -rf "$tmp" "$staging"' EXIT

dep() { # groupId artifactId version
  printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n' \
    "$1" "$2" "$3"
}

{
  cat <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>highwater.local</groupId>
  <artifactId>kafka-streams-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
POM
  # kafka-streams brings kafka-clients and the plain rocksdbjni jar (which
  # carries the native libraries of every platform).
  dep org.apache.kafka kafka-streams "$KAFKA_VERSION"
  dep org.apache.logging.log4j log4j-api "$LOG4J_VERSION"
  dep org.apache.logging.log4j log4j-core "$LOG4J_VERSION"
  dep org.apache.logging.log4j log4j-slf4j-impl "$LOG4J_VERSION"
  cat <<POM
  </dependencies>
</project>
POM
} > "$tmp/pom.xml"

echo "fetch-kafka-streams: resolving Kafka Streams $KAFKA_VERSION from Maven Central into $LIBS" >&2
"$MVN" -B -q -Dstyle.color=never -f "$tmp/pom.xml" \
  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
  -DoutputDirectory="$staging" -DincludeScope=runtime -DexcludeTransitive=false \
  -Dmdep.useRepositoryLayout=false -Dsilent=true >"$tmp/mvn.log" 2>&1 \
  || { sed 's/\x1b\[[0-9;]*m//g' "$tmp/mvn.log" >&2; echo "fetch-kafka-streams: maven failed" >&2; exit 1; }

# Sanity: the streams jar, the clients and RocksDB must be there.
ls "$staging"/kafka-streams-"$KAFKA_VERSION".jar "$staging"/kafka-clients-"$KAFKA_VERSION".jar \
   "$staging"/rocksdbjni-*.jar >/dev/null
echo "$KAFKA_VERSION" > "$staging/.complete"
if [[ ! -f "$LIBS/.complete" ]]; then
  rm -rf "$LIBS"
  mv -T "$staging" "$LIBS" 2>/dev/null || [[ -f "$LIBS/.complete" ]]
fi
echo "$CACHE"
