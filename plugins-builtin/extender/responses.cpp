#include "responses.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>

namespace scoria_extender {

namespace {

using nlohmann::json;

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// Go's encoding/json: the exact key first, else one that differs in case.
const json* field(const json& obj, std::string_view name) {
  if (!obj.is_object()) return nullptr;
  if (const auto it = obj.find(name); it != obj.end()) return &*it;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (same_ignoring_case(it.key(), name)) return &*it;
  return nullptr;
}

// The body as a JSON object; null counts as an empty object, as Go decodes
// it into a struct without complaint.
std::optional<json> object(std::string_view body, std::string& error) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    error = "the response is not JSON";
    return std::nullopt;
  }
  if (doc.is_null()) return json::object();
  if (!doc.is_object()) {
    error = "the response is not a JSON object";
    return std::nullopt;
  }
  return doc;
}

bool wrong(std::string_view name, std::string_view want, std::string& error) {
  error = "field \"" + std::string(name) + "\" is not " + std::string(want);
  return false;
}

// Each reader leaves `out` at its zero value for an absent or null field.
bool read_string(const json& obj, std::string_view name, std::string& out, std::string& error) {
  const json* f = field(obj, name);
  if (f == nullptr || f->is_null()) return true;
  if (!f->is_string()) return wrong(name, "a string", error);
  out = f->get<std::string>();
  return true;
}

bool read_int(const json& obj, std::string_view name, int& out, std::string& error) {
  const json* f = field(obj, name);
  if (f == nullptr || f->is_null()) return true;
  if (!f->is_number_integer()) return wrong(name, "a whole number", error);
  const auto v = f->get<int64_t>();
  if (v < INT32_MIN || v > INT32_MAX) return wrong(name, "a whole number in range", error);
  out = static_cast<int>(v);
  return true;
}

bool read_bool(const json& obj, std::string_view name, bool& out, std::string& error) {
  const json* f = field(obj, name);
  if (f == nullptr || f->is_null()) return true;
  if (!f->is_boolean()) return wrong(name, "true or false", error);
  out = f->get<bool>();
  return true;
}

}  // namespace

std::optional<PredicateAnswer> parse_predicate(std::string_view body, std::string& error) {
  const auto obj = object(body, error);
  if (!obj) return std::nullopt;
  PredicateAnswer a;
  if (!read_string(*obj, "status", a.message, error) || !read_int(*obj, "code", a.code, error))
    return std::nullopt;
  a.fits = a.message.empty();
  if (!a.fits && a.code == kCodeSuccess) a.code = kCodeError;
  return a;
}

std::optional<std::map<std::string, double, std::less<>>> parse_prioritize(std::string_view body,
                                                                           std::string& error) {
  const auto obj = object(body, error);
  if (!obj) return std::nullopt;
  std::string message;
  if (!read_string(*obj, "errorMessage", message, error)) return std::nullopt;
  const json* scores = field(*obj, "nodeScore");
  if (scores != nullptr && !scores->is_null() && !scores->is_object()) {
    wrong("nodeScore", "an object of node names to numbers", error);
    return std::nullopt;
  }
  if (!message.empty() || scores == nullptr || scores->is_null()) {
    error = message.empty() ? "no nodeScore in the response" : "the extender says: " + message;
    return std::nullopt;
  }
  std::map<std::string, double, std::less<>> out;
  for (auto it = scores->begin(); it != scores->end(); ++it) {
    if (!it->is_number() || !std::isfinite(it->get<double>())) {
      wrong("nodeScore." + it.key(), "a number", error);
      return std::nullopt;
    }
    out.emplace(it.key(), it->get<double>());
  }
  return out;
}

std::optional<VictimsAnswer> parse_victims(std::string_view body, std::string& error) {
  const auto obj = object(body, error);
  if (!obj) return std::nullopt;
  VictimsAnswer a;
  if (!read_int(*obj, "status", a.status, error)) return std::nullopt;
  const json* victims = field(*obj, "victims");
  if (victims == nullptr || victims->is_null()) return a;
  if (!victims->is_array()) {
    wrong("victims", "a list of tasks", error);
    return std::nullopt;
  }
  for (const json& v : *victims) {
    if (v.is_null()) continue;  // a nil *TaskInfo
    std::string uid;
    if (!v.is_object() || !read_string(v, "UID", uid, error)) {
      if (error.empty()) wrong("victims", "a list of tasks", error);
      return std::nullopt;
    }
    a.victim_uids.push_back(std::move(uid));
  }
  return a;
}

std::optional<int> parse_vote(std::string_view body, std::string& error) {
  const auto obj = object(body, error);
  int status = 0;
  if (!obj || !read_int(*obj, "status", status, error)) return std::nullopt;
  return status;
}

std::optional<bool> parse_overused(std::string_view body, std::string& error) {
  const auto obj = object(body, error);
  bool overused = false;
  if (!obj || !read_bool(*obj, "overused", overused, error)) return std::nullopt;
  return overused;
}

std::optional<bool> parse_ready(std::string_view body, std::string& error) {
  const auto obj = object(body, error);
  bool ready = false;
  if (!obj || !read_bool(*obj, "status", ready, error)) return std::nullopt;
  return ready;
}

std::optional<std::string> parse_event(std::string_view body, std::string& error) {
  const auto obj = object(body, error);
  std::string message;
  if (!obj || !read_string(*obj, "errorMessage", message, error)) return std::nullopt;
  return message;
}

}  // namespace scoria_extender
