#!/usr/bin/env bash
# The README's first command: install, build, and schedule the bundled
# example cluster through `scoria simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/bin/scoria plugins
build/bin/scoria simulate --config config/scheduler.toml --output table \
  config/examples/cluster.yaml
