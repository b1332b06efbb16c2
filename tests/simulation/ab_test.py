#!/usr/bin/env python3
"""simulate --config A --config B: the same trace under binpack and under
spread. Packed, four small pods leave three whole nodes for the gang that
arrives at 10 s; spread, they leave none, and the gang waits until they
finish at 1000 s. Asserted from the runs' metrics and the comparison.

usage: ab_test.py SCORIA"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
scoria = sys.argv[1]
a, b = os.path.join(here, "ab", "binpack.toml"), os.path.join(here, "ab", "spread.toml")
cluster = os.path.join(here, "ab", "cluster.yaml")


def simulate(*extra):
    run = subprocess.run([scoria, "simulate", "--config", a, "--config", b,
                          "--now", "2024-05-01T00:00:00Z", *extra, cluster],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


out = json.loads(simulate())
assert out["configs"] == [a, b], out["configs"]
packed, spread = out["runs"]
large_packed = packed["metrics"]["jobs"]["jobs/large"]
large_spread = spread["metrics"]["jobs"]["jobs/large"]
assert large_packed["wait_s"] == 0.0, large_packed
assert large_spread["wait_s"] == 990.0, large_spread
# Packed: the small pods share one node, the gang has the other three.
small_nodes = {packed["binds"][f"jobs/small-{i}"] for i in range(4)}
large_nodes = {packed["binds"][f"jobs/large-{i}"] for i in range(3)}
assert len(small_nodes) == 1 and not small_nodes & large_nodes, packed["binds"]
# Spread: one small pod per node, while the gang waited.
assert len({spread["binds"][f"jobs/small-{i}"] for i in range(4)}) == 4, spread["binds"]
assert spread["metrics"]["summary"]["fragmentation"]["cpu"] > 0.5, spread["metrics"]["summary"]
assert packed["metrics"]["summary"]["fragmentation"]["cpu"] == 0.0, packed["metrics"]["summary"]

rows = {r["metric"]: r for r in out["comparison"]}
for metric in ("mean wait (s)", "p95 wait (s)", "mean completion (s)", "utilisation cpu",
               "fragmentation cpu"):
    assert rows[metric]["winner"] == a, rows[metric]
assert rows["jobs started"]["winner"] is None, rows["jobs started"]
assert rows["mean wait (s)"]["values"] == [0.0, 198.0], rows["mean wait (s)"]

table = simulate("--output", "table")
line = next(l for l in table.splitlines() if l.startswith("p95 wait (s)"))
assert line.split()[3:6] == ["0", "990", "A"], line
print("ok")
