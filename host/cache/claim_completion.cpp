// What Kubernetes' resource-claim controller and the scheduler's PreBind
// do around a session, for the sources where none runs (object files in
// `simulate`, the local store): a pod naming a ResourceClaimTemplate gets
// its claim, POD-ENTRY, owned by the pod; a bind's claims get their
// allocation and the pod in reservedFor; a pod gone or finished leaves
// reservedFor, a claim no pod holds any more is deallocated, and a claim
// made for a pod is deleted with it. The changes go through the cache's one
// way in, as any source's.
#include <nlohmann/json.hpp>

#include "cache/claim_status.h"
#include "cache/cluster_cache.h"
#include "cache/object_json.h"

namespace scoria::cache {

namespace {

using nlohmann::json;

// The claim's status as its model says it.
void write_status(model::ResourceClaim& claim) {
  json j = parsed_object(claim.json);
  json& status = j["status"];
  if (!status.is_object()) status = json::object();
  status.erase("allocation");
  status.erase("reservedFor");
  if (claim.allocation) status["allocation"] = allocation_json(*claim.allocation);
  if (!claim.reserved_for.empty()) {
    json& reserved = status["reservedFor"] = json::array();
    for (const model::ClaimConsumer& c : claim.reserved_for) reserved.push_back(consumer_json(c));
  }
  if (status.empty()) j.erase("status");
  claim.json = object_text(j);
}

}  // namespace

std::vector<ObjectChange> ClusterCache::claim_completions(const cycle::Outcome& outcome) const {
  std::vector<ObjectChange> out;
  // A claim several binds name (shared) is written once, with them all.
  std::map<std::string, model::ResourceClaim> changed;
  for (const auto& bind : outcome.binds) {
    if (bind.claims.empty()) continue;
    const uint32_t slot = pods_.find(bind.pod);
    const std::string pod_uid = slot == kNone ? std::string() : pods_.at(slot).pod.uid;
    const std::string pod_name = bind.pod.substr(bind.pod.find('/') + 1);
    for (const cycle::Outcome::ClaimAllocation& a : bind.claims) {
      auto it = changed.find(a.claim);
      if (it == changed.end()) {
        const auto c = resource_claims_.find(a.claim);
        if (c == resource_claims_.end()) continue;
        it = changed.emplace(a.claim, c->second).first;
      }
      model::ResourceClaim& claim = it->second;
      if (a.allocated_now) claim.allocation = model::DeviceAllocation{a.devices, a.node_selector};
      const bool reserved =
          std::any_of(claim.reserved_for.begin(), claim.reserved_for.end(),
                      [&](const model::ClaimConsumer& r) { return r.name == pod_name; });
      if (!reserved) claim.reserved_for.push_back({"", "pods", pod_name, pod_uid});
    }
  }
  for (auto& [key, claim] : changed) {
    write_status(claim);
    out.push_back(ObjectChange::upsert(std::move(claim)));
  }
  return out;
}

std::vector<ObjectChange> ClusterCache::claim_controller() const {
  std::vector<ObjectChange> out;
  if (resource_claims_.empty() && claim_templates_.empty()) return out;
  const auto pod_of = [&](const std::string& ns, const std::string& name) -> const model::Pod* {
    const uint32_t slot = pods_.find(ns + "/" + name);
    return slot == kNone ? nullptr : &pods_.at(slot).pod;
  };
  const auto finished = [](const model::Pod& p) {
    return p.phase == model::PodPhase::Succeeded || p.phase == model::PodPhase::Failed;
  };
  for (const auto& entry : resource_claims_) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const std::string& key = entry.first;
    const model::ResourceClaim& claim = entry.second;
    // A claim made for a pod goes with it.
    if (claim.owner_kind == "Pod") {
      const model::Pod* owner = pod_of(claim.namespace_, claim.owner_name);
      if (owner == nullptr || !model::names_pod(*owner, claim.owner_name, claim.owner_uid)) {
        out.push_back(ObjectChange::remove(Kind::ResourceClaim, key));
        continue;
      }
    }
    const auto gone = [&](const model::ClaimConsumer& r) {
      if (r.resource != "pods" || !r.api_group.empty()) return false;
      const model::Pod* p = pod_of(claim.namespace_, r.name);
      return p == nullptr || finished(*p) || !model::names_pod(*p, r.name, r.uid);
    };
    if (std::none_of(claim.reserved_for.begin(), claim.reserved_for.end(), gone)) continue;
    model::ResourceClaim next = claim;
    std::erase_if(next.reserved_for, gone);
    if (next.reserved_for.empty()) next.allocation.reset();
    write_status(next);
    out.push_back(ObjectChange::upsert(std::move(next)));
  }
  if (claim_templates_.empty()) return out;
  pods_.each([&](uint32_t, const PodEntry& e) {
    const model::Pod& pod = e.pod;
    if (pod.device_claims.empty() || pod.deleting || finished(pod)) return;
    for (const model::DeviceClaimRef& ref : pod.device_claims) {
      if (ref.template_.empty() || !ref.made.empty()) continue;
      const std::string name = model::made_claim_name(pod, ref);
      if (resource_claims_.contains(pod.namespace_ + "/" + name)) continue;
      const auto t = claim_templates_.find(pod.namespace_ + "/" + ref.template_);
      if (t == claim_templates_.end()) continue;  // the pod waits for its template
      model::ResourceClaim claim;
      claim.namespace_ = pod.namespace_;
      claim.name = name;
      claim.annotations = t->second.annotations;
      claim.annotations["resource.kubernetes.io/pod-claim-name"] = ref.name;
      claim.owner_kind = "Pod";
      claim.owner_name = pod.name;
      claim.owner_uid = pod.uid;
      claim.spec = t->second.spec;
      json j = {{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceClaim"},
                {"metadata", {{"name", name}, {"namespace", pod.namespace_}}}};
      json owner = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"name", pod.name},
                    {"controller", true},
                    {"blockOwnerDeletion", true}};
      if (!pod.uid.empty()) owner["uid"] = pod.uid;
      j["metadata"]["ownerReferences"] = json::array({std::move(owner)});
      if (!t->second.labels.empty()) j["metadata"]["labels"] = t->second.labels;
      j["metadata"]["annotations"] = claim.annotations;
      const json tj = parsed_object(t->second.json);
      j["spec"] =
          tj.contains("spec") && tj["spec"].contains("spec") ? tj["spec"]["spec"] : json::object();
      claim.json = object_text(j);
      out.push_back(ObjectChange::upsert(std::move(claim)));
    }
  });
  return out;
}

}  // namespace scoria::cache
