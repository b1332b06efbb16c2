#!/usr/bin/env bash
# Installs Scoria into a staging prefix, then builds each example plugin and
# the frozen-ABI test from where scoria-dev puts them
# (<prefix>/share/doc/scoria-dev/examples/*), against that prefix alone, and
# runs their tests there with ctest: the examples find scoria through
# find_package(ScoriaSDK), the frozen-ABI test on the PATH.
#   installed_examples_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
docs="$work/prefix/share/doc/scoria-dev"
test -f "$docs/README.md" || { echo "FAIL: no $docs/README.md"; exit 1; }
test -f "$docs/examples/abi-frozen/CMakeLists.txt" || { echo "FAIL: no abi-frozen"; exit 1; }
built=0
for dir in "$docs"/examples/*/; do
  name=$(basename "$dir")
  echo "== $name"
  cmake -S "$dir" -B "$work/build/$name" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/$name.log" ||
    { cat "$work/$name.log"; echo "FAIL: $name does not configure"; exit 1; }
  cmake --build "$work/build/$name" >>"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; echo "FAIL: $name does not build"; exit 1; }
  PATH="$work/prefix/bin:$PATH" ctest --test-dir "$work/build/$name" --output-on-failure \
    --no-tests=error
  built=$((built + 1))
done
if [ "$built" -lt 6 ]; then
  echo "FAIL: $built example folders installed; expected the five examples and abi-frozen"
  exit 1
fi
echo "built and tested $built installed examples"
