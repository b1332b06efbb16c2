#!/usr/bin/env python3
"""What node shards cost and save a session (issue 43 item 5): S2 as
session_bench.py makes it, simulated as one instance on every node and as
the instance of each half (NodeShards `left`: n0..n2499, `right`:
n2500..n4999, hard mode). Prints medians of --runs runs of three cycles:
load, the first session and its open, the steady session and its open,
and pods bound.

  bench/shard_bench.py [--scoria build/bin/scoria] [--dir /tmp/scoria-bench]
                       [--runs 3]

As in Volcano, a sharded instance's snapshot holds every node and every
pod (queue shares count the pods on every node); what a shard saves is
predicate work on the nodes outside it.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from session_bench import bench_arguments, generate, run_once  # noqa: E402

NODES = 5000


def shards(path):
    half = NODES // 2
    with open(path, "w") as f:
        for name, nodes in (("left", range(half)), ("right", range(half, NODES))):
            f.write("---\napiVersion: shard.volcano.sh/v1alpha1\nkind: NodeShard\n"
                    f"metadata: {{name: {name}}}\nspec:\n  nodesDesired:\n")
            f.writelines(f"  - n{i}\n" for i in nodes)
    return path


def main():
    args = bench_arguments(__doc__).parse_args()
    os.makedirs(args.dir, exist_ok=True)
    cluster = generate(args.gencluster, "S2", args.dir)
    shard_file = shards(os.path.join(args.dir, "s2-shards.yaml"))

    print(f"Medians of {args.runs} runs; `scoria simulate --timings`, {args.config}, S2.\n")
    print("| instance | load s | first ms | first open ms | steady ms | steady open ms | bound |")
    print("|---|---|---|---|---|---|---|")
    cases = [("all nodes", [])] + [(f"shard {s}", ["--shard-name", s]) for s in ("left", "right")]
    for name, flags in cases:
        runs = [run_once(args.scoria, args.config, [cluster, shard_file], False, flags)
                for _ in range(args.runs)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(f"| {name} | {med['load']:.2f} | {med['session']:.1f} | {med['open']:.1f} | "
              f"{med['steady']:.2f} | {med['steady_open']:.2f} | {med['bound']:.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
