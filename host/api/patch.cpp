#include "api/patch.h"

#include <algorithm>
#include <array>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

/// Merge keys of the lists Kubernetes merges item by item (the
/// patchMergeKey tags of its types), by the list's field name.
std::string_view merge_key(std::string_view field) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 15> kKeys{{
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"volumes", "name"},
      {"env", "name"},
      {"volumeMounts", "mountPath"},
      {"ports", "containerPort"},
      {"imagePullSecrets", "name"},
      {"conditions", "type"},
      {"addresses", "type"},
      {"hostAliases", "ip"},
      {"topologySpreadConstraints", "topologyKey"},
      {"resourceClaims", "name"},
      {"ownerReferences", "uid"},
      {"schedulingGates", "name"},
  }};
  for (const auto& [f, k] : kKeys)
    if (f == field) return k;
  return {};
}

json strategic(const json& target, const json& patch);

/// A list under `field`: merged by key where Kubernetes does, else replaced.
json strategic_list(const json& target, const json& patch, std::string_view field) {
  const std::string_view key = merge_key(field);
  if (key.empty() || !target.is_array()) {
    // A list of maps holding {"$patch": "replace"} is a replacement too.
    json out = json::array();
    for (const json& item : patch)
      if (!(item.is_object() && item.contains("$patch"))) out.push_back(item);
    return out;
  }
  for (const json& item : patch)
    if (item.is_object() && item.value("$patch", "") == "replace") {
      json out = json::array();
      for (const json& i : patch)
        if (!(i.is_object() && i.contains("$patch"))) out.push_back(i);
      return out;
    }
  // The elements by the value of their key, in order (a list may repeat
  // one), so that merging n items into m costs n + m lookups, not n * m.
  const std::string k(key);
  json out = target;
  std::vector<bool> gone(out.size(), false);
  std::unordered_map<std::string, std::deque<size_t>> at;
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].is_object() && out[i].contains(k)) at[out[i][k].dump()].push_back(i);
  for (const json& item : patch) {
    if (!item.is_object() || !item.contains(k)) {
      out.push_back(item);
      gone.push_back(false);
      continue;
    }
    const std::string id = item[k].dump();
    std::deque<size_t>& same = at[id];
    if (item.value("$patch", "") == "delete") {
      if (!same.empty()) {
        gone[same.front()] = true;
        same.pop_front();
      }
    } else if (!same.empty()) {
      out[same.front()] = strategic(out[same.front()], item);
    } else {
      json fresh = item;
      fresh.erase("$patch");
      same.push_back(out.size());
      out.push_back(strategic(json::object(), fresh));
      gone.push_back(false);
    }
  }
  json kept = json::array();
  for (size_t i = 0; i < out.size(); ++i)
    if (!gone[i]) kept.push_back(std::move(out[i]));
  return kept;
}

json strategic(const json& target, const json& patch) {
  if (!patch.is_object()) return patch;
  if (patch.value("$patch", "") == "replace") {
    json out = patch;
    out.erase("$patch");
    return out;
  }
  if (patch.value("$patch", "") == "delete") return nullptr;
  json out = target.is_object() ? target : json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "$patch" || k == "$retainKeys" || k.starts_with("$setElementOrder/")) continue;
    if (k.starts_with("$deleteFromPrimitiveList/")) {
      const std::string field = k.substr(25);
      if (out.contains(field) && out[field].is_array() && v.is_array())
        for (const json& gone : v)
          out[field].erase(std::remove(out[field].begin(), out[field].end(), gone),
                           out[field].end());
      continue;
    }
    if (v.is_null()) {
      out.erase(k);
    } else if (v.is_object()) {
      json merged = strategic(out.contains(k) ? out[k] : json::object(), v);
      if (merged.is_null()) {
        out.erase(k);
      } else {
        out[k] = std::move(merged);
      }
    } else if (v.is_array()) {
      out[k] = strategic_list(out.contains(k) ? out[k] : json::array(), v, k);
    } else {
      out[k] = v;
    }
  }
  return out;
}

}  // namespace

bool is_apply_patch(std::string_view content_type) {
  return content_type.substr(0, content_type.find(';')) == "application/apply-patch+yaml";
}

PatchType patch_type(std::string_view content_type) {
  const std::string_view base = content_type.substr(0, content_type.find(';'));
  if (base == "application/merge-patch+json") return PatchType::Merge;
  if (base == "application/json-patch+json") return PatchType::Json;
  if (base == "application/strategic-merge-patch+json") return PatchType::StrategicMerge;
  throw ApiError(415, "UnsupportedMediaType",
                 "the body of the request was in an unknown format - accepted media types "
                 "include: application/json-patch+json, application/merge-patch+json, "
                 "application/strategic-merge-patch+json, application/apply-patch+yaml");
}

json apply_patch(const json& target, const json& patch, PatchType type) {
  switch (type) {
    case PatchType::Merge: {
      if (!patch.is_object()) throw bad_request("a merge patch must be a JSON object");
      json out = target;
      out.merge_patch(patch);
      return out;
    }
    case PatchType::Json:
      if (!patch.is_array()) throw bad_request("a JSON patch must be a list of operations");
      try {
        return target.patch(patch);
      } catch (const json::exception& e) {
        throw ApiError(422, "Invalid", std::string("the JSON patch does not apply: ") + e.what());
      }
    case PatchType::StrategicMerge:
      if (!patch.is_object()) throw bad_request("a strategic merge patch must be a JSON object");
      return strategic(target, patch);
  }
  return target;
}

}  // namespace scoria::api
