// The resource-strategy-fit plugin (Volcano's resource-strategy-fit): three
// policies for clusters where scarce resources (GPUs) and ordinary ones mix.
//
// Strategy score (resourceStrategyFitWeight, 10; `resources`, by default cpu
// and memory LeastAllocated with weight 1). For each resource the task asks
// for that has a rule (an exact name, else the wildcard with the longest
// prefix), the node's share once the task is placed: free for
// LeastAllocated, (allocatable - used - request) / allocatable; in use for
// MostAllocated, (used + request) / allocatable; times the rule's weight.
// The sum over those resources, divided by the sum of their weights, times
// 100 and resourceStrategyFitWeight. A resource the node has none of adds
// only its weight; a node the task would overfill in any of them scores 0.
// A pod may set its own strategy and weights with the annotations
// volcano.sh/resource-strategy-scoring-type and
// volcano.sh/resource-strategy-weight ('{"cpu": 2, "nvidia.com/gpu": 5}').
//
// Scarce resource avoidance (sra.enable, sra.weight, sra.resources,
// sra.resourceWeight.<name>): a node with none of what the task asks for
// scores 0; otherwise 100 x sra.weight x (1 - the weights of the scarce
// resources the node has / the weights of all of them), so a task keeps off
// nodes with scarce resources it does not need.
//
// Proportional (proportional.enable, proportional.resources,
// proportional.resourceProportion.<name>.cpu and .memory): a predicate. A
// task that asks for none of the listed resources may not take a node's
// cpu or memory below what the node's idle units of them are to keep
// (per unit: .cpu cores and .memory GB); such a node is unschedulable and
// unresolvable, as in Volcano.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pod_weights.h"
#include "settings.h"

namespace {

using rsf::Strategy;
using scoria::api;
using scoria::log_line;
using scoria::str;
using scoria::view;

constexpr double kMaxNodeScore = 100;
// Volcano's minResource: a request below it is no request.
constexpr double kMinResource = 0.1;
// Volcano keeps proportional memory per unit in 10^6 bytes per milli-unit,
// i.e. GB per unit.
constexpr double kBytesPerMilliGb = 1e6;
constexpr std::string_view kTypeAnnotation = "volcano.sh/resource-strategy-scoring-type";
constexpr std::string_view kWeightAnnotation = "volcano.sh/resource-strategy-weight";

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "resourceStrategyFitWeight", "10",
                                         "weight of the strategy score (0-100 per node, from the "
                                         "strategies in resources) among the node scores; 0 "
                                         "turns it off"),
                     0),
    scoria::declare_arg(SCORIA_ARG_MAP, "resources", nullptr,
                        "per resource: resources.<name>.type (LeastAllocated or MostAllocated; "
                        "LeastAllocated when left out) and resources.<name>.weight (a whole "
                        "number of at least 1; 1 when left out); <name> may end in one * "
                        "(nvidia.com/*); cpu and memory LeastAllocated with weight 1 when absent"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "sra.enable", "false",
                        "scarce resource avoidance: a task that does not ask for the resources "
                        "in sra.resources prefers nodes without them"),
    scoria::declare_arg(SCORIA_ARG_STRING, "sra.resources", nullptr,
                        "the scarce resources, separated by commas (\"nvidia.com/t4, "
                        "nvidia.com/a10\"); none when left out"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "sra.weight", "0",
                                         "weight of the sra score (0-100 per node) among the node "
                                         "scores; 0, Volcano's default, leaves sra off even when "
                                         "sra.enable is true"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "sra.resourceWeight.*", "1",
                                         "how scarce a resource named in sra.resources is "
                                         "(sra.resourceWeight.nvidia.com/gpu); ignored for one "
                                         "not named there"),
                     0),
    scoria::declare_arg(SCORIA_ARG_BOOL, "proportional.enable", "false",
                        "refuse a task asking for none of proportional.resources the nodes whose "
                        "idle cpu or memory it would take below the proportion kept for their "
                        "idle units of those resources"),
    scoria::declare_arg(SCORIA_ARG_STRING, "proportional.resources", nullptr,
                        "the primary resources, separated by commas (\"nvidia.com/gpu\"); none "
                        "when left out"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_FLOAT, "proportional.resourceProportion.*", "1",
                                         "<resource>.cpu: cores kept idle per idle unit of a "
                                         "resource in proportional.resources; <resource>.memory: "
                                         "GB (10^9 bytes) kept idle per idle unit"),
                     0),
};

// What the strategy score counts for one resource of one task.
struct Term {
  size_t dim;
  Strategy type;
  double weight;
};

// Terms of one task, kept inline for the usual handful of resources so a
// scoring call allocates nothing.
class Terms {
 public:
  void push(const Term& t) {
    if (n_ < inline_.size())
      inline_[n_] = t;
    else
      heap_.push_back(t);
    ++n_;
  }
  template <class F>
  bool all(F&& f) const {
    for (size_t i = 0; i < n_; ++i)
      if (!f(i < inline_.size() ? inline_[i] : heap_[i - inline_.size()])) return false;
    return true;
  }

 private:
  std::array<Term, 8> inline_{};
  std::vector<Term> heap_;
  size_t n_ = 0;
};

struct ProportionalDim {
  size_t dim;
  double cpu;
  double memory;
  uint32_t reason;
};

struct ResourceStrategyFit {
  explicit ResourceStrategyFit(const scoria_args* args) : s(rsf::read_settings(args)) {
    for (const auto& r : s.proportional.resources)
      reasons.push_back(
          api().reason_intern(str("proportional of resource " + r.name + " check failed")));
  }

  rsf::Settings s;
  std::vector<uint32_t> reasons;  // one per proportional resource, in order

  // Per session.
  size_t dims = 0;
  std::vector<std::string_view> dim_names;  // host-owned, valid for the session
  std::vector<const rsf::ResourceRule*> rule_of_dim;
  std::vector<std::pair<size_t, double>> sra_dims;  // dimension, weight
  std::vector<ProportionalDim> proportional_dims;
  // Pods whose annotations could not be used, logged at close: the scoring
  // hooks run on several threads and may not log.
  std::mutex problems_mutex;
  std::vector<std::string> problems;

  void note_problem(std::string text) {
    const std::lock_guard lock(problems_mutex);
    if (std::find(problems.begin(), problems.end(), text) == problems.end())
      problems.push_back(std::move(text));
  }

  // The terms of `task`: from its annotations when it sets a strategy, else
  // from the rules. False when the annotations cannot be used, which scores
  // the strategy 0 on every node, as Volcano does.
  bool terms_of(const scoria_task* task, const scoria_task_info& ti, Terms& out) {
    scoria_str type_text{};
    if (api().task_annotation(task, str(kTypeAnnotation), &type_text) != SCORIA_OK ||
        type_text.len == 0) {
      for (size_t d = 0; d < dims; ++d)
        if (d != SCORIA_DIM_PODS && ti.resreq[d] >= kMinResource && rule_of_dim[d] != nullptr)
          out.push({d, rule_of_dim[d]->type, static_cast<double>(rule_of_dim[d]->weight)});
      return true;
    }
    const std::string_view type = view(type_text);
    scoria_str weights_text{};
    if (api().task_annotation(task, str(kWeightAnnotation), &weights_text) != SCORIA_OK ||
        weights_text.len == 0) {
      note_problem("pod " + std::string(view(ti.uid)) + ": annotation '" +
                   std::string(kTypeAnnotation) + "' is present, but annotation '" +
                   std::string(kWeightAnnotation) + "' is missing or empty");
      return false;
    }
    const auto weights = rsf::parse_pod_weights(view(weights_text));
    if (!weights) {
      note_problem("pod " + std::string(view(ti.uid)) + ": annotation '" +
                   std::string(kWeightAnnotation) + "' is " + std::string(view(weights_text)) +
                   ", not a JSON object of resource names to whole numbers");
      return false;
    }
    const Strategy strategy = type == "MostAllocated"    ? Strategy::MostAllocated
                              : type == "LeastAllocated" ? Strategy::LeastAllocated
                                                         : Strategy::Other;
    for (size_t d = 0; d < dims; ++d) {
      if (d == SCORIA_DIM_PODS || ti.resreq[d] < kMinResource) continue;
      if (const int64_t* w = rsf::find_weight(*weights, dim_names[d]))
        out.push({d, strategy, static_cast<double>(*w)});
    }
    return true;
  }

  double strategy_score(const Terms& terms, const double* request,
                        const scoria_node_info& n) const {
    double score = 0;
    double weights = 0;  // a double: weights near INT64_MAX must not overflow
    const bool fits = terms.all([&](const Term& t) {
      weights += t.weight;
      const double capacity = n.allocatable[t.dim];
      if (t.weight == 0 || capacity == 0 || t.type == Strategy::Other) return true;
      const double used = request[t.dim] + n.used[t.dim];
      if (used > capacity) return false;
      score += (t.type == Strategy::MostAllocated ? used : capacity - used) * t.weight / capacity;
      return true;
    });
    if (!fits) return 0;
    if (weights > 0) score /= weights;
    return score * kMaxNodeScore * static_cast<double>(s.weight);
  }

  double sra_score(const double* request, const scoria_node_info& n) const {
    // A node without something the task asks for is no place to keep clear.
    for (size_t d = 0; d < dims; ++d)
      if (d != SCORIA_DIM_PODS && request[d] >= kMinResource && n.allocatable[d] == 0) return 0;
    double score = 0;
    for (const auto& [dim, weight] : sra_dims)
      if (n.allocatable[dim] > 0) score += weight;
    if (s.sra.weight_sum > 0) score = 1 - score / static_cast<double>(s.sra.weight_sum);
    return score * kMaxNodeScore * static_cast<double>(s.sra.weight);
  }
};

scoria_code score_batch(void* user_data, const scoria_task* task, const scoria_node* const* nodes,
                        size_t count, double* scores) {
  auto& self = *static_cast<ResourceStrategyFit*>(user_data);
  try {
    const scoria_task_info ti = scoria::info(task);
    Terms terms;
    const bool strategy = self.s.weight > 0 && self.terms_of(task, ti, terms);
    for (size_t i = 0; i < count; ++i) {
      const scoria_node_info ni = scoria::info(nodes[i]);
      double score = 0;
      if (strategy) score += self.strategy_score(terms, ti.resreq, ni);
      if (self.s.sra.weight > 0) score += self.sra_score(ti.resreq, ni);
      scores[i] = score;
    }
    return SCORIA_OK;
  } catch (...) {  // only allocation can throw; a score that fails counts 0
    return SCORIA_ERROR;
  }
}

scoria_code proportional_batch(void* user_data, const scoria_task* task,
                               const scoria_node* const* nodes, size_t count, scoria_code* codes,
                               uint32_t* reasons) {
  const auto& self = *static_cast<const ResourceStrategyFit*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  std::fill(codes, codes + count, SCORIA_OK);
  // A task that asks for a primary resource is what the proportion is kept for.
  for (const ProportionalDim& p : self.proportional_dims)
    if (ti.resreq[p.dim] > 0) return SCORIA_OK;
  const double cpu = ti.resreq[SCORIA_DIM_CPU];
  const double memory = ti.resreq[SCORIA_DIM_MEMORY];
  for (size_t i = 0; i < count; ++i) {
    const scoria_node_info ni = scoria::info(nodes[i]);
    for (const ProportionalDim& p : self.proportional_dims) {
      // Volcano checks the resources a node has (its idle lists them, even
      // at 0); a node without them keeps nothing.
      if (ni.allocatable[p.dim] <= 0) continue;
      const double units = ni.idle[p.dim];  // milli-units, as Volcano counts
      if (ni.idle[SCORIA_DIM_CPU] - cpu < units * p.cpu ||
          ni.idle[SCORIA_DIM_MEMORY] - memory < units * p.memory * kBytesPerMilliGb) {
        codes[i] = SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
        reasons[i] = p.reason;
        break;
      }
    }
  }
  return SCORIA_OK;
}

// Volcano logs, at -v 4, the scarce resources no node has.
void log_missing_sra(const scoria_session* ssn, const ResourceStrategyFit& self) {
  if (!api().log_enabled(scoria::host().ctx, SCORIA_LOG_V4)) return;
  std::string missing;
  for (const auto& r : self.s.sra.resources) {
    bool found = false;
    size_t dim = 0;
    if (api().resource_dim_find(ssn, str(r.name), &dim) == SCORIA_OK)
      for (size_t i = 0, n = api().node_count(ssn); i < n && !found; ++i)
        found = scoria::info(api().node_at(ssn, i)).allocatable[dim] > 0;
    if (!found) missing += (missing.empty() ? "" : ", ") + r.name;
  }
  if (!missing.empty())
    log_line(SCORIA_LOG_V4, "resources [", missing,
             "] record in sra.resources but not found on any node");
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<ResourceStrategyFit*>(instance);
    self.dims = api().resource_dim_count(ssn);
    self.dim_names.assign(self.dims, {});
    self.rule_of_dim.assign(self.dims, nullptr);
    for (size_t d = 0; d < self.dims; ++d) {
      self.dim_names[d] = view(api().resource_dim_name(ssn, d));
      if (d != SCORIA_DIM_PODS)
        self.rule_of_dim[d] = rsf::find_rule(self.s.rules, self.dim_names[d]);
    }
    self.sra_dims.clear();
    for (const auto& r : self.s.sra.resources) {
      size_t dim = 0;
      if (api().resource_dim_find(ssn, str(r.name), &dim) == SCORIA_OK)
        self.sra_dims.emplace_back(dim, static_cast<double>(r.weight));
    }
    self.proportional_dims.clear();
    for (size_t i = 0; i < self.s.proportional.resources.size(); ++i) {
      const auto& r = self.s.proportional.resources[i];
      size_t dim = 0;
      // Volcano looks the primary resources up among the scalar ones, never
      // cpu or memory.
      if (api().resource_dim_find(ssn, str(r.name), &dim) == SCORIA_OK && dim != SCORIA_DIM_CPU &&
          dim != SCORIA_DIM_MEMORY)
        self.proportional_dims.push_back({dim, r.cpu, r.memory, self.reasons[i]});
    }
    hooks->user_data = &self;
    if (self.s.proportional.enabled && !self.proportional_dims.empty())
      hooks->on_predicate_batch = proportional_batch;
    if (self.s.sra.weight > 0) log_missing_sra(ssn, self);
    if (self.s.weight > 0 || self.s.sra.weight > 0)
      hooks->on_node_order_batch = score_batch;
    else
      log_line(SCORIA_LOG_V4,
               "the weights of both resourceStrategyFit and sra are zero, skip node order "
               "function");
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<ResourceStrategyFit*>(instance);
  const std::lock_guard lock(self.problems_mutex);
  for (const std::string& p : self.problems)
    log_line(SCORIA_LOG_ERROR, p, "; its strategy score is 0 on every node");
  self.problems.clear();
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "resource-strategy-fit",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "Per-resource LeastAllocated/MostAllocated scores, scarce resource avoidance "
        "(sra) and proportional reservation of cpu and memory for scarce resources",
    .on_create = scoria::create_instance<ResourceStrategyFit>,
    .on_destroy = scoria::destroy_instance<ResourceStrategyFit>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
