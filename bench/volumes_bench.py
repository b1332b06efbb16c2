#!/usr/bin/env python3
"""What volumes cost a session (issue 39): S2 as session_bench.py makes it,
and the same cluster where every running pod holds one bound claim (a
PersistentVolume pinned to its node, 150,000 of each) and every pending pod
one WaitForFirstConsumer claim of a provisioning class. Each is simulated
--runs times for three cycles with the default config; prints the medians
of load, first session and steady session, and the ratio of the two.

  bench/volumes_bench.py [--gencluster PATH] [--scoria build/bin/scoria]
                         [--dir /tmp/scoria-bench] [--runs 3]

The volumes are written by rewriting the generator's text, a document at
a time (the generator writes each pod's spec the same way), so that
generating them costs no YAML parse of 150,000 pods.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from session_bench import GENCLUSTER, generate  # noqa: E402

CLASSES = """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
"""


def field(doc, name):
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith(name + ":"):
            return stripped.split(":", 1)[1].strip()
    return None


def with_volumes(source, target):
    """Rewrites `source` into `target`, a claim per pod."""
    with open(source) as f, open(target + ".tmp", "w") as out:
        out.write(CLASSES)
        for doc in f.read().split("\n---\n"):
            doc = doc.strip("-\n")
            if not doc:
                continue
            if "\nkind: Pod\n" not in "\n" + doc + "\n":
                out.write("---\n" + doc + "\n")
                continue
            ns, name, node = field(doc, "namespace"), field(doc, "name"), field(doc, "nodeName")
            claim = name + "-data"
            doc = doc.replace("\nspec:\n", "\nspec:\n  volumes:\n  - name: data\n"
                              f"    persistentVolumeClaim: {{claimName: {claim}}}\n", 1)
            out.write("---\n" + doc + "\n")
            if node:
                pv = f"pv-{ns}-{name}"
                out.write(f"""---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {pv}}}
spec:
  capacity: {{storage: 10Gi}}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  claimRef: {{namespace: {ns}, name: {claim}}}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [{node}]}}]
status: {{phase: Bound}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  namespace: {ns}
  name: {claim}
  annotations: {{pv.kubernetes.io/bind-completed: "yes"}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  volumeName: {pv}
  resources: {{requests: {{storage: 10Gi}}}}
status: {{phase: Bound}}
""")
            else:
                out.write(f"""---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{namespace: {ns}, name: {claim}}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {{requests: {{storage: 1Gi}}}}
""")
    os.replace(target + ".tmp", target)


def run(scoria, config, cluster):
    done = subprocess.run([scoria, "simulate", "--timings", "--cycles", "3", "--output", "json",
                           "--config", config, cluster], capture_output=True, text=True,
                          check=True)
    out = json.loads(done.stdout)
    sessions = out["timings"]["sessions"]
    return {"load": out["timings"]["load_ms"], "first": sessions[0]["total_ms"],
            "steady": statistics.median(s["total_ms"] for s in sessions[1:]),
            "binds": len(out["binds"]), "volumes": len(out.get("volumes", {})),
            "claims": len(out.get("claims", {}))}


def compare(args, clusters, counted):
    """Runs each of `clusters` ((name, path), the plain one first) --runs
    times and prints the medians, the `counted` output beside the binds, and
    the ratios of the second to the first."""
    # Interleaved (A, B, A, B, ...): a slow spell of the machine falls on
    # both clusters alike instead of on whichever ran then.
    runs = {name: [] for name, _ in clusters}
    for _ in range(args.runs):
        for name, cluster in clusters:
            runs[name].append(run(args.scoria, args.config, cluster))
    rows = {name: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
            for name, rs in runs.items()}
    print(f"| cluster | load ms | first session ms | steady session ms | binds | {counted} |")
    print("|---|---|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['load']:.0f} | {r['first']:.1f} | {r['steady']:.2f} | "
              f"{r['binds']:.0f} | {r[counted]:.0f} |")
    a, b = rows[clusters[0][0]], rows[clusters[1][0]]
    print(f"\nratios of the medians: load {b['load'] / a['load']:.2f}x, "
          f"first {b['first'] / a['first']:.2f}x, steady {b['steady'] / a['steady']:.2f}x")
    # The median of each pair's own ratio (the two runs back to back) is
    # steadier on a machine whose speed drifts between pairs.
    pairs = list(zip(runs[clusters[0][0]], runs[clusters[1][0]]))
    paired = {k: statistics.median(y[k] / x[k] for x, y in pairs)
              for k in ("load", "first", "steady")}
    print(f"median of paired ratios: load {paired['load']:.2f}x, first {paired['first']:.2f}x, "
          f"steady {paired['steady']:.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gencluster", default=GENCLUSTER)
    p.add_argument("--scoria", default=os.path.join(HERE, "..", "build", "bin", "scoria"))
    p.add_argument("--config", default=os.path.join(HERE, "..", "config", "scheduler.toml"))
    p.add_argument("--dir", default="/tmp/scoria-bench")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    plain = generate(args.gencluster, "S2", args.dir)
    volumes = os.path.join(args.dir, "s2-volumes.yaml")
    if not os.path.exists(volumes):
        print(f"writing {volumes}", file=sys.stderr)
        with_volumes(plain, volumes)
    compare(args, [("S2", plain), ("S2 + volumes", volumes)], "volumes")

if __name__ == "__main__":
    main()
