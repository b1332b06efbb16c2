// The nodeorder plugin (Volcano's nodeorder): scores nodes with
// kube-scheduler's score plugins, each normalized to 0..100 and multiplied
// by its weight, the weights read from Volcano's argument names:
//
//   leastrequested.weight    (1)  NodeResourcesFit, LeastAllocated
//   mostrequested.weight     (0)  NodeResourcesFit, MostAllocated
//   balancedresource.weight  (1)  NodeResourcesBalancedAllocation
//   nodeaffinity.weight      (2)  NodeAffinity (preferred terms)
//   tainttoleration.weight   (3)  TaintToleration (PreferNoSchedule)
//   podaffinity.weight       (2)  InterPodAffinity (preferred terms)
//   podtopologyspread.weight (2)  PodTopologySpread (ScheduleAnyway
//                                 constraints)
//
// imagelocality.weight (1) is accepted and has no effect: the cluster model
// carries no node images.
//
// A weight is 0 or more: a negative one would turn a preference into its
// opposite (most requested where least was asked for), and the host refuses
// it when it loads the config, as it refuses NaN and infinities.
//
// One batch hook scores every candidate node of a task at once, because
// four of the scores are normalized over the candidates.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <vector>

#include "node_affinity.h"
#include "node_score.h"
#include "pod_affinity_score.h"
#include "pod_terms.h"
#include "resource_scores.h"
#include "spread_score.h"
#include "toleration.h"

namespace {

using nodeorder::kMaxNodeScore;
using scoria::api;
using scoria::view;

constexpr std::string_view kGpuResource = "nvidia.com/gpu";

struct Weights {
  int64_t least_requested = 1;
  int64_t most_requested = 0;
  int64_t balanced_resource = 1;
  int64_t node_affinity = 2;
  int64_t taint_toleration = 3;
  int64_t pod_affinity = 2;
  int64_t topology_spread = 2;
};

// Every argument Volcano's nodeorder reads, with its defaults.
constexpr scoria_arg_spec weight_arg(const char* name, const char* def, const char* help) {
  return scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, name, def, help), 0);
}
constexpr scoria_arg_spec kArgs[] = {
    weight_arg("leastrequested.weight", "1",
               "weight of the least-requested score (prefers nodes with more cpu and memory "
               "free); 0 turns it off"),
    weight_arg("mostrequested.weight", "0",
               "weight of the most-requested score (prefers nodes with less cpu and memory "
               "free); 0 turns it off"),
    weight_arg("balancedresource.weight", "1",
               "weight of the balanced-allocation score (prefers nodes whose cpu, memory and "
               "gpu use stay even); 0 turns it off"),
    weight_arg("nodeaffinity.weight", "2",
               "weight of the preferred node affinity score; 0 turns it off"),
    weight_arg("tainttoleration.weight", "3",
               "weight of the score against PreferNoSchedule taints the pod does not "
               "tolerate; 0 turns it off"),
    weight_arg("podaffinity.weight", "2",
               "weight of the preferred inter-pod affinity and anti-affinity score; 0 turns it "
               "off"),
    weight_arg("imagelocality.weight", "1",
               "accepted for Volcano configs; Scoria knows no node images: no effect"),
    weight_arg("podtopologyspread.weight", "2",
               "weight of the topology spread score (prefers nodes whose domains hold fewer pods "
               "matching the pod's ScheduleAnyway constraints); 0 turns it off"),
};

struct NodeOrder {
  // The host has checked each weight and passes the declared default of one
  // the config leaves out.
  explicit NodeOrder(const scoria_args* args) {
    if (args == nullptr) return;
    w.least_requested = scoria::arg_int(args, "leastrequested.weight", w.least_requested);
    w.most_requested = scoria::arg_int(args, "mostrequested.weight", w.most_requested);
    w.balanced_resource = scoria::arg_int(args, "balancedresource.weight", w.balanced_resource);
    w.node_affinity = scoria::arg_int(args, "nodeaffinity.weight", w.node_affinity);
    w.taint_toleration = scoria::arg_int(args, "tainttoleration.weight", w.taint_toleration);
    w.pod_affinity = scoria::arg_int(args, "podaffinity.weight", w.pod_affinity);
    w.topology_spread = scoria::arg_int(args, "podtopologyspread.weight", w.topology_spread);
  }

  Weights w;
  // Per session.
  const scoria_session* ssn = nullptr;
  std::optional<size_t> gpu_dim;
  bool any_prefer_no_schedule = false;  // some node has a PreferNoSchedule taint
  kube::SessionPodTerms pod_terms;
};

// Truncated to an integer as kube-scheduler's int64 arithmetic does, but
// saturating at 2^56 (64Pi bytes, 72 million million millicores): a quantity
// near Kubernetes' cap of 2^63-1 units is beyond int64 in millicores, and the
// scores multiply amounts by 100, so anything larger would overflow (which
// is undefined) instead of ranking as "huge".
int64_t whole(double x) {
  constexpr int64_t kLimit = int64_t{1} << 56;
  if (x >= static_cast<double>(kLimit)) return kLimit;
  if (x <= -static_cast<double>(kLimit)) return -kLimit;
  return static_cast<int64_t>(x);
}

// kube-scheduler's DefaultNormalizeScore: scale so the best node gets 100
// (reverse: so the worst gets 0).
void normalize_to_max(std::vector<int64_t>& raw, bool reverse) {
  const int64_t max = raw.empty() ? 0 : *std::max_element(raw.begin(), raw.end());
  if (max == 0) {
    if (reverse) std::fill(raw.begin(), raw.end(), kMaxNodeScore);
    return;
  }
  for (int64_t& s : raw) {
    s = kMaxNodeScore * s / max;
    if (reverse) s = kMaxNodeScore - s;
  }
}

// InterPodAffinity's normalization: min to 0, max to 100.
void normalize_min_max(std::vector<int64_t>& raw) {
  if (raw.empty()) return;
  const auto [lo, hi] = std::minmax_element(raw.begin(), raw.end());
  const int64_t min = *lo;
  const int64_t diff = *hi - min;
  for (int64_t& s : raw) {
    s = diff > 0 ? whole(static_cast<double>(kMaxNodeScore) * static_cast<double>(s - min) /
                         static_cast<double>(diff))
                 : 0;
  }
}

void add_weighted(std::span<double> scores, const std::vector<int64_t>& part, int64_t weight) {
  for (size_t i = 0; i < part.size() && i < scores.size(); ++i)
    scores[i] += static_cast<double>(part[i]) * static_cast<double>(weight);
}

void resource_scores(const NodeOrder& self, const scoria_task_info& ti,
                     std::span<const scoria_node* const> nodes, std::span<double> scores) {
  const Weights& w = self.w;
  if (w.least_requested == 0 && w.most_requested == 0 && w.balanced_resource == 0) return;
  const int64_t cpu = whole(ti.resreq[SCORIA_DIM_CPU]);
  const int64_t memory = whole(ti.resreq[SCORIA_DIM_MEMORY]);
  const int64_t cpu_nonzero = cpu != 0 ? cpu : nodeorder::kDefaultMilliCpuRequest;
  const int64_t memory_nonzero = memory != 0 ? memory : nodeorder::kDefaultMemoryRequest;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const scoria_node_info ni = scoria::info(nodes[i]);
    const auto use = [&](size_t dim, int64_t pod) {
      return nodeorder::ResourceUse{whole(ni.allocatable[dim]), whole(ni.used[dim]), pod};
    };
    double s = 0;
    if (w.least_requested != 0)
      s += static_cast<double>(nodeorder::least_allocated(use(SCORIA_DIM_CPU, cpu_nonzero),
                                                          use(SCORIA_DIM_MEMORY, memory_nonzero))) *
           static_cast<double>(w.least_requested);
    if (w.most_requested != 0)
      s += static_cast<double>(nodeorder::most_allocated(use(SCORIA_DIM_CPU, cpu_nonzero),
                                                         use(SCORIA_DIM_MEMORY, memory_nonzero))) *
           static_cast<double>(w.most_requested);
    if (w.balanced_resource != 0) {
      std::optional<nodeorder::ResourceUse> gpu;
      if (self.gpu_dim) gpu = use(*self.gpu_dim, whole(ti.resreq[*self.gpu_dim]));
      s += static_cast<double>(nodeorder::balanced_allocation(
               use(SCORIA_DIM_CPU, cpu), use(SCORIA_DIM_MEMORY, memory), gpu)) *
           static_cast<double>(w.balanced_resource);
    }
    scores[i] += s;
  }
}

void node_affinity_scores(const NodeOrder& self, const scoria_task* task,
                          std::span<const scoria_node* const> nodes, std::span<double> scores) {
  if (self.w.node_affinity == 0) return;
  const kube::NodeAffinityTerms preferred(task, SCORIA_AFFINITY_PREFERRED);
  if (preferred.empty()) return;
  std::vector<int64_t> raw(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    raw[i] = preferred.matched_weight(nodes[i], view(scoria::info(nodes[i]).name));
  normalize_to_max(raw, false);
  add_weighted(scores, raw, self.w.node_affinity);
}

// The number of PreferNoSchedule taints the task does not tolerate; fewer is
// better.
void taint_scores(const NodeOrder& self, const scoria_task* task,
                  std::span<const scoria_node* const> nodes, std::span<double> scores) {
  if (self.w.taint_toleration == 0) return;
  if (!self.any_prefer_no_schedule) {
    // Every node scores the full 100: skip the per-node walk.
    for (double& s : scores)
      s += static_cast<double>(kMaxNodeScore) * static_cast<double>(self.w.taint_toleration);
    return;
  }
  const kube::Tolerations tolerations(task);
  std::vector<int64_t> raw(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const size_t count = api().node_taint_count(nodes[i]);
    for (size_t t = 0; t < count; ++t) {
      scoria_taint taint{};
      taint.struct_size = sizeof taint;
      api().node_taint_at(nodes[i], t, &taint);
      if (taint.effect == SCORIA_TAINT_PREFER_NO_SCHEDULE &&
          !tolerations.tolerate_with_effect(view(taint.key), view(taint.value), taint.effect))
        ++raw[i];
    }
  }
  normalize_to_max(raw, true);
  add_weighted(scores, raw, self.w.taint_toleration);
}

void pod_affinity_scores(const NodeOrder& self, const scoria_task* task,
                         std::span<const scoria_node* const> nodes, std::span<double> scores) {
  if (self.w.pod_affinity == 0 || self.ssn == nullptr) return;
  std::vector<int64_t> raw = nodeorder::pod_affinity_scores(self.ssn, task, self.pod_terms, nodes);
  if (raw.empty()) return;
  normalize_min_max(raw);
  add_weighted(scores, raw, self.w.pod_affinity);
}

void spread_scores(const NodeOrder& self, const scoria_task* task,
                   std::span<const scoria_node* const> nodes, std::span<double> scores) {
  if (self.w.topology_spread == 0 || self.ssn == nullptr) return;
  const std::vector<int64_t> normalized =
      nodeorder::spread_scores(self.ssn, task, self.pod_terms, nodes);
  add_weighted(scores, normalized, self.w.topology_spread);
}

scoria_code score_batch(void* user_data, const scoria_task* task, const scoria_node* const* nodes,
                        size_t count, double* scores) {
  try {
    const auto& self = *static_cast<const NodeOrder*>(user_data);
    const std::span<const scoria_node* const> candidates(nodes, count);
    const std::span<double> out(scores, count);
    std::fill(out.begin(), out.end(), 0.0);
    resource_scores(self, scoria::info(task), candidates, out);
    node_affinity_scores(self, task, candidates, out);
    taint_scores(self, task, candidates, out);
    pod_affinity_scores(self, task, candidates, out);
    spread_scores(self, task, candidates, out);
    return SCORIA_OK;
  } catch (...) {
    return SCORIA_ERROR;
  }
}

// The resource scores are about the node alone; the others are normalised
// over the candidates, so the task's scores are cacheable only when none of
// them has anything to say (each then adds nothing, or the same to every
// node).
uint32_t cache_policy(void* user_data, const scoria_task* task) {
  const auto& self = *static_cast<const NodeOrder*>(user_data);
  const Weights& w = self.w;
  if (w.node_affinity != 0 && !kube::NodeAffinityTerms(task, SCORIA_AFFINITY_PREFERRED).empty())
    return 0;
  if (w.taint_toleration != 0 && self.any_prefer_no_schedule) return 0;
  const kube::PodTerms* own =
      w.pod_affinity != 0 || w.topology_spread != 0 ? self.pod_terms.of(task) : nullptr;
  if (w.pod_affinity != 0 && (!self.pod_terms.with_pod_affinity().empty() ||
                              (own != nullptr && (!own->preferred_affinity.empty() ||
                                                  !own->preferred_anti_affinity.empty()))))
    return 0;
  if (w.topology_spread != 0 && own != nullptr &&
      std::any_of(own->spread.begin(), own->spread.end(),
                  [](const kube::SpreadConstraint& c) { return !c.hard; }))
    return 0;
  return SCORIA_CACHE_NODE_ORDER | SCORIA_CACHE_CLAIMS;  // claims are not scored
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<NodeOrder*>(instance);
    self.ssn = ssn;
    size_t dim = 0;
    self.gpu_dim.reset();
    if (api().resource_dim_find(ssn, scoria::str(kGpuResource), &dim) == SCORIA_OK)
      self.gpu_dim = dim;
    if (self.w.pod_affinity != 0 || self.w.topology_spread != 0)
      self.pod_terms = kube::SessionPodTerms(ssn);
    self.any_prefer_no_schedule = false;
    const size_t nodes = api().node_count(ssn);
    for (size_t n = 0; n < nodes && !self.any_prefer_no_schedule; ++n) {
      const scoria_node* node = api().node_at(ssn, n);
      const size_t taints = api().node_taint_count(node);
      for (size_t t = 0; t < taints; ++t) {
        scoria_taint taint{};
        taint.struct_size = sizeof taint;
        api().node_taint_at(node, t, &taint);
        if (taint.effect == SCORIA_TAINT_PREFER_NO_SCHEDULE) self.any_prefer_no_schedule = true;
      }
    }
    hooks->user_data = &self;
    hooks->on_node_order_batch = score_batch;
    if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof(void*))
      hooks->on_cache_policy = cache_policy;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<NodeOrder*>(instance);
  self.ssn = nullptr;
  self.pod_terms = kube::SessionPodTerms();
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "nodeorder",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "kube-scheduler's node scores: least/most requested, balanced resources, node "
        "affinity, taint toleration, inter-pod affinity, topology spread",
    .on_create = scoria::create_instance<NodeOrder>,
    .on_destroy = scoria::destroy_instance<NodeOrder>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
