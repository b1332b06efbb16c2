#!/usr/bin/python3
"""Latency of single pod creates while sessions on a large cluster run back
to back (issue: the Kubernetes-shaped API and the incremental cache). Not a
test: it prints numbers, medians of --runs.

  bench/api_latency_bench.py SCORIA CONFIG CLUSTER.yaml [--runs 3] [--creates 400]

The cluster is applied once through the API with no sessions, and the
service stopped. Each run starts `serve` on a copy of that state with
--schedule-period 1 (a session starts as soon as the last one is done),
waits for the first session, then creates --creates pods one at a time on
one keep-alive connection (POST /api/v1/namespaces/latency/pods, JSON, as
client-go sends it), a few milliseconds apart, and times each from the
request's first byte to the answer's last. Prints per run p50, p99 and the
maximum, and how many sessions ran meanwhile.
"""
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servebench import Serve, load_unscheduled, parser  # noqa: E402


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def pod(i):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"latency-{i}", "namespace": "latency"},
        "spec": {"schedulerName": "volcano",
                 "containers": [{"name": "c", "image": "busybox",
                                 "resources": {"requests": {"cpu": "100m",
                                                            "memory": "64Mi"}}}]},
    }).encode()


def run_once(serve, creates):
    while serve.sessions() < 1:
        time.sleep(0.02)
    before = serve.sessions()
    host, port = serve.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    latencies = []
    for i in range(creates):
        body = pod(i)
        t = time.perf_counter()
        conn.request("POST", "/api/v1/namespaces/latency/pods", body=body,
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        latencies.append((time.perf_counter() - t) * 1000)
        assert r.status == 201, r.status
        time.sleep(0.005)
    conn.close()
    return latencies, serve.sessions() - before


def main():
    p = parser()
    p.add_argument("--creates", type=int, default=400)
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="scoria-latency-")
    try:
        keep, _ = load_unscheduled(args, work)
        p50s, p99s, maxes = [], [], []
        for i in range(args.runs):
            run_state = os.path.join(work, f"run{i}")
            shutil.copytree(keep, run_state)
            r = Serve(args.scoria, args.config, run_state, os.path.join(work, f"run{i}.log"),
                      "--schedule-period", "1")
            try:
                latencies, sessions = run_once(r, args.creates)
            finally:
                r.stop()
                shutil.rmtree(run_state, ignore_errors=True)
            p50s.append(percentile(latencies, 50))
            p99s.append(percentile(latencies, 99))
            maxes.append(max(latencies))
            print(f"run {i + 1}: {len(latencies)} creates during {sessions:.0f} sessions: "
                  f"p50 {p50s[-1]:.1f} ms, p99 {p99s[-1]:.1f} ms, max {maxes[-1]:.1f} ms",
                  flush=True)
        print(f"median: p50 {statistics.median(p50s):.1f} ms, p99 {statistics.median(p99s):.1f} ms, "
              f"max {statistics.median(maxes):.1f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
