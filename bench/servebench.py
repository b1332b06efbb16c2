"""What the serve benchmarks share: `scoria serve` as a child process on an
ephemeral port, and a cluster file applied through its API in pieces."""
import argparse
import os
import re
import signal
import subprocess
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
        # Truncated, then appended to: the child shares this file offset,
        # and our seek to read must not make it write over the log's start.
        open(log_path, "w").close()
        self.log = open(log_path, "a+")
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


def apply_file(serve, path):
    """Applies a cluster file through POST /api/v1/objects, piece by piece."""
    for piece in pieces(open(path).read()):
        req = urllib.request.Request(serve.url + "/api/v1/objects", data=piece.encode(),
                                     headers={"Content-Type": "application/yaml"})
        with urllib.request.urlopen(req, timeout=600) as r:
            assert r.status == 200, r.status


def parser():
    """The arguments every serve benchmark takes."""
    p = argparse.ArgumentParser()
    p.add_argument("scoria")
    p.add_argument("config")
    p.add_argument("cluster")
    p.add_argument("--runs", type=int, default=3)
    return p


def load_unscheduled(args, work):
    """A state dir under `work` holding the cluster as given: applied with no
    session after the first (an hour apart, and none started by the writes).
    Returns its path and the seconds the apply took."""
    keep = os.path.join(work, "state")
    s = Serve(args.scoria, args.config, keep, os.path.join(work, "load.log"),
              "--schedule-period", "3600000", "--schedule-on-change", "false")
    t0 = time.monotonic()
    apply_file(s, args.cluster)
    took = time.monotonic() - t0
    s.stop()
    return keep, took
