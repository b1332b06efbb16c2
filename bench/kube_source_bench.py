#!/usr/bin/python3
"""Benchmarks of `scoria serve --source kubernetes` (issue: the Kubernetes
source). Not a test: it prints numbers, medians of --runs.

  list    the initial list of a cluster file (e.g. S2: bench/gencluster.py --nodes
          5000 --running-jobs 87000 --running-pods 150000 --gang-jobs 500
          --gang-size 20 --queues 4), served as Kubernetes JSON list pages by a
          static API server in this script, until the scheduler logs "cache
          synced"; with the scheduler's peak RSS.
  binds   the same server accepts every bind at once: binds per second from
          the first bind to the last, QPS limit raised (--kube-api-qps).
  gang    a real API server (scoria serve over its store) and the scheduler:
          from a gang's last pod created to its last bind seen on a watch.

usage: kube_source_bench.py SCORIA CONFIG MODE [CLUSTER.yaml] [--runs 3]
"""
import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "serve"))
from serve_process import ScoriaServe, wait_for  # noqa: E402

PATHS = {"Node": "/api/v1/nodes", "Pod": "/api/v1/pods",
         "PodGroup": "/apis/scheduling.volcano.sh/v1beta1/podgroups",
         "Queue": "/apis/scheduling.volcano.sh/v1beta1/queues",
         "PriorityClass": "/apis/scheduling.k8s.io/v1/priorityclasses"}


def load_cluster(path, scheduler_name):
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    by_kind = {k: [] for k in PATHS}
    with open(path) as f:
        for i, doc in enumerate(yaml.load_all(f, Loader=loader)):
            if not doc or doc.get("kind") not in by_kind:
                continue
            doc.setdefault("metadata", {})["resourceVersion"] = str(i + 1)
            if doc["kind"] == "Pod" and not doc.get("spec", {}).get("nodeName"):
                doc["spec"]["schedulerName"] = scheduler_name
            by_kind[doc["kind"]].append(doc)
    return by_kind


class StaticApiServer:
    """Lists from memory in pages, watches that stay open and quiet, binds
    and events accepted at once (timestamps of the binds kept)."""

    def __init__(self, by_kind):
        self.pages = {}
        self.bind_times = []
        for kind, items in by_kind.items():
            pages = []
            size = 500
            for start in range(0, max(len(items), 1), size):
                pages.append(items[start:start + size])
            self.pages[PATHS[kind]] = [
                json.dumps({"kind": kind + "List", "apiVersion": "v1",
                            "metadata": {"resourceVersion": "1000000000",
                                         **({"continue": str(n + 1)}
                                            if n + 1 < len(pages) else {})},
                            "items": page}).encode()
                for n, page in enumerate(pages)]
        self.loop = asyncio.new_event_loop()
        self.port = None
        started = threading.Event()
        threading.Thread(target=self.run, args=(started,), daemon=True).start()
        started.wait()

    def run(self, started):
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self.serve, "127.0.0.1", 0, backlog=1024))
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()

    async def serve(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line, *headers = head.decode().split("\r\n")
                method, target, _ = line.split(" ", 2)
                length = 0
                for h in headers:
                    if h.lower().startswith("content-length:"):
                        length = int(h.split(":", 1)[1])
                if length:
                    await reader.readexactly(length)
                path, _, query = target.partition("?")
                q = urllib.parse.parse_qs(query)
                if method == "GET" and "watch" in q:
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n")
                    await writer.drain()
                    await asyncio.sleep(3600)
                    return
                if method == "GET" and path in self.pages:
                    n = int(q.get("continue", ["0"])[0])
                    body = self.pages[path][n]
                    status = b"200 OK"
                elif method == "POST" and path.endswith("/binding"):
                    self.bind_times.append(time.monotonic())
                    body, status = b'{"kind":"Status","status":"Success","code":201}', b"201 Created"
                elif method == "POST":
                    body, status = b"{}", b"201 Created"
                else:
                    body, status = b'{"kind":"Status","code":404}', b"404 Not Found"
                writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\n"
                             b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
            pass
        finally:
            writer.close()


def peak_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return None


def scheduler(scoria, config, work, server_port, *extra):
    return ScoriaServe(scoria, work, "scheduler", config, "--source", "kubernetes",
                       "--master", f"http://127.0.0.1:{server_port}",
                       "--scheduler-name", "bench", *extra)


def run_list(args, by_kind, work):
    server = StaticApiServer(by_kind)
    # No session binds during the measure: a config whose actions place
    # nothing would still run; the numbers come from the log line.
    s = scheduler(args.scoria, args.config, work, server.port)
    try:
        line = wait_for(lambda: re.search(r"cache synced: (\d+) objects in (\d+)ms", s.text()),
                        300)
        if not line:
            raise RuntimeError("never synced:\n" + s.text())
        rss = peak_rss_mib(s.proc.pid)
        return int(line.group(2)) / 1000.0, rss, int(line.group(1))
    finally:
        s.stop()


def run_binds(args, by_kind, work):
    server = StaticApiServer(by_kind)
    pending = sum(1 for p in by_kind["Pod"] if not p["spec"].get("nodeName"))
    s = scheduler(args.scoria, args.config, work, server.port, "--kube-api-qps", "100000",
                  "--kube-api-burst", "100000")
    try:
        if not wait_for(lambda: len(server.bind_times) >= pending, 300):
            raise RuntimeError(f"{len(server.bind_times)} of {pending} binds:\n" + s.text())
        t = server.bind_times
        return len(t) / max(t[-1] - t[0], 1e-9), len(t)
    finally:
        s.stop()


def run_gang(args, work):
    from kubernetes import client, watch
    from kubernetes.client import ApiClient, Configuration
    api_server = ScoriaServe(args.scoria, work, "apiserver", args.config,
                             "--schedule-period", "3600000")
    s = scheduler(args.scoria, args.config, work, api_server.port,
                  "--schedule-period", str(args.period))
    conf = Configuration()
    conf.host = api_server.url
    core = client.CoreV1Api(ApiClient(conf))
    custom = client.CustomObjectsApi(ApiClient(conf))
    try:
        for i in range(4):
            core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                              "status": {"allocatable": {"cpu": "64", "memory": "256Gi",
                                                         "pods": "110"}}})
        wait_for(lambda: s.get("/readyz")[0] == 200, 30)
        times = []
        for g in range(args.gangs):
            name = f"g{g}"
            custom.create_namespaced_custom_object(
                "scheduling.volcano.sh", "v1beta1", "default", "podgroups",
                {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                 "metadata": {"name": name}, "spec": {"minMember": 8}})
            version = core.list_namespaced_pod("default").metadata.resource_version
            for i in range(8):
                core.create_namespaced_pod("default", {
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": f"{name}-{i}",
                                 "annotations": {"scheduling.k8s.io/group-name": name}},
                    "spec": {"schedulerName": "bench", "containers": [
                        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}})
            created = time.monotonic()
            bound = set()
            w = watch.Watch()
            for ev in w.stream(core.list_namespaced_pod, "default", resource_version=version,
                               timeout_seconds=30):
                p = ev["object"]
                if p.metadata.name.startswith(name + "-") and p.spec.node_name:
                    bound.add(p.metadata.name)
                    if len(bound) == 8:
                        w.stop()
            times.append(time.monotonic() - created)
        return statistics.median(times)
    finally:
        s.stop()
        api_server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scoria")
    ap.add_argument("config")
    ap.add_argument("mode", choices=["list", "binds", "gang"])
    ap.add_argument("cluster", nargs="?")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--gangs", type=int, default=10)
    ap.add_argument("--period", type=int, default=1000, help="schedule period (ms), gang mode")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="scoria-kube-bench-")
    try:
        by_kind = None
        if args.mode in ("list", "binds"):
            t = time.monotonic()
            by_kind = load_cluster(args.cluster, "bench")
            print(f"cluster: " + ", ".join(f"{len(v)} {k}s" for k, v in by_kind.items()) +
                  f" (read in {time.monotonic() - t:.1f}s)", file=sys.stderr)
        results = []
        for run in range(args.runs):
            if args.mode == "list":
                seconds, rss, objects = run_list(args, by_kind, work)
                results.append((seconds, rss))
                print(f"run {run + 1}: {objects} objects listed into the cache in {seconds:.2f}s, "
                      f"peak RSS {rss:.0f} MiB", file=sys.stderr)
            elif args.mode == "binds":
                rate, n = run_binds(args, by_kind, work)
                results.append((rate,))
                print(f"run {run + 1}: {n} binds at {rate:.0f}/s", file=sys.stderr)
            else:
                t = run_gang(args, work)
                results.append((t,))
                print(f"run {run + 1}: last pod created to last bind seen, median of "
                      f"{args.gangs} gangs: {t * 1000:.0f} ms", file=sys.stderr)
        medians = [statistics.median(r[i] for r in results) for i in range(len(results[0]))]
        print(json.dumps({"mode": args.mode, "runs": args.runs, "medians": medians}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
