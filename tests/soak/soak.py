#!/usr/bin/python3
"""Soak: `scoria serve` for many sessions under continuous churn from a
loopback client, then the invariants a scheduler must keep.

Churn (seeded): gangs created, completed (pods marked Succeeded) and
deleted; nodes added, removed, cordoned and uncordoned; the config reloaded
(SIGHUP). At the end, after the churn stops and a few sessions settle:
  - no pod was bound twice (a watch sees every bind);
  - no node holds more than its cpu (running and bound pods);
  - every acknowledged object that was not deleted is there;
  - every gang is fully bound or fully pending (minMember = size);
  - RSS after warm-up grows by at most 10% (the short form allows 4 MiB
    more: over a few seconds the cluster itself grows as gangs outnumber
    deletions, and a leak per session shows over the long form; not under
    a sanitizer: it keeps freed memory on purpose);
  - the service exits 0 on SIGTERM (and, in the sanitizer build,
    LeakSanitizer reports nothing: the suite fails on any report).

Short form in the test suite:  soak.py SCORIA CONFIG WORK --sessions 300
Long form by hand:             soak.py SCORIA CONFIG WORK --sessions 10000
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

NODE_CPU = 8


class Api:
    def __init__(self, port):
        self.port = port
        self.local = threading.local()

    def conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            c = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        return c

    def call(self, method, path, body=None, content_type="application/json"):
        for attempt in range(2):
            try:
                c = self.conn()
                headers = {"Content-Type": content_type} if body is not None else {}
                c.request(method, path, body=json.dumps(body) if body is not None else None,
                          headers=headers)
                r = c.getresponse()
                data = r.read()
                return r.status, (json.loads(data) if data else None)
            except (ConnectionError, http.client.HTTPException):
                self.local.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def ok(self, method, path, body=None, content_type="application/json"):
        status, answer = self.call(method, path, body, content_type)
        if status not in (200, 201):
            raise AssertionError(f"{method} {path}: {status} {answer}")
        return answer


def node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": str(NODE_CPU), "memory": "64Gi", "pods": "110"}}}


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scoria")
    ap.add_argument("config")
    ap.add_argument("work")
    ap.add_argument("--sessions", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=0, help="bound on the churn (0: none)")
    ap.add_argument("--period", type=int, default=20, help="schedule period, ms")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sanitized = "ASAN_OPTIONS" in os.environ

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    config = os.path.join(args.work, "scheduler.toml")
    shutil.copy(args.config, config)
    log_path = os.path.join(args.work, "serve.log")
    log = open(log_path, "w+")
    proc = subprocess.Popen([args.scoria, "serve", "--config", config, "--state-dir",
                             os.path.join(args.work, "state"), "--port", "0",
                             "--schedule-period", str(args.period)],
                            stdout=log, stderr=subprocess.STDOUT)
    port = None
    for _ in range(400):
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(log_path).read())
        if m:
            port = int(m.group(1))
            break
        time.sleep(0.05)
    if port is None:
        proc.kill()
        sys.exit("serve did not start:\n" + open(log_path).read())
    api = Api(port)
    failures = []

    def sessions():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/metrics")
        body = c.getresponse().read().decode()
        c.close()
        m = re.search(r"^scoria_sessions_total (\S+)$", body, re.M)
        return int(float(m.group(1))) if m else 0

    # Every bind, as a watch sees it.
    binds = {}
    stop_watch = threading.Event()

    def watch():
        status, listed = api.call("GET", "/api/v1/pods")
        version = listed["metadata"]["resourceVersion"]
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
        c.request("GET", f"/api/v1/pods?watch=true&resourceVersion={version}")
        r = c.getresponse()
        nodes_of = {}
        while not stop_watch.is_set():
            line = r.readline()
            if not line:
                break
            event = json.loads(line)
            obj = event["object"]
            key = obj["metadata"]["namespace"] + "/" + obj["metadata"]["name"]
            uid = obj["metadata"].get("uid", key)
            bound_to = obj.get("spec", {}).get("nodeName", "")
            before = nodes_of.get(uid, "")
            if event["type"] == "DELETED":
                nodes_of.pop(uid, None)
                continue
            if bound_to and bound_to != before:
                binds[uid] = binds.get(uid, 0) + 1
                if before:
                    failures.append(f"pod {key} moved from {before} to {bound_to}")
            nodes_of[uid] = bound_to
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()

    nodes = {f"node-{i}": False for i in range(6)}  # name -> cordoned
    for n in nodes:
        api.ok("POST", "/api/v1/nodes", node(n))
    # serve makes queue default (and root) at start, as Volcano's scheduler does.
    api.ok("GET", "/apis/scheduling.volcano.sh/v1beta1/queues/default")
    gangs = {}  # name -> size, pending deletion excluded
    completed = set()
    created = deleted = 0
    next_gang = next_node = 0
    rss = []
    start = time.time()
    warm = None
    while True:
        done = sessions()
        if done >= args.sessions or (args.seconds and time.time() - start > args.seconds):
            break
        if warm is None and done >= args.sessions // 5:
            warm = len(rss)
        rss.append(rss_kib(proc.pid))
        for _ in range(5):
            op = rng.random()
            if op < 0.45 and len(gangs) < 60:
                name, size = f"g{next_gang}", rng.randint(1, 4)
                next_gang += 1
                api.ok("POST", "/apis/scheduling.volcano.sh/v1beta1/namespaces/soak/podgroups",
                       {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                        "metadata": {"name": name, "namespace": "soak"},
                        "spec": {"minMember": size}})
                for i in range(size):
                    api.ok("POST", "/api/v1/namespaces/soak/pods", {
                        "apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": f"{name}-{i}", "namespace": "soak",
                                     "annotations": {"scheduling.k8s.io/group-name": name}},
                        "spec": {"terminationGracePeriodSeconds": 0, "containers": [
                            {"name": "c", "image": "x",
                             "resources": {"requests": {"cpu": str(rng.randint(1, 3))}}}]}})
                gangs[name] = size
                created += 1
            elif op < 0.65 and gangs:
                # Complete a gang that is bound: its pods succeed.
                name = rng.choice(sorted(gangs))
                pods = [api.ok("GET", f"/api/v1/namespaces/soak/pods/{name}-{i}")
                        for i in range(gangs[name])]
                if name not in completed and all(p["spec"].get("nodeName") for p in pods):
                    for i in range(gangs[name]):
                        api.ok("PATCH", f"/api/v1/namespaces/soak/pods/{name}-{i}/status",
                               {"status": {"phase": "Succeeded"}},
                               "application/merge-patch+json")
                    completed.add(name)
            elif op < 0.8 and completed:
                name = rng.choice(sorted(completed))
                for i in range(gangs[name]):
                    api.ok("DELETE", f"/api/v1/namespaces/soak/pods/{name}-{i}",
                           {"gracePeriodSeconds": 0})
                api.ok("DELETE", f"/apis/scheduling.volcano.sh/v1beta1/namespaces/soak/podgroups/"
                       f"{name}")
                completed.discard(name)
                del gangs[name]
                deleted += 1
            elif op < 0.87:
                name = f"extra-{next_node}"
                next_node += 1
                api.ok("POST", "/api/v1/nodes", node(name))
                nodes[name] = False
            elif op < 0.92:
                # Remove a node nothing runs on.
                used = {p["spec"].get("nodeName") for p in
                        api.ok("GET", "/api/v1/pods")["items"]}
                free = sorted(n for n in nodes if n not in used)
                if len(nodes) > 3 and free:
                    name = rng.choice(free)
                    api.ok("DELETE", f"/api/v1/nodes/{name}")
                    del nodes[name]
            elif op < 0.98:
                name = rng.choice(sorted(nodes))
                nodes[name] = not nodes[name]
                api.ok("PATCH", f"/api/v1/nodes/{name}",
                       {"spec": {"unschedulable": nodes[name]}}, "application/merge-patch+json")
            else:
                proc.send_signal(signal.SIGHUP)
        time.sleep(args.period / 1000.0)

    # Settle: every node schedulable, a few sessions.
    for name, cordoned in nodes.items():
        if cordoned:
            api.ok("PATCH", f"/api/v1/nodes/{name}", {"spec": {"unschedulable": False}},
                   "application/merge-patch+json")
    settle = sessions() + 20
    while sessions() < settle:
        time.sleep(0.05)
    stop_watch.set()

    pods = api.ok("GET", "/api/v1/pods")["items"]
    by_name = {p["metadata"]["name"]: p for p in pods}
    # Every acknowledged object still there.
    for name, size in gangs.items():
        for i in range(size):
            if f"{name}-{i}" not in by_name:
                failures.append(f"pod soak/{name}-{i} was acknowledged and is gone")
    stored_groups = {g["metadata"]["name"] for g in api.ok(
        "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/soak/podgroups")["items"]}
    for name in gangs:
        if name not in stored_groups:
            failures.append(f"PodGroup soak/{name} was acknowledged and is gone")
    stored_nodes = {n["metadata"]["name"] for n in api.ok("GET", "/api/v1/nodes")["items"]}
    for name in nodes:
        if name not in stored_nodes:
            failures.append(f"node {name} was acknowledged and is gone")
    # Capacity.
    used = {}
    for p in pods:
        n = p["spec"].get("nodeName")
        if n and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
            cpu = int(p["spec"]["containers"][0]["resources"]["requests"]["cpu"])
            used[n] = used.get(n, 0) + cpu
    for n, cpu in used.items():
        if cpu > NODE_CPU:
            failures.append(f"node {n} holds {cpu} cpu of {NODE_CPU}")
    # Gangs all or nothing.
    for name, size in gangs.items():
        bound = sum(1 for i in range(size) if by_name.get(f"{name}-{i}", {}).get(
            "spec", {}).get("nodeName"))
        if bound not in (0, size):
            failures.append(f"gang {name}: {bound} of {size} bound")
    # No pod bound twice.
    for uid, n in binds.items():
        if n > 1:
            failures.append(f"pod {uid} was bound {n} times")

    total = sessions()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    if code != 0:
        failures.append(f"serve exited {code} on SIGTERM")
    figures = {"sessions": total, "seconds": round(time.time() - start, 1),
               "gangs_created": created, "gangs_deleted": deleted,
               "binds_seen": sum(binds.values()), "nodes_at_end": len(nodes)}
    if warm is not None and len(rss) - warm >= 10 and not sanitized:
        after_warmup = statistics.median(rss[warm:warm + max(5, (len(rss) - warm) // 5)])
        at_end = statistics.median(rss[-max(5, (len(rss) - warm) // 5):])
        figures["rss_after_warmup_mib"] = round(after_warmup / 1024, 1)
        figures["rss_at_end_mib"] = round(at_end / 1024, 1)
        slack = 4096 if args.sessions < 2000 else 0  # KiB, see the docstring
        if at_end > after_warmup * 1.10 + slack:
            failures.append(f"RSS grew from {after_warmup} KiB after warm-up to {at_end} KiB")
    print(json.dumps(figures))
    if failures:
        print("soak failed:\n  " + "\n  ".join(failures[:50]), file=sys.stderr)
        print(open(log_path).read()[-3000:], file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
