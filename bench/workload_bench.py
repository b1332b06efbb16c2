#!/usr/bin/env python3
"""Kubernetes' own gangs against Volcano's (issue 43 item 5): S1 as
session_bench.py makes it (1,000 nodes, 500 pending gangs of 20), written
once with Volcano PodGroups and once with scheduling.k8s.io/v1beta1
PodGroups (gencluster.py --native-groups), each simulated --runs times for
three cycles. Prints the medians and the ratio native / Volcano.

  bench/workload_bench.py [--scoria build/bin/scoria] [--dir /tmp/scoria-bench]
                          [--runs 3]

Volcano's gangs are written Inqueue, as its enqueue left them; native
gangs have no phase, so the first session also admits them (Scoria's
enqueue, as for a Volcano PodGroup still Pending).
"""
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from session_bench import CLUSTERS, bench_arguments, generate, run_once  # noqa: E402


def native_s1(gencluster, directory):
    path = os.path.join(directory, "s1-native.yaml")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        with open(path + ".tmp", "w") as out:
            subprocess.run([sys.executable, gencluster, *CLUSTERS["S1"], "--native-groups"],
                           stdout=out, check=True)
        os.replace(path + ".tmp", path)
    return path


def main():
    args = bench_arguments(__doc__).parse_args()
    os.makedirs(args.dir, exist_ok=True)
    clusters = [("Volcano PodGroups", generate(args.gencluster, "S1", args.dir)),
                ("scheduling.k8s.io PodGroups", native_s1(args.gencluster, args.dir))]
    print(f"Medians of {args.runs} runs; `scoria simulate --timings`, {args.config}, S1.\n")
    print("| gangs | load s | first ms | first open ms | steady ms | bound |")
    print("|---|---|---|---|---|---|")
    medians = []
    for name, path in clusters:
        runs = [run_once(args.scoria, args.config, path, False) for _ in range(args.runs)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        medians.append(med)
        print(f"| {name} | {med['load']:.2f} | {med['session']:.1f} | {med['open']:.1f} | "
              f"{med['steady']:.2f} | {med['bound']:.0f} |", flush=True)
    volcano, native = medians
    print(f"\nnative / Volcano: load {native['load'] / volcano['load']:.2f}x, "
          f"first session {native['session'] / volcano['session']:.2f}x, "
          f"steady {native['steady'] / volcano['steady']:.2f}x")


if __name__ == "__main__":
    main()
