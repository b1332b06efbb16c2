#!/usr/bin/env python3
"""Session times of `scoria simulate` on the benchmark clusters, medians.

S1: bench/gencluster.py --nodes 1000 --gang-jobs 500 --gang-size 20
S2: bench/gencluster.py --nodes 5000 --running-jobs 87000 --running-pods 150000
                        --gang-jobs 500 --gang-size 20 --queues 4
S3: bench/gencluster.py --nodes 1000 --gang-jobs 10000 --gang-size 1
S4: bench/gencluster.py --nodes 20000 --running-jobs 348000 --running-pods 600000
                        --gang-jobs 2000 --gang-size 20 --queues 8
S5: bench/gencluster.py --nodes 65000 --running-jobs 500000 --running-pods 1000000
                        --gang-jobs 5000 --gang-size 20 --queues 16

S1, S3 and S2 run unless clusters are named (S4 and S5 take minutes and
gigabytes: name them).

Each cluster is generated once into --dir, then simulated --runs times with
the default config (and with --no-cache too, with --plain), for three
cycles. Prints a Markdown table: median first session, its open and
allocate times, the steady session (the later cycles: nothing left to
place, what a service's session costs while the cluster is quiet), its
open time and the cache's snapshot before it, file load, peak RSS (from /usr/bin/time) and pods bound. Run
through scripts/bench.sh.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CLUSTERS = {
    "S1": ["--nodes", "1000", "--gang-jobs", "500", "--gang-size", "20"],
    "S2": ["--nodes", "5000", "--running-jobs", "87000", "--running-pods", "150000",
           "--gang-jobs", "500", "--gang-size", "20", "--queues", "4"],
    "S3": ["--nodes", "1000", "--gang-jobs", "10000", "--gang-size", "1"],
    "S4": ["--nodes", "20000", "--running-jobs", "348000", "--running-pods", "600000",
           "--gang-jobs", "2000", "--gang-size", "20", "--queues", "8"],
    "S5": ["--nodes", "65000", "--running-jobs", "500000", "--running-pods", "1000000",
           "--gang-jobs", "5000", "--gang-size", "20", "--queues", "16"],
}
# The project's own generator, beside this script.
GENCLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gencluster.py")


def generate(gencluster, name, directory):
    path = os.path.join(directory, name.lower() + ".yaml")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        print(f"generating {name} into {path}", file=sys.stderr)
        with open(path + ".tmp", "w") as out:
            subprocess.run([sys.executable, gencluster] + CLUSTERS[name], stdout=out, check=True)
        os.replace(path + ".tmp", path)
    return path


def run_once(scoria, config, cluster, plain, extra=()):
    """One run; `cluster` is a file or a list of them, `extra` more flags."""
    files = [cluster] if isinstance(cluster, str) else list(cluster)
    with tempfile.NamedTemporaryFile() as rss:
        cmd = ["/usr/bin/time", "-f", "%M", "-o", rss.name, scoria, "simulate", "--timings",
               "--cycles", "3", "--output", "json", "--config", config, *extra, *files]
        if plain:
            cmd.insert(cmd.index("simulate") + 1, "--no-cache")
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        peak_kb = int(open(rss.name).read().split()[-1])
    out = json.loads(done.stdout)
    session = out["timings"]["sessions"][0]
    steady = out["timings"]["sessions"][1:]
    return {
        "session": session["total_ms"],
        "open": session["open_ms"],
        "allocate": session["actions_ms"].get("allocate", 0.0),
        "steady": statistics.median(s["total_ms"] for s in steady),
        "steady_open": statistics.median(s["open_ms"] for s in steady),
        "steady_snapshot": statistics.median(s["snapshot_ms"] for s in steady),
        "load": out["timings"]["load_ms"] / 1000.0,
        "rss": peak_kb / 1024.0,
        "bound": len(out["binds"]),
    }


def bench_arguments(doc):
    """The options every session benchmark takes: the binary, the config,
    the generator, where clusters are kept, and how many runs."""
    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scoria", default="build/bin/scoria")
    parser.add_argument("--config", default="config/scheduler.toml")
    parser.add_argument("--gencluster", default=os.environ.get("GENCLUSTER", GENCLUSTER))
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "scoria-bench"))
    parser.add_argument("--runs", type=int, default=3)
    return parser


def main():
    parser = bench_arguments(__doc__)
    parser.add_argument("--plain", action="store_true", help="also run with --no-cache")
    parser.add_argument("clusters", nargs="*", default=["S1", "S3", "S2"],
                        choices=sorted(CLUSTERS))
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    print(f"Medians of {args.runs} runs; `scoria simulate --timings`, {args.config}.\n")
    print("| cluster | path | session ms | open ms | allocate ms | steady session ms "
          "| steady open ms | steady snapshot ms | load s | peak RSS MB | bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.clusters:
        cluster = generate(args.gencluster, name, args.dir)
        for plain in ([False, True] if args.plain else [False]):
            runs = [run_once(args.scoria, args.config, cluster, plain) for _ in range(args.runs)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"| {name} | {'plain' if plain else 'cached'} | {med['session']:.1f} | "
                  f"{med['open']:.1f} | {med['allocate']:.1f} | {med['steady']:.1f} | "
                  f"{med['steady_open']:.1f} | {med['steady_snapshot']:.1f} | {med['load']:.2f} | "
                  f"{med['rss']:.0f} | {med['bound']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
