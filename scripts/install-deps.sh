#!/usr/bin/env bash
# Installs what Scoria needs to build and test, from Debian's packages.
# Safe to run twice: it installs only what is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-dev libboost-filesystem-dev
  libtomlplusplus-dev prometheus-cpp-dev nlohmann-json3-dev libfyaml-dev libssl-dev openssl
  libsqlite3-dev libsystemd-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-yaml python3-kubernetes time
  cargo
  clang-14 libclang-rt-14-dev
  chromium
)

# chromium: headless, it renders simulate's HTML report in the tests.
# kubectl drives the Kubernetes-shaped API in the tests: the one on PATH, or
# Debian's.
command -v kubectl >/dev/null 2>&1 || packages+=(kubernetes-client)
# Node.js and npm run the JavaScript Kubernetes client in the TLS test: the
# ones on PATH, or Debian's.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: every package is installed"
else
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The JavaScript client itself, from the npm registry at the versions its
# package-lock.json pins, next to the test (ignored by git).
js="$(dirname "$0")/../tests/serve/js_client"
if [ ! -d "$js/node_modules/@kubernetes/client-node" ] ||
  [ "$js/package-lock.json" -nt "$js/node_modules/.package-lock.json" ]; then
  echo "install-deps: npm ci in tests/serve/js_client"
  npm ci --prefix "$js" --no-audit --no-fund --loglevel=error
fi
