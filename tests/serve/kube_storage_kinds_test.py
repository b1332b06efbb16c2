#!/usr/bin/python3
"""The storage kinds (PersistentVolumes, PersistentVolumeClaims,
StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities) through kubectl
against a real `scoria serve` on loopback: discovered with their short
names, applied, listed with kube-apiserver's printer columns (-o wide too),
described, their status written through the status subresource and kept by
an update of the object, refused when malformed naming the field, watched
and deleted; and read by the scheduler from the store beside a pod that
mounts a bound claim.

Usage: kube_storage_kinds_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, read_words_until, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

CONFIG = """
actions = ["enqueue", "allocate"]

[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]

[[tiers]]
plugins = [{ name = "predicates" }, { name = "proportion" }, { name = "nodeorder" }]
"""

CLASS = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
"""

VOLUME = """
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1, labels: {tier: ssd}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadOnlyMany, ReadWriteOnce]
  storageClassName: fast
  persistentVolumeReclaimPolicy: Delete
  volumeMode: Block
  claimRef: {namespace: shop, name: data}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]
"""

CLAIM = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 5Gi}}
"""

CSI = """
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true, storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-a}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}]
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-a, namespace: kube-system}
storageClassName: fast
capacity: 100Gi
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: a}}
"""


class Service:
    """A service with CONFIG, and a kubeconfig for it."""

    def __init__(self, name):
        os.makedirs(os.path.join(WORK, name), exist_ok=True)
        config = os.path.join(WORK, name + ".toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        self.serve = ScoriaServe(SCORIA, WORK, name, config)
        self.kubectl = self.serve.kubectl

    def json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def table(self, *args):
        """The rows of `kubectl get ARGS` as {column: cell}, cut where the
        header's columns start (cells may be empty, names hold spaces)."""
        lines = self.kubectl("get", *args).stdout.rstrip("\n").split("\n")
        header = lines[0]
        starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", header)]
        names = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
        rows = []
        for line in lines[1:]:
            cells = [line[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
            rows.append(dict(zip(names, cells)))
        return names, rows

    def stop(self):
        self.serve.stop()


class Api(unittest.TestCase):
    """The six kinds as kubectl finds, writes, prints, describes, watches
    and deletes them."""

    @classmethod
    def setUpClass(cls):
        cls.s = Service("api")

    @classmethod
    def tearDownClass(cls):
        cls.s.stop()

    def test_discovered_with_their_short_names(self):
        out = self.s.kubectl("api-resources", "--no-headers").stdout.splitlines()
        rows = {line.split()[0]: line.split() for line in out}
        self.assertEqual(rows["persistentvolumes"],
                         ["persistentvolumes", "pv", "v1", "false", "PersistentVolume"])
        self.assertEqual(rows["persistentvolumeclaims"],
                         ["persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim"])
        self.assertEqual(rows["storageclasses"],
                         ["storageclasses", "sc", "storage.k8s.io/v1", "false", "StorageClass"])
        self.assertEqual(rows["csinodes"], ["csinodes", "storage.k8s.io/v1", "false", "CSINode"])
        self.assertEqual(rows["csidrivers"],
                         ["csidrivers", "storage.k8s.io/v1", "false", "CSIDriver"])
        self.assertEqual(rows["csistoragecapacities"],
                         ["csistoragecapacities", "storage.k8s.io/v1", "true",
                          "CSIStorageCapacity"])
        self.assertIn("storage.k8s.io/v1", self.s.kubectl("api-versions").stdout.split())

    def test_applied_printed_described_and_deleted(self):
        s = self.s
        # A watch started before they exist sees the volume come and go.
        watcher = subprocess.Popen(
            ["kubectl", "--kubeconfig", s.serve.kubeconfig(), "get", "pv", "-w",
             "--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name",
             "--no-headers"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        out = s.kubectl("apply", "-f", "-",
                        stdin="---".join([CLASS, VOLUME, CLAIM, CSI])).stdout
        for made in ("storageclass.storage.k8s.io/fast", "persistentvolume/pv-1",
                     "persistentvolumeclaim/data", "csidriver.storage.k8s.io/ebs.csi.aws.com",
                     "csinode.storage.k8s.io/node-a", "csistoragecapacity.storage.k8s.io/cap-a"):
            self.assertIn(made + " created", out)

        # Read back whole, with their apiVersions.
        pv = s.json("get", "pv", "pv-1")
        self.assertEqual((pv["apiVersion"], pv["kind"]), ("v1", "PersistentVolume"))
        self.assertEqual(pv["spec"]["claimRef"], {"namespace": "shop", "name": "data"})
        self.assertTrue(pv["metadata"]["uid"])
        pvc = s.json("get", "pvc", "data", "-n", "shop")
        self.assertEqual((pvc["apiVersion"], pvc["kind"]), ("v1", "PersistentVolumeClaim"))
        self.assertEqual(pvc["spec"]["resources"], {"requests": {"storage": "5Gi"}})
        sc = s.json("get", "sc", "fast")
        self.assertEqual((sc["apiVersion"], sc["kind"]), ("storage.k8s.io/v1", "StorageClass"))
        self.assertEqual(s.json("get", "csistoragecapacities", "cap-a", "-n", "kube-system")
                         ["apiVersion"], "storage.k8s.io/v1")

        # The server prints them as kube-apiserver's printers do.
        names, rows = s.table("pv", "-o", "wide")
        self.assertEqual(names, ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS",
                                 "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON",
                                 "AGE", "VOLUMEMODE"])
        row = rows[0]
        del row["AGE"]
        self.assertEqual(row, {"NAME": "pv-1", "CAPACITY": "10Gi", "ACCESS MODES": "RWO,ROX",
                               "RECLAIM POLICY": "Delete", "STATUS": "Bound",
                               "CLAIM": "shop/data", "STORAGECLASS": "fast",
                               "VOLUMEATTRIBUTESCLASS": "<unset>", "REASON": "",
                               "VOLUMEMODE": "Block"})
        names, rows = s.table("pvc", "-A", "-o", "wide")
        self.assertEqual(names, ["NAMESPACE", "NAME", "STATUS", "VOLUME", "CAPACITY",
                                 "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE",
                                 "VOLUMEMODE"])
        row = rows[0]
        del row["AGE"]
        self.assertEqual(row, {"NAMESPACE": "shop", "NAME": "data", "STATUS": "Pending",
                               "VOLUME": "", "CAPACITY": "", "ACCESS MODES": "",
                               "STORAGECLASS": "fast", "VOLUMEATTRIBUTESCLASS": "<unset>",
                               "VOLUMEMODE": "<unset>"})
        names, rows = s.table("sc", "-o", "wide")
        self.assertEqual(names, ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
                                 "ALLOWVOLUMEEXPANSION", "AGE"])
        self.assertEqual([rows[0][c] for c in names[:5]],
                         ["fast (default)", "ebs.csi.aws.com", "Delete", "WaitForFirstConsumer",
                          "true"])
        names, rows = s.table("csinode")
        self.assertEqual(names, ["NAME", "DRIVERS", "AGE"])
        self.assertEqual([rows[0]["NAME"], rows[0]["DRIVERS"]], ["node-a", "1"])
        names, rows = s.table("csidriver")
        self.assertEqual(names, ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY",
                                 "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"])
        self.assertEqual([rows[0][c] for c in names[:7]],
                         ["ebs.csi.aws.com", "true", "false", "true", "<unset>", "false",
                          "Persistent"])
        names, rows = s.table("csistoragecapacities", "-A")
        self.assertEqual(names, ["NAMESPACE", "NAME", "STORAGECLASSNAME", "CAPACITY"])
        self.assertEqual(rows, [{"NAMESPACE": "kube-system", "NAME": "cap-a",
                                 "STORAGECLASSNAME": "fast", "CAPACITY": "100Gi"}])
        listed = s.kubectl("get", "pv,pvc,sc", "-A", "-o", "name").stdout.split()
        self.assertEqual(sorted(listed), ["persistentvolume/pv-1", "persistentvolumeclaim/data",
                                          "storageclass.storage.k8s.io/fast"])

        # kubectl's describers read them (and their events, pods) through the API.
        described = s.kubectl("describe", "pv", "pv-1").stdout
        for line in (r"Claim:\s+shop/data", r"Reclaim Policy:\s+Delete",
                     r"Access Modes:\s+RWO,ROX", r"VolumeMode:\s+Block", r"Capacity:\s+10Gi",
                     r"Driver:\s+ebs.csi.aws.com", r"VolumeHandle:\s+vol-1",
                     r"Term 0:\s+topology.kubernetes.io/zone in \[a\]"):
            self.assertRegex(described, line)
        described = s.kubectl("describe", "pvc", "data", "-n", "shop").stdout
        for line in (r"Name:\s+data", r"Namespace:\s+shop", r"StorageClass:\s+fast",
                     r"Used By:\s+<none>"):
            self.assertRegex(described, line)
        described = s.kubectl("describe", "sc", "fast").stdout
        for line in (r"IsDefaultClass:\s+Yes", r"Provisioner:\s+ebs.csi.aws.com",
                     r"AllowVolumeExpansion:\s+True", r"VolumeBindingMode:\s+WaitForFirstConsumer"):
            self.assertRegex(described, line)

        # A status written through the status subresource, as the PV
        # controller writes it; an update of the volume keeps it.
        s.kubectl("patch", "pv", "pv-1", "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": {"phase": "Released", "reason": "Reclaimed"}}))
        _, rows = s.table("pv")
        self.assertEqual((rows[0]["STATUS"], rows[0]["REASON"]), ("Released", "Reclaimed"))
        replaced = s.json("get", "pv", "pv-1")
        replaced["spec"]["storageClassName"] = "slow"
        replaced["status"] = {"phase": "Available"}
        s.kubectl("replace", "-f", "-", stdin=json.dumps(replaced))
        pv = s.json("get", "pv", "pv-1")
        self.assertEqual((pv["spec"]["storageClassName"], pv["status"]["phase"]),
                         ("slow", "Released"))
        s.kubectl("patch", "pvc", "data", "-n", "shop", "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": {"phase": "Bound"}}))
        self.assertEqual(s.json("get", "pvc", "data", "-n", "shop")["status"]["phase"], "Bound")

        for kind, name, ns in (("pv", "pv-1", None), ("pvc", "data", "shop"), ("sc", "fast", None),
                               ("csidriver", "ebs.csi.aws.com", None), ("csinode", "node-a", None),
                               ("csistoragecapacity", "cap-a", "kube-system")):
            s.kubectl("delete", kind, name, *(["-n", ns] if ns else []))
        self.assertEqual(s.kubectl("get", "pv", "pv-1", check=False).returncode, 1)
        self.assertEqual(
            s.kubectl("get", "pv,pvc,sc,csinode,csidriver,csistoragecapacities", "-A", "-o",
                      "name").stdout.strip(), "")

        lines = read_words_until(watcher, lambda lines: ["DELETED", "pv-1"] in lines)
        self.assertEqual([l[0] for l in lines if l[1:] == ["pv-1"]],
                         ["ADDED", "MODIFIED", "MODIFIED", "DELETED"], lines)

    def test_malformed_ones_are_refused_naming_the_field(self):
        s = self.s
        cases = [
            (VOLUME.replace("name: pv-1", "name: bad").replace("capacity: {storage: 10Gi}",
                                                                 "capacity: {}"),
             "spec.capacity.storage: is missing"),
            (VOLUME.replace("name: pv-1", "name: bad").replace("ReadOnlyMany", "ReadSometimes"),
             'spec.accessModes[0]: "ReadSometimes" is not an access mode'),
            (CLAIM.replace("name: data", "name: bad").replace("storage: 5Gi", "storage: lots"),
             "spec.resources.requests.storage"),
            (CLAIM.replace("name: data", "name: bad").replace("accessModes: [ReadWriteOnce]",
                                                               "accessModes: []"),
             "spec.accessModes: is empty"),
            (CLASS.replace("name: fast", "name: bad").replace("WaitForFirstConsumer", "Later"),
             'volumeBindingMode: "Later" is not a volume binding mode'),
            (CLASS.replace("name: fast", "name: bad").replace("provisioner: ebs.csi.aws.com\n", ""),
             "provisioner: is missing"),
        ]
        for text, message in cases:
            r = s.kubectl("apply", "-f", "-", stdin=text, check=False)
            self.assertNotEqual(r.returncode, 0, text)
            self.assertIn(message, r.stderr)
        self.assertEqual(s.kubectl("get", "pv,pvc,sc", "-A", "-o", "name").stdout.strip(), "")


class Sessions(unittest.TestCase):
    """The scheduler reads the storage kinds from the store; a pod whose
    claim is bound to a volume its node reaches is placed."""

    def setUp(self):
        self.s = Service(self.id().split(".")[-1])

    def tearDown(self):
        self.s.stop()

    def test_a_pod_mounting_a_bound_claim_is_placed(self):
        s = self.s
        s.kubectl("apply", "-f", "-", stdin="""
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
""")
        # The claim and the volume bound both ways, the volume reachable
        # from zone a only (node-a's).
        bound_volume = VOLUME.replace("volumeMode: Block", "volumeMode: Filesystem")
        bound_claim = CLAIM.replace(
            "metadata: {name: data, namespace: shop}",
            "metadata: {name: data, namespace: shop, annotations: "
            "{pv.kubernetes.io/bind-completed: \"yes\"}}") + "  volumeName: pv-1\n"
        s.kubectl("apply", "-f", "-", stdin="---".join([CLASS, bound_volume, bound_claim, CSI]))
        s.kubectl("create", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "shop"},
            "spec": {"containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "1"}},
                                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
                     "volumes": [{"name": "data",
                                  "persistentVolumeClaim": {"claimName": "data"}}]}}))
        self.assertTrue(wait_for(lambda: s.json("get", "pod", "web-0", "-n", "shop")
                                 .get("spec", {}).get("nodeName") == "node-a"), s.serve.text())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
