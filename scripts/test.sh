#!/usr/bin/env bash
# The README's second command: install, build with warnings as errors, run
# every test through ctest; then the same suite again built under
# AddressSanitizer (with LeakSanitizer) and UBSan, in build-asan; then
# each libFuzzer target for a bounded time, from that same tree.
#
# The plain build is gcc's, the release compiler; the sanitized one is
# clang's, so the whole tree builds with both compilers and warnings as
# errors. Clang builds the sanitized tree in about half the time gcc takes,
# and with SCORIA_FUZZ it builds the libFuzzer targets in it too (every
# object also instrumented for coverage): one instrumented build serves the
# suite and the fuzzers, where a second tree for the fuzzers took as long
# again as the whole host.
set -euo pipefail
cd "$(dirname "$0")/.."
# On a CI runner that is itself a pod, serve's tests must not find the
# runner's cluster: in a pod the source defaults to Kubernetes.
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT
scripts/install-deps.sh
# -g1 (line tables) instead of RelWithDebInfo's -g: the suite needs no more,
# and full debug info is about 30% of this build's compile time.
# Unity builds (16 sources a compile): the shared headers (Boost,
# nlohmann/json, gtest) are compiled once per batch, not once per file (184
# build steps instead of 404). Developer builds stay per file.
# The benchmarks are built (not run) too, so that they keep compiling.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
scripts/build.sh -DSCORIA_WERROR=ON "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DSCORIA_BUILD_BENCH=ON "${unity[@]}"
ctest --test-dir build --output-on-failure -j "$(nproc)"

# -O0: the sanitized build compiles in about half the time it takes at
# -O1 (the optimizer's share grows with the sanitizers' instrumentation), and
# this suite's tests are short: its run takes longer by less than its
# compile saves. Without NDEBUG, so assertions are checked as well. -g1:
# line tables and function names are all a report's stack needs.
# The layers' header checks ran in the plain build; they find nothing new here.
# A tree an earlier test.sh configured with gcc is made anew.
if [ -f build-asan/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' build-asan/CMakeCache.txt; then
  rm -rf build-asan
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O0 -g1" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g1" \
  -DSCORIA_WERROR=ON -DSCORIA_SANITIZE=ON -DSCORIA_FUZZ=ON -DSCORIA_CHECK_LAYER_HEADERS=OFF \
  "${unity[@]}" >/dev/null
cmake --build build-asan -j "$(nproc)"

# Every report goes to a file as well, so one written by a child process
# (scoria run by a test and judged only by its output) still fails the run.
reports="$PWD/build-asan/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
# intercept_tls_get_addr=0: this runtime guesses the bounds of a plugin's
# dynamic TLS block from a glibc 2.19 header whenever the block's address is
# 16 past a page, and a small block there reads as garbage bounds that crash
# LeakSanitizer's scan at exit (one run in a few hundred, by heap layout). The
# blocks stay reachable for LeakSanitizer without it: the thread's DTV points
# at them from static TLS, which it scans.
export ASAN_OPTIONS="detect_leaks=1:intercept_tls_get_addr=0:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
# The differential test's 1000 clusters ran in the plain build; 200 here
# cover its paths under the sanitizers in a fraction of the time.
export SCORIA_DIFFERENTIAL_CLUSTERS=200
# Tests labelled release-artifact check what a release build produces (the
# .deb and its shared-library dependencies); a sanitized build is not one.
# Some serve tests measure what the sanitizers change on purpose, and run in
# the plain suite above only: a plugin that crashes while loading or in a
# hook (ASan reports the intended crash), watchers' memory bounds (ASan's
# quarantine keeps freed memory) and descriptor exhaustion (ASan's own
# descriptors and shadow memory).
distorted='Plugins\.(Listing(SurvivesAFileThatCrashesWhenLoaded|NamesTheCrashingFileAndListsTheRest)|AFileThatCrashesWhileLoadingIsRefusedAtStart)'
distorted+='|Crash\.APluginsCrashIsNamedAndTheNextStartReportsIt'
distorted+='|Connections\.(AcceptBacksOffWhenOutOfDescriptors|AWatcherThatDoesNotReadIsCutOffAndMemoryStaysBounded|ManyWatchersThatDoNotReadShareOneMemoryBudget)'
# Each scenario runs once here (MatchesExpected, the equivalence cache's
# path), not again: the plain suite compares the cache's path with the plain
# one on every scenario (the differential test runs both under the
# sanitizers too), and the default config's TOML with its YAML on every
# scenario's cluster. A sanitized `simulate` costs many times a plain one
# (loading every plugin instrumented), and those runs again were the bulk
# of this suite; the second is one test that runs a thousand of them in turn.
again='Scenario\.SameOutputWithoutTheEquivalenceCache|DefaultConfig\.TomlAndYamlDecideAlike'
status=0
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE release-artifact -E "$distorted|$again" ||
  status=$?
if compgen -G "$reports/*" >/dev/null; then
  echo "sanitizer reports:" >&2
  cat "$reports"/* >&2
  status=1
fi
unset ASAN_OPTIONS UBSAN_OPTIONS SCORIA_DIFFERENTIAL_CLUSTERS

# SCORIA_FUZZ_SECONDS per target (15 by default; 0 skips), the targets the
# sanitized tree built. On a fresh clone the corpora start from the seeds;
# scripts/fuzz.sh --time 3600 by hand, in a tree of its own at -O1, where
# each input runs faster.
fuzz_seconds="${SCORIA_FUZZ_SECONDS:-15}"
if [ "$fuzz_seconds" -gt 0 ]; then
  scripts/fuzz.sh --time "$fuzz_seconds" --tree build-asan || status=1
fi
exit "$status"
