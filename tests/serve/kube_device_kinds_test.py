#!/usr/bin/python3
"""The Dynamic Resource Allocation kinds (resource.k8s.io/v1 DeviceClasses,
ResourceSlices, ResourceClaims, ResourceClaimTemplates) through kubectl
against a real `scoria serve` on loopback: discovered (no short names, as
kube-apiserver has none), created, listed with kube-apiserver's printer
columns, described, a claim's allocation written through the status
subresource and kept by an update of the claim, refused when malformed
naming the field, watched and deleted.

Usage: kube_device_kinds_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, read_words_until  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

CONFIG = """
actions = ["enqueue", "allocate"]

[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]

[[tiers]]
plugins = [{ name = "predicates" }, { name = "proportion" }, { name = "nodeorder" }]
"""

CLASS = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
"""

SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu}
spec:
  driver: gpu.example.com
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  nodeName: node-a
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      driverVersion: {version: 1.2.3}
    capacity: {memory: {value: 40Gi}}
"""

TEMPLATE = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  metadata: {labels: {app: train}}
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
"""

CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-gpu, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}}]
"""

POD = """
apiVersion: v1
kind: Pod
metadata: {name: train-0, namespace: ml}
spec:
  containers: [{name: c, image: busybox, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimName: shared-gpu}]
"""

ALLOCATION = {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                       "pool": "node-a", "device": "gpu-0"}]},
              "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                  {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}}


class Api(unittest.TestCase):
    """The four kinds as kubectl finds, writes, prints, describes, watches
    and deletes them."""

    @classmethod
    def setUpClass(cls):
        os.makedirs(WORK, exist_ok=True)
        config = os.path.join(WORK, "api.toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        cls.serve = ScoriaServe(SCORIA, WORK, "api", config)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def kubectl(self, *args, **kwargs):
        return self.serve.kubectl(*args, **kwargs)

    def json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def table(self, *args):
        """The rows of `kubectl get ARGS` as {column: cell}, cut where the
        header's columns start (cells may be empty)."""
        lines = self.kubectl("get", *args).stdout.rstrip("\n").split("\n")
        header = lines[0]
        starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", header)]
        names = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
        rows = []
        for line in lines[1:]:
            cells = [line[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
            rows.append(dict(zip(names, cells)))
        return names, rows

    def test_discovered_without_short_names(self):
        out = self.kubectl("api-resources", "--api-group=resource.k8s.io",
                           "--no-headers").stdout.splitlines()
        rows = {line.split()[0]: line.split() for line in out}
        self.assertEqual(rows, {
            "deviceclasses": ["deviceclasses", "resource.k8s.io/v1", "false", "DeviceClass"],
            "resourceclaims": ["resourceclaims", "resource.k8s.io/v1", "true", "ResourceClaim"],
            "resourceclaimtemplates": ["resourceclaimtemplates", "resource.k8s.io/v1", "true",
                                       "ResourceClaimTemplate"],
            "resourceslices": ["resourceslices", "resource.k8s.io/v1", "false",
                               "ResourceSlice"]})
        self.assertIn("resource.k8s.io/v1", self.kubectl("api-versions").stdout.split())
        code, body = self.serve.get("/apis/resource.k8s.io/v1")
        self.assertEqual(code, 200, body)
        group = json.loads(body)
        status = [r["name"] for r in group["resources"] if "/" in r["name"]]
        self.assertEqual(status, ["resourceclaims/status"])

    def test_created_printed_described_and_deleted(self):
        # A watch started before they exist sees the claim come, change and go.
        watcher = subprocess.Popen(
            ["kubectl", "--kubeconfig", self.serve.kubeconfig(), "get", "resourceclaims", "-A",
             "-w", "--output-watch-events", "-o",
             "custom-columns=EVENT:.type,NAME:.object.metadata.name", "--no-headers"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        out = self.kubectl("create", "-f", "-",
                           stdin="---".join([CLASS, SLICE, TEMPLATE, CLAIM])).stdout
        for made in ("deviceclass.resource.k8s.io/gpu.example.com",
                     "resourceslice.resource.k8s.io/node-a-gpu",
                     "resourceclaimtemplate.resource.k8s.io/one-gpu",
                     "resourceclaim.resource.k8s.io/shared-gpu"):
            self.assertIn(made + " created", out)

        # Read back whole, with their apiVersion.
        claim = self.json("get", "resourceclaim", "shared-gpu", "-n", "ml")
        self.assertEqual((claim["apiVersion"], claim["kind"]),
                         ("resource.k8s.io/v1", "ResourceClaim"))
        self.assertEqual(claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"],
                         "gpu.example.com")
        self.assertTrue(claim["metadata"]["uid"])
        sl = self.json("get", "resourceslice", "node-a-gpu")
        self.assertEqual(sl["spec"]["devices"][0]["capacity"], {"memory": {"value": "40Gi"}})

        # The server prints them as kube-apiserver's printers do.
        names, rows = self.table("resourceclaims", "-A")
        self.assertEqual(names, ["NAMESPACE", "NAME", "STATE", "AGE"])
        self.assertEqual([(r["NAMESPACE"], r["NAME"], r["STATE"]) for r in rows],
                         [("ml", "shared-gpu", "pending")])
        names, rows = self.table("resourceslices", "-o", "wide")
        self.assertEqual(names, ["NAME", "NODE", "DRIVER", "POOL", "AGE"])
        self.assertEqual([rows[0][c] for c in names[:4]],
                         ["node-a-gpu", "node-a", "gpu.example.com", "node-a"])
        names, rows = self.table("deviceclasses")
        self.assertEqual(names, ["NAME", "AGE"])
        self.assertEqual(rows[0]["NAME"], "gpu.example.com")
        names, rows = self.table("resourceclaimtemplates", "-n", "ml")
        self.assertEqual(names, ["NAME", "AGE"])
        self.assertEqual(rows[0]["NAME"], "one-gpu")
        listed = self.kubectl("get", "deviceclasses,resourceslices,resourceclaims,"
                              "resourceclaimtemplates", "-A", "-o", "name").stdout.split()
        self.assertEqual(sorted(listed), [
            "deviceclass.resource.k8s.io/gpu.example.com",
            "resourceclaim.resource.k8s.io/shared-gpu",
            "resourceclaimtemplate.resource.k8s.io/one-gpu",
            "resourceslice.resource.k8s.io/node-a-gpu"])

        # kubectl's describers read them through the API.
        for args, lines in (
                (("deviceclass", "gpu.example.com"),
                 (r"Name:\s+gpu.example.com", r"Kind:\s+DeviceClass",
                  r'Expression:\s+device.driver == "gpu.example.com"')),
                (("resourceslice", "node-a-gpu"),
                 (r"Name:\s+node-a-gpu", r"Driver:\s+gpu.example.com", r"Node Name:\s+node-a",
                  r"Resource Slice Count:\s+1")),
                (("resourceclaimtemplate", "one-gpu", "-n", "ml"),
                 (r"Namespace:\s+ml", r"Kind:\s+ResourceClaimTemplate", r"App:\s+train")),
                (("resourceclaim", "shared-gpu", "-n", "ml"),
                 (r"Name:\s+shared-gpu", r"Device Class Name:\s+gpu.example.com"))):
            described = self.kubectl("describe", *args).stdout
            for line in lines:
                self.assertRegex(described, line, args)

        # The allocation written through the status subresource, as
        # kube-scheduler writes it, reserved for a pod that names the claim
        # (one that no pod holds would be deallocated, as kube's claim
        # controller deallocates it); an update of the claim keeps it.
        self.kubectl("create", "-f", "-", stdin=POD)
        uid = self.json("get", "pod", "train-0", "-n", "ml")["metadata"]["uid"]
        self.kubectl("patch", "resourceclaim", "shared-gpu", "-n", "ml", "--subresource=status",
                     "--type=merge", "-p", json.dumps({"status": {
                         "allocation": ALLOCATION,
                         "reservedFor": [{"resource": "pods", "name": "train-0", "uid": uid}]}}))
        _, rows = self.table("resourceclaims", "-n", "ml")
        self.assertEqual(rows[0]["STATE"], "allocated,reserved")
        replaced = self.json("get", "resourceclaim", "shared-gpu", "-n", "ml")
        replaced["metadata"]["labels"] = {"team": "a"}
        replaced["status"] = {}
        self.kubectl("replace", "-f", "-", stdin=json.dumps(replaced))
        claim = self.json("get", "resourceclaim", "shared-gpu", "-n", "ml")
        self.assertEqual(claim["metadata"]["labels"], {"team": "a"})
        self.assertEqual(claim["status"]["allocation"], ALLOCATION)
        self.assertEqual(claim["status"]["reservedFor"][0]["name"], "train-0")
        # A status the spec cannot have is refused, naming the field.
        bad = self.kubectl("patch", "resourceclaim", "shared-gpu", "-n", "ml",
                           "--subresource=status", "--type=merge", "-p", json.dumps(
                               {"status": {"allocation": {"devices": {"results": [
                                   {"request": "tpu", "driver": "gpu.example.com",
                                    "pool": "node-a", "device": "gpu-0"}]}}}}), check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn('status.allocation.devices.results[0].request: "tpu" names no request',
                      bad.stderr)

        # The claim before its pod, which would have it deallocated first.
        for kind, name, ns in (("resourceclaim", "shared-gpu", "ml"), ("pod", "train-0", "ml"),
                               ("resourceclaimtemplate", "one-gpu", "ml"),
                               ("resourceslice", "node-a-gpu", None),
                               ("deviceclass", "gpu.example.com", None)):
            self.kubectl("delete", kind, name, *(["-n", ns] if ns else []))
        self.assertEqual(self.kubectl("get", "deviceclass", "gpu.example.com",
                                      check=False).returncode, 1)
        self.assertEqual(self.kubectl("get", "deviceclasses,resourceslices,resourceclaims,"
                                      "resourceclaimtemplates", "-A", "-o",
                                      "name").stdout.strip(), "")

        lines = read_words_until(watcher, lambda lines: ["DELETED", "shared-gpu"] in lines)
        self.assertEqual([line[0] for line in lines if line[1:] == ["shared-gpu"]],
                         ["ADDED", "MODIFIED", "MODIFIED", "DELETED"], lines)

    def test_malformed_ones_are_refused_naming_the_field(self):
        cases = [
            (CLASS.replace("name: gpu.example.com", "name: bad").replace(
                "{cel: {expression: 'device.driver == \"gpu.example.com\"'}}", "{}"),
             "spec.selectors[0].cel: is missing"),
            (SLICE.replace("name: node-a-gpu", "name: bad").replace(
                "  nodeName: node-a\n", ""), "spec: says nowhere its devices are available"),
            (SLICE.replace("name: node-a-gpu", "name: bad").replace(
                "version: 1.2.3", "version: v1.2"),
             'spec.devices[0].attributes.driverVersion.version: "v1.2" is not a semantic '
             "version"),
            (SLICE.replace("name: node-a-gpu", "name: bad").replace("resourceSliceCount: 1",
                                                                     "resourceSliceCount: 0"),
             "spec.pool.resourceSliceCount: 0 is not greater than zero"),
            (CLAIM.replace("name: shared-gpu", "name: bad").replace(
                "deviceClassName: gpu.example.com\n", "count: 1\n"),
             "spec.devices.requests[0].exactly.deviceClassName: is missing"),
            (TEMPLATE.replace("name: one-gpu", "name: bad").replace(
                "exactly: {deviceClassName: gpu.example.com}",
                "exactly: {deviceClassName: g, allocationMode: Most}"),
             'spec.spec.devices.requests[0].exactly.allocationMode: "Most" is not an allocation '
             "mode"),
        ]
        for text, message in cases:
            r = self.kubectl("create", "-f", "-", stdin=text, check=False)
            self.assertNotEqual(r.returncode, 0, text)
            self.assertIn(message, r.stderr)
        listed = self.kubectl("get", "deviceclasses,resourceslices,resourceclaims,"
                              "resourceclaimtemplates", "-A", "-o", "name").stdout.split()
        self.assertEqual([n for n in listed if n.endswith("/bad")], [])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
