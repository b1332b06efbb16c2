#include "pod_terms.h"

#include <scoria/scoria.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "json_fields.h"

namespace kube {

namespace {

using nlohmann::json;

PodAffinityTerm parse_term(const json& term, int32_t weight) {
  PodAffinityTerm out;
  out.weight = weight;
  out.selector = parse_label_selector(member(term, "labelSelector"));
  out.topology_key = text(member(term, "topologyKey"));
  if (const json* list = member(term, "namespaces"); list != nullptr && list->is_array())
    for (const json& ns : *list) out.namespaces.push_back(text(&ns));
  out.namespace_selector = parse_label_selector(member(term, "namespaceSelector"));
  return out;
}

void parse_terms(const json* block, std::vector<PodAffinityTerm>& required,
                 std::vector<PodAffinityTerm>& preferred) {
  if (block == nullptr) return;
  if (const json* list = member(*block, "requiredDuringSchedulingIgnoredDuringExecution");
      list != nullptr && list->is_array())
    for (const json& term : *list) required.push_back(parse_term(term, 0));
  if (const json* list = member(*block, "preferredDuringSchedulingIgnoredDuringExecution");
      list != nullptr && list->is_array())
    for (const json& item : *list)
      if (const json* term = member(item, "podAffinityTerm"); term != nullptr)
        preferred.push_back(parse_term(*term, integer(member(item, "weight"), 0)));
}

void parse_ports(const json* containers, std::vector<HostPort>& out) {
  if (containers == nullptr || !containers->is_array()) return;
  for (const json& c : *containers) {
    const json* ports = member(c, "ports");
    if (ports == nullptr || !ports->is_array()) continue;
    for (const json& p : *ports) {
      const int32_t port = integer(member(p, "hostPort"), 0);
      if (port <= 0) continue;
      out.push_back({text(member(p, "hostIP")), text(member(p, "protocol"), "TCP"), port});
    }
  }
}

// matchLabelKeys: the pod's own values of those label keys narrow the
// selector, as In requirements (kube-scheduler's merge; keys the pod lacks
// are ignored, and a selector that matches nothing stays so).
void merge_match_label_keys(const json* keys, const json* pod_labels, LabelSelector& selector) {
  if (keys == nullptr || !keys->is_array() || pod_labels == nullptr || !selector.present ||
      !selector.valid)
    return;
  for (const json& key : *keys) {
    const std::string name = text(&key);
    const json* value = member(*pod_labels, name.c_str());
    if (name.empty() || value == nullptr || !value->is_string()) continue;
    selector.requirements.push_back(
        LabelRequirement{name, SCORIA_OP_IN, {value->get<std::string>()}});
  }
}

bool wildcard(const std::string& ip) { return ip.empty() || ip == "0.0.0.0"; }

}  // namespace

bool PodAffinityTerm::selects(const scoria_session* ssn, std::string_view owner_namespace,
                              const scoria_task* other, std::string_view other_namespace) const {
  // kube-scheduler's AffinityTerm.Matches, with the namespaces the selector
  // lists merged in (mergeAffinityTermNamespacesIfNotEmpty).
  bool in_scope = false;
  if (namespaces.empty() && !namespace_selector.present) {
    in_scope = other_namespace == owner_namespace;
  } else {
    in_scope =
        std::find(namespaces.begin(), namespaces.end(), other_namespace) != namespaces.end() ||
        namespace_selector.empty() || namespace_selector.matches_namespace(ssn, other_namespace);
  }
  return in_scope && selector.matches(other);
}

bool HostPort::conflicts(const HostPort& other) const {
  return port == other.port && protocol == other.protocol &&
         (ip == other.ip || wildcard(ip) || wildcard(other.ip));
}

PodTerms parse_pod_terms(std::string_view pod_json) {
  PodTerms out;
  const json pod = json::parse(pod_json.begin(), pod_json.end(), nullptr, false);
  const json* spec = member(pod, "spec");
  if (spec == nullptr) return out;
  if (const json* affinity = member(*spec, "affinity"); affinity != nullptr) {
    parse_terms(member(*affinity, "podAffinity"), out.affinity, out.preferred_affinity);
    parse_terms(member(*affinity, "podAntiAffinity"), out.anti_affinity,
                out.preferred_anti_affinity);
  }
  if (const json* list = member(*spec, "topologySpreadConstraints");
      list != nullptr && list->is_array()) {
    const json* meta = member(pod, "metadata");
    const json* labels = meta != nullptr ? member(*meta, "labels") : nullptr;
    for (const json& c : *list) {
      SpreadConstraint s;
      s.max_skew = integer(member(c, "maxSkew"), 1);
      s.topology_key = text(member(c, "topologyKey"));
      s.hard = text(member(c, "whenUnsatisfiable"), "DoNotSchedule") == "DoNotSchedule";
      s.selector = parse_label_selector(member(c, "labelSelector"));
      merge_match_label_keys(member(c, "matchLabelKeys"), labels, s.selector);
      s.min_domains = std::max(1, integer(member(c, "minDomains"), 1));
      s.honor_node_affinity = text(member(c, "nodeAffinityPolicy"), "Honor") == "Honor";
      s.honor_node_taints = text(member(c, "nodeTaintsPolicy"), "Ignore") == "Honor";
      out.spread.push_back(std::move(s));
    }
  }
  parse_ports(member(*spec, "initContainers"), out.host_ports);
  parse_ports(member(*spec, "containers"), out.host_ports);
  return out;
}

SessionPodTerms::SessionPodTerms(const scoria_session* ssn) {
  const scoria_host_api& api = scoria::api();
  if (SCORIA_HOST_HAS(&api, session_tasks_with_features)) {
    // The host lists the few tasks with terms (1.8): no walk over the cluster.
    std::vector<const scoria_task*> tasks(
        api.session_tasks_with_features(ssn, kPodTermFeatures, nullptr, 0));
    tasks.resize(std::min(tasks.size(), api.session_tasks_with_features(
                                            ssn, kPodTermFeatures, tasks.data(), tasks.size())));
    for (const scoria_task* task : tasks) add(task);
    return;
  }
  // Every task of a session belongs to one of its jobs, placed or not.
  const size_t jobs = api.job_count(ssn);
  for (size_t j = 0; j < jobs; ++j) {
    const scoria_job* job = api.job_at(ssn, j);
    const size_t tasks = api.job_task_count(job);
    for (size_t t = 0; t < tasks; ++t) add(api.job_task_at(job, t));
  }
}

void SessionPodTerms::add(const scoria_task* task) {
  const scoria_task_info ti = scoria::info(task);
  if ((ti.features & kPodTermFeatures) == 0) return;
  auto terms = std::make_unique<PodTerms>(
      parse_pod_terms(scoria::view(scoria::api().task_object_json(task))));
  if (!terms->anti_affinity.empty()) anti_affinity_.push_back(task);
  if (!terms->affinity.empty() || !terms->anti_affinity.empty() ||
      !terms->preferred_affinity.empty() || !terms->preferred_anti_affinity.empty())
    pod_affinity_.push_back(task);
  if (!terms->host_ports.empty()) host_ports_.push_back(task);
  by_index_.emplace(ti.index, std::move(terms));
}

const PodTerms* SessionPodTerms::of(const scoria_task* task) const {
  if (by_index_.empty()) return nullptr;
  const auto it = by_index_.find(scoria::info(task).index);
  return it == by_index_.end() ? nullptr : it->second.get();
}

bool node_label(const scoria_node* node, std::string_view key, std::string_view& value) {
  scoria_str v{};
  if (scoria::api().node_label(node, scoria::str(key), &v) != SCORIA_OK) {
    value = {};
    return false;
  }
  value = scoria::view(v);
  return true;
}

bool occupies_node(const scoria_task_info& info) {
  constexpr uint32_t kOnNode = SCORIA_TASK_ALLOCATED | SCORIA_TASK_PIPELINED | SCORIA_TASK_BINDING |
                               SCORIA_TASK_BOUND | SCORIA_TASK_RUNNING | SCORIA_TASK_RELEASING;
  return (info.status & kOnNode) != 0 && info.node_name.len != 0;
}

}  // namespace kube
