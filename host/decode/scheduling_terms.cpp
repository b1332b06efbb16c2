#include "decode/scheduling_terms.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <system_error>
#include <utility>

namespace scoria::decode {

namespace {

constexpr std::string_view kPreemptableKey = "volcano.sh/preemptable";

model::SelectorRequirement selector_requirement(const FieldReader& r, const Node& m,
                                                const FieldPath& at, bool is_field) {
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
         [&](const Node& v, const FieldPath& vp) { req.values.push_back(r.text(v, vp)); });
  const FieldPath values = at.field("values");
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

/// Go's strconv.ParseBool, which Volcano applies to volcano.sh/preemptable.
std::optional<bool> go_bool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "False" || s == "FALSE")
    return false;
  return std::nullopt;
}

}  // namespace

model::TaintEffect taint_effect(const FieldReader& r, const std::string& s, const FieldPath& at) {
  if (s == "NoSchedule") return model::TaintEffect::NoSchedule;
  if (s == "PreferNoSchedule") return model::TaintEffect::PreferNoSchedule;
  if (s == "NoExecute") return model::TaintEffect::NoExecute;
  r.fail(at, (s.empty() ? std::string("is missing") : quote(s) + " is not a taint effect") +
                 "; use NoSchedule, PreferNoSchedule or NoExecute");
}

model::NodeSelectorTerm selector_term(const FieldReader& r, const Node& m, const FieldPath& at) {
  model::NodeSelectorTerm term;
  r.each_map(m, "matchExpressions", at, [&](const Node& e, const FieldPath& ep) {
    term.requirements.push_back(selector_requirement(r, e, ep, false));
  });
  r.each_map(m, "matchFields", at, [&](const Node& e, const FieldPath& ep) {
    term.requirements.push_back(selector_requirement(r, e, ep, true));
  });
  return term;
}

model::Toleration toleration(const FieldReader& r, const Node& m, const FieldPath& at) {
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

model::LabelSelector label_selector(const FieldReader& r, const Node& m, const FieldPath& at) {
  model::LabelSelector out;
  out.match_labels = r.string_map(m, "matchLabels", at);
  r.each_map(m, "matchExpressions", at, [&](const Node& e, const FieldPath& ep) {
    model::SelectorRequirement req;
    req.key = r.text_field(e, "key", ep);
    if (req.key.empty()) r.fail(ep.field("key"), "is missing; name the label to match");
    const std::string op = r.text_field(e, "operator", ep);
    if (op == "In" || op == "NotIn") {
      req.op = op == "In" ? model::SelectorOp::In : model::SelectorOp::NotIn;
    } else if (op == "Exists" || op == "DoesNotExist") {
      req.op = op == "Exists" ? model::SelectorOp::Exists : model::SelectorOp::DoesNotExist;
    } else {
      r.fail(ep.field("operator"),
             (op.empty() ? std::string("is missing") : quote(op) + " is not an operator") +
                 "; a label selector takes In, NotIn, Exists or DoesNotExist");
    }
    r.each(e, "values", ep,
           [&](const Node& v, const FieldPath& vp) { req.values.push_back(r.text(v, vp)); });
    const bool set_based = req.op == model::SelectorOp::In || req.op == model::SelectorOp::NotIn;
    if (set_based && req.values.empty())
      r.fail(ep.field("values"), "is empty; " + op + " needs at least one value");
    if (!set_based && !req.values.empty())
      r.fail(ep.field("values"), "must be empty with " + op + "; remove the values");
    out.match_expressions.push_back(std::move(req));
  });
  return out;
}

bool read_preemptable(const FieldReader& r, const std::map<std::string, std::string>& annotations,
                      const std::map<std::string, std::string>& labels, const FieldPath& meta_path,
                      bool absent) {
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
  return absent;
}

}  // namespace scoria::decode
