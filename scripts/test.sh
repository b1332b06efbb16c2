#!/usr/bin/env bash
# The README's second command: install, build with warnings as errors, run
# every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DSCORIA_WERROR=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"
