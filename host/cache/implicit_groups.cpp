// A PodGroup for each pod that names none, as Volcano's podgroup controller
// makes one and as source::complete_objects names it: the pod's name, or
// "podgroup-<pod>", "podgroup-<pod>-2", ... when taken.
//
// Completion names them in one pass: defined groups first, then pods in
// order, each taking the first candidate not defined and not taken by an
// earlier pod. Here pods and groups come and go, so a name is recomputed
// only for the pods a change can affect: a pod whose name is taken by a
// group defined later or by an earlier pod (evicted), and the pods that may
// want a name just freed (woken). Pods are named earliest first, so a pod's
// answer depends only on earlier pods, which are already final.
#include <algorithm>
#include <charconv>

#include "cache/cluster_cache.h"
#include "model/implicit_pod_group.h"

namespace scoria::cache {

namespace {

constexpr std::string_view kPrefix = "podgroup-";

// Later pod first out of a max-heap: the earliest arrival is named first.
bool later(const std::pair<uint64_t, uint32_t>& a, const std::pair<uint64_t, uint32_t>& b) {
  return a > b;
}

}  // namespace

void ClusterCache::make_implicit_group(uint32_t pod) {
  const uint32_t g = groups_.insert(std::string());  // named by name_implicit_groups()
  GroupEntry& ge = groups_.at(g);
  ge.owner = pod;
  ge.pods = {pod};
  PodEntry& e = pods_.at(pod);
  if (!e.invalid.empty()) ge.invalid_pods = 1;
  pods_.hot(pod).group = g;
  refresh_implicit_group(pod);
  to_name_.emplace_back(pods_.seq(pod), pod);
  std::push_heap(to_name_.begin(), to_name_.end(), later);
}

void ClusterCache::refresh_implicit_group(uint32_t pod) {
  const model::Pod& p = pods_.at(pod).pod;
  const uint32_t slot = pods_.hot(pod).group;
  GroupEntry& ge = groups_.at(slot);
  index_group(slot, false);
  model::PodGroup g = model::implicit_pod_group(p, ge.group.name);
  ge.group = std::move(g);
  group_changed(slot);
  groups_.hot(slot).phase = ge.group.phase;
  index_group(slot, true);
  resolve_group(slot);
}

void ClusterCache::evict_implicit(uint32_t group) {
  groups_.unindex(group);
  const uint32_t owner = groups_.at(group).owner;
  to_name_.emplace_back(pods_.seq(owner), owner);
  std::push_heap(to_name_.begin(), to_name_.end(), later);
}

void ClusterCache::wake_names(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return;
  const std::string ns = key.substr(0, slash + 1);
  const std::string_view name = std::string_view(key).substr(slash + 1);
  // The pods whose candidates include `name`: the pod of that name,
  // "podgroup-<pod>" and "podgroup-<pod>-<n>" (n >= 2).
  std::vector<std::string_view> pods = {name};
  if (name.starts_with(kPrefix)) {
    const std::string_view rest = name.substr(kPrefix.size());
    pods.push_back(rest);
    if (const size_t dash = rest.rfind('-'); dash != std::string_view::npos) {
      const std::string_view digits = rest.substr(dash + 1);
      int n = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      if (ec == std::errc() && end == digits.data() + digits.size() && n >= 2 &&
          digits.front() != '0')
        pods.push_back(rest.substr(0, dash));
    }
  }
  for (std::string_view pod : pods) {
    const uint32_t slot = pods_.find(ns + std::string(pod));
    if (slot == kNone) continue;
    const uint32_t g = pods_.hot(slot).group;
    if (g == kNone || groups_.at(g).owner != slot) continue;
    to_name_.emplace_back(pods_.seq(slot), slot);
    std::push_heap(to_name_.begin(), to_name_.end(), later);
  }
}

void ClusterCache::name_implicit_groups() {
  while (!to_name_.empty()) {
    std::pop_heap(to_name_.begin(), to_name_.end(), later);
    const auto [seq, pod] = to_name_.back();
    to_name_.pop_back();
    // The pod may have gone (its slot even reused) or named a group since.
    if (!pods_.live(pod) || pods_.seq(pod) != seq) continue;
    const uint32_t g = pods_.hot(pod).group;
    if (g == kNone || groups_.at(g).owner != pod) continue;
    name_implicit(pod);
  }
}

void ClusterCache::name_implicit(uint32_t pod) {
  PodEntry& e = pods_.at(pod);
  const uint32_t g = pods_.hot(pod).group;
  const std::string current = groups_.key(g);
  const std::string ns = e.pod.namespace_ + "/";
  for (int n = 0;; ++n) {
    std::string name = n == 0 ? e.pod.name
                              : std::string(kPrefix) + e.pod.name +
                                    (n > 1 ? "-" + std::to_string(n) : std::string());
    const std::string key = ns + name;
    if (key == current) return;
    if (const uint32_t h = groups_.find(key); h != kNone) {
      const uint32_t holder = groups_.at(h).owner;
      // Defined (or named by pods), or an earlier pod's: not ours to take.
      if (holder == kNone || pods_.seq(holder) < pods_.seq(pod)) continue;
      evict_implicit(h);
    }
    if (!current.empty()) {
      groups_.unindex(g);
      wake_names(current);
    }
    groups_.index(g, key);
    groups_.at(g).group.name = name;
    group_changed(g);
    e.pod.group_name = std::move(name);
    return;
  }
}

}  // namespace scoria::cache
