#!/usr/bin/env python3
"""The Grafana dashboard asks only for what `scoria serve` exports: every
metric its queries name is on /metrics of a running service, after sessions
that placed a job, left one unschedulable, preempted, and reloaded the
config.

    dashboard_test.py SCORIA SOURCE_DIR WORK
"""
import json
import os
import re
import signal
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from serve_process import ScoriaServe, wait_for  # noqa: E402

CONFIG = """actions = ["enqueue", "allocate", "preempt"]
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]
[[tiers]]
plugins = [{ name = "overcommit" }, { name = "drf", enablePreemptable = false },
           { name = "predicates" }, { name = "proportion" }, { name = "nodeorder" }]
"""



def job(name, pods, cpu, priority, min_member):
    out = ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: %s, "
           "namespace: ns, creationTimestamp: \"2026-01-01T00:00:00Z\"}\nspec: {minMember: %d, "
           "priorityClassName: %s}\n" % (name, min_member, priority))
    for i in range(pods):
        out += ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%d, namespace: ns, "
                "annotations: {scheduling.k8s.io/group-name: %s}}\nspec: {priorityClassName: %s, "
                "containers: [{name: c, resources: {requests: {cpu: \"%s\", memory: 1Gi}}}]}\n"
                % (name, i, name, priority, cpu))
    return out


def request(serve, method, path, body):
    # A form's content type (urllib's default) is refused, as from a browser.
    req = urllib.request.Request(serve.url + path, data=body.encode(), method=method,
                                 headers={"Content-Type": "application/yaml"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def queried_metrics(dashboard):
    names = set()
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            names |= set(re.findall(r"\b(?:volcano|scoria)_[a-z0-9_]+", target["expr"]))
    return names


def main():
    scoria, source, work = sys.argv[1:4]
    with open(os.path.join(source, "packaging/grafana/scoria-dashboard.json")) as f:
        dashboard = json.load(f)
    wanted = queried_metrics(dashboard)
    if len(wanted) < 20:
        sys.exit("FAIL: the dashboard names only %d metrics: %s" % (len(wanted), sorted(wanted)))
    with open(os.path.join(source, "tests/serve/fixtures/preemption_base.yaml")) as f:
        base = f.read()
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "scheduler.toml")
    with open(config, "w") as f:
        f.write(CONFIG)
    serve = ScoriaServe(scoria, work, "dashboard", config)
    try:
        request(serve, "POST", "/api/v1/objects", base + "---\n" + job("low", 2, "2", "low", 1))
        wait_for(lambda: serve.metric('volcano_queue_allocated_milli_cpu{queue_name="default"}')
                 == 4000)
        for pod in ("low-0", "low-1"):
            request(serve, "PUT", "/api/v1/pods/ns/%s/status" % pod, '{"phase": "Running"}')
        request(serve, "POST", "/api/v1/objects", job("high", 1, "2", "high", 1))
        request(serve, "POST", "/api/v1/objects", job("stuck", 2, "3", "low", 2))
        serve.proc.send_signal(signal.SIGHUP)
        if not wait_for(lambda: serve.metric('volcano_eviction_transactions_total{action="preempt"}')
                        and serve.metric("scoria_config_reloads_total")):
            sys.exit("FAIL: no preemption or reload seen:\n" + serve.text())
        _, text = serve.get("/metrics")
    finally:
        serve.stop()
    exported = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            name, kind = line.split()[2:4]
            exported.add(name)
            if kind == "histogram":
                exported |= {name + "_bucket", name + "_count", name + "_sum"}
    missing = sorted(wanted - exported)
    if missing:
        sys.exit("FAIL: the dashboard queries metrics /metrics does not export: %s" % missing)
    print("dashboard: all %d metrics it queries are exported" % len(wanted))


if __name__ == "__main__":
    main()
