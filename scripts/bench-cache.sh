#!/usr/bin/env bash
# Measures the cache refresh of the local source at scale: incremental (1% of
# the pods changed) against a full relist and the reload it replaced, medians
# of 3 (bench/cache_refresh_bench.cpp). Generates the cluster if missing.
#   scripts/bench-cache.sh [CLUSTER.yaml] [benchmark flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
cluster=${1:-/tmp/s2.yaml}
shift || true
if [[ ! -s $cluster ]]; then
  python3 bench/gencluster.py --nodes 5000 --running-jobs 87000 --running-pods 150000 \
    --gang-jobs 500 --gang-size 20 --queues 4 >"$cluster"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCORIA_BUILD_BENCH=ON >/dev/null
cmake --build build --target scoria_cache_bench
build/bin/scoria_cache_bench "$cluster" "$@"
