#!/usr/bin/python3
"""Writes host/schema/field_schema_table.cpp: every field of the kinds Scoria
reads, as Kubernetes and Volcano define them, for the unknown-field check
(host/schema/unknown_fields.h), the OpenAPI documents (host/api/openapi*) and
server-side apply (host/api/structured_merge*).

  scripts/gen-field-schema.py --volcano VOLCANO_GIT_DIR [--rev HEAD] \
      --kubernetes-api K8S_API_GIT_DIR --apimachinery APIMACHINERY_GIT_DIR \
      > host/schema/field_schema_table.cpp

Sources:
- the core kinds (Pod, Node, Namespace, PriorityClass, Event, Lease,
  PodDisruptionBudget, ResourceQuota, PersistentVolume,
  PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
  CSIStorageCapacity) from the
  models of the Kubernetes Python client (Debian's python3-kubernetes: each
  class has openapi_types and attribute_map), run with /usr/bin/python3;
- resource.k8s.io/v1 (DeviceClass, ResourceSlice, ResourceClaim,
  ResourceClaimTemplate, Kubernetes 1.34), which the client predates, from
  NEW_CLASSES below: their fields as k8s.io/api/resource/v1 defines them
  (alpha fields of later releases left out);
- Volcano's PodGroup, Queue, batch Job, Numatopology and HyperNode from the openAPIV3Schema of their
  CRDs in Volcano's repository (read with git, never copied);
- how each list merges (+listType, +listMapKey, patchStrategy and
  patchMergeKey, as kube-openapi reads them), which structs and maps are
  atomic, the Go type behind a client's 'str' or 'object' (Quantity,
  IntOrString) and each type's OpenAPI name, from the types.go of
  k8s.io/api and k8s.io/apimachinery (read with git, never copied);
- the Python client is older than the API (22.x has Kubernetes 1.22's
  models), so the PodSpec the Job CRD embeds (Volcano builds it from a
  recent k8s.io/api) is laid over V1PodSpec and every type under it, and
  NEWER_FIELDS below adds what 1.23+ added where no CRD carries it (status
  types, Node, Lease), each with the release that added it. Where the client
  shares one class between places that Kubernetes later gave classes of
  their own, the union of their fields is known there.

A field of one of these names is known; anything under a free-form place
(labels, annotations, resource lists, fieldsV1, int-or-string, a CRD's
x-kubernetes-preserve-unknown-fields) is not checked. Types are shared by
name (and by structure, for the CRDs' anonymous ones); each type's fields
are sorted by name. Prints the table's size on standard error.
"""
import argparse
import inspect
import re
import subprocess
import sys

import kubernetes
import kubernetes.client.models as models
import yaml

CRDS = {
    # (apiVersion, kind): the CRD file under config/crd/volcano/bases
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): "scheduling.volcano.sh_podgroups.yaml",
    ("scheduling.volcano.sh/v1beta1", "Queue"): "scheduling.volcano.sh_queues.yaml",
    ("batch.volcano.sh/v1alpha1", "Job"): "batch.volcano.sh_jobs.yaml",
    ("nodeinfo.volcano.sh/v1alpha1", "Numatopology"): "nodeinfo.volcano.sh_numatopologies.yaml",
    ("topology.volcano.sh/v1alpha1", "HyperNode"): "topology.volcano.sh_hypernodes.yaml",
}
CORE = {
    ("v1", "Pod"): "V1Pod",
    ("v1", "Node"): "V1Node",
    ("v1", "Namespace"): "V1Namespace",
    ("scheduling.k8s.io/v1", "PriorityClass"): "V1PriorityClass",
    ("v1", "Event"): "CoreV1Event",
    ("coordination.k8s.io/v1", "Lease"): "V1Lease",
    ("policy/v1", "PodDisruptionBudget"): "V1PodDisruptionBudget",
    ("v1", "ResourceQuota"): "V1ResourceQuota",
    ("v1", "PersistentVolume"): "V1PersistentVolume",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("storage.k8s.io/v1", "StorageClass"): "V1StorageClass",
    ("storage.k8s.io/v1", "CSINode"): "V1CSINode",
    ("storage.k8s.io/v1", "CSIDriver"): "V1CSIDriver",
    ("storage.k8s.io/v1", "CSIStorageCapacity"): "V1CSIStorageCapacity",  # NEW_CLASSES
    # resource.k8s.io/v1, all in NEW_CLASSES.
    ("resource.k8s.io/v1", "DeviceClass"): "V1DeviceClass",
    ("resource.k8s.io/v1", "ResourceSlice"): "V1ResourceSlice",
    ("resource.k8s.io/v1", "ResourceClaim"): "V1ResourceClaim",
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): "V1ResourceClaimTemplate",
}

# Fields Kubernetes added after the Python client's release, where no CRD
# teaches them (the pod template's are laid over from Volcano's Job CRD).
# Types are written as the client writes them; new classes in NEW_CLASSES.
NEWER_FIELDS = {
    "V1PodStatus": {
        "resourceClaimStatuses": "list[PodResourceClaimStatus]",  # 1.26
        "resize": "str",  # 1.27
        "hostIPs": "list[HostIP]",  # 1.28
        "observedGeneration": "int",  # 1.33
        "extendedResourceClaimStatus": "PodExtendedResourceClaimStatus",  # 1.34
    },
    "V1PodCondition": {"observedGeneration": "int"},  # 1.33
    "V1ContainerStatus": {
        "allocatedResources": "dict(str, str)",  # 1.27
        "resources": "V1ResourceRequirements",  # 1.27
        "volumeMounts": "list[VolumeMountStatus]",  # 1.30
        "user": "ContainerUser",  # 1.31
        "allocatedResourcesStatus": "list[ResourceStatus]",  # 1.31
        "stopSignal": "str",  # 1.33
    },
    "V1NodeStatus": {
        "runtimeHandlers": "list[NodeRuntimeHandler]",  # 1.30
        "features": "NodeFeatures",  # 1.31
        "declaredFeatures": "list[str]",  # 1.35
    },
    "V1NodeSystemInfo": {"swap": "NodeSwapStatus"},  # 1.30
    "V1LeaseSpec": {"strategy": "str", "preferredHolder": "str"},  # 1.31
    "V1PodDisruptionBudgetSpec": {"unhealthyPodEvictionPolicy": "str"},  # 1.26
    "V1PersistentVolumeSpec": {"volumeAttributesClassName": "str"},  # 1.29
    "V1PersistentVolumeStatus": {"lastPhaseTransitionTime": "datetime"},  # 1.28
    "V1PersistentVolumeClaimStatus": {
        "allocatedResources": "dict(str, str)",  # 1.23
        "allocatedResourceStatuses": "dict(str, str)",  # 1.28
        "currentVolumeAttributesClassName": "str",  # 1.29
        "modifyVolumeStatus": "ModifyVolumeStatus",  # 1.29
    },
    "V1CSIPersistentVolumeSource": {"nodeExpandSecretRef": "V1SecretReference"},  # 1.25
    "V1CSIDriverSpec": {
        "seLinuxMount": "bool",  # 1.25
        "nodeAllocatableUpdatePeriodSeconds": "int",  # 1.33
        "serviceAccountTokenInSecrets": "bool",  # 1.35
    },
}
NEW_CLASSES = {
    "PodResourceClaimStatus": {"name": "str", "resourceClaimName": "str"},
    "HostIP": {"ip": "str"},
    "PodExtendedResourceClaimStatus": {
        "requestMappings": "list[ContainerExtendedResourceRequest]",
        "resourceClaimName": "str",
    },
    "ContainerExtendedResourceRequest": {
        "containerName": "str", "resourceName": "str", "requestName": "str"},
    "VolumeMountStatus": {
        "name": "str", "mountPath": "str", "readOnly": "bool", "recursiveReadOnly": "str"},
    "ContainerUser": {"linux": "LinuxContainerUser"},
    "LinuxContainerUser": {"uid": "int", "gid": "int", "supplementalGroups": "list[int]"},
    "ResourceStatus": {"name": "str", "resources": "list[ResourceHealth]"},
    "ResourceHealth": {"resourceID": "str", "health": "str"},
    "NodeRuntimeHandler": {"name": "str", "features": "NodeRuntimeHandlerFeatures"},
    "NodeRuntimeHandlerFeatures": {"recursiveReadOnlyMounts": "bool", "userNamespaces": "bool"},
    "NodeFeatures": {"supplementalGroupsPolicy": "bool"},
    "NodeSwapStatus": {"capacity": "int"},
    "ModifyVolumeStatus": {"targetVolumeAttributesClassName": "str", "status": "str"},
    # storage.k8s.io/v1 (1.24): v1beta1's fields, which the client has.
    "V1CSIStorageCapacity": {
        "apiVersion": "str", "kind": "str", "metadata": "V1ObjectMeta",
        "storageClassName": "str", "nodeTopology": "V1LabelSelector", "capacity": "str",
        "maximumVolumeSize": "str"},
}
# resource.k8s.io/v1 (1.34), as k8s.io/api/resource/v1/types.go has it.
_OBJECT = {"apiVersion": "str", "kind": "str", "metadata": "V1ObjectMeta"}
_ASK = {  # what an `exactly` request and a firstAvailable alternative share
    "deviceClassName": "str", "selectors": "list[V1DeviceSelector]", "allocationMode": "str",
    "count": "int", "tolerations": "list[V1DeviceToleration]",
    "capacity": "V1CapacityRequirements"}
_RESOURCE = {
    "V1DeviceClass": dict(_OBJECT, spec="V1DeviceClassSpec"),
    "V1DeviceClassSpec": {
        "selectors": "list[V1DeviceSelector]", "config": "list[V1DeviceClassConfiguration]",
        "extendedResourceName": "str"},
    "V1DeviceSelector": {"cel": "V1CELDeviceSelector"},
    "V1CELDeviceSelector": {"expression": "str"},
    "V1DeviceClassConfiguration": {"opaque": "V1OpaqueDeviceConfiguration"},
    "V1OpaqueDeviceConfiguration": {"driver": "str", "parameters": "object"},
    "V1ResourceSlice": dict(_OBJECT, spec="V1ResourceSliceSpec"),
    "V1ResourceSliceSpec": {
        "driver": "str", "pool": "V1ResourcePool", "nodeName": "str",
        "nodeSelector": "V1NodeSelector", "allNodes": "bool", "devices": "list[V1Device]",
        "perDeviceNodeSelection": "bool", "sharedCounters": "list[V1CounterSet]"},
    "V1ResourcePool": {"name": "str", "generation": "int", "resourceSliceCount": "int"},
    "V1CounterSet": {"name": "str", "counters": "dict(str, V1Counter)"},
    "V1Counter": {"value": "str"},
    "V1Device": {
        "name": "str", "attributes": "dict(str, V1DeviceAttribute)",
        "capacity": "dict(str, V1DeviceCapacity)",
        "consumesCounters": "list[V1DeviceCounterConsumption]", "nodeName": "str",
        "nodeSelector": "V1NodeSelector", "allNodes": "bool", "taints": "list[V1DeviceTaint]",
        "bindsToNode": "bool", "bindingConditions": "list[str]",
        "bindingFailureConditions": "list[str]", "allowMultipleAllocations": "bool"},
    "V1DeviceAttribute": {"int": "int", "bool": "bool", "string": "str", "version": "str"},
    "V1DeviceCapacity": {"value": "str", "requestPolicy": "V1CapacityRequestPolicy"},
    "V1CapacityRequestPolicy": {
        "default": "str", "validValues": "list[str]",
        "validRange": "V1CapacityRequestPolicyRange"},
    "V1CapacityRequestPolicyRange": {"min": "str", "max": "str", "step": "str"},
    "V1DeviceCounterConsumption": {"counterSet": "str", "counters": "dict(str, V1Counter)"},
    "V1DeviceTaint": {"key": "str", "value": "str", "effect": "str", "timeAdded": "datetime"},
    "V1ResourceClaim": dict(_OBJECT, spec="V1ResourceClaimSpec", status="V1ResourceClaimStatus"),
    "V1ResourceClaimSpec": {"devices": "V1DeviceClaim"},
    "V1DeviceClaim": {
        "requests": "list[V1DeviceRequest]", "constraints": "list[V1DeviceConstraint]",
        "config": "list[V1DeviceClaimConfiguration]"},
    "V1DeviceRequest": {
        "name": "str", "exactly": "V1ExactDeviceRequest",
        "firstAvailable": "list[V1DeviceSubRequest]"},
    "V1ExactDeviceRequest": dict(_ASK, adminAccess="bool"),
    "V1DeviceSubRequest": dict(_ASK, name="str"),
    "V1CapacityRequirements": {"requests": "dict(str, str)"},
    "V1DeviceToleration": {
        "key": "str", "operator": "str", "value": "str", "effect": "str",
        "tolerationSeconds": "int"},
    "V1DeviceConstraint": {
        "requests": "list[str]", "matchAttribute": "str", "distinctAttribute": "str"},
    "V1DeviceClaimConfiguration": {
        "requests": "list[str]", "opaque": "V1OpaqueDeviceConfiguration"},
    "V1ResourceClaimStatus": {
        "allocation": "V1AllocationResult",
        "reservedFor": "list[V1ResourceClaimConsumerReference]",
        "devices": "list[V1AllocatedDeviceStatus]"},
    "V1AllocationResult": {
        "devices": "V1DeviceAllocationResult", "nodeSelector": "V1NodeSelector",
        "allocationTimestamp": "datetime"},
    "V1DeviceAllocationResult": {
        "results": "list[V1DeviceRequestAllocationResult]",
        "config": "list[V1DeviceAllocationConfiguration]"},
    "V1DeviceRequestAllocationResult": {
        "request": "str", "driver": "str", "pool": "str", "device": "str",
        "adminAccess": "bool", "tolerations": "list[V1DeviceToleration]",
        "bindingConditions": "list[str]", "bindingFailureConditions": "list[str]",
        "shareID": "str", "consumedCapacity": "dict(str, str)"},
    "V1DeviceAllocationConfiguration": {
        "source": "str", "requests": "list[str]", "opaque": "V1OpaqueDeviceConfiguration"},
    "V1ResourceClaimConsumerReference": {
        "apiGroup": "str", "resource": "str", "name": "str", "uid": "str"},
    "V1AllocatedDeviceStatus": {
        "driver": "str", "pool": "str", "device": "str", "shareID": "str",
        "conditions": "list[V1Condition]", "data": "object",
        "networkData": "V1NetworkDeviceData"},
    "V1NetworkDeviceData": {"interfaceName": "str", "ips": "list[str]", "hardwareAddress": "str"},
    "V1ResourceClaimTemplate": dict(_OBJECT, spec="V1ResourceClaimTemplateSpec"),
    "V1ResourceClaimTemplateSpec": {"metadata": "V1ObjectMeta", "spec": "V1ResourceClaimSpec"},
}
NEW_CLASSES.update(_RESOURCE)

SCALARS = {"str", "int", "bool", "float", "datetime", "date", "object"}

# What a leaf holds, in the order of schema::Scalar (field_schema.h).
SCALAR_KINDS = ["untyped", "string", "date-time", "integer", "int32", "int64", "number",
                "boolean", "int-or-string", "quantity", "object", "byte"]
# How a list's items are told apart, in the order of schema::ListType.
LIST_TYPES = ["atomic", "set", "map"]

# The Go packages whose types.go tell what the client's models do not: how a
# list merges (+listType, +listMapKey, patchStrategy, patchMergeKey), which
# structs and maps are atomic, the Go type behind a client's 'str' or
# 'object' (a Quantity, an IntOrString), and each type's OpenAPI name.
# (repository: "api" or "apimachinery", file, OpenAPI definition prefix).
GO_PACKAGES = [
    ("api", "core/v1/types.go", "io.k8s.api.core.v1"),
    ("apimachinery", "pkg/apis/meta/v1/types.go", "io.k8s.apimachinery.pkg.apis.meta.v1"),
    ("api", "policy/v1/types.go", "io.k8s.api.policy.v1"),
    ("api", "scheduling/v1/types.go", "io.k8s.api.scheduling.v1"),
    ("api", "coordination/v1/types.go", "io.k8s.api.coordination.v1"),
    ("api", "storage/v1/types.go", "io.k8s.api.storage.v1"),
    ("api", "resource/v1/types.go", "io.k8s.api.resource.v1"),
]
# Client classes whose Go type has another name.
GO_NAMES = {"V1Handler": "LifecycleHandler", "CoreV1Event": "Event",
            "CoreV1EventSeries": "EventSeries"}
# The resource.k8s.io/v1 classes: looked up in that package first (core/v1
# has a ResourceClaim of its own).
RESOURCE_CLASSES = set(_RESOURCE)


def leaf(kind):
    return ("leaf", kind)


# A type: ("leaf", scalar) | ("object", {name: type}, name, info) |
# ("list", type, list type, keys) | ("map", type, atomic). Object types are
# mutable (fields are laid over; info holds "atomic" and "required").
LEAF = leaf("untyped")


def new_object(fields, name=None, atomic=False, required=()):
    return ("object", fields, name, {"atomic": atomic, "required": set(required)})


def parse_go(text):
    """The structs of a Go file: {name: {"atomic", "fields": {json name: info}}},
    and its other named types {name: underlying type}."""
    structs, aliases = {}, {}
    comments, current = [], None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("//"):
            comments.append(s[2:].strip())
            continue
        if current is None:
            m = re.match(r"type (\w+) struct \{", s)
            if m:
                current = {"atomic": "+structType=atomic" in comments, "fields": {}}
                structs[m.group(1)] = current
            else:
                m = re.match(r"type (\w+) ([^=].*)$", s)
                if m:
                    aliases[m.group(1)] = m.group(2).strip()
            comments = []
            continue
        if s == "}":
            current, comments = None, []
            continue
        m = re.match(r"(\w+)\s+([^`]+?)\s+`(.*)`", s)
        if m:
            tags = m.group(3)
            j = re.search(r'json:"([^"]*)"', tags)
            if j and j.group(1).split(",")[0] not in ("", "-"):
                parts = j.group(1).split(",")
                marker = lambda k: [c.split("=", 1)[1] for c in comments if c.startswith(k + "=")]
                strategy = re.search(r'patchStrategy:"([^"]*)"', tags)
                key = re.search(r'patchMergeKey:"([^"]*)"', tags)
                current["fields"][parts[0]] = {
                    "go": m.group(2).strip(),
                    "required": "+optional" not in comments and "omitempty" not in parts[1:],
                    "listType": (marker("+listType") or [None])[0],
                    "listMapKey": marker("+listMapKey"),
                    "mapType": (marker("+mapType") or [None])[0],
                    "default": (marker("+default") or [None])[0],
                    "patchStrategy": strategy.group(1) if strategy else "",
                    "mergeKey": key.group(1) if key else "",
                }
        comments = []
    return structs, aliases


class GoTypes:
    def __init__(self, dirs):
        self.packages = []  # (prefix, structs, aliases)
        for repo, path, prefix in GO_PACKAGES:
            text = subprocess.run(["git", "-C", dirs[repo], "show", f"HEAD:{path}"], check=True,
                                  capture_output=True, text=True).stdout
            self.packages.append((prefix, *parse_go(text)))

    def find(self, cls):
        """(OpenAPI name, struct, aliases) of a client class, or None."""
        name = GO_NAMES.get(cls, re.sub(r"^(V1|CoreV1)", "", cls))
        order = self.packages
        if cls in RESOURCE_CLASSES:
            order = [p for p in self.packages if p[0].endswith("resource.v1")] + order
        for prefix, structs, aliases in order:
            if name in structs:
                return f"{prefix}.{name}", structs[name], aliases
        return None


def go_scalar(go, aliases):
    """The scalar a Go type holds, where it says more than the client."""
    g = go.lstrip("*")
    for _ in range(4):
        if g in aliases and not aliases[g].startswith(("struct", "map", "[]")):
            g = aliases[g].lstrip("*")
    g = g.split(".")[-1]
    return {"IntOrString": "int-or-string", "Quantity": "quantity", "Time": "date-time",
            "MicroTime": "date-time", "RawExtension": "object", "int32": "int32",
            "int64": "int64", "int": "int64", "float64": "number", "bool": "boolean"}.get(g)


def go_inner(go, aliases, shape):
    """The Go type of a list's items or a map's values."""
    g = go.lstrip("*") if go else ""
    if g in aliases:
        g = aliases[g]
    if shape == "list" and g.startswith("[]"):
        return g[2:]
    m = re.match(r"map\[[^\]]+\](.+)", g)
    return m.group(1) if shape == "map" and m else None


class Schema:
    def __init__(self, go):
        self.go = go
        self.named = {}  # class name -> object type
        self.known = {}  # id(CRD schema node) -> the type it is (a core one)

    # --- The Python client's models ------------------------------------
    def fields_of_class(self, name):
        if name in NEW_CLASSES:
            return dict(NEW_CLASSES[name]), set()
        cls = getattr(models, name)
        out = {cls.attribute_map[attr]: t for attr, t in cls.openapi_types.items()}
        out.update(NEWER_FIELDS.get(name, {}))
        # The client's setters refuse None for a required field.
        source = inspect.getsource(cls)
        required = {cls.attribute_map[a] for a in re.findall(
            r"client_side_validation and (\w+) is None", source) if a in cls.attribute_map}
        return out, required

    def of_client_type(self, t, go=None, aliases=None):
        """The type of a client type string; `go` is the Go field's info
        (list and map markers), or its Go type when a dict."""
        aliases = aliases or {}
        gotype = go["go"] if isinstance(go, dict) else go
        if t in SCALARS:
            refined = go_scalar(gotype, aliases) if gotype else None
            kind = {"str": "string", "int": "integer", "bool": "boolean", "float": "number",
                    "datetime": "date-time", "date": "date-time", "object": "object"}[t]
            if refined in ("int-or-string", "quantity") and t in ("str", "object"):
                kind = refined
            elif refined in ("int32", "int64") and t == "int":
                kind = refined
            return leaf(kind)
        m = re.fullmatch(r"list\[(.+)\]", t)
        if m:
            item = self.of_client_type(m.group(1), go_inner(gotype, aliases, "list"), aliases)
            return self.list_of(item, go if isinstance(go, dict) else None)
        m = re.fullmatch(r"dict\(str, (.+)\)", t)
        if m:
            value = self.of_client_type(m.group(1), go_inner(gotype, aliases, "map"), aliases)
            atomic = isinstance(go, dict) and go["mapType"] == "atomic"
            return ("map", value, atomic)
        return self.named_type(t)

    def list_of(self, item, go):
        """A list of `item`, merged as the Go field's markers say (as
        kube-openapi turns them into structured-merge-diff's schema)."""
        if not go:
            return ("list", item, "atomic", ())
        kind, keys = go["listType"], list(go["listMapKey"])
        if kind is None:
            kind = "atomic"
            if go["patchStrategy"].split(",")[0] == "merge":
                kind = "map" if go["mergeKey"] else "set"
                keys = [go["mergeKey"]] if go["mergeKey"] else []
        if kind != "map":
            keys = []
        # A key field with a default (a port's protocol) is that when left out.
        elem = go_inner(go["go"], {}, "list")
        found = self.go.find(elem) if elem else None
        out = []
        for k in keys:
            default = found[1]["fields"].get(k, {}).get("default") if found else None
            out.append(k + ("=" + default.strip('"') if default else ""))
        return ("list", item, kind, tuple(out))

    def named_type(self, name):
        if name not in self.named:
            found = self.go.find(name)
            definition = found[0] if found else f"io.k8s.api.core.v1.{re.sub('^V1', '', name)}"
            go_fields = found[1]["fields"] if found else {}
            aliases = found[2] if found else {}
            fields = {}
            t = new_object(fields, definition, atomic=bool(found and found[1]["atomic"]))
            self.named[name] = t
            client, required = self.fields_of_class(name)
            if name in NEW_CLASSES:
                required = {f for f in client if go_fields.get(f, {}).get("required")}
            t[3]["required"] = required
            for field, ct in client.items():
                fields[field] = self.of_client_type(ct, go_fields.get(field), aliases)
        return self.named[name]

    # --- A CRD's openAPIV3Schema ----------------------------------------
    def of_crd(self, node, root=None):
        if id(node) in self.known:
            return self.known[id(node)]
        if node.get("x-kubernetes-preserve-unknown-fields"):
            return leaf("object")
        if node.get("x-kubernetes-int-or-string") or "anyOf" in node:
            return leaf("int-or-string")
        kind = node.get("type")
        if kind == "array":
            items = node.get("items", {})
            keys = []
            for k in node.get("x-kubernetes-list-map-keys", []):
                default = items.get("properties", {}).get(k, {}).get("default")
                keys.append(k + (f"={default}" if default is not None else ""))
            return ("list", self.of_crd(items), node.get("x-kubernetes-list-type", "atomic"),
                    tuple(keys))
        if kind != "object":
            formats = {"date-time": "date-time", "int32": "int32", "int64": "int64",
                       "byte": "byte"}
            return leaf(formats.get(node.get("format"), {
                "string": "string", "integer": "integer", "number": "number",
                "boolean": "boolean"}.get(kind, "untyped")))
        atomic = node.get("x-kubernetes-map-type") == "atomic"
        if "properties" in node:
            fields = {}
            for name, sub in node["properties"].items():
                # The root's metadata is ObjectMeta, as for every kind.
                fields[name] = (self.named_type("V1ObjectMeta") if root and name == "metadata"
                                else self.of_crd(sub))
            if node.get("x-kubernetes-embedded-resource"):
                fields.setdefault("apiVersion", leaf("string"))
                fields.setdefault("kind", leaf("string"))
                fields.setdefault("metadata", self.named_type("V1ObjectMeta"))
            return new_object(fields, root, atomic, node.get("required", []))
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            return ("map", self.of_crd(extra), atomic)
        if extra is True:
            return leaf("object")
        # An object with no properties: the API server prunes everything
        # under it, so nothing under it is known.
        return new_object({}, root, atomic)

    def lay_over(self, t, node):
        """Adds to the object type `t` (and the types under it) the fields
        the CRD schema `node` has and it lacks."""
        if t[0] != "object" or node.get("type") != "object" or "properties" not in node:
            return
        fields = t[1]
        for name, sub in node["properties"].items():
            if name not in fields:
                fields[name] = self.of_crd(sub)
                continue
            inner = fields[name]
            while inner[0] in ("list", "map") and sub.get("type") in ("array", "object"):
                if inner[0] == "list" and sub.get("type") == "array":
                    inner, sub = inner[1], sub.get("items", {})
                elif inner[0] == "map" and isinstance(sub.get("additionalProperties"), dict):
                    inner, sub = inner[1], sub["additionalProperties"]
                else:
                    break
            self.lay_over(inner, sub)


def crd_schema(git_dir, rev, file):
    text = subprocess.run(
        ["git", "-C", git_dir, "show", f"{rev}:config/crd/volcano/bases/{file}"],
        check=True, capture_output=True, text=True).stdout
    return yaml.safe_load(text)["spec"]["versions"]


def crd_definition(api, kind):
    """The OpenAPI name the API server gives a CRD's kind: its group
    reversed, its version, its kind."""
    group, version = api.split("/")
    return ".".join(reversed(group.split("."))) + f".{version}.{kind}"


# --- Emitting ---------------------------------------------------------------

class Emitter:
    """Numbers the types (shared by identity, then by structure and name) and
    lays out the tables."""

    def __init__(self):
        self.types = [LEAF]  # index 0: the untyped leaf
        self.index = {}  # id(type) -> index
        self.by_key = {}  # structural key -> index
        self.labels = ["leaf"]
        self.keys = [""]  # list map keys, "a,b=default"; 0: none

    def key(self, t, seen):
        if t[0] == "leaf":
            return "L" + t[1]
        if t[0] == "list":
            return f"l{t[2]}{','.join(t[3])}({self.key(t[1], seen)})"
        if t[0] == "map":
            return f"m{'a' if t[2] else ''}({self.key(t[1], seen)})"
        if id(t) in seen:  # recursive (JSONSchemaProps-like): by identity
            return f"#{id(t)}"
        seen = seen | {id(t)}
        info = t[3]
        return (f"{t[2] or ''}{'a' if info['atomic'] else ''}"
                f"[{','.join(sorted(info['required'] & set(t[1])))}]{{"
                + ",".join(f"{n}:{self.key(f, seen)}" for n, f in sorted(t[1].items())) + "}")

    def number(self, t, label):
        if t == LEAF:
            return 0
        if id(t) in self.index:
            return self.index[id(t)]
        k = self.key(t, frozenset())
        if k in self.by_key:
            self.index[id(t)] = self.by_key[k]
            return self.by_key[k]
        i = len(self.types)
        self.types.append(None)
        self.labels.append(t[2] if t[0] == "object" and t[2] else label)
        self.index[id(t)] = i
        self.by_key[k] = i
        if t[0] == "leaf":
            self.types[i] = t
        elif t[0] == "object":
            fields = [(n, self.number(f, n), n in t[3]["required"])
                      for n, f in sorted(t[1].items())]
            self.types[i] = ("object", fields, t[2], t[3]["atomic"])
        elif t[0] == "list":
            keys = ",".join(t[3])
            if keys and keys not in self.keys:
                self.keys.append(keys)
            self.types[i] = ("list", self.number(t[1], label), t[2],
                             self.keys.index(keys) if keys else 0)
        else:
            self.types[i] = ("map", self.number(t[1], label), t[2])
        return i


def cpp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit(roots, sources, out):
    e = Emitter()
    numbered = [(api, kind, e.number(t, kind)) for (api, kind), t in roots]
    names = sorted({n for t in e.types if t[0] == "object" for n, _, _ in t[1]})
    pool, offset = "", {}
    for n in names:
        offset[n] = len(pool)
        pool += n
    assert len(pool) < 65536 and len(e.types) < 65536

    w = out.write
    w("// Generated by scripts/gen-field-schema.py; do not edit. The fields of every\n")
    w("// kind Scoria reads, from " + sources + ".\n")
    w("// clang-format off\n")
    w('#include "schema/field_schema.h"\n\nnamespace scoria::schema {\n\nnamespace {\n\n')
    w("// Every field name, end to end; a Field is an offset and a size into it.\n")
    w("constexpr char kNames[] =\n")
    line = ""
    for n in names:
        if len(line) + len(n) > 90:
            w(f"    {cpp_string(line)}\n")
            line = ""
        line += n
    w(f"    {cpp_string(line)};\n\n")

    w("// Each object type's fields, sorted by name: {name, size, required, type}.\n")
    w("constexpr Field kFields[] = {\n")
    first = {}
    count = 0
    for i, t in enumerate(e.types):
        if t[0] != "object" or not t[1]:
            continue
        first[i] = count
        w(f"    // {i} {e.labels[i]}\n")
        entries = [f"{{{offset[n]}, {len(n)}, {int(r)}, {ti}}}" for n, ti, r in t[1]]
        line = "   "
        for entry in entries:
            if len(line) + len(entry) + 2 > 98:
                w(line + "\n")
                line = "   "
            line += " " + entry + ","
        w(line + "\n")
        count += len(t[1])
    w("};\n\n")

    w("// By index: {shape, detail, first, count}: a leaf's scalar; an object's\n")
    w("// first field, number of fields and whether it is atomic; a list's list\n")
    w("// type, item type and keys (kListKeys); a map's value type and whether it\n")
    w("// is atomic. Objects are named in kFields.\n")
    w("constexpr Type kTypes[] = {\n")
    line = "   "
    for i, t in enumerate(e.types):
        if t[0] == "leaf":
            entry = f"{{Shape::kLeaf, {SCALAR_KINDS.index(t[1])}, 0, 0}}"
        elif t[0] == "object":
            entry = f"{{Shape::kObject, {int(t[3])}, {first.get(i, 0)}, {len(t[1])}}}"
        elif t[0] == "list":
            entry = f"{{Shape::kList, {LIST_TYPES.index(t[2])}, {t[1]}, {t[3]}}}"
        else:
            entry = f"{{Shape::kMap, {int(t[2])}, {t[1]}, 0}}"
        if len(line) + len(entry) + 2 > 98:
            w(line + "\n")
            line = "   "
        line += " " + entry + ","
    w(line + "\n};\n\n")

    w("// The keys of lists of type map, by Type::count: \"name\" or\n")
    w("// \"key,key=default\".\n")
    w("constexpr std::string_view kListKeys[] = {\n")
    for k in e.keys:
        w(f"    {cpp_string(k)},\n")
    w("};\n\n")

    w("// The OpenAPI name of each named object type, by type.\n")
    w("constexpr Named kNamed[] = {\n")
    for i, t in enumerate(e.types):
        if t[0] == "object" and t[2]:
            w(f"    {{{i}, {cpp_string(t[2])}}},\n")
    w("};\n\n")

    w("constexpr Root kRoots[] = {\n")
    for api, kind, i in numbered:
        w(f"    {{{cpp_string(api)}, {cpp_string(kind)}, {i}}},\n")
    w("};\n\n}  // namespace\n\n")
    w("const Table& table() {\n")
    w("  static constexpr Table kTable{std::string_view(kNames, sizeof kNames - 1), kFields, "
      "kTypes,\n                                kRoots, kListKeys, kNamed};\n")
    w("  return kTable;\n}\n\n}  // namespace scoria::schema\n")
    return len(e.types), count, len(pool)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--volcano", required=True, help="Volcano's git directory (bare or not)")
    p.add_argument("--rev", default="HEAD", help="the revision of Volcano to read (HEAD)")
    p.add_argument("--kubernetes-api", required=True,
                   help="k8s.io/api's git directory (kubernetes/api, bare or not)")
    p.add_argument("--apimachinery", required=True,
                   help="k8s.io/apimachinery's git directory (kubernetes/apimachinery)")
    a = p.parse_args()
    commit = subprocess.run(["git", "-C", a.volcano, "rev-parse", a.rev], check=True,
                            capture_output=True, text=True).stdout.strip()
    rev = lambda d: subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], check=True,
                                   capture_output=True, text=True).stdout.strip()[:12]

    s = Schema(GoTypes({"api": a.kubernetes_api, "apimachinery": a.apimachinery}))
    roots = []
    crd_roots = {}
    for (api, kind), file in CRDS.items():
        versions = crd_schema(a.volcano, commit, file)
        version = api.split("/")[1]
        (v,) = [v for v in versions if v["name"] == version]
        node = v["schema"]["openAPIV3Schema"]
        crd_roots[(api, kind)] = node
    # The Job's pod template is a recent PodSpec: lay it over the client's.
    job = crd_roots[("batch.volcano.sh/v1alpha1", "Job")]
    template = job["properties"]["spec"]["properties"]["tasks"]["items"]["properties"]["template"]
    s.lay_over(s.named_type("V1PodSpec"), template["properties"]["spec"])
    # ... and is that PodSpec (a superset of the CRD's: where the client
    # shares a class that Kubernetes later split, the union is known).
    s.known[id(template["properties"]["spec"])] = s.named_type("V1PodSpec")
    for (api, kind), cls in CORE.items():
        roots.append(((api, kind), s.named_type(cls)))
    for (api, kind), node in crd_roots.items():
        roots.append(((api, kind), s.of_crd(node, root=crd_definition(api, kind))))

    sources = (f"python3-kubernetes {kubernetes.__version__} (Kubernetes' core models),\n"
               f"// k8s.io/api {rev(a.kubernetes_api)} and k8s.io/apimachinery "
               f"{rev(a.apimachinery)} (list and map\n// types, Go types) and "
               f"Volcano {commit[:12]} (its CRDs), with the fields newer\n// Kubernetes added")
    types, fields, pool = emit(roots, sources, sys.stdout)
    print(f"{types} types, {fields} fields, {pool} bytes of names", file=sys.stderr)


if __name__ == "__main__":
    main()
