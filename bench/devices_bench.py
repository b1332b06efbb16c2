#!/usr/bin/env python3
"""What devices cost a session (issue 40): S1 as session_bench.py makes it,
and the same cluster where every node publishes 8 devices in a ResourceSlice
(8,000 devices) and every pending pod asks for one through a claim template
whose CEL selector reads an attribute. Each is simulated --runs times for
three cycles with the default config; prints the medians of load, first
session and steady session, and the ratio of the two.

  bench/devices_bench.py [--gencluster PATH] [--scoria build/bin/scoria]
                         [--dir /tmp/scoria-bench] [--runs 3]

The claims are written by rewriting the generator's text, a document at a
time, so that generating them costs no YAML parse of the pods.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from session_bench import GENCLUSTER, generate  # noqa: E402
from volumes_bench import compare, field  # noqa: E402

DEVICES_PER_NODE = 8

CLASS = """---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""

TEMPLATE = """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{namespace: {ns}, name: one-gpu}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {{expression: 'device.attributes["gpu.example.com"].model == "h100"'}}
"""


def slice_for(node):
    devices = "".join(f"""  - name: gpu-{i}
    attributes: {{model: {{string: h100}}, index: {{int: {i}}}}}
    capacity: {{memory: {{value: 80Gi}}}}
""" for i in range(DEVICES_PER_NODE))
    return f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node}-gpus}}
spec:
  driver: gpu.example.com
  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}
  nodeName: {node}
  devices:
{devices}"""


def with_devices(source, target):
    """Rewrites `source` into `target`: a slice per node, a claim per pending pod."""
    namespaces = set()
    with open(source) as f, open(target + ".tmp", "w") as out:
        out.write(CLASS)
        for doc in f.read().split("\n---\n"):
            doc = doc.strip("-\n")
            if not doc:
                continue
            kind = "\n" + doc + "\n"
            if "\nkind: Node\n" in kind:
                out.write("---\n" + doc + "\n")
                out.write(slice_for(field(doc, "name")))
                continue
            if "\nkind: Pod\n" not in kind or field(doc, "nodeName"):
                out.write("---\n" + doc + "\n")
                continue
            ns = field(doc, "namespace") or "default"
            if ns not in namespaces:
                namespaces.add(ns)
                out.write(TEMPLATE.format(ns=ns))
            doc = doc.replace("\nspec:\n", "\nspec:\n  resourceClaims:\n  - name: gpu\n"
                              "    resourceClaimTemplateName: one-gpu\n", 1)
            out.write("---\n" + doc + "\n")
    os.replace(target + ".tmp", target)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gencluster", default=GENCLUSTER)
    p.add_argument("--scoria", default=os.path.join(HERE, "..", "build", "bin", "scoria"))
    p.add_argument("--config", default=os.path.join(HERE, "..", "config", "scheduler.toml"))
    p.add_argument("--dir", default="/tmp/scoria-bench")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    plain = generate(args.gencluster, "S1", args.dir)
    devices = os.path.join(args.dir, "s1-devices.yaml")
    if not os.path.exists(devices):
        print(f"writing {devices}", file=sys.stderr)
        with_devices(plain, devices)
    compare(args, [("S1", plain), ("S1 + devices", devices)], "claims")


if __name__ == "__main__":
    main()
