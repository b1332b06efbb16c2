#!/usr/bin/python3
"""Writes host/schema/field_schema_table.cpp: every field of the kinds Scoria
reads, as Kubernetes and Volcano define them, for the unknown-field check
(host/schema/unknown_fields.h).

  scripts/gen-field-schema.py --volcano VOLCANO_GIT_DIR [--rev HEAD] \
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
NEW_CLASSES.update({
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
})

SCALARS = {"str", "int", "bool", "float", "datetime", "date", "object"}

# A type: ("leaf",) | ("object", {name: type}) | ("list", type) | ("map", type).
# Object types are mutable (fields are laid over); lists and maps hold them.
LEAF = ("leaf",)


class Schema:
    def __init__(self):
        self.named = {}  # class name -> object type
        self.known = {}  # id(CRD schema node) -> the type it is (a core one)

    # --- The Python client's models ------------------------------------
    def fields_of_class(self, name):
        if name in NEW_CLASSES:
            return dict(NEW_CLASSES[name])
        cls = getattr(models, name)
        out = {cls.attribute_map[attr]: t for attr, t in cls.openapi_types.items()}
        out.update(NEWER_FIELDS.get(name, {}))
        return out

    def of_client_type(self, t):
        if t in SCALARS:
            return LEAF
        m = re.fullmatch(r"list\[(.+)\]", t)
        if m:
            return wrap("list", self.of_client_type(m.group(1)))
        m = re.fullmatch(r"dict\(str, (.+)\)", t)
        if m:
            return wrap("map", self.of_client_type(m.group(1)))
        return self.named_type(t)

    def named_type(self, name):
        if name not in self.named:
            fields = {}
            self.named[name] = ("object", fields, name)
            for field, t in self.fields_of_class(name).items():
                fields[field] = self.of_client_type(t)
        return self.named[name]

    # --- A CRD's openAPIV3Schema ----------------------------------------
    def of_crd(self, node, root=False):
        if id(node) in self.known:
            return self.known[id(node)]
        if node.get("x-kubernetes-preserve-unknown-fields") or node.get(
                "x-kubernetes-int-or-string") or "anyOf" in node:
            return LEAF
        kind = node.get("type")
        if kind == "array":
            return wrap("list", self.of_crd(node.get("items", {})))
        if kind != "object":
            return LEAF
        if "properties" in node:
            fields = {}
            for name, sub in node["properties"].items():
                # The root's metadata is ObjectMeta, as for every kind.
                fields[name] = (self.named_type("V1ObjectMeta") if root and name == "metadata"
                                else self.of_crd(sub))
            if node.get("x-kubernetes-embedded-resource"):
                fields.setdefault("apiVersion", LEAF)
                fields.setdefault("kind", LEAF)
                fields.setdefault("metadata", self.named_type("V1ObjectMeta"))
            return ("object", fields, None)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            return wrap("map", self.of_crd(extra))
        if extra is True:
            return LEAF
        # An object with no properties: the API server prunes everything
        # under it, so nothing under it is known.
        return ("object", {}, None)

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


def wrap(shape, inner):
    # Nothing under a list or map of leaves is checked: it is a leaf itself.
    return LEAF if inner == LEAF else (shape, inner)


def crd_schema(git_dir, rev, file):
    text = subprocess.run(
        ["git", "-C", git_dir, "show", f"{rev}:config/crd/volcano/bases/{file}"],
        check=True, capture_output=True, text=True).stdout
    return yaml.safe_load(text)["spec"]["versions"]


# --- Emitting ---------------------------------------------------------------

class Emitter:
    """Numbers the types (shared by identity, then by structure) and lays out
    the tables."""

    def __init__(self):
        self.types = [("leaf",)]  # index 0: the leaf
        self.index = {}  # id(type) -> index
        self.by_key = {}  # structural key -> index
        self.labels = ["leaf"]

    def key(self, t, seen):
        if t[0] == "leaf":
            return "L"
        if t[0] in ("list", "map"):
            return t[0][0] + "(" + self.key(t[1], seen) + ")"
        if id(t) in seen:  # recursive (JSONSchemaProps-like): by identity
            return f"#{id(t)}"
        seen = seen | {id(t)}
        return "{" + ",".join(f"{n}:{self.key(f, seen)}" for n, f in sorted(t[1].items())) + "}"

    def number(self, t, label):
        if t[0] == "leaf":
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
        if t[0] == "object":
            fields = [(n, self.number(f, n)) for n, f in sorted(t[1].items())]
            self.types[i] = ("object", fields)
        else:
            self.types[i] = (t[0], self.number(t[1], label))
        return i


def cpp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit(roots, sources, out):
    e = Emitter()
    numbered = [(api, kind, e.number(t, kind)) for (api, kind), t in roots]
    names = sorted({n for t in e.types if t[0] == "object" for n, _ in t[1]})
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

    w("// Each object type's fields, sorted by name: {name, size, type}.\n")
    w("constexpr Field kFields[] = {\n")
    first = {}
    count = 0
    for i, t in enumerate(e.types):
        if t[0] != "object" or not t[1]:
            continue
        first[i] = count
        w(f"    // {i} {e.labels[i]}\n")
        entries = [f"{{{offset[n]}, {len(n)}, {ti}}}" for n, ti in t[1]]
        line = "   "
        for entry in entries:
            if len(line) + len(entry) + 2 > 98:
                w(line + "\n")
                line = "   "
            line += " " + entry + ","
        w(line + "\n")
        count += len(t[1])
    w("};\n\n")

    w("// By index: {shape, the first field (an object's) or the type of the items (a\n")
    w("// list's or map's), the number of fields}. Objects are named in kFields.\n")
    w("constexpr Type kTypes[] = {\n")
    line = "   "
    for i, t in enumerate(e.types):
        if t[0] == "leaf":
            entry = "{Shape::kLeaf, 0, 0}"
        elif t[0] == "object":
            entry = f"{{Shape::kObject, {first.get(i, 0)}, {len(t[1])}}}"
        else:
            entry = f"{{Shape::{'kList' if t[0] == 'list' else 'kMap'}, {t[1]}, 0}}"
        if len(line) + len(entry) + 2 > 98:
            w(line + "\n")
            line = "   "
        line += " " + entry + ","
    w(line + "\n};\n\n")

    w("constexpr Root kRoots[] = {\n")
    for api, kind, i in numbered:
        w(f"    {{{cpp_string(api)}, {cpp_string(kind)}, {i}}},\n")
    w("};\n\n}  // namespace\n\n")
    w("const Table& table() {\n")
    w("  static constexpr Table kTable{std::string_view(kNames, sizeof kNames - 1), kFields, "
      "kTypes,\n                                kRoots};\n")
    w("  return kTable;\n}\n\n}  // namespace scoria::schema\n")
    return len(e.types), count, len(pool)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--volcano", required=True, help="Volcano's git directory (bare or not)")
    p.add_argument("--rev", default="HEAD", help="the revision of Volcano to read (HEAD)")
    a = p.parse_args()
    commit = subprocess.run(["git", "-C", a.volcano, "rev-parse", a.rev], check=True,
                            capture_output=True, text=True).stdout.strip()

    s = Schema()
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
    for key, node in crd_roots.items():
        roots.append((key, s.of_crd(node, root=True)))

    sources = (f"python3-kubernetes {kubernetes.__version__} (Kubernetes' core models) and "
               f"Volcano\n// {commit[:12]} (its CRDs), with the fields newer Kubernetes added")
    types, fields, pool = emit(roots, sources, sys.stdout)
    print(f"{types} types, {fields} fields, {pool} bytes of names", file=sys.stderr)


if __name__ == "__main__":
    main()
