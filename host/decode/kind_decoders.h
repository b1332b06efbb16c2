// The decoders of each kind (one file each), called by object_decoder.cpp
// once kind, apiVersion and metadata are checked.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "decode/field_reader.h"
#include "model/devices.h"
#include "model/node_shard.h"
#include "model/objects.h"
#include "model/storage.h"

namespace scoria::decode {

/// One object being decoded: its reader, its mapping and metadata, and
/// where they sit in the document.
struct ObjectFields {
  const FieldReader& r;
  const Node& obj;
  const FieldPath& root;
  const Node& meta;
  const FieldPath& meta_path;
};

/// The owner reference with controller: true (at most one may say so);
/// empty fields if none (owner_reference.cpp).
struct ControllerRef {
  std::string kind, name, uid;
};
ControllerRef read_controller(const ObjectFields& f);

/// What a claim (PersistentVolumeClaim, ResourceClaim) takes from its
/// metadata: uid, annotations, whether it is being deleted, and the owner
/// that controls it (a claim made for a pod is the pod's).
template <class Claim>
void read_claim_metadata(const ObjectFields& f, Claim& c) {
  c.uid = f.r.text_field(f.meta, "uid", f.meta_path);
  c.annotations = f.r.string_map(f.meta, "annotations", f.meta_path);
  c.deleting = !f.r.text_field(f.meta, "deletionTimestamp", f.meta_path).empty();
  ControllerRef owner = read_controller(f);
  c.owner_kind = std::move(owner.kind);
  c.owner_name = std::move(owner.name);
  c.owner_uid = std::move(owner.uid);
}

model::Node decode_node(const ObjectFields& f);
model::Pod decode_pod(const ObjectFields& f);
model::PodGroup decode_pod_group(const ObjectFields& f);
/// What every PodGroup takes from its metadata (pod_group_decoder.cpp):
/// annotations, volcano.sh/preemptable (false when unset), creation time
/// and uid.
void read_pod_group_metadata(const ObjectFields& f, model::PodGroup& g);
/// scheduling.k8s.io PodGroup and Workload (workload_decoder.cpp), at
/// `api_version` (v1beta1 or v1alpha2). A Workload decides nothing (the
/// scheduler reads its groups' own policies), so it is only checked.
model::PodGroup decode_native_pod_group(const ObjectFields& f, std::string_view api_version);
void check_workload(const ObjectFields& f, std::string_view api_version);
model::Queue decode_queue(const ObjectFields& f);
model::PriorityClass decode_priority_class(const ObjectFields& f, bool& never_preempt);
model::Namespace decode_namespace(const ObjectFields& f);
model::PodDisruptionBudget decode_disruption_budget(const ObjectFields& f);
model::ResourceQuota decode_resource_quota(const ObjectFields& f);
model::Numatopology decode_numatopology(const ObjectFields& f);
model::HyperNode decode_hyper_node(const ObjectFields& f);
model::NodeShard decode_node_shard(const ObjectFields& f);
model::PersistentVolume decode_persistent_volume(const ObjectFields& f);
model::PersistentVolumeClaim decode_volume_claim(const ObjectFields& f);
model::StorageClass decode_storage_class(const ObjectFields& f);
model::CSINode decode_csi_node(const ObjectFields& f);
model::CSIDriver decode_csi_driver(const ObjectFields& f);
model::CSIStorageCapacity decode_storage_capacity(const ObjectFields& f);
model::DeviceClass decode_device_class(const ObjectFields& f);
model::ResourceSlice decode_resource_slice(const ObjectFields& f);
model::ResourceClaim decode_resource_claim(const ObjectFields& f);
model::ResourceClaimTemplate decode_resource_claim_template(const ObjectFields& f);

}  // namespace scoria::decode
