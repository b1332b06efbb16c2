#!/usr/bin/python3
"""Volcano's SchedulingGatesQueueAdmission on the local store, through
kubectl against a real `scoria serve --feature-gates
SchedulingGatesQueueAdmission=true` on loopback: a pod created with the
opt-in annotation is gated as Volcano's webhook gates it (also in a dry
run) and shown SchedulingGated; the scheduler lifts the gate once the pod's
queue has room and binds it in a later session; a pod its queue has no room
for keeps its gate and is never marked Unschedulable.

Usage: kube_queue_gates_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
GATE = "scheduling.volcano.sh/queue-allocation-gate"
CONFIG = """actions = ["enqueue", "allocate"]
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }]
[[tiers]]
plugins = [{ name = "predicates" }, { name = "capacity" }, { name = "nodeorder" }]
"""


def pod(name, annotated=True):
    annotations = {"scheduling.volcano.sh/queue-name": "quota"}
    if annotated:
        annotations[GATE] = "true"
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default",
                                    "annotations": annotations},
                       "spec": {"containers": [{"name": "c", "image": "busybox",
                                                "resources": {"requests": {"cpu": "1"}}}]}})


class QueueGates(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(WORK, exist_ok=True)
        config = os.path.join(WORK, "capacity.toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        cls.serve = ScoriaServe(SCORIA, WORK, "gates", config,
                                "--feature-gates", "SchedulingGatesQueueAdmission=true")
        cls.kubectl = cls.serve.kubectl
        cls.kubectl("apply", "-f", "-", stdin=json.dumps(
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-0"},
             "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"},
                        "conditions": [{"type": "Ready", "status": "True"}]}}))
        cls.kubectl("apply", "-f", "-", stdin=json.dumps(
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
             "metadata": {"name": "quota"},
             "spec": {"weight": 1, "capability": {"cpu": "2", "memory": "8Gi"}}}))

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def get(self, name):
        return json.loads(self.kubectl("get", "pod", name, "-o", "json").stdout)

    def gates(self, name):
        return [g["name"] for g in self.get(name)["spec"].get("schedulingGates", [])]

    def test_gated_at_create_lifted_when_the_queue_has_room(self):
        # A dry run shows what the webhook and the API server make of it.
        preview = json.loads(self.kubectl("create", "--dry-run=server", "-o", "json",
                                          "-f", "-", stdin=pod("preview")).stdout)
        self.assertEqual(preview["spec"]["schedulingGates"], [{"name": GATE}])
        self.assertEqual([(c["type"], c["status"], c["reason"])
                          for c in preview["status"]["conditions"]],
                         [("PodScheduled", "False", "SchedulingGated")])
        # Not opted in: no gate.
        plain = json.loads(self.kubectl("create", "--dry-run=server", "-o", "json",
                                        "-f", "-", stdin=pod("plain", annotated=False)).stdout)
        self.assertNotIn("schedulingGates", plain["spec"])

        for i in range(3):
            self.kubectl("create", "-f", "-", stdin=pod(f"g-{i}"))
        # q holds 2 cpu: two are ungated and bound, the third waits gated.
        def bound():
            return sorted(n for n in (self.get(f"g-{i}")["spec"].get("nodeName")
                                      for i in range(3)) if n)
        self.assertTrue(wait_for(lambda: bound() == ["node-0", "node-0"]), self.serve.text())
        waiting = next(f"g-{i}" for i in range(3) if not self.get(f"g-{i}")["spec"].get("nodeName"))
        self.assertEqual(self.gates(waiting), [GATE])
        conditions = self.get(waiting)["status"]["conditions"]
        self.assertEqual([c["reason"] for c in conditions if c["type"] == "PodScheduled"],
                         ["SchedulingGated"])
        row = self.kubectl("get", "pod", waiting, "--no-headers").stdout.split()
        self.assertEqual(row[2], "SchedulingGated")
        for i in range(3):
            if f"g-{i}" != waiting:
                self.assertEqual(self.gates(f"g-{i}"), [])
        # Room appears: the gate goes, then the pod is bound.
        gone = next(f"g-{i}" for i in range(3) if f"g-{i}" != waiting)
        self.kubectl("delete", "pod", gone, "--grace-period=0", "--force")
        self.assertTrue(wait_for(lambda: self.get(waiting)["spec"].get("nodeName") == "node-0"),
                        self.serve.text())
        self.assertEqual(self.gates(waiting), [])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
