// What Kubernetes' PersistentVolume controller and a CSI provisioner do once
// the scheduler gave a claim a volume or a node, for the sources where no
// such controller runs (object files in `simulate`, the local store): a
// chosen volume and its claim become Bound to each other; a claim to
// provision gets a volume pvc-UID of its size, class and access modes, on
// the node's zone (or the node itself where it has none), and is Bound to
// it. The changes go through the cache's one way in, as any source's.
#include <nlohmann/json.hpp>

#include "cache/cluster_cache.h"

namespace scoria::cache {

namespace {

using nlohmann::json;

constexpr const char* kZoneLabel = "topology.kubernetes.io/zone";
constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

json parsed(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  return j.is_object() ? j : json::object();
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

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

}  // namespace

std::vector<ObjectChange> ClusterCache::volume_completions(const cycle::Outcome& outcome) const {
  std::vector<ObjectChange> out;
  for (const auto& bind : outcome.binds) {
    for (const cycle::Outcome::VolumeBinding& vb : bind.volumes) {
      const auto c = volume_claims_.find(vb.claim);
      if (c == volume_claims_.end()) continue;
      model::PersistentVolumeClaim claim = c->second;
      model::PersistentVolume volume;
      if (!vb.provision) {
        const auto v = persistent_volumes_.find(vb.volume);
        if (v == persistent_volumes_.end()) continue;
        volume = v->second;
      } else {
        // As a CSI provisioner makes it: on the node's zone, else the node.
        volume.name = vb.volume;
        volume.capacity = claim.request;
        volume.access_modes = claim.access_modes;
        volume.block = claim.block;
        std::string class_name = claim.storage_class.value_or("");
        if (class_name.empty())
          for (const auto& [name, sc] : storage_classes_)
            if (sc.is_default) class_name = name;
        volume.storage_class = class_name;
        if (const auto sc = storage_classes_.find(class_name); sc != storage_classes_.end()) {
          volume.csi_driver = sc->second.provisioner;
          volume.annotations["pv.kubernetes.io/provisioned-by"] = sc->second.provisioner;
        }
        volume.csi_handle = volume.name;
        model::NodeSelectorTerm term;
        const uint32_t n = nodes_.find(vb.node);
        const model::Node* node = n == kNone ? nullptr : &nodes_.at(n).node;
        if (node != nullptr && node->labels.contains(kZoneLabel))
          term.requirements.push_back(
              {kZoneLabel, model::SelectorOp::In, {node->labels.at(kZoneLabel)}, false});
        else
          term.requirements.push_back({kHostnameLabel,
                                       model::SelectorOp::In,
                                       {node != nullptr && node->labels.contains(kHostnameLabel)
                                            ? node->labels.at(kHostnameLabel)
                                            : vb.node},
                                       false});
        volume.node_affinity = {term};
        json pv = {
            {"apiVersion", "v1"},
            {"kind", "PersistentVolume"},
            {"metadata",
             {{"name", volume.name},
              {"annotations", {{"pv.kubernetes.io/provisioned-by", volume.csi_driver}}}}},
            {"spec",
             {{"capacity", {{"storage", bytes(volume.capacity)}}},
              {"accessModes", access_modes(volume.access_modes)},
              {"persistentVolumeReclaimPolicy", "Delete"},
              {"storageClassName", class_name},
              {"volumeMode", volume.block ? "Block" : "Filesystem"},
              {"csi", {{"driver", volume.csi_driver}, {"volumeHandle", volume.csi_handle}}},
              {"nodeAffinity",
               {{"required",
                 {{"nodeSelectorTerms",
                   json::array(
                       {{{"matchExpressions",
                          json::array({{{"key", term.requirements[0].key},
                                        {"operator", "In"},
                                        {"values", term.requirements[0].values}}})}}})}}}}}}}};
        volume.json = dump(pv);
      }
      // The volume bound to the claim.
      volume.claim_namespace = claim.namespace_;
      volume.claim_name = claim.name;
      volume.claim_uid = claim.uid;
      volume.phase = model::VolumePhase::Bound;
      {
        json pv = parsed(volume.json);
        pv["spec"]["claimRef"] = claim_ref(claim);
        pv["status"]["phase"] = "Bound";
        if (!vb.provision) {
          pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes";
          volume.annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
        }
        volume.json = dump(pv);
      }
      // The claim bound to the volume.
      claim.volume_name = volume.name;
      claim.phase = model::ClaimPhase::Bound;
      claim.annotations["pv.kubernetes.io/bind-completed"] = "yes";
      if (!vb.provision) claim.annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
      if (vb.provision) claim.annotations["volume.kubernetes.io/selected-node"] = vb.node;
      {
        json pvc = parsed(claim.json);
        pvc["spec"]["volumeName"] = volume.name;
        json& annotations = pvc["metadata"]["annotations"];
        for (const auto& [k, v] : claim.annotations) annotations[k] = v;
        pvc["status"]["phase"] = "Bound";
        pvc["status"]["accessModes"] = access_modes(volume.access_modes);
        pvc["status"]["capacity"] = {{"storage", bytes(volume.capacity)}};
        claim.json = dump(pvc);
      }
      out.push_back(ObjectChange::upsert(std::move(volume)));
      out.push_back(ObjectChange::upsert(std::move(claim)));
    }
  }
  return out;
}

}  // namespace scoria::cache
