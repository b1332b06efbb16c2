#!/usr/bin/env python3
"""Turns a cluster from bench/gencluster.py into a GPU cluster for the
deviceshare plugin, reading it on stdin and writing it on stdout:

  bench/gencluster.py --nodes 1000 --gang-jobs 500 --gang-size 20 \\
    | python3 bench/gpu_cluster.py > /tmp/s1-gpu.yaml

Every node gets --cards GPUs of --card-mb MB: registered by a vGPU device
plugin (volcano.sh/node-vgpu-register, volcano.sh/vgpu-number, -memory and
-cores; --mode vgpu, the default) or as gpushare's volcano.sh/gpu-memory and
volcano.sh/gpu-number (--mode gpushare). Every pod asks for a fraction of a
card: the pods of a job take 1/8, 1/4 or 1/2 of a card's memory in turn,
job by job (vGPU: one vGPU of that memory and no cores; gpushare: that
gpu-memory). A pod already on a node holds its memory on card (its index
mod --cards), written as the device plugin would have written it.

Only PyYAML; the output is the object format scoria reads.
"""
import argparse
import sys

import yaml

FRACTIONS = (8, 4, 2)  # a job's pods ask for 1/8, 1/4 or 1/2 of a card


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, default=8, help="GPUs per node (8)")
    ap.add_argument("--card-mb", type=int, default=32768, help="memory of a GPU in MB (32768)")
    ap.add_argument("--mode", choices=("vgpu", "gpushare"), default="vgpu")
    args = ap.parse_args()

    docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
    jobs = {}
    placed = {}  # node -> pods placed on it so far
    for d in docs:
        kind = d.get("kind")
        meta = d.setdefault("metadata", {})
        if kind == "Node":
            alloc = d.setdefault("status", {}).setdefault("allocatable", {})
            ann = meta.setdefault("annotations", {})
            if args.mode == "vgpu":
                ann["volcano.sh/node-vgpu-register"] = "".join(
                    "GPU-%s-%d,10,%d,NVIDIA-A100,true,hami-core:" % (meta["name"], i, args.card_mb)
                    for i in range(args.cards))
                alloc["volcano.sh/vgpu-number"] = str(10 * args.cards)
                alloc["volcano.sh/vgpu-memory"] = str(args.card_mb * args.cards)
                alloc["volcano.sh/vgpu-cores"] = str(100 * args.cards)
            else:
                alloc["volcano.sh/gpu-memory"] = str(args.card_mb * args.cards)
                alloc["volcano.sh/gpu-number"] = str(args.cards)
        elif kind == "Pod":
            group = meta.get("annotations", {}).get("scheduling.k8s.io/group-name", meta.get("name"))
            share = args.card_mb // FRACTIONS[jobs.setdefault(group, len(jobs)) % len(FRACTIONS)]
            for c in d["spec"]["containers"]:
                limits = c.setdefault("resources", {}).setdefault("limits", {})
                if args.mode == "vgpu":
                    limits["volcano.sh/vgpu-number"] = "1"
                    limits["volcano.sh/vgpu-memory"] = str(share)
                else:
                    limits["volcano.sh/gpu-memory"] = str(share)
            node = d["spec"].get("nodeName")
            if node:
                card = placed.get(node, 0) % args.cards
                placed[node] = placed.get(node, 0) + 1
                ann = meta.setdefault("annotations", {})
                if args.mode == "vgpu":
                    ann["volcano.sh/vgpu-ids-new"] = "GPU-%s-%d,NVIDIA,%d,0:" % (node, card, share)
                else:
                    ann["volcano.sh/gpu-index"] = str(card)
    yaml.CSafeDumper.ignore_aliases = lambda *a: True
    yaml.dump_all(docs, sys.stdout, Dumper=yaml.CSafeDumper, sort_keys=False)


if __name__ == "__main__":
    main()
