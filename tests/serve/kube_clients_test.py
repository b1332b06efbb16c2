#!/usr/bin/python3
"""Real Kubernetes clients against a real `scoria serve` on loopback.

kubectl (create, apply twice, get, get -w, describe, label, delete) and the
Kubernetes Python client (list, watch resumed from a version, conflicts and
Status errors) drive the Kubernetes-shaped API as they would a cluster, and
the scheduler's binds show through it.

Usage: kube_clients_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import read_words_until, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {zone: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

GANG = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: train, namespace: default}
spec: {minMember: 2}
---
apiVersion: v1
kind: Pod
metadata:
  name: train-0
  labels: {app: train}
  annotations: {scheduling.k8s.io/group-name: train}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "3"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: train-1
  labels: {app: train}
  annotations: {scheduling.k8s.io/group-name: train}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "3"}}}]
"""


class Serve:
    """`scoria serve` on an ephemeral loopback port, and a kubeconfig for it."""

    def __init__(self, name, token=None):
        self.dir = os.path.join(WORK, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        # Appending: the child shares this file offset, and our seek to
        # read must not make it write over the start of the log.
        self.log = open(os.path.join(self.dir, "serve.log"), "a+")
        extra = []
        if token:
            # Writes then need it, even on loopback.
            with open(os.path.join(self.dir, "token"), "w") as f:
                f.write(token)
            extra = ["--token-file", os.path.join(self.dir, "token")]
        self.proc = subprocess.Popen(
            [SCORIA, "serve", "--config", os.path.join(SOURCE, "config/scheduler.toml"),
             "--state-dir", os.path.join(self.dir, "state"), "--port", "0",
             "--schedule-period", "100", *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.port = None
        for _ in range(200):
            self.log.seek(0)
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log.read())
            if m:
                self.port = int(m.group(1))
                break
            time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError("scoria serve did not start")
        # kubectl sends a token only over TLS: this kubeconfig names none.
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: scoria
  cluster: {{server: "http://127.0.0.1:{self.port}"}}
users:
- name: local
  user: {{}}
contexts:
- name: scoria
  context: {{cluster: scoria, user: local, namespace: default}}
current-context: scoria
""")

    def kubectl(self, *args, stdin=None, check=True, cwd=None):
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig, *args],
                           input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
        return r

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()




class Kubectl(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve("kubectl")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_the_root_and_default_queues_exist_open_as_volcano_makes_them(self):
        # Volcano's scheduler creates both at start; its queue controller
        # opens every new queue.
        s = self.serve
        default = json.loads(s.kubectl("get", "queue", "default", "-o", "json").stdout)
        self.assertEqual(default["spec"], {"reclaimable": True, "weight": 1})
        self.assertEqual(default["status"]["state"], "Open")
        root = json.loads(s.kubectl("get", "queue", "root", "-o", "json").stdout)
        self.assertEqual(root["spec"], {"reclaimable": False, "weight": 1})
        self.assertEqual(root["status"]["state"], "Open")
        queue = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: fresh}\n"
        s.kubectl("create", "-f", "-", stdin=queue)
        fresh = json.loads(s.kubectl("get", "queue", "fresh", "-o", "json").stdout)
        self.assertEqual(fresh["status"]["state"], "Open")
        s.kubectl("delete", "queue", "fresh")

    def test_namespaces_in_use_are_listed_and_the_system_ones_stay(self):
        # kube-apiserver has the system namespaces from the start, and
        # NamespaceAutoProvision makes the one an object is created in.
        s = self.serve
        names = s.kubectl("get", "namespaces", "-o", "name").stdout.split()
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            self.assertIn("namespace/" + ns, names)
        pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team-a}\n"
               "spec:\n  containers: [{name: c, image: busybox}]\n")
        s.kubectl("create", "-f", "-", stdin=pod)
        ns = json.loads(s.kubectl("get", "namespace", "team-a", "-o", "json").stdout)
        self.assertEqual(ns["status"]["phase"], "Active")
        self.assertEqual(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "team-a")
        refused = s.kubectl("delete", "namespace", "default", check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn('namespaces "default" is forbidden: this namespace may not be deleted',
                      refused.stderr)
        s.kubectl("delete", "namespace", "team-a")

    def test_watched_rows_carry_the_printers_columns(self):
        # kubectl get -w asks for Tables on the watch as well: rows after
        # the list showed only NAME and AGE when watch events ignored that.
        s = self.serve
        watcher = subprocess.Popen(
            ["kubectl", "--kubeconfig", s.kubeconfig, "get", "pods", "-w", "-l", "app=watched"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: watched, labels: {app: watched}}\n"
               "spec:\n  containers: [{name: c, image: busybox}]\n")
        self.assertIn("pod/watched created", s.kubectl("apply", "-f", "-", stdin=pod).stdout)
        lines = read_words_until(
            watcher, lambda lines: any(words[:1] == ["watched"] for words in lines))
        s.kubectl("delete", "pod", "watched", "--grace-period=0")
        rows = [words for words in lines if words[:1] == ["watched"]]
        self.assertTrue(rows, lines)
        self.assertEqual(rows[0][1:4], ["0/1", "Pending", "0"], lines)

    def test_cluster_created_applied_watched_labelled_deleted(self):
        s = self.serve
        self.assertIn("node/node-a created", s.kubectl("create", "-f", "-", stdin=NODES).stdout)
        # A watch started before the gang exists sees its pods bound.
        watcher = subprocess.Popen(
            ["kubectl", "--kubeconfig", s.kubeconfig, "get", "pods", "-w", "-o",
             "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName", "--no-headers"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        out = s.kubectl("apply", "-f", "-", stdin=GANG).stdout
        self.assertIn("podgroup.scheduling.volcano.sh/train created", out)
        self.assertIn("pod/train-0 created", out)
        lines = read_words_until(
            watcher, lambda lines: {l[0] for l in lines if len(l) == 2 and l[1].startswith("node-")}
            == {"train-0", "train-1"})
        nodes = {l[0]: l[1] for l in lines if len(l) == 2 and l[1] != "<none>"}
        self.assertEqual(set(nodes), {"train-0", "train-1"}, lines)
        # 3 cpu each on 4-cpu nodes: the gang spreads over both.
        self.assertEqual(sorted(nodes.values()), ["node-a", "node-b"])

        # apply again with a change: configured, the change kept, the bind kept.
        changed = GANG.replace("labels: {app: train}", "labels: {app: train, tier: gpu}", 1)
        out = s.kubectl("apply", "-f", "-", stdin=changed).stdout
        self.assertIn("pod/train-0 configured", out)
        self.assertIn("podgroup.scheduling.volcano.sh/train unchanged", out)
        pod = json.loads(s.kubectl("get", "pod", "train-0", "-o", "json").stdout)
        self.assertEqual(pod["metadata"]["labels"], {"app": "train", "tier": "gpu"})
        self.assertIn(pod["spec"]["nodeName"], ("node-a", "node-b"))

        # The scheduler reports as Volcano does: a Scheduled event that
        # describe shows, PodScheduled=True on the pod.
        described = s.kubectl("describe", "pod", "train-0").stdout
        self.assertRegex(described, r"Normal\s+Scheduled\s+.*Successfully assigned "
                                    r"default/train-0 to node-[ab]")
        events = s.kubectl("get", "events").stdout
        self.assertIn("pod/train-1", events)
        pod = json.loads(s.kubectl("get", "pod", "train-0", "-o", "json").stdout)
        scheduled = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
        self.assertEqual(scheduled[0]["status"], "True")

        # The server prints (a Table): the pod printer's columns, Volcano's
        # PodGroup printer columns, -o wide adds the node.
        table = [line.split() for line in s.kubectl("get", "pods", "-o", "wide").stdout.splitlines()]
        self.assertEqual(table[0][:5], ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
        self.assertIn("NODE", table[0])
        rows = {r[0]: r for r in table[1:]}
        self.assertEqual(rows["train-0"][1:4], ["0/1", "Pending", "0"])
        self.assertEqual(rows["train-0"][table[0].index("NODE")], nodes["train-0"])
        groups = [line.split() for line in s.kubectl("get", "pg").stdout.splitlines()]
        self.assertEqual(groups[0], ["NAME", "STATUS", "MINMEMBER", "RUNNINGS", "AGE"])
        self.assertEqual(groups[1][:3], ["train", "Running", "2"])

        # get by short name, across namespaces, with selectors.
        self.assertIn("train", s.kubectl("get", "pg").stdout)
        self.assertIn("node-b", s.kubectl("get", "no").stdout)
        listed = s.kubectl("get", "pods", "-A", "-l", "tier=gpu", "-o", "name").stdout.split()
        self.assertEqual(listed, ["pod/train-0"])
        on_a = s.kubectl("get", "pods", "--field-selector", "spec.nodeName=node-a", "-o",
                         "name").stdout.split()
        self.assertEqual(len(on_a), 1)

        # label, describe.
        s.kubectl("label", "pod", "train-1", "owner=ml")
        self.assertEqual(s.kubectl("get", "pods", "-l", "owner=ml", "-o", "name").stdout.split(),
                         ["pod/train-1"])
        described = s.kubectl("describe", "pod", "train-1").stdout
        self.assertRegex(described, r"Node:\s+node-[ab]")
        self.assertIn("owner=ml", described)

        # delete: a bound pod terminates for its grace period, 0 removes it now.
        s.kubectl("delete", "pod", "train-1", "--grace-period=0", "--force")
        self.assertEqual(s.kubectl("get", "pod", "train-1", check=False).returncode, 1)
        s.kubectl("delete", "pod", "train-0", "--wait=false")
        terminating = json.loads(s.kubectl("get", "pod", "train-0", "-o", "json").stdout)
        self.assertIn("deletionTimestamp", terminating["metadata"])

    def test_bad_object_is_refused_naming_the_field(self):
        bad = NODES.split("---")[0].replace('cpu: "4"', 'cpu: "four"').replace("node-a", "node-x")
        r = self.serve.kubectl("create", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("status.allocatable.cpu", r.stderr)
        self.assertEqual(self.serve.kubectl("get", "node", "node-x", check=False).returncode, 1)


class WithNodes(unittest.TestCase):
    """A service of its own (named by `name`) with the two nodes created."""
    name = None

    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(cls.name)
        cls.serve.kubectl("create", "-f", "-", stdin=NODES)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()


PLAIN = """
apiVersion: v1
kind: Pod
metadata: {name: NAME}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "CPU"}}}]
"""


class PendingPods(WithNodes):
    """Why a pod waits, as Volcano shows it: a plain pod gets its own
    PodGroup (podgroup-<uid>, owned by the pod, as vc-controller-manager
    makes it) and PodScheduled=False with kube-scheduler's text."""

    name = "pending"

    def pod(self, name):
        return json.loads(self.serve.kubectl("get", "pod", name, "-o", "json").stdout)

    def test_a_plain_pod_that_fits_nowhere_says_why_and_its_group_goes_with_it(self):
        s = self.serve
        s.kubectl("apply", "-f", "-", stdin=PLAIN.replace("NAME", "lonely").replace("CPU", "6"))
        def condition():
            for c in self.pod("lonely").get("status", {}).get("conditions") or []:
                if c["type"] == "PodScheduled":
                    return c
            return None
        cond = wait_for(condition)
        self.assertIsNotNone(cond, s.log.name)
        self.assertEqual((cond["status"], cond["reason"], cond["message"]),
                         ("False", "Unschedulable", "0/2 nodes are available: 2 Insufficient cpu."))
        described = s.kubectl("describe", "pod", "lonely").stdout
        self.assertRegex(described, r"PodScheduled\s+False")
        self.assertRegex(described, r"Warning\s+FailedScheduling\s+.*0/2 nodes are available: "
                                    r"2 Insufficient cpu\.")

        pod = self.pod("lonely")
        group_name = "podgroup-" + pod["metadata"]["uid"]
        self.assertEqual(pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"], group_name)
        listed = s.kubectl("get", "pg", "-o", "name").stdout.split()
        self.assertIn("podgroup.scheduling.volcano.sh/" + group_name, listed)
        def unschedulable_group():
            group = json.loads(s.kubectl("get", "pg", group_name, "-o", "json").stdout)
            return group if (group.get("status", {}).get("conditions") or []) else None
        group = wait_for(unschedulable_group)
        self.assertIsNotNone(group)
        self.assertEqual(group["metadata"]["ownerReferences"],
                         [{"apiVersion": "v1", "kind": "Pod", "name": "lonely",
                           "uid": pod["metadata"]["uid"], "controller": True,
                           "blockOwnerDeletion": True}])
        self.assertEqual(group["spec"]["minMember"], 1)
        self.assertEqual(group["spec"]["minResources"], {"cpu": "6"})
        self.assertEqual(group["status"]["conditions"][0]["type"], "Unschedulable")
        self.assertTrue(group["status"]["conditions"][0]["message"].endswith(
            "Origin reason is lonely: 0/2 nodes are available: 2 Insufficient cpu."),
            group["status"]["conditions"][0])
        self.assertIn("Unschedulable", s.kubectl("describe", "pg", group_name).stdout)
        ctl = subprocess.run([SCORIA, "ctl", "--server", f"http://127.0.0.1:{s.port}", "get",
                              "podgroups"], capture_output=True, text=True, timeout=30)
        self.assertIn(group_name, ctl.stdout, ctl.stderr)

        # The pod goes, and its group with it (Kubernetes' garbage collector).
        s.kubectl("delete", "pod", "lonely")
        self.assertEqual(s.kubectl("get", "pg", group_name, check=False).returncode, 1)

    def test_a_plain_pod_that_fits_is_bound_and_its_group_runs(self):
        s = self.serve
        s.kubectl("apply", "-f", "-", stdin=PLAIN.replace("NAME", "small").replace("CPU", "1"))
        self.assertIsNotNone(wait_for(lambda: self.pod("small")["spec"].get("nodeName")))
        group_name = self.pod("small")["metadata"]["annotations"]["scheduling.k8s.io/group-name"]
        self.assertIsNotNone(wait_for(lambda: json.loads(
            s.kubectl("get", "pg", group_name, "-o", "json").stdout)
            .get("status", {}).get("phase") == "Running" or None))
        scheduled = [c for c in self.pod("small")["status"]["conditions"]
                     if c["type"] == "PodScheduled"]
        self.assertEqual(scheduled[0]["status"], "True")


VCJOB = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: mpi}
spec:
  minAvailable: 2
  tasks:
  - name: master
    replicas: 1
    template:
      spec:
        containers: [{name: m, image: busybox, resources: {requests: {cpu: "1"}}}]
  - name: worker
    replicas: 2
    minAvailable: 1
    template:
      spec:
        containers: [{name: w, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


class VolcanoJobs(WithNodes):
    """kubectl applies a Volcano batch Job as Volcano users do: it is kept,
    its PodGroup and pods are made (owned by it) and scheduled, and deleting
    it deletes them."""

    name = "vcjob"

    def test_a_job_is_expanded_scheduled_and_deleted_with_what_it_owns(self):
        s = self.serve
        self.assertIn("job.batch.volcano.sh/mpi created",
                      s.kubectl("apply", "-f", "-", stdin=VCJOB).stdout)
        self.assertEqual(s.kubectl("get", "vcjob", "-o", "name").stdout.split(),
                         ["job.batch.volcano.sh/mpi"])
        job = json.loads(s.kubectl("get", "vcjob", "mpi", "-o", "json").stdout)
        pods = ["mpi-master-0", "mpi-worker-0", "mpi-worker-1"]
        def placed():
            listed = json.loads(s.kubectl("get", "pods", "-l", "volcano.sh/job-name=mpi",
                                          "-o", "json").stdout)["items"]
            where = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in listed}
            return where if sorted(where) == pods and all(where.values()) else None
        self.assertIsNotNone(wait_for(placed), s.log.name)
        pod = json.loads(s.kubectl("get", "pod", "mpi-worker-1", "-o", "json").stdout)
        self.assertEqual(pod["metadata"]["ownerReferences"][0]["uid"], job["metadata"]["uid"])
        self.assertEqual(pod["metadata"]["annotations"]["volcano.sh/task-spec"], "worker")
        group = json.loads(s.kubectl("get", "pg", "mpi", "-o", "json").stdout)
        self.assertEqual((group["spec"]["minMember"], group["spec"]["minTaskMember"]),
                         (2, {"master": 1, "worker": 1}))
        # The job's status as Volcano's controller keeps it: Pending while
        # its pods are (no kubelet here), Running once minAvailable run (an
        # executor reports them through pods/status); Volcano's columns.
        def job_state():
            got = json.loads(s.kubectl("get", "vcjob", "mpi", "-o", "json").stdout)
            return got.get("status", {})
        status = wait_for(lambda: job_state().get("state", {}).get("phase") and job_state())
        self.assertEqual(status["state"]["phase"], "Pending", status)
        self.assertEqual((status["minAvailable"], status["pending"]), (2, 3), status)
        for name in ("mpi-master-0", "mpi-worker-0"):
            s.kubectl("patch", "pod", name, "--subresource=status", "--type=merge",
                      "-p", '{"status": {"phase": "Running"}}')
        self.assertTrue(wait_for(lambda: job_state().get("state", {}).get("phase") == "Running"),
                        job_state())
        self.assertEqual(job_state()["taskStatusCount"]["worker"]["phase"],
                         {"Pending": 1, "Running": 1})
        table = [line.split() for line in s.kubectl("get", "vcjob", "-o", "wide").stdout.splitlines()]
        self.assertEqual(table[0], ["NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE", "QUEUE"])
        self.assertEqual(table[1][:4], ["mpi", "Running", "2", "2"])

        s.kubectl("delete", "vcjob", "mpi")
        self.assertEqual(s.kubectl("get", "pg", "mpi", check=False).returncode, 1)
        self.assertEqual(s.kubectl("get", "pods", "-l", "volcano.sh/job-name=mpi", "-o",
                                   "name").stdout.split(), [])

    def test_a_job_admission_refuses_is_refused_naming_the_field(self):
        bad = VCJOB.replace("name: mpi", "name: bad").replace("minAvailable: 2", "minAvailable: 7")
        r = self.serve.kubectl("apply", "-f", "-", stdin=bad, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('The Job "bad" is invalid: spec.minAvailable: 7 is greater than the '
                      "tasks' replicas (3)", r.stderr)
        self.assertEqual(self.serve.kubectl("get", "pg", "bad", check=False).returncode, 1)
        # Its pods would be refused (no such PriorityClass): so is the Job.
        missing = VCJOB.replace("name: mpi", "name: classless").replace(
            "spec:\n        containers: [{name: m,",
            "spec:\n        priorityClassName: nowhere\n        containers: [{name: m,")
        r = self.serve.kubectl("apply", "-f", "-", stdin=missing, check=False)
        self.assertNotEqual(r.returncode, 0, missing)
        self.assertIn("no PriorityClass with name nowhere was found", r.stderr)
        self.assertEqual(self.serve.kubectl("get", "vcjob", "classless", check=False).returncode, 1)


TYPO_POD = """
apiVersion: v1
kind: Pod
metadata: {name: NAME}
spec:
  containers:
  - name: web
    image: nginx
    resouces:
      requests: {cpu: "1"}
"""


BOUND = """
apiVersion: v1
kind: Pod
metadata: {name: NAME, labels: {app: a}}
spec:
  nodeName: NODE
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


def protobuf_field(number, data):
    """A length-delimited protobuf field."""
    n = len(data)
    size = bytearray()
    while True:
        size.append((n & 0x7f) | (0x80 if n > 0x7f else 0))
        n >>= 7
        if not n:
            break
    return bytes([number << 3 | 2]) + bytes(size) + data


def protobuf_envelope(api_version, kind, raw):
    """A body as kubectl's typed clients send it: "k8s\\0", then a
    runtime.Unknown {typeMeta {apiVersion, kind}, raw}."""
    type_meta = protobuf_field(1, api_version.encode()) + protobuf_field(2, kind.encode())
    return b"k8s\x00" + protobuf_field(1, type_meta) + protobuf_field(2, raw)


class ProtobufWrites(WithNodes):
    """What kubectl's typed clients send as protobuf (create namespace,
    priorityclass, quota, pdb; auth can-i; drain --disable-eviction's
    delete) is taken as the same objects sent as JSON would be."""

    name = "protobuf"

    def get(self, *args):
        return json.loads(self.serve.kubectl("get", *args, "-o", "json").stdout)

    def test_imperative_creates_store_what_kubectl_asked(self):
        self.serve.kubectl("create", "namespace", "team-p")
        ns = self.get("namespace", "team-p")
        self.assertEqual(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "team-p")
        self.assertEqual(ns["status"]["phase"], "Active")

        self.serve.kubectl("create", "priorityclass", "high", "--value=1000",
                           "--description=batch jobs first", "--preemption-policy=Never")
        pc = self.get("priorityclass", "high")
        self.assertEqual(pc["value"], 1000)
        self.assertEqual(pc["description"], "batch jobs first")
        self.assertEqual(pc["preemptionPolicy"], "Never")
        self.assertNotIn("globalDefault", pc)

        self.serve.kubectl("create", "quota", "q", "-n", "team-p",
                           "--hard=cpu=1,pods=2,requests.memory=1Gi", "--scopes=NotTerminating")
        quota = self.get("quota", "q", "-n", "team-p")
        self.assertEqual(quota["spec"]["hard"], {"cpu": "1", "pods": "2", "requests.memory": "1Gi"})
        self.assertEqual(quota["spec"]["scopes"], ["NotTerminating"])
        self.assertEqual(quota["metadata"]["namespace"], "team-p")

        self.serve.kubectl("create", "pdb", "b", "-n", "team-p", "--selector=app=a,tier=web",
                           "--min-available=1")
        pdb = self.get("pdb", "b", "-n", "team-p")
        self.assertEqual(pdb["spec"]["minAvailable"], 1)
        self.assertEqual(pdb["spec"]["selector"], {"matchLabels": {"app": "a", "tier": "web"}})
        self.serve.kubectl("create", "pdb", "b2", "-n", "team-p", "--selector=app=a",
                           "--max-unavailable=50%")
        self.assertEqual(self.get("pdb", "b2", "-n", "team-p")["spec"]["maxUnavailable"], "50%")
        # A second create is a Status kubectl shows, not "unknown".
        again = self.serve.kubectl("create", "namespace", "team-p", check=False)
        self.assertEqual(again.returncode, 1)
        self.assertIn('namespaces "team-p" already exists', again.stderr)

    def test_a_server_dry_run_stores_nothing(self):
        r = self.serve.kubectl("create", "namespace", "dry", "--dry-run=server", "-o", "json")
        self.assertEqual(json.loads(r.stdout)["metadata"]["name"], "dry")
        missing = self.serve.kubectl("get", "namespace", "dry", check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn('namespaces "dry" not found', missing.stderr)

    def post(self, path, body, content_type="application/vnd.kubernetes.protobuf"):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.serve.port}{path}", data=body, method="POST",
            headers={"Content-Type": content_type,
                     "Accept": "application/vnd.kubernetes.protobuf,application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, r.headers["Content-Type"], json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], json.loads(e.read())

    def test_a_malformed_or_unread_body_is_a_status(self):
        # The object's metadata says 17 bytes follow; two do.
        body = protobuf_envelope("v1", "Namespace", b"\x0a\x11\x0a\x01")
        code, content_type, status = self.post("/api/v1/namespaces", body)
        self.assertEqual(code, 400)
        self.assertEqual(content_type, "application/json")
        self.assertEqual((status["kind"], status["reason"], status["code"]),
                         ("Status", "BadRequest", 400))
        self.assertIn('Namespace in version "v1" cannot be handled as a Namespace: '
                      "unexpected EOF", status["message"])
        code, _, status = self.post("/api/v1/namespaces", b"not protobuf")
        self.assertEqual((code, status["reason"]), (400, "BadRequest"))
        self.assertIn("expected prefix [107 56 115 0]", status["message"])
        # A kind whose protobuf this server does not read: 415, send JSON.
        code, _, status = self.post("/api/v1/namespaces",
                                    protobuf_envelope("v1", "ConfigMap", b""))
        self.assertEqual((code, status["kind"], status["reason"]),
                         (415, "Status", "UnsupportedMediaType"))
        self.assertIn("send v1 ConfigMap as application/json", status["message"])
        # A type a form could send is still refused, as a Status too.
        code, _, status = self.post("/api/v1/namespaces", b"a=b",
                                    "application/x-www-form-urlencoded")
        self.assertEqual((code, status["kind"], status["reason"]),
                         (415, "Status", "UnsupportedMediaType"))

    def can_i(self, *args):
        r = self.serve.kubectl("auth", "can-i", *args, check=False)
        return r.returncode, r.stdout.strip()

    def test_auth_can_i_without_a_token_configured(self):
        self.assertEqual(self.can_i("create", "pods"), (0, "yes"))
        self.assertEqual(self.can_i("delete", "nodes"), (0, "yes"))
        self.assertEqual(self.can_i("list", "podgroups.scheduling.volcano.sh", "-A"), (0, "yes"))
        self.assertEqual(self.can_i("create", "pods", "--subresource=eviction"), (0, "yes"))
        self.assertEqual(self.can_i("create", "deployments.apps"),
                         (1, "no - this server does not serve deployments.apps"))
        self.assertEqual(self.can_i("get", "/logs"),
                         (1, "no - this server does not serve the path /logs"))
        self.assertEqual(self.can_i("get", "/healthz"), (0, "yes"))

    def test_drain_evicts_and_drain_without_eviction_deletes(self):
        for node, pod in (("node-a", "on-a"), ("node-b", "on-b")):
            self.serve.kubectl("create", "-f", "-",
                               stdin=BOUND.replace("NAME", pod).replace("NODE", node))
        # Evictions (policy/v1, JSON), as discovery now says kubectl may.
        r = self.serve.kubectl("drain", "node-a", "--force", "--timeout=60s")
        self.assertIn("evicting pod default/on-a", r.stdout + r.stderr)
        self.assertIn("pod/on-a evicted", r.stdout)
        self.assertIn("node/node-a drained", r.stdout)
        # Deletes with a protobuf DeleteOptions body.
        r = self.serve.kubectl("drain", "node-b", "--force", "--disable-eviction",
                               "--timeout=60s")
        self.assertNotIn("evict", r.stderr + r.stdout)
        self.assertIn("pod/on-b deleted", r.stdout)
        self.assertIn("node/node-b drained", r.stdout)
        for node, pod in (("node-a", "on-a"), ("node-b", "on-b")):
            self.assertIs(self.get("node", node)["spec"].get("unschedulable"), True)
            gone = self.serve.kubectl("get", "pod", pod, check=False)
            self.assertIn(f'pods "{pod}" not found', gone.stderr)


class WithToken(unittest.TestCase):
    """`auth can-i` where writes need serve's token. kubectl sends a
    kubeconfig's token only over TLS, so over plain HTTP it is told "no" for
    writes, as its writes are refused; a client that sends the token (here
    urllib, with kubectl's protobuf body) is told "yes"."""

    @classmethod
    def setUpClass(cls):
        cls.serve = Serve("token", token="s3cret-token")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def can_i(self, *args):
        r = self.serve.kubectl("auth", "can-i", *args, check=False)
        return r.returncode, r.stdout.strip()

    def review(self, verb, resource, token=None):
        attributes = protobuf_field(2, verb.encode()) + protobuf_field(5, resource.encode())
        raw = protobuf_field(2, protobuf_field(1, attributes))  # spec.resourceAttributes
        headers = {"Content-Type": "application/vnd.kubernetes.protobuf"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.serve.port}/apis/authorization.k8s.io/v1/"
            "selfsubjectaccessreviews",
            data=protobuf_envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", raw),
            method="POST", headers=headers)
        with urllib.request.urlopen(request, timeout=10) as r:
            self.assertEqual(r.status, 201)
            return json.loads(r.read())["status"]

    def test_writes_are_yes_with_the_token_and_no_without(self):
        no_token = "no - writes need the bearer token of scoria serve (Authorization: Bearer TOKEN)"
        self.assertEqual(self.can_i("create", "pods"), (1, no_token))
        self.assertEqual(self.can_i("get", "pods"), (0, "yes"))
        self.assertEqual(self.can_i("watch", "queues"), (0, "yes"))
        # What it says is what a write meets.
        refused = self.serve.kubectl("create", "namespace", "x", check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("You must be logged in to the server (writes need the header "
                      "Authorization: Bearer <token>)", refused.stderr)
        self.assertEqual(self.review("create", "pods", token="s3cret-token"), {"allowed": True})
        self.assertEqual(self.review("create", "pods", token="wrong"),
                         {"allowed": False, "reason": no_token[len("no - "):]})
        self.assertEqual(self.review("delete", "nodes"),
                         {"allowed": False, "reason": no_token[len("no - "):]})
        self.assertEqual(self.review("list", "nodes"), {"allowed": True})


class UnknownFields(unittest.TestCase):
    """A mistyped field, as kubectl 1.32 meets it on a real API server: it
    sends fieldValidation=Strict (its --validate default, since the server
    advertises the parameter), Warn for --validate=warn, Ignore for
    --validate=false."""

    @classmethod
    def setUpClass(cls):
        cls.serve = Serve("fields")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def file(self, name, text):
        with open(os.path.join(self.serve.dir, name), "w") as f:
            f.write(text)

    def kubectl(self, *args, check=True):
        return self.serve.kubectl(*args, check=check, cwd=self.serve.dir)

    def test_apply_refuses_warns_or_ignores_as_validate_says(self):
        self.file("pod-with-typo.yaml", TYPO_POD.replace("NAME", "typo"))
        for verb in ("apply", "create"):
            r = self.kubectl(verb, "-f", "pod-with-typo.yaml", check=False)
            self.assertEqual(r.returncode, 1, r)
            self.assertEqual(r.stdout, "")
            self.assertEqual(
                r.stderr,
                'Error from server (BadRequest): error when creating "pod-with-typo.yaml": Pod in '
                'version "v1" cannot be handled as a Pod: strict decoding error: unknown field '
                '"spec.containers[0].resouces"\n')
            self.assertEqual(self.kubectl("get", "pod", "typo", check=False).returncode, 1)

        r = self.kubectl("apply", "--validate=warn", "-f", "pod-with-typo.yaml")
        self.assertEqual(r.stdout, "pod/typo created\n")
        self.assertEqual(r.stderr, 'Warning: unknown field "spec.containers[0].resouces"\n')
        pod = json.loads(self.kubectl("get", "pod", "typo", "-o", "json").stdout)
        self.assertEqual(pod["spec"]["containers"][0]["name"], "web")
        self.assertNotIn("resouces", pod["spec"]["containers"][0])

        # Applied again as it is: kubectl's patch brings the field back (the
        # stored pod has none), and is refused.
        r = self.kubectl("apply", "-f", "pod-with-typo.yaml", check=False)
        self.assertEqual(r.returncode, 1, r)
        self.assertEqual(
            r.stderr,
            'The request is invalid: patch: Invalid value: "map[spec:map[$setElementOrder/'
            'containers:[map[name:web]] containers:[map[name:web resouces:map[requests:map[cpu:1]]'
            ']]]]": strict decoding error: unknown field "spec.containers[0].resouces"\n')

        self.file("pod-with-typo-2.yaml", TYPO_POD.replace("NAME", "typo-2"))
        r = self.kubectl("apply", "--validate=false", "-f", "pod-with-typo-2.yaml")
        self.assertEqual((r.stdout, r.stderr), ("pod/typo-2 created\n", ""))
        pod = json.loads(self.kubectl("get", "pod", "typo-2", "-o", "json").stdout)
        self.assertNotIn("resouces", pod["spec"]["containers"][0])

    def test_a_volcano_kind_is_refused_as_its_crd_refuses(self):
        self.file("pg-with-typo.yaml", "apiVersion: scheduling.volcano.sh/v1beta1\n"
                                       "kind: PodGroup\nmetadata: {name: pg}\n"
                                       "spec: {minMembr: 2, queue: default}\n")
        r = self.kubectl("apply", "-f", "pg-with-typo.yaml", check=False)
        self.assertEqual(r.returncode, 1, r)
        self.assertEqual(
            r.stderr,
            'Error from server (BadRequest): error when creating "pg-with-typo.yaml": PodGroup in '
            'version "v1beta1" cannot be handled as a PodGroup: strict decoding error: unknown '
            'field "spec.minMembr"\n')
        self.assertEqual(self.kubectl("get", "pg", "pg", check=False).returncode, 1)

    def test_a_client_library_sees_the_warning_header(self):
        # The Python client sends no fieldValidation: the server's default
        # (Warn) applies, and the answer carries the API server's header.
        config.load_kube_config(config_file=self.serve.kubeconfig)
        core = client.CoreV1Api()
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "from-python"},
                "spec": {"containers": [{"name": "c", "image": "x", "imagePullPolcy": "Always"}]}}
        r = core.create_namespaced_pod("default", body, _preload_content=False)
        self.assertEqual(r.status, 201)
        self.assertEqual(r.getheader("Warning"),
                         '299 - "unknown field \\"spec.containers[0].imagePullPolcy\\""')
        created = core.read_namespaced_pod("from-python", "default")
        self.assertIsNone(created.spec.containers[0].image_pull_policy)


class PythonClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve("python")
        config.load_kube_config(config_file=cls.serve.kubeconfig)
        cls.core = client.CoreV1Api()
        cls.custom = client.CustomObjectsApi()

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_list_and_watch_resumed_from_a_version(self):
        self.core.create_node({"apiVersion": "v1", "kind": "Node",
                               "metadata": {"name": "py-node"},
                               "status": {"allocatable": {"cpu": "8", "memory": "8Gi"}}})
        listed = self.core.list_pod_for_all_namespaces()
        version = listed.metadata.resource_version
        self.assertTrue(version.isdigit())
        self.core.create_namespaced_pod("default", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "py-0"},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "resources": {"requests": {"cpu": "1"}}}]}})
        seen = []
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_pod, "default",
                              resource_version=version, timeout_seconds=20):
            # Other tests' pods change too (the scheduler writes why they
            # wait): this test follows its own.
            if event["object"].metadata.name != "py-0":
                continue
            seen.append((event["type"], event["object"].metadata.name,
                         event["object"].spec.node_name))
            if event["object"].spec.node_name:
                w.stop()
        self.assertEqual(seen[0][:2], ("ADDED", "py-0"))
        self.assertEqual(seen[-1], ("MODIFIED", "py-0", "py-node"))
        # Resuming after the ADDED replays only what came after it.
        pod = self.core.read_namespaced_pod("py-0", "default")
        again = []
        for event in w.stream(self.core.list_namespaced_pod, "default",
                              resource_version=pod.metadata.resource_version, timeout_seconds=2):
            if event["object"].metadata.name == "py-0":
                again.append(event["type"])
        self.assertEqual(again, [])

    def test_admission_refuses_what_a_cluster_refuses(self):
        # Kubernetes' Priority admission: a missing PriorityClass.
        with self.assertRaises(ApiException) as refused:
            self.core.create_namespaced_pod("default", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "no-class"},
                "spec": {"priorityClassName": "nope",
                         "containers": [{"name": "c", "image": "x"}]}})
        self.assertEqual(refused.exception.status, 403)
        self.assertIn("no PriorityClass with name nope was found", refused.exception.body)
        # ... and a second default class.
        sched = client.SchedulingV1Api()
        sched.create_priority_class({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                     "metadata": {"name": "first"}, "value": 1,
                                     "globalDefault": True})
        with self.assertRaises(ApiException) as refused:
            sched.create_priority_class({"apiVersion": "scheduling.k8s.io/v1",
                                         "kind": "PriorityClass", "metadata": {"name": "second"},
                                         "value": 2, "globalDefault": True})
        self.assertEqual(refused.exception.status, 403)
        self.assertIn("Only one default can exist", refused.exception.body)
        sched.delete_priority_class("first")
        # Volcano's PodGroup webhook: a missing queue.
        with self.assertRaises(ApiException) as refused:
            self.custom.create_namespaced_custom_object(
                "scheduling.volcano.sh", "v1beta1", "default", "podgroups",
                {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                 "metadata": {"name": "no-queue"}, "spec": {"queue": "nowhere"}})
        self.assertEqual(refused.exception.status, 403)
        self.assertIn("unable to find queue", refused.exception.body)
        # Refused means not stored.
        with self.assertRaises(ApiException) as missing:
            self.core.read_namespaced_pod("no-class", "default")
        self.assertEqual(missing.exception.status, 404)
        # A pod naming a PodGroup that does not exist yet is stored and waits.
        self.core.create_namespaced_pod("default", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "early", "annotations": {
                "scheduling.k8s.io/group-name": "later"}},
            "spec": {"containers": [{"name": "c", "image": "x"}]}})
        self.assertIsNone(self.core.read_namespaced_pod("early", "default").spec.node_name)

    def test_conflicts_and_status_errors(self):
        self.core.create_namespace({"metadata": {"name": "team-a"}})
        body = {"metadata": {"name": "q1"}, "spec": {"weight": 2}}
        q = self.custom.create_cluster_custom_object("scheduling.volcano.sh", "v1beta1",
                                                     "queues", body)
        with self.assertRaises(ApiException) as dup:
            self.custom.create_cluster_custom_object("scheduling.volcano.sh", "v1beta1",
                                                     "queues", body)
        self.assertEqual(dup.exception.status, 409)
        self.assertEqual(json.loads(dup.exception.body)["reason"], "AlreadyExists")
        # An update from a stale version is a conflict, never a lost update.
        # The scheduler writes the queue's status as soon as it sees it (a
        # write starts a session), so the fresh update reads and retries on
        # a conflict as client-go's RetryOnConflict does.
        for attempt in range(5):
            fresh = self.custom.get_cluster_custom_object("scheduling.volcano.sh", "v1beta1",
                                                          "queues", "q1")
            fresh["spec"] = {"weight": 3}
            try:
                self.custom.replace_cluster_custom_object("scheduling.volcano.sh", "v1beta1",
                                                          "queues", "q1", fresh)
                break
            except ApiException as e:
                if e.status != 409 or attempt == 4:
                    raise
        stale = dict(q)
        stale["spec"] = {"weight": 9}
        with self.assertRaises(ApiException) as conflict:
            self.custom.replace_cluster_custom_object("scheduling.volcano.sh", "v1beta1",
                                                      "queues", "q1", stale)
        self.assertEqual(conflict.exception.status, 409)
        self.assertEqual(json.loads(conflict.exception.body)["reason"], "Conflict")
        now = self.custom.get_cluster_custom_object("scheduling.volcano.sh", "v1beta1", "queues",
                                                    "q1")
        self.assertEqual(now["spec"]["weight"], 3)
        self.assertEqual(now["metadata"]["generation"], 2)
        # A field the scheduler cannot read: 422 naming it, nothing stored.
        with self.assertRaises(ApiException) as invalid:
            self.core.create_namespaced_pod("team-a", {
                "metadata": {"name": "bad"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "x"}}}]}})
        status = json.loads(invalid.exception.body)
        self.assertEqual(invalid.exception.status, 422)
        self.assertEqual(status["reason"], "Invalid")
        self.assertEqual(status["details"]["causes"][0]["field"],
                         "spec.containers[0].resources.requests.cpu")
        with self.assertRaises(ApiException) as missing:
            self.core.read_namespaced_pod("bad", "team-a")
        self.assertEqual(missing.exception.status, 404)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
