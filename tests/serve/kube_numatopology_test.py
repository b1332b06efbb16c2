#!/usr/bin/python3
"""Numatopologies (nodeinfo.volcano.sh/v1alpha1) through kubectl against a
real `scoria serve` on loopback: discovered under Volcano's short name,
applied, listed, read back, changed and deleted as an API server does them,
refused when malformed (nothing stored), and read by the numa-aware plugin
in the service's sessions.

Usage: kube_numatopology_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

CONFIG = """
actions = ["enqueue", "allocate"]

[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }]

[[tiers]]
plugins = [{ name = "predicates" }, { name = "nodeorder" }, { name = "numa-aware" }]
"""


def topology(name, allocatable):
    """Two NUMA nodes of 4 CPUs, single-numa-node, `allocatable` free."""
    return json.dumps({
        "apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology",
        "metadata": {"name": name},
        "spec": {"policies": {"CPUManagerPolicy": "static",
                              "TopologyManagerPolicy": "single-numa-node"},
                 "numares": {"cpu": {"allocatable": allocatable, "capacity": 8}},
                 "cpuDetail": {str(i): {"numa": i // 4, "socket": i // 4, "core": i // 2}
                               for i in range(8)}}})


def node(name):
    return json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                       "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}})


def pod(name, cpu, node_name=None):
    spec = {"terminationGracePeriodSeconds": 0,
            "containers": [{"name": "c", "image": "busybox", "resources": {
                "limits": {"cpu": cpu, "memory": "1Gi"}}}]}
    body = {"apiVersion": "v1", "kind": "Pod", "spec": spec,
            "metadata": {"name": name, "namespace": "work",
                         "annotations": {"volcano.sh/numa-topology-policy": "single-numa-node"}}}
    if node_name:
        spec["nodeName"] = node_name
        spec["containers"][0]["resources"] = {"requests": {"cpu": cpu}}  # Burstable
        body["status"] = {"phase": "Running"}
    return json.dumps(body)


class Service:
    def __init__(self, name):
        os.makedirs(os.path.join(WORK, name), exist_ok=True)
        config = os.path.join(WORK, name + ".toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        self.serve = ScoriaServe(SCORIA, WORK, name, config)
        self.kubeconfig = os.path.join(self.serve.dir, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "Config",
                       "clusters": [{"name": "s", "cluster": {"server": self.serve.url}}],
                       "users": [{"name": "u", "user": {}}],
                       "contexts": [{"name": "c", "context": {"cluster": "s", "user": "u",
                                                              "namespace": "default"}}],
                       "current-context": "c"}, f)

    def kubectl(self, *args, stdin=None, check=True):
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig, *args], input=stdin,
                           capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
        return r

    def json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)


class Numatopologies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Service("numatopo")

    @classmethod
    def tearDownClass(cls):
        cls.s.serve.stop()

    def test_1_discovered_applied_listed_changed_deleted(self):
        s = self.s
        rows = {l.split()[0]: l.split()
                for l in s.kubectl("api-resources", "--no-headers").stdout.splitlines()}
        self.assertEqual(rows["numatopologies"], ["numatopologies", "numatopo",
                                                  "nodeinfo.volcano.sh/v1alpha1", "false",
                                                  "Numatopology"])
        out = s.kubectl("apply", "-f", "-", stdin=topology("spare", "0-7")).stdout
        self.assertIn("numatopology.nodeinfo.volcano.sh/spare created", out)
        got = s.json("get", "numatopo", "spare")
        self.assertEqual((got["apiVersion"], got["kind"]),
                         ("nodeinfo.volcano.sh/v1alpha1", "Numatopology"))
        self.assertEqual(got["spec"]["numares"], {"cpu": {"allocatable": "0-7", "capacity": 8}})
        self.assertTrue(got["metadata"]["uid"])
        table = [l.split() for l in s.kubectl("get", "numatopo").stdout.splitlines()]
        self.assertEqual(table[0], ["NAME", "AGE"])
        self.assertEqual([r[0] for r in table[1:]], ["spare"])
        out = s.kubectl("apply", "-f", "-", stdin=topology("spare", "0-3")).stdout
        self.assertIn("numatopology.nodeinfo.volcano.sh/spare configured", out)
        self.assertEqual(s.json("get", "numatopo", "spare")["spec"]["numares"]["cpu"]["allocatable"],
                         "0-3")
        s.kubectl("delete", "numatopo", "spare")
        self.assertEqual(s.kubectl("get", "numatopo", "spare", check=False).returncode, 1)

    def test_2_malformed_refused_naming_the_field(self):
        r = self.s.kubectl("apply", "-f", "-", stdin=topology("bad", "0-3,x"), check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("spec.numares.cpu.allocatable", r.stderr)
        self.assertIn('"0-3,x" is not a CPU list', r.stderr)
        self.assertEqual(self.s.kubectl("get", "numatopo", "bad", check=False).returncode, 1)

    def test_3_sessions_place_by_numa_topology(self):
        s = self.s
        # n1 has 3 free CPUs on each NUMA node, n2 4 on NUMA node 0 and a
        # Burstable pod running (nodeorder alone would pick n1).
        for body in (node("n1"), node("n2"), topology("n1", "1-3,5-7"),
                     topology("n2", "0-3,6-7")):
            s.kubectl("apply", "-f", "-", stdin=body)
        s.kubectl("create", "-f", "-", stdin=pod("load", "1", node_name="n2"))
        s.kubectl("create", "-f", "-", stdin=pod("db", "4"))
        placed = wait_for(lambda: s.json("get", "pod", "db", "-n", "work")
                          .get("spec", {}).get("nodeName"))
        self.assertEqual(placed, "n2", s.serve.text())


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
