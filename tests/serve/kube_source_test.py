#!/usr/bin/python3
"""`scoria serve --source kubernetes` against a real API server on loopback.

The API server is a second `scoria serve` (its Kubernetes-compatible API over
the local store; it runs no session while the test does, so that it writes
nothing of its own), reached through a fault proxy (fault_proxy.py) that
fails as real servers and networks fail. Objects are created with the
Kubernetes Python client; outcomes are read back through the API: which
node each pod is bound to, how often the upstream accepted a bind, PodGroup
status, events, and who leads.

Usage: kube_source_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR [Class[.test_name]]...
"""
import base64
import json
import os
import subprocess
import sys
import threading
import time
import unittest

from kubernetes import client
from kubernetes.client import ApiClient, Configuration
from kubernetes.client.rest import ApiException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_proxy import FaultProxy, is_bind, is_list, is_watch, once, sometimes  # noqa: E402
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CONFIG = os.path.join(SOURCE, "config/scheduler.toml")
SCHEDULER = "scoria-under-test"  # pods for the scheduler under test name it

# The API server: sessions every hour, so that only the one at start runs.
API_SERVER_ARGS = ("--schedule-period", "3600000")


def api_for(port):
    conf = Configuration()
    conf.host = f"http://127.0.0.1:{port}"
    return ApiClient(conf)


def kubeconfig(path, server, ca=None, cert=None, key=None, extra_user=None):
    cluster = {"server": server}
    if ca:
        cluster["certificate-authority-data"] = base64.b64encode(open(ca, "rb").read()).decode()
    user = {}
    if cert:
        user["client-certificate"] = cert
        user["client-key"] = key
    if extra_user:
        user.update(extra_user)
    doc = {"apiVersion": "v1", "kind": "Config",
           "clusters": [{"name": "c", "cluster": cluster}],
           "users": [{"name": "u", "user": user}],
           "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
           "current-context": "ctx"}
    with open(path, "w") as f:
        json.dump(doc, f)  # JSON is YAML
    return path


class Cluster:
    """Creates objects on the API server through the Python client."""

    def __init__(self, port):
        self.api = api_for(port)
        self.core = client.CoreV1Api(self.api)
        self.custom = client.CustomObjectsApi(self.api)
        self.sched = client.SchedulingV1Api(self.api)

    def node(self, name, cpu="4", labels=None):
        meta = {"name": name}
        if labels:
            meta["labels"] = labels
        self.core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": meta,
                               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi",
                                                          "pods": "110"}}})

    def hostname_nodes(self, count):
        """node-0 ... with their kubernetes.io/hostname labels, and the
        default queue."""
        for i in range(count):
            self.node(f"node-{i}", labels={"kubernetes.io/hostname": f"node-{i}"})
        self.queue()

    def storage_class(self, name, provisioner):
        """A WaitForFirstConsumer class."""
        client.StorageV1Api(self.api).create_storage_class({
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": name}, "provisioner": provisioner,
            "volumeBindingMode": "WaitForFirstConsumer"})

    def volume_pod(self, name, claim):
        self.core.create_namespaced_pod("default", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": SCHEDULER, "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "1"}}}],
                     "volumes": [{"name": "v",
                                  "persistentVolumeClaim": {"claimName": claim}}]}})

    def devices(self, cpu=("4", "4")):
        """node-1 and node-2 (cpu as given), each with a ResourceSlice of one
        device gpu-0 of driver gpu.example.com in the pool named after the
        node (model a100 on node-1, h100 on node-2), the DeviceClass
        gpu.example.com, and the default queue."""
        for (name, model), node_cpu in zip((("node-1", "a100"), ("node-2", "h100")), cpu):
            self.node(name, node_cpu, labels={"kubernetes.io/hostname": name})
            self.custom.create_cluster_custom_object(
                "resource.k8s.io", "v1", "resourceslices",
                {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                 "metadata": {"name": f"{name}-gpus"},
                 "spec": {"driver": "gpu.example.com", "nodeName": name,
                          "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                          "devices": [{"name": "gpu-0",
                                       "attributes": {"model": {"string": model}}}]}})
        self.custom.create_cluster_custom_object(
            "resource.k8s.io", "v1", "deviceclasses",
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": "gpu.example.com"},
             "spec": {"selectors": [
                 {"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
        self.queue()

    def device_claim(self, name, model=None):
        """A ResourceClaim by name for one device of class gpu.example.com,
        of that model if given. By name, not from a template: only the
        resource-claim controller makes a template's claim, and neither the
        API server here (its sessions, which would, do not run) nor the
        scheduler under test runs one."""
        request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
        if model:
            request["exactly"]["selectors"] = [{"cel": {
                "expression": f'device.attributes["gpu.example.com"].model == "{model}"'}}]
        self.custom.create_namespaced_custom_object(
            "resource.k8s.io", "v1", "default", "resourceclaims",
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": name}, "spec": {"devices": {"requests": [request]}}})

    def claim_pod(self, name, claim, cpu="1", node=None, scheduler=SCHEDULER):
        spec = {"schedulerName": scheduler, "terminationGracePeriodSeconds": 0,
                "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}],
                "containers": [{"name": "c", "image": "busybox",
                                "resources": {"requests": {"cpu": cpu},
                                              "claims": [{"name": "gpu"}]}}]}
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}
        if node:
            spec["nodeName"] = node
            body["status"] = {"phase": "Running"}
        return self.core.create_namespaced_pod("default", body)

    def resource_claim(self, name):
        return self.custom.get_namespaced_custom_object(
            "resource.k8s.io", "v1", "default", "resourceclaims", name)

    def allocate_claim(self, name, node, pod):
        """Claim `name` allocated node's gpu-0 for `pod` (a V1Pod), written as
        kube-scheduler writes it: the finalizer in an update, then the
        allocation and the reservation in the status."""
        claim = self.resource_claim(name)
        claim["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
        claim = self.custom.replace_namespaced_custom_object(
            "resource.k8s.io", "v1", "default", "resourceclaims", name, claim)
        claim["status"] = {
            "allocation": {
                "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                         "pool": node, "device": "gpu-0"}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
            "reservedFor": [{"resource": "pods", "name": pod.metadata.name,
                             "uid": pod.metadata.uid}]}
        self.custom.replace_namespaced_custom_object_status(
            "resource.k8s.io", "v1", "default", "resourceclaims", name, claim)

    def queue(self, name="default"):
        try:
            self.custom.create_cluster_custom_object(
                "scheduling.volcano.sh", "v1beta1", "queues",
                {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                 "metadata": {"name": name}, "spec": {"weight": 1}})
        except ApiException as e:
            # The API server (a serve) makes root and default at start, as
            # Volcano's scheduler does.
            if e.status != 409 or name not in ("root", "default"):
                raise

    def gang(self, name, size, cpu="1", queue="default", ns="default", priority_class=None):
        spec = {"minMember": size, "queue": queue}
        if priority_class:
            spec["priorityClassName"] = priority_class
        self.custom.create_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", ns, "podgroups",
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": name, "namespace": ns}, "spec": spec})
        for i in range(size):
            self.pod(f"{name}-{i}", cpu=cpu, group=name, ns=ns, priority_class=priority_class)

    def pod(self, name, cpu="1", group=None, ns="default", node=None, priority=None,
            priority_class=None, scheduler=SCHEDULER):
        meta = {"name": name, "namespace": ns}
        if group:
            meta["annotations"] = {"scheduling.k8s.io/group-name": group}
        spec = {"schedulerName": scheduler, "terminationGracePeriodSeconds": 0,
                "containers": [{"name": "c", "image": "busybox",
                                "resources": {"requests": {"cpu": cpu}}}]}
        if node:
            spec["nodeName"] = node
        if priority is not None:
            spec["priority"] = priority
        if priority_class:
            spec["priorityClassName"] = priority_class
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        if node:
            body["status"] = {"phase": "Running"}
        self.core.create_namespaced_pod(ns, body)

    def workload_gang(self, name, size, cpu="1", ns="default"):
        """A scheduling.k8s.io PodGroup (the Workload API) of a gang of
        `size`, and its pods joining it through spec.schedulingGroup."""
        self.custom.create_namespaced_custom_object(
            "scheduling.k8s.io", "v1beta1", ns, "podgroups",
            {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
             "metadata": {"name": name, "namespace": ns},
             "spec": {"schedulingPolicy": {"gang": {"minCount": size}}}})
        for i in range(size):
            spec = {"schedulerName": SCHEDULER, "terminationGracePeriodSeconds": 0,
                    "schedulingGroup": {"podGroupName": name},
                    "containers": [{"name": "c", "image": "busybox",
                                    "resources": {"requests": {"cpu": cpu}}}]}
            self.core.create_namespaced_pod(ns, {"apiVersion": "v1", "kind": "Pod",
                                                 "metadata": {"name": f"{name}-{i}"},
                                                 "spec": spec})

    def workload_group_condition(self, name, ns="default"):
        group = self.custom.get_namespaced_custom_object(
            "scheduling.k8s.io", "v1beta1", ns, "podgroups", name)
        for c in group.get("status", {}).get("conditions", []):
            if c["type"] == "PodGroupInitiallyScheduled":
                return c
        return {}

    def placement(self, ns="default"):
        return {p.metadata.name: p.spec.node_name
                for p in self.core.list_namespaced_pod(ns).items}

    def bound(self, names, ns="default"):
        where = self.placement(ns)
        return all(where.get(n) for n in names)

    def pod_group(self, name, ns="default"):
        return self.custom.get_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", ns, "podgroups", name)


class KubeSourceCase(unittest.TestCase):
    """An API server, a fault proxy in front of it, and the scheduler."""

    proxy_tls = None
    # The API server is a scoria serve: it runs sessions of its own, and its
    # enqueue admits PodGroups whatever scheduler their pods name.
    apiserver_config = CONFIG
    apiserver_extra = ()

    def setUp(self):
        name = self.id().split(".")[-1]
        self.work = os.path.join(WORK, name)
        os.makedirs(self.work, exist_ok=True)
        self.apiserver = ScoriaServe(SCORIA, self.work, "apiserver", self.apiserver_config,
                                     *API_SERVER_ARGS, *self.apiserver_extra)
        self.proxy = FaultProxy(self.apiserver.port, tls=self.proxy_tls)
        self.cluster = Cluster(self.apiserver.port)
        self.schedulers = []

    def tearDown(self):
        for s in self.schedulers:
            s.stop()
        self.proxy.stop()
        self.apiserver.stop()

    def start_scheduler(self, name="scheduler", *extra, config=CONFIG):
        s = ScoriaServe(SCORIA, self.work, name, config, "--source", "kubernetes",
                        "--master", f"http://127.0.0.1:{self.proxy.port}",
                        "--scheduler-name", SCHEDULER, *extra)
        self.schedulers.append(s)
        return s

    def base_cluster(self, nodes=2, cpu="4"):
        for i in range(nodes):
            self.cluster.node(f"node-{i}", cpu)
        self.cluster.queue()

    def assert_bound_once(self, pods, ns="default"):
        # The upstream commits a bind before the proxy has counted it.
        wait_for(lambda: all(self.proxy.binds[f"{ns}/{p}"] for p in pods), 5)
        for p in pods:
            self.assertEqual(self.proxy.binds[f"{ns}/{p}"], 1,
                             f"pod {p}: binds accepted {self.proxy.binds[f'{ns}/{p}']}")


class Schedules(KubeSourceCase):
    def test_a_gang_created_through_the_api_is_bound_and_its_status_written(self):
        self.base_cluster()
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        self.cluster.gang("train", 2, cpu="3")
        self.assertTrue(wait_for(lambda: self.cluster.bound(["train-0", "train-1"])), s.text())
        where = self.cluster.placement()
        # 3 of 4 cpu each: one pod per node.
        self.assertEqual(sorted([where["train-0"], where["train-1"]]), ["node-0", "node-1"])
        self.assert_bound_once(["train-0", "train-1"])
        self.assertTrue(wait_for(
            lambda: self.cluster.pod_group("train").get("status", {}).get("phase") == "Running"))
        queue = self.cluster.custom.get_cluster_custom_object(
            "scheduling.volcano.sh", "v1beta1", "queues", "default")
        self.assertTrue(wait_for(lambda: self.cluster.custom.get_cluster_custom_object(
            "scheduling.volcano.sh", "v1beta1", "queues", "default")
            .get("status", {}).get("allocated", {}).get("cpu") == "6"), queue)
        events = self.cluster.core.list_namespaced_event("default").items
        scheduled = sorted(e.involved_object.name for e in events if e.reason == "Scheduled")
        self.assertEqual(scheduled, ["train-0", "train-1"])

    def test_a_workload_api_gang_is_bound_and_its_condition_written(self):
        # Kubernetes' own gang (scheduling.k8s.io/v1beta1): 3 pods of 3 cpu
        # on two 4-cpu nodes wait whole, with the condition False; a third
        # node lets all three be bound, and the condition turns True.
        self.base_cluster()
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        self.cluster.workload_gang("train", 3, cpu="3")
        self.assertTrue(wait_for(lambda: self.cluster.workload_group_condition("train")
                                 .get("reason") == "Unschedulable"), s.text())
        self.assertEqual(self.cluster.workload_group_condition("train")["status"], "False")
        self.assertFalse(any(self.cluster.placement().values()))
        self.cluster.node("node-2", "4")
        self.assertTrue(wait_for(lambda: self.cluster.bound(["train-0", "train-1", "train-2"])),
                        s.text())
        self.assert_bound_once(["train-0", "train-1", "train-2"])
        self.assertTrue(wait_for(lambda: self.cluster.workload_group_condition("train")
                                 .get("status") == "True"), s.text())
        self.assertEqual(self.cluster.workload_group_condition("train")["reason"], "Scheduled")

    def test_the_root_and_default_queues_are_made_as_volcano_makes_them(self):
        # The API server here (a scoria serve) made them at its start; taken
        # away, the scheduler makes them again with its first writes, as
        # Volcano's scheduler does when it starts (newDefaultAndRootQueue).
        def queue(name):
            try:
                return self.cluster.custom.get_cluster_custom_object(
                    "scheduling.volcano.sh", "v1beta1", "queues", name)
            except ApiException as e:
                if e.status == 404:
                    return None
                raise
        for name in ("default", "root"):
            self.cluster.custom.delete_cluster_custom_object(
                "scheduling.volcano.sh", "v1beta1", "queues", name)
            self.assertIsNone(queue(name))
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: queue("default") and queue("root")), s.text())
        self.assertEqual(queue("default")["spec"], {"reclaimable": True, "weight": 1})
        self.assertEqual(queue("root")["spec"], {"reclaimable": False, "weight": 1})
        # The writer logs once the server has answered; the test may read first.
        self.assertTrue(wait_for(lambda: "created the Queue default" in s.text()
                                 and "created the Queue root" in s.text()), s.text())

    def test_the_card_deviceshare_chose_is_written_on_the_bound_pod(self):
        # ABI 1.6 bind annotations through the Kubernetes source: the writer
        # sends them on the Binding, and the API server writes them on the
        # pod with spec.nodeName.
        config = os.path.join(self.work, "deviceshare.toml")
        with open(config, "w") as f:
            f.write('actions = ["enqueue", "allocate"]\n'
                    '[[tiers]]\nplugins = [{ name = "priority" }, { name = "gang" }]\n'
                    '[[tiers]]\nplugins = [{ name = "predicates" }, { name = "nodeorder" },\n'
                    '  { name = "deviceshare", arguments = { "deviceshare.VGPUEnable" = true,'
                    ' "deviceshare.SchedulePolicy" = "spread" } }]\n')
        self.cluster.core.create_node({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "gpu-0", "annotations": {
                "volcano.sh/node-vgpu-register":
                    "GPU-a,10,16384,NVIDIA-A100,true,hami-core:"
                    "GPU-b,10,16384,NVIDIA-A100,true,hami-core:"}},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110",
                                       "volcano.sh/vgpu-number": "20",
                                       "volcano.sh/vgpu-memory": "32768",
                                       "volcano.sh/vgpu-cores": "200"}}})
        self.cluster.queue()
        s = self.start_scheduler(config=config)
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        self.cluster.core.create_namespaced_pod("default", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "infer"},
            "spec": {"schedulerName": SCHEDULER, "containers": [{
                "name": "c", "image": "busybox",
                "resources": {"limits": {"volcano.sh/vgpu-number": "1",
                                         "volcano.sh/vgpu-memory": "4096",
                                         "volcano.sh/vgpu-cores": "30"}}}]}})
        self.assertTrue(wait_for(lambda: self.cluster.bound(["infer"])), s.text())
        pod = self.cluster.core.read_namespaced_pod("infer", "default")
        self.assertEqual(pod.spec.node_name, "gpu-0")
        annotations = pod.metadata.annotations or {}
        self.assertEqual(annotations.get("volcano.sh/vgpu-ids-new"), "GPU-a,NVIDIA,4096,30:")
        self.assertEqual(annotations.get("volcano.sh/devices-to-allocate"),
                         "GPU-a,NVIDIA,4096,30:")
        self.assertEqual(annotations.get("volcano.sh/vgpu-node"), "gpu-0")
        self.assertEqual(annotations.get("volcano.sh/bind-phase"), "allocating")
        self.assert_bound_once(["infer"])

    def test_an_unschedulable_gang_gets_the_condition_and_binds_nothing(self):
        self.base_cluster(nodes=1)
        s = self.start_scheduler()
        self.cluster.gang("big", 3, cpu="2")  # 6 cpu on a 4-cpu node
        # The gang's pods arrive one by one; a session may first see only
        # some of them. Wait for the message about all three.
        def condition():
            c = (self.cluster.pod_group("big").get("status", {}).get("conditions") or [None])[0]
            return c if c and "3 Pending" in c.get("message", "") else None
        cond = wait_for(condition)
        self.assertIsNotNone(cond, s.text())
        self.assertEqual(cond["type"], "Unschedulable")
        self.assertIn("tasks in gang unschedulable", cond["message"])
        self.assertFalse(any(self.cluster.placement().values()))
        self.assertEqual(sum(self.proxy.binds.values()), 0)
        # Each pending pod: PodScheduled=False saying why, as Volcano's
        # TaskSchedulingReason does: two fit before the gang was given up
        # (Schedulable, the node they could have had); the queue (4 cpu
        # deserved) could not take the third, so no node was tried for it
        # and it carries the job's message; and one FailedScheduling event
        # each (not one per session).
        def scheduled_conditions():
            out = []
            for name in ("big-0", "big-1", "big-2"):
                status = self.cluster.core.read_namespaced_pod(name, "default").status
                found = [(c.status, c.reason, c.message) for c in
                         ((status and status.conditions) or []) if c.type == "PodScheduled"]
                if not found:
                    return None
                out.append(found[0])
            return sorted(out)
        def settled():
            got = scheduled_conditions()
            return got if got and [c[1] for c in got].count("Schedulable") == 2 else None
        conditions = wait_for(settled)
        self.assertIsNotNone(conditions, (scheduled_conditions(), s.text()))
        schedulable = [c for c in conditions if c[1] == "Schedulable"]
        self.assertEqual([c[0] for c in conditions], ["False"] * 3)
        for c in schedulable:
            self.assertRegex(c[2], r"^Pod default/big-[0-2] can possibly be assigned to node-0, "
                                   r"once minAvailable is satisfied$")
        unschedulable = [c for c in conditions if c[1] == "Unschedulable"]
        self.assertEqual(len(unschedulable), 1, conditions)
        self.assertEqual(unschedulable[0][2],
                         "1/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, "
                         "3 minAvailable; Pending: 1 Unschedulable, 2 Schedulable")
        def failed_scheduling():
            return sorted(e.involved_object.name
                          for e in self.cluster.core.list_namespaced_event("default").items
                          if e.reason == "FailedScheduling")
        self.assertTrue(wait_for(lambda: set(failed_scheduling()) == {"big-0", "big-1", "big-2"}))
        time.sleep(0.5)
        before = failed_scheduling()
        time.sleep(1)  # ten more sessions, the same message: no more events
        self.assertEqual(failed_scheduling(), before)

    def volumes(self):
        """A provisioning WaitForFirstConsumer class and a static one with a
        volume on node-1, their claims, and a pod for each."""
        self.cluster.storage_class("fast", "csi.example.com")
        self.cluster.storage_class("local", "kubernetes.io/no-provisioner")
        self.cluster.core.create_persistent_volume({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "disk-1"},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "local",
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In",
                          "values": ["node-1"]}]}]}}}})
        for claim, cls in (("scratch", "fast"), ("data", "local")):
            self.cluster.core.create_namespaced_persistent_volume_claim("default", {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": claim},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                         "resources": {"requests": {"storage": "1Gi"}}}})
        self.cluster.volume_pod("writer", "scratch")
        self.cluster.volume_pod("reader", "data")

    def test_volumes_are_written_before_their_pods_are_bound(self):
        self.cluster.hostname_nodes(2)
        # Every write, in the order the API server saw them.
        order = []

        def record(method, path, query, body):
            if method in ("POST", "PUT", "PATCH"):
                order.append((method, path))
            return None
        self.proxy.add_rule(record)
        s = self.start_scheduler()
        self.volumes()
        self.assertTrue(wait_for(lambda: self.cluster.bound(["writer", "reader"]), 30), s.text())
        where = self.cluster.placement()
        # The static volume lives on node-1: its claim's pod goes there.
        self.assertEqual(where["reader"], "node-1")
        scratch = self.cluster.core.read_namespaced_persistent_volume_claim("scratch", "default")
        self.assertEqual(scratch.metadata.annotations["volume.kubernetes.io/selected-node"],
                         where["writer"])
        disk = self.cluster.core.read_persistent_volume("disk-1")
        self.assertEqual((disk.spec.claim_ref.namespace, disk.spec.claim_ref.name),
                         ("default", "data"))
        self.assertEqual(disk.metadata.annotations["pv.kubernetes.io/bound-by-controller"], "yes")

        def first(method, suffix):
            return next(i for i, (m, p) in enumerate(order) if m == method and p.endswith(suffix))
        self.assertLess(first("PATCH", "/persistentvolumeclaims/scratch"),
                        first("POST", "/pods/writer/binding"))
        self.assertLess(first("PUT", "/persistentvolumes/disk-1"),
                        first("POST", "/pods/reader/binding"))

    def test_a_refused_volume_write_leaves_the_pod_unbound(self):
        self.base_cluster()
        refused = once(1000, lambda m, p, q: m == "PATCH" and "/persistentvolumeclaims/" in p,
                       {"status": 403})
        self.proxy.add_rule(refused)
        s = self.start_scheduler()
        self.cluster.storage_class("fast", "csi.example.com")
        self.cluster.core.create_namespaced_persistent_volume_claim("default", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "scratch"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                     "resources": {"requests": {"storage": "1Gi"}}}})
        self.cluster.volume_pod("writer", "scratch")
        self.assertTrue(wait_for(lambda: "binding the volumes of pod default/writer failed"
                                 in s.text(), 20), s.text())
        time.sleep(1)
        self.assertFalse(self.cluster.placement().get("writer"))
        self.assertEqual(self.proxy.binds["default/writer"], 0)
        # Once the server takes the write, the pod is bound, in a later session.
        self.proxy.clear_rules()
        self.assertTrue(wait_for(lambda: self.cluster.bound(["writer"]), 30), s.text())

    def test_a_written_volume_is_taken_before_its_watch_event_arrives(self):
        # One static volume any node may mount, and two claims it fits. The
        # proxy holds every PersistentVolume watch event 20 s, so the volume
        # the first pod's binding wrote reaches the cache only through the
        # write's answer (kube-scheduler's assume cache): the second pod must
        # then find no volume, not choose the same one and fail its write.
        self.cluster.hostname_nodes(2)
        self.cluster.storage_class("local", "kubernetes.io/no-provisioner")
        self.cluster.core.create_persistent_volume({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "shared"},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "local", "hostPath": {"path": "/data"}}})
        for claim in ("a-data", "b-data"):
            self.cluster.core.create_namespaced_persistent_volume_claim("default", {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                         "resources": {"requests": {"storage": "1Gi"}}}})

        def held(line):
            time.sleep(20)
            return line
        self.proxy.add_rule(lambda m, p, q, b: {"inject_event": held}
                            if m == "GET" and p.endswith("/persistentvolumes") and "watch=" in q
                            else None)
        volume_requests = []
        self.proxy.add_rule(lambda m, p, q, b: volume_requests.append((m, p)) if
                            p.endswith("/persistentvolumes/shared") else None)
        s = self.start_scheduler()
        self.cluster.volume_pod("a", "a-data")
        self.assertTrue(wait_for(lambda: self.cluster.bound(["a"]), 30), s.text())
        self.cluster.volume_pod("b", "b-data")
        time.sleep(3)  # thirty sessions while the volume's event is held
        self.assertFalse(self.cluster.placement().get("b"), s.text())
        self.assertNotIn("binding the volumes of pod default/b failed", s.text())
        # a's read and write of the volume, and nothing for b.
        self.assertEqual(volume_requests, [("GET", "/api/v1/persistentvolumes/shared"),
                                           ("PUT", "/api/v1/persistentvolumes/shared")])

    def test_claims_are_written_before_their_pods_are_bound(self):
        self.cluster.devices()
        # The request's selector takes the h100, node-2's only device.
        self.cluster.device_claim("gpu-claim", model="h100")
        # Every write, in the order the API server saw them.
        order = []

        def record(method, path, query, body):
            if method in ("POST", "PUT", "PATCH"):
                order.append((method, path))
            return None
        self.proxy.add_rule(record)
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        uid = self.cluster.claim_pod("trainer", "gpu-claim").metadata.uid
        self.assertTrue(wait_for(lambda: self.cluster.bound(["trainer"]), 30), s.text())
        self.assertEqual(self.cluster.placement()["trainer"], "node-2")
        self.assert_bound_once(["trainer"])
        claim = self.cluster.resource_claim("gpu-claim")
        self.assertIn("resource.kubernetes.io/delete-protection",
                      claim["metadata"].get("finalizers") or [], claim)
        status = claim.get("status") or {}
        allocation = status.get("allocation") or {}
        self.assertEqual(allocation.get("devices", {}).get("results"),
                         [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-2",
                           "device": "gpu-0"}], claim)
        self.assertEqual(allocation.get("nodeSelector"), {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}]}, claim)
        self.assertEqual(status.get("reservedFor"),
                         [{"resource": "pods", "name": "trainer", "uid": uid}], claim)

        def first(method, suffix):
            return next((i for i, (m, p) in enumerate(order)
                         if m == method and p.endswith(suffix)), None)
        claim_path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/gpu-claim"
        finalizer, status = first("PUT", claim_path), first("PUT", claim_path + "/status")
        binding = first("POST", "/pods/trainer/binding")
        self.assertIsNotNone(finalizer, order)
        self.assertIsNotNone(status, order)
        self.assertIsNotNone(binding, order)
        # The finalizer in its own update, then allocation and reservation,
        # then the binding: a pod is never bound to a node its devices are
        # not written for.
        self.assertLess(finalizer, status, order)
        self.assertLess(status, binding, order)

    def test_pods_sharing_a_claim_are_bound_together(self):
        # Two pods name one claim; the session allocates it with the first
        # and only reserves it for the second. The writer binds on several
        # workers, and the proxy holds the allocating write a moment: the
        # second pod's reservation must wait for it, not fail on a claim
        # that is not allocated yet and leave the pod for a later session.
        self.cluster.devices()
        self.cluster.device_claim("gpu-claim", model="h100")
        self.proxy.add_rule(once(1, lambda m, p, q: m == "PUT" and p.endswith(
            "/resourceclaims/gpu-claim/status"), {"delay": 1}))
        self.cluster.claim_pod("left", "gpu-claim")
        self.cluster.claim_pod("right", "gpu-claim")
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: self.cluster.bound(["left", "right"]), 30), s.text())
        self.assertNotIn("binding the resource claims", s.text())
        self.assertEqual(self.proxy.binds["default/left"], 1)
        self.assertEqual(self.proxy.binds["default/right"], 1)
        claim = self.cluster.resource_claim("gpu-claim")
        self.assertEqual(sorted(r["name"] for r in claim["status"]["reservedFor"]),
                         ["left", "right"])
        self.assertEqual(claim["status"]["allocation"]["devices"]["results"][0]["pool"], "node-2")

    def test_a_refused_claim_write_leaves_the_pod_unbound(self):
        self.cluster.devices()
        self.cluster.device_claim("gpu-claim", model="h100")
        refused = once(1000, lambda m, p, q: m == "PUT" and "/resourceclaims/" in p
                       and p.endswith("/status"),
                       {"status": 403, "reason": "Forbidden",
                        "message": "resourceclaims/status is forbidden: the test says no"})
        self.proxy.add_rule(refused)
        s = self.start_scheduler()
        self.cluster.claim_pod("trainer", "gpu-claim")
        self.assertTrue(wait_for(lambda: "binding the resource claims of pod default/trainer "
                                 "failed (claim default/gpu-claim: resourceclaims/status is "
                                 "forbidden: the test says no)" in s.text(), 20), s.text())
        time.sleep(1)  # later sessions try again, and are refused again
        self.assertFalse(self.cluster.placement().get("trainer"))
        self.assertEqual(self.proxy.binds["default/trainer"], 0)
        self.assertFalse(self.cluster.resource_claim("gpu-claim").get("status", {})
                         .get("allocation"))
        # Once the server takes the write, the pod is bound, in a later
        # session, with its claim allocated and reserved.
        self.proxy.clear_rules()
        self.assertTrue(wait_for(lambda: self.cluster.bound(["trainer"]), 30), s.text())
        self.assertEqual(self.cluster.placement()["trainer"], "node-2")
        self.assert_bound_once(["trainer"])
        status = self.cluster.resource_claim("gpu-claim")["status"]
        self.assertEqual([r["pool"] for r in status["allocation"]["devices"]["results"]],
                         ["node-2"])
        self.assertEqual([r["name"] for r in status["reservedFor"]], ["trainer"])

    def test_a_claim_allocated_elsewhere_meanwhile_is_not_written_over(self):
        # node-1 has 1 cpu, the pod asks 2: the session allocates node-2's
        # device. Between the session and the write, another scheduler binds
        # its own pod sharing the claim to node-1 and allocates node-1's
        # device: the proxy does that on the server when the writer reads
        # the claim, before passing the read on. The writer must not write
        # its allocation over the other one, nor bind; and the claim then
        # pins the pod to node-1, where it does not fit, so it stays unbound.
        self.cluster.devices(cpu=("1", "4"))
        self.cluster.device_claim("gpu-claim")
        claim_path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/gpu-claim"
        taken = threading.Event()
        writes = []

        def allocate_elsewhere(method, path, query, body):
            if path.startswith(claim_path) and method != "GET":
                writes.append((method, path))
            if method != "GET" or path != claim_path or taken.is_set():
                return None
            taken.set()
            theirs = self.cluster.claim_pod("theirs", "gpu-claim", node="node-1",
                                            scheduler="default-scheduler")
            self.cluster.allocate_claim("gpu-claim", "node-1", theirs)
            return None
        self.proxy.add_rule(allocate_elsewhere)
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        self.cluster.claim_pod("trainer", "gpu-claim", cpu="2")
        self.assertTrue(wait_for(lambda: "binding the resource claims of pod default/trainer "
                                 "failed (claim default/gpu-claim got allocated elsewhere in the "
                                 "meantime)" in s.text(), 20), s.text())
        time.sleep(1)  # later sessions see the claim on node-1
        self.assertFalse(self.cluster.placement().get("trainer"), s.text())
        self.assertEqual(self.proxy.binds["default/trainer"], 0)
        self.assertEqual(writes, [])
        status = self.cluster.resource_claim("gpu-claim")["status"]
        self.assertEqual([r["pool"] for r in status["allocation"]["devices"]["results"]],
                         ["node-1"])
        self.assertEqual([r["name"] for r in status["reservedFor"]], ["theirs"])

        # It waits for the claim's node, as kube-scheduler says it.
        def scheduled_message():
            conditions = self.cluster.core.read_namespaced_pod("trainer", "default") \
                .status.conditions or []
            return next((c.message for c in conditions if c.type == "PodScheduled"
                         and c.status == "False" and "resourceclaim" in (c.message or "")), None)
        self.assertEqual(wait_for(scheduled_message), "0/2 nodes are available: 1 Insufficient "
                         "cpu, 1 resourceclaim not available on the node.")

    def test_a_claim_allocated_before_only_gets_the_pod_reserved(self):
        # A claim another scheduler allocated on node-2 for its running pod:
        # the pod naming it goes to node-2 and is only added to reservedFor,
        # the claim itself (finalizer, allocation) left as it is.
        self.cluster.devices()
        self.cluster.device_claim("gpu-claim")
        theirs = self.cluster.claim_pod("theirs", "gpu-claim", node="node-2",
                                        scheduler="default-scheduler")
        self.cluster.allocate_claim("gpu-claim", "node-2", theirs)
        before = self.cluster.resource_claim("gpu-claim")
        order = []

        def record(method, path, query, body):
            if method in ("POST", "PUT", "PATCH"):
                order.append((method, path))
            return None
        self.proxy.add_rule(record)
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        uid = self.cluster.claim_pod("trainer", "gpu-claim").metadata.uid
        self.assertTrue(wait_for(lambda: self.cluster.bound(["trainer"]), 30), s.text())
        self.assertEqual(self.cluster.placement()["trainer"], "node-2")
        self.assert_bound_once(["trainer"])
        claim = self.cluster.resource_claim("gpu-claim")
        self.assertEqual(claim["status"]["allocation"], before["status"]["allocation"])
        self.assertEqual(claim["status"]["reservedFor"],
                         [{"resource": "pods", "name": "theirs", "uid": theirs.metadata.uid},
                          {"resource": "pods", "name": "trainer", "uid": uid}])
        self.assertEqual(claim["metadata"]["finalizers"], before["metadata"]["finalizers"])
        claim_path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/gpu-claim"
        writes = [w for w in order if w[1].startswith(claim_path) or w[1].endswith("/binding")]
        self.assertEqual(writes, [("PUT", claim_path + "/status"),
                                  ("POST", "/api/v1/namespaces/default/pods/trainer/binding")])

    def test_a_pods_conditions_land_in_the_order_sessions_wrote_them(self):
        # A pod's PodScheduled condition is written only when it changes, so
        # one that lands after a newer one would stay. The pods come before
        # their PodGroup: sessions first say it does not exist; each pod's
        # first write is held 2 s by the proxy while the PodGroup arrives and
        # later sessions write the conditions the test above expects.
        self.base_cluster(nodes=1)
        held = set()
        in_flight = threading.Event()

        def hold_first_write(method, path, query, body):
            pod = path.rsplit("/", 2)[-2] if path.endswith("/status") else ""
            if method != "PATCH" or not pod.startswith("big-") or pod in held:
                return None
            held.add(pod)
            in_flight.set()
            return {"delay": 2}
        self.proxy.add_rule(hold_first_write)
        s = self.start_scheduler()
        for i in range(3):
            self.cluster.pod(f"big-{i}", cpu="2", group="big")
        self.assertTrue(in_flight.wait(20), s.text())
        self.cluster.custom.create_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", "default", "podgroups",
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "big", "namespace": "default"},
             "spec": {"minMember": 3, "queue": "default"}})
        time.sleep(3)  # every held write has landed by now

        def conditions():
            out = []
            for name in ("big-0", "big-1", "big-2"):
                status = self.cluster.core.read_namespaced_pod(name, "default").status
                found = [(c.reason, c.message) for c in
                         ((status and status.conditions) or []) if c.type == "PodScheduled"]
                out.append(found[0] if found else None)
            return out

        def settled():
            got = conditions()
            return got if [c and c[0] for c in got].count("Schedulable") == 2 else None
        self.assertIsNotNone(wait_for(settled), (conditions(), s.text()))
        got = conditions()
        self.assertEqual(sorted(c[0] for c in got), ["Schedulable", "Schedulable", "Unschedulable"],
                         got)
        self.assertNotIn("does not exist", json.dumps(got))
        self.assertIn("3 minAvailable; Pending: 1 Unschedulable, 2 Schedulable",
                      [c for c in got if c[0] == "Unschedulable"][0][1])

    def test_pods_of_other_schedulers_occupy_their_nodes_and_are_not_placed(self):
        self.base_cluster(nodes=1)
        self.cluster.pod("theirs-running", cpu="3", node="node-0", scheduler="default-scheduler")
        self.cluster.pod("theirs-pending", cpu="1", scheduler="default-scheduler")
        s = self.start_scheduler()
        self.cluster.gang("mine", 1, cpu="2")
        self.cluster.gang("fits", 1, cpu="1")
        self.assertTrue(wait_for(lambda: self.cluster.bound(["fits-0"])), s.text())
        time.sleep(1)
        where = self.cluster.placement()
        self.assertIsNone(where["mine-0"])  # 3 of 4 cpu taken by their pod
        self.assertIsNone(where["theirs-pending"])

    def test_namespace_labels_reach_a_namespace_selector_and_follow_changes(self):
        self.cluster.hostname_nodes(2)
        self.cluster.core.create_namespace({"apiVersion": "v1", "kind": "Namespace",
                                            "metadata": {"name": "data",
                                                         "labels": {"team": "data"}}})
        self.cluster.core.create_namespaced_pod("data", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "cache-0", "namespace": "data", "labels": {"app": "cache"}},
            "spec": {"schedulerName": "default-scheduler", "nodeName": "node-1",
                     "containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Running"}})

        def near_cache(name):
            self.cluster.core.create_namespaced_pod("default", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"schedulerName": SCHEDULER, "affinity": {"podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{
                        "labelSelector": {"matchLabels": {"app": "cache"}},
                        "namespaceSelector": {"matchLabels": {"team": "data"}},
                        "topologyKey": "kubernetes.io/hostname"}]}},
                    "containers": [{"name": "c", "image": "busybox",
                                    "resources": {"requests": {"cpu": "1"}}}]}})

        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        # Only through namespace data's label does cache-0 count: default has none.
        near_cache("first")
        self.assertTrue(wait_for(lambda: self.cluster.bound(["first"])), s.text())
        self.assertEqual(self.cluster.placement()["first"], "node-1")
        # The label goes: the watch on Namespaces carries it, and the next pod
        # has no namespace to look in.
        self.cluster.core.patch_namespace("data", {"metadata": {"labels": {"team": "other"}}})
        self.assertTrue(wait_for(lambda: self.cluster.core.read_namespace("data")
                                 .metadata.labels.get("team") == "other"))
        time.sleep(0.5)  # five sessions: the cache has the change
        near_cache("second")
        time.sleep(1)
        self.assertIsNone(self.cluster.placement()["second"], s.text())

    def test_a_rotated_token_file_is_read_again(self):
        self.base_cluster()
        token = os.path.join(self.work, "token")
        with open(token, "w") as f:
            f.write("first-token\n")
        self.proxy.token = "first-token"
        path = kubeconfig(os.path.join(self.work, "kubeconfig"),
                          f"http://127.0.0.1:{self.proxy.port}", extra_user={"tokenFile": token})
        s = ScoriaServe(SCORIA, self.work, "scheduler", CONFIG, "--source", "kubernetes",
                        "--kubeconfig", path, "--scheduler-name", SCHEDULER)
        self.schedulers.append(s)
        self.cluster.gang("a", 1)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["a-0"])), s.text())
        # Rotated as the kubelet rotates projected tokens: a new file moved
        # over the old one.
        with open(token + ".new", "w") as f:
            f.write("second-token\n")
        os.replace(token + ".new", token)
        self.proxy.token = "second-token"
        self.cluster.gang("b", 1)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["b-0"]), 30), s.text())

    def batch_on_one_node(self):
        """node-a (6 cpu) runs batch-p10 .. batch-p40 (1 cpu each, their
        priority in their name) of a low-priority PodGroup; PriorityClass
        high is there for a preemptor. Returns the scheduler, started with
        the preempting config."""
        cluster = self.cluster
        cluster.node("node-a", "6")
        cluster.queue()
        for name, value in (("high", 100000), ("low", 10)):
            cluster.sched.create_priority_class({"apiVersion": "scheduling.k8s.io/v1",
                                                 "kind": "PriorityClass",
                                                 "metadata": {"name": name}, "value": value})
        cluster.custom.create_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", "default", "podgroups",
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "batch", "namespace": "default"},
             "spec": {"minMember": 1, "priorityClassName": "low"}})
        for p in (10, 20, 30, 40):
            cluster.pod(f"batch-p{p}", cpu="1", group="batch", node="node-a", priority=p)
        config = os.path.join(SOURCE, "tests/scenarios/preempt-lowest-victims-only/scheduler.toml")
        return self.start_scheduler("scheduler", config=config)

    def test_preemption_evicts_through_the_eviction_subresource(self):
        cluster = self.cluster
        s = self.batch_on_one_node()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        cluster.gang("urgent", 1, cpu="4", priority_class="high")
        self.assertTrue(wait_for(lambda: cluster.bound(["urgent-0"]), 30), s.text())
        left = sorted(n for n in cluster.placement() if n.startswith("batch"))
        # 2 cpu idle, 4 needed: the two lowest-priority pods go.
        self.assertEqual(left, ["batch-p30", "batch-p40"], s.text())
        self.assertIn(("create", "pods/eviction", ""), self.proxy.verbs)

    def test_a_preemptor_is_bound_only_once_its_victims_have_gone(self):
        # The victims release the node until the API server has deleted
        # them, as Volcano's cache marks an evicted pod Releasing: a session
        # that took them for gone would bind the preemptor onto a node they
        # still hold (the kubelet would refuse it: OutOfcpu). Each eviction
        # is held 2 s by the proxy; twenty sessions run meanwhile.
        cluster = self.cluster
        evicting = threading.Event()

        def hold_evictions(method, path, query, body):
            if method != "POST" or not path.endswith("/eviction"):
                return None
            evicting.set()
            return {"delay": 2}
        self.proxy.add_rule(hold_evictions)
        s = self.batch_on_one_node()
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        cluster.gang("urgent", 1, cpu="4", priority_class="high")
        self.assertTrue(evicting.wait(20), s.text())
        time.sleep(1.5)
        where = cluster.placement()
        self.assertIsNone(where["urgent-0"], s.text())
        self.assertIn("batch-p10", where)
        self.assertTrue(wait_for(lambda: cluster.bound(["urgent-0"]), 30), s.text())
        left = sorted(n for n in cluster.placement() if n.startswith("batch"))
        self.assertEqual(left, ["batch-p30", "batch-p40"], s.text())


class Quotas(KubeSourceCase):
    """ResourceQuotas reach the enqueue gate. The API server runs the same
    config, so that its own enqueue does not admit what the quota holds back;
    only the scheduler under test binds the pod, and only once the quota
    allows it."""

    apiserver_config = os.path.join(
        SOURCE, "tests/scenarios/resourcequota-enqueued-jobs-share-quota/scheduler.toml")

    def test_a_resource_quota_and_its_changes_reach_the_enqueue_gate(self):
        cluster = self.cluster
        self.base_cluster(nodes=1)
        # As the quota controller writes it: status.hard of cpu 1.
        cluster.core.create_namespaced_resource_quota("ml", {
            "apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "compute", "namespace": "ml"},
            "spec": {"hard": {"cpu": "1"}}, "status": {"hard": {"cpu": "1"}}})
        s = self.start_scheduler("scheduler", config=self.apiserver_config)
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        cluster.custom.create_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", "ml", "podgroups",
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "big", "namespace": "ml"},
             "spec": {"minMember": 1, "queue": "default", "minResources": {"cpu": "2"}}})
        cluster.pod("big-0", cpu="2", group="big", ns="ml")

        def refused():
            for c in cluster.pod_group("big", "ml").get("status", {}).get("conditions") or []:
                if "resource quota insufficient" in c.get("message", ""):
                    return c["message"]
            return None
        message = wait_for(refused)
        self.assertIsNotNone(message, s.text())
        self.assertIn("requested: cpu=2, used: cpu=0, limited: cpu=1 (ResourceQuota ml/compute)",
                      message)
        self.assertFalse(cluster.bound(["big-0"], ns="ml"))
        # Another writer (a person, a controller) clears the condition: the
        # scheduler's next session writes it again, as Volcano writes when
        # its decision differs from its informer's copy.
        cluster.custom.patch_namespaced_custom_object_status(
            "scheduling.volcano.sh", "v1beta1", "ml", "podgroups", "big",
            {"status": {"conditions": None}})
        self.assertIsNotNone(wait_for(refused), s.text())
        # Raised through the status subresource: the watch carries it. The
        # watch opens after the list, and may open late on a loaded machine;
        # the API server's own enqueue could otherwise admit the group first.
        self.assertTrue(wait_for(
            lambda: ("watch", "resourcequotas", "") in self.proxy.verbs, 30), s.text())
        cluster.core.patch_namespaced_resource_quota_status(
            "compute", "ml", {"status": {"hard": {"cpu": "4"}}})
        self.assertTrue(wait_for(lambda: cluster.bound(["big-0"], ns="ml"), 30), s.text())
        self.assertIn(("list", "resourcequotas", ""), self.proxy.verbs)


class Faults(KubeSourceCase):
    def run_gangs(self, s, names, size=2, cpu="1", seconds=60):
        for n in names:
            self.cluster.gang(n, size, cpu=cpu)
        pods = [f"{n}-{i}" for n in names for i in range(size)]
        self.assertTrue(wait_for(lambda: self.cluster.bound(pods), seconds),
                        f"{self.cluster.placement()}\n{s.text()}")
        self.assert_bound_once(pods)
        return pods

    def test_410_in_the_middle_of_a_watch_relists_and_goes_on(self):
        self.base_cluster()
        self.proxy.add_rule(once(1, is_watch("pods"), {"gone_after": 1}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a", "b", "c"])
        lists = [v for v in self.proxy.verbs if v[:2] == ("list", "pods")]
        self.assertTrue(lists)

    def test_a_server_answering_every_watch_410_is_relisted_with_backoff(self):
        # A watch that expires relists at once; a server that answers 410 to
        # every fresh watch was relisted in a busy loop (a log line each).
        # Now the relists back off, and scheduling goes on once the server
        # behaves.
        self.base_cluster()
        lists = []

        def count_lists(method, path, query, body):
            if method == "GET" and path.endswith("/pods") and "watch=" not in query:
                lists.append(time.monotonic())
            return None
        self.proxy.add_rule(count_lists)
        # As kube-apiserver says it: an ERROR event with code 410, first thing.
        self.proxy.add_rule(lambda m, p, q, b: {"gone_after": 0}
                            if is_watch("pods")(m, p, q) else None)
        s = self.start_scheduler()
        time.sleep(6)
        self.assertGreaterEqual(len(lists), 2, s.text())
        self.assertLessEqual(len(lists), 10, s.text())
        self.assertLessEqual(s.text().count("pods: listed"), 10)
        self.assertIn("pods: every watch is answered 410 Gone right after its list; "
                      "retrying with backoff", s.text())
        self.proxy.clear_rules()
        self.run_gangs(s, ["a"])

    def test_a_list_nested_past_any_object_is_refused_and_listed_again(self):
        # A hostile or broken server: a list whose item nests 60,000 deep
        # crashed the source. It is refused as not a Kubernetes list, and
        # the next list schedules.
        self.base_cluster()
        deep = b"[" * 60000 + b"]" * 60000

        def nest(data):
            return (b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},'
                    b'"items":[' + deep + b"]}")
        self.proxy.add_rule(once(1, is_list("pods"), {"inject": nest}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a"])
        self.assertIn("pods: the list of pods nests deeper than 128 levels; no Kubernetes object "
                      "does; retrying with backoff", s.text())

    def test_a_continue_token_given_twice_is_refused_and_listed_again(self):
        # A server whose pages never end (the same continue token again and
        # again) kept the source listing forever, its memory growing.
        self.base_cluster()

        def endless(data):
            page = json.loads(data)
            page.setdefault("metadata", {})["continue"] = "again"
            return json.dumps(page).encode()
        self.proxy.add_rule(lambda m, p, q, b: {"inject": endless}
                            if is_list("pods")(m, p, q) else None)
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: "a second time" in s.text(), 20), s.text())
        self.assertIn("pods: the server answered the continue token \"again\" a second time; "
                      "retrying with backoff", s.text())
        self.proxy.clear_rules()
        self.run_gangs(s, ["a"])

    def test_an_error_answer_to_a_watch_is_read_and_logged(self):
        # The server's Status says why a watch was refused (RBAC, a bad
        # version): it was read as "body limit exceeded" instead.
        self.base_cluster()
        self.proxy.add_rule(once(2, is_watch("pods"),
                                 {"status": 403, "reason": "Forbidden",
                                  "message": "pods is forbidden: the test says no"}))
        s = self.start_scheduler()
        self.assertTrue(wait_for(lambda: "the test says no" in s.text(), 20), s.text())
        self.assertNotIn("body limit exceeded", s.text())
        self.run_gangs(s, ["a"])

    def test_a_cluster_without_the_optional_volcano_crds_still_schedules(self):
        # Volcano before 1.12 has no HyperNode CRD, and Numatopology comes
        # with its resource exporter: their lists answer 404 for good.
        self.base_cluster()
        for plural in ("hypernodes", "numatopologies"):
            self.proxy.add_rule(once(10 ** 6, lambda m, p, q, plural=plural: p.endswith(
                "/" + plural), {"status": 404, "reason": "NotFound",
                               "message": "the server could not find the requested resource"}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a", "b"])
        self.assertIn("hypernodes: the API server has no such resource", s.text())

    def test_a_server_without_dynamic_resource_allocation_still_schedules(self):
        # Kubernetes before 1.34 (or with the group disabled) does not serve
        # resource.k8s.io/v1: every list of its four kinds answers 404. The
        # source says so once for the group and goes on without them.
        self.base_cluster()
        self.proxy.add_rule(once(10 ** 6, lambda m, p, q: p.startswith(
            "/apis/resource.k8s.io/v1/"), {"status": 404, "reason": "NotFound",
                                           "message": "the server could not find the requested "
                                                      "resource"}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a", "b"])
        said = [line for line in s.text().splitlines()
                if "does not serve Dynamic Resource Allocation" in line]
        self.assertEqual(len(said), 1, s.text())
        self.assertIn("resource.k8s.io/v1: the API server does not serve Dynamic Resource "
                      "Allocation", said[0])
        self.assertNotIn("resourceclaims: the API server has no such resource", s.text())

    def test_a_server_without_the_workload_api_still_schedules(self):
        # Kubernetes before 1.37 does not serve scheduling.k8s.io/v1beta1:
        # its PodGroups answer 404. The source says so once and goes on.
        self.base_cluster()
        self.proxy.add_rule(once(10 ** 6, lambda m, p, q: p.startswith(
            "/apis/scheduling.k8s.io/v1beta1/"), {"status": 404, "reason": "NotFound",
                                                  "message": "the server could not find the "
                                                             "requested resource"}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a", "b"])
        said = [line for line in s.text().splitlines()
                if "does not serve the Workload API's PodGroups" in line]
        self.assertEqual(len(said), 1, s.text())
        self.assertIn("scheduling.k8s.io/v1beta1: the API server does not serve", said[0])

    def test_a_watch_cut_mid_stream_is_resumed(self):
        self.base_cluster()
        self.proxy.add_rule(once(2, is_watch("pods"), {"cut_after": 1}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a", "b", "c"])

    def test_409_on_bind_takes_the_pod_as_the_server_has_it(self):
        self.base_cluster()
        self.proxy.add_rule(once(1, is_bind("a-0"), {"steal": "node-1"}))
        s = self.start_scheduler()
        self.cluster.gang("a", 2)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["a-0", "a-1"]), 30), s.text())
        time.sleep(1)
        self.assertEqual(self.cluster.placement()["a-0"], "node-1")  # where the other put it
        self.assertEqual(self.proxy.binds["default/a-0"], 0)
        self.assertEqual(self.proxy.binds["stolen:default/a-0"], 1)
        self.assertEqual(self.proxy.binds["default/a-1"], 1)
        self.assertIn(("default/a-0", 409), self.proxy.bind_answers)
        # Scheduling goes on.
        self.run_gangs(s, ["b"])

    def test_a_bind_that_fails_and_cannot_be_read_back_is_tried_again(self):
        self.base_cluster()
        # Every try of the writer fails, and so does reading the pod back:
        # only undoing the bind in the cache lets a later session retry it.
        self.proxy.add_rule(once(5, is_bind("a-0"), {"status": 500}))
        self.proxy.add_rule(once(5, lambda m, p, q: m == "GET" and p.endswith("/pods/a-0"),
                                 {"status": 500}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a"], size=1)
        self.assertEqual(sum(1 for pod, st in self.proxy.bind_answers
                             if pod == "default/a-0" and st == 500), 5)

    def test_429_with_retry_after_is_waited_out(self):
        self.base_cluster()
        self.proxy.add_rule(once(3, is_bind(), {"status": 429, "reason": "TooManyRequests",
                                                "headers": {"Retry-After": "1"}}))
        s = self.start_scheduler()
        self.run_gangs(s, ["a", "b"])
        self.assertEqual(sum(1 for _, st in self.proxy.bind_answers if st == 429), 3)

    def test_500s_everywhere_lose_nothing_and_bind_nothing_twice(self):
        self.base_cluster()
        anything = lambda m, p, q: p.startswith("/api")  # noqa: E731
        self.proxy.add_rule(sometimes(0.3, 7, anything, {"status": 500}, limit=15))
        s = self.start_scheduler()
        # Which request draws which failure depends on timing: under load
        # seven can fall on one list in a row, whose backoff (0.8 s doubling
        # to 30 s, as client-go's) then waits out about 80 s alone.
        self.run_gangs(s, ["a", "b", "c", "d"], seconds=180)

    def test_a_slow_server_is_waited_for(self):
        self.base_cluster()
        self.proxy.add_rule(once(1, is_list("nodes"), {"delay": 2}))
        self.proxy.add_rule(once(2, is_bind(), {"delay": 2}))
        s = self.start_scheduler()
        self.assertEqual(s.get("/readyz")[0], 503)
        self.assertIn("waiting for the first list", s.get("/readyz")[1])
        self.run_gangs(s, ["a", "b"])

    def test_an_object_that_does_not_decode_is_logged_once_and_skipped(self):
        self.base_cluster()

        def bad_pod(data):
            page = json.loads(data)
            page["items"].append({"metadata": {"name": "broken", "namespace": "default",
                                               "resourceVersion": "1"},
                                  "spec": {"schedulerName": SCHEDULER, "containers": [
                                      {"name": "c", "resources": {"requests": {"cpu": "12xyz"}}}]}})
            return json.dumps(page).encode()
        self.proxy.add_rule(lambda m, p, q, b: {"inject": bad_pod}
                            if is_list("pods")(m, p, q) else None)
        self.proxy.add_rule(once(2, is_watch("pods"), {"gone_after": 0}))  # relist twice
        s = self.start_scheduler()
        self.run_gangs(s, ["a"])
        log = s.text()
        skipped = [line for line in log.splitlines() if "cannot be read and is skipped" in line]
        self.assertEqual(len(skipped), 1, log)
        self.assertIn("Pod default/broken", skipped[0])
        self.assertGreaterEqual(log.count("list") + 3, 3)
        self.assertIn("12xyz", log)

    def test_a_pod_group_naming_a_missing_queue_waits_and_others_schedule(self):
        self.base_cluster()
        # Admission refuses a PodGroup naming a missing queue; deleting the
        # queue afterwards is allowed, and leaves it naming one.
        self.cluster.queue("doomed")
        self.cluster.custom.delete_cluster_custom_object(
            "scheduling.volcano.sh", "v1beta1", "queues", "default")
        self.cluster.queue("default")
        self.cluster.custom.create_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", "default", "podgroups",
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "lost"}, "spec": {"minMember": 1, "queue": "doomed"}})
        self.cluster.custom.delete_cluster_custom_object(
            "scheduling.volcano.sh", "v1beta1", "queues", "doomed")
        self.cluster.pod("lost-0", group="lost")
        s = self.start_scheduler()
        self.run_gangs(s, ["a"])
        self.assertIsNone(self.cluster.placement()["lost-0"])


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1 and a client certificate
    signed by it, and a second CA that signed neither."""
    os.makedirs(d, exist_ok=True)
    p = lambda n: os.path.join(d, n)  # noqa: E731
    for ca in ("ca", "other-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", f"/CN={ca}", "-keyout", p(f"{ca}.key"), "-out", p(f"{ca}.crt"))
    with open(p("san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    for who, cn in (("server", "127.0.0.1"), ("client", "scoria-scheduler")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}",
                "-keyout", p(f"{who}.key"), "-out", p(f"{who}.csr"))
        extra = ["-extfile", p("san.cnf")] if who == "server" else []
        openssl("x509", "-req", "-in", p(f"{who}.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"),
                "-CAcreateserial", "-days", "2", "-out", p(f"{who}.crt"), *extra)
    return p


PKI = make_pki(os.path.join(WORK, "pki"))


class Shards(KubeSourceCase):
    """Volcano's node shards: instances that each schedule on the nodes of
    their shard.volcano.sh NodeShard and report them in its status."""

    def setUp(self):
        super().setUp()
        for i in range(4):
            self.cluster.node(f"node-{i}", "4")
        self.cluster.queue()

    def node_shard(self, name, nodes):
        self.cluster.custom.create_cluster_custom_object(
            "shard.volcano.sh", "v1alpha1", "nodeshards",
            {"apiVersion": "shard.volcano.sh/v1alpha1", "kind": "NodeShard",
             "metadata": {"name": name}, "spec": {"nodesDesired": nodes}})

    def shard_status(self, name):
        return self.cluster.custom.get_cluster_custom_object(
            "shard.volcano.sh", "v1alpha1", "nodeshards", name).get("status", {})

    def cpu_by_node(self):
        used = {}
        for p in self.cluster.core.list_namespaced_pod("default").items:
            if p.spec.node_name:
                cpu = int(p.spec.containers[0].resources.requests["cpu"])
                used[p.spec.node_name] = used.get(p.spec.node_name, 0) + cpu
        return used

    def test_an_instance_binds_only_on_its_shards_nodes_and_reports_them(self):
        self.node_shard("left", ["node-0", "node-1"])
        s = self.start_scheduler("left", "--shard-name", "left")
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        for i in range(4):
            self.cluster.pod(f"p-{i}", cpu="3")
        self.assertTrue(wait_for(lambda: sum(map(bool, self.cluster.placement().values())) == 2),
                        s.text())
        time.sleep(1)  # more sessions: still nothing outside the shard
        self.assertEqual(sorted(n for n in self.cluster.placement().values() if n),
                         ["node-0", "node-1"])
        self.assertTrue(wait_for(lambda: self.shard_status("left").get("nodesInUse") ==
                                 ["node-0", "node-1"]), s.text())
        self.assertEqual(self.shard_status("left").get("nodesToAdd"), [])
        # The pods left over wait, saying why (Volcano's words).
        def why(name):
            status = self.cluster.core.read_namespaced_pod(name, "default").status
            return [c.message for c in (status and status.conditions) or []
                    if c.type == "PodScheduled" and c.status == "False"]
        waiting = [p for p, n in self.cluster.placement().items() if not n]
        self.assertTrue(wait_for(lambda: all(
            any("2 node isn't in scheduler node shard" in m for m in why(p)) for p in waiting)),
                        [why(p) for p in waiting])
        # kubectl reads them (short name nsh).
        out = subprocess.run(["kubectl", "--server", f"http://127.0.0.1:{self.apiserver.port}",
                              "get", "nsh"], capture_output=True, text=True, check=True).stdout
        self.assertIn("left", out)

    def test_two_instances_split_the_nodes_and_never_overfill_one(self):
        # Both see every pod, and both try to bind each on their own nodes:
        # the API server takes one binding per pod (409 for the other).
        self.node_shard("left", ["node-0", "node-1"])
        self.node_shard("right", ["node-2", "node-3"])
        left = self.start_scheduler("left", "--shard-name", "left")
        right = self.start_scheduler("right", "--shard-name", "right")
        for s in (left, right):
            self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        pods = [f"p-{i}" for i in range(6)]
        for p in pods:
            self.cluster.pod(p, cpu="3")
        self.assertTrue(wait_for(lambda: sorted(n for n in self.cluster.placement().values()
                                                if n) ==
                                 ["node-0", "node-1", "node-2", "node-3"], 30),
                        left.text() + right.text())
        time.sleep(1)
        for node, cpu in self.cpu_by_node().items():
            self.assertLessEqual(cpu, 4, node)
        for p, node in self.cluster.placement().items():
            if node:
                self.assertEqual(self.proxy.binds[f"default/{p}"], 1, p)
        self.assertTrue(wait_for(lambda: self.shard_status("left").get("nodesInUse") ==
                                 ["node-0", "node-1"] and
                                 self.shard_status("right").get("nodesInUse") ==
                                 ["node-2", "node-3"]), left.text() + right.text())

    def test_a_node_the_other_shard_has_in_use_is_left_to_it(self):
        # node-1 moves from right's shard to left's; right still reports it
        # in use, so left leaves it alone until right lets it go.
        self.node_shard("right", ["node-1", "node-2"])
        right = self.start_scheduler("right", "--shard-name", "right")
        self.assertTrue(wait_for(lambda: self.shard_status("right").get("nodesInUse") ==
                                 ["node-1", "node-2"]), right.text())
        right.stop()
        self.schedulers.remove(right)
        self.node_shard("left", ["node-0", "node-1"])
        left = self.start_scheduler("left", "--shard-name", "left")
        self.assertTrue(wait_for(lambda: self.shard_status("left").get("nodesToAdd") ==
                                 ["node-1"]), left.text())
        self.assertEqual(self.shard_status("left").get("nodesInUse"), ["node-0"])
        for i in range(2):
            self.cluster.pod(f"p-{i}", cpu="3")
        self.assertTrue(wait_for(lambda: self.cluster.placement().get("p-0") or
                                 self.cluster.placement().get("p-1")), left.text())
        time.sleep(1)
        self.assertEqual(sorted(n for n in self.cluster.placement().values() if n), ["node-0"])


GATE = "scheduling.volcano.sh/queue-allocation-gate"
QUEUE_ADMISSION = ("--feature-gates", "SchedulingGatesQueueAdmission=true")
CAPACITY_CONFIG = """actions = ["enqueue", "allocate"]
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }]
[[tiers]]
plugins = [{ name = "predicates" }, { name = "capacity" }, { name = "nodeorder" }]
"""


class QueueGates(KubeSourceCase):
    """Volcano's SchedulingGatesQueueAdmission: the API server's admission
    gates the pods that opt in, as Volcano's webhook does; the scheduler
    lifts a gate with a strategic-merge patch once the pod's queue has room,
    and never marks a gated pod Unschedulable."""

    apiserver_extra = QUEUE_ADMISSION

    def setUp(self):
        super().setUp()
        self.cluster.node("node-0", "8")
        self.cluster.custom.create_cluster_custom_object(
            "scheduling.volcano.sh", "v1beta1", "queues",
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
             "metadata": {"name": "quota"},
             "spec": {"weight": 1, "capability": {"cpu": "2", "memory": "8Gi"}}})
        self.config = os.path.join(self.work, "capacity.toml")
        with open(self.config, "w") as f:
            f.write(CAPACITY_CONFIG)

    def gated_pod(self, name):
        self.cluster.core.create_namespaced_pod("default", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {
                GATE: "true", "scheduling.volcano.sh/queue-name": "quota"}},
            "spec": {"schedulerName": SCHEDULER, "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "1"}}}]}})

    def read(self, name):
        # As JSON: this client's models predate spec.schedulingGates.
        answer = self.cluster.core.read_namespaced_pod(name, "default", _preload_content=False)
        return json.loads(answer.data)

    def gates(self, name):
        return [g["name"] for g in self.read(name)["spec"].get("schedulingGates", [])]

    def unschedulable(self, name):
        return [c for c in self.read(name).get("status", {}).get("conditions", [])
                if c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"]

    def test_a_gate_is_lifted_once_the_queue_has_room(self):
        for i in range(3):
            self.gated_pod(f"g-{i}")
        # Admission gated each, as Volcano's webhook does.
        for i in range(3):
            self.assertEqual(self.gates(f"g-{i}"), [GATE])
        s = self.start_scheduler("scheduler", *QUEUE_ADMISSION, config=self.config)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["g-0", "g-1"]), 20), s.text())
        time.sleep(1)  # more sessions: the queue is full, g-2 keeps its gate
        self.assertEqual(self.gates("g-0"), [])
        self.assertEqual(self.gates("g-2"), [GATE])
        self.assertFalse(self.cluster.placement()["g-2"])
        self.assertEqual(self.unschedulable("g-2"), [])
        self.assertIn(("patch", "pods", ""), self.proxy.verbs)
        # Room appears: g-2's gate goes, and it is bound.
        self.cluster.core.delete_namespaced_pod("g-0", "default", grace_period_seconds=0)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["g-2"]), 20), s.text())
        self.assertEqual(self.gates("g-2"), [])

    def test_a_refused_removal_leaves_the_gate_and_a_later_session_lifts_it(self):
        self.gated_pod("g-0")
        # Refused as a real server refuses (not retried within the write).
        self.proxy.add_rule(once(1, lambda m, p, q: m == "PATCH" and p.endswith("/pods/g-0"),
                                 {"status": 403}))
        s = self.start_scheduler("scheduler", *QUEUE_ADMISSION, config=self.config)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["g-0"]), 20), s.text())
        self.assertEqual(self.gates("g-0"), [])
        self.assertIn("the queue-allocation gate of pod default/g-0 was not removed", s.text())


class Https(KubeSourceCase):
    proxy_tls = {"cert": PKI("server.crt"), "key": PKI("server.key"), "ca": PKI("ca.crt")}

    def scheduler_with(self, ca, cert=True):
        server = f"https://127.0.0.1:{self.proxy.port}"
        path = kubeconfig(os.path.join(self.work, "kubeconfig"), server, ca=ca,
                          cert=PKI("client.crt") if cert else None,
                          key=PKI("client.key") if cert else None)
        s = ScoriaServe(SCORIA, self.work, "scheduler", CONFIG, "--source", "kubernetes",
                        "--kubeconfig", path, "--scheduler-name", SCHEDULER)
        self.schedulers.append(s)
        return s

    def test_ca_and_client_certificate_schedule(self):
        self.base_cluster()
        s = self.scheduler_with(PKI("ca.crt"))
        self.cluster.gang("a", 2)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["a-0", "a-1"]), 30), s.text())

    def test_a_wrong_ca_is_refused_with_a_clear_message(self):
        self.base_cluster()
        s = self.scheduler_with(PKI("other-ca.crt"))
        self.assertTrue(wait_for(lambda: "certificate verify failed" in s.text(), 15), s.text())
        self.assertIn("check the CA", s.text())
        status, body = s.get("/readyz")
        self.assertEqual(status, 503)
        self.assertIn("waiting for the first list", body)

    def test_no_client_certificate_is_refused_by_the_server(self):
        self.base_cluster()
        s = self.scheduler_with(PKI("ca.crt"), cert=False)
        self.assertTrue(wait_for(lambda: "retrying with backoff" in s.text(), 15), s.text())
        self.assertEqual(s.get("/readyz")[0], 503)


class ChoosesItsSource(KubeSourceCase):
    """Without --source, Scoria finds the API server where Volcano would."""

    def test_a_volcano_deployments_arguments_schedule_the_cluster(self):
        # The argument list of Volcano's Helm chart for vc-scheduler (no
        # --source; --scheduler-conf is the config ScoriaServe passes), with
        # --master standing in for the pod's service account.
        self.base_cluster()
        helm = ["--logtostderr", f"--scheduler-name={SCHEDULER}", "--enable-healthz=true",
                "--enable-metrics=true", "--leader-elect=false", "--kube-api-qps=2000",
                "--kube-api-burst=2000", "--node-worker-threads=20",
                "--percentage-nodes-to-find=100", "-v=3", "2>&1"]
        s = ScoriaServe(SCORIA, self.work, "scheduler", CONFIG, *helm,
                        "--master", f"http://127.0.0.1:{self.proxy.port}")
        self.schedulers.append(s)
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        self.assertIn("source: kubernetes (--master was given)", s.text())
        self.cluster.gang("train", 2, cpu="3")
        self.assertTrue(wait_for(lambda: self.cluster.bound(["train-0", "train-1"])), s.text())

    def test_source_local_keeps_the_local_store(self):
        self.base_cluster()
        s = ScoriaServe(SCORIA, self.work, "scheduler", CONFIG, "--source", "local",
                        "--master", f"http://127.0.0.1:{self.proxy.port}",
                        "--scheduler-name", SCHEDULER)
        self.schedulers.append(s)
        self.assertTrue(wait_for(lambda: s.get("/readyz")[0] == 200), s.text())
        self.cluster.gang("train", 1, cpu="1")
        time.sleep(1.5)
        self.assertFalse(self.cluster.bound(["train-0"]), s.text())
        self.assertIn("apply to --source kubernetes", s.text())


class ChoosesKubernetesInAPod(unittest.TestCase):
    def test_a_pods_environment_makes_the_source_kubernetes(self):
        # KUBERNETES_SERVICE_HOST/PORT, as the kubelet sets them in every
        # pod. Where this machine has no service account the start fails
        # naming it; where it has one, serve starts against the address.
        env = dict(os.environ, KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT="9")
        state = os.path.join(WORK, "in-pod-state")
        p = subprocess.Popen([SCORIA, "serve", "--config", CONFIG, "--state-dir", state,
                              "--port", "0"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        try:
            out, _ = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            p.terminate()
            out, _ = p.communicate(timeout=30)
        self.assertIn("source: kubernetes (running in a pod: KUBERNETES_SERVICE_HOST is set)", out)
        if p.returncode == 2:
            self.assertIn("service account", out)


class BadKubeconfig(unittest.TestCase):
    def refused(self, *args):
        r = subprocess.run([SCORIA, "serve", "--config", CONFIG, "--source", "kubernetes",
                            "--state-dir", os.path.join(WORK, "bad-state"), "--port", "0", *args],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2, r.stderr)
        return r.stderr

    def test_a_missing_file_names_the_path(self):
        err = self.refused("--kubeconfig", os.path.join(WORK, "no-such-kubeconfig"))
        self.assertIn("no-such-kubeconfig", err)

    def test_a_file_that_does_not_parse_names_the_place(self):
        path = os.path.join(WORK, "broken-kubeconfig")
        with open(path, "w") as f:
            f.write("apiVersion: v1\nclusters: [\n")
        err = self.refused("--kubeconfig", path)
        self.assertIn("broken-kubeconfig", err)
        self.assertIn("line", err)

    def test_an_exec_plugin_is_refused_saying_so(self):
        path = kubeconfig(os.path.join(WORK, "exec-kubeconfig"), "https://127.0.0.1:1",
                          extra_user={"exec": {"command": "aws"}})
        err = self.refused("--kubeconfig", path)
        self.assertIn("users[u].user.exec", err)
        self.assertIn("exec credential plugins are not supported", err)

    def test_a_missing_context_lists_the_ones_there(self):
        path = kubeconfig(os.path.join(WORK, "ctx-kubeconfig"), "https://127.0.0.1:1")
        err = self.refused("--kubeconfig", path, "--context", "nope")
        self.assertIn("\"ctx\"", err)


class LeaderElection(KubeSourceCase):
    FLAGS = ("--leader-elect", "--leader-elect-resource-namespace", "default",
             "--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
             "--leader-elect-retry-period", "500ms")

    def leader(self, candidates):
        leading = [c for c in candidates if c.proc.poll() is None
                   and c.metric("leader_election_master_status") == 1.0]
        return leading[0] if len(leading) == 1 else None

    def test_one_leads_and_a_standby_takes_over_after_kill_9(self):
        self.base_cluster(nodes=2, cpu="8")
        one = self.start_scheduler("one", *self.FLAGS)
        two = self.start_scheduler("two", *self.FLAGS)
        leader = wait_for(lambda: self.leader([one, two]), 15)
        self.assertIsNotNone(leader, one.text() + two.text())
        standby = two if leader is one else one
        self.assertTrue(wait_for(lambda: standby.metric("leader_election_master_status") == 0.0))
        self.cluster.gang("first", 2)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["first-0", "first-1"]), 20))
        self.assertEqual(standby.metric("scoria_sessions_total"), 0.0)
        leader.kill()
        killed = time.time()
        self.cluster.gang("second", 2)
        self.assertTrue(wait_for(lambda: self.cluster.bound(["second-0", "second-1"]), 30),
                        standby.text())
        taken_over = time.time() - killed
        self.assertEqual(self.leader([standby]), standby)
        self.assert_bound_once(["first-0", "first-1", "second-0", "second-1"])
        print(f"standby bound the second gang {taken_over:.1f}s after the leader was killed",
              file=sys.stderr)


class WatchBookmarks(unittest.TestCase):
    """The API server's bookmarks, which the source's reflectors resume from."""

    def test_a_watch_that_allows_bookmarks_gets_the_version_others_moved_to(self):
        import http.client
        server = ScoriaServe(SCORIA, WORK, "bookmarks", CONFIG, *API_SERVER_ARGS,
                             "--watch-bookmark-interval", "200ms", "--schedule-period", "100")
        try:
            cluster = Cluster(server.port)
            version = cluster.core.list_namespaced_pod("default").metadata.resource_version

            def watch(allow):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
                conn.request("GET", "/api/v1/namespaces/default/pods?watch=true&resourceVersion="
                             f"{version}&timeoutSeconds=3" +
                             ("&allowWatchBookmarks=true" if allow else ""))
                return conn.getresponse()
            with_bookmarks, without = watch(True), watch(False)
            # Nodes move the log on; the pod watch sees none of them.
            for i in range(3):
                cluster.node(f"bm-{i}")
            latest = int(cluster.core.list_node().metadata.resource_version)
            lines = [json.loads(x) for x in with_bookmarks.read().decode().splitlines() if x]
            self.assertTrue(lines, "no bookmark before the watch timed out")
            self.assertEqual({e["type"] for e in lines}, {"BOOKMARK"})
            last = lines[-1]["object"]
            self.assertEqual((last["kind"], last["apiVersion"]), ("Pod", "v1"))
            self.assertEqual(int(last["metadata"]["resourceVersion"]), latest)
            self.assertEqual(without.read(), b"")
        finally:
            server.stop()


class Rbac(unittest.TestCase):
    def test_the_role_grants_exactly_the_verbs_the_source_uses(self):
        import yaml
        with open(os.path.join(SOURCE, "packaging/kubernetes/20-rbac.yaml")) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        granted = set()
        for d in docs:
            if d["kind"] in ("ClusterRole", "Role"):
                for rule in d["rules"]:
                    for g in rule["apiGroups"]:
                        for r in rule["resources"]:
                            for v in rule["verbs"]:
                                granted.add((v, r, g))
        self.assertEqual(sorted(USED_VERBS - granted), [], "used but not granted")
        self.assertEqual(sorted(granted - USED_VERBS - GRANTED_AHEAD), [],
                         "granted but never used")
        # Each is granted, and taken out of GRANTED_AHEAD once used.
        self.assertEqual(sorted(GRANTED_AHEAD - granted), [], "ahead but not granted")
        self.assertEqual(sorted(GRANTED_AHEAD & USED_VERBS), [], "used: no longer ahead")


USED_VERBS = set()
# Granted as kube-scheduler's role grants them, for what the writer does not
# do: read the other device kinds by name, and patch a ResourceClaim (it
# updates one, and its status, from the claim it read).
GRANTED_AHEAD = {("get", r, "resource.k8s.io")
                 for r in ("deviceclasses", "resourceslices", "resourceclaimtemplates")} | {
    ("patch", r, "resource.k8s.io") for r in ("resourceclaims", "resourceclaims/status")}


if __name__ == "__main__":
    # The RBAC check runs last, on the verbs every other test made the
    # scheduler issue through the proxy.
    original = FaultProxy.stop

    def stop_and_collect(self):
        USED_VERBS.update(self.verbs)
        original(self)
    FaultProxy.stop = stop_and_collect
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    if sys.argv[4:]:
        # Some tests only (Class or Class.test_name); Rbac among them checks
        # the verbs of those before it.
        suite.addTests(loader.loadTestsFromNames(sys.argv[4:], sys.modules[__name__]))
    else:
        for case in (Schedules, Quotas, Shards, QueueGates, Faults, Https, BadKubeconfig,
                     LeaderElection, WatchBookmarks, Rbac):
            suite.addTests(loader.loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
