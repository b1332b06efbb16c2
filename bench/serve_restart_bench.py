#!/usr/bin/python3
"""Restart of `scoria serve` on a store holding a cluster (issue: the
Kubernetes-shaped API and the incremental cache). Not a test: it prints
numbers, medians of --runs.

  bench/serve_restart_bench.py SCORIA CONFIG CLUSTER.yaml [--runs 3]

The cluster is applied once through the API (POST /api/v1/objects, in
pieces under the body limit) and the service stopped. Each run then starts
`serve` on that state dir and times, from the start of the process: /readyz
answering 200, and the first session done (volcano_e2e_scheduling_latency
counted once); with the process's peak RSS at that moment.
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servebench import Serve, load_unscheduled, parser, peak_rss_mib  # noqa: E402


def main():
    args = parser().parse_args()
    work = tempfile.mkdtemp(prefix="scoria-restart-")
    try:
        keep, took = load_unscheduled(args, work)
        print(f"applied in {took:.1f} s", flush=True)

        ready, first, rss = [], [], []
        for i in range(args.runs):
            run_state = os.path.join(work, f"run{i}")
            shutil.copytree(keep, run_state)
            start = time.monotonic()
            r = Serve(args.scoria, args.config, run_state, os.path.join(work, f"run{i}.log"))
            t_ready = t_first = None
            while t_first is None and time.monotonic() - start < 600:
                if t_ready is None and r.get("/readyz")[0] == 200:
                    t_ready = time.monotonic() - start
                if t_ready is not None and r.sessions() >= 1:
                    t_first = time.monotonic() - start
                time.sleep(0.02)
            peak = peak_rss_mib(r.proc.pid)
            r.stop()
            shutil.rmtree(run_state, ignore_errors=True)
            ready.append(t_ready)
            first.append(t_first)
            rss.append(peak)
            print(f"run {i + 1}: ready {t_ready:.2f} s, first session done {t_first:.2f} s, "
                  f"peak RSS {peak:.0f} MiB", flush=True)
        print(f"median: ready {statistics.median(ready):.2f} s, first session done "
              f"{statistics.median(first):.2f} s, peak RSS {statistics.median(rss):.0f} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
