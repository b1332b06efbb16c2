// The predicates plugin: may a task run on a node, leaving resources aside
// (the host's resource check does those)? Follows Volcano's predicates plugin
// and the kube-scheduler filters it runs, with kube-scheduler's reason texts:
// node readiness, cordoned nodes, node selector and required node affinity,
// taints, and the node's pod limit.
//
// Hooks may run concurrently for different nodes, so they only read: the
// instance is immutable after on_create, and everything a call derives from
// the task lives on that call's stack.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;
using scoria::view;

// Volcano's argument keys for the checks this plugin implements. Its other
// switches (predicate.NodePortsEnable, predicate.PodAffinityEnable,
// predicate.VolumeBindingEnable, predicate.CacheEnable, ...) are accepted and
// have no effect: those filters do not exist here.
constexpr std::string_view kNodeAffinityEnable = "predicate.NodeAffinityEnable";
constexpr std::string_view kTaintTolerationEnable = "predicate.TaintTolerationEnable";

// Reason texts as kube-scheduler words them, so that the fit-error histogram
// reads as users know it. The taint reason leaves out the taint itself so that
// nodes with different taints count as one reason.
constexpr std::string_view kReasonNotReady = "node(s) were not ready";
constexpr std::string_view kReasonUnschedulable = "node(s) were unschedulable";
constexpr std::string_view kReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
constexpr std::string_view kReasonTaint = "node(s) had untolerated taint";
constexpr std::string_view kReasonTooManyPods = "Too many pods";

// The taint a cordoned node is treated as having (kube-scheduler's
// NodeUnschedulable filter): a pod that tolerates it may still go there.
constexpr std::string_view kUnschedulableTaintKey = "node.kubernetes.io/unschedulable";

constexpr std::string_view kNodeNameField = "metadata.name";

// Reason ids, interned once per instance.
struct Reasons {
  uint32_t not_ready = 0;
  uint32_t unschedulable = 0;
  uint32_t node_affinity = 0;
  uint32_t taint = 0;
  uint32_t too_many_pods = 0;
};

// Reads a boolean switch; a value that is not a boolean keeps the default,
// as Volcano's Arguments.GetBool does, but says so. For on_create only: host
// logging is not for the concurrent hooks.
bool read_switch(const scoria_args* args, std::string_view key, bool def) {
  if (args == nullptr) return def;
  int value = def ? 1 : 0;
  switch (api().args_get_bool(args, scoria::str(key), &value)) {
    case SCORIA_OK:
      return value != 0;
    case SCORIA_NOT_FOUND:
      return def;
    default:
      log_line(SCORIA_LOG_WARNING, "argument ", key, " is not a boolean; using ",
               def ? std::string_view("true") : std::string_view("false"));
      return def;
  }
}

uint32_t intern(std::string_view reason) { return api().reason_intern(scoria::str(reason)); }

// Built by on_create, immutable after: hooks on several threads read it.
struct Instance {
  explicit Instance(const scoria_args* args)
      : node_affinity(read_switch(args, kNodeAffinityEnable, true)),
        taint_toleration(read_switch(args, kTaintTolerationEnable, true)),
        reasons{intern(kReasonNotReady), intern(kReasonUnschedulable), intern(kReasonNodeAffinity),
                intern(kReasonTaint), intern(kReasonTooManyPods)} {}

  bool node_affinity;     // nodeSelector and required node affinity
  bool taint_toleration;  // NoSchedule and NoExecute taints
  Reasons reasons;
};

// Go's strconv.ParseInt(s, 10, 64), which Kubernetes uses for Gt and Lt: an
// optional sign, then decimal digits only, in range. By hand rather than
// std::from_chars, whose digit table is a GNU-unique symbol that would keep
// the object loaded for good.
bool parse_int64(std::string_view s, int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  // Accumulate the magnitude; the negative range is one larger.
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t magnitude = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) return false;
    magnitude = magnitude * 10 + digit;
  }
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// An array of n items kept inline up to N, so that the usual handful of
// tolerations or affinity terms costs no heap allocation per call.
template <typename T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) : size_(n) {
    if (n > N) heap_.resize(n);
  }
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;

  std::span<T> items() { return {size_ > N ? heap_.data() : inline_.data(), size_}; }
  std::span<const T> items() const { return {size_ > N ? heap_.data() : inline_.data(), size_}; }
  bool empty() const { return size_ == 0; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  size_t size_;
};

// One requirement of a required node-affinity term, checked once per call.
struct Requirement {
  std::string_view key;
  uint32_t op = 0;
  bool is_field = false;
  std::span<const scoria_str> values;
  int64_t bound = 0;  // the parsed value of Gt and Lt
};

// A term: requirements [first, first + count) of the flat list. A term with
// no requirements or an invalid one matches no node, as in Kubernetes.
struct Term {
  size_t first = 0;
  size_t count = 0;
  bool valid = false;
};

bool contains(std::span<const scoria_str> values, std::string_view v) {
  return std::any_of(values.begin(), values.end(),
                     [v](const scoria_str& s) { return view(s) == v; });
}

// Kubernetes' validation of a requirement: operator and value count agree,
// Gt and Lt carry one integer, fields know only In and NotIn with one value.
bool prepare(Requirement& r) {
  if (r.is_field) return r.values.size() == 1 && (r.op == SCORIA_OP_IN || r.op == SCORIA_OP_NOT_IN);
  switch (r.op) {
    case SCORIA_OP_IN:
    case SCORIA_OP_NOT_IN:
      return !r.values.empty();
    case SCORIA_OP_EXISTS:
    case SCORIA_OP_DOES_NOT_EXIST:
      return r.values.empty();
    case SCORIA_OP_GT:
    case SCORIA_OP_LT:
      return r.values.size() == 1 && parse_int64(view(r.values[0]), r.bound);
    default:
      return false;
  }
}

// Whether a node satisfies one valid requirement.
bool matches(const Requirement& r, const scoria_node* node, std::string_view node_name) {
  if (r.is_field) {
    // Only the node's name is a selectable field; any other reads as empty.
    const std::string_view field = r.key == kNodeNameField ? node_name : std::string_view{};
    const bool equal = field == view(r.values[0]);
    return r.op == SCORIA_OP_IN ? equal : !equal;
  }
  scoria_str label{};
  const bool has = api().node_label(node, scoria::str(r.key), &label) == SCORIA_OK;
  switch (r.op) {
    case SCORIA_OP_IN:
      return has && contains(r.values, view(label));
    case SCORIA_OP_NOT_IN:
      return !has || !contains(r.values, view(label));
    case SCORIA_OP_EXISTS:
      return has;
    case SCORIA_OP_DOES_NOT_EXIST:
      return !has;
    case SCORIA_OP_GT:
    case SCORIA_OP_LT: {
      int64_t n = 0;
      if (!has || !parse_int64(view(label), n)) return false;
      return r.op == SCORIA_OP_GT ? n > r.bound : n < r.bound;
    }
    default:
      return false;
  }
}

// kube-scheduler's Toleration.ToleratesTaint.
bool tolerates(const scoria_toleration& t, std::string_view key, std::string_view value,
               uint32_t effect) {
  if (t.effect != 0 && t.effect != effect) return false;
  if (t.key.len != 0 && view(t.key) != key) return false;
  switch (t.op) {
    case SCORIA_OP_EXISTS:
      return true;
    case 0:  // unset reads as Equal
    case SCORIA_OP_EQUAL:
      return view(t.value) == value;
    default:
      return false;
  }
}

size_t required_requirement_count(const scoria_task* task, size_t terms) {
  size_t n = 0;
  for (size_t t = 0; t < terms; ++t)
    n += api().task_affinity_requirement_count(task, SCORIA_AFFINITY_REQUIRED, t);
  return n;
}

// What a task asks of a node, read from the host once per hook call and then
// checked against each node.
class TaskConstraints {
 public:
  TaskConstraints(const Instance& inst, const scoria_task* task)
      : inst_(inst),
        selector_(inst.node_affinity ? api().task_node_selector_count(task) : 0),
        terms_(inst.node_affinity ? api().task_affinity_term_count(task, SCORIA_AFFINITY_REQUIRED)
                                  : 0),
        requirements_(required_requirement_count(task, terms_.items().size())),
        tolerations_(api().task_toleration_count(task)) {
    std::span<Label> selector = selector_.items();
    for (size_t i = 0; i < selector.size(); ++i) {
      scoria_str key{};
      scoria_str value{};
      api().task_node_selector_at(task, i, &key, &value);
      selector[i] = Label{view(key), view(value)};
    }

    std::span<Term> terms = terms_.items();
    std::span<Requirement> requirements = requirements_.items();
    size_t next = 0;
    for (size_t t = 0; t < terms.size(); ++t) {
      const size_t count =
          std::min(api().task_affinity_requirement_count(task, SCORIA_AFFINITY_REQUIRED, t),
                   requirements.size() - next);
      Term& term = terms[t];
      term = Term{next, count, count != 0};
      for (size_t i = 0; i < count; ++i) {
        scoria_selector_requirement raw{};
        raw.struct_size = sizeof raw;
        api().task_affinity_requirement_at(task, SCORIA_AFFINITY_REQUIRED, t, i, &raw);
        Requirement& r = requirements[next + i];
        r = Requirement{view(raw.key), raw.op, raw.is_field != 0,
                        std::span<const scoria_str>(raw.values, raw.value_count), 0};
        if (!prepare(r)) term.valid = false;
      }
      next += count;
    }

    std::span<scoria_toleration> tolerations = tolerations_.items();
    for (size_t i = 0; i < tolerations.size(); ++i) {
      tolerations[i] = scoria_toleration{};
      tolerations[i].struct_size = sizeof(scoria_toleration);
      api().task_toleration_at(task, i, &tolerations[i]);
    }
    tolerates_unschedulable_ = tolerated(kUnschedulableTaintKey, {}, SCORIA_TAINT_NO_SCHEDULE);
  }

  // SCORIA_OK, or the first failing check's code with its reason id in
  // *reason. The checks that preemption cannot fix come first.
  scoria_code check(const scoria_node* node, uint32_t* reason) const {
    *reason = 0;
    scoria_node_info ni{};
    ni.struct_size = sizeof ni;
    if (node == nullptr || api().node_info(node, &ni) != SCORIA_OK) return SCORIA_ERROR;

    const Reasons& why = inst_.reasons;
    if (ni.ready == 0) return fail(reason, why.not_ready, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (ni.unschedulable != 0 && !tolerates_unschedulable_)
      return fail(reason, why.unschedulable, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (inst_.node_affinity && !matches_node_affinity(node, view(ni.name)))
      return fail(reason, why.node_affinity, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (inst_.taint_toleration && has_untolerated_taint(node))
      return fail(reason, why.taint, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (too_many_pods(ni)) return fail(reason, why.too_many_pods, SCORIA_UNSCHEDULABLE);
    return SCORIA_OK;
  }

 private:
  struct Label {
    std::string_view key;
    std::string_view value;
  };

  static scoria_code fail(uint32_t* reason, uint32_t id, scoria_code code) {
    *reason = id;
    return code;
  }

  bool tolerated(std::string_view key, std::string_view value, uint32_t effect) const {
    const std::span<const scoria_toleration> all = tolerations_.items();
    return std::any_of(all.begin(), all.end(), [&](const scoria_toleration& t) {
      return tolerates(t, key, value, effect);
    });
  }

  // nodeSelector: every pair must be a label of the node. Required affinity:
  // at least one term whose requirements all hold.
  bool matches_node_affinity(const scoria_node* node, std::string_view node_name) const {
    for (const Label& want : selector_.items()) {
      scoria_str have{};
      if (api().node_label(node, scoria::str(want.key), &have) != SCORIA_OK ||
          view(have) != want.value)
        return false;
    }
    const std::span<const Term> terms = terms_.items();
    if (terms.empty()) return true;
    const std::span<const Requirement> requirements = requirements_.items();
    return std::any_of(terms.begin(), terms.end(), [&](const Term& term) {
      if (!term.valid) return false;
      const auto reqs = requirements.subspan(term.first, term.count);
      return std::all_of(reqs.begin(), reqs.end(),
                         [&](const Requirement& r) { return matches(r, node, node_name); });
    });
  }

  // Only NoSchedule and NoExecute keep a pod away; PreferNoSchedule is a
  // scoring matter.
  bool has_untolerated_taint(const scoria_node* node) const {
    const size_t count = api().node_taint_count(node);
    for (size_t i = 0; i < count; ++i) {
      scoria_taint taint{};
      taint.struct_size = sizeof taint;
      api().node_taint_at(node, i, &taint);
      if (taint.effect != SCORIA_TAINT_NO_SCHEDULE && taint.effect != SCORIA_TAINT_NO_EXECUTE)
        continue;
      if (!tolerated(view(taint.key), view(taint.value), taint.effect)) return true;
    }
    return false;
  }

  // The node's pod limit, counting the pods pipelined onto it as Volcano's
  // node view does: one more pod must fit under allocatable pods.
  static bool too_many_pods(const scoria_node_info& ni) {
    if (ni.allocatable == nullptr || ni.used == nullptr) return false;
    double pods = ni.used[SCORIA_DIM_PODS];
    if (ni.pipelined != nullptr) pods += ni.pipelined[SCORIA_DIM_PODS];
    return pods + 1 > ni.allocatable[SCORIA_DIM_PODS];
  }

  const Instance& inst_;
  SmallBuffer<Label, 8> selector_;
  SmallBuffer<Term, 4> terms_;
  SmallBuffer<Requirement, 16> requirements_;
  SmallBuffer<scoria_toleration, 8> tolerations_;
  bool tolerates_unschedulable_ = false;
};

scoria_code on_predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                         uint32_t* reason) {
  // Nothing may unwind into the host; host logging is not for these threads.
  try {
    uint32_t ignored = 0;
    return TaskConstraints(*static_cast<const Instance*>(user_data), task)
        .check(node, reason != nullptr ? reason : &ignored);
  } catch (...) {
    return SCORIA_ERROR;
  }
}

scoria_code on_predicate_batch(void* user_data, const scoria_task* task,
                               const scoria_node* const* nodes, size_t count, scoria_code* codes,
                               uint32_t* reasons) {
  try {
    const TaskConstraints constraints(*static_cast<const Instance*>(user_data), task);
    for (size_t i = 0; i < count; ++i) codes[i] = constraints.check(nodes[i], &reasons[i]);
    return SCORIA_OK;
  } catch (...) {
    return SCORIA_ERROR;
  }
}

scoria_code on_session_open(void* instance, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  // Every hook set below exists since ABI 1.0; refuse a table that is smaller.
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  hooks->user_data = instance;
  hooks->on_predicate = on_predicate;
  hooks->on_predicate_batch = on_predicate_batch;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "predicates",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = 0,
    .version = "1.0.0",
    .description = "Node filters: readiness, cordon, node selector and affinity, taints, pod limit",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
