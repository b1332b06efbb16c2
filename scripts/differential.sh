#!/usr/bin/env bash
# A longer differential run than CI's: randomized clusters decided with and
# without the equivalence cache must agree to the byte
# (tests/differential/differential_test.cpp).
#   scripts/differential.sh [CLUSTERS [FIRST_SEED]]   (default 20000 from 1001)
# Needs a build in ./build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export SCORIA_DIFFERENTIAL_CLUSTERS="${1:-20000}"
export SCORIA_DIFFERENTIAL_SEED="${2:-1001}"
exec build/bin/scoria_differential_tests
