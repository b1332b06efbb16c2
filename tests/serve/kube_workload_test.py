#!/usr/bin/python3
"""Kubernetes' own gangs (the Workload API, scheduling.k8s.io/v1beta1)
through kubectl against a real `scoria serve` on loopback: Workload and
PodGroup discovered beside Volcano's PodGroup, applied, listed with their
columns, refused when malformed naming the field; a gang of pods joining a
PodGroup through spec.schedulingGroup is bound whole once it fits, and the
group's PodGroupInitiallyScheduled condition is written, as kube-scheduler
writes it; a pod naming a PodGroup not yet made waits for it.

Usage: kube_workload_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

CONFIG = """
actions = ["enqueue", "allocate"]

[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }]

[[tiers]]
plugins = [{ name = "predicates" }, { name = "proportion" }]
"""

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
"""

WORKLOAD = """
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 3}}
"""

GROUP = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train-workers, namespace: ml}
spec:
  workloadRef: {workloadName: train, templateName: workers}
  schedulingPolicy: {gang: {minCount: 3}}
"""


def pod(name, group, cpu):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"},
        "spec": {"schedulingGroup": {"podGroupName": group},
                 "containers": [{"name": "c", "image": "busybox",
                                 "resources": {"requests": {"cpu": cpu}}}]}})


class Api(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(WORK, "api"), exist_ok=True)
        config = os.path.join(WORK, "api.toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        cls.serve = ScoriaServe(SCORIA, WORK, "api", config)
        cls.kubectl = cls.serve.kubectl
        cls.kubectl("create", "namespace", "ml")
        cls.kubectl("apply", "-f", "-", stdin=NODE)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def test_discovered_beside_volcanos_podgroup(self):
        out = self.kubectl("api-resources", "--api-group", "scheduling.k8s.io",
                           "--no-headers").stdout.splitlines()
        rows = sorted(line.split() for line in out)
        self.assertIn(["podgroups", "scheduling.k8s.io/v1beta1", "true", "PodGroup"], rows)
        self.assertIn(["workloads", "scheduling.k8s.io/v1beta1", "true", "Workload"], rows)
        versions = self.kubectl("api-versions").stdout.split()
        for v in ("scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1",
                  "scheduling.volcano.sh/v1beta1"):
            self.assertIn(v, versions)

    def test_a_gang_is_bound_whole_and_its_condition_written(self):
        k = self.kubectl
        k("apply", "-f", "-", stdin=WORKLOAD + "---" + GROUP)
        self.assertEqual(self.json("get", "workloads.scheduling.k8s.io", "train", "-n", "ml")
                         ["spec"]["podGroupTemplates"][0]["name"], "workers")
        # Two of three: the gang waits, and says so in its condition.
        k("create", "-f", "-", stdin=pod("w-0", "train-workers", "1"))
        k("create", "-f", "-", stdin=pod("w-1", "train-workers", "1"))

        def condition():
            group = self.json("get", "podgroups.scheduling.k8s.io", "train-workers", "-n", "ml")
            for c in group.get("status", {}).get("conditions", []):
                if c["type"] == "PodGroupInitiallyScheduled":
                    return c
            return None
        self.assertTrue(wait_for(lambda: (condition() or {}).get("reason") == "Unschedulable"),
                        self.serve.text())
        self.assertEqual(condition()["status"], "False")
        # Its Unschedulable event names the group it is about.
        events = [e for e in self.json("get", "events", "-n", "ml")["items"]
                  if e["involvedObject"].get("name") == "train-workers"]
        self.assertTrue(events)
        for e in events:
            self.assertEqual(e["involvedObject"]["apiVersion"], "scheduling.k8s.io/v1beta1")
            self.assertEqual(e["involvedObject"]["kind"], "PodGroup")
        for name in ("w-0", "w-1"):
            self.assertEqual(self.json("get", "pod", name, "-n", "ml")["spec"].get("nodeName"),
                             None)
        # No Volcano PodGroup was made for them, nor one of that name.
        self.assertEqual(self.json("get", "podgroups.scheduling.volcano.sh", "-n", "ml")["items"],
                         [])
        # The third arrives: all three bound, the condition True.
        k("create", "-f", "-", stdin=pod("w-2", "train-workers", "1"))
        self.assertTrue(wait_for(lambda: all(
            self.json("get", "pod", n, "-n", "ml")["spec"].get("nodeName") == "node-a"
            for n in ("w-0", "w-1", "w-2"))), self.serve.text())
        self.assertTrue(wait_for(lambda: (condition() or {}).get("status") == "True"),
                        self.serve.text())
        self.assertEqual(condition()["reason"], "Scheduled")
        table = k("get", "podgroups.scheduling.k8s.io", "-n", "ml").stdout.split("\n")
        self.assertEqual(table[0].split(), ["NAME", "POLICY", "MINCOUNT", "SCHEDULED", "AGE"])
        self.assertEqual(table[1].split()[:4], ["train-workers", "gang", "3", "True"])

    def test_a_pod_waits_for_its_podgroup(self):
        k = self.kubectl
        k("create", "-f", "-", stdin=pod("late-0", "later", "1"))
        time.sleep(1)  # several sessions
        self.assertEqual(self.json("get", "pod", "late-0", "-n", "ml")["spec"].get("nodeName"),
                         None)
        k("apply", "-f", "-", stdin=GROUP.replace("train-workers", "later")
          .replace("  workloadRef: {workloadName: train, templateName: workers}\n", "")
          .replace("minCount: 3", "minCount: 1"))
        self.assertTrue(wait_for(lambda: self.json("get", "pod", "late-0", "-n", "ml")["spec"]
                                 .get("nodeName") == "node-a"), self.serve.text())

    def test_malformed_is_refused_naming_the_field(self):
        bad = self.kubectl("apply", "-f", "-", check=False,
                           stdin=GROUP.replace("minCount: 3", "minCount: 0")
                           .replace("train-workers", "bad"))
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("spec.schedulingPolicy.gang.minCount: 0 is below 1", bad.stderr)
        self.assertEqual(
            subprocess.run(["kubectl", "--kubeconfig", self.serve.kubeconfig(), "get",
                            "podgroups.scheduling.k8s.io", "bad", "-n", "ml"],
                           capture_output=True, text=True).returncode, 1)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
