#!/usr/bin/python3
"""Volcano's node shards on the local store, through kubectl against a real
`scoria serve --shard-name left` on loopback: NodeShards discovered
(shard.volcano.sh/v1alpha1, short name nsh) and listed; pods placed only on
the nodes of the instance's shard, the others told why; the shard's status
written as Volcano's scheduler writes it; a shard changed takes effect at the
next session; a shard deleted leaves the instance no node, and the log says
so.

Usage: kube_node_shards_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CONFIG = os.path.join(SOURCE, "config/scheduler.toml")


def node(name):
    return json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                       "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                                  "conditions": [{"type": "Ready", "status": "True"}]}})


def pod(name, cpu="3"):
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"containers": [{"name": "c", "image": "busybox",
                                                "resources": {"requests": {"cpu": cpu}}}]}})


def shard(name, nodes):
    return json.dumps({"apiVersion": "shard.volcano.sh/v1alpha1", "kind": "NodeShard",
                       "metadata": {"name": name}, "spec": {"nodesDesired": nodes}})


class NodeShards(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.serve = ScoriaServe(SCORIA, WORK, "shards", CONFIG, "--shard-name", "left")
        cls.kubectl = cls.serve.kubectl
        for n in ("node-0", "node-1", "node-2"):
            cls.kubectl("apply", "-f", "-", stdin=node(n))

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def get(self, *args):
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)

    def placement(self):
        return {p["metadata"]["name"]: p["spec"].get("nodeName")
                for p in self.get("pods")["items"]}

    def test_a_shard_keeps_the_instance_on_its_nodes_and_reports_them(self):
        rows = [line.split() for line in self.kubectl(
            "api-resources", "--api-group", "shard.volcano.sh", "--no-headers").stdout.splitlines()]
        self.assertEqual(rows, [["nodeshards", "nsh", "shard.volcano.sh/v1alpha1", "false",
                                 "NodeShard"]])
        # Until the shard exists no node is the instance's.
        self.kubectl("apply", "-f", "-", stdin=pod("early", cpu="1"))
        self.assertTrue(wait_for(lambda: "NodeShard left does not exist" in self.serve.text()),
                        self.serve.text())
        self.assertIsNone(self.placement()["early"])

        self.kubectl("apply", "-f", "-", stdin=shard("left", ["node-0", "node-1"]))
        for i in range(3):
            self.kubectl("apply", "-f", "-", stdin=pod(f"p-{i}"))
        self.assertTrue(wait_for(lambda: sum(1 for n in self.placement().values() if n) == 3),
                        self.serve.text())
        where = self.placement()
        self.assertLessEqual(set(where.values()) - {None}, {"node-0", "node-1"})
        status = self.get("nodeshard", "left")["status"]
        self.assertEqual(status["nodesInUse"], ["node-0", "node-1"])
        self.assertEqual(status["nodesToAdd"], [])
        out = self.kubectl("get", "nsh").stdout.split()
        self.assertEqual(out[:3], ["NAME", "AGE", "left"])
        waiting = [p for p, n in where.items() if not n]
        self.assertEqual(len(waiting), 1)
        condition = [c for c in self.get("pod", waiting[0])["status"]["conditions"]
                     if c["type"] == "PodScheduled"][0]
        self.assertIn("1 node isn't in scheduler node shard", condition["message"])

        # node-2 joins the shard: the pod left over goes there.
        self.kubectl("apply", "-f", "-", stdin=shard("left", ["node-0", "node-1", "node-2"]))
        self.assertTrue(wait_for(lambda: self.placement()[waiting[0]] == "node-2"),
                        self.serve.text())
        self.assertTrue(wait_for(lambda: self.get("nodeshard", "left")["status"]["nodesInUse"] ==
                                 ["node-0", "node-1", "node-2"]))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
