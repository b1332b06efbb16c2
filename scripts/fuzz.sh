#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan, into
# build-fuzz) and runs each for a while; prints executions per target and
# in all. A crash stops with the reproducer's path and fails.
#
#   scripts/fuzz.sh                     60 s per target
#   scripts/fuzz.sh --time 3600         an hour each (by hand)
#   scripts/fuzz.sh --corpus DIR        where corpora grow (default: build-fuzz/corpus)
#   scripts/fuzz.sh --only api          one target
#   scripts/fuzz.sh --opt -O0           optimisation level (-O1 by default)
#   scripts/fuzz.sh --tree build-asan   the targets of a tree configured with
#                                       SCORIA_FUZZ (scripts/test.sh's sanitized tree),
#                                       built as that tree is (--opt is for build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."

time_each=60
corpus=""
only=""
opt=-O1
tree=""
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_each="$2"; shift 2 ;;
    --corpus) corpus="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    --tree) tree="$2"; shift 2 ;;
    *) echo "usage: scripts/fuzz.sh [--time SECONDS] [--corpus DIR] [--only TARGET] [--opt -O0|-O1|-O2] [--tree DIR]" >&2; exit 2 ;;
  esac
done

targets=(objects config quantity kubeconfig api cel block_yaml kube_list protobuf)
[ -n "$only" ] && targets=("$only")

if [ -z "$tree" ]; then
  tree=build-fuzz
  # Unity build: as scripts/test.sh's, for the compile time; the layers'
  # header checks are the plain build's.
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$opt -g1" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt -g1" \
    -DSCORIA_WERROR=ON -DSCORIA_FUZZ=ON -DSCORIA_BUILD_TESTS=OFF -DSCORIA_CHECK_LAYER_HEADERS=OFF \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
fi
cmake --build "$tree" -j "$(nproc)" --target "${targets[@]/%/_fuzz}"
corpus="${corpus:-$tree/corpus}"

mkdir -p "$corpus"
python3 fuzz/seeds.py "$PWD" "$corpus"

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
total=0
status=0
for t in "${targets[@]}"; do
  mkdir -p "$corpus/$t" "$tree/findings"
  log="$tree/$t.log"
  # Object files are many documents: long ones cost milliseconds each and
  # find nothing short ones do not.
  max_len=65536
  [ "$t" = objects ] || [ "$t" = block_yaml ] && max_len=16384
  dict=()
  case "$t" in objects | config | kubeconfig | block_yaml | kube_list) dict=(-dict=fuzz/yaml.dict) ;; esac
  # -rss_limit_mb: the limits refuse big inputs long before this; an input
  # that needs more is a finding.
  if ! "$tree/bin/${t}_fuzz" "$corpus/$t" "${dict[@]}" -max_total_time="$time_each" \
      -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$tree/findings/$t-" >"$log" 2>&1; then
    echo "fuzz: $t found a failure; reproducer and report:" >&2
    ls "$tree/findings/$t"-* >&2 || true
    tail -60 "$log" >&2
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  printf 'fuzz: %-10s %12d executions in %ss\n' "$t" "$runs" "$time_each"
done
printf 'fuzz: %-10s %12d executions\n' total "$total"
exit "$status"
