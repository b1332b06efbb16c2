#!/usr/bin/python3
"""Seed corpora for the fuzz targets, made from the repository's scenarios
(so they are never copied into git) and the committed regression inputs.

usage: seeds.py SOURCE_DIR CORPUS_DIR   (writes CORPUS_DIR/<target>/...)
"""
import glob
import hashlib
import json
import os
import re
import shutil
import sys

import yaml

source, out = sys.argv[1], sys.argv[2]
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def put(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


# The API's path for each kind a scenario or a seed below may hold.
PATHS = {"Node": "/api/v1/nodes", "Pod": "/api/v1/namespaces/{ns}/pods",
         "PodGroup": "/apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups",
         "Queue": "/apis/scheduling.volcano.sh/v1beta1/queues",
         "PriorityClass": "/apis/scheduling.k8s.io/v1/priorityclasses",
         "PodDisruptionBudget": "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
         "ResourceQuota": "/api/v1/namespaces/{ns}/resourcequotas",
         "Numatopology": "/apis/nodeinfo.volcano.sh/v1alpha1/numatopologies",
         "HyperNode": "/apis/topology.volcano.sh/v1alpha1/hypernodes",
         "PersistentVolume": "/api/v1/persistentvolumes",
         "PersistentVolumeClaim": "/api/v1/namespaces/{ns}/persistentvolumeclaims",
         "StorageClass": "/apis/storage.k8s.io/v1/storageclasses",
         "CSINode": "/apis/storage.k8s.io/v1/csinodes",
         "CSIDriver": "/apis/storage.k8s.io/v1/csidrivers",
         "CSIStorageCapacity": "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities",
         "DeviceClass": "/apis/resource.k8s.io/v1/deviceclasses",
         "ResourceSlice": "/apis/resource.k8s.io/v1/resourceslices",
         "ResourceClaim": "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims",
         "ResourceClaimTemplate":
             "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaimtemplates"}


# The cache's kinds in cache::Kind's order (host/cache/object_change.h):
# the first byte of a kube_list input.
KUBE_KINDS = ["Node", "Pod", "PodGroup", "Queue", "PriorityClass", "Namespace",
              "PodDisruptionBudget", "ResourceQuota", "Numatopology", "HyperNode",
              "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
              "CSIStorageCapacity", "DeviceClass", "ResourceSlice", "ResourceClaim",
              "ResourceClaimTemplate"]


def put_api(doc):
    if doc.get("kind") in PATHS:
        ns = doc.get("metadata", {}).get("namespace", "default")
        put("api", f"POST {PATHS[doc['kind']].format(ns=ns)}\n" + json.dumps(doc))
    if doc.get("kind") in KUBE_KINDS:
        # As a list page of its kind, and as a watch event (the high bit).
        k = KUBE_KINDS.index(doc["kind"])
        page = {"kind": doc["kind"] + "List", "apiVersion": doc.get("apiVersion", "v1"),
                "metadata": {"resourceVersion": "7", "continue": "x"}, "items": [doc]}
        put("kube_list", bytes([k]) + json.dumps(page).encode())
        put("kube_list", bytes([k | 0x80]) + json.dumps({"type": "ADDED", "object": doc}).encode())


scenarios = sorted(glob.glob(os.path.join(source, "tests/scenarios/*/")))
quantities = set()
for d in scenarios:
    for path in glob.glob(os.path.join(d, "*.yaml")):
        text = open(path, encoding="utf-8", errors="replace").read()
        if len(text) > 64 * 1024:
            continue
        put("objects", text)
        put("block_yaml", text)
        quantities.update(re.findall(r'(?:cpu|memory|pods|nvidia\.com/gpu): "?([0-9.eE+-]+[a-zA-Z]*)', text))
        if re.search(r"&[A-Za-z0-9_-]", text):
            continue  # aliases: as JSON an alias bomb would be gigabytes
        try:
            docs = [doc for doc in yaml.load_all(text, Loader=loader) if isinstance(doc, dict)]
        except yaml.YAMLError:
            continue
        put("objects", json.dumps(docs[0]) if docs else "{}")
        for doc in docs[:6]:
            put_api(doc)
    for path in glob.glob(os.path.join(d, "*.toml")):
        put("config", b"\x00" + open(path, "rb").read())
    for path in glob.glob(os.path.join(d, "*.conf*")):
        put("config", b"\x01" + open(path, "rb").read())
for path in glob.glob(os.path.join(source, "config/**/*.*"), recursive=True):
    data = open(path, "rb").read()
    put("config", (b"\x00" if path.endswith(".toml") else b"\x01") + data)
for q in sorted(quantities) + ["500m", "4Gi", "1.5", "1e3", "0", "100Ki", "2E"]:
    put("quantity", q)
for line in ["GET /api/v1/pods?labelSelector=app%3Dx&limit=2",
             "GET /api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true",
             "GET /apis/scheduling.volcano.sh/v1beta1/podgroups?fieldSelector=metadata.name%3Dg",
             "GET /api/v1/nodes/n1", "DELETE /api/v1/namespaces/default/pods/p?gracePeriodSeconds=0",
             "GET /apis", "GET /api/v1", "GET /openapi/v3", "GET /version",
             "POST /api/v1/namespaces/default/pods/p/binding\n"
             '{"kind":"Binding","target":{"name":"n1"}}',
             "POST /api/v1/namespaces/default/pods/p/eviction\n"
             '{"apiVersion":"policy/v1","kind":"Eviction"}',
             "PATCH /api/v1/nodes/n1\nContent-Type: application/merge-patch+json\n"
             '{"spec":{"unschedulable":true}}',
             "PATCH /api/v1/namespaces/default/pods/p\n"
             "Content-Type: application/strategic-merge-patch+json\n"
             '{"metadata":{"labels":{"a":"b"}}}',
             "PATCH /api/v1/namespaces/default/pods/p\n"
             "Content-Type: application/json-patch+json\n"
             '[{"op":"add","path":"/metadata/labels/a","value":"b"},{"op":"remove","path":"/spec"}]']:
    put("api", line)
# Protobuf bodies kubectl 1.32 sent (create namespace, priorityclass, quota
# and pdb, auth can-i, drain --disable-eviction's DeleteOptions), as
# captured from its requests; the first byte picks the kind in
# api::protobuf::kinds() (protobuf_kinds.cpp) and the body's form.
PROTOBUF_KINDS = ["Namespace", "ResourceQuota", "PriorityClass", "PodDisruptionBudget",
                  "Eviction", "DeleteOptions", "DeleteOptions", "SelfSubjectAccessReview"]
PROTOBUF_BODIES = {
    "Namespace": ("/api/v1/namespaces",
                  "6b3873000a0f0a02763112094e616d65737061636512190a110a017812001a0022002a00320038"
                  "00420012001a020a001a002200"),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1/priorityclasses",
                      "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f726974"
                      "79436c61737312260a120a02703212001a0022002a0032003800420010e807180122046465"
                      "73632a054e657665721a002200"),
    "ResourceQuota": ("/api/v1/namespaces/default/resourcequotas",
                      "6b3873000a130a027631120d5265736f7572636551756f7461125b0a120a02713212001a00"
                      "22002a0032003800420012430a0b0a04706f647312030a01320a180a0f7265717565737473"
                      "2e6d656d6f727912050a03314769120a426573744566666f7274120e4e6f745465726d696e"
                      "6174696e671a001a002200"),
    "PodDisruptionBudget": ("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                            "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e4275"
                            "6467657412460a120a02623212001a0022002a00320038004200122412170a080a03"
                            "6170701201610a0b0a047469657212037765621a09080110001a033530251a0a0800"
                            "18002000280030001a002200"),
    "SelfSubjectAccessReview": ("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                                "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f763112"
                                "1753656c665375626a656374416363657373526576696577123f0a100a001200"
                                "1a0022002a0032003800420012210a1f0a0764656661756c7412066372656174"
                                "651a0022002a04706f647332003a001a08080012001a0020001a002200"),
    "DeleteOptions": ("/api/v1/namespaces/default/pods/p",
                      "6b3873000a130a027631120d44656c6574654f7074696f6e73120208051a002200"),
}
for kind, (path, hex_body) in PROTOBUF_BODIES.items():
    body = bytes.fromhex(hex_body)
    k = PROTOBUF_KINDS.index(kind)
    put("protobuf", bytes([k]) + body)
    method = "DELETE" if kind == "DeleteOptions" else "POST"
    put("api", f"{method} {path}\nContent-Type: application/vnd.kubernetes.protobuf\n".encode()
        + body)
put("kubeconfig", open(os.path.join(source, "fuzz/kubeconfig.seed")).read())
for expression in ['device.driver == "gpu.example.com"',
                   'device.attributes["gpu.example.com"].model.startsWith("a1")',
                   'has(device.attributes["gpu.example.com"].mig) ? 1u : 2u',
                   '[1, 2.0, 3u].exists(x, x > 2) || {"a": 1}.all(k, k in ["a"])',
                   "r'raw\\n' + string(b'\\x00') == \"\"\"long\"\"\"",
                   'int("12") / 0 % -9223372036854775808',
                   "device.attributes['gpu.example.com'].tags.map(t, string(t))"
                   ".filter(s, s.matches('^[a-z]+$'))",
                   'device.capacity["gpu.example.com"].memory.compareTo(quantity("1.5Gi")) > 0',
                   'device.attributes["gpu.example.com"].driverVersion'
                   '.isGreaterThan(semver("v1.2", true))']:
    put("cel", expression)
# Dynamic Resource Allocation's kinds, each field the decoders read once.
DEVICES = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  nodeName: n1
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      cores: {int: 108}
      mig: {bool: true}
      driverVersion: {version: 1.2.3-rc.1+build}
      numa.example.com/node: {int: 0}
    capacity: {memory: {value: 40Gi}}
    consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 40Gi}}}]
    taints: [{key: example.com/unhealthy, value: "true", effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-counters}
spec:
  driver: gpu.example.com
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  perDeviceNodeSelection: true
  sharedCounters: [{name: gpu-0, counters: {memory: {value: 40Gi}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: ml, name: one-gpu}
spec:
  metadata: {labels: {app: train}}
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: gpu.example.com, count: 2}
        - {name: small, deviceClassName: gpu.example.com, allocationMode: All}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  namespace: ml
  name: train-0-gpu
  ownerReferences: [{apiVersion: v1, kind: Pod, name: train-0, uid: u1, controller: true}]
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].mig'}}]
        tolerations: [{key: example.com/unhealthy, operator: Exists, effect: NoSchedule}]
    - name: nic
      exactly: {deviceClassName: nic.example.com, adminAccess: true}
    constraints: [{requests: [gpu, nic], matchAttribute: numa.example.com/node}]
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]
  reservedFor: [{resource: pods, name: train-0, uid: u1}]
"""
put("objects", DEVICES)
for doc in yaml.load_all(DEVICES, Loader=loader):
    put("objects", json.dumps(doc))
    put_api(doc)
for target in ("objects", "config", "quantity", "kubeconfig", "api", "cel", "block_yaml",
               "kube_list"):
    for path in glob.glob(os.path.join(source, "fuzz/regressions", target, "*")):
        put(target, open(path, "rb").read())
