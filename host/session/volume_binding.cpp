#include "session/volume_binding.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "model/label_selector.h"
#include "model/node_selector.h"
#include "plugin/reason_table.h"
#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

namespace {

using model::PersistentVolume;
using model::PersistentVolumeClaim;

constexpr const char* kBindCompleted = "pv.kubernetes.io/bind-completed";

uint32_t intern(const std::string& text) { return plugin::intern_reason(text); }

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Fully bound as the PV controller leaves a claim: its volume named and the
// binding completed (a source without that controller says so by phase).
bool fully_bound(const PersistentVolumeClaim& c) {
  return !c.volume_name.empty() &&
         (c.annotations.contains(kBindCompleted) || c.phase == model::ClaimPhase::Bound);
}

bool claim_refers_to(const PersistentVolume& v, const PersistentVolumeClaim& c) {
  return v.claim_name == c.name && v.claim_namespace == c.namespace_ &&
         (v.claim_uid.empty() || v.claim_uid == c.uid);
}

bool affinity_allows(const PersistentVolume& v, const model::Node& node) {
  return v.node_affinity.empty() || model::matches_any_term(v.node_affinity, node.labels);
}

// VolumeZone's labels: GA and beta zone and region.
constexpr const char* kZoneLabels[] = {
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};

std::string_view ga_label(std::string_view key) {
  if (key == kZoneLabels[0]) return kZoneLabels[2];
  if (key == kZoneLabels[1]) return kZoneLabels[3];
  return {};
}

// A zone label's values: "a__b" is either zone, spaces trimmed; a value
// with an empty part is ignored, as kube-scheduler ignores it.
std::optional<std::vector<std::string>> zone_values(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t sep = value.find("__", start);
    std::string part = value.substr(start, sep == std::string::npos ? sep : sep - start);
    const size_t a = part.find_first_not_of(' '), b = part.find_last_not_of(' ');
    if (a == std::string::npos) return std::nullopt;
    out.push_back(part.substr(a, b - a + 1));
    if (sep == std::string::npos) return out;
    start = sep + 2;
  }
}

}  // namespace

void VolumeBinder::reset(const cycle::Storage& storage, std::span<const Task> tasks) {
  storage_ = storage;
  tasks_ = tasks;
  claim_users_.reset();
  prepared_.reset(tasks.size());
  taken_.clear();
  decided_.clear();
  assumed_.clear();
  shared_.clear();
  if (why_.node_conflict == 0) {
    why_.node_conflict = intern("node(s) had volume node affinity conflict");
    why_.bind_conflict = intern("node(s) didn't find available persistent volumes to bind");
    why_.not_enough_space = intern("node(s) did not have enough free storage");
    why_.pv_not_exist =
        intern("node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
    why_.no_zone = intern("node(s) had no available volume zone");
    why_.max_volumes = intern("node(s) exceed max volume count");
    why_.once_pod = intern(
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
        "mode");
    why_.immediate = intern("pod has unbound immediate PersistentVolumeClaims");
    // Both a bound and an unbound claim failing, in FindPodVolumes' order
    // (node conflict, bind conflict, not enough space, bound volume missing).
    const auto both = [](uint32_t first, uint32_t second) {
      return intern(std::string(plugin::reason_text(first)) + ", " +
                    std::string(plugin::reason_text(second)));
    };
    why_.node_and_bind = both(why_.node_conflict, why_.bind_conflict);
    why_.node_and_space = both(why_.node_conflict, why_.not_enough_space);
    why_.bind_and_missing = both(why_.bind_conflict, why_.pv_not_exist);
    why_.space_and_missing = both(why_.not_enough_space, why_.pv_not_exist);
  }
}

const model::StorageClass* VolumeBinder::class_of(const PersistentVolumeClaim& pvc,
                                                  std::string* name) const {
  if (storage_.classes == nullptr) return nullptr;
  *name = model::claim_class_name(pvc, *storage_.classes);
  const auto it = storage_.classes->find(*name);
  return it == storage_.classes->end() ? nullptr : &it->second;
}

VolumeBinder::Prepared VolumeBinder::prepare(const Task& task) const {
  Prepared p;
  const model::Pod& pod = *task.pod;
  bool immediate = false;
  for (uint32_t position = 0; position < pod.claims.size(); ++position) {
    const model::PodClaim& pc = pod.claims[position];
    Claim c;
    c.position = position;
    c.key = pod.namespace_ + "/" + pc.name;
    c.ephemeral = pc.ephemeral;
    if (storage_.claims != nullptr)
      if (const auto it = storage_.claims->find(c.key); it != storage_.claims->end())
        c.pvc = &it->second;
    const PersistentVolumeClaim* pvc = c.pvc;
    // VolumeRestrictions looks each persistentVolumeClaim volume up first.
    if (pvc == nullptr && !pc.ephemeral && p.restrictions_error == 0)
      p.restrictions_error = intern("persistentvolumeclaim " + in_quotes(pc.name) + " not found");
    // VolumeZone reads the named claims only.
    if (!pc.ephemeral && p.zone_error == 0) {
      if (pvc == nullptr) {
        p.zone_error = intern("persistentvolumeclaim " + in_quotes(pc.name) + " not found");
      } else if (pvc->volume_name.empty()) {
        std::string name;
        const model::StorageClass* sc = class_of(*pvc, &name);
        if (name.empty())
          p.zone_error = intern("PersistentVolumeClaim had no pv name and storageClass name");
        else if (sc == nullptr)
          p.zone_error = intern("storageclasses.storage.k8s.io " + in_quotes(name) + " not found");
        else if (sc->binding_mode != model::BindingMode::WaitForFirstConsumer)
          p.zone_error = intern("PersistentVolume had no name");
      } else if (storage_.volumes == nullptr || !storage_.volumes->contains(pvc->volume_name)) {
        p.zone_error = intern("persistentvolume " + in_quotes(pvc->volume_name) + " not found");
      } else {
        const PersistentVolume& v = storage_.volumes->at(pvc->volume_name);
        for (const char* label : kZoneLabels)
          if (const auto it = v.labels.find(label); it != v.labels.end())
            if (auto values = zone_values(it->second))
              p.zones.emplace_back(label, std::move(*values));
      }
    }
    // VolumeBinding's PreFilter: the first claim in trouble decides.
    if (p.binding_error == 0) {
      if (pvc == nullptr) {
        p.binding_error =
            intern(pc.ephemeral ? "waiting for ephemeral volume controller to create the "
                                  "persistentvolumeclaim " +
                                      in_quotes(pc.name)
                                : "persistentvolumeclaim " + in_quotes(pc.name) + " not found");
      } else if (pvc->phase == model::ClaimPhase::Lost) {
        p.binding_error =
            intern("persistentvolumeclaim " + in_quotes(pc.name) +
                   " bound to non-existent persistentvolume " + in_quotes(pvc->volume_name));
      } else if (pvc->deleting) {
        p.binding_error =
            intern("persistentvolumeclaim " + in_quotes(pc.name) + " is being deleted");
      } else if (pc.ephemeral &&
                 (pvc->owner_kind != "Pod" ||
                  (pod.uid.empty() ? pvc->owner_name != pod.name : pvc->owner_uid != pod.uid))) {
        p.binding_error = intern("PVC " + c.key + " was not created for pod " + pod.key() +
                                 " (pod is not owner)");
      }
    }
    if (pvc == nullptr) continue;
    c.once_pod = (pvc->access_modes & model::kReadWriteOncePod) != 0;
    c.named_by_others = named_by_others(c.key);
    if (fully_bound(*pvc)) {
      c.state = Claim::State::Bound;
      if (storage_.volumes != nullptr)
        if (const auto it = storage_.volumes->find(pvc->volume_name); it != storage_.volumes->end())
          c.volume = &it->second;
    } else {
      c.storage_class = class_of(*pvc, &c.class_name);
      // kube-scheduler looks the class up to learn its binding mode; one
      // that does not exist is that lookup's error, not "unbound immediate".
      if (c.storage_class == nullptr && !c.class_name.empty() && p.binding_error == 0)
        p.binding_error =
            intern("storageclasses.storage.k8s.io " + in_quotes(c.class_name) + " not found");
      const bool delayed =
          c.storage_class != nullptr &&
          c.storage_class->binding_mode == model::BindingMode::WaitForFirstConsumer &&
          pvc->volume_name.empty();
      c.state = delayed ? Claim::State::Delayed : Claim::State::Immediate;
      immediate = immediate || !delayed;
    }
    p.claims.push_back(std::move(c));
  }
  if (p.binding_error == 0 && immediate) p.binding_error = why_.immediate;
  for (uint32_t i = 0; i < p.claims.size(); ++i) {
    Claim& c = p.claims[i];
    p.keeps = p.keeps && !(c.once_pod && !c.ephemeral);
    if (c.state == Claim::State::Bound) p.bound.push_back(i);
    if (c.state != Claim::State::Delayed) continue;
    p.reads_taken = true;
    p.delayed.push_back(i);
    c.selected = c.pvc->selected_node();
    if (c.selected.empty()) p.by_request.push_back(i);
  }
  std::stable_sort(p.by_request.begin(), p.by_request.end(), [&](uint32_t a, uint32_t b) {
    return p.claims[a].pvc->request < p.claims[b].pvc->request;
  });
  if (p.keeps) p.meaning = meaning_of(p, pod);
  return p;
}

std::string VolumeBinder::meaning_of(const Prepared& p, const model::Pod& pod) const {
  // The reasons, interned: one id, one text.
  std::string out;
  for (const uint32_t id : {p.restrictions_error, p.binding_error, p.zone_error}) {
    out += std::to_string(id);
    out += ',';
  }
  // p.claims holds the claims found, in the pod's order.
  auto c = p.claims.begin();
  for (uint32_t position = 0; position < pod.claims.size(); ++position) {
    out += pod.claims[position].ephemeral ? "|e" : "|n";
    if (c == p.claims.end() || c->position != position) {
      out += "missing";  // no claim object: the reasons above say which
      continue;
    }
    const std::string& key = c->key;
    // A claim another pod also names counts once on a node (the attach
    // limit), and one a volume is pre-bound to has that volume only: their
    // answers depend on which claim it is.
    const bool prebound =
        storage_.prebound_claims != nullptr && storage_.prebound_claims->contains(key);
    const PersistentVolumeClaim& pvc = *c->pvc;
    if (c->named_by_others || prebound || pvc.selector ||
        (c->state == Claim::State::Bound && c->volume == nullptr)) {
      out += "claim:" + key;
    } else if (c->state == Claim::State::Bound) {
      out += "bound:" + pvc.volume_name;
    } else if (c->state == Claim::State::Immediate) {
      out += "immediate:" + pvc.volume_name;
    } else {
      // Waiting for a first consumer: what find_volume and provision read.
      out += "delayed:";
      out += c->class_name;
      // The request's bits, the access modes, the mode: compared only.
      char bits[sizeof pvc.request];
      std::memcpy(bits, &pvc.request, sizeof bits);
      out.append(bits, sizeof bits);
      out += static_cast<char>('0' + pvc.access_modes);
      out += pvc.block ? 'b' : 'f';
      out += c->selected;
    }
    ++c;
  }
  return out;
}

bool VolumeBinder::named_by_others(const std::string& key) const {
  if (storage_.claim_pods == nullptr) return false;
  const auto it = storage_.claim_pods->find(key);
  return it != storage_.claim_pods->end() && it->second > 1;
}

VolumeBinder::Sharing VolumeBinder::sharing(const Task& task) const {
  if (task.pod->claims.empty()) return {};
  const Prepared& p = prepared(task);
  return {p.keeps, p.reads_taken, p.shared};
}

const VolumeBinder::Prepared& VolumeBinder::prepared(const Task& task) const {
  // Made once per task and session; read without the lock after that (the
  // predicate workers ask for every node).
  return prepared_.get(task.index, mutex_, [&] {
    Prepared p = prepare(task);
    if (p.keeps && task.views != nullptr && task.views->alike_but_claims != 0)
      p.shared = shared_
                     .try_emplace(std::to_string(task.views->alike_but_claims) + "/" + p.meaning,
                                  kSharedClasses + static_cast<uint32_t>(shared_.size()))
                     .first->second;
    return p;
  });
}

uint32_t VolumeBinder::task_wide_reason(const Task& task) const {
  if (task.pod->claims.empty()) return 0;
  const Prepared& p = prepared(task);
  if (p.restrictions_error != 0) return p.restrictions_error;
  if (p.binding_error != 0) return p.binding_error;
  return p.zone_error;
}

scoria_code VolumeBinder::check(const Task& task, const Node& node, uint32_t checks,
                                uint32_t* reason) const {
  *reason = 0;
  if (task.pod->claims.empty() || checks == 0) return SCORIA_OK;
  const Prepared& p = prepared(task);
  const auto refuse = [&](uint32_t why, scoria_code code) {
    *reason = why;
    return code;
  };
  constexpr scoria_code kNever = SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  // PreFilter, in kube-scheduler's plugin order; the first rejection stops.
  if ((checks & SCORIA_VOLUME_RESTRICTIONS) && p.restrictions_error != 0)
    return refuse(p.restrictions_error, kNever);
  if ((checks & SCORIA_VOLUME_BINDING) && p.binding_error != 0)
    return refuse(p.binding_error, kNever);
  if ((checks & SCORIA_VOLUME_ZONE) && p.zone_error != 0) return refuse(p.zone_error, kNever);
  // Filter, in the same order.
  if ((checks & SCORIA_VOLUME_RESTRICTIONS) && once_pod_in_use(p, task))
    return refuse(why_.once_pod, SCORIA_UNSCHEDULABLE);
  if ((checks & SCORIA_VOLUME_LIMITS) && !check_limits(p, task, node))
    return refuse(why_.max_volumes, SCORIA_UNSCHEDULABLE);
  if (checks & SCORIA_VOLUME_BINDING)
    if (const uint32_t why = check_binding(p, task, node, nullptr); why != 0)
      return refuse(why, kNever);
  if (checks & SCORIA_VOLUME_ZONE)
    if (const uint32_t why = check_zone(p, node); why != 0) return refuse(why, kNever);
  return SCORIA_OK;
}

bool VolumeBinder::once_pod_in_use(const Prepared& p, const Task& task) const {
  // Cluster-wide, as VolumeRestrictions counts it: any other pod on a node
  // (this session's placements included, and not the pods a preemption
  // question took off) using the claim. Who names a claim is fixed for the
  // session; where those pods are is read as it is now.
  if (std::none_of(p.claims.begin(), p.claims.end(),
                   [](const Claim& c) { return c.once_pod && !c.ephemeral; }))
    return false;
  const auto& users = claim_users();
  for (const Claim& c : p.claims) {
    if (!c.once_pod || c.ephemeral) continue;
    const auto it = users.find(c.key);
    if (it == users.end()) continue;
    for (const uint32_t i : it->second) {
      const Task& other = tasks_[i];
      if (i != task.index && other.node >= 0 &&
          (other.status & (SCORIA_TASK_SUCCEEDED | SCORIA_TASK_FAILED)) == 0)
        return true;
    }
  }
  return false;
}

const std::unordered_map<std::string, std::vector<uint32_t>>& VolumeBinder::claim_users() const {
  // Found once per session, and only when a ReadWriteOncePod claim asks.
  const std::lock_guard lock(mutex_);
  if (!claim_users_) {
    claim_users_.emplace();
    for (const Task& t : tasks_)
      for (const model::PodClaim& c : t.pod->claims)
        if (!c.ephemeral) (*claim_users_)[t.pod->namespace_ + "/" + c.name].push_back(t.index);
  }
  return *claim_users_;
}

std::pair<std::string, std::string> VolumeBinder::attachment(const model::PodClaim& claim,
                                                             const model::Pod& pod) const {
  const std::string key = pod.namespace_ + "/" + claim.name;
  if (storage_.claims == nullptr) return {};
  const auto it = storage_.claims->find(key);
  if (it == storage_.claims->end()) return {};
  const PersistentVolumeClaim& pvc = it->second;
  if (!pvc.volume_name.empty() && storage_.volumes != nullptr)
    if (const auto v = storage_.volumes->find(pvc.volume_name); v != storage_.volumes->end())
      return v->second.csi_driver.empty() ? std::pair<std::string, std::string>{}
                                          : std::pair{v->second.csi_driver, v->second.csi_handle};
  std::string name;
  const model::StorageClass* sc = class_of(pvc, &name);
  if (sc == nullptr) return {};
  return {sc->provisioner, "claim:" + key};
}

bool VolumeBinder::check_limits(const Prepared& /*p*/, const Task& task, const Node& node) const {
  if (storage_.csi_nodes == nullptr) return true;
  const auto csi = storage_.csi_nodes->find(node.spec->name);
  if (csi == storage_.csi_nodes->end()) return true;
  std::map<std::string, int64_t> limits;
  for (const model::CSINode::Driver& d : csi->second.drivers)
    if (d.allocatable) limits[d.name] = *d.allocatable;
  if (limits.empty()) return true;
  std::set<std::pair<std::string, std::string>> wanted;
  for (const model::PodClaim& c : task.pod->claims)
    if (auto a = attachment(c, *task.pod); !a.first.empty() && limits.contains(a.first))
      wanted.insert(std::move(a));
  if (wanted.empty()) return true;
  std::set<std::pair<std::string, std::string>> attached;
  for (const uint32_t t : node.tasks) {
    const Task& other = tasks_[t];
    if (t == task.index) continue;
    for (const model::PodClaim& c : other.pod->claims)
      if (auto a = attachment(c, *other.pod); !a.first.empty()) attached.insert(std::move(a));
  }
  std::map<std::string, int64_t> count;
  for (const auto& a : attached) ++count[a.first];
  for (const auto& a : wanted)
    if (!attached.contains(a)) ++count[a.first];
  for (const auto& [driver, n] : count)
    if (const auto l = limits.find(driver); l != limits.end() && n > l->second) return false;
  return true;
}

const PersistentVolume* VolumeBinder::find_volume(
    const Claim& c, const Node& node, const std::vector<const PersistentVolume*>& chosen) const {
  if (storage_.unbound_by_class == nullptr) return nullptr;
  const auto list = storage_.unbound_by_class->find(c.class_name);
  if (list == storage_.unbound_by_class->end()) return nullptr;
  const PersistentVolumeClaim& pvc = *c.pvc;
  const PersistentVolume* best = nullptr;
  for (const PersistentVolume* v : list->second) {
    if (std::find(chosen.begin(), chosen.end(), v) != chosen.end()) continue;
    if (const auto t = taken_.find(v); t != taken_.end()) continue;
    if (v->claimed() && !claim_refers_to(*v, pvc)) continue;
    if (v->capacity < pvc.request || v->block != pvc.block || v->deleting) continue;
    const bool fits = affinity_allows(*v, *node.spec);
    // A volume pre-bound to the claim is its only choice.
    if (v->claimed()) return fits ? v : nullptr;
    if (v->phase != model::VolumePhase::Available || !fits) continue;
    if (pvc.selector && !model::selects(*pvc.selector, v->labels)) continue;
    if (v->class_name() != c.class_name) continue;
    if ((pvc.access_modes & v->access_modes) != pvc.access_modes) continue;
    if (best == nullptr || v->capacity < best->capacity) best = v;
  }
  return best;
}

VolumeBinder::Match VolumeBinder::provision(const Claim& c, const Node& node) const {
  const model::StorageClass* sc = c.storage_class;
  if (sc == nullptr || sc->provisioner.empty() || !sc->provisions())
    return {nullptr, false, why_.bind_conflict};
  if (!sc->allowed_topologies.empty() &&
      !model::matches_any_term(sc->allowed_topologies, node.spec->labels))
    return {nullptr, false, why_.bind_conflict};
  // CSIStorageCapacity, when the driver publishes it.
  const double request = c.pvc->request;
  if (request > 0 && storage_.csi_drivers != nullptr) {
    const auto d = storage_.csi_drivers->find(sc->provisioner);
    if (d != storage_.csi_drivers->end() && d->second.storage_capacity) {
      bool room = false;
      if (storage_.capacities != nullptr)
        for (const auto& [key, cap] : *storage_.capacities) {
          if (cap.storage_class != sc->name || !cap.node_topology) continue;
          const std::optional<double> limit =
              cap.maximum_volume_size ? cap.maximum_volume_size : cap.capacity;
          if (!limit || *limit < request) continue;
          if (model::selects(*cap.node_topology, node.spec->labels)) {
            room = true;
            break;
          }
        }
      if (!room) return {nullptr, false, why_.not_enough_space};
    }
  }
  return {nullptr, true, 0};
}

uint32_t VolumeBinder::check_binding(const Prepared& p, const Task& /*task*/, const Node& node,
                                     std::vector<Match>* matches) const {
  // Bound claims: their volume exists and its node affinity allows the node
  // (the first that fails decides). The unbound claims are checked as well,
  // and the node's reason names both failures in kube-scheduler's order, as
  // Volcano joins a status's reasons.
  uint32_t bound_why = 0;
  for (const uint32_t i : p.bound) {
    const Claim& c = p.claims[i];
    if (c.volume == nullptr) {
      bound_why = why_.pv_not_exist;
      break;
    }
    if (!affinity_allows(*c.volume, *node.spec)) {
      bound_why = why_.node_conflict;
      break;
    }
  }
  const uint32_t unbound_why = check_unbound(p, node, bound_why == 0 ? matches : nullptr);
  if (unbound_why == 0) return bound_why;
  if (bound_why == 0) return unbound_why;
  return joined_reason(bound_why, unbound_why);
}

uint32_t VolumeBinder::joined_reason(uint32_t bound_why, uint32_t unbound_why) const {
  if (bound_why == why_.node_conflict)
    return unbound_why == why_.bind_conflict ? why_.node_and_bind : why_.node_and_space;
  return unbound_why == why_.bind_conflict ? why_.bind_and_missing : why_.space_and_missing;
}

uint32_t VolumeBinder::check_unbound(const Prepared& p, const Node& node,
                                     std::vector<Match>* matches) const {
  if (p.delayed.empty()) return 0;
  // Claims waiting for a first consumer: one decided this session for
  // another pod naming it, as kube-scheduler's assumed claim, is bound to
  // that volume or provisioned on that node; a node already selected for
  // one decides it; the others take the smallest volume that fits,
  // smallest claim first, else a volume their class provisions here.
  if (matches != nullptr) matches->assign(p.claims.size(), Match{});
  const std::string& here = node.spec->name;
  const auto assumed = [&](const Claim& c) {
    return assumed_.empty() ? assumed_.end() : assumed_.find(c.key);
  };
  for (const uint32_t i : p.delayed) {
    const Claim& c = p.claims[i];
    if (const auto d = assumed(c); d != assumed_.end()) {
      // kube-scheduler finds the volume pre-bound to it (else no volume),
      // or the node selected for it: "didn't find available ..." either way.
      if (d->second.volume != nullptr ? !affinity_allows(*d->second.volume, *node.spec)
                                      : d->second.node != here)
        return why_.bind_conflict;
    } else if (!c.selected.empty() && c.selected != here) {
      return why_.bind_conflict;
    }
  }
  const auto provide = [&](uint32_t i) {
    const Match m = provision(p.claims[i], node);
    if (m.reason == 0 && matches != nullptr) (*matches)[i] = m;
    return m.reason;
  };
  for (const uint32_t i : p.delayed)
    if (!p.claims[i].selected.empty() && assumed(p.claims[i]) == assumed_.end())
      if (const uint32_t why = provide(i); why != 0) return why;
  std::vector<const PersistentVolume*> chosen;
  for (const uint32_t i : p.by_request) {
    const Claim& c = p.claims[i];
    if (assumed(c) != assumed_.end()) continue;
    if (const PersistentVolume* v = find_volume(c, node, chosen)) {
      chosen.push_back(v);
      if (matches != nullptr) (*matches)[i].volume = v;
    } else if (const uint32_t why = provide(i); why != 0) {
      return why;
    }
  }
  return 0;
}

uint32_t VolumeBinder::check_zone(const Prepared& p, const Node& node) const {
  if (p.zones.empty()) return 0;
  const auto& labels = node.spec->labels;
  const bool zoned = std::any_of(std::begin(kZoneLabels), std::end(kZoneLabels),
                                 [&](const char* k) { return labels.contains(k); });
  if (!zoned) return 0;  // a cluster without zones
  for (const auto& [key, values] : p.zones) {
    auto it = labels.find(key);
    if (it == labels.end())
      if (const std::string_view ga = ga_label(key); !ga.empty()) it = labels.find(std::string(ga));
    if (it == labels.end() || std::find(values.begin(), values.end(), it->second) == values.end())
      return why_.no_zone;
  }
  return 0;
}

void VolumeBinder::assume(const Task& task, const Node& node) {
  if (task.pod->claims.empty()) return;
  const Prepared& p = prepared(task);
  if (p.delayed.empty()) return;
  std::vector<Match> matches;
  if (check_binding(p, task, node, &matches) != 0) return;  // the checks were off
  std::vector<cycle::Outcome::VolumeBinding> made;
  for (size_t i = 0; i < p.claims.size(); ++i) {
    const Claim& c = p.claims[i];
    const Match& m = matches[i];
    if (m.volume == nullptr && !m.provision) continue;
    if (m.volume != nullptr) {
      taken_.emplace(m.volume, task.index);
      ++epoch_;
      made.push_back({c.key, c.pvc->uid, m.volume->name, node.spec->name, false});
    } else {
      made.push_back({c.key, c.pvc->uid, c.pvc->provisioned_volume_name(), node.spec->name, true});
    }
    // Another pod naming the claim now finds it decided (its answers change).
    if (c.named_by_others) {
      assumed_[c.key] = {m.volume, node.spec->name, task.index};
      ++epoch_;
    }
  }
  if (!made.empty()) decided_[task.index] = std::move(made);
}

void VolumeBinder::release(const Task& task) {
  const auto it = decided_.find(task.index);
  if (it == decided_.end()) return;
  const auto mine = [&](const auto& entry) { return entry.second == task.index; };
  const auto assumed_mine = [&](const auto& entry) { return entry.second.task == task.index; };
  if (std::erase_if(taken_, mine) + std::erase_if(assumed_, assumed_mine) > 0) ++epoch_;
  decided_.erase(it);
}

std::vector<cycle::Outcome::VolumeBinding> VolumeBinder::take(const Task& task) {
  const auto it = decided_.find(task.index);
  if (it == decided_.end()) return {};
  std::vector<cycle::Outcome::VolumeBinding> out = std::move(it->second);
  decided_.erase(it);
  // The volumes stay taken: the bind holds them for the rest of the session.
  return out;
}

}  // namespace scoria::session
