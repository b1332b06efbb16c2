#!/usr/bin/env bash
# Installs Scoria into a staging prefix, builds each plugins-contrib project
# against that prefix alone (C with pkg-config and make, C++ with
# find_package(ScoriaSDK), Rust with cargo and the installed crates), and runs
# `scoria simulate` with a config that swaps them in for built-ins. Each plugin
# shows in the result:
#   node-deny         keeps urgent-0 off node-a (the first ssd node), and the
#                     host refuses a config that misspells its argument;
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

# Rust: the SDK installs its crates as sources; node-deny, copied out of the
# tree, has its path dependency pointed at them and builds offline.
crates="$work/prefix/share/scoria/rust"
for f in scoria/Cargo.toml scoria/src/lib.rs scoria-sys/Cargo.toml scoria-sys/src/bindings.rs; do
  [ -f "$crates/$f" ] || { echo "FAIL: the SDK install lacks $crates/$f"; exit 1; }
done
cp -r "$src/plugins-contrib/node-deny" "$work/rust-src"
rm -rf "$work/rust-src/target"
sed -i "s|path = \"../../sdk/rust/scoria\"|path = \"$crates/scoria\"|" "$work/rust-src/Cargo.toml"
grep -qF "path = \"$crates/scoria\"" "$work/rust-src/Cargo.toml" ||
  { echo "FAIL: node-deny's Cargo.toml no longer names ../../sdk/rust/scoria"; exit 1; }
cargo build --release --offline --locked --quiet \
  --manifest-path "$work/rust-src/Cargo.toml" --target-dir "$work/rust"
cp "$work/rust/release/libscoria_node_deny.so" "$work/plugins/scoria-node-deny.so"

"$work/prefix/bin/scoria" plugins --plugin-dir "$work/plugins" >"$work/plugins.txt"
for name in node-label-score deadline-order node-deny; do
  grep -q "$name" "$work/plugins.txt" || { cat "$work/plugins.txt"; echo "FAIL: $name not loaded"; exit 1; }
done

# node-deny declares its argument (a list), so the host refuses a config that
# misspells it or gives it a map, naming the argument, before the plugin runs.
"$work/prefix/bin/scoria" check-config "$src/tests/contrib/scheduler.toml" \
  --plugin-dir "$work/plugins" >"$work/check.txt" 2>&1 ||
  { cat "$work/check.txt"; echo "FAIL: the contrib config is refused"; exit 1; }
refused() {  # refused NAME 'node-deny arguments' 'expected message'
  sed "s|{ name = \"node-deny\", arguments = { nodes = \"node-a, node-x\" } }|{ name = \"node-deny\", arguments = $2 }|" \
    "$src/tests/contrib/scheduler.toml" >"$work/$1.toml"
  grep -qF "arguments = $2" "$work/$1.toml" || { echo "FAIL: $1: config not rewritten"; exit 1; }
  status=0
  "$work/prefix/bin/scoria" check-config "$work/$1.toml" --plugin-dir "$work/plugins" \
    >"$work/$1.txt" 2>&1 || status=$?
  if [ "$status" -ne 2 ] || ! grep -qF "$3" "$work/$1.txt"; then
    cat "$work/$1.txt"
    echo "FAIL: $1: expected exit 2 saying '$3', got exit $status"
    exit 1
  fi
}
refused misspelled '{ node = "node-a" }' 'has no argument "node"; did you mean "nodes"?'
refused map '{ nodes = { a = "node-a" } }' 'has no argument "nodes.a"'

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
