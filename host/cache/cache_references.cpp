// References between objects, resolved as source::complete_objects resolves
// them, but never refused: a pod's priority (spec.priority, else its
// PriorityClass, else the globalDefault class, else 0) and preemptionPolicy,
// a group's queue and priority, and the reason a job waits when something it
// names is missing. The reverse indexes kept here let an arriving or
// departing object re-resolve exactly the objects that name it.
#include <algorithm>

#include "cache/cluster_cache.h"

namespace scoria::cache {

namespace {

// PriorityClasses every Kubernetes cluster has without defining them.
std::optional<int32_t> builtin_class(std::string_view name) {
  if (name == "system-cluster-critical") return 2000000000;
  if (name == "system-node-critical") return 2000001000;
  return std::nullopt;
}

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

void index(std::unordered_map<std::string, std::unordered_set<uint32_t>>& map,
           const std::string& key, uint32_t slot, bool add) {
  if (add) {
    map[key].insert(slot);
    return;
  }
  const auto it = map.find(key);
  if (it == map.end()) return;
  it->second.erase(slot);
  if (it->second.empty()) map.erase(it);
}

}  // namespace

ClusterCache::DefaultClass ClusterCache::default_class() const {
  // Two classes claiming globalDefault (refused by Kubernetes' admission and
  // by the file source) resolve to the first by name.
  if (global_defaults_.empty()) return {};
  const ClassEntry& c = classes_.at(classes_.find(*global_defaults_.begin()));
  return {c.pc.name, c.pc.value, c.never_preempt};
}

void ClusterCache::classes_changed(const std::string& name, const DefaultClass& before) {
  // Copies: resolving does not change these sets, but keeps the code honest
  // should it ever.
  auto resolve = [&](const std::string& cls) {
    if (cls.empty()) {
      // Pods naming no class are not indexed (most pods; one set of them
      // all would cost every load): they are found by a scan, only when
      // the global default changes.
      std::vector<uint32_t> classless;
      pods_.each([&](uint32_t p, const PodEntry& e) {
        if (e.pod.priority_class_name.empty()) classless.push_back(p);
      });
      for (uint32_t p : classless) resolve_pod(p);
    } else if (const auto it = pods_by_class_.find(cls); it != pods_by_class_.end()) {
      for (uint32_t p : std::vector<uint32_t>(it->second.begin(), it->second.end())) resolve_pod(p);
    }
    if (const auto it = groups_by_class_.find(cls); it != groups_by_class_.end())
      for (uint32_t g : std::vector<uint32_t>(it->second.begin(), it->second.end()))
        resolve_group(g);
  };
  resolve(name);
  if (default_class() == before) return;
  // Pods naming no class take the global default's; groups too, and groups
  // naming a class not defined (a builtin one).
  resolve(std::string());
  std::vector<std::string> undefined;
  for (const auto& [cls, groups] : groups_by_class_)
    if (!cls.empty() && cls != name && classes_.find(cls) == kNone) undefined.push_back(cls);
  for (const std::string& cls : undefined)
    if (const auto it = groups_by_class_.find(cls); it != groups_by_class_.end())
      for (uint32_t g : std::vector<uint32_t>(it->second.begin(), it->second.end()))
        resolve_group(g);
}

void ClusterCache::resolve_pod(uint32_t slot) {
  PodEntry& e = pods_.at(slot);
  const std::string& cls = e.pod.priority_class_name;
  std::string reason;
  int32_t value = 0;
  bool never = e.spec_preempt_never;
  if (!cls.empty()) {
    if (const uint32_t c = classes_.find(cls); c != kNone) {
      value = classes_.at(c).pc.value;
      never = never || classes_.at(c).never_preempt;
    } else if (const auto builtin = builtin_class(cls)) {
      value = *builtin;
    } else {
      reason = "PriorityClass " + quote(cls) + " of pod " + e.views.uid + " does not exist";
    }
  } else {
    const DefaultClass d = default_class();
    value = d.value;
    never = never || d.never_preempt;
  }
  e.pod.priority = e.spec_priority.value_or(value);
  pods_.hot(slot).priority = *e.pod.priority;
  // Kubernetes' admission copies the class's preemptionPolicy to the pod.
  e.pod.preempt_never = never;
  const uint32_t group = pods_.hot(slot).group;
  // A pod joins a group of the kind it names: the loader refuses files that
  // mix them; a live source may hold one kind under the name the pod gives
  // the other (one deleted, the other made).
  if (reason.empty() && group != kNone && !e.pod.group_name.empty()) {
    const GroupEntry& g = groups_.at(group);
    if (!g.placeholder && g.owner == kNone && g.group.native != e.pod.native_group)
      reason = "PodGroup " + quote(g.group.name) + " of pod " + e.views.uid + " is " +
               (g.group.native ? "a scheduling.k8s.io PodGroup; name it in "
                                 "spec.schedulingGroup.podGroupName"
                               : "a Volcano PodGroup; name it in the annotation "
                                 "scheduling.k8s.io/group-name");
  }
  if (group != kNone && reason.empty() != e.invalid.empty()) {
    uint32_t& n = groups_.at(group).invalid_pods;
    n = reason.empty() ? n - 1 : n + 1;
  }
  e.invalid = std::move(reason);
}

void ClusterCache::resolve_group(uint32_t slot) {
  GroupEntry& g = groups_.at(slot);
  if (g.placeholder) return;
  g.queue = queues_.find(g.group.queue);
  const std::string& cls = g.group.priority_class_name;
  const uint32_t c = cls.empty() ? kNone : classes_.find(cls);
  // A group's priority comes from a class it defines, else the global
  // default (builtin classes count as present but give no value here, as
  // the full load always did). A class that does not exist gives the
  // default too, as Volcano's snapshot does: the job is scheduled.
  g.priority = c != kNone ? classes_.at(c).pc.value : default_class().value;
  // A scheduling.k8s.io PodGroup may give its priority itself.
  if (g.group.priority) g.priority = *g.group.priority;
  if (g.queue == kNone)
    g.invalid = "queue " + quote(g.group.queue) + " does not exist";
  else
    g.invalid.clear();
}

const std::string& ClusterCache::job_reason(const GroupEntry& g) const {
  if (!g.invalid.empty() || g.invalid_pods == 0) return g.invalid;
  for (uint32_t p : g.pods)
    if (!pods_.at(p).invalid.empty()) return pods_.at(p).invalid;
  return g.invalid;  // empty
}

void ClusterCache::index_group(uint32_t slot, bool add) {
  const GroupEntry& g = groups_.at(slot);
  if (g.placeholder) return;
  index(groups_by_queue_, g.group.queue, slot, add);
  index(groups_by_class_, g.group.priority_class_name, slot, add);
}

void ClusterCache::index_pod(uint32_t slot, bool add) {
  const PodEntry& e = pods_.at(slot);
  if (!e.pod.priority_class_name.empty())
    index(pods_by_class_, e.pod.priority_class_name, slot, add);
  if (!e.pod.node_name.empty()) index(pods_by_node_, e.pod.node_name, slot, add);
  if (claim_pods_apart_) return;
  for (const model::PodClaim& c : e.pod.claims) {
    const std::string key = claim_key(e.pod.namespace_, c.name);
    if (add) {
      ++claim_pods_[key];
    } else if (const auto it = claim_pods_.find(key);
               it != claim_pods_.end() && --it->second == 0) {
      claim_pods_.erase(it);
    }
  }
}

uint32_t ClusterCache::placeholder(const std::string& key) {
  const uint32_t slot = groups_.insert(key);
  GroupEntry& g = groups_.at(slot);
  const size_t slash = key.find('/');
  g.group.namespace_ = key.substr(0, slash);
  g.group.name = key.substr(slash + 1);
  g.group.queue.clear();
  g.placeholder = true;
  g.invalid = "PodGroup " + quote(g.group.name) + " does not exist";
  group_changed(slot);
  return slot;
}

void ClusterCache::join_group(uint32_t pod) {
  PodEntry& e = pods_.at(pod);
  if (e.group_annotation.empty()) {
    make_implicit_group(pod);
    return;
  }
  const std::string key = e.pod.namespace_ + "/" + e.group_annotation;
  uint32_t g = groups_.find(key);
  if (g != kNone && groups_.at(g).owner != kNone) {
    evict_implicit(g);  // a name pods give a group is the group's, not an implicit one's
    g = kNone;
  }
  if (g == kNone) g = placeholder(key);
  GroupEntry& ge = groups_.at(g);
  const auto at =
      std::lower_bound(ge.pods.begin(), ge.pods.end(), pod,
                       [&](uint32_t a, uint32_t b) { return pods_.seq(a) < pods_.seq(b); });
  ge.pods.insert(at, pod);
  if (!e.invalid.empty()) ++ge.invalid_pods;
  pods_.hot(pod).group = g;
}

void ClusterCache::leave_group(uint32_t pod) {
  const PodEntry& e = pods_.at(pod);
  const uint32_t g = pods_.hot(pod).group;
  if (g == kNone) return;
  pods_.hot(pod).group = kNone;
  GroupEntry& ge = groups_.at(g);
  const auto at =
      std::lower_bound(ge.pods.begin(), ge.pods.end(), pod,
                       [&](uint32_t a, uint32_t b) { return pods_.seq(a) < pods_.seq(b); });
  if (at != ge.pods.end() && *at == pod) ge.pods.erase(at);
  if (!e.invalid.empty() && ge.invalid_pods > 0) --ge.invalid_pods;
  if (ge.owner != pod && !(ge.placeholder && ge.pods.empty())) return;
  // An implicit group goes with its pod; a group only named goes with the
  // last pod naming it. Either frees a name implicit groups may want.
  const std::string key = groups_.key(g);
  index_group(g, false);
  groups_.erase(g);
  if (!key.empty()) wake_names(key);
}

}  // namespace scoria::cache
