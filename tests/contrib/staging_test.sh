#!/usr/bin/env bash
# Installs Scoria into a staging prefix, builds each plugins-contrib project
# against that prefix alone (C with pkg-config and make, C++ with
# find_package(ScoriaSDK), Rust with cargo), and runs `scoria simulate` with
# a config that swaps them in for built-ins. Each plugin shows in the result:
#   node-deny         keeps urgent-0 off node-a (the first ssd node);
#   node-label-score  sends it to node-c (ssd) rather than node-b;
#   deadline-order    lets urgent (created later, earlier deadline) go first,
#                     so relaxed-0 finds node-c full and takes node-b.
#   staging_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work/plugins"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

cp -r "$src/plugins-contrib/node-label-score" "$work/c"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" make -s -C "$work/c"
cp "$work/c/scoria-node-label-score.so" "$work/plugins/"

cmake -S "$src/plugins-contrib/deadline-order" -B "$work/cpp" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cpp" >/dev/null
cp "$work/cpp/scoria-deadline-order.so" "$work/plugins/"

cargo build --release --offline --quiet \
  --manifest-path "$src/plugins-contrib/node-deny/Cargo.toml" --target-dir "$work/rust"
cp "$work/rust/release/libscoria_node_deny.so" "$work/plugins/scoria-node-deny.so"

"$work/prefix/bin/scoria" plugins --plugin-dir "$work/plugins" >"$work/plugins.txt"
for name in node-label-score deadline-order node-deny; do
  grep -q "$name" "$work/plugins.txt" || { cat "$work/plugins.txt"; echo "FAIL: $name not loaded"; exit 1; }
done

"$work/prefix/bin/scoria" simulate --config "$src/tests/contrib/scheduler.toml" \
  --plugin-dir "$work/plugins" "$src/tests/contrib/cluster.yaml" >"$work/out.json"
python3 - "$work/out.json" <<'PY'
import json, sys
binds = json.load(open(sys.argv[1]))["binds"]
want = {"apps/urgent-0": "node-c", "apps/relaxed-0": "node-b"}
if binds != want:
    print("FAIL: binds %s, expected %s" % (binds, want))
    sys.exit(1)
print("contrib plugins decided as expected: %s" % binds)
PY
