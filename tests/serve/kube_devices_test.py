#!/usr/bin/python3
"""Pods claiming devices against a real `scoria serve` on its local store,
driven by real kubectl: a pod naming a ResourceClaimTemplate gets its claim
(POD-ENTRY, owned by the pod, as the resource-claim controller makes it),
the claim is allocated on the node whose device its CEL selector picks and
reserved for the pod before the pod is bound; a second pod that finds no
device waits, saying so as kube-scheduler does; once the first pod is gone
its claim goes with it and the second pod gets the device.

Usage: kube_devices_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]


def node_and_slice(name, model):
    return f"""
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{allocatable: {{cpu: "8", memory: 16Gi, pods: "110"}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}-gpus}}
spec:
  driver: gpu.example.com
  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}
  nodeName: {name}
  devices:
  - name: gpu-0
    attributes: {{model: {{string: {model}}}}}
    capacity: {{memory: {{value: 80Gi}}}}
"""


CLUSTER = node_and_slice("node-a", "a100") + "---" + node_and_slice("node-b", "h100") + """
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-h100}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}
"""


def pod(name):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  terminationGracePeriodSeconds: 1
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-h100}}]
  containers:
  - name: c
    image: busybox
    resources: {{requests: {{cpu: "1"}}, claims: [{{name: gpu}}]}}
"""


class Devices(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = ScoriaServe(SCORIA, WORK, "devices",
                                os.path.join(SOURCE, "config/scheduler.toml"))
        cls.kubectl = cls.serve.kubectl
        cls.kubectl("apply", "-f", "-", stdin=CLUSTER)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def get(self, *args):
        done = self.kubectl("get", *args, "-o", "json", check=False)
        return json.loads(done.stdout) if done.returncode == 0 else None

    def node_of(self, name):
        return wait_for(lambda: (self.get("pod", name) or {}).get("spec", {}).get("nodeName"))

    def scheduled_false(self, name):
        for c in (self.get("pod", name) or {}).get("status", {}).get("conditions", []):
            if c["type"] == "PodScheduled" and c["status"] == "False":
                return c
        return None

    def test_a_template_claim_is_made_allocated_and_released_with_its_pod(self):
        self.kubectl("apply", "-f", "-", stdin=pod("train-1"))
        self.assertEqual(self.node_of("train-1"), "node-b")
        claim = self.get("resourceclaim", "train-1-gpu")
        self.assertIsNotNone(claim, "no claim was made for the pod")
        owner = claim["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["name"], owner.get("controller")),
                         ("Pod", "train-1", True))
        self.assertEqual(owner["uid"], self.get("pod", "train-1")["metadata"]["uid"])
        results = claim["status"]["allocation"]["devices"]["results"]
        self.assertEqual([(r["request"], r["driver"], r["pool"], r["device"]) for r in results],
                         [("gpu", "gpu.example.com", "node-b", "gpu-0")])
        term = claim["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0]
        self.assertEqual(term["matchFields"][0]["values"], ["node-b"])
        self.assertEqual([r["name"] for r in claim["status"]["reservedFor"]], ["train-1"])

        # The only h100 is taken: the next pod waits, with kube-scheduler's
        # words (first for its claim to be made, then for a device).
        self.kubectl("apply", "-f", "-", stdin=pod("train-2"))
        waiting = wait_for(lambda: (lambda c: c if c and "claims" in c["message"] else None)(
            self.scheduled_false("train-2")))
        self.assertIsNotNone(waiting, self.scheduled_false("train-2"))
        self.assertIn("0/2 nodes are available: 2 cannot allocate all claims.", waiting["message"])
        self.assertNotIn("nodeName", self.get("pod", "train-2")["spec"])

        # The first pod goes (after its grace period: its devices are in use
        # until it is gone), its claim with it; the device serves the next.
        self.kubectl("delete", "pod", "train-1", "--wait=false")
        self.assertTrue(wait_for(lambda: self.get("resourceclaim", "train-1-gpu") is None),
                        "the claim made for a deleted pod stayed")
        self.assertEqual(self.node_of("train-2"), "node-b")
        claim = wait_for(lambda: (lambda c: c if c and c.get("status", {}).get("allocation")
                                  else None)(self.get("resourceclaim", "train-2-gpu")))
        self.assertEqual(claim["status"]["allocation"]["devices"]["results"][0]["device"], "gpu-0")

    def test_a_pod_whose_claim_does_not_exist_waits_and_says_why(self):
        self.kubectl("apply", "-f", "-", stdin="""
apiVersion: v1
kind: Pod
metadata: {name: orphan}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: nope}]
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
""")
        c = wait_for(lambda: self.scheduled_false("orphan"))
        self.assertIsNotNone(c)
        self.assertIn('0/2 nodes are available: resourceclaim.resource.k8s.io "nope" not found.',
                      c["message"])
        self.assertNotIn("nodeName", self.get("pod", "orphan")["spec"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
