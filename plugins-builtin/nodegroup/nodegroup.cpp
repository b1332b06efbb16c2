// The nodegroup plugin (Volcano's nodegroup): a queue chooses the groups of
// nodes its jobs run on. A node's group is its label volcano.sh/nodegroup-name;
// a queue's choice is its spec.affinity, read from the Queue object:
//
//   spec:
//     affinity:
//       nodeGroupAffinity:
//         requiredDuringSchedulingIgnoredDuringExecution: [group1, group3]
//         preferredDuringSchedulingIgnoredDuringExecution: [group3]
//       nodeGroupAntiAffinity:
//         requiredDuringSchedulingIgnoredDuringExecution: [group2]
//         preferredDuringSchedulingIgnoredDuringExecution: [group4]
//
// Predicate, as Volcano decides it (every refusal unschedulable and
// unresolvable):
//   - a node without the label fits only when `strict` is false and the
//     queue has no node-group rule at all ("node group label not found");
//   - a labelled node does not fit a queue without rules ("node group
//     affinity not specified");
//   - otherwise the node's group fits when it is required or preferred by
//     nodeGroupAffinity and not required by nodeGroupAntiAffinity; a group
//     that nodeGroupAntiAffinity only prefers to avoid still fits ("node does
//     not satisfy the node group affinity");
//   - the queue's annotation volcano.sh/nodegroup-resource-limits, a JSON map
//     from group to a resource list ({"group1": {"cpu": "3", "memory":
//     "8Gi"}}), caps what the queue's tasks may hold in that group: a task
//     that would take the queue past a listed resource in the node's group
//     does not fit there ("node group resource limit exceeded"); resources
//     not listed are unlimited. A malformed annotation refuses every node to
//     the queue's tasks ("node group resource limit annotation invalid") and
//     is logged once.
//
// Score, on labelled nodes (0 elsewhere): 100 for a required group, plus 50
// for a preferred one (with `enablePreferredOrder`, 50 * (n - i) / n for the
// i-th of n preferred groups, so the first listed scores highest); a group
// that nodeGroupAntiAffinity prefers to avoid scores -1 instead.
//
// With enableHierarchy (a plugin option beside `arguments`), a queue without
// spec.affinity takes that of its nearest ancestor that has one (spec.parent,
// and the queue "root" above a queue without a parent).
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using scoria::api;
using scoria::log_line;
using scoria::str;
using scoria::view;

constexpr std::string_view kGroupLabel = "volcano.sh/nodegroup-name";
constexpr std::string_view kLimitsAnnotation = "volcano.sh/nodegroup-resource-limits";
constexpr std::string_view kRootQueue = "root";
constexpr double kBaseScore = 100;

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "strict", "true",
                        "refuse nodes without the volcano.sh/nodegroup-name label to every queue; "
                        "false lets queues without node-group rules use them"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "enablePreferredOrder", "false",
                        "score preferred node groups by their place in the queue's list (the "
                        "first highest) instead of all alike"),
};

struct Affinity {
  std::set<std::string, std::less<>> required, preferred, anti_required, anti_preferred;
  std::unordered_map<std::string, size_t> preferred_index;  // first place in the list
  size_t preferred_count = 0;                               // distinct preferred groups

  bool empty() const {
    return required.empty() && preferred.empty() && anti_required.empty() && anti_preferred.empty();
  }
  bool fits(std::string_view group) const {
    bool ok = required.contains(group) || preferred.contains(group);
    if (anti_required.contains(group)) ok = false;
    if (anti_preferred.contains(group)) ok = true;
    return ok;
  }
  double score(const std::string& group, bool preferred_order) const {
    double s = 0;
    if (required.contains(group)) s += kBaseScore;
    if (preferred_order) {
      const auto it = preferred_index.find(group);
      if (it != preferred_index.end() && preferred_count > 0) {
        const auto n = static_cast<double>(preferred_count);
        s += 0.5 * kBaseScore * (n - static_cast<double>(it->second)) / n;
      }
    } else if (preferred.contains(group)) {
      s += 0.5 * kBaseScore;
    }
    if (anti_preferred.contains(group)) s = -1;
    return s;
  }
};

// What one queue holds and may hold per node group, by resource dimension.
struct QueueState {
  std::string name;
  std::string parent;
  std::optional<Affinity> own;
  const Affinity* affinity = nullptr;  // own, or inherited
  bool limits_invalid = false;
  // group -> (dimension -> limit); only listed dimensions are limited.
  std::map<std::string, std::vector<std::pair<size_t, double>>, std::less<>> limits;
  std::map<std::string, std::vector<double>, std::less<>> allocated;  // group -> per dimension
};

struct Instance {
  explicit Instance(const scoria_args* args)
      : strict(scoria::arg_bool(args, "strict", true)),
        preferred_order(scoria::arg_bool(args, "enablePreferredOrder", false)),
        hierarchy(scoria::arg_bool(args, "enableHierarchy", false)),
        r_no_affinity(api().reason_intern(str("node group affinity not specified"))),
        r_no_label(api().reason_intern(str("node group label not found"))),
        r_unsatisfied(api().reason_intern(str("node does not satisfy the node group affinity"))),
        r_limit_invalid(api().reason_intern(str("node group resource limit annotation invalid"))),
        r_limit_exceeded(api().reason_intern(str("node group resource limit exceeded"))) {}

  bool strict;
  bool preferred_order;
  bool hierarchy;
  uint32_t r_no_affinity, r_no_label, r_unsatisfied, r_limit_invalid, r_limit_exceeded;

  // Per session.
  const scoria_session* ssn = nullptr;
  size_t dim_count = 0;
  std::vector<QueueState> queues;                      // by queue index
  std::vector<std::optional<std::string>> node_group;  // by node index
  // Problems already logged (queue + text), so each is logged once.
  std::set<std::string> reported;
};

void report_once(Instance& self, const std::string& key, const std::string& message) {
  if (self.reported.size() > 10000) self.reported.clear();
  if (self.reported.insert(key).second) log_line(SCORIA_LOG_ERROR, message);
}

// A Kubernetes quantity ("3", "500m", "8Gi", "1e3") as a plain number.
std::optional<double> parse_quantity(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t at = 0;
  if (text[0] == '+') at = 1;
  double number = 0;
  const char* begin = text.data() + at;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, number, std::chars_format::fixed);
  if (ec != std::errc{} || ptr == begin) return std::nullopt;
  const std::string_view suffix(ptr, static_cast<size_t>(end - ptr));
  static const std::pair<std::string_view, double> kSuffixes[] = {
      {"", 1},        {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},   {"k", 1e3},     {"M", 1e6},
      {"G", 1e9},     {"T", 1e12},    {"P", 1e15},    {"E", 1e18},   {"Ki", 0x1p10}, {"Mi", 0x1p20},
      {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60}};
  for (const auto& [s, factor] : kSuffixes)
    if (suffix == s) return number * factor;
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    int exp = 0;
    const auto [p2, ec2] = std::from_chars(suffix.data() + 1, suffix.data() + suffix.size(), exp);
    if (ec2 == std::errc{} && p2 == suffix.data() + suffix.size())
      return number * std::pow(10.0, exp);
  }
  return std::nullopt;
}

// A resource amount in the session's units: cpu in millicores, memory in
// bytes, every other resource in milli-units (as Volcano counts them).
double to_session_units(size_t dim, double value) {
  return dim == SCORIA_DIM_MEMORY ? value : value * 1000;
}

std::vector<std::string> string_list(const json& node, const char* key) {
  std::vector<std::string> out;
  if (!node.is_object()) return out;
  const auto it = node.find(key);
  if (it == node.end() || !it->is_array()) return out;
  for (const auto& item : *it)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

void read_queue(Instance& self, const scoria_queue* queue, QueueState& q) {
  const std::string_view text = view(api().queue_object_json(queue));
  if (text.empty()) return;  // the host's default queue: no object, no rules
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return;
  const auto spec = doc.find("spec");
  if (spec != doc.end() && spec->is_object()) {
    const auto aff = spec->find("affinity");
    if (aff != spec->end() && aff->is_object()) {
      Affinity a;
      const json empty = json::object();
      const auto ga = aff->find("nodeGroupAffinity");
      const auto gn = aff->find("nodeGroupAntiAffinity");
      const json& g = ga != aff->end() ? *ga : empty;
      const json& n = gn != aff->end() ? *gn : empty;
      const std::vector<std::string> preferred =
          string_list(g, "preferredDuringSchedulingIgnoredDuringExecution");
      for (const auto& s : string_list(g, "requiredDuringSchedulingIgnoredDuringExecution"))
        a.required.insert(s);
      for (size_t i = 0; i < preferred.size(); ++i) {
        a.preferred.insert(preferred[i]);
        a.preferred_index[preferred[i]] = i;  // the last place wins, as in a map
      }
      a.preferred_count = a.preferred_index.size();
      for (const auto& s : string_list(n, "requiredDuringSchedulingIgnoredDuringExecution"))
        a.anti_required.insert(s);
      for (const auto& s : string_list(n, "preferredDuringSchedulingIgnoredDuringExecution"))
        a.anti_preferred.insert(s);
      q.own = std::move(a);
    }
  }

  scoria_str raw{};
  if (api().queue_annotation(queue, str(kLimitsAnnotation), &raw) != SCORIA_OK || raw.len == 0)
    return;
  const std::string_view limits = view(raw);
  const json lj = json::parse(limits.begin(), limits.end(), nullptr, false);
  std::string problem;
  if (lj.is_discarded())
    problem = "is not valid JSON";
  else if (!lj.is_object())
    problem = "is not a JSON object of node groups";
  for (auto g = lj.begin(); problem.empty() && g != lj.end(); ++g) {
    if (!g.value().is_object()) {
      problem = "node group " + g.key() + " is not a resource list";
      break;
    }
    auto& list = q.limits[g.key()];
    for (auto r = g.value().begin(); r != g.value().end(); ++r) {
      const std::optional<double> amount =
          r.value().is_string()   ? parse_quantity(r.value().get<std::string>())
          : r.value().is_number() ? std::optional<double>(r.value().get<double>())
                                  : std::nullopt;
      if (!amount) {
        problem = "node group " + g.key() + ": " + r.key() + " is not a quantity";
        break;
      }
      size_t dim = 0;
      if (api().resource_dim_find(self.ssn, str(r.key()), &dim) != SCORIA_OK) {
        // Nothing in the cluster uses it: no task asks for it, so it is never
        // exceeded.
        continue;
      }
      list.emplace_back(dim, to_session_units(dim, *amount));
    }
  }
  if (!problem.empty()) {
    q.limits.clear();
    q.limits_invalid = true;
    report_once(self, q.name + "\n" + std::string(limits),
                "queue " + q.name + " has an invalid " + std::string(kLimitsAnnotation) +
                    " annotation (" + problem + "): its tasks fit no node until it is fixed");
  }
}

// With enableHierarchy, a queue without affinity takes its nearest ancestor's.
void inherit(Instance& self) {
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t i = 0; i < self.queues.size(); ++i) by_name[self.queues[i].name] = i;
  for (auto& q : self.queues) {
    if (q.own) continue;
    std::set<std::string_view> seen{q.name};
    const QueueState* at = &q;
    while (at->name != kRootQueue) {
      const std::string_view parent = at->parent.empty() ? kRootQueue : at->parent;
      const auto it = by_name.find(parent);
      if (it == by_name.end()) {
        report_once(self, "parent\n" + q.name + "\n" + std::string(parent),
                    "parent queue " + std::string(parent) + " of queue " + at->name +
                        " not found: queue " + q.name + " inherits no node-group affinity");
        break;
      }
      at = &self.queues[it->second];
      if (!seen.insert(at->name).second) {
        report_once(self, "cycle\n" + q.name,
                    "cycle in the queue hierarchy above queue " + q.name +
                        ": it inherits no node-group affinity");
        break;
      }
      if (at->own) {
        q.affinity = &*at->own;
        break;
      }
    }
  }
}

const QueueState* queue_of(const Instance& self, const scoria_task* task) {
  const scoria_task_info ti = scoria::info(task);
  if (ti.job == nullptr) return nullptr;
  const scoria_job_info ji = scoria::info(ti.job);
  if (ji.queue == nullptr) return nullptr;
  const uint32_t i = scoria::info(ji.queue).index;
  return i < self.queues.size() ? &self.queues[i] : nullptr;
}

const std::optional<std::string>& group_of(const Instance& self, const scoria_node* node) {
  static const std::optional<std::string> kNone;
  const uint32_t i = scoria::info(node).index;
  return i < self.node_group.size() ? self.node_group[i] : kNone;
}

std::vector<double>& allocated_in(Instance& self, QueueState& q, const std::string& group) {
  auto& v = q.allocated[group];
  if (v.size() < self.dim_count) v.resize(self.dim_count, 0.0);
  return v;
}

// Adds (sign 1) or removes (sign -1) a placed task's request to its queue's
// use of its node's group.
void account(Instance& self, const scoria_task* task, double sign) {
  const scoria_task_info ti = scoria::info(task);
  if (ti.node_name.len == 0 || ti.job == nullptr || ti.resreq == nullptr) return;
  const scoria_node* node = api().node_find(self.ssn, ti.node_name);
  if (node == nullptr) return;
  const auto& group = group_of(self, node);
  if (!group) return;
  const scoria_job_info ji = scoria::info(ti.job);
  if (ji.queue == nullptr) return;
  const uint32_t qi = scoria::info(ji.queue).index;
  if (qi >= self.queues.size()) return;
  if (sign < 0 && !self.queues[qi].allocated.contains(*group)) return;
  auto& used = allocated_in(self, self.queues[qi], *group);
  for (size_t d = 0; d < self.dim_count; ++d) {
    used[d] += sign * ti.resreq[d];
    if (used[d] < 0) used[d] = 0;
  }
}

bool exceeds_limit(const Instance& self, const QueueState& q, const std::string& group,
                   const scoria_task* task) {
  const auto lim = q.limits.find(group);
  if (lim == q.limits.end()) return false;
  const scoria_task_info ti = scoria::info(task);
  const auto used = q.allocated.find(group);
  for (const auto& [dim, limit] : lim->second) {
    if (dim >= self.dim_count) continue;
    double future = ti.resreq != nullptr ? ti.resreq[dim] : 0;
    if (used != q.allocated.end() && dim < used->second.size()) future += used->second[dim];
    if (future > limit && future - limit >= SCORIA_RESOURCE_EPSILON) return true;
  }
  return false;
}

scoria_code on_predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                         uint32_t* reason) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const QueueState* q = queue_of(self, task);
  if (q != nullptr && q->limits_invalid) {
    *reason = self.r_limit_invalid;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  const bool no_rules = q == nullptr || q->affinity == nullptr || q->affinity->empty();
  const auto& group = group_of(self, node);
  if (!group) {
    if (!self.strict && no_rules) return SCORIA_OK;
    *reason = self.r_no_label;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (no_rules) {
    *reason = self.r_no_affinity;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (!q->affinity->fits(*group)) {
    *reason = self.r_unsatisfied;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (exceeds_limit(self, *q, *group, task)) {
    *reason = self.r_limit_exceeded;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  return SCORIA_OK;
}

scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                          double* score) {
  const auto& self = *static_cast<const Instance*>(user_data);
  *score = 0;
  const auto& group = group_of(self, node);
  if (!group) return SCORIA_OK;
  const QueueState* q = queue_of(self, task);
  if (q != nullptr && q->affinity != nullptr)
    *score = q->affinity->score(*group, self.preferred_order);
  return SCORIA_OK;
}

void on_allocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  (void)scoria::guarded([&] { account(self, task, 1); });
}

void on_deallocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  (void)scoria::guarded([&] { account(self, task, -1); });
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  if (!SCORIA_HOST_HAS(&api(), queue_object_json)) {
    scoria::report_error("the host is older than ABI 1.3 (no queue_object_json)");
    return SCORIA_ERROR;
  }
  return scoria::guarded([&] {
    self.ssn = ssn;
    self.dim_count = scoria::dims(ssn);

    const size_t nodes = api().node_count(ssn);
    self.node_group.assign(nodes, std::nullopt);
    for (size_t i = 0; i < nodes; ++i) {
      const scoria_node* node = api().node_at(ssn, i);
      scoria_str g{};
      if (api().node_label(node, str(kGroupLabel), &g) != SCORIA_OK) continue;
      const uint32_t ni = scoria::info(node).index;
      if (ni < nodes) self.node_group[ni] = std::string(view(g));
    }

    const size_t queues = api().queue_count(ssn);
    self.queues.assign(queues, QueueState{});
    for (size_t i = 0; i < queues; ++i) {
      const scoria_queue* queue = api().queue_at(ssn, i);
      const scoria_queue_info qi = scoria::info(queue);
      if (qi.index >= queues) continue;
      QueueState& q = self.queues[qi.index];
      q.name = std::string(view(qi.name));
      q.parent = std::string(view(qi.parent));
      read_queue(self, queue, q);
    }
    for (auto& q : self.queues)
      if (q.own) q.affinity = &*q.own;
    if (self.hierarchy) inherit(self);

    bool any_labelled = false, any_rules = false, any_limits = false;
    for (const auto& g : self.node_group) any_labelled = any_labelled || g.has_value();
    for (const auto& q : self.queues) {
      any_rules = any_rules || (q.affinity != nullptr && !q.affinity->empty());
      any_limits = any_limits || q.limits_invalid || !q.limits.empty();
    }

    // What each queue already holds in each group (only limits read it).
    for (size_t j = 0; any_limits && j < api().job_count(ssn); ++j) {
      const scoria_job* job = api().job_at(ssn, j);
      for (size_t t = 0; t < api().job_task_count(job); ++t) {
        const scoria_task* task = api().job_task_at(job, t);
        if ((scoria::info(task).status & scoria::kAllocatedStatuses) != 0) account(self, task, 1);
      }
    }

    if (api().log_enabled(scoria::host().ctx, SCORIA_LOG_V4)) {
      for (const auto& q : self.queues) {
        if (q.affinity == nullptr) continue;
        std::string line = "queue " + q.name + " node groups:";
        const auto add = [&](const char* what, const auto& set) {
          line += std::string(" ") + what + " [";
          for (const auto& s : set) line += " " + s;
          line += " ]";
        };
        add("anti-required", q.affinity->anti_required);
        add("anti-preferred", q.affinity->anti_preferred);
        add("required", q.affinity->required);
        add("preferred", q.affinity->preferred);
        log_line(SCORIA_LOG_V4, line);
      }
    }

    // Register only what can decide something in this session: without
    // strict mode, node groups, rules or limits every node passes and
    // scores 0, and the hooks would only cost (they run per task and node).
    hooks->user_data = instance;
    if (self.strict || any_labelled || any_rules || any_limits) hooks->on_predicate = on_predicate;
    if (any_labelled && any_rules) hooks->on_node_order = on_node_order;
    if (any_limits) {
      hooks->on_allocate = on_allocate;
      hooks->on_deallocate = on_deallocate;
    }
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<Instance*>(instance);
  self.queues.clear();
  self.node_group.clear();
  self.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "nodegroup",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Queues choose node groups (volcano.sh/nodegroup-name) through spec.affinity",
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
