#!/usr/bin/python3
"""A steady-state session of `scoria serve` after 1% of the pods changed
(issue: sessions near the physical limit). Not a test: it prints numbers,
medians over --rounds.

  bench/serve_churn_bench.py SCORIA CONFIG CLUSTER.yaml [--rounds 9] [--churn 0.01]

The cluster (a bench/gencluster.py file) is applied once through the API and
`serve` started on it with -v 3, so that each session logs where its time
went. After the first session (which binds the pending gangs), each round
changes --churn of the cluster's pods in one write, as a busy cluster does
between two sessions: half of the changes are running pods that finished
(the same pod applied again with phase Succeeded), half are pods that
arrive (each in a new PodGroup of one, pending, in the queues round robin).
The write starts the next session; the round reads that session's line of
the log. Printed per round and as medians: the session's refresh
(the cache taking the write), snapshot, open, actions, close, and how many
pods it bound.
"""
import os
import re
import statistics
import sys
import tempfile
import time
import shutil
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servebench import Serve, load_unscheduled, parser  # noqa: E402

SESSION = re.compile(r"session: (\d+) binds, (\d+) evictions; ms: refresh ([\d.]+), "
                     r"snapshot ([\d.]+), open ([\d.]+)( \(kept\))?,(.*), close ([\d.]+), record ([\d.]+)")

ARRIVAL = """apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  namespace: churn
  name: {name}
spec:
  minMember: 1
  queue: {queue}
---
apiVersion: v1
kind: Pod
metadata:
  namespace: churn
  name: {name}-0
  annotations:
    scheduling.k8s.io/group-name: {name}
spec:
  schedulerName: volcano
  containers:
  - name: main
    image: busybox
    resources:
      requests:
        cpu: 100m
        memory: 128Mi"""


def running_pods(text):
    """The documents of the file's running pods, as written."""
    return [d for d in text.split("\n---\n")
            if "\nkind: Pod\n" in d and "nodeName:" in d and "phase: Running" in d]


def queues(text):
    return sorted(set(re.findall(r"^  queue: (\S+)$", text, re.M))) or ["default"]


def session_lines(serve):
    serve.log.seek(0)
    return SESSION.findall(serve.log.read())


def wait_sessions(serve, count, timeout=600):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        lines = session_lines(serve)
        if len(lines) >= count:
            return lines
        if serve.proc.poll() is not None:
            raise RuntimeError("serve exited")
        time.sleep(0.01)
    raise RuntimeError(f"no session {count} within {timeout} s")


def post(serve, body):
    req = urllib.request.Request(serve.url + "/api/v1/objects", data=body.encode(),
                                 headers={"Content-Type": "application/yaml"})
    with urllib.request.urlopen(req, timeout=600) as r:
        assert r.status == 200, r.status


def main():
    p = parser()
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--churn", type=float, default=0.01)
    args = p.parse_args()
    text = open(args.cluster).read()
    pods = text.count("\nkind: Pod\n") + text.startswith("kind: Pod\n")
    running = running_pods(text)
    qs = queues(text)
    changes = max(2, int(pods * args.churn))
    finish_per_round = changes // 2
    arrive_per_round = changes - finish_per_round
    if finish_per_round * args.rounds > len(running):
        sys.exit(f"{args.cluster}: {len(running)} running pods, not enough for "
                 f"{args.rounds} rounds of {finish_per_round}")
    work = tempfile.mkdtemp(prefix="scoria-churn-")
    try:
        keep, took = load_unscheduled(args, work)
        print(f"{pods} pods, applied in {took:.1f} s; each round: {finish_per_round} finish, "
              f"{arrive_per_round} arrive", flush=True)
        s = Serve(args.scoria, args.config, keep, os.path.join(work, "serve.log"),
                  "--schedule-period", "3600000", "--schedule-on-change", "true", "-v", "3")
        try:
            wait_sessions(s, 1)
            post(s, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: churn")
            seen = len(wait_sessions(s, 2))
            rows = []
            for r in range(args.rounds):
                finished = running[r * finish_per_round:(r + 1) * finish_per_round]
                docs = [d.replace("phase: Running", "phase: Succeeded") for d in finished]
                docs += [ARRIVAL.format(name=f"c{r}-{i}", queue=qs[i % len(qs)])
                         for i in range(arrive_per_round)]
                post(s, "\n---\n".join(docs))
                lines = wait_sessions(s, seen + 1)
                seen = len(lines)
                binds, _, refresh, snap, open_ms, kept, actions, close, _ = lines[-1]
                acts = sum(float(x) for x in re.findall(r" [a-z]+ ([\d.]+)", actions))
                row = [float(refresh), float(snap), float(open_ms), acts, float(close), int(binds)]
                rows.append(row)
                print(f"round {r + 1}: refresh {row[0]:.1f} ms, snapshot {row[1]:.1f} ms, "
                      f"open {row[2]:.1f} ms{kept}, actions {row[3]:.1f} ms, close {row[4]:.1f} ms, "
                      f"{row[5]} bound", flush=True)
        finally:
            s.stop()
        med = [statistics.median(r[i] for r in rows) for i in range(5)]
        print(f"median of {len(rows)}: refresh {med[0]:.1f} ms, snapshot {med[1]:.1f} ms, "
              f"open {med[2]:.1f} ms, actions {med[3]:.1f} ms, close {med[4]:.1f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
