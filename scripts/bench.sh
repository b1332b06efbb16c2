#!/usr/bin/env bash
# The session benchmark: generates S1, S2 and S3 (bench/gencluster.py, or
# GENCLUSTER=PATH), simulates each N times with the default config, and
# prints the table of medians (bench/session_bench.py; --plain adds the
# plain path, --runs N, cluster names to pick, S4 and S5 among them). Builds
# ./build first.
#   scripts/bench.sh [--runs 3] [--plain] [S1 S3 S2 S4 S5]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
exec python3 bench/session_bench.py "$@"
