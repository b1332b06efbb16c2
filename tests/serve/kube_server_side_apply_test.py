#!/usr/bin/python3
"""Server-side apply and OpenAPI against a real `scoria serve`, with real
kubectl: `kubectl apply --server-side` creates and updates, metadata.
managedFields names each manager and what it owns (`--show-managed-fields`),
a second manager's change to an owned field is a 409 worded as
kube-apiserver words it, `--force-conflicts` takes the field over, a field
dropped from the applied configuration goes, a server dry run stores
nothing, and `kubectl explain` and field validation read the OpenAPI
documents made from the field schema.

Usage: kube_server_side_apply_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]


def pod(name, image="nginx:1", labels="{app: web}", extra=""):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {labels}}}
spec:
  containers:
  - name: web
    image: {image}
    ports: [{{containerPort: 80}}]
{extra}"""


class ServerSideApply(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # No nodes: pods stay pending, so only the writes below change them.
        cls.serve = ScoriaServe(SCORIA, WORK, "server-side-apply",
                                os.path.join(SOURCE, "config/scheduler.toml"))
        cls.kubectl = cls.serve.kubectl

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def apply(self, text, *flags, check=True):
        return self.kubectl("apply", "--server-side", *flags, "-f", "-", stdin=text, check=check)

    def object(self, *what):
        return json.loads(self.kubectl("get", *what, "-o", "json",
                                       "--show-managed-fields").stdout)

    def managers(self, obj):
        return {(e["manager"], e["operation"]): e for e in obj["metadata"]["managedFields"]}

    def request(self, method, path, body, content_type, accept="application/json"):
        req = urllib.request.Request(self.serve.url + path, data=body.encode(), method=method,
                                     headers={"Content-Type": content_type, "Accept": accept})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def test_apply_creates_then_updates_with_managed_fields(self):
        out = self.apply(pod("ssa-a")).stdout
        self.assertIn("pod/ssa-a serverside-applied", out)
        obj = self.object("pod", "ssa-a")
        entries = self.managers(obj)
        self.assertEqual(list(entries), [("kubectl", "Apply")])
        entry = entries[("kubectl", "Apply")]
        self.assertEqual(entry["apiVersion"], "v1")
        self.assertEqual(entry["fieldsType"], "FieldsV1")
        self.assertIn("time", entry)
        self.assertEqual(entry["fieldsV1"], {
            "f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {"f:containers": {'k:{"name":"web"}': {
                ".": {}, "f:image": {}, "f:name": {},
                "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {
                    ".": {}, "f:containerPort": {}}}}}}})
        # Shown only when asked for, as kubectl shows them.
        plain = self.kubectl("get", "pod", "ssa-a", "-o", "yaml").stdout
        self.assertNotIn("managedFields", plain)
        shown = self.kubectl("get", "pod", "ssa-a", "-o", "yaml", "--show-managed-fields").stdout
        self.assertIn("manager: kubectl", shown)
        self.assertIn("operation: Apply", shown)

        self.apply(pod("ssa-a", image="nginx:2"))
        obj = self.object("pod", "ssa-a")
        self.assertEqual(obj["spec"]["containers"][0]["image"], "nginx:2")
        self.assertEqual(list(self.managers(obj)), [("kubectl", "Apply")])
        # The same configuration again changes nothing, not even the version.
        version = obj["metadata"]["resourceVersion"]
        out = self.apply(pod("ssa-a", image="nginx:2")).stdout
        self.assertIn("serverside-applied", out)
        self.assertEqual(self.object("pod", "ssa-a")["metadata"]["resourceVersion"], version)

    def test_a_conflict_names_field_and_manager_and_force_takes_over(self):
        self.apply(pod("ssa-b"))
        r = self.apply(pod("ssa-b", image="nginx:9"), "--field-manager=other", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Apply failed with 1 conflict: conflict with "kubectl": '
                      '.spec.containers[name="web"].image', r.stderr)
        self.assertEqual(self.object("pod", "ssa-b")["spec"]["containers"][0]["image"], "nginx:1")
        # The Status the API server answers, with its cause.
        status, body = self.request(
            "PATCH", "/api/v1/namespaces/default/pods/ssa-b?fieldManager=other",
            json.dumps(json.loads(self.kubectl(
                "create", "--dry-run=client", "-o", "json", "-f", "-",
                stdin=pod("ssa-b", image="nginx:9")).stdout)),
            "application/apply-patch+yaml")
        self.assertEqual(status, 409)
        self.assertEqual(body["reason"], "Conflict")
        self.assertEqual(body["details"]["causes"], [{
            "type": "FieldManagerConflict", "message": 'conflict with "kubectl"',
            "field": '.spec.containers[name="web"].image'}])

        self.apply(pod("ssa-b", image="nginx:9"), "--field-manager=other", "--force-conflicts")
        obj = self.object("pod", "ssa-b")
        self.assertEqual(obj["spec"]["containers"][0]["image"], "nginx:9")
        entries = self.managers(obj)
        mine = entries[("kubectl", "Apply")]["fieldsV1"]["f:spec"]["f:containers"]
        self.assertNotIn("f:image", mine['k:{"name":"web"}'])
        theirs = entries[("other", "Apply")]["fieldsV1"]["f:spec"]["f:containers"]
        self.assertIn("f:image", theirs['k:{"name":"web"}'])

    def test_an_updater_owns_what_it_changed(self):
        self.apply(pod("ssa-c"))
        self.kubectl("label", "pod", "ssa-c", "env=prod")
        entries = self.managers(self.object("pod", "ssa-c"))
        self.assertEqual(entries[("kubectl-label", "Update")]["fieldsV1"],
                         {"f:metadata": {"f:labels": {"f:env": {}}}})
        r = self.apply(pod("ssa-c", labels="{app: web, env: dev}"), "--field-manager=deployer",
                       check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Apply failed with 1 conflict: conflict with "kubectl-label" using v1: '
                      '.metadata.labels.env', r.stderr)

    def test_fields_no_longer_applied_are_removed(self):
        self.apply(pod("ssa-d", labels="{app: web, tier: front}"))
        self.kubectl("label", "pod", "ssa-d", "team=t")
        self.apply(pod("ssa-d", labels="{app: web}"))
        labels = self.object("pod", "ssa-d")["metadata"]["labels"]
        self.assertEqual(labels, {"app": "web", "team": "t"})

    def test_client_side_apply_moves_to_server_side_without_conflict(self):
        self.kubectl("apply", "-f", "-", stdin=pod("ssa-e"))
        self.apply(pod("ssa-e", image="nginx:3"))
        obj = self.object("pod", "ssa-e")
        self.assertEqual(obj["spec"]["containers"][0]["image"], "nginx:3")
        # kubectl moved what kubectl-client-side-apply owned to its own
        # Apply entry (a patch of managedFields), as against a cluster.
        entries = self.managers(obj)
        self.assertIn(("kubectl", "Apply"), entries)
        self.assertNotIn(("kubectl-client-side-apply", "Update"), entries)
        self.assertIn("f:image", entries[("kubectl", "Apply")]["fieldsV1"]["f:spec"][
            "f:containers"]['k:{"name":"web"}'])

    def test_a_server_dry_run_stores_nothing(self):
        out = self.apply(pod("ssa-ghost"), "--dry-run=server").stdout
        self.assertIn("pod/ssa-ghost serverside-applied (server dry run)", out)
        r = self.kubectl("get", "pod", "ssa-ghost", check=False)
        self.assertIn("NotFound", r.stderr)
        self.apply(pod("ssa-f"))
        self.apply(pod("ssa-f", image="nginx:7"), "--dry-run=server")
        self.assertEqual(self.object("pod", "ssa-f")["spec"]["containers"][0]["image"], "nginx:1")

    def test_apply_needs_a_field_manager(self):
        status, body = self.request("PATCH", "/api/v1/namespaces/default/pods/ssa-x",
                                    '{"apiVersion": "v1", "kind": "Pod"}',
                                    "application/apply-patch+yaml")
        self.assertEqual(status, 422)
        self.assertEqual(body["message"], 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: '
                                          'Required value: is required for apply patch')

    def test_volcano_kinds_apply_too(self):
        queue = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: ssa-q}
spec: {weight: 2}
"""
        self.apply(queue)
        obj = self.object("queue", "ssa-q")
        self.assertEqual(obj["spec"]["weight"], 2)
        self.assertEqual(self.managers(obj)[("kubectl", "Apply")]["fieldsV1"],
                         {"f:spec": {"f:weight": {}}})
        r = self.apply(queue.replace("weight: 2", "weight: 5"), "--field-manager=ops", check=False)
        self.assertIn('conflict with "kubectl": .spec.weight', r.stderr)

    def test_explain_reads_the_openapi_schemas(self):
        out = self.kubectl("explain", "pod").stdout
        self.assertIn("KIND:       Pod", out)
        self.assertIn("VERSION:    v1", out)
        self.assertIn("spec\t<PodSpec>", out)
        out = self.kubectl("explain", "pod.spec.containers").stdout
        self.assertIn("FIELD: containers <[]Container>", out)
        self.assertIn("image\t<string>", out)
        self.assertIn("name\t<string> -required-", out)
        self.assertIn("ports\t<[]ContainerPort>", out)
        out = self.kubectl("explain", "pod.spec.containers.resources.limits").stdout
        self.assertIn("FIELD: limits <map[string]Quantity>", out)
        out = self.kubectl("explain", "queue.spec").stdout
        self.assertIn("GROUP:      scheduling.volcano.sh", out)
        self.assertIn("weight\t<integer>", out)
        out = self.kubectl("explain", "vcjob.spec.tasks").stdout
        self.assertIn("replicas\t<integer>", out)
        r = self.kubectl("explain", "pod.spec.nosuchfield", check=False)
        self.assertIn('field "nosuchfield" does not exist', r.stderr)

    def test_validation_refuses_unknown_fields(self):
        bad = pod("ssa-bad", extra="  nosuchfield: 1\n")
        r = self.kubectl("apply", "--validate=strict", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('unknown field "spec.nosuchfield"', r.stderr)
        r = self.kubectl("create", "--validate=true", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('unknown field "spec.nosuchfield"', r.stderr)
        r = self.apply(bad, "--validate=strict", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('unknown field "spec.nosuchfield"', r.stderr)

    def test_openapi_v2_is_json_and_protobuf_is_refused(self):
        status, doc = self.request("GET", "/openapi/v2", "", "application/json")
        self.assertEqual(status, 200)
        self.assertEqual(doc["swagger"], "2.0")
        pod_def = doc["definitions"]["io.k8s.api.core.v1.Pod"]
        self.assertEqual(pod_def["x-kubernetes-group-version-kind"],
                         [{"group": "", "kind": "Pod", "version": "v1"}])
        containers = doc["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
        self.assertEqual(containers["x-kubernetes-list-type"], "map")
        self.assertEqual(containers["x-kubernetes-list-map-keys"], ["name"])
        self.assertEqual(containers["items"], {"$ref": "#/definitions/io.k8s.api.core.v1.Container"})
        status, body = self.request(
            "GET", "/openapi/v2", "", "application/json",
            accept="application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
        self.assertEqual(status, 406)
        self.assertEqual(body["reason"], "NotAcceptable")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
