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
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

PIECE = 6 << 20  # bytes per apply, under the 8 MiB body limit


def pieces(text):
    """The text cut at document markers into pieces of at most PIECE bytes."""
    docs = text.split("\n---\n")
    out, cur = [], []
    size = 0
    for d in docs:
        if cur and size + len(d) > PIECE:
            out.append("\n---\n".join(cur))
            cur, size = [], 0
        cur.append(d)
        size += len(d) + 5
    if cur:
        out.append("\n---\n".join(cur))
    return out


class Serve:
    """`scoria serve` on `state`, on an ephemeral port."""

    def __init__(self, scoria, config, state, log_path, *extra):
        self.log = open(log_path, "w+")
        self.proc = subprocess.Popen([scoria, "serve", "--config", config, "--state-dir", state,
                                      "--port", "0", *extra],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.url = None
        while self.url is None:
            self.log.seek(0)
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log.read())
            if m:
                self.url = f"http://127.0.0.1:{m.group(1)}"
            elif self.proc.poll() is not None:
                raise RuntimeError("serve exited")
            else:
                time.sleep(0.01)

    def get(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, ""

    def sessions(self):
        for line in self.get("/metrics")[1].splitlines():
            if line.startswith("volcano_e2e_scheduling_latency_milliseconds_count"):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait()
        self.log.close()


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scoria")
    p.add_argument("config")
    p.add_argument("cluster")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="scoria-restart-")
    try:
        # Load once, with no session after the first (an hour apart, and none
        # started by the writes) so the store holds the cluster as given.
        keep = os.path.join(work, "state")
        s = Serve(args.scoria, args.config, keep, os.path.join(work, "load.log"),
                  "--schedule-period", "3600000", "--schedule-on-change", "false")
        t0 = time.monotonic()
        for piece in pieces(open(args.cluster).read()):
            req = urllib.request.Request(s.url + "/api/v1/objects", data=piece.encode(),
                                         headers={"Content-Type": "application/yaml"})
            with urllib.request.urlopen(req, timeout=600) as r:
                assert r.status == 200, r.status
        print(f"applied in {time.monotonic() - t0:.1f} s", flush=True)
        s.stop()

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
