// The network-topology-aware plugin (Volcano's): keeps a job with a
// PodGroup spec.networkTopology within the HyperNodes its tier allows, and
// packs HyperNodes.
//   HyperNode gradient  the HyperNodes (from the lowest tier up, each with
//                       room for the job's minResources) that the allocate
//                       action tries, a tier at a time (hypernode_gradient.h);
//   HyperNode order     a HyperNode scores how full the job would leave it:
//                       (used + the job's requests) / allocatable, weighted
//                       per resource (hypernode.binpack.*), 0 if it would
//                       overflow; ties at the top are broken by how many of
//                       the job's tasks it already holds;
//   node order          a task of such a job prefers nodes whose lowest-tier
//                       HyperNode is close to the one the job occupies (the
//                       tier of their common ancestor), ties again by the
//                       job's tasks there; any other task (with
//                       hypernode.binpack.normal-pod.enable) prefers nodes in
//                       fuller HyperNodes, tier by tier, tier t weighing
//                       fading^(t-1);
//   allocate events     keep each HyperNode's used resources current.
// Scores are scaled to 0-100 and times `weight`.
#include <scoria/scoria.h>
#include <scoria/hypernodes.hpp>
#include <scoria/scoria.hpp>

#include "hypernode_gradient.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;
using Index = uint32_t;

constexpr double kMaxNodeScore = 100;
constexpr std::string_view kResources = "hypernode.binpack.resources";

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "weight", "1",
                                         "weight of the plugin's HyperNode and node scores "
                                         "(each 0-100 before it)"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "hypernode.binpack.cpu", "1",
                                         "weight of cpu in a HyperNode's packing score"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "hypernode.binpack.memory", "1",
                                         "weight of memory in a HyperNode's packing score"),
                     0),
    scoria::declare_arg(SCORIA_ARG_STRING, "hypernode.binpack.resources", nullptr,
                        "extended resources to weigh besides cpu and memory, separated by "
                        "commas (\"nvidia.com/gpu, example.com/foo\"); none when left out"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "hypernode.binpack.resources.*", "1",
                                         "weight of an extended resource named in "
                                         "hypernode.binpack.resources; ignored for one not "
                                         "named there"),
                     0),
    scoria::declare_arg(SCORIA_ARG_BOOL, "hypernode.binpack.normal-pod.enable", "true",
                        "score nodes for tasks of jobs without a networkTopology by how full "
                        "their HyperNodes are"),
    scoria::with_min(
        scoria::declare_arg(SCORIA_ARG_FLOAT, "hypernode.binpack.normal-pod.fading", "0.8",
                            "how much less each tier above the first weighs in "
                            "that score (tier t weighs fading^(t-1))"),
        0),
    scoria::with_min(
        scoria::declare_arg(SCORIA_ARG_INT, "hypernode.gradient.evict.max-hypernodes", "8",
                            "most HyperNodes offered when searching room by "
                            "eviction, the widest first"),
        1),
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct Config {
  explicit Config(const scoria_args* args) {
    if (args == nullptr) return;
    weight = scoria::arg_int(args, "weight", 1);
    cpu = scoria::arg_int(args, "hypernode.binpack.cpu", 1);
    memory = scoria::arg_int(args, "hypernode.binpack.memory", 1);
    if (const auto list = scoria::arg_string(args, kResources)) {
      std::string_view rest = *list;
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view name = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (name.empty()) continue;
        const std::string key = std::string(kResources) + "." + std::string(name);
        resources.emplace_back(std::string(name), scoria::arg_int(args, key, 1));
      }
    }
    normal_pod = scoria::arg_bool(args, "hypernode.binpack.normal-pod.enable", true);
    fading = scoria::arg_float(args, "hypernode.binpack.normal-pod.fading", 0.8);
    evict_max =
        static_cast<size_t>(scoria::arg_int(args, "hypernode.gradient.evict.max-hypernodes", 8));
  }

  int64_t weight = 1, cpu = 1, memory = 1;
  std::vector<std::pair<std::string, int64_t>> resources;
  bool normal_pod = true;
  double fading = 0.8;
  size_t evict_max = 8;
};

// A HyperNode's resources (Volcano's hyperNodeResourceCache): allocatable,
// idle and future idle as the session opened; used kept current by events.
struct Status {
  std::vector<double> allocatable, used, idle, future_idle;
};

struct Instance {
  explicit Instance(const scoria_args* args) : config(args) {}

  Config config;
  // Per session.
  const scoria_session* ssn = nullptr;
  size_t dims = 0;
  scoria::HyperNodeTree tree;
  scoria_nta::Tree plain;  // the same tree for hypernode_gradient.h
  std::vector<Status> status;
  std::vector<std::pair<size_t, double>> weights;  // dimension, binpack weight
  // For normal pods: per tier from the lowest to the highest, each node's
  // HyperNode of that tier (kNone if none), and the tier's weight.
  std::vector<std::vector<Index>> node_in_tier;
  std::vector<double> tier_weight;
  double tier_weight_total = 0;
  std::unordered_map<uint32_t, uint32_t> placed;  // task index -> node, placed this session
};

std::span<const double> span(const double* v, size_t dims) { return {v, v ? dims : 0}; }

void add_to(std::vector<double>& to, std::span<const double> v, double sign) {
  for (size_t d = 0; d < to.size() && d < v.size(); ++d) to[d] += sign * v[d];
}

// --- scores -------------------------------------------------------------------

// How full `h` would be with `request` added, averaged over the weighted
// resources the request asks for; 0 if any would overflow.
double packing(const Instance& self, Index h, std::span<const double> request) {
  const Status& s = self.status[h];
  double total = 0;
  int64_t weights = 0;
  for (const auto& [d, w] : self.weights) {
    if (d >= request.size() || request[d] <= 0) continue;
    if (s.used[d] + request[d] > s.allocatable[d]) return 0;
    total += static_cast<double>(w) * (s.used[d] + request[d]) / s.allocatable[d];
    weights += w;
  }
  return weights > 0 ? total / static_cast<double>(weights) : 0;
}

// The tasks a score weighs: a job's, or (ABI 1.9) a sub-job's.
struct Tasks {
  const scoria_job* job = nullptr;
  const scoria_sub_job* sub_job = nullptr;

  size_t size() const {
    return sub_job ? api().sub_job_task_count(sub_job) : api().job_task_count(job);
  }
  const scoria_task* at(size_t i) const {
    return sub_job ? api().sub_job_task_at(sub_job, i) : api().job_task_at(job, i);
  }
};

// The tasks on nodes of `h`, over all of them (Volcano's scoreWithTaskNum).
double task_share(const Instance& self, const Tasks& tasks, Index h) {
  const size_t count = tasks.size();
  if (count == 0) return 0;
  if (h == SCORIA_NO_HYPERNODE) return 0;
  size_t on = 0;
  for (size_t i = 0; i < count; ++i) {
    const scoria_task_info ti = scoria::info(tasks.at(i));
    if (ti.node_name.len == 0) continue;
    const scoria_node* node = api().node_find(self.ssn, ti.node_name);
    if (node != nullptr && self.tree.holds(h, scoria::info(node).index)) ++on;
  }
  return static_cast<double>(on) / static_cast<double>(count);
}

double scale(const Instance& self, double score) {
  return kMaxNodeScore * static_cast<double>(self.config.weight) * score;
}

// Adds the task-share score to every candidate that ties at the top, when
// more than one does.
template <class HyperNodeOf>
void break_ties(const Instance& self, const Tasks& tasks, double* scores, size_t count,
                HyperNodeOf hypernode_of) {
  if (count == 0) return;
  const double top = *std::max_element(scores, scores + count);
  if (std::count(scores, scores + count, top) < 2) return;
  for (size_t i = 0; i < count; ++i)
    if (scores[i] == top) scores[i] += task_share(self, tasks, hypernode_of(i));
}

// Volcano's HyperNodeOrderFn: how full each candidate would be with all the
// tasks' requests (any status) added.
scoria_code hypernode_order(const Instance& self, const Tasks& tasks, const Index* hypernodes,
                            size_t count, double* scores) {
  return scoria::guarded([&] {
    std::vector<double> request(self.dims, 0.0);
    const size_t n = tasks.size();
    for (size_t i = 0; i < n; ++i)
      add_to(request, span(scoria::info(tasks.at(i)).resreq, self.dims), 1);
    for (size_t i = 0; i < count; ++i) scores[i] = packing(self, hypernodes[i], request);
    break_ties(self, tasks, scores, count, [&](size_t i) { return hypernodes[i]; });
    for (size_t i = 0; i < count; ++i) scores[i] = scale(self, scores[i]);
  });
}

scoria_code on_hypernode_order(void* user_data, const scoria_job* job, const Index* hypernodes,
                               size_t count, double* scores) {
  return hypernode_order(*static_cast<const Instance*>(user_data), Tasks{job, nullptr}, hypernodes,
                         count, scores);
}

scoria_code on_sub_job_hypernode_order(void* user_data, const scoria_sub_job* sub_job,
                                       const Index* hypernodes, size_t count, double* scores) {
  return hypernode_order(*static_cast<const Instance*>(user_data), Tasks{nullptr, sub_job},
                         hypernodes, count, scores);
}

// Volcano's networkTopologyAwareScore: 1 in the job's own HyperNode, else
// by the tier of the common ancestor, 0 with either unknown.
double closeness(const Instance& self, Index h, Index allocated) {
  if (h == SCORIA_NO_HYPERNODE || allocated == SCORIA_NO_HYPERNODE) return 0;
  if (h == allocated) return 1;
  const Index meet = self.tree.lca(h, allocated);
  if (meet == SCORIA_NO_HYPERNODE) return 0;
  const int32_t lo = self.tree.min_tier(), hi = self.tree.max_tier(), tier = self.tree.tier(meet);
  if (lo == hi) return 1;
  if (tier < lo || tier > hi) return 0;
  return static_cast<double>(hi - tier) / static_cast<double>(hi - lo);
}

scoria_code on_node_order_batch(void* user_data, const scoria_task* task,
                                const scoria_node* const* nodes, size_t count, double* scores) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  // The task's sub-job's topology (ABI 1.9; the job's for a job without
  // subGroupPolicy), as Volcano keys node scoring on the sub-job.
  const Tasks tasks{ti.job, scoria::host_has_sub_jobs() ? api().task_sub_job(task) : nullptr};
  const scoria_network_topology topo =
      tasks.sub_job ? scoria::network_topology(tasks.sub_job) : scoria::network_topology(ti.job);
  std::fill_n(scores, count, 0.0);
  if (topo.mode != SCORIA_TOPOLOGY_NONE) {
    if (topo.allocated_hypernode == SCORIA_NO_HYPERNODE) return SCORIA_OK;
    std::vector<Index> of(count);
    for (size_t i = 0; i < count; ++i) {
      of[i] = self.tree.lowest_of_node(scoria::info(nodes[i]).index);
      scores[i] = closeness(self, of[i], topo.allocated_hypernode);
    }
    break_ties(self, tasks, scores, count, [&](size_t i) { return of[i]; });
    for (size_t i = 0; i < count; ++i) scores[i] = scale(self, scores[i]);
    return SCORIA_OK;
  }
  if (!self.config.normal_pod || self.tier_weight_total <= 0) return SCORIA_OK;
  const std::span<const double> request = span(ti.resreq, self.dims);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t n = scoria::info(nodes[i]).index;
    double total = 0;
    for (size_t t = 0; t < self.node_in_tier.size(); ++t) {
      // A node in no HyperNode of a tier scores full there: Volcano prefers
      // nodes outside HyperNodes for these tasks.
      const Index h =
          n < self.node_in_tier[t].size() ? self.node_in_tier[t][n] : SCORIA_NO_HYPERNODE;
      total += self.tier_weight[t] * (h == SCORIA_NO_HYPERNODE ? 1.0 : packing(self, h, request));
    }
    scores[i] = scale(self, total / self.tier_weight_total);
  }
  return SCORIA_OK;
}

// --- gradients -------------------------------------------------------------------

// Runs a gradient hook's body: an exception (out of memory) is reported and
// gives no opinion, so the next plugin or the root alone decides.
template <class F>
int64_t no_opinion_on_throw(F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    scoria::report_error(e.what());
  } catch (...) {
    scoria::report_error("unknown exception");
  }
  return -1;
}

// Volcano's hyperNodeGradientFn for a job or sub-job whose topology is
// `topo` and which needs `min` where nothing of it is placed yet.
int64_t gradient_of(const Instance& self, const scoria_network_topology& topo,
                    std::span<const double> min, std::string_view uid, Index root, uint32_t purpose,
                    Index* hypernodes, uint32_t* gradient, size_t capacity) {
  std::vector<scoria_nta::Found> found;
  if (topo.mode == SCORIA_TOPOLOGY_HARD && topo.has_highest_tier_allowed != 0) {
    const auto fits = [&](uint32_t h) {
      const Status& s = self.status[h];
      if (purpose == SCORIA_SEARCH_EVICT) return scoria::less_equal(min, s.allocatable);
      return scoria::less_equal(min, s.idle) || scoria::less_equal(min, s.future_idle);
    };
    found = scoria_nta::gradients(self.plain, root, topo.highest_tier_allowed,
                                  topo.allocated_hypernode, fits);
    if (purpose == SCORIA_SEARCH_EVICT)
      found = scoria_nta::reverse_and_cap(found, self.config.evict_max);
    if (api().log_enabled(scoria::host().ctx, SCORIA_LOG_V4)) {
      log_line(SCORIA_LOG_V4, "<", uid, "> may use ", found.size(), " HyperNodes under <",
               self.tree.name(root), "> up to tier ", topo.highest_tier_allowed);
    }
  } else {
    found.push_back({root, 0});
  }
  const size_t n = std::min(found.size(), capacity);
  for (size_t i = 0; i < n; ++i) {
    hypernodes[i] = found[i].hypernode;
    gradient[i] = found[i].gradient;
  }
  return static_cast<int64_t>(n);
}

// The job's: what its PodGroup's minResources asks for.
int64_t on_hypernode_gradient(void* user_data, const scoria_job* job, Index root, uint32_t purpose,
                              Index* hypernodes, uint32_t* gradient, size_t capacity) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const scoria_job_info ji = scoria::info(job);
  return no_opinion_on_throw([&] {
    return gradient_of(self, scoria::network_topology(job), span(ji.min_resources, self.dims),
                       scoria::view(ji.uid), root, purpose, hypernodes, gradient, capacity);
  });
}

// A sub-job's: what its Pending tasks need to start (Volcano's
// SubJobInfo.GetMinResources).
int64_t on_sub_job_hypernode_gradient(void* user_data, const scoria_sub_job* sub_job, Index root,
                                      uint32_t purpose, Index* hypernodes, uint32_t* gradient,
                                      size_t capacity) {
  const auto& self = *static_cast<const Instance*>(user_data);
  return no_opinion_on_throw([&] {
    std::vector<double> min(self.dims, 0.0);
    const size_t count = api().sub_job_task_count(sub_job);
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ti = scoria::info(api().sub_job_task_at(sub_job, i));
      if (ti.status == SCORIA_TASK_PENDING) add_to(min, span(ti.init_resreq, self.dims), 1);
    }
    return gradient_of(self, scoria::network_topology(sub_job), min,
                       scoria::view(scoria::info(sub_job).uid), root, purpose, hypernodes, gradient,
                       capacity);
  });
}

// --- events ------------------------------------------------------------------------

// A discarded placement is told after the task has left its node, so each
// task's node is remembered when it is placed.
void account(Instance& self, uint32_t node, std::span<const double> request, double sign) {
  for (Index h = 0; h < self.tree.size(); ++h)
    if (self.tree.holds(h, node)) add_to(self.status[h].used, request, sign);
}

void on_allocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  if (ti.node_name.len == 0) return;
  const scoria_node* node = api().node_find(self.ssn, ti.node_name);
  if (node == nullptr) return;
  const uint32_t n = scoria::info(node).index;
  self.placed[ti.index] = n;
  account(self, n, span(ti.resreq, self.dims), 1);
}

void on_deallocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  const auto it = self.placed.find(ti.index);
  if (it != self.placed.end()) {
    account(self, it->second, span(ti.resreq, self.dims), -1);
    self.placed.erase(it);
    return;
  }
  // An eviction: the task is still on its node, as Releasing.
  if (ti.node_name.len == 0) return;
  if (const scoria_node* node = api().node_find(self.ssn, ti.node_name))
    account(self, scoria::info(node).index, span(ti.resreq, self.dims), -1);
}

// --- session -------------------------------------------------------------------------

void open(Instance& self, const scoria_session* ssn) {
  self.ssn = ssn;
  self.dims = scoria::dims(ssn);
  self.placed.clear();
  self.tree = scoria::HyperNodeTree(ssn);
  const size_t count = self.tree.size();

  self.plain = {};
  self.plain.tier.resize(count);
  self.plain.parent.resize(count);
  self.plain.children.resize(count);
  for (Index h = 0; h < count; ++h) {
    self.plain.tier[h] = self.tree.tier(h);
    self.plain.parent[h] = self.tree.parent(h);
    const auto c = self.tree.children(h);
    self.plain.children[h].assign(c.begin(), c.end());
  }

  const size_t nodes = api().node_count(ssn);
  std::vector<scoria_node_info> infos(nodes);
  for (size_t n = 0; n < nodes; ++n) infos[n] = scoria::info(api().node_at(ssn, n));
  self.status.assign(count, Status{});
  for (Index h = 0; h < count; ++h) {
    Status& s = self.status[h];
    s.allocatable.assign(self.dims, 0);
    s.used.assign(self.dims, 0);
    s.idle.assign(self.dims, 0);
    s.future_idle.assign(self.dims, 0);
    for (uint32_t n : self.tree.nodes(h)) {
      if (n >= nodes) continue;
      const scoria_node_info& ni = infos[n];
      add_to(s.allocatable, span(ni.allocatable, self.dims), 1);
      add_to(s.used, span(ni.used, self.dims), 1);
      add_to(s.idle, span(ni.idle, self.dims), 1);
      add_to(s.future_idle, span(ni.idle, self.dims), 1);
      add_to(s.future_idle, span(ni.releasing, self.dims), 1);
      add_to(s.future_idle, span(ni.pipelined, self.dims), -1);
    }
  }

  self.weights.clear();
  self.weights.emplace_back(SCORIA_DIM_CPU, self.config.cpu);
  self.weights.emplace_back(SCORIA_DIM_MEMORY, self.config.memory);
  for (const auto& [name, w] : self.config.resources) {
    size_t dim = 0;
    if (api().resource_dim_find(ssn, scoria::str(name), &dim) == SCORIA_OK)
      self.weights.emplace_back(dim, w);
  }

  self.node_in_tier.clear();
  self.tier_weight.clear();
  self.tier_weight_total = 0;
  if (count == 0) return;
  for (int32_t tier = self.tree.min_tier(); tier <= self.tree.max_tier(); ++tier) {
    std::vector<Index>& in = self.node_in_tier.emplace_back(nodes, SCORIA_NO_HYPERNODE);
    for (Index h = 0; h < count; ++h) {
      if (self.tree.tier(h) != tier) continue;
      for (uint32_t n : self.tree.nodes(h))
        if (n < nodes && in[n] == SCORIA_NO_HYPERNODE) in[n] = h;
    }
    // std::pow(0, 0) is 1, as Go's math.Pow.
    self.tier_weight.push_back(std::pow(self.config.fading, tier - 1));
    self.tier_weight_total += self.tier_weight.back();
  }
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  return scoria::guarded([&] {
    if (!scoria::host_has_hypernodes()) {
      log_line(SCORIA_LOG_WARNING, "the host has no HyperNodes (ABI before 1.6); plugin idle");
      return;
    }
    open(self, ssn);
    hooks->user_data = &self;
    hooks->on_hypernode_order = on_hypernode_order;
    hooks->on_hypernode_gradient = on_hypernode_gradient;
    if (scoria::host_has_sub_jobs()) {
      hooks->on_sub_job_hypernode_order = on_sub_job_hypernode_order;
      hooks->on_sub_job_hypernode_gradient = on_sub_job_hypernode_gradient;
    }
    hooks->on_node_order_batch = on_node_order_batch;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<Instance*>(instance);
  self.tree = {};
  self.status.clear();
  self.node_in_tier.clear();
  self.placed.clear();
  self.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "network-topology-aware",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS | SCORIA_FLAG_SERIAL_HOOKS,
    .version = "1.0.0",
    .description =
        "Keeps a job with a networkTopology within one HyperNode of an allowed tier, the lowest "
        "that fits, and packs HyperNodes",
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
