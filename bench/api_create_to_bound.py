#!/usr/bin/python3
"""Creates a gencluster.py cluster through scoria serve's API and times it.

  bench/api_create_to_bound.py SCORIA CONFIG CLUSTER.yaml [--runs 3] [--mode kube|apply]

mode kube:  one POST per object on the Kubernetes paths, over one keep-alive
            connection per worker (4 workers), as a controller would create them;
mode apply: the whole file in one POST /api/v1/objects.
Prints, per run and as medians: the time until the last create was
acknowledged, and until the last pending pod was seen bound on a watch.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import yaml

PATHS = {
    "Node": "/api/v1/nodes",
    "Pod": "/api/v1/namespaces/{ns}/pods",
    "PodGroup": "/apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups",
    "Queue": "/apis/scheduling.volcano.sh/v1beta1/queues",
    "PriorityClass": "/apis/scheduling.k8s.io/v1/priorityclasses",
}
ORDER = ["PriorityClass", "Queue", "Node", "PodGroup", "Pod"]


def start(scoria, config, state):
    log = open(os.path.join(state, "serve.log"), "w+")
    proc = subprocess.Popen([scoria, "serve", "--config", config, "--state-dir",
                             os.path.join(state, "db"), "--port", "0"],
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(400):
        log.seek(0)
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read())
        if m:
            return proc, int(m.group(1))
        time.sleep(0.05)
    raise RuntimeError("serve did not start")


def run(args, docs, text, pending):
    state = tempfile.mkdtemp(prefix="scoria-bench-")
    proc, port = start(args.scoria, args.config, state)
    try:
        bound = set()
        done = threading.Event()

        def watch():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            c.request("GET", "/api/v1/pods?watch=true&resourceVersion=0")
            r = c.getresponse()
            for line in r:
                e = json.loads(line)
                o = e["object"]
                key = o["metadata"].get("namespace", "default") + "/" + o["metadata"]["name"]
                if key in pending and o.get("spec", {}).get("nodeName"):
                    bound.add(key)
                    if len(bound) == len(pending):
                        done.set()
                        return
        threading.Thread(target=watch, daemon=True).start()
        time.sleep(0.3)
        t0 = time.monotonic()
        if args.mode == "apply":
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            c.request("POST", "/api/v1/objects", body=text.encode(),
                      headers={"Content-Type": "application/yaml"})
            r = c.getresponse()
            r.read()
            assert r.status == 200, r.status
        else:
            for kind in ORDER:
                batch = [d for d in docs if d["kind"] == kind]
                chunks = [batch[i::4] for i in range(4)]

                def create(objs):
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                    for o in objs:
                        ns = o["metadata"].get("namespace", "default")
                        c.request("POST", PATHS[kind].format(ns=ns), body=json.dumps(o),
                                  headers={"Content-Type": "application/json"})
                        r = c.getresponse()
                        r.read()
                        assert r.status == 201, (r.status, o["metadata"])
                ts = [threading.Thread(target=create, args=(ch,)) for ch in chunks]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
        acked = time.monotonic() - t0
        if not done.wait(600):
            raise RuntimeError(f"only {len(bound)} of {len(pending)} bound")
        return acked, time.monotonic() - t0
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(state, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scoria")
    p.add_argument("config")
    p.add_argument("cluster")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--mode", choices=["kube", "apply"], default="kube")
    args = p.parse_args()
    text = open(args.cluster).read()
    docs = [d for d in yaml.safe_load_all(text) if d]
    pending = {d["metadata"].get("namespace", "default") + "/" + d["metadata"]["name"]
               for d in docs if d["kind"] == "Pod" and not d.get("spec", {}).get("nodeName")}
    results = []
    for i in range(args.runs):
        acked, bound = run(args, docs, text, pending)
        results.append((acked, bound))
        print(f"run {i + 1}: {len(docs)} objects acknowledged in {acked:.2f} s, "
              f"{len(pending)} pending pods bound after {bound:.2f} s", flush=True)
    print(f"median ({args.mode}): acknowledged {statistics.median(r[0] for r in results):.2f} s, "
          f"last bind seen {statistics.median(r[1] for r in results):.2f} s")


if __name__ == "__main__":
    sys.exit(main())
