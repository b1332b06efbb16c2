// The binpack plugin (Volcano's binpack): prefers the nodes that the task
// fills most, so that whole nodes stay free for large jobs.
//
// For each resource the task requests and that has a weight, the node's
// share in use once the task is placed, (used + request) / allocatable,
// times the resource's weight; the sum over those resources divided by the
// sum of their weights, times 100 and binpack.weight. A node the task would
// overfill in any weighted resource scores 0.
//
// Arguments, as Volcano's (see kArgs): binpack.weight (1), binpack.cpu (1),
// binpack.memory (1), binpack.resources (a comma-separated list of extended
// resources, such as "nvidia.com/gpu, example.com/foo") and
// binpack.resources.<name> (each one's weight, 1 by default). Weights are 0
// or more: a negative one would invert the packing (spread where binpack was
// asked for), and the host refuses it when it loads the config, as it
// refuses NaN and infinities.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

constexpr double kMaxNodeScore = 100;
constexpr std::string_view kResourcesPrefix = "binpack.resources.";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "binpack.weight", "1",
                                         "weight of the binpack score among the node scores; 0 "
                                         "turns binpack off"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "binpack.cpu", "1",
                                         "weight of cpu in the binpack score; 0 leaves cpu out"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "binpack.memory", "1",
                                         "weight of memory in the binpack score; 0 leaves memory "
                                         "out"),
                     0),
    scoria::declare_arg(SCORIA_ARG_STRING, "binpack.resources", nullptr,
                        "extended resources to weigh besides cpu and memory, separated by "
                        "commas (\"nvidia.com/gpu, example.com/foo\"); none when left out"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "binpack.resources.*", "1",
                                         "weight of an extended resource named in "
                                         "binpack.resources (binpack.resources.nvidia.com/gpu); "
                                         "ignored for one not named there"),
                     0),
};

// A weight argument. The host has checked it is a whole number of at least 0
// and passes the declared default (1) when the config leaves it out, except
// for binpack.resources.<name>, which is a family and has no one key to fill.
int64_t weight_arg(const scoria_args* args, std::string_view key) {
  return scoria::arg_int(args, key, 1);
}

struct Binpack {
  explicit Binpack(const scoria_args* args) {
    if (args == nullptr) {
      resources = {{"cpu", 1}, {"memory", 1}};
      return;
    }
    weight = weight_arg(args, "binpack.weight");
    if (const auto list = scoria::arg_string(args, "binpack.resources")) {
      std::string_view rest = *list;
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view name = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (name.empty()) continue;
        const std::string key = std::string(kResourcesPrefix) + std::string(name);
        resources.emplace_back(std::string(name), weight_arg(args, key));
      }
    }
    resources.emplace_back("cpu", weight_arg(args, "binpack.cpu"));
    resources.emplace_back("memory", weight_arg(args, "binpack.memory"));
  }

  int64_t weight = 1;
  std::vector<std::pair<std::string, int64_t>> resources;  // name, weight
  // Per session: (dimension, weight) of the resources the session knows.
  std::vector<std::pair<size_t, int64_t>> dims;
};

scoria_code score_batch(void* user_data, const scoria_task* task, const scoria_node* const* nodes,
                        size_t count, double* scores) {
  const auto& self = *static_cast<const Binpack*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  for (size_t i = 0; i < count; ++i) {
    const scoria_node_info ni = scoria::info(nodes[i]);
    double score = 0;
    double weights = 0;  // a double: weights near INT64_MAX must not overflow
    bool overfilled = false;
    for (const auto& [dim, weight] : self.dims) {
      const double request = ti.resreq[dim];
      if (request == 0) continue;
      const double capacity = ni.allocatable[dim];
      if (capacity == 0 || weight == 0) {
        weights += static_cast<double>(weight);
        continue;
      }
      const double used = request + ni.used[dim];
      if (used > capacity) {
        overfilled = true;
        break;
      }
      score += used * static_cast<double>(weight) / capacity;
      weights += static_cast<double>(weight);
    }
    if (overfilled) {
      scores[i] = 0;
      continue;
    }
    if (weights > 0) score /= weights;
    scores[i] = score * kMaxNodeScore * static_cast<double>(self.weight);
  }
  return SCORIA_OK;
}

// A node's score reads that node and the task's request alone.
uint32_t cache_policy(void* /*user_data*/, const scoria_task* /*task*/) {
  return SCORIA_CACHE_NODE_ORDER | SCORIA_CACHE_CLAIMS;
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<Binpack*>(instance);
    self.dims.clear();
    for (const auto& [name, weight] : self.resources) {
      size_t dim = 0;
      if (api().resource_dim_find(ssn, scoria::str(name), &dim) == SCORIA_OK)
        self.dims.emplace_back(dim, weight);
      else
        log_line(SCORIA_LOG_V4, "resource ", name, " has a weight but no node or pod uses it");
    }
    if (self.weight == 0) {
      log_line(SCORIA_LOG_V4, "binpack.weight is 0; binpack does not score nodes");
      return;
    }
    hooks->user_data = &self;
    hooks->on_node_order_batch = score_batch;
    if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof(void*))
      hooks->on_cache_policy = cache_policy;
  });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "binpack",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Prefers the nodes a task fills most (binpack.weight, per-resource weights)",
    .on_create = scoria::create_instance<Binpack>,
    .on_destroy = scoria::destroy_instance<Binpack>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
