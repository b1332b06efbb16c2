// What Kubernetes' PersistentVolume controller and a CSI provisioner do once
// the scheduler gave a claim a volume or a node, for the sources where no
// such controller runs (object files in `simulate`, the local store): a
// chosen volume and its claim become Bound to each other; a claim to
// provision gets a volume pvc-UID of its size, class and access modes, on
// the node's zone (or the node itself where it has none), and is Bound to
// it. The changes go through the cache's one way in, as any source's.
#include <nlohmann/json.hpp>
#include <optional>

#include "cache/claim_status.h"
#include "cache/cluster_cache.h"
#include "cache/object_json.h"

namespace scoria::cache {

namespace {

using nlohmann::json;

constexpr const char* kZoneLabel = "topology.kubernetes.io/zone";
constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

json access_modes(uint8_t modes) {
  json out = json::array();
  if (modes & model::kReadWriteOnce) out.push_back("ReadWriteOnce");
  if (modes & model::kReadOnlyMany) out.push_back("ReadOnlyMany");
  if (modes & model::kReadWriteMany) out.push_back("ReadWriteMany");
  if (modes & model::kReadWriteOncePod) out.push_back("ReadWriteOncePod");
  return out;
}

json claim_ref(const model::PersistentVolumeClaim& c) {
  json ref = {{"kind", "PersistentVolumeClaim"},
              {"apiVersion", "v1"},
              {"namespace", c.namespace_},
              {"name", c.name}};
  if (!c.uid.empty()) ref["uid"] = c.uid;
  return ref;
}

// Whole bytes as a quantity (no rounding: the request is whole bytes).
std::string bytes(double b) { return std::to_string(static_cast<int64_t>(b)); }

// The volume a CSI provisioner makes for `claim` on `node` (null: not in
// the cache): its size, class and access modes, on the node's zone, else
// the node itself. Fills `volume`; returns its object.
json provisioned(const model::PersistentVolumeClaim& claim, const cycle::Outcome::VolumeBinding& vb,
                 const model::Node* node, const std::map<std::string, model::StorageClass>& classes,
                 model::PersistentVolume& volume) {
  volume.name = vb.volume;
  volume.capacity = claim.request;
  volume.access_modes = claim.access_modes;
  volume.block = claim.block;
  volume.storage_class = model::claim_class_name(claim, classes);
  if (const auto sc = classes.find(volume.storage_class); sc != classes.end()) {
    volume.csi_driver = sc->second.provisioner;
    volume.annotations["pv.kubernetes.io/provisioned-by"] = sc->second.provisioner;
  }
  volume.csi_handle = volume.name;
  const auto label = [&](const char* key) -> std::optional<std::string> {
    if (node == nullptr) return std::nullopt;
    const auto it = node->labels.find(key);
    return it == node->labels.end() ? std::nullopt : std::optional(it->second);
  };
  const auto zone = label(kZoneLabel);
  model::SelectorRequirement where{zone ? kZoneLabel : kHostnameLabel,
                                   model::SelectorOp::In,
                                   {zone ? *zone : label(kHostnameLabel).value_or(vb.node)},
                                   false};
  volume.node_affinity = {model::NodeSelectorTerm{{where}, 0}};
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata",
           {{"name", volume.name},
            {"annotations", {{"pv.kubernetes.io/provisioned-by", volume.csi_driver}}}}},
          {"spec",
           {{"capacity", {{"storage", bytes(volume.capacity)}}},
            {"accessModes", access_modes(volume.access_modes)},
            {"persistentVolumeReclaimPolicy", "Delete"},
            {"storageClassName", volume.storage_class},
            {"volumeMode", volume.block ? "Block" : "Filesystem"},
            {"csi", {{"driver", volume.csi_driver}, {"volumeHandle", volume.csi_handle}}},
            {"nodeAffinity", {{"required", node_selector_json(volume.node_affinity)}}}}}};
}

}  // namespace

std::vector<ObjectChange> ClusterCache::volume_completions(const cycle::Outcome& outcome) const {
  std::vector<ObjectChange> out;
  for (const auto& bind : outcome.binds) {
    for (const cycle::Outcome::VolumeBinding& vb : bind.volumes) {
      const auto c = volume_claims_.find(vb.claim);
      if (c == volume_claims_.end()) continue;
      model::PersistentVolumeClaim claim = c->second;
      model::PersistentVolume volume;
      json pv;
      if (!vb.provision) {
        const auto v = persistent_volumes_.find(vb.volume);
        if (v == persistent_volumes_.end()) continue;
        volume = v->second;
        pv = parsed_object(volume.json);
      } else {
        const uint32_t n = nodes_.find(vb.node);
        pv = provisioned(claim, vb, n == kNone ? nullptr : &nodes_.at(n).node, storage_classes_,
                         volume);
      }
      // Objects read without their text (object files) stay without: only
      // the local store, which keeps every object's text, reads it back.
      const bool volume_text = vb.provision ? !claim.json.empty() : !volume.json.empty();
      // The volume bound to the claim.
      volume.claim_namespace = claim.namespace_;
      volume.claim_name = claim.name;
      volume.claim_uid = claim.uid;
      volume.phase = model::VolumePhase::Bound;
      if (!vb.provision) volume.annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
      if (volume_text) {
        pv["spec"]["claimRef"] = claim_ref(claim);
        pv["status"]["phase"] = "Bound";
        if (!vb.provision)
          pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes";
        volume.json = object_text(pv);
      }
      // The claim bound to the volume.
      claim.volume_name = volume.name;
      claim.phase = model::ClaimPhase::Bound;
      claim.annotations["pv.kubernetes.io/bind-completed"] = "yes";
      if (!vb.provision) claim.annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
      if (vb.provision) claim.annotations["volume.kubernetes.io/selected-node"] = vb.node;
      if (!claim.json.empty()) {
        json pvc = parsed_object(claim.json);
        pvc["spec"]["volumeName"] = volume.name;
        json& annotations = pvc["metadata"]["annotations"];
        for (const auto& [k, v] : claim.annotations) annotations[k] = v;
        pvc["status"]["phase"] = "Bound";
        pvc["status"]["accessModes"] = access_modes(volume.access_modes);
        pvc["status"]["capacity"] = {{"storage", bytes(volume.capacity)}};
        claim.json = object_text(pvc);
      }
      out.push_back(ObjectChange::upsert(std::move(volume)));
      out.push_back(ObjectChange::upsert(std::move(claim)));
    }
  }
  return out;
}

}  // namespace scoria::cache
