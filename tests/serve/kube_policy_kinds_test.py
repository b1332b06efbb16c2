#!/usr/bin/python3
"""PodDisruptionBudgets and ResourceQuotas through kubectl against a real
`scoria serve` on loopback: discovered, applied, listed, read back, watched,
refused when malformed and deleted as an API server does them, and honoured
by the sessions (pdb spares what a budget protects, resourcequota keeps the
job that would exceed a quota from being enqueued).

Usage: kube_policy_kinds_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, read_words_until, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

# Volcano's default tiers with both plugins and preemption.
CONFIG = """
actions = ["enqueue", "allocate", "preempt"]

[[tiers]]
plugins = [
  { name = "priority" },
  { name = "gang", enablePreemptable = false },
  { name = "conformance" },
  { name = "pdb" },
]

[[tiers]]
plugins = [{ name = "predicates" }, { name = "proportion" }, { name = "resourcequota" }]
"""

BUDGET = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
"""

QUOTA = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: ml}
spec:
  hard: {cpu: "2", pods: "10"}
"""


class Service:
    """A service with CONFIG, and a kubeconfig for it."""

    def __init__(self, name):
        os.makedirs(os.path.join(WORK, name), exist_ok=True)
        config = os.path.join(WORK, name + ".toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        self.serve = ScoriaServe(SCORIA, WORK, name, config)
        self.kubectl = self.serve.kubectl

    def json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def stop(self):
        self.serve.stop()


def node(name, cpu):
    return f"""
apiVersion: v1
kind: Node
metadata: {{name: {name}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}
"""


def pod(name, ns, cpu, labels=None, node_name=None, priority=None, group=None):
    meta = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    if group:
        meta["annotations"] = {"scheduling.k8s.io/group-name": group}
    spec = {"terminationGracePeriodSeconds": 0,
            "containers": [{"name": "c", "image": "busybox",
                            "resources": {"requests": {"cpu": cpu}}}]}
    if priority is not None:
        spec["priority"] = priority
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if node_name:
        spec["nodeName"] = node_name
        body["status"] = {"phase": "Running"}  # as a kubelet would report it
    return json.dumps(body)


class Api(unittest.TestCase):
    """Both kinds as kubectl finds, writes, reads, watches and deletes them."""

    @classmethod
    def setUpClass(cls):
        cls.s = Service("api")

    @classmethod
    def tearDownClass(cls):
        cls.s.stop()

    def test_discovered_with_their_short_names(self):
        out = self.s.kubectl("api-resources", "--no-headers").stdout.splitlines()
        rows = {line.split()[0]: line.split() for line in out}
        self.assertEqual(rows["poddisruptionbudgets"],
                         ["poddisruptionbudgets", "pdb", "policy/v1", "true",
                          "PodDisruptionBudget"])
        self.assertEqual(rows["resourcequotas"],
                         ["resourcequotas", "quota", "v1", "true", "ResourceQuota"])

    def test_applied_read_back_listed_changed_and_deleted(self):
        s = self.s
        # A watch started before they exist sees them come and go.
        watcher = subprocess.Popen(
            ["kubectl", "--kubeconfig", s.serve.kubeconfig(), "get", "pdb", "-A", "-w",
             "--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name",
             "--no-headers"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        out = s.kubectl("apply", "-f", "-", stdin=BUDGET + "---" + QUOTA).stdout
        self.assertIn("poddisruptionbudget.policy/web created", out)
        self.assertIn("resourcequota/compute created", out)

        budget = s.json("get", "pdb", "web", "-n", "shop")
        self.assertEqual((budget["apiVersion"], budget["kind"]), ("policy/v1", "PodDisruptionBudget"))
        self.assertEqual(budget["spec"], {"minAvailable": 1,
                                          "selector": {"matchLabels": {"app": "web"}}})
        self.assertTrue(budget["metadata"]["uid"])
        quota = s.json("get", "quota", "compute", "-n", "ml")
        self.assertEqual(quota["spec"]["hard"], {"cpu": "2", "pods": "10"})

        # The server prints them as kubectl's printers do.
        table = [l.split() for l in s.kubectl("get", "pdb", "-n", "shop").stdout.splitlines()]
        self.assertEqual(table[0], ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED",
                                    "DISRUPTIONS", "AGE"])
        self.assertEqual(table[1][:4], ["web", "1", "N/A", "0"])
        table = [l.split() for l in s.kubectl("get", "quota", "-A").stdout.splitlines()]
        self.assertEqual(table[0][:5], ["NAMESPACE", "NAME", "AGE", "REQUEST", "LIMIT"])
        self.assertEqual(table[1][:2], ["ml", "compute"])
        listed = s.kubectl("get", "pdb,quota", "-A", "-o", "name").stdout.split()
        self.assertEqual(sorted(listed), ["poddisruptionbudget.policy/web", "resourcequota/compute"])

        # Applied again with a change: configured, the change kept.
        changed = BUDGET.replace("minAvailable: 1", 'maxUnavailable: "50%"')
        self.assertIn("poddisruptionbudget.policy/web configured",
                      s.kubectl("apply", "-f", "-", stdin=changed).stdout)
        spec = s.json("get", "pdb", "web", "-n", "shop")["spec"]
        self.assertEqual(spec, {"maxUnavailable": "50%",
                                "selector": {"matchLabels": {"app": "web"}}})

        # A status written through the status subresource, as the
        # disruption controller writes it, and read back.
        s.kubectl("patch", "pdb", "web", "-n", "shop", "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": {"disruptionsAllowed": 2, "currentHealthy": 4,
                                               "desiredHealthy": 2, "expectedPods": 4}}))
        self.assertEqual(s.json("get", "pdb", "web", "-n", "shop")["status"]["disruptionsAllowed"],
                         2)

        s.kubectl("delete", "pdb", "web", "-n", "shop")
        s.kubectl("delete", "quota", "compute", "-n", "ml")
        self.assertEqual(s.kubectl("get", "pdb", "web", "-n", "shop", check=False).returncode, 1)
        self.assertEqual(s.kubectl("get", "quota", "-A", "-o", "name").stdout.strip(), "")

        lines = read_words_until(watcher, lambda lines: ["DELETED", "web"] in lines)
        self.assertEqual([l[0] for l in lines if l[1:] == ["web"]],
                         ["ADDED", "MODIFIED", "MODIFIED", "DELETED"], lines)

    def test_malformed_ones_are_refused_naming_the_field(self):
        bad = BUDGET.replace("name: web", "name: bad").replace(
            "matchLabels: {app: web}", "matchExpressions: [{key: app, operator: Equals}]")
        r = self.s.kubectl("apply", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("spec.selector.matchExpressions[0].operator", r.stderr)
        self.assertIn('"Equals" is not an operator', r.stderr)
        bad = QUOTA.replace("name: compute", "name: bad").replace('cpu: "2"', 'cpu: "two"')
        r = self.s.kubectl("apply", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("spec.hard.cpu", r.stderr)
        self.assertEqual(self.s.kubectl("get", "pdb,quota", "-A", "-o", "name").stdout.strip(), "")


class Sessions(unittest.TestCase):
    """The scheduler reads them from the store and honours them."""

    def setUp(self):
        self.s = Service(self.id().split(".")[-1])

    def tearDown(self):
        self.s.stop()

    def test_a_budget_spares_the_pod_that_would_break_it(self):
        s = self.s
        s.kubectl("apply", "-f", "-", stdin=node("node-p", "3") + "---" + BUDGET)
        for name, value in (("high", 1000), ("low", 1)):
            s.kubectl("apply", "-f", "-", stdin=json.dumps({
                "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": name}, "value": value}))

        def group(name, priority_class, phase=None):
            s.kubectl("apply", "-f", "-", stdin=json.dumps({
                "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "shop"},
                "spec": {"minMember": 1, "priorityClassName": priority_class}}))
            if phase:
                s.kubectl("patch", "podgroup", name, "-n", "shop", "--subresource=status",
                          "--type=merge", "-p", json.dumps({"status": {"phase": phase}}))
        # Three low-priority pods fill the node: two web pods, whose budget
        # (no status: computed) lets one go, and a batch pod.
        group("running", "low", "Running")
        for name, labels in (("web-0", {"app": "web"}), ("web-1", {"app": "web"}),
                             ("batch-0", {"app": "batch"})):
            s.kubectl("create", "-f", "-",
                      stdin=pod(name, "shop", "1", labels, "node-p", 1, group="running"))
        # A high-priority pod needs two of them to go. Its PodGroup is
        # Inqueue, as Volcano's preemption tests set it: the queue is full, so
        # enqueue would not admit it, and preemption serves admitted jobs only.
        group("urgent", "high", "Inqueue")
        s.kubectl("create", "-f", "-",
                  stdin=pod("urgent", "shop", "2", priority=1000, group="urgent"))

        def names():
            return sorted(p["metadata"]["name"] for p in s.json("get", "pods", "-n", "shop")["items"])
        left = wait_for(lambda: (lambda n: n if len(n) == 2 else None)(names()))
        self.assertIsNotNone(left, s.serve.text())
        # batch-0 went, and one web pod: never both.
        self.assertIn("urgent", left)
        self.assertIn(next(n for n in left if n != "urgent"), ("web-0", "web-1"))
        self.assertTrue(wait_for(lambda: s.json("get", "pod", "urgent", "-n", "shop")
                                 .get("spec", {}).get("nodeName") == "node-p"), s.serve.text())
        time.sleep(1)  # ten more sessions: the budget still holds
        self.assertEqual(names(), left)

    def test_a_quota_keeps_the_job_that_would_exceed_it_pending(self):
        s = self.s
        s.kubectl("apply", "-f", "-", stdin=node("node-q", "8") + "---" + QUOTA)
        # Two jobs of 2 cpu in namespace ml, whose quota (no status:
        # counted from its pods) holds one.
        def job(name):
            s.kubectl("apply", "-f", "-", stdin=json.dumps({
                "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "ml"},
                "spec": {"minMember": 1, "minResources": {"cpu": "2"}}}))
            s.kubectl("create", "-f", "-", stdin=pod(f"{name}-0", "ml", "2", group=name))
        job("first")
        self.assertTrue(wait_for(lambda: s.json("get", "pod", "first-0", "-n", "ml")
                                 .get("spec", {}).get("nodeName") == "node-q"), s.serve.text())
        job("second")

        def condition():
            group = s.json("get", "pg", "second", "-n", "ml")
            for c in group.get("status", {}).get("conditions") or []:
                if c.get("type") == "Unschedulable" and "resource quota" in c.get("message", ""):
                    return group, c
            return None
        found = wait_for(condition)
        self.assertIsNotNone(found, s.serve.text())
        group, cond = found
        self.assertEqual(group["status"]["phase"], "Pending")
        self.assertIn("resource quota insufficient, requested: cpu=2, used: cpu=2, limited: cpu=2 "
                      "(ResourceQuota ml/compute)", cond["message"])
        self.assertIsNone(s.json("get", "pod", "second-0", "-n", "ml")["spec"].get("nodeName"))
        # Raised, it lets the second job in.
        s.kubectl("patch", "quota", "compute", "-n", "ml", "--type=merge",
                  "-p", json.dumps({"spec": {"hard": {"cpu": "4"}}}))
        self.assertTrue(wait_for(lambda: s.json("get", "pod", "second-0", "-n", "ml")
                                 .get("spec", {}).get("nodeName") == "node-q"), s.serve.text())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
