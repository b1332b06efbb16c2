#include "api/selectors.h"

#include <algorithm>
#include <array>

#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

// The fields each kind may be selected on, besides metadata.name and
// metadata.namespace, as the API server's field label conversions allow.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kFields{{
    {"Pod", "spec.nodeName"},
    {"Pod", "status.phase"},
    {"Pod", "spec.schedulerName"},
    {"Pod", "spec.serviceAccountName"},
    {"Pod", "status.nominatedNodeName"},
    {"Node", "spec.unschedulable"},
    {"Event", "involvedObject.kind"},
    {"Event", "involvedObject.namespace"},
    {"Event", "involvedObject.name"},
    {"Event", "involvedObject.uid"},
    {"Event", "involvedObject.apiVersion"},
    {"Event", "involvedObject.resourceVersion"},
    {"Event", "involvedObject.fieldPath"},
    {"Event", "reason"},
    {"Event", "reportingComponent"},
    {"Event", "source"},
    {"Event", "type"},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

/// Splits at commas outside parentheses.
std::vector<std::string_view> terms_of(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      const std::string_view t = trim(text.substr(start, i - start));
      if (!t.empty()) out.push_back(t);
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return out;
}

const json* at_path(const json& object, std::string_view dotted) {
  const json* cur = &object;
  while (!dotted.empty()) {
    const size_t dot = dotted.find('.');
    const std::string key(dotted.substr(0, dot));
    if (!cur->is_object()) return nullptr;
    const auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string_view::npos) break;
    dotted.remove_prefix(dot + 1);
  }
  return cur;
}

std::string field_text(const json& object, const std::string& field) {
  // An event's "source" is its source.component, as the API server maps it.
  const json* v = at_path(object, field == "source" ? std::string("source.component") : field);
  // The API server selects on defaulted values.
  if (v == nullptr || v->is_null()) return field == "spec.unschedulable" ? "false" : "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  return v->dump();
}

}  // namespace

LabelSelector LabelSelector::parse(std::string_view text) {
  LabelSelector s;
  for (std::string_view t : terms_of(text)) {
    Requirement r;
    const auto bad = [&]() -> ApiError {
      return bad_request("unable to parse requirement \"" + std::string(t) +
                         "\" of labelSelector; write key=value, key!=value, key in (a,b), "
                         "key notin (a,b), key or !key");
    };
    if (t.front() == '!') {
      r.key = std::string(trim(t.substr(1)));
      r.op = Op::DoesNotExist;
    } else if (const size_t ne = t.find("!="); ne != std::string_view::npos) {
      r.key = std::string(trim(t.substr(0, ne)));
      r.op = Op::NotEquals;
      r.values.emplace_back(trim(t.substr(ne + 2)));
    } else if (const size_t eq = t.find('='); eq != std::string_view::npos) {
      r.key = std::string(trim(t.substr(0, eq)));
      r.op = Op::Equals;
      std::string_view v = t.substr(eq + 1);
      if (!v.empty() && v.front() == '=') v.remove_prefix(1);
      r.values.emplace_back(trim(v));
    } else if (const size_t paren = t.find('('); paren != std::string_view::npos) {
      if (t.back() != ')') throw bad();
      const std::string_view head = trim(t.substr(0, paren));
      const size_t space = head.rfind(' ');
      if (space == std::string_view::npos) throw bad();
      r.key = std::string(trim(head.substr(0, space)));
      const std::string_view op = head.substr(space + 1);
      if (op == "in") {
        r.op = Op::In;
      } else if (op == "notin") {
        r.op = Op::NotIn;
      } else {
        throw bad();
      }
      std::string_view list = t.substr(paren + 1, t.size() - paren - 2);
      while (true) {
        const size_t comma = list.find(',');
        r.values.emplace_back(trim(list.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    } else {
      r.key = std::string(t);
      r.op = Op::Exists;
    }
    if (r.key.empty() || r.key.find(' ') != std::string::npos) throw bad();
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

bool LabelSelector::matches(const json& object) const {
  const json* labels = at_path(object, "metadata.labels");
  for (const Requirement& r : requirements_) {
    const json* v = labels != nullptr && labels->is_object() && labels->contains(r.key)
                        ? &(*labels)[r.key]
                        : nullptr;
    const std::string value = v != nullptr && v->is_string() ? v->get<std::string>() : "";
    const bool in =
        v != nullptr && std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.op) {
      case Op::Equals:
      case Op::In:
        if (!in) return false;
        break;
      case Op::NotEquals:
      case Op::NotIn:
        if (in) return false;
        break;
      case Op::Exists:
        if (v == nullptr) return false;
        break;
      case Op::DoesNotExist:
        if (v != nullptr) return false;
        break;
    }
  }
  return true;
}

FieldSelector FieldSelector::parse(std::string_view text, std::string_view kind) {
  FieldSelector s;
  for (std::string_view t : terms_of(text)) {
    Term term;
    size_t op = t.find("!=");
    size_t skip = 2;
    term.equals = op == std::string_view::npos;
    if (term.equals) {
      op = t.find("==");
      if (op == std::string_view::npos) {
        op = t.find('=');
        skip = 1;
      }
    }
    if (op == std::string_view::npos)
      throw bad_request("invalid fieldSelector \"" + std::string(t) + "\"; write field=value");
    term.field = std::string(trim(t.substr(0, op)));
    term.value = std::string(trim(t.substr(op + skip)));
    const bool known = term.field == "metadata.name" || term.field == "metadata.namespace" ||
                       std::any_of(kFields.begin(), kFields.end(), [&](const auto& f) {
                         return f.first == kind && f.second == term.field;
                       });
    if (!known) throw bad_request("field label not supported: " + term.field);
    s.terms_.push_back(std::move(term));
  }
  return s;
}

bool FieldSelector::matches(const json& object) const {
  for (const Term& t : terms_) {
    const bool same = field_text(object, t.field) == t.value;
    if (same != t.equals) return false;
  }
  return true;
}

json selectable_part(const json& object) {
  json part = json::object();
  const auto copy = [&](std::string_view dotted) {
    const json* v = at_path(object, std::string(dotted));
    if (v == nullptr) return;
    json* to = &part;
    for (size_t start = 0;;) {
      const size_t dot = dotted.find('.', start);
      const std::string key(dotted.substr(start, dot - start));
      if (dot == std::string_view::npos) {
        (*to)[key] = *v;
        return;
      }
      to = &(*to)[key];
      if (!to->is_null() && !to->is_object()) return;
      start = dot + 1;
    }
  };
  for (const std::string_view path : {"metadata.name", "metadata.namespace", "metadata.labels"})
    copy(path);
  for (const auto& [kind, field] : kFields) copy(field == "source" ? "source.component" : field);
  return part;
}

}  // namespace scoria::api
