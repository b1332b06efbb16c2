// The numa-aware plugin (Volcano's numa-aware): a Guaranteed pod whose
// containers ask for whole CPUs is placed where the node's kubelet, with the
// static CPU manager and its topology manager policy, would admit it, and
// preferably where its CPUs span the fewest NUMA nodes.
//
// Each node's NUMA information is its Numatopology (nodeinfo.volcano.sh,
// one per node, named after it, written by Volcano's resource exporter).
//   predicate   a pod with a volcano.sh/numa-topology-policy other than
//               none needs a node with NUMA information, the static CPU
//               manager, the same topology manager policy and CPUs to
//               give; any Guaranteed pod on a node with the static CPU
//               manager and a topology manager policy must be admitted by
//               that policy (topology_policy.h), container by container,
//               each taking the CPUs the CPU manager would give it
//               (cpu_manager.h);
//   node order  for a pod with a policy, nodes whose CPUs for it span fewer
//               NUMA nodes score higher: 100 - 100 * count / largest count,
//               times `weight`;
//   allocate / deallocate  the CPUs a placement takes are taken from the
//               node for the rest of the session.
// CPUs given to pods bound in a session stay taken in later sessions until
// the node's Numatopology lists the pod in spec.podAllocations (the kubelet
// has pinned them), the pod leaves the node or finishes: Volcano's
// scheduler cache keeps them the same way (UnassignedNumaPods).
//
// A Numatopology that cannot be read is logged once, naming it and the
// field, and its node has no NUMA information, as a node without one.
// Volcano writes no decision of its own on the pod (its
// volcano.sh/topology-decision annotation is only passed through at bind).
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cpu_manager.h"
#include "node_numa.h"
#include "pod_numa.h"
#include "topology_policy.h"

namespace {

using scoria::api;
using scoria::log_line;
namespace na = numa_aware;

constexpr std::string_view kKind = "Numatopology";
constexpr std::string_view kPolicyKey = "volcano.sh/numa-topology-policy";
constexpr double kMaxNodeScore = 100;

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "weight", "1",
                                         "weight of the numa-aware node score (0-100 before it: "
                                         "fewer NUMA nodes for the pod's CPUs score higher)"),
                     0),
};

// The session's view of one node with NUMA information.
struct NodeState {
  const na::NodeNuma* numa = nullptr;
  std::optional<na::CpuSet> free_cpu;  // numares cpu, less what is taken
};

struct Bound {
  const scoria_task* task = nullptr;
  uint32_t node = 0;
  std::string pod;  // "namespace/name"
};

struct Instance {
  explicit Instance(const scoria_args* args) {
    if (args != nullptr) weight = scoria::arg_int(args, "weight", 1);
  }

  int64_t weight = 1;
  // Across sessions: CPUs given to pods bound earlier that the node's
  // Numatopology does not list yet, by node name, then "namespace/name".
  std::map<std::string, std::map<std::string, na::CpuSet>> unassigned;
  // Bad objects and annotations already logged, so each is logged once.
  // Bounded: cleared when it grows large.
  std::set<std::string> logged;

  // Per session.
  const scoria_session* ssn = nullptr;
  std::vector<na::NodeNuma> topologies;
  std::vector<NodeState> nodes;  // by session node index
  std::mutex mu;                 // predicates run on several threads
  std::unordered_map<uint32_t, std::optional<na::PodNuma>> pods;  // by task index
  std::unordered_map<uint64_t, na::CpuSet> assigned;  // (task, node) -> the CPUs it would take
  std::unordered_set<uint32_t> tasks_assigned;
  std::map<uint32_t, Bound> bound;      // by task index
  std::vector<std::string> unreadable;  // pods that could not be read, to log

  void log_once(const std::string& message) {
    std::lock_guard lock(mu);
    if (logged.size() > 4096) logged.clear();
    if (logged.insert(message).second) log_line(SCORIA_LOG_WARNING, message);
  }
};

Instance& self(void* user_data) { return *static_cast<Instance*>(user_data); }

uint64_t key(uint32_t task, uint32_t node) { return (uint64_t{task} << 32) | node; }

std::string task_policy(const scoria_task* task) {
  scoria_str value{};
  if (api().task_annotation(task, scoria::str(kPolicyKey), &value) != SCORIA_OK) return {};
  return std::string(scoria::view(value));
}

bool has_policy(std::string_view policy) { return !policy.empty() && policy != "none"; }

// The pod's QoS and CPU requests, read once per session.
const na::PodNuma* pod_of(Instance& s, const scoria_task* task, const scoria_task_info& ti) {
  {
    std::lock_guard lock(s.mu);
    if (const auto it = s.pods.find(ti.index); it != s.pods.end())
      return it->second ? &*it->second : nullptr;
  }
  std::optional<na::PodNuma> pod;
  try {
    pod = na::parse_pod_numa(scoria::view(api().task_object_json(task)));
  } catch (const std::exception& e) {
    // Logged at session close: predicates run off the session thread.
    std::lock_guard lock(s.mu);
    s.unreadable.push_back("pod " + std::string(scoria::view(ti.uid)) +
                           " cannot be read, so it is not treated as Guaranteed: " + e.what());
  }
  std::lock_guard lock(s.mu);
  const auto [it, fresh] = s.pods.emplace(ti.index, std::move(pod));
  return it->second ? &*it->second : nullptr;
}

uint32_t reason(std::string_view text) { return api().reason_intern(scoria::str(text)); }

// Volcano's filterNodeByPolicy. Returns SCORIA_OK with *check set when the
// node's policy must admit the pod, SCORIA_OK with it unset when the
// plugin has nothing to say, or a refusal.
scoria_code filter_node(const NodeState& node, std::string_view policy, bool& check,
                        uint32_t* why) {
  check = false;
  const na::NodeNuma* numa = node.numa;
  if (has_policy(policy)) {
    const char* refusal = nullptr;
    if (numa == nullptr)
      refusal = "node(s) had no NUMA topology (Numatopology)";
    else if (numa->cpu_manager_policy != "static")
      refusal = "node(s) had a CPU manager policy other than static";
    else if (policy != numa->topology_manager_policy)
      refusal = "node(s) had a topology manager policy other than the pod's";
    else if (!node.free_cpu || node.free_cpu->empty())
      refusal = "node(s) had no allocatable CPUs in their NUMA topology";
    if (refusal != nullptr) {
      if (why != nullptr) *why = reason(refusal);
      return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
  } else if (numa == nullptr || numa->cpu_manager_policy != "static" ||
             numa->topology_manager_policy.empty() || numa->topology_manager_policy == "none") {
    return SCORIA_OK;
  }
  check = true;
  return SCORIA_OK;
}

scoria_code on_predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                         uint32_t* why) {
  Instance& s = self(user_data);
  const scoria_task_info ti = scoria::info(task);
  const uint32_t n = scoria::info(node).index;
  const NodeState& state = s.nodes[n];
  const std::string policy = task_policy(task);
  // Without a policy, a node that does not pin CPUs has nothing to check:
  // decided before the pod is read.
  if (!has_policy(policy) && state.numa == nullptr) return SCORIA_OK;
  const na::PodNuma* pod = pod_of(s, task, ti);
  if (pod == nullptr || !pod->guaranteed) return SCORIA_OK;
  bool check = false;
  if (const scoria_code rc = filter_node(state, policy, check, why); rc != SCORIA_OK || !check)
    return rc;

  const na::NodeNuma& numa = *state.numa;
  const na::Policy node_policy =
      na::parse_policy(numa.topology_manager_policy).value_or(na::Policy::kNone);
  // Volcano's GetPolicy gives an unknown policy no NUMA nodes.
  const std::vector<int32_t> none;
  const std::vector<int32_t>& numa_nodes =
      na::parse_policy(numa.topology_manager_policy) ? numa.topology.numa_nodes() : none;
  std::optional<na::CpuSet> free = state.free_cpu;
  na::CpuSet taken;
  for (const na::ContainerCpus& c : pod->containers) {
    const na::ProviderHints hints = na::container_hints(c, numa, free ? &*free : nullptr);
    const na::Admission a = na::admit(node_policy, numa_nodes, std::span(&hints, 1));
    if (!a.admit) {
      if (why != nullptr)
        *why = reason("node(s) could not align the pod's CPUs with their topology manager policy");
      return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
    if (free) {
      const na::CpuSet cpus = na::allocate_cpus(c, a.best, numa, *free);
      taken |= cpus;
      *free -= cpus;
    }
  }
  std::lock_guard lock(s.mu);
  s.assigned.insert_or_assign(key(ti.index, n), std::move(taken));
  s.tasks_assigned.insert(ti.index);
  return SCORIA_OK;
}

// Volcano's batch node order: the NUMA nodes of the CPUs the pod would take
// on each node, fewer scoring higher (NormalizeScore, reversed).
scoria_code on_node_order_batch(void* user_data, const scoria_task* task,
                                const scoria_node* const* nodes, size_t count, double* scores) {
  Instance& s = self(user_data);
  if (!has_policy(task_policy(task))) return SCORIA_SKIP;
  const uint32_t t = scoria::info(task).index;
  std::vector<int64_t> numa_counts(count, 0);
  {
    std::lock_guard lock(s.mu);
    if (!s.tasks_assigned.contains(t)) return SCORIA_SKIP;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t n = scoria::info(nodes[i]).index;
      const auto it = s.assigned.find(key(t, n));
      if (it != s.assigned.end() && s.nodes[n].numa != nullptr)
        numa_counts[i] = s.nodes[n].numa->topology.numa_count(it->second);
    }
  }
  int64_t most = 0;
  for (const int64_t c : numa_counts) most = std::max(most, c);
  for (size_t i = 0; i < count; ++i) {
    // Integer arithmetic, as Volcano's int64 scores.
    const int64_t score = most == 0
                              ? static_cast<int64_t>(kMaxNodeScore)
                              : static_cast<int64_t>(kMaxNodeScore) -
                                    static_cast<int64_t>(kMaxNodeScore) * numa_counts[i] / most;
    scores[i] = static_cast<double>(score * s.weight);
  }
  return SCORIA_OK;
}

// The placement `task` was predicated for on its node, if any.
const na::CpuSet* placement(Instance& s, const scoria_task_info& ti, uint32_t& node) {
  const scoria_node* handle = api().node_find(s.ssn, ti.node_name);
  if (handle == nullptr) return nullptr;
  node = scoria::info(handle).index;
  const auto it = s.assigned.find(key(ti.index, node));
  return it == s.assigned.end() ? nullptr : &it->second;
}

void on_allocate(void* user_data, const scoria_task* task) {
  Instance& s = self(user_data);
  const scoria_task_info ti = scoria::info(task);
  std::lock_guard lock(s.mu);
  uint32_t node = 0;
  const na::CpuSet* cpus = placement(s, ti, node);
  if (cpus == nullptr) return;
  if (s.nodes[node].free_cpu) *s.nodes[node].free_cpu -= *cpus;
  s.bound.insert_or_assign(ti.index, Bound{task, node, std::string(scoria::view(ti.uid))});
}

void on_deallocate(void* user_data, const scoria_task* task) {
  Instance& s = self(user_data);
  const scoria_task_info ti = scoria::info(task);
  std::lock_guard lock(s.mu);
  uint32_t node = 0;
  const na::CpuSet* cpus = placement(s, ti, node);
  if (cpus == nullptr) return;
  if (s.nodes[node].free_cpu) *s.nodes[node].free_cpu |= *cpus;
  s.bound.erase(ti.index);
}

// The pods still holding CPUs on a node: on it and not finished.
std::set<std::string> pods_on(const scoria_node* node) {
  std::set<std::string> out;
  const size_t n = api().node_task_count(node);
  for (size_t i = 0; i < n; ++i) {
    const scoria_task_info ti = scoria::info(api().node_task_at(node, i));
    if ((ti.status & (SCORIA_TASK_SUCCEEDED | SCORIA_TASK_FAILED)) == 0)
      out.emplace(scoria::view(ti.uid));
  }
  return out;
}

void read_topologies(Instance& s) {
  s.topologies.clear();
  scoria::for_each_object(s.ssn, kKind, [&](std::string_view text) {
    std::string name;
    try {
      const nlohmann::json object = nlohmann::json::parse(text);
      if (const auto meta = object.find("metadata"); meta != object.end() && meta->is_object() &&
                                                     meta->contains("name") &&
                                                     (*meta)["name"].is_string())
        name = (*meta)["name"].get<std::string>();
      s.topologies.push_back(na::parse_node_numa(object));
    } catch (const std::exception& e) {
      s.log_once("Numatopology " + name + " (node " + name + ") cannot be read: " + e.what() +
                 "; the node is treated as having no NUMA information");
    }
  });
}

// Volcano's RefreshNumaSchedulerInfoByCrd: CPUs given to pods the node's
// Numatopology does not list yet stay taken, all of them while any is
// unlisted; once all are listed the memory of them is dropped.
void hold_unassigned(Instance& s, const scoria_node* handle, NodeState& node) {
  const auto it = s.unassigned.find(node.numa->name);
  if (it == s.unassigned.end()) return;
  const std::set<std::string> present = pods_on(handle);
  std::erase_if(it->second, [&](const auto& entry) { return !present.contains(entry.first); });
  bool pending = false;
  for (const auto& [pod, cpus] : it->second) {
    const size_t slash = pod.find('/');
    pending = pending || !node.numa->assigned_pod(std::string_view(pod).substr(0, slash),
                                                  std::string_view(pod).substr(slash + 1));
  }
  if (!pending) {
    s.unassigned.erase(it);
    return;
  }
  if (node.free_cpu)
    for (const auto& [pod, cpus] : it->second) *node.free_cpu -= cpus;
}

// Whether a pending pod names a topology policy; one that names none of the
// kubelet's is logged once (as in Volcano it matches no node's policy).
bool pending_policies(Instance& s) {
  bool any = false;
  const size_t jobs = api().job_count(s.ssn);
  for (size_t j = 0; j < jobs; ++j) {
    const scoria_job* job = api().job_at(s.ssn, j);
    if (scoria::info(job).status_count[0] == 0) continue;  // no pending task
    const size_t tasks = api().job_task_count(job);
    for (size_t i = 0; i < tasks; ++i) {
      const scoria_task* task = api().job_task_at(job, i);
      const std::string policy = task_policy(task);
      if (!has_policy(policy)) continue;
      any = true;
      if (!na::parse_policy(policy))
        s.log_once("pod " + std::string(scoria::view(scoria::info(task).uid)) + ": " +
                   std::string(kPolicyKey) + " \"" + policy +
                   "\" is not a topology policy (none, best-effort, restricted, "
                   "single-numa-node); no node's policy matches it");
    }
  }
  return any;
}

void reset_session(Instance& s) {
  s.ssn = nullptr;
  s.topologies.clear();
  s.nodes.clear();
  s.pods.clear();
  s.assigned.clear();
  s.tasks_assigned.clear();
  s.bound.clear();
  s.unreadable.clear();
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  Instance& s = self(instance);
  return scoria::guarded([&] {
    reset_session(s);
    s.ssn = ssn;
    read_topologies(s);
    const size_t count = api().node_count(ssn);
    s.nodes.assign(count, NodeState{});
    std::unordered_map<std::string_view, const na::NodeNuma*> by_name;
    for (const na::NodeNuma& t : s.topologies) by_name.emplace(t.name, &t);
    // Memory of nodes gone from the cluster goes with them.
    std::erase_if(s.unassigned, [&](const auto& entry) {
      return api().node_find(ssn, scoria::str(entry.first)) == nullptr;
    });
    for (size_t i = 0; i < count; ++i) {
      const scoria_node* handle = api().node_at(ssn, i);
      const auto it = by_name.find(scoria::view(scoria::info(handle).name));
      if (it == by_name.end()) continue;
      NodeState& node = s.nodes[i];
      node.numa = it->second;
      if (const auto cpu = node.numa->allocatable.find("cpu"); cpu != node.numa->allocatable.end())
        node.free_cpu = cpu->second;
      hold_unassigned(s, handle, node);
    }
    // Nothing to decide without NUMA information or a pod asking for it.
    if (!pending_policies(s) && s.topologies.empty()) return;
    log_line(SCORIA_LOG_V4, "", s.topologies.size(), " nodes with a NUMA topology");
    hooks->user_data = &s;
    hooks->on_predicate = on_predicate;
    if (s.weight != 0) hooks->on_node_order_batch = on_node_order_batch;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
  });
}

// Volcano's OnSessionClose: the CPUs of pods placed in this session are
// remembered on their nodes until the Numatopology lists them. Only pods
// given their node: a pipelined one waits for it and is placed again.
void on_session_close(void* instance, scoria_session* /*ssn*/) {
  Instance& s = self(instance);
  for (const std::string& message : s.unreadable) s.log_once(message);
  for (const auto& [task_index, b] : s.bound) {
    if ((scoria::info(b.task).status & scoria::kAllocatedStatuses) == 0) continue;
    const auto it = s.assigned.find(key(task_index, b.node));
    if (it == s.assigned.end() || s.nodes[b.node].numa == nullptr) continue;
    s.unassigned[s.nodes[b.node].numa->name][b.pod] = it->second;
  }
  reset_session(s);
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "numa-aware",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "Places Guaranteed pods with whole CPUs where the node's topology manager policy "
        "admits them, on the fewest NUMA nodes",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
