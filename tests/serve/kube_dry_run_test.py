#!/usr/bin/python3
"""Dry runs against a real `scoria serve`: every write that says
dryRun=All (kubectl's --dry-run=server, kubectl diff, a client's dry_run)
is validated and answered as if done, and nothing is stored, watched or
scheduled: the previewed pod is never created nor bound, the previewed
delete terminates nothing, a previewed Job owns no pods.

Usage: kube_dry_run_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys
import threading
import time
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


def pod(name, labels="{app: web}"):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {labels}}}
spec:
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
"""


JOB = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: preview}
spec:
  minAvailable: 2
  schedulerName: volcano
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


class DryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = ScoriaServe(SCORIA, WORK, "dry-run",
                                os.path.join(SOURCE, "config/scheduler.toml"))
        cls.kubectl = cls.serve.kubectl
        cls.kubectl("create", "-f", "-", stdin=NODE)
        # Every pod event the service sends, from before the first preview.
        cls.events = []
        cls.watcher = subprocess.Popen(
            ["kubectl", "--kubeconfig", cls.serve.kubeconfig(), "get", "pods", "-A", "-w",
             "--output-watch-events", "-o",
             "custom-columns=EVENT:.type,NAME:.object.metadata.name,NODE:.object.spec.nodeName,"
             "DELETING:.object.metadata.deletionTimestamp", "--no-headers"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def read():
            for line in cls.watcher.stdout:
                cls.events.append(line.split())
        threading.Thread(target=read, daemon=True).start()
        time.sleep(0.5)

    @classmethod
    def tearDownClass(cls):
        cls.watcher.kill()
        cls.watcher.wait()
        cls.watcher.stdout.close()
        cls.serve.stop()

    def missing(self, *args):
        r = self.kubectl("get", *args, check=False)
        return r.returncode != 0 and "NotFound" in r.stderr

    def request(self, method, path, body=None, content_type="application/json"):
        """(status, decoded body) of a raw request to the service."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.serve.url + path, data=data, method=method,
                                     headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def settle(self):
        """Long enough for several sessions (100 ms period) to have run."""
        time.sleep(1.0)

    def events_of(self, name):
        return [e for e in self.events if len(e) > 1 and e[1] == name]

    def test_a_previewed_pod_is_answered_but_never_created_nor_scheduled(self):
        out = self.kubectl("apply", "--dry-run=server", "-f", "-", stdin=pod("ghost")).stdout
        self.assertIn("pod/ghost created (server dry run)", out)
        # The answer is the object as it would be stored (uid, creation
        # time), with no resourceVersion, as the API server answers.
        answered = json.loads(self.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                                           stdin=pod("ghost")).stdout)
        self.assertEqual(answered["metadata"]["name"], "ghost")
        self.assertIn("uid", answered["metadata"])
        self.assertNotIn("resourceVersion", answered["metadata"])
        self.settle()
        self.assertTrue(self.missing("pod", "ghost"))
        self.assertEqual(self.events_of("ghost"), [])
        # No implicit PodGroup was made for it either.
        groups = json.loads(self.kubectl("get", "podgroups", "-o", "json").stdout)["items"]
        owners = [o["name"] for g in groups for o in g["metadata"].get("ownerReferences", [])]
        self.assertNotIn("ghost", owners)

    def test_a_previewed_change_and_diff_leave_the_live_object_as_it_was(self):
        self.kubectl("apply", "-f", "-", stdin=pod("live"))
        bound = wait_for(lambda: json.loads(self.kubectl("get", "pod", "live", "-o", "json")
                                            .stdout)["spec"].get("nodeName"))
        self.assertEqual(bound, "node-a")
        before = json.loads(self.kubectl("get", "pod", "live", "-o", "json").stdout)
        changed = pod("live", "{app: web, tier: gold}")
        out = self.kubectl("apply", "--dry-run=server", "-f", "-", stdin=changed).stdout
        self.assertIn("pod/live configured (server dry run)", out)
        # kubectl diff previews through a dry-run patch: it shows the change
        # (exit 1: differences found) and makes none.
        diff = self.kubectl("diff", "-f", "-", stdin=changed, check=False)
        self.assertEqual(diff.returncode, 1, diff.stderr)
        self.assertIn("+    tier: gold", diff.stdout)
        # A dry-run patch answers with the patched object at the live version.
        status, answered = self.request(
            "PATCH", "/api/v1/namespaces/default/pods/live?dryRun=All",
            {"metadata": {"labels": {"tier": "silver"}}}, "application/merge-patch+json")
        self.assertEqual(status, 200, answered)
        self.assertEqual(answered["metadata"]["labels"], {"app": "web", "tier": "silver"})
        self.assertEqual(answered["metadata"]["resourceVersion"],
                         before["metadata"]["resourceVersion"])
        self.kubectl("label", "pod", "live", "owner=ml", "--dry-run=server")
        self.settle()
        after = json.loads(self.kubectl("get", "pod", "live", "-o", "json").stdout)
        self.assertEqual(after["metadata"]["labels"], {"app": "web"})
        self.assertEqual(after["metadata"]["resourceVersion"],
                         before["metadata"]["resourceVersion"])
        self.assertEqual(after["metadata"]["generation"], before["metadata"]["generation"])

    def test_a_previewed_delete_and_eviction_terminate_nothing(self):
        self.kubectl("apply", "-f", "-", stdin=pod("keep"))
        wait_for(lambda: json.loads(self.kubectl("get", "pod", "keep", "-o", "json")
                                    .stdout)["spec"].get("nodeName"))
        out = self.kubectl("delete", "pod", "keep", "--dry-run=server").stdout
        self.assertIn('pod "keep" deleted (server dry run)', out)
        self.kubectl("delete", "pod", "keep", "--dry-run=server", "--grace-period=0", "--force")
        # An eviction whose DeleteOptions say dryRun, as a client sends it.
        status, body = self.request(
            "POST", "/api/v1/namespaces/default/pods/keep/eviction",
            {"apiVersion": "policy/v1", "kind": "Eviction",
             "metadata": {"name": "keep", "namespace": "default"},
             "deleteOptions": {"dryRun": ["All"]}})
        self.assertEqual(status, 201, body)
        # A namespace's previewed delete takes nothing with it.
        namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n"
        self.kubectl("apply", "--dry-run=server", "-f", "-", stdin=namespace)
        self.assertTrue(self.missing("namespace", "team"))
        self.kubectl("apply", "-f", "-", stdin=namespace)
        self.kubectl("apply", "-n", "team", "-f", "-", stdin=pod("inside"))
        self.kubectl("delete", "namespace", "team", "--dry-run=server")
        self.settle()
        live = json.loads(self.kubectl("get", "pod", "keep", "-o", "json").stdout)
        self.assertNotIn("deletionTimestamp", live["metadata"])
        self.assertEqual(live["spec"]["nodeName"], "node-a")
        self.assertFalse(self.missing("namespace", "team"))
        self.assertFalse(self.missing("pod", "inside", "-n", "team"))
        self.assertEqual([e for e in self.events_of("keep") if e[0] == "DELETED"], [])
        self.assertEqual([e for e in self.events_of("keep") if len(e) > 3 and e[3] != "<none>"],
                         [])

    def test_a_previewed_job_owns_nothing(self):
        out = self.kubectl("create", "--dry-run=server", "-f", "-", stdin=JOB).stdout
        self.assertIn("job.batch.volcano.sh/preview created (server dry run)", out)
        self.settle()
        self.assertTrue(self.missing("vcjob", "preview"))
        self.assertTrue(self.missing("podgroup", "preview"))
        self.assertTrue(self.missing("pod", "preview-worker-0"))

    def test_a_previewed_binding_binds_nothing(self):
        # A pod no session can place (more cpu than the node has) stays
        # unbound: the binding's preview must not bind it.
        big = pod("unplaceable").replace('cpu: "1"', 'cpu: "64"')
        self.kubectl("apply", "-f", "-", stdin=big)
        status, body = self.request(
            "POST", "/api/v1/namespaces/default/pods/unplaceable/binding?dryRun=All",
            {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "unplaceable"},
             "target": {"kind": "Node", "name": "node-a"}})
        self.assertEqual(status, 201, body)
        self.settle()
        live = json.loads(self.kubectl("get", "pod", "unplaceable", "-o", "json").stdout)
        self.assertNotIn("nodeName", live["spec"])

    def test_a_preview_is_checked_as_the_write_would_be(self):
        # Invalid: the same 422 naming the field.
        bad = pod("bad").replace('cpu: "1"', 'cpu: "lots"')
        r = self.kubectl("apply", "--dry-run=server", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("spec.containers[0].resources.requests.cpu", r.stderr)
        # Exists already: 409.
        self.kubectl("apply", "-f", "-", stdin=pod("twice"))
        r = self.kubectl("create", "--dry-run=server", "-f", "-", stdin=pod("twice"), check=False)
        self.assertIn("AlreadyExists", r.stderr)
        # A delete of what does not exist: 404.
        status, body = self.request("DELETE", "/api/v1/namespaces/default/pods/nobody?dryRun=All")
        self.assertEqual((status, body["reason"]), (404, "NotFound"))
        # dryRun takes "All" only, as the API server says.
        status, body = self.request("POST", "/api/v1/namespaces/default/pods?dryRun=Maybe",
                                    {"apiVersion": "v1", "kind": "Pod",
                                     "metadata": {"name": "maybe"},
                                     "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
        self.assertEqual(status, 422)
        self.assertIn('dryRun: Unsupported value: []string{"Maybe"}: supported values: "All"',
                      body["message"])
        self.assertTrue(self.missing("pod", "maybe"))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
