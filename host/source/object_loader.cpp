#include "source/object_loader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "model/error.h"
#include "model/quantity.h"
#include "source/yaml_json.h"

namespace scoria::source {

namespace {

using model::ResourceList;

constexpr std::string_view kGroupNameKey = "scheduling.k8s.io/group-name";
constexpr std::string_view kQueueNameKey = "scheduling.volcano.sh/queue-name";
constexpr std::string_view kPreemptableKey = "volcano.sh/preemptable";
constexpr std::string_view kTaskSpecKey = "volcano.sh/task-spec";
constexpr std::string_view kDefaultQueue = "default";
constexpr std::string_view kStdinName = "<stdin>";

// ===========================================================================
// Field paths and messages
// ===========================================================================

/// Where a field sits in its document. Built on the stack while descending
/// and rendered only for a message, so reading a field costs no allocation.
/// A Path points at its parent: keep named Paths one level below another
/// named Path (temporaries in a call's arguments are fine).
class Path {
 public:
  Path() = default;
  Path field(std::string_view key) const { return Path(this, key, kNoIndex); }
  Path index(size_t i) const { return Path(this, {}, i); }
  bool empty() const { return parent_ == nullptr; }

  /// spec.containers[0].resources.requests.cpu; keys that are not plain
  /// words are bracketed: metadata.annotations[volcano.sh/preemptable].
  std::string str() const {
    std::string out;
    append(out);
    return out;
  }

 private:
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  Path(const Path* parent, std::string_view key, size_t index)
      : parent_(parent), key_(key), index_(index) {}

  static bool plain(std::string_view key) {
    return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '-';
    });
  }

  void append(std::string& out) const {
    if (parent_ == nullptr) return;
    parent_->append(out);
    if (index_ != kNoIndex) {
      out += "[" + std::to_string(index_) + "]";
    } else if (!plain(key_)) {
      out += "[" + std::string(key_) + "]";
    } else {
      if (!out.empty()) out += '.';
      out += key_;
    }
  }

  const Path* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = kNoIndex;
};

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return quote(n.Scalar());
    default:
      return "empty";
  }
}

/// "(Pod work/job-0)": the object a message is about.
std::string object_label(std::string_view kind, std::string_view object) {
  std::string label = kind.empty() ? "object" : std::string(kind);
  if (!object.empty()) label += " " + std::string(object);
  return label;
}

// ===========================================================================
// Reading one document
// ===========================================================================

/// A mapping's entries, listed once. yaml-cpp looks a key up by walking
/// the map and copying nodes each time; reading objects field by field that
/// way costs nearly as much as parsing them.
class Mapping {
 public:
  Mapping() = default;
  explicit Mapping(const YAML::Node& n) : node_(n) {
    if (!n.IsMap()) return;
    entries_.reserve(n.size());
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) {
        complex_key_ = true;
        continue;
      }
      // The key's text lives in the document's memory, as long as node_.
      entries_.emplace_back(it->first.Scalar(), it->second);
    }
  }

  bool present() const { return node_.IsMap(); }
  bool complex_key() const { return complex_key_; }
  const YAML::Node& node() const { return node_; }
  const std::vector<std::pair<std::string_view, YAML::Node>>& entries() const { return entries_; }

  /// The value of `key`; a null node when absent.
  YAML::Node get(std::string_view key) const {
    for (const auto& [k, v] : entries_)
      if (k == key) return v;
    return YAML::Node();
  }

 private:
  YAML::Node node_;
  std::vector<std::pair<std::string_view, YAML::Node>> entries_;
  bool complex_key_ = false;
};

/// Typed access to one document's YAML, with messages of the form
///   <file>: document <n> (<Kind> <ns/name>): field <path>: <what>; <fix>
class Reader {
 public:
  Reader(std::string_view file, int doc) : file_(file), doc_(doc) {}

  void set_kind(std::string kind) { kind_ = std::move(kind); }
  void set_object(std::string object) { object_ = std::move(object); }

  [[noreturn]] void fail(const Path& at, std::string_view what) const {
    std::string msg = std::string(file_) + ": document " + std::to_string(doc_) + " (" +
                      object_label(kind_, object_) + "): ";
    if (!at.empty()) msg += "field " + at.str() + ": ";
    msg += what;
    throw InputError(msg);
  }

  static bool present(const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); }

  /// `n` as a Mapping; absent (or null) is an empty one, anything but a
  /// mapping an error.
  Mapping mapping(const YAML::Node& n, const Path& at) const {
    if (!present(n)) return Mapping();
    if (!n.IsMap()) fail(at, "is " + describe(n) + ", not a mapping; write it as key: value pairs");
    Mapping m(n);
    if (m.complex_key()) fail(at, "has a key that is a list or a mapping; keys are plain strings");
    const auto& e = m.entries();
    for (size_t i = 1; i < e.size(); ++i) {
      for (size_t k = 0; k < i; ++k)
        if (e[k].first == e[i].first) fail(at.field(e[i].first), "appears twice; keep one");
    }
    return m;
  }

  Mapping map_field(const Mapping& map, std::string_view key, const Path& parent) const {
    return mapping(map.get(key), parent.field(key));
  }

  std::string text(const YAML::Node& n, const Path& at) const {
    if (!present(n)) return {};
    if (!n.IsScalar()) fail(at, "is " + describe(n) + ", not a string; write a plain value");
    return n.Scalar();
  }

  std::string text_field(const Mapping& map, std::string_view key, const Path& parent) const {
    return text(map.get(key), parent.field(key));
  }

  bool boolean(const YAML::Node& n, const Path& at) const {
    const std::string s = text(n, at);
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    fail(at, quote(s) + " is not a boolean; write true or false");
  }

  std::optional<bool> bool_field(const Mapping& map, std::string_view key,
                                 const Path& parent) const {
    const YAML::Node n = map.get(key);
    if (!present(n)) return std::nullopt;
    return boolean(n, parent.field(key));
  }

  int32_t int32(const YAML::Node& n, const Path& at) const {
    const std::string str = text(n, at);
    std::string_view s = str;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) {
      if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
        return static_cast<int32_t>(v);
    } else if (ec != std::errc::result_out_of_range) {
      fail(at, quote(str) + " is not a whole number; write e.g. 1");
    }
    fail(at, str + " is out of range; write a number between -2147483648 and 2147483647");
  }

  std::optional<int32_t> int_field(const Mapping& map, std::string_view key,
                                   const Path& parent) const {
    const YAML::Node n = map.get(key);
    if (!present(n)) return std::nullopt;
    return int32(n, parent.field(key));
  }

  int32_t count_field(const Mapping& map, std::string_view key, const Path& parent,
                      int32_t fallback) const {
    const std::optional<int32_t> v = int_field(map, key, parent);
    if (v && *v < 0) fail(parent.field(key), std::to_string(*v) + " is negative; write 0 or more");
    return v.value_or(fallback);
  }

  /// A map of strings (labels, annotations, nodeSelector).
  std::map<std::string, std::string> string_map(const Mapping& map, std::string_view key,
                                                const Path& parent) const {
    std::map<std::string, std::string> out;
    const Path at = parent.field(key);
    const Mapping m = map_field(map, key, parent);
    for (const auto& [k, v] : m.entries()) {
      const Path entry = at.field(k);
      out.emplace(k, text(v, entry));
    }
    return out;
  }

  /// An RFC 3339 time as milliseconds since the epoch; 0 when absent.
  int64_t timestamp(const Mapping& map, std::string_view key, const Path& parent) const {
    const Path at = parent.field(key);
    const std::string s = text(map.get(key), at);
    if (s.empty()) return 0;
    std::optional<int64_t> ms = parse_rfc3339(s);
    if (!ms) fail(at, quote(s) + " is not an RFC 3339 time; write e.g. \"2024-05-01T12:00:00Z\"");
    return *ms;
  }

  /// A resource list in Scoria's units: cpu millicores, memory bytes, pods
  /// a count, others milli-units. Rounded up to whole units as Kubernetes'
  /// MilliValue()/Value() do, which is what Volcano counts with.
  ResourceList resources(const YAML::Node& n, const Path& at) const {
    ResourceList out;
    const Mapping m = mapping(n, at);
    for (const auto& [name, node] : m.entries()) {
      const Path entry = at.field(name);
      if (name.empty()) fail(at, "has an empty resource name; name it, e.g. cpu");
      const std::string raw = text(node, entry);
      const size_t first = raw.find_first_not_of(" \t");
      const std::string value = first == std::string::npos
                                    ? ""
                                    : raw.substr(first, raw.find_last_not_of(" \t") - first + 1);
      if (value.empty()) fail(entry, "has no value; write a quantity, e.g. \"500m\" or \"2Gi\"");
      double q = 0;
      try {
        q = model::parse_quantity(value);
      } catch (const std::invalid_argument& e) {
        fail(entry, e.what());
      }
      if (q < 0) fail(entry, quote(value) + " is negative; resource amounts must be 0 or more");
      out.emplace_back(name, to_scoria_units(name, q));
    }
    return out;
  }

  ResourceList resources_field(const Mapping& map, std::string_view key, const Path& parent) const {
    return resources(map.get(key), parent.field(key));
  }

  /// Calls f(item, path) for each item of the list under `key`.
  template <class F>
  void each(const Mapping& map, std::string_view key, const Path& parent, F&& f) const {
    const Path at = parent.field(key);
    const YAML::Node seq = map.get(key);
    if (!present(seq)) return;
    if (!seq.IsSequence())
      fail(at, "is " + describe(seq) + ", not a list; write it as a list of - items");
    size_t i = 0;
    for (auto it = seq.begin(); it != seq.end(); ++it, ++i) {
      const Path item = at.index(i);
      const YAML::Node node = *it;
      f(node, item);
    }
  }

  /// Like each(), for a list of mappings.
  template <class F>
  void each_map(const Mapping& map, std::string_view key, const Path& parent, F&& f) const {
    each(map, key, parent, [&](const YAML::Node& n, const Path& at) { f(mapping(n, at), at); });
  }

  static double to_scoria_units(std::string_view name, double quantity) {
    const double scaled = name == "memory" || name == "pods" ? quantity : quantity * 1000;
    // The quantity is the double nearest a decimal, so `scaled` may sit a
    // rounding error off a whole number: that is the whole number.
    const double nearest = std::nearbyint(scaled);
    if (std::fabs(scaled - nearest) <= 4 * std::numeric_limits<double>::epsilon() * nearest)
      return nearest;
    return std::ceil(scaled);
  }

  static std::optional<int64_t> parse_rfc3339(std::string_view s);

 private:
  std::string_view file_;
  int doc_;
  std::string kind_;
  std::string object_;
};

std::optional<int64_t> Reader::parse_rfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  auto digits = [&](size_t pos, size_t n, int& out) {
    if (pos + n > s.size()) return false;
    out = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 20 || !digits(0, 4, y) || s[4] != '-' || !digits(5, 2, mo) || s[7] != '-' ||
      !digits(8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(11, 2, h) || s[13] != ':' ||
      !digits(14, 2, mi) || s[16] != ':' || !digits(17, 2, sec))
    return std::nullopt;
  size_t pos = 19;
  int64_t millis = 0;
  if (s[pos] == '.') {
    size_t n = 0;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++n)
      if (n < 3) millis = millis * 10 + (s[pos] - '0');
    if (n == 0) return std::nullopt;
    for (; n < 3; ++n) millis *= 10;
  }
  int64_t offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!digits(pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(pos + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_min = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size() || h > 23 || mi > 59 || sec > 59) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{y}, std::chrono::month{unsigned(mo)},
                                         std::chrono::day{unsigned(d)}};
  if (!date.ok()) return std::nullopt;
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  const int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return seconds * 1000 + millis;
}

// ---------------------------------------------------------------------------
// The kinds
// ---------------------------------------------------------------------------

using Object =
    std::variant<model::Node, model::Pod, model::PodGroup, model::Queue, model::PriorityClass>;

/// One object read from a document, with where it came from.
struct Parsed {
  Object object;
  int doc = 0;
  int item = -1;               // index in a List's items, else -1
  bool never_preempt = false;  // PriorityClass preemptionPolicy: Never
};

struct KindInfo {
  std::string_view kind;
  std::string_view api_version;
  bool namespaced;
};

constexpr std::array<KindInfo, 5> kKinds{{
    {"Node", "v1", false},
    {"Pod", "v1", true},
    {"PodGroup", "scheduling.volcano.sh/v1beta1", true},
    {"Queue", "scheduling.volcano.sh/v1beta1", false},
    {"PriorityClass", "scheduling.k8s.io/v1", false},
}};

std::string supported_kinds() {
  std::string out;
  for (const KindInfo& k : kKinds) {
    if (!out.empty()) out += ", ";
    out += std::string(k.api_version) + " " + std::string(k.kind);
  }
  return out + " (or a List of them)";
}

model::TaintEffect taint_effect(const Reader& r, const std::string& s, const Path& at) {
  if (s == "NoSchedule") return model::TaintEffect::NoSchedule;
  if (s == "PreferNoSchedule") return model::TaintEffect::PreferNoSchedule;
  if (s == "NoExecute") return model::TaintEffect::NoExecute;
  r.fail(at, (s.empty() ? std::string("is missing") : quote(s) + " is not a taint effect") +
                 "; use NoSchedule, PreferNoSchedule or NoExecute");
}

model::SelectorRequirement selector_requirement(const Reader& r, const Mapping& m, const Path& at,
                                                bool is_field) {
  model::SelectorRequirement req;
  req.is_field = is_field;
  req.key = r.text_field(m, "key", at);
  if (req.key.empty()) r.fail(at.field("key"), "is missing; name the label to match");
  const std::string op = r.text_field(m, "operator", at);
  static constexpr std::array<std::pair<std::string_view, model::SelectorOp>, 6> kOps{{
      {"In", model::SelectorOp::In},
      {"NotIn", model::SelectorOp::NotIn},
      {"Exists", model::SelectorOp::Exists},
      {"DoesNotExist", model::SelectorOp::DoesNotExist},
      {"Gt", model::SelectorOp::Gt},
      {"Lt", model::SelectorOp::Lt},
  }};
  const auto found =
      std::find_if(kOps.begin(), kOps.end(), [&](const auto& o) { return o.first == op; });
  if (found == kOps.end()) {
    r.fail(at.field("operator"),
           (op.empty() ? std::string("is missing") : quote(op) + " is not an operator") +
               "; use In, NotIn, Exists, DoesNotExist, Gt or Lt");
  }
  req.op = found->second;
  r.each(m, "values", at,
         [&](const YAML::Node& v, const Path& vp) { req.values.push_back(r.text(v, vp)); });
  const Path values = at.field("values");
  switch (req.op) {
    case model::SelectorOp::In:
    case model::SelectorOp::NotIn:
      if (req.values.empty()) r.fail(values, "is empty; " + op + " needs at least one value");
      break;
    case model::SelectorOp::Exists:
    case model::SelectorOp::DoesNotExist:
      if (!req.values.empty()) r.fail(values, "must be empty with " + op + "; remove the values");
      break;
    default: {
      int64_t v = 0;
      const std::string& only = req.values.empty() ? op : req.values[0];
      const auto [end, ec] = std::from_chars(only.data(), only.data() + only.size(), v);
      if (req.values.size() != 1 || ec != std::errc() || end != only.data() + only.size())
        r.fail(values, op + " needs exactly one whole number, e.g. [\"4\"]");
    }
  }
  if (is_field) {
    if (req.key != "metadata.name") {
      r.fail(at.field("key"),
             quote(req.key) + " cannot be matched; matchFields supports metadata.name only");
    }
    if (req.op != model::SelectorOp::In && req.op != model::SelectorOp::NotIn)
      r.fail(at.field("operator"), "must be In or NotIn for matchFields");
    if (req.values.size() != 1) r.fail(values, "must hold exactly one node name for matchFields");
  }
  return req;
}

model::NodeSelectorTerm selector_term(const Reader& r, const Mapping& m, const Path& at) {
  model::NodeSelectorTerm term;
  r.each_map(m, "matchExpressions", at, [&](const Mapping& e, const Path& ep) {
    term.requirements.push_back(selector_requirement(r, e, ep, false));
  });
  r.each_map(m, "matchFields", at, [&](const Mapping& e, const Path& ep) {
    term.requirements.push_back(selector_requirement(r, e, ep, true));
  });
  return term;
}

model::Toleration toleration(const Reader& r, const Mapping& m, const Path& at) {
  model::Toleration t;
  t.key = r.text_field(m, "key", at);
  t.value = r.text_field(m, "value", at);
  const std::string op = r.text_field(m, "operator", at);
  if (op.empty() || op == "Equal") {
    t.op = model::SelectorOp::Equal;
  } else if (op == "Exists") {
    t.op = model::SelectorOp::Exists;
  } else {
    r.fail(at.field("operator"), quote(op) + " is not a toleration operator; use Equal or Exists");
  }
  if (t.op == model::SelectorOp::Exists && !t.value.empty())
    r.fail(at.field("value"), "must be empty with operator Exists; remove the value");
  if (t.key.empty() && t.op != model::SelectorOp::Exists)
    r.fail(at.field("key"), "is empty, which needs operator: Exists; set a key or the operator");
  const std::string effect = r.text_field(m, "effect", at);
  if (!effect.empty())
    t.effect = static_cast<uint32_t>(taint_effect(r, effect, at.field("effect")));
  return t;
}

void add_into(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, value] : from) {
    auto it = std::find_if(to.begin(), to.end(), [&](const auto& e) { return e.first == name; });
    if (it == to.end()) {
      to.emplace_back(name, value);
    } else {
      it->second += value;
    }
  }
}

void max_into(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, value] : from) {
    auto it = std::find_if(to.begin(), to.end(), [&](const auto& e) { return e.first == name; });
    if (it == to.end()) {
      to.emplace_back(name, value);
    } else {
      it->second = std::max(it->second, value);
    }
  }
}

/// A container's requests, defaulted from its limits as Kubernetes does:
/// a resource with a limit and no request requests the limit.
ResourceList container_requests(const Reader& r, const Mapping& c, const Path& at) {
  const Path res_path = at.field("resources");
  const Mapping res = r.map_field(c, "resources", at);
  const Path req_path = res_path.field("requests");
  ResourceList requests = r.resources(res.get("requests"), req_path);
  const ResourceList limits = r.resources_field(res, "limits", res_path);
  for (const auto& [name, limit] : limits) {
    auto it = std::find_if(requests.begin(), requests.end(),
                           [&](const auto& e) { return e.first == name; });
    if (it == requests.end()) {
      requests.emplace_back(name, limit);
    } else if (it->second > limit) {
      r.fail(req_path.field(name),
             "request " + model::format_quantity(name, it->second) + " is more than the limit " +
                 model::format_quantity(name, limit) + "; lower the request or raise the limit");
    }
  }
  return requests;
}

model::Node read_node(const Reader& r, const Mapping& obj, const Path& root, const Mapping& meta,
                      const Path& meta_path) {
  model::Node node;
  node.labels = r.string_map(meta, "labels", meta_path);
  const Path spec_path = root.field("spec");
  const Mapping spec = r.map_field(obj, "spec", root);
  r.each_map(spec, "taints", spec_path, [&](const Mapping& t, const Path& tp) {
    model::Taint taint;
    taint.key = r.text_field(t, "key", tp);
    if (taint.key.empty()) r.fail(tp.field("key"), "is missing; every taint needs a key");
    taint.value = r.text_field(t, "value", tp);
    taint.effect = taint_effect(r, r.text_field(t, "effect", tp), tp.field("effect"));
    node.taints.push_back(std::move(taint));
  });
  node.unschedulable = r.bool_field(spec, "unschedulable", spec_path).value_or(false);
  const Path status_path = root.field("status");
  const Mapping status = r.map_field(obj, "status", root);
  const YAML::Node alloc = status.get("allocatable");
  node.allocatable = Reader::present(alloc) ? r.resources(alloc, status_path.field("allocatable"))
                                            : r.resources_field(status, "capacity", status_path);
  r.each_map(status, "conditions", status_path, [&](const Mapping& c, const Path& cp) {
    if (r.text_field(c, "type", cp) != "Ready") return;
    const std::string s = r.text_field(c, "status", cp);
    if (s == "True") {
      node.ready = true;
    } else if (s == "False" || s == "Unknown") {
      node.ready = false;
    } else {
      r.fail(cp.field("status"),
             quote(s) + " is not a condition status; use True, False or Unknown");
    }
  });
  return node;
}

/// Go's strconv.ParseBool, which Volcano applies to volcano.sh/preemptable.
std::optional<bool> go_bool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "False" || s == "FALSE")
    return false;
  return std::nullopt;
}

/// volcano.sh/preemptable, as Volcano reads it for pods and PodGroups: the
/// annotation, else the label; true when neither is set.
bool read_preemptable(const Reader& r, const std::map<std::string, std::string>& annotations,
                      const std::map<std::string, std::string>& labels, const Path& meta_path) {
  for (std::string_view where : {"annotations", "labels"}) {
    const auto& m = where == "annotations" ? annotations : labels;
    auto it = m.find(std::string(kPreemptableKey));
    if (it == m.end()) continue;
    const std::optional<bool> b = go_bool(it->second);
    if (!b) {
      r.fail(meta_path.field(where).field(kPreemptableKey),
             quote(it->second) + " is not a boolean; write \"true\" or \"false\"");
    }
    return *b;
  }
  return true;
}

/// True if `key` of `m` holds a non-empty list.
bool has_items(const Mapping& m, std::string_view key) {
  const YAML::Node n = m.get(key);
  return n.IsSequence() && n.size() > 0;
}

/// Which pod (anti-)affinity terms the pod has; their content is read by the
/// plugins that use them, from the pod's JSON.
uint32_t pod_affinity_features(const Reader& r, const Mapping& affinity, const Path& aff_path) {
  constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  uint32_t features = 0;
  const Mapping pod_affinity = r.map_field(affinity, "podAffinity", aff_path);
  const Mapping anti_affinity = r.map_field(affinity, "podAntiAffinity", aff_path);
  if (has_items(pod_affinity, kRequired)) features |= model::kPodAffinity;
  if (has_items(anti_affinity, kRequired)) features |= model::kPodAntiAffinity;
  if (has_items(pod_affinity, kPreferred) || has_items(anti_affinity, kPreferred))
    features |= model::kPreferredPodAffinity;
  return features;
}

/// True if a container or init container asks for a host port.
bool uses_host_ports(const Reader& r, const Mapping& spec, const Path& spec_path) {
  bool found = false;
  for (std::string_view list : {"containers", "initContainers"}) {
    r.each_map(spec, list, spec_path, [&](const Mapping& c, const Path& cp) {
      r.each_map(c, "ports", cp, [&](const Mapping& port, const Path& pp) {
        if (r.int_field(port, "hostPort", pp).value_or(0) > 0) found = true;
      });
    });
  }
  return found;
}

model::PodPhase pod_phase(const Reader& r, const std::string& phase, const Path& at) {
  if (phase.empty() || phase == "Pending") return model::PodPhase::Pending;
  if (phase == "Running") return model::PodPhase::Running;
  if (phase == "Succeeded") return model::PodPhase::Succeeded;
  if (phase == "Failed") return model::PodPhase::Failed;
  if (phase == "Unknown") return model::PodPhase::Unknown;
  r.fail(at,
         quote(phase) + " is not a pod phase; use Pending, Running, Succeeded, Failed or Unknown");
}

void read_affinity(const Reader& r, const Mapping& spec, const Path& spec_path, model::Pod& pod) {
  const Path aff_path = spec_path.field("affinity");
  const Mapping affinity = r.map_field(spec, "affinity", spec_path);
  pod.features |= pod_affinity_features(r, affinity, aff_path);
  const Path na_path = aff_path.field("nodeAffinity");
  const Mapping node_affinity = r.map_field(affinity, "nodeAffinity", aff_path);
  const Path req_path = na_path.field("requiredDuringSchedulingIgnoredDuringExecution");
  const Mapping required =
      r.map_field(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", na_path);
  if (required.present()) {
    r.each_map(required, "nodeSelectorTerms", req_path, [&](const Mapping& t, const Path& tp) {
      pod.required_affinity.push_back(selector_term(r, t, tp));
    });
    if (pod.required_affinity.empty()) {
      r.fail(req_path.field("nodeSelectorTerms"),
             "is empty; give at least one term, or remove requiredDuringScheduling...");
    }
  }
  r.each_map(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", na_path,
             [&](const Mapping& p, const Path& pp) {
               const std::optional<int32_t> w = r.int_field(p, "weight", pp);
               if (!w || *w < 1 || *w > 100) {
                 r.fail(pp.field("weight"),
                        (w ? std::to_string(*w) + " is out of range" : std::string("is missing")) +
                            "; write a weight from 1 to 100");
               }
               const Path pref_path = pp.field("preference");
               const Mapping pref = r.map_field(p, "preference", pp);
               if (!pref.present()) r.fail(pref_path, "is missing; give a node selector term");
               model::NodeSelectorTerm term = selector_term(r, pref, pref_path);
               term.weight = *w;
               pod.preferred_affinity.push_back(std::move(term));
             });
}

model::Pod read_pod(const Reader& r, const Mapping& obj, const Path& root, const Mapping& meta,
                    const Path& meta_path) {
  model::Pod pod;
  pod.labels = r.string_map(meta, "labels", meta_path);
  pod.annotations = r.string_map(meta, "annotations", meta_path);
  pod.creation_ms = r.timestamp(meta, "creationTimestamp", meta_path);
  pod.deleting = !r.text_field(meta, "deletionTimestamp", meta_path).empty();
  if (auto g = pod.annotations.find(std::string(kGroupNameKey)); g != pod.annotations.end())
    pod.group_name = g->second;

  // volcano.sh/preemptable and volcano.sh/task-spec: annotation, else label.
  pod.preemptable = read_preemptable(r, pod.annotations, pod.labels, meta_path);
  for (const auto* m : {&pod.annotations, &pod.labels}) {
    auto it = m->find(std::string(kTaskSpecKey));
    if (it != m->end() && !it->second.empty()) {
      pod.role = it->second;
      break;
    }
  }

  const Path spec_path = root.field("spec");
  const Mapping spec = r.map_field(obj, "spec", root);
  pod.scheduler_name = r.text_field(spec, "schedulerName", spec_path);
  pod.node_name = r.text_field(spec, "nodeName", spec_path);
  pod.priority_class_name = r.text_field(spec, "priorityClassName", spec_path);
  pod.priority = r.int_field(spec, "priority", spec_path);
  const std::string policy = r.text_field(spec, "preemptionPolicy", spec_path);
  if (policy == "Never") {
    pod.preempt_never = true;
  } else if (!policy.empty() && policy != "PreemptLowerPriority") {
    r.fail(spec_path.field("preemptionPolicy"),
           quote(policy) + " is not a preemption policy; use PreemptLowerPriority or Never");
  }
  pod.node_selector = r.string_map(spec, "nodeSelector", spec_path);

  // Requests as Kubernetes counts them (PodRequests): regular containers and
  // sidecars (init containers with restartPolicy Always) run together; each
  // other init container runs alone beside the sidecars started before it.
  r.each_map(spec, "containers", spec_path, [&](const Mapping& c, const Path& cp) {
    add_into(pod.requests, container_requests(r, c, cp));
  });
  ResourceList sidecars;
  ResourceList init_peak;
  r.each_map(spec, "initContainers", spec_path, [&](const Mapping& c, const Path& cp) {
    ResourceList req = container_requests(r, c, cp);
    if (r.text_field(c, "restartPolicy", cp) == "Always") {
      add_into(pod.requests, req);
      add_into(sidecars, req);
      req = sidecars;
    } else {
      add_into(req, sidecars);
    }
    max_into(init_peak, req);
  });
  pod.init_requests = pod.requests;
  max_into(pod.init_requests, init_peak);
  const ResourceList overhead = r.resources_field(spec, "overhead", spec_path);
  add_into(pod.requests, overhead);
  add_into(pod.init_requests, overhead);

  read_affinity(r, spec, spec_path, pod);
  r.each_map(spec, "tolerations", spec_path, [&](const Mapping& t, const Path& tp) {
    pod.tolerations.push_back(toleration(r, t, tp));
  });
  if (has_items(spec, "topologySpreadConstraints")) pod.features |= model::kTopologySpread;
  if (uses_host_ports(r, spec, spec_path)) pod.features |= model::kHostPorts;
  pod.scheduling_gated = has_items(spec, "schedulingGates");

  const Path status_path = root.field("status");
  const Mapping status = r.map_field(obj, "status", root);
  pod.phase = pod_phase(r, r.text_field(status, "phase", status_path), status_path.field("phase"));
  pod.nominated_node = r.text_field(status, "nominatedNodeName", status_path);
  pod.json = yaml_to_json(obj.node()).dump();
  return pod;
}

model::PodGroupPhase pod_group_phase(const Reader& r, const std::string& phase, const Path& at) {
  if (phase.empty() || phase == "Pending") return model::PodGroupPhase::Pending;
  if (phase == "Inqueue") return model::PodGroupPhase::Inqueue;
  if (phase == "Running") return model::PodGroupPhase::Running;
  if (phase == "Unknown") return model::PodGroupPhase::Unknown;
  if (phase == "Completed") return model::PodGroupPhase::Completed;
  r.fail(at, quote(phase) +
                 " is not a PodGroup phase; use Pending, Inqueue, Running, Unknown or Completed");
}

model::PodGroup read_pod_group(const Reader& r, const Mapping& obj, const Path& root,
                               const Mapping& meta, const Path& meta_path) {
  model::PodGroup g;
  g.annotations = r.string_map(meta, "annotations", meta_path);
  g.preemptable =
      read_preemptable(r, g.annotations, r.string_map(meta, "labels", meta_path), meta_path);
  g.creation_ms = r.timestamp(meta, "creationTimestamp", meta_path);
  const Path spec_path = root.field("spec");
  const Mapping spec = r.map_field(obj, "spec", root);
  g.min_member = r.count_field(spec, "minMember", spec_path, 1);
  const Path mtm_path = spec_path.field("minTaskMember");
  const Mapping mtm = r.map_field(spec, "minTaskMember", spec_path);
  for (const auto& [role, value] : mtm.entries()) {
    const Path entry = mtm_path.field(role);
    const int32_t n = r.int32(value, entry);
    if (n < 0) r.fail(entry, std::to_string(n) + " is negative; write 0 or more");
    g.min_task_member.emplace(role, n);
  }
  const YAML::Node min_res = spec.get("minResources");
  g.has_min_resources = Reader::present(min_res);
  g.min_resources = r.resources(min_res, spec_path.field("minResources"));
  const std::string queue = r.text_field(spec, "queue", spec_path);
  g.queue = queue.empty() ? std::string(kDefaultQueue) : queue;
  g.priority_class_name = r.text_field(spec, "priorityClassName", spec_path);
  const Path status_path = root.field("status");
  const Mapping status = r.map_field(obj, "status", root);
  g.phase =
      pod_group_phase(r, r.text_field(status, "phase", status_path), status_path.field("phase"));
  return g;
}

model::Queue read_queue(const Reader& r, const Mapping& obj, const Path& root, const Mapping& meta,
                        const Path& meta_path) {
  model::Queue q;
  q.annotations = r.string_map(meta, "annotations", meta_path);
  q.creation_ms = r.timestamp(meta, "creationTimestamp", meta_path);
  const Path spec_path = root.field("spec");
  const Mapping spec = r.map_field(obj, "spec", root);
  // Volcano's admission turns weight 0 into the default 1.
  const int32_t weight = r.count_field(spec, "weight", spec_path, 1);
  q.weight = weight == 0 ? 1 : weight;
  q.priority = r.int_field(spec, "priority", spec_path).value_or(0);
  q.parent = r.text_field(spec, "parent", spec_path);
  q.capability = r.resources_field(spec, "capability", spec_path);
  q.deserved = r.resources_field(spec, "deserved", spec_path);
  // Volcano's schema nests the list (guarantee: {resource: {...}}); a plain
  // list is accepted too.
  const Path g_path = spec_path.field("guarantee");
  const Mapping guarantee = r.map_field(spec, "guarantee", spec_path);
  const YAML::Node nested = guarantee.get("resource");
  q.guarantee = Reader::present(nested) && nested.IsMap()
                    ? r.resources(nested, g_path.field("resource"))
                    : r.resources(guarantee.node(), g_path);
  q.reclaimable = r.bool_field(spec, "reclaimable", spec_path).value_or(true);
  const Path status_path = root.field("status");
  const Mapping status = r.map_field(obj, "status", root);
  const std::string state = r.text_field(status, "state", status_path);
  if (state.empty() || state == "Open") {
    q.open = true;
  } else if (state == "Closed" || state == "Closing" || state == "Unknown") {
    q.open = false;
  } else {
    r.fail(status_path.field("state"),
           quote(state) + " is not a queue state; use Open, Closed, Closing or Unknown");
  }
  return q;
}

model::PriorityClass read_priority_class(const Reader& r, const Mapping& obj, const Path& root,
                                         bool& never_preempt) {
  model::PriorityClass pc;
  pc.value = r.int_field(obj, "value", root).value_or(0);
  pc.global_default = r.bool_field(obj, "globalDefault", root).value_or(false);
  const std::string policy = r.text_field(obj, "preemptionPolicy", root);
  if (!policy.empty() && policy != "Never" && policy != "PreemptLowerPriority") {
    r.fail(root.field("preemptionPolicy"),
           quote(policy) + " is not a preemption policy; use PreemptLowerPriority or Never");
  }
  never_preempt = policy == "Never";
  return pc;
}

void check_name(const Reader& r, const std::string& name, const Path& at) {
  if (name.find('/') != std::string::npos)
    r.fail(at, quote(name) + " contains '/'; use a DNS name such as \"job-0\"");
}

/// One object: `node` at `root` (the document itself, or items[i] of a List).
void read_object(Reader& r, const YAML::Node& node, const Path& root, int doc, int item,
                 std::string_view default_kind, std::vector<Parsed>& out) {
  r.set_kind({});
  r.set_object({});
  if (!node.IsMap()) {
    r.fail(root, "is " + describe(node) +
                     ", not an object; write one object (apiVersion, kind, metadata, ...) per "
                     "document");
  }
  const Mapping obj = r.mapping(node, root);
  std::string kind = r.text_field(obj, "kind", root);
  if (kind.empty()) kind = default_kind;
  if (kind.empty()) {
    r.fail(root.field("kind"),
           "is missing; every object needs apiVersion and kind, e.g. apiVersion: v1, kind: Pod");
  }
  r.set_kind(kind);
  // Name the object in messages about its kind already, when it has a name.
  if (const YAML::Node meta_node = obj.get("metadata"); meta_node.IsMap()) {
    const Mapping peek(meta_node);
    const YAML::Node n = peek.get("name");
    const YAML::Node ns = peek.get("namespace");
    if (n.IsScalar()) r.set_object((ns.IsScalar() ? ns.Scalar() + "/" : "") + n.Scalar());
  }
  const auto info =
      std::find_if(kKinds.begin(), kKinds.end(), [&](const KindInfo& k) { return k.kind == kind; });
  if (info == kKinds.end())
    r.fail(root.field("kind"), quote(kind) + " is not supported; use one of " + supported_kinds());
  const std::string api = r.text_field(obj, "apiVersion", root);
  if (!api.empty() && api != info->api_version) {
    r.fail(root.field("apiVersion"), quote(api) + " is not an apiVersion of " + kind +
                                         "; write apiVersion: " + std::string(info->api_version));
  }

  const Path meta_path = root.field("metadata");
  const Mapping meta = r.map_field(obj, "metadata", root);
  const std::string name = r.text_field(meta, "name", meta_path);
  if (name.empty()) r.fail(meta_path.field("name"), "is missing; give the " + kind + " a name");
  check_name(r, name, meta_path.field("name"));
  std::string ns;
  if (info->namespaced) {
    ns = r.text_field(meta, "namespace", meta_path);
    if (ns.empty()) ns = "default";
    check_name(r, ns, meta_path.field("namespace"));
  }
  r.set_object(info->namespaced ? ns + "/" + name : name);

  Parsed p{model::Node{}, doc, item, false};
  if (kind == "Node") {
    model::Node n = read_node(r, obj, root, meta, meta_path);
    n.name = name;
    p.object = std::move(n);
  } else if (kind == "Pod") {
    model::Pod pod = read_pod(r, obj, root, meta, meta_path);
    pod.namespace_ = ns;
    pod.name = name;
    p.object = std::move(pod);
  } else if (kind == "PodGroup") {
    model::PodGroup g = read_pod_group(r, obj, root, meta, meta_path);
    g.namespace_ = ns;
    g.name = name;
    p.object = std::move(g);
  } else if (kind == "Queue") {
    model::Queue q = read_queue(r, obj, root, meta, meta_path);
    q.name = name;
    p.object = std::move(q);
  } else {
    model::PriorityClass pc = read_priority_class(r, obj, root, p.never_preempt);
    pc.name = name;
    p.object = std::move(pc);
  }
  out.push_back(std::move(p));
}

/// A whole document: one object, or a List (kind: List, PodList, ...).
void read_document(const YAML::Node& node, std::string_view file, int doc,
                   std::vector<Parsed>& out) {
  Reader r(file, doc);
  const Path root;
  const std::string kind =
      node.IsMap() ? r.text(Mapping(node).get("kind"), root.field("kind")) : std::string();
  const bool is_list = kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0;
  if (!is_list) {
    read_object(r, node, root, doc, -1, {}, out);
    return;
  }
  r.set_kind(kind);
  const std::string item_kind = kind.substr(0, kind.size() - 4);
  int i = 0;
  r.each(r.mapping(node, root), "items", root, [&](const YAML::Node& item, const Path& at) {
    read_object(r, item, at, doc, i++, item_kind, out);
  });
}

// ===========================================================================
// Documents: splitting, parsing in parallel
// ===========================================================================

/// A run of the file that yaml-cpp parses on its own.
struct Chunk {
  std::string_view text;
  int first_doc = 1;   // number of its first document
  int first_line = 0;  // 0-based line of its first character in the file
  int expected = 1;    // documents it must hold; -1: any (the whole file)
};

bool is_marker(std::string_view line, std::string_view marker) {
  return line.substr(0, 3) == marker && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' ||
                                         line[3] == '\r' || line[3] == '\n');
}

/// Cuts a multi-document stream at its document markers ("---" and "..." at
/// the start of a line, which YAML forbids inside any content), so that the
/// documents can be parsed apart. Numbers documents the way yaml-cpp does:
/// every "---" opens one, and text before the first marker (or after "...")
/// is one only if it holds more than comments. Directives (%YAML) make the
/// boundaries subtle: such a file stays whole.
std::vector<Chunk> split_documents(std::string_view text) {
  std::vector<Chunk> chunks;
  size_t start = 0;
  int start_line = 0;
  bool explicit_doc = false;
  bool content = false;
  int next_doc = 1;
  auto close = [&](size_t end) {
    if (explicit_doc || content) {
      chunks.push_back({text.substr(start, end - start), next_doc, start_line, 1});
      ++next_doc;
    }
  };
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    const size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    const std::string_view line = text.substr(pos, next - pos);
    if (!line.empty() && line[0] == '%') return {{text, 1, 0, -1}};
    if (is_marker(line, "---")) {
      close(pos);
      start = pos;
      start_line = line_no;
      explicit_doc = true;
      content = false;
    } else if (is_marker(line, "...")) {
      close(next);
      start = next;
      start_line = line_no + 1;
      explicit_doc = false;
      content = false;
    } else if (!content) {
      const size_t first = line.find_first_not_of(" \t\r\n");
      content = first != std::string_view::npos && line[first] != '#';
    }
    pos = next;
    ++line_no;
  }
  close(text.size());
  return chunks;
}

struct ChunkResult {
  std::vector<Parsed> objects;
  std::exception_ptr error;
  bool mismatch = false;  // the split disagreed with yaml-cpp: parse the file whole
};

std::string yaml_error(std::string_view file, const Chunk& chunk, const YAML::Exception& e) {
  std::string msg = std::string(file) + ": ";
  if (chunk.expected >= 0) msg += "document " + std::to_string(chunk.first_doc) + ": ";
  if (!e.mark.is_null()) {
    msg += "line " + std::to_string(chunk.first_line + e.mark.line + 1) + ", column " +
           std::to_string(e.mark.column + 1) + ": ";
  }
  return msg + "invalid YAML (" + e.msg +
         "); check the indentation, the quoting and the ':' after each key there";
}

ChunkResult parse_chunk(std::string_view file, const Chunk& chunk) {
  ChunkResult result;
  try {
    std::vector<YAML::Node> docs;
    try {
      docs = YAML::LoadAll(std::string(chunk.text));
    } catch (const YAML::Exception& e) {
      throw InputError(yaml_error(file, chunk, e));
    }
    if (chunk.expected >= 0 && docs.size() != static_cast<size_t>(chunk.expected)) {
      result.mismatch = true;
      return result;
    }
    for (size_t i = 0; i < docs.size(); ++i) {
      // An empty document (a stray "---") is numbered but holds nothing.
      if (!Reader::present(docs[i])) continue;
      read_document(docs[i], file, chunk.first_doc + static_cast<int>(i), result.objects);
    }
  } catch (...) {
    result.error = std::current_exception();
  }
  return result;
}

/// Parses the chunks on every core. Workers claim chunks in order and stop
/// claiming after an error; chunks before the first error are all parsed,
/// so the error reported is the first in the file.
std::vector<ChunkResult> parse_chunks(std::string_view file, const std::vector<Chunk>& chunks) {
  std::vector<ChunkResult> results(chunks.size());
  constexpr size_t kBatch = 32;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t begin = next.fetch_add(kBatch);
      if (begin >= chunks.size()) return;
      const size_t end = std::min(chunks.size(), begin + kBatch);
      for (size_t i = begin; i < end; ++i) {
        results[i] = parse_chunk(file, chunks[i]);
        if (results[i].error || results[i].mismatch) stop = true;
      }
    }
  };
  const size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const size_t helpers = std::min(cores, chunks.size() / (4 * kBatch) + 1) - 1;
  std::vector<std::jthread> threads;
  try {
    for (size_t i = 0; i < helpers; ++i) threads.emplace_back(work);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones running (and this one) suffice.
  }
  work();
  threads.clear();  // join before `results` is handed on
  return results;
}

/// Every object in `text`, in document order (chunk by chunk).
std::vector<std::vector<Parsed>> parse_text(std::string_view text, std::string_view file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const std::vector<Chunk> chunks = split_documents(text);
  std::vector<ChunkResult> results = parse_chunks(file, chunks);
  std::vector<std::vector<Parsed>> out;
  out.reserve(results.size());
  for (ChunkResult& r : results) {
    if (r.mismatch) {
      ChunkResult whole = parse_chunk(file, Chunk{text, 1, 0, -1});
      if (whole.error) std::rethrow_exception(whole.error);
      out.clear();
      out.push_back(std::move(whole.objects));
      return out;
    }
    if (r.error) std::rethrow_exception(r.error);
    out.push_back(std::move(r.objects));
  }
  return out;
}

// ===========================================================================
// Collecting objects across files
// ===========================================================================

/// Where an object came from, for messages about references.
struct Origin {
  std::string_view file;  // empty: not read from a file
  int doc = 0;
  int item = -1;
};

/// Where each object of a ClusterObjects came from, index by index, plus
/// what the model has no field for.
struct Origins {
  std::vector<Origin> pods, pod_groups, queues, priority_classes;
  std::set<std::string> never_preempt_classes;
};

[[noreturn]] void fail_at(const Origin* o, std::string_view kind, const std::string& object,
                          std::string_view field, std::string_view what) {
  std::string msg;
  if (o != nullptr && !o->file.empty()) {
    msg = std::string(o->file) + ": document " + std::to_string(o->doc) + " (" +
          object_label(kind, object) + "): field " +
          (o->item >= 0 ? "items[" + std::to_string(o->item) + "]." : "") + std::string(field) +
          ": ";
  } else {
    msg = object_label(kind, object) + ": field " + std::string(field) + ": ";
  }
  throw InputError(msg + std::string(what));
}

std::string where(const Origin& o) {
  if (o.file.empty()) return "an object given before";
  return "document " + std::to_string(o.doc) + " of " + std::string(o.file);
}

/// Builds a ClusterObjects file by file, refusing duplicates across all of
/// them (and against objects that were there before).
class Collector {
 public:
  Collector() = default;

  /// Objects already present elsewhere, that new ones must not duplicate.
  void claim_existing(const model::ClusterObjects& objects) {
    for (const auto& n : objects.nodes) seen_.emplace(key("Node", n.name), Origin{});
    for (const auto& p : objects.pods) seen_.emplace(key("Pod", p.key()), Origin{});
    for (const auto& g : objects.pod_groups) seen_.emplace(key("PodGroup", g.key()), Origin{});
    for (const auto& q : objects.queues) seen_.emplace(key("Queue", q.name), Origin{});
    for (const auto& c : objects.priority_classes)
      seen_.emplace(key("PriorityClass", c.name), Origin{});
  }

  void add(std::vector<std::vector<Parsed>> parsed, std::string_view file) {
    reserve(parsed);
    for (std::vector<Parsed>& chunk : parsed) {
      for (Parsed& p : chunk) {
        const Origin origin{file, p.doc, p.item};
        std::visit([&](auto& obj) { add(std::move(obj), origin, p.never_preempt); }, p.object);
      }
      chunk = {};  // free as we go: the objects have moved on
    }
  }

  model::ClusterObjects& objects() { return objects_; }
  const Origins& origins() const { return origins_; }

 private:
  void reserve(const std::vector<std::vector<Parsed>>& parsed) {
    size_t pods = 0, nodes = 0, groups = 0;
    for (const auto& chunk : parsed) {
      for (const Parsed& p : chunk) {
        pods += std::holds_alternative<model::Pod>(p.object) ? 1 : 0;
        nodes += std::holds_alternative<model::Node>(p.object) ? 1 : 0;
        groups += std::holds_alternative<model::PodGroup>(p.object) ? 1 : 0;
      }
    }
    objects_.pods.reserve(objects_.pods.size() + pods);
    origins_.pods.reserve(origins_.pods.size() + pods);
    objects_.nodes.reserve(objects_.nodes.size() + nodes);
    objects_.pod_groups.reserve(objects_.pod_groups.size() + groups);
    origins_.pod_groups.reserve(origins_.pod_groups.size() + groups);
    seen_.reserve(seen_.size() + pods + nodes + groups);
  }

  static std::string key(std::string_view kind, const std::string& name) {
    return std::string(kind) + '\n' + name;
  }

  void claim(std::string_view kind, const std::string& object, const Origin& origin,
             bool namespaced) {
    auto [it, fresh] = seen_.emplace(key(kind, object), origin);
    if (fresh) return;
    const Origin& first = it->second;
    const std::string before =
        first.file == origin.file ? "document " + std::to_string(first.doc) : where(first);
    const std::string scope =
        namespaced ? " in namespace \"" + object.substr(0, object.find('/')) + "\"" : "";
    fail_at(&origin, kind, object, "metadata.name",
            quote(object.substr(object.find('/') + 1)) + " is already used by " + before +
                "; give each " + std::string(kind) + scope + " its own name");
  }

  void add(model::Node&& n, const Origin& o, bool) {
    claim("Node", n.name, o, false);
    objects_.nodes.push_back(std::move(n));
  }
  void add(model::Pod&& p, const Origin& o, bool) {
    claim("Pod", p.key(), o, true);
    objects_.pods.push_back(std::move(p));
    origins_.pods.push_back(o);
  }
  void add(model::PodGroup&& g, const Origin& o, bool) {
    claim("PodGroup", g.key(), o, true);
    objects_.pod_groups.push_back(std::move(g));
    origins_.pod_groups.push_back(o);
  }
  void add(model::Queue&& q, const Origin& o, bool) {
    claim("Queue", q.name, o, false);
    objects_.queues.push_back(std::move(q));
    origins_.queues.push_back(o);
  }
  void add(model::PriorityClass&& c, const Origin& o, bool never) {
    claim("PriorityClass", c.name, o, false);
    if (never) origins_.never_preempt_classes.insert(c.name);
    objects_.priority_classes.push_back(std::move(c));
    origins_.priority_classes.push_back(o);
  }

  model::ClusterObjects objects_;
  Origins origins_;
  std::unordered_map<std::string, Origin> seen_;
};

// ===========================================================================
// Completion
// ===========================================================================

// PriorityClasses every Kubernetes cluster has without defining them.
std::optional<int32_t> builtin_class(std::string_view name) {
  if (name == "system-cluster-critical") return 2000000000;
  if (name == "system-node-critical") return 2000001000;
  return std::nullopt;
}

const Origin* origin_of(const std::vector<Origin>* list, size_t i) {
  return list != nullptr && i < list->size() ? &(*list)[i] : nullptr;
}

std::string group_annotation_field() {
  return "metadata.annotations[" + std::string(kGroupNameKey) + "]";
}

void complete(model::ClusterObjects& objects, const Origins* origins) {
  // Check every reference first: on error nothing has changed.
  std::unordered_map<std::string, int32_t> class_value;
  std::optional<int32_t> global_default;
  const model::PriorityClass* default_class = nullptr;
  for (size_t i = 0; i < objects.priority_classes.size(); ++i) {
    const model::PriorityClass& pc = objects.priority_classes[i];
    class_value.emplace(pc.name, pc.value);
    if (!pc.global_default) continue;
    if (default_class != nullptr) {
      fail_at(origin_of(origins ? &origins->priority_classes : nullptr, i), "PriorityClass",
              pc.name, "globalDefault",
              "PriorityClass " + quote(default_class->name) +
                  " is already the global default; set globalDefault: true on one class only");
    }
    default_class = &pc;
    global_default = pc.value;
  }
  auto class_exists = [&](const std::string& name) {
    return class_value.count(name) > 0 || builtin_class(name).has_value();
  };

  std::unordered_set<std::string> queues{std::string(kDefaultQueue)};
  for (const auto& q : objects.queues) queues.insert(q.name);
  for (size_t i = 0; i < objects.queues.size(); ++i) {
    const model::Queue& q = objects.queues[i];
    const Origin* o = origin_of(origins ? &origins->queues : nullptr, i);
    if (q.parent == q.name)
      fail_at(o, "Queue", q.name, "spec.parent", "a queue cannot be its own parent; name another");
    if (!q.parent.empty() && q.parent != "root" && queues.count(q.parent) == 0) {
      fail_at(o, "Queue", q.name, "spec.parent",
              "no Queue " + quote(q.parent) + " is defined; define it or leave parent unset");
    }
  }

  std::unordered_set<std::string> groups;
  for (size_t i = 0; i < objects.pod_groups.size(); ++i) {
    const model::PodGroup& g = objects.pod_groups[i];
    const Origin* o = origin_of(origins ? &origins->pod_groups : nullptr, i);
    groups.insert(g.key());
    if (!g.priority_class_name.empty() && !class_exists(g.priority_class_name)) {
      fail_at(o, "PodGroup", g.key(), "spec.priorityClassName",
              "no PriorityClass " + quote(g.priority_class_name) +
                  " is defined; define it (kind: PriorityClass) or remove priorityClassName");
    }
    if (queues.count(g.queue) == 0) {
      fail_at(o, "PodGroup", g.key(), "spec.queue",
              "no Queue " + quote(g.queue) +
                  " is defined; define it (kind: Queue) or use queue \"default\"");
    }
  }

  for (size_t i = 0; i < objects.pods.size(); ++i) {
    const model::Pod& p = objects.pods[i];
    const Origin* o = origin_of(origins ? &origins->pods : nullptr, i);
    if (!p.priority_class_name.empty() && !class_exists(p.priority_class_name)) {
      fail_at(o, "Pod", p.key(), "spec.priorityClassName",
              "no PriorityClass " + quote(p.priority_class_name) +
                  " is defined; define it (kind: PriorityClass) or remove priorityClassName");
    }
    if (!p.group_name.empty()) {
      if (groups.count(p.namespace_ + "/" + p.group_name) == 0) {
        fail_at(o, "Pod", p.key(), group_annotation_field(),
                "no PodGroup " + quote(p.group_name) + " in namespace " + quote(p.namespace_) +
                    "; define it (kind: PodGroup) or remove the annotation");
      }
    } else if (auto q = p.annotations.find(std::string(kQueueNameKey));
               q != p.annotations.end() && queues.count(q->second) == 0) {
      fail_at(o, "Pod", p.key(), "metadata.annotations[" + std::string(kQueueNameKey) + "]",
              "no Queue " + quote(q->second) + " is defined; define it (kind: Queue)");
    }
  }

  // All is well: complete.
  if (std::none_of(objects.queues.begin(), objects.queues.end(),
                   [](const model::Queue& q) { return q.name == kDefaultQueue; })) {
    model::Queue q;
    q.name = std::string(kDefaultQueue);
    objects.queues.push_back(std::move(q));
  }

  for (model::Pod& p : objects.pods) {
    if (!p.priority) {
      if (!p.priority_class_name.empty()) {
        auto c = class_value.find(p.priority_class_name);
        p.priority = c != class_value.end() ? c->second : *builtin_class(p.priority_class_name);
      } else {
        p.priority = global_default.value_or(0);
      }
    }
    // Kubernetes' admission copies the class's preemptionPolicy to the pod.
    if (origins != nullptr) {
      const std::string& cls = p.priority_class_name.empty() && default_class
                                   ? default_class->name
                                   : p.priority_class_name;
      if (origins->never_preempt_classes.count(cls) > 0) p.preempt_never = true;
    }
    if (!p.group_name.empty()) continue;

    // As Volcano's podgroup controller does for a pod of no group: one of
    // minMember 1, in the pod's queue annotation or "default", needing what
    // the pod needs.
    model::PodGroup g;
    g.namespace_ = p.namespace_;
    g.name = p.name;
    for (int n = 1; groups.count(g.key()) > 0; ++n)
      g.name = "podgroup-" + p.name + (n > 1 ? "-" + std::to_string(n) : "");
    g.implicit = true;
    g.min_member = 1;
    auto q = p.annotations.find(std::string(kQueueNameKey));
    g.queue = q != p.annotations.end() ? q->second : std::string(kDefaultQueue);
    g.priority_class_name = p.priority_class_name;
    g.preemptable = p.preemptable;
    g.creation_ms = p.creation_ms;
    g.min_resources = p.init_requests;
    max_into(g.min_resources, p.requests);
    add_into(g.min_resources, {{"pods", 1}});
    g.has_min_resources = true;
    for (std::string_view k : {kPreemptableKey, std::string_view("volcano.sh/cooldown-time"),
                               std::string_view("volcano.sh/revocable-zone")}) {
      if (auto a = p.annotations.find(std::string(k)); a != p.annotations.end())
        g.annotations.emplace(a->first, a->second);
    }
    // A pod already on a node is running as far as the group goes.
    g.phase = p.node_name.empty() ? model::PodGroupPhase::Pending : model::PodGroupPhase::Running;
    groups.insert(g.key());
    p.group_name = g.name;
    objects.pod_groups.push_back(std::move(g));
  }
}

std::string read_file(const std::string& name) {
  if (name == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    return s.str();
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open it; check that the file exists and is readable");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(name + ": reading it failed; check the file");
  return text;
}

}  // namespace

void parse_objects(std::string_view text, const std::string& file_name,
                   model::ClusterObjects& out) {
  Collector c;
  c.claim_existing(out);
  c.add(parse_text(text, file_name), file_name);
  model::ClusterObjects& fresh = c.objects();
  // Make room first: the moves below cannot fail, so `out` gets all or nothing.
  out.nodes.reserve(out.nodes.size() + fresh.nodes.size());
  out.pods.reserve(out.pods.size() + fresh.pods.size());
  out.pod_groups.reserve(out.pod_groups.size() + fresh.pod_groups.size());
  out.queues.reserve(out.queues.size() + fresh.queues.size());
  out.priority_classes.reserve(out.priority_classes.size() + fresh.priority_classes.size());
  auto append = [](auto& to, auto& from) {
    std::move(from.begin(), from.end(), std::back_inserter(to));
  };
  append(out.nodes, fresh.nodes);
  append(out.pods, fresh.pods);
  append(out.pod_groups, fresh.pod_groups);
  append(out.queues, fresh.queues);
  append(out.priority_classes, fresh.priority_classes);
}

model::ClusterObjects load_object_files(const std::vector<std::string>& files) {
  Collector c;
  for (const std::string& f : files) {
    const std::string text = read_file(f);
    c.add(parse_text(text, f == "-" ? kStdinName : std::string_view(f)),
          f == "-" ? kStdinName : std::string_view(f));
  }
  complete(c.objects(), &c.origins());
  return std::move(c.objects());
}

void complete_objects(model::ClusterObjects& objects) { complete(objects, nullptr); }

}  // namespace scoria::source
