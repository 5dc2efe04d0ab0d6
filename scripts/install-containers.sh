#!/usr/bin/env bash
# Makes `docker build`, `docker run` and `docker compose` work on a Debian 12
# machine with no Docker engine and no registry (docker/README.md): Debian's
# podman serves the Docker API, the installed `docker` CLI talks to it, a
# Debian 12 base image is made from Debian's packages, and the compose
# plugin is built from the Go module proxy. Each slow step is cached under
# ~/.cache/highwater (CI keeps it). Idempotent; needs root (or sudo).
#
#   scripts/install-containers.sh     install, then print the DOCKER_HOST to export
#
# Afterwards: export DOCKER_HOST=unix:///run/podman/podman.sock
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
cache="${HW_CACHE_DIR:-$HOME/.cache/highwater}"
mkdir -p "$cache"
compose_version=v2.40.3
base_image=localhost/debian:bookworm-minbase
socket=/run/podman/podman.sock

# 1. Podman with runc (crun fails on hybrid cgroups), netavark and
#    aardvark-dns (containers on one network resolve each other by name).
packages=(podman runc netavark aardvark-dns iptables uidmap debootstrap curl)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v docker >/dev/null; then missing+=(docker.io); fi  # the CLI (its engine stays unused)
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. containers.conf: the sandbox refuses podman's default rlimits, and runc
#    is the runtime that works here.
conf=/etc/containers/containers.conf
want='# Written by Highwater'"'"'s scripts/install-containers.sh.
[containers]
default_ulimits = ["nofile=10000:10000", "nproc=4096:4096"]

[engine]
runtime = "runc"'
if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
  if [ -s "$conf" ] && ! grep -q "install-containers.sh" "$conf"; then
    echo "install-containers: $conf exists and was not written by this script; leaving it as it is" >&2
  else
    printf '%s\n' "$want" | $sudo_cmd tee "$conf" >/dev/null
  fi
fi

# 3. The Docker API on a socket, served by podman until the machine stops.
if ! curl -sf --unix-socket "$socket" http://d/_ping >/dev/null 2>&1; then
  $sudo_cmd mkdir -p "$(dirname "$socket")"
  $sudo_cmd rm -f "$socket"
  $sudo_cmd setsid podman system service --time=0 "unix://$socket" \
    </dev/null >"$cache/podman-service.log" 2>&1 &
  for _ in $(seq 1 100); do
    curl -sf --unix-socket "$socket" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -sf --unix-socket "$socket" http://d/_ping >/dev/null \
    || { echo "install-containers: podman's API did not come up on $socket; see $cache/podman-service.log" >&2; exit 1; }
fi

# 4. The base image, Debian 12 from Debian's packages (minbase: apt and
#    dpkg, no docs stripping; the runtime stage removes what it does not need).
if ! podman image exists "$base_image"; then
  tarball="$cache/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    root="$(mktemp -d "$cache/debootstrap.XXXXXX")"
    $sudo_cmd debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 \
      || { echo "install-containers: debootstrap failed; see $cache/debootstrap.log" >&2; exit 1; }
    $sudo_cmd rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    $sudo_cmd tar -C "$root" -cf "$tarball.tmp" .
    $sudo_cmd rm -rf "$root"
    mv "$tarball.tmp" "$tarball"
  fi
  podman import --change 'CMD ["bash"]' "$tarball" "$base_image" >"$cache/podman-import.log" 2>&1 \
    || { echo "install-containers: podman import failed; see $cache/podman-import.log" >&2; exit 1; }
fi

# 5. docker compose v2 from the Go module proxy (`go install` refuses the
#    module for its exclude directives; a build inside its own copy works).
plugin=/usr/libexec/docker/cli-plugins/docker-compose
built="$cache/docker-compose-$compose_version"
if [ ! -x "$built" ]; then
  export PATH="$PATH:/usr/local/go/bin"
  dir="$(go mod download -json "github.com/docker/compose/v2@$compose_version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
  work="$(mktemp -d)"
  cp -r "$dir/." "$work"
  chmod -R u+w "$work"
  (cd "$work" && CGO_ENABLED=0 go build -trimpath \
     -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$compose_version" \
     -o "$built.tmp" ./cmd)
  rm -rf "$work"
  mv "$built.tmp" "$built"
fi
if ! cmp -s "$built" "$plugin"; then
  $sudo_cmd mkdir -p "$(dirname "$plugin")"
  $sudo_cmd install -m 0755 "$built" "$plugin"
fi

echo "export DOCKER_HOST=unix://$socket"
