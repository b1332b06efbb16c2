#!/usr/bin/python3
"""Pods with volumes against a real `scoria serve` on its local store,
driven by real kubectl: a claim bound to a zone-b volume puts its pod in
zone b; a WaitForFirstConsumer claim of a provisioning class is given the
pod's node and a volume pvc-UID there, written with the pod's bind, as the
PersistentVolume controller and a CSI provisioner would (none runs here); a
static volume is given to the claim that fits; a pod whose claim does not
exist waits, saying so as kube-scheduler does.

Usage: kube_volumes_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: node-a}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {topology.kubernetes.io/zone: b, kubernetes.io/hostname: node-b}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
"""

ZONE_B_VOLUME = """
apiVersion: v1
kind: PersistentVolume
metadata: {name: data-b, labels: {topology.kubernetes.io/zone: b}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  claimRef: {namespace: default, name: data}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [b]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  annotations: {pv.kubernetes.io/bind-completed: "yes"}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  volumeName: data-b
  resources: {requests: {storage: 10Gi}}
"""

STATIC_VOLUMES = """
apiVersion: v1
kind: PersistentVolume
metadata: {name: small-a}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-a]}]
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: big-a}
spec:
  capacity: {storage: 50Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-a]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: logs}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 5Gi}}
"""


def pod(name, claim):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
  volumes: [{{name: v, persistentVolumeClaim: {{claimName: {claim}}}}}]
"""


class Volumes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = ScoriaServe(SCORIA, WORK, "volumes",
                                os.path.join(SOURCE, "config/scheduler.toml"))
        cls.kubectl = cls.serve.kubectl
        cls.kubectl("apply", "-f", "-", stdin=CLUSTER)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def get(self, *args):
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)

    def node_of(self, name):
        return wait_for(lambda: self.get("pod", name)["spec"].get("nodeName"))

    def test_a_bound_claim_takes_its_pod_to_its_volume(self):
        self.kubectl("apply", "-f", "-", stdin=ZONE_B_VOLUME)
        self.kubectl("apply", "-f", "-", stdin=pod("reader", "data"))
        self.assertEqual(self.node_of("reader"), "node-b")

    def test_a_waiting_claim_is_provisioned_on_its_pods_node(self):
        claim = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: scratch}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 2Gi}}
"""
        self.kubectl("apply", "-f", "-", stdin=claim)
        self.kubectl("apply", "-f", "-", stdin=pod("writer", "scratch"))
        node = self.node_of("writer")
        self.assertIn(node, ("node-a", "node-b"))
        pvc = wait_for(lambda: (lambda c: c if c.get("status", {}).get("phase") == "Bound"
                                else None)(self.get("pvc", "scratch")))
        self.assertIsNotNone(pvc, "the claim was never bound")
        self.assertEqual(pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
                         node)
        volume = pvc["spec"]["volumeName"]
        self.assertEqual(volume, "pvc-" + pvc["metadata"]["uid"])
        pv = self.get("pv", volume)
        self.assertEqual(pv["spec"]["claimRef"]["name"], "scratch")
        self.assertEqual(pv["spec"]["storageClassName"], "fast")
        zone = self.get("node", node)["metadata"]["labels"]["topology.kubernetes.io/zone"]
        term = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]
        self.assertEqual(term["matchExpressions"][0]["values"], [zone])
        # kubectl shows them as a cluster's: Bound, the claim named.
        self.assertRegex(self.kubectl("get", "pvc", "scratch").stdout,
                         r"scratch\s+Bound\s+" + volume)

    def test_a_static_volume_that_fits_is_given_to_the_claim(self):
        self.kubectl("apply", "-f", "-", stdin=STATIC_VOLUMES)
        self.kubectl("apply", "-f", "-", stdin=pod("logger", "logs"))
        self.assertEqual(self.node_of("logger"), "node-a")
        pvc = wait_for(lambda: (lambda c: c if c["spec"].get("volumeName") else None)(
            self.get("pvc", "logs")))
        # 1Gi is too small for 5Gi: the smallest that fits is big-a.
        self.assertEqual(pvc["spec"]["volumeName"], "big-a")
        self.assertEqual(self.get("pv", "big-a")["spec"]["claimRef"]["name"], "logs")
        self.assertNotIn("claimRef", self.get("pv", "small-a")["spec"])

    def test_a_pod_whose_claim_does_not_exist_waits_and_says_why(self):
        self.kubectl("apply", "-f", "-", stdin=pod("orphan", "nope"))

        def condition():
            p = self.get("pod", "orphan")
            for c in p.get("status", {}).get("conditions", []):
                if c["type"] == "PodScheduled" and c["status"] == "False":
                    return c
            return None
        c = wait_for(condition)
        self.assertIsNotNone(c)
        self.assertIn('0/2 nodes are available: persistentvolumeclaim "nope" not found.',
                      c["message"])
        self.assertNotIn("nodeName", self.get("pod", "orphan")["spec"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
