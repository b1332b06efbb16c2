#!/usr/bin/env python3
"""bench/gencluster.py, the project's cluster generator: the objects asked
for (queues, nodes over zones, background jobs sharing their pods out and
bound round-robin, pending gangs), the same bytes for the same flags, and a
cluster simulate schedules: every gang placed.

usage: gencluster_test.py SCORIA SOURCE_DIR"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import yaml

scoria, source = sys.argv[1], sys.argv[2]
generator = os.path.join(source, "bench", "gencluster.py")
flags = ["--nodes", "7", "--running-jobs", "5", "--running-pods", "23", "--gang-jobs", "3",
         "--gang-size", "4", "--queues", "3", "--zones", "2"]


def generate(*args):
    return subprocess.run([sys.executable, generator, *args], capture_output=True, text=True,
                          check=True).stdout


text = generate(*flags)
assert text == generate(*flags), "not deterministic"
docs = [d for d in yaml.safe_load_all(text) if d]
kinds = collections.Counter(d["kind"] for d in docs)
assert kinds == {"Queue": 3, "Node": 7, "PodGroup": 8, "Pod": 35}, kinds

nodes = [d for d in docs if d["kind"] == "Node"]
assert [n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes] == \
    ["z0", "z1", "z0", "z1", "z0", "z1", "z0"], nodes
queues = {d["metadata"]["name"]: d["spec"]["weight"] for d in docs if d["kind"] == "Queue"}
assert queues == {"q0": 1, "q1": 2, "q2": 3}, queues

# 23 running pods over 5 jobs: the first three get 5, the others 4; bound
# round-robin over the nodes in order.
groups = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PodGroup"}
assert [groups[f"bg{j}"]["spec"]["minMember"] for j in range(5)] == [5, 5, 5, 4, 4], groups
running = [d for d in docs if d["kind"] == "Pod" and d["metadata"]["namespace"] == "bg"]
assert [p["spec"]["nodeName"] for p in running] == [f"n{i % 7}" for i in range(23)], running
assert groups["job2"]["spec"] == {"minMember": 4, "queue": "q2"}, groups["job2"]
pending = [d for d in docs if d["kind"] == "Pod" and d["metadata"]["namespace"] == "work"]
assert all("nodeName" not in p["spec"] and p["status"]["phase"] == "Pending" for p in pending)

with tempfile.TemporaryDirectory() as work:
    cluster = os.path.join(work, "cluster.yaml")
    with open(cluster, "w") as f:
        f.write(text)
    sim = subprocess.run([scoria, "simulate", "--config",
                          os.path.join(source, "config", "scheduler.toml"), cluster],
                         capture_output=True, text=True, timeout=300)
    assert sim.returncode == 0, sim.stderr
    binds = json.loads(sim.stdout)["binds"]
    assert sorted(binds) == sorted(f"work/job{j}-{t}" for j in range(3) for t in range(4)), binds
print("ok")
