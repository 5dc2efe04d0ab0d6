#!/usr/bin/env bash
# Builds highwater and runs a single-node broker on localhost:9092.
# Extra arguments go to highwater (e.g. --config config/server.properties).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh highwater
exec ./build/highwater "$@"
