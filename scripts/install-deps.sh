#!/usr/bin/env bash
# Installs everything Highwater needs to build and test on Debian 12.
# Idempotent: a machine that already has the packages skips apt entirely.
#   scripts/install-deps.sh               everything: build, tests, benchmarks
#   scripts/install-deps.sh --build-only  what building highwater and its tools
#                                         needs, no more (the image's build stage)
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build python3 pkg-config
  libboost1.81-dev libspdlog-dev libfmt-dev
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
  librdkafka-dev prometheus-cpp-dev nlohmann-json3-dev libssl-dev libkrb5-dev libre2-dev libxxhash-dev
)
build_only=0
[ "${1:-}" = "--build-only" ] && build_only=1
packages=("${build_packages[@]}")
if [ "$build_only" = 0 ]; then
  packages+=(
    ccache mold python3-venv
    clang-14 libclang-rt-14-dev llvm-14
    libgtest-dev libgmock-dev libbenchmark-dev
    kcat openjdk-17-jdk-headless maven
    openssl
    krb5-kdc krb5-admin-server krb5-user libsasl2-modules-gssapi-mit
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "$build_only" = 1 ] && exit 0

# Python clients for the compat tests (tests/compat/python) and the test identity
# provider's JWT signing (tests/support/oidc_provider.py): a venv under the
# cache dir CI keeps, so pip runs only when the pinned versions change.
py_venv="${HW_PY_VENV:-$HOME/.cache/highwater/py-venv}"
py_packages=(confluent-kafka==2.16.1 pyjwt==2.15.1 cryptography==50.0.2)
py_stamp="$py_venv/.installed"
if [ "$(cat "$py_stamp" 2>/dev/null)" != "${py_packages[*]}" ]; then
  python3 -m venv "$py_venv"
  "$py_venv/bin/pip" install -q --disable-pip-version-check "${py_packages[@]}"
  echo "${py_packages[*]}" > "$py_stamp"
fi
