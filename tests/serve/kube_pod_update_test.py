#!/usr/bin/python3
"""What an update may change in a pod, against a real `scoria serve` with
kubectl, as kube-apiserver decides it: a pod's spec is fixed once created
but for images, activeDeadlineSeconds, added tolerations and removed
scheduling gates; spec.nodeName is set through the binding only; a PATCH
or PUT cannot change a name, namespace, uid or kind. Each refusal leaves
the stored pod as it was.

Usage: kube_pod_update_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import sys
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
"""


def pod(name, extra=""):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
{extra}"""


FORBIDDEN = "spec: Forbidden: pod updates may not change fields other than"


class PodUpdates(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = ScoriaServe(SCORIA, WORK, "pod-update",
                                os.path.join(SOURCE, "config/scheduler.toml"))
        cls.kubectl = cls.serve.kubectl
        cls.kubectl("create", "-f", "-", stdin=NODE)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def get(self, name):
        return json.loads(self.kubectl("get", "pod", name, "-o", "json").stdout)

    def refused(self, *args, stdin=None):
        r = self.kubectl(*args, check=False, stdin=stdin)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        return r.stderr

    def bound(self, name):
        self.kubectl("create", "-f", "-", stdin=pod(name))
        self.assertTrue(wait_for(lambda: self.get(name)["spec"].get("nodeName") == "node-a"))
        return self.get(name)

    def test_a_bound_pod_keeps_its_spec_and_node(self):
        before = self.bound("bound")
        err = self.refused("patch", "pod", "bound", "--type=merge", "-p", '{"spec":null}')
        self.assertIn('The Pod "bound" is invalid: ' + FORBIDDEN, err)
        err = self.refused("patch", "pod", "bound", "--type=merge",
                           "-p", '{"spec":{"nodeName":"ghost"}}')
        self.assertIn(FORBIDDEN, err)
        err = self.refused("patch", "pod", "bound", "--type=merge",
                           "-p", '{"spec":{"containers":[{"name":"c","image":"busybox",'
                                 '"resources":{"requests":{"cpu":"7"}}}]}}')
        self.assertIn(FORBIDDEN, err)
        # kubectl replace from the manifest drops the node the binding set.
        err = self.refused("replace", "-f", "-", stdin=pod("bound"))
        self.assertIn(FORBIDDEN, err)
        after = self.get("bound")
        self.assertEqual(after["spec"], before["spec"])
        self.assertEqual(after["metadata"]["resourceVersion"],
                         before["metadata"]["resourceVersion"])

    def test_what_kube_apiserver_lets_change_changes(self):
        self.kubectl("create", "-f", "-", stdin=pod(
            "mutable", "  schedulingGates: [{name: wait-a}, {name: wait-b}]\n"
                       "  tolerations: [{key: a, operator: Exists}]"))
        self.kubectl("set", "image", "pod/mutable", "c=busybox:2")
        self.kubectl("patch", "pod", "mutable", "--type=merge",
                     "-p", '{"spec":{"activeDeadlineSeconds":600}}')
        self.kubectl("patch", "pod", "mutable", "--type=json", "-p",
                     '[{"op":"add","path":"/spec/tolerations/-",'
                     '"value":{"key":"b","operator":"Exists"}}]')
        self.kubectl("patch", "pod", "mutable", "--type=json",
                     "-p", '[{"op":"remove","path":"/spec/schedulingGates/0"}]')
        self.kubectl("label", "pod", "mutable", "tier=gold")
        spec = self.get("mutable")["spec"]
        self.assertEqual(spec["containers"][0]["image"], "busybox:2")
        self.assertEqual(spec["activeDeadlineSeconds"], 600)
        self.assertEqual([t["key"] for t in spec["tolerations"]], ["a", "b"])
        self.assertEqual(spec["schedulingGates"], [{"name": "wait-b"}])
        # Not removed, not lengthened; no toleration taken away, no gate added.
        self.assertIn(FORBIDDEN, self.refused(
            "patch", "pod", "mutable", "--type=merge",
            "-p", '{"spec":{"activeDeadlineSeconds":900}}'))
        self.assertIn(FORBIDDEN, self.refused(
            "patch", "pod", "mutable", "--type=json",
            "-p", '[{"op":"remove","path":"/spec/tolerations/0"}]'))
        self.assertIn("spec.schedulingGates: Forbidden: only deletion is allowed", self.refused(
            "patch", "pod", "mutable", "--type=json",
            "-p", '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"new"}}]'))

    def test_what_names_the_pod_cannot_change(self):
        self.kubectl("create", "-f", "-", stdin=pod("named"))
        self.assertIn('metadata.name: Invalid value: "other": field is immutable', self.refused(
            "patch", "pod", "named", "--type=merge", "-p", '{"metadata":{"name":"other"}}'))
        self.assertIn('metadata.uid: Invalid value: "x": field is immutable', self.refused(
            "patch", "pod", "named", "--type=merge", "-p", '{"metadata":{"uid":"x"}}'))
        self.assertIn('metadata.namespace: Invalid value: "kube-system": field is immutable',
                      self.refused("patch", "pod", "named", "--type=merge",
                                   "-p", '{"metadata":{"namespace":"kube-system"}}'))
        self.assertIn("does not match the kind of the resource (Pod)", self.refused(
            "patch", "pod", "named", "--type=merge", "-p", '{"kind":"Service"}'))
        self.assertEqual(self.get("named")["metadata"]["name"], "named")
        self.assertTrue(self.kubectl("get", "pod", "other", check=False).returncode != 0)

    def test_a_grace_of_zero_in_the_query_deletes_at_once(self):
        # DeleteOptions as query parameters, as curl and some clients send
        # them; kubectl sends them in the body (--grace-period=0 --force).
        self.bound("gone")
        req = urllib.request.Request(
            self.serve.url + "/api/v1/namespaces/default/pods/gone?gracePeriodSeconds=0",
            method="DELETE")
        with urllib.request.urlopen(req, timeout=10) as r:
            self.assertEqual(r.status, 200)
        self.assertNotEqual(self.kubectl("get", "pod", "gone", check=False).returncode, 0)
        self.bound("forced")
        self.kubectl("delete", "pod", "forced", "--grace-period=0", "--force")
        self.assertNotEqual(self.kubectl("get", "pod", "forced", check=False).returncode, 0)
        # A bound pod deleted without a grace is Terminating first.
        self.bound("graceful")
        self.kubectl("delete", "pod", "graceful", "--wait=false")
        self.assertIn("deletionTimestamp", self.get("graceful")["metadata"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
